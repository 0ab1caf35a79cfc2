//! What every certgate `/metrics` carries besides the server's own registry: the
//! `process_*` families ([`crate::process`]) and `certgate_build_info`, appended in one place
//! ([`complete`]) so the webhook, the controller, `certgate edge serve` and `certgate dev`
//! expose them alike.

use std::fmt::Write as _;
use std::sync::{Arc, OnceLock};

use crate::health::MetricsText;
use crate::process::ProcessStats;

/// The OpenMetrics end marker prometheus-client writes last.
const EOF: &str = "# EOF\n";

/// What `certgate_build_info` says about the binary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildInfo {
    /// `v` and the release, as `certgate version` prints it: `v0.1.0`.
    pub version: String,
    /// The short commit hash, or `unknown`.
    pub commit: String,
    /// RFC 3339 in UTC, or `unknown`.
    pub build_date: String,
}

impl BuildInfo {
    /// This library's release, commit and date unknown: what a process says before the
    /// binary declares itself with [`set_build_info`].
    fn fallback() -> BuildInfo {
        BuildInfo {
            version: format!("v{}", env!("CARGO_PKG_VERSION")),
            commit: "unknown".to_owned(),
            build_date: "unknown".to_owned(),
        }
    }
}

static BUILD_INFO: OnceLock<BuildInfo> = OnceLock::new();

/// Declares the binary's build once per process, before serving; later calls change
/// nothing and return `false`.
pub fn set_build_info(info: BuildInfo) -> bool {
    BUILD_INFO.set(info).is_ok()
}

/// The build `certgate_build_info` reports: the declared one, else this library's release
/// with commit and date `unknown`.
pub fn build_info() -> BuildInfo {
    BUILD_INFO.get().cloned().unwrap_or_else(BuildInfo::fallback)
}

/// `certgate_build_info{version,commit,build_date} 1`, as an OpenMetrics gauge family.
pub fn encode_build_info(info: &BuildInfo, out: &mut String) {
    // Writing to a String cannot fail.
    let _ = write!(
        out,
        "# HELP certgate_build_info Always 1; the labels say which build of certgate runs.\n\
         # TYPE certgate_build_info gauge\n\
         certgate_build_info{{version=\"{}\",commit=\"{}\",build_date=\"{}\"}} 1\n",
        escape(&info.version),
        escape(&info.commit),
        escape(&info.build_date)
    );
}

/// A label value escaped as the exposition formats require.
fn escape(value: &str) -> String {
    let mut escaped = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => escaped.push_str("\\\\"),
            '"' => escaped.push_str("\\\""),
            '\n' => escaped.push_str("\\n"),
            c => escaped.push(c),
        }
    }
    escaped
}

/// The families of `server` without the end marker.
fn body(server: &str) -> &str {
    server.strip_suffix(EOF).unwrap_or(server)
}

/// The server's exposition `server` completed with the `process_*` families of `process`
/// and `certgate_build_info`, then the end marker.
pub fn complete_with(server: &str, process: &ProcessStats, info: &BuildInfo) -> String {
    let mut text = String::with_capacity(server.len() + 1024);
    text.push_str(body(server));
    process.encode(&mut text);
    encode_build_info(info, &mut text);
    text.push_str(EOF);
    text
}

/// [`complete_with`] this process's resource use now and its declared build.
pub fn complete(server: &str) -> String {
    complete_with(server, &ProcessStats::current(), &build_info())
}

/// Several registries served on one `/metrics` (`certgate dev`: the webhook's and the
/// controllers'), in order. Their metric names must not overlap.
pub struct Combined(pub Vec<Arc<dyn MetricsText>>);

impl MetricsText for Combined {
    fn encode(&self) -> Result<String, std::fmt::Error> {
        let mut text = String::new();
        for part in &self.0 {
            text.push_str(body(&part.encode()?));
        }
        text.push_str(EOF);
        Ok(text)
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
        }
    }

    #[test]
    fn the_servers_families_come_first_and_the_end_marker_last() {
        let process = ProcessStats { open_fds: Some(7), ..ProcessStats::default() };
        let text = complete_with("# TYPE x counter\nx_total 1\n# EOF\n", &process, &info());
        assert_eq!(
            text,
            "# TYPE x counter\nx_total 1\n\
             # HELP process_open_fds File descriptors the process has open.\n\
             # TYPE process_open_fds gauge\nprocess_open_fds 7\n\
             # HELP certgate_build_info Always 1; the labels say which build of certgate runs.\n\
             # TYPE certgate_build_info gauge\n\
             certgate_build_info{version=\"v0.1.0\",commit=\"abc1234\",build_date=\"2026-11-29T12:00:00Z\"} 1\n\
             # EOF\n"
        );
        assert_eq!(text.matches("# EOF").count(), 1);
    }

    #[test]
    fn label_values_are_escaped() {
        let mut text = String::new();
        let odd = BuildInfo { commit: "a\"b\\c\nd".to_owned(), ..info() };
        encode_build_info(&odd, &mut text);
        assert!(text.contains("commit=\"a\\\"b\\\\c\\nd\""), "{text}");
    }

    #[test]
    fn build_info_is_declared_once() {
        // The only test in this binary that sets it.
        assert!(set_build_info(info()));
        assert!(!set_build_info(BuildInfo { version: "v9".to_owned(), ..info() }));
        assert_eq!(build_info(), info());
        assert!(complete("").contains("certgate_build_info{version=\"v0.1.0\",commit=\"abc1234\""));
    }

    #[test]
    fn combined_registries_share_one_end_marker() {
        struct Text(&'static str);
        impl MetricsText for Text {
            fn encode(&self) -> Result<String, std::fmt::Error> {
                Ok(self.0.to_owned())
            }
        }
        let combined =
            Combined(vec![Arc::new(Text("a_total 1\n# EOF\n")), Arc::new(Text("b 2\n# EOF\n"))]);
        assert_eq!(combined.encode().unwrap(), "a_total 1\nb 2\n# EOF\n");
    }
}
