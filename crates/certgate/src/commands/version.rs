//! `certgate version`: the release, the commit it was built from and the build date, as text
//! (`certgate v0.1.0 (commit abc1234, built 2026-11-29T12:00:00Z)`) or, with `-o json|yaml`,
//! in the shape `kubectl version` and `cmctl version` print (`clientVersion.gitVersion`, ...).
//! The commit and date come from `build.rs`; `unknown` when the source had no git checkout.

use clap::{Args, ValueEnum};
use serde_json::{Value, json};

pub const VERSION_LONG_ABOUT: &str = "\
Print certgate's version, the git commit it was built from and the build date.

The commit is `unknown` when certgate was built outside a git checkout (from a source tarball).
The build date is SOURCE_DATE_EPOCH when that was set at build time (reproducible builds).
`certgate --version` prints the version alone.";

/// `certgate version` arguments.
#[derive(Clone, Debug, Args)]
pub struct VersionArgs {
    /// Output format.
    #[arg(short = 'o', long, value_enum, default_value_t = VersionFormat::Text)]
    pub output: VersionFormat,
}

/// `-o` values of `certgate version`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum VersionFormat {
    /// One line: `certgate vX.Y.Z (commit C, built DATE)`.
    Text,
    /// `{"clientVersion": {"gitVersion": ..., "gitCommit": ..., "buildDate": ..., ...}}`.
    Json,
    /// The JSON document as YAML.
    Yaml,
}

/// What this binary is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildInfo {
    /// `v` and the crate's version: `v0.1.0`.
    pub version: String,
    /// The short commit hash, or `unknown`.
    pub commit: String,
    /// RFC 3339 in UTC, or `unknown`.
    pub build_date: String,
    /// Go's `GOOS/GOARCH` spelling of the target: `linux/amd64`.
    pub platform: String,
}

impl BuildInfo {
    /// This binary's build information.
    pub fn current() -> Self {
        BuildInfo {
            version: format!("v{}", env!("CARGO_PKG_VERSION")),
            commit: env!("CERTGATE_GIT_COMMIT").to_owned(),
            build_date: env!("CERTGATE_BUILD_DATE").to_owned(),
            platform: format!("{}/{}", std::env::consts::OS, go_arch(std::env::consts::ARCH)),
        }
    }

    fn document(&self) -> Value {
        json!({
            "clientVersion": {
                "gitVersion": self.version,
                "gitCommit": self.commit,
                "buildDate": self.build_date,
                "compiler": "rustc",
                "platform": self.platform,
            }
        })
    }

    /// The output of `certgate version -o FORMAT`, ending in a newline.
    pub fn render(&self, format: VersionFormat) -> String {
        match format {
            VersionFormat::Text => format!(
                "certgate {} (commit {}, built {})\n",
                self.version, self.commit, self.build_date
            ),
            VersionFormat::Json => {
                // A `Value` always serializes.
                let mut text = serde_json::to_string_pretty(&self.document()).unwrap_or_default();
                text.push('\n');
                text
            }
            VersionFormat::Yaml => certgate_goyaml::to_yaml(&self.document()),
        }
    }
}

/// Rust's architecture names as Go spells them.
fn go_arch(arch: &str) -> &str {
    match arch {
        "x86_64" => "amd64",
        "x86" => "386",
        "aarch64" => "arm64",
        "powerpc64" => "ppc64le",
        "loongarch64" => "loong64",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info() -> BuildInfo {
        BuildInfo {
            version: "v0.1.0".to_owned(),
            commit: "abc1234".to_owned(),
            build_date: "2026-11-29T12:00:00Z".to_owned(),
            platform: "linux/amd64".to_owned(),
        }
    }

    #[test]
    fn text_is_one_line() {
        assert_eq!(
            info().render(VersionFormat::Text),
            "certgate v0.1.0 (commit abc1234, built 2026-11-29T12:00:00Z)\n"
        );
    }

    #[test]
    fn json_and_yaml_have_kubectls_shape() {
        let json: Value = serde_json::from_str(&info().render(VersionFormat::Json)).unwrap();
        assert_eq!(json["clientVersion"]["gitVersion"], "v0.1.0");
        assert_eq!(json["clientVersion"]["gitCommit"], "abc1234");
        assert_eq!(json["clientVersion"]["buildDate"], "2026-11-29T12:00:00Z");
        assert_eq!(json["clientVersion"]["platform"], "linux/amd64");
        let yaml = info().render(VersionFormat::Yaml);
        assert!(yaml.starts_with("clientVersion:\n"), "{yaml}");
        assert!(yaml.contains("  gitCommit: abc1234\n"), "{yaml}");
        assert_eq!(certgate_goyaml::from_yaml(&yaml).unwrap(), json);
    }

    #[test]
    fn the_binary_knows_its_build() {
        let current = BuildInfo::current();
        assert_eq!(current.version, format!("v{}", env!("CARGO_PKG_VERSION")));
        assert!(!current.commit.is_empty() && !current.build_date.is_empty());
        assert!(
            current.build_date == "unknown"
                || (current.build_date.len() == 20 && current.build_date.ends_with('Z')),
            "{}",
            current.build_date
        );
    }

    #[test]
    fn architectures_are_spelled_as_go_does() {
        assert_eq!(go_arch("x86_64"), "amd64");
        assert_eq!(go_arch("aarch64"), "arm64");
        assert_eq!(go_arch("s390x"), "s390x");
    }
}
