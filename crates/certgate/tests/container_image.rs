//! The container image (issue #23): what can be checked without a container engine, since
//! none runs on the machines this is developed on and no base image can be pulled
//! (docs/install.md#container-image says what is and is not tested).
//!
//! - The `Containerfile`'s structure: multi-stage, every base image pinned by tag, a non-root
//!   numeric `USER`, the OCI labels filled from build arguments, an exec-form `ENTRYPOINT` on
//!   the binary the build stage produces with `cargo build --locked --release`, no `ADD` of
//!   URLs, and a `certgate version` check whose expected text is what the real binary prints.
//! - The build context's ignore files (`.containerignore` for podman and buildah,
//!   `.dockerignore` for docker) are the same and keep what the build needs.
//! - `tools/image/build`: with no engine on `PATH` it fails and names what is missing; with an
//!   engine whose `info` fails it says so; with a stand-in engine it passes the Containerfile,
//!   the tag and the label arguments read from the source, and prints the image reference.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn read(path: &str) -> String {
    std::fs::read_to_string(repo().join(path))
        .unwrap_or_else(|err| panic!("cannot read {path} at the repository root: {err}"))
}

/// The crate's version as the image labels and `certgate version` spell it: `v0.1.0`.
fn version() -> String {
    format!("v{}", env!("CARGO_PKG_VERSION"))
}

/// One instruction of a Containerfile: keyword (upper case) and its arguments, with line
/// continuations joined and comments dropped.
#[derive(Debug, Clone)]
struct Instruction {
    line: usize,
    keyword: String,
    args: String,
}

/// A build stage: its `FROM` image, its name, and its instructions after `FROM`.
#[derive(Debug)]
struct Stage {
    image: String,
    name: Option<String>,
    instructions: Vec<Instruction>,
}

impl Stage {
    fn all(&self, keyword: &str) -> Vec<&Instruction> {
        self.instructions.iter().filter(|i| i.keyword == keyword).collect()
    }

    /// `ARG NAME=default` declarations of this stage.
    fn arg_defaults(&self) -> BTreeMap<String, Option<String>> {
        self.all("ARG")
            .iter()
            .map(|i| match i.args.split_once('=') {
                Some((name, default)) => (name.trim().to_owned(), Some(default.trim().to_owned())),
                None => (i.args.trim().to_owned(), None),
            })
            .collect()
    }
}

fn instructions(text: &str) -> Vec<Instruction> {
    let mut out = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for (index, raw) in text.lines().enumerate() {
        let trimmed = raw.trim();
        if trimmed.starts_with('#') || (trimmed.is_empty() && pending.is_none()) {
            continue;
        }
        let (start, mut joined) = pending.take().unwrap_or((index + 1, String::new()));
        let (body, continued) = match trimmed.strip_suffix('\\') {
            Some(body) => (body, true),
            None => (trimmed, false),
        };
        joined.push_str(body);
        joined.push(' ');
        if continued {
            pending = Some((start, joined));
            continue;
        }
        let joined = joined.trim().to_owned();
        let (keyword, args) = joined.split_once(char::is_whitespace).unwrap_or((&joined, ""));
        out.push(Instruction {
            line: start,
            keyword: keyword.to_ascii_uppercase(),
            args: args.trim().to_owned(),
        });
    }
    assert!(pending.is_none(), "Containerfile ends inside a line continuation");
    out
}

fn stages(text: &str) -> Vec<Stage> {
    let mut stages: Vec<Stage> = Vec::new();
    for instruction in instructions(text) {
        if instruction.keyword == "FROM" {
            let words: Vec<&str> = instruction.args.split_whitespace().collect();
            let words: Vec<&str> = words.into_iter().filter(|w| !w.starts_with("--")).collect();
            let name = match words.as_slice() {
                [_] => None,
                [_, as_, name] if as_.eq_ignore_ascii_case("as") => Some((*name).to_owned()),
                _ => panic!(
                    "line {}: FROM {} is not `FROM image [AS name]`",
                    instruction.line, instruction.args
                ),
            };
            stages.push(Stage { image: words[0].to_owned(), name, instructions: Vec::new() });
        } else {
            let stage = stages.last_mut().unwrap_or_else(|| {
                panic!("line {}: {} before the first FROM", instruction.line, instruction.keyword)
            });
            stage.instructions.push(instruction);
        }
    }
    stages
}

fn containerfile() -> Vec<Stage> {
    stages(&read("Containerfile"))
}

#[test]
fn containerfile_is_multi_stage_with_pinned_bases() {
    let stages = containerfile();
    assert!(stages.len() >= 2, "the Containerfile must build in one stage and ship another");
    let names: Vec<&str> = stages.iter().filter_map(|s| s.name.as_deref()).collect();
    for (index, stage) in stages.iter().enumerate() {
        // A stage may start from an earlier stage; any other base is pulled and must be pinned.
        if names[..].contains(&stage.image.as_str()) {
            let earlier: Vec<&str> =
                stages[..index].iter().filter_map(|s| s.name.as_deref()).collect();
            assert!(
                earlier.contains(&stage.image.as_str()),
                "FROM {} names a later stage",
                stage.image
            );
            continue;
        }
        assert!(
            !stage.image.contains('$'),
            "FROM {}: base images are written out, so the lint and the reader see what is pulled",
            stage.image
        );
        let last = stage.image.rsplit('/').next().unwrap();
        let pinned_by_digest = stage.image.contains("@sha256:");
        let tag = last.split_once(':').map(|(_, tag)| tag);
        assert!(
            pinned_by_digest || matches!(tag, Some(tag) if !tag.is_empty() && tag != "latest"),
            "FROM {}: pin the base image by a tag (not latest) or a digest",
            stage.image
        );
        assert!(
            stage.image.split('/').next().unwrap().contains('.'),
            "FROM {}: name the registry (docker.io/library/..., gcr.io/...), so podman and docker pull the same image",
            stage.image
        );
    }
    // Only the last stage ships; COPY --from names earlier stages.
    for (index, stage) in stages.iter().enumerate() {
        for copy in stage.all("COPY") {
            if let Some(from) = copy.args.split_whitespace().find_map(|w| w.strip_prefix("--from="))
            {
                let earlier: Vec<&str> =
                    stages[..index].iter().filter_map(|s| s.name.as_deref()).collect();
                assert!(
                    earlier.contains(&from),
                    "line {}: COPY --from={from} is no earlier stage",
                    copy.line
                );
            }
        }
    }
}

#[test]
fn containerfile_builds_a_locked_release_and_checks_its_version() {
    let stages = containerfile();
    let build = stages
        .iter()
        .find(|s| s.all("RUN").iter().any(|r| r.args.contains("cargo build")))
        .expect("no stage runs `cargo build`");
    let run = build.all("RUN").into_iter().find(|r| r.args.contains("cargo build")).unwrap();
    for flag in ["--locked", "--release", "--bin certgate"] {
        assert!(
            run.args.contains(flag),
            "line {}: cargo build without {flag}: {}",
            run.line,
            run.args
        );
    }
    assert!(
        run.args.contains("certgate version"),
        "line {}: the build does not run `certgate version`",
        run.line
    );

    // The check expects `certgate ${VERSION} ...`; VERSION defaults to the crate's version in
    // every stage that declares it, and the real binary prints exactly that prefix.
    assert!(
        run.args.contains("\"certgate ${VERSION} \"*"),
        "line {}: the version check no longer matches `certgate version`'s text: {}",
        run.line,
        run.args
    );
    for stage in &stages {
        if let Some(default) = stage.arg_defaults().get("VERSION") {
            assert_eq!(default.as_deref(), Some(version().as_str()), "ARG VERSION's default");
        }
    }
    let output = Command::new(env!("CARGO_BIN_EXE_certgate")).arg("version").output().unwrap();
    assert!(output.status.success(), "certgate version failed: {output:?}");
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.starts_with(&format!("certgate {} ", version())),
        "`certgate version` prints {text:?}, which the Containerfile's check would refuse"
    );

    // The binary is run in a stage on the runtime base (no shell, no libc): proof that it is
    // static. That stage is what the final stage copies from, so it is always built.
    let last = stages.last().unwrap();
    let verify = stages
        .iter()
        .find(|s| s.image == last.image && s.name.is_some())
        .expect("no stage runs the binary on the runtime base");
    let runs = verify.all("RUN");
    assert!(
        runs.iter().any(|r| r.args.starts_with('[') && r.args.contains("version")),
        "stage {:?} must RUN [\"/certgate\", \"version\"] in exec form (the base has no shell)",
        verify.name
    );
    let copied_from: Vec<&str> = last
        .all("COPY")
        .iter()
        .filter_map(|c| c.args.split_whitespace().find_map(|w| w.strip_prefix("--from=")))
        .collect();
    assert_eq!(
        copied_from,
        [verify.name.as_deref().unwrap()],
        "the final stage copies the verified binary"
    );
}

#[test]
fn runtime_stage_is_non_root_labelled_and_runs_the_binary() {
    let stages = containerfile();
    let last = stages.last().unwrap();
    assert!(last.all("RUN").is_empty(), "the runtime stage runs nothing (its base has no shell)");

    let users = last.all("USER");
    assert_eq!(users.len(), 1, "the runtime stage sets USER once");
    let user = &users[0].args;
    let ids: Vec<&str> = user.split(':').collect();
    assert!(
        ids.len() == 2 && ids.iter().all(|id| id.parse::<u32>().is_ok_and(|id| id != 0)),
        "USER {user}: use a numeric non-root UID:GID, so Kubernetes' runAsNonRoot can verify it"
    );
    assert_eq!(user, "65532:65532", "USER: the deploy manifests run as 65532:65532");

    let entrypoints = last.all("ENTRYPOINT");
    assert_eq!(entrypoints.len(), 1, "one ENTRYPOINT");
    let entrypoint: Vec<String> =
        serde_json::from_str(&entrypoints[0].args).unwrap_or_else(|err| {
            panic!("ENTRYPOINT {} is not the exec (JSON array) form: {err}", entrypoints[0].args)
        });
    assert_eq!(entrypoint, ["/certgate"], "the deploy manifests pass only args to /certgate");
    assert!(last.all("CMD").is_empty(), "no CMD: the Deployments pass the subcommand");
    let copies = last.all("COPY");
    assert!(
        copies.iter().any(|c| c.args.split_whitespace().last() == Some(entrypoint[0].as_str())),
        "no COPY puts the binary at {}",
        entrypoint[0]
    );

    // The OCI labels, each filled from a build argument declared in the stage.
    let args = last.arg_defaults();
    let labels: String = last.all("LABEL").iter().map(|l| l.args.clone() + " ").collect();
    for (label, value) in [
        ("source", Some("SOURCE")),
        ("version", Some("VERSION")),
        ("revision", Some("REVISION")),
        ("created", Some("CREATED")),
        ("title", None),
        ("description", None),
        ("licenses", None),
    ] {
        let key = format!("org.opencontainers.image.{label}=");
        let at = labels.find(&key).unwrap_or_else(|| panic!("LABEL {key}... missing"));
        let rest = &labels[at + key.len()..];
        let value_text = rest
            .strip_prefix('"')
            .and_then(|r| r.split_once('"'))
            .map(|(v, _)| v)
            .unwrap_or_else(|| panic!("LABEL {key}: quote the value"));
        assert!(!value_text.is_empty(), "LABEL {key} is empty");
        if let Some(arg) = value {
            assert_eq!(value_text, format!("${{{arg}}}"), "LABEL {key} comes from ARG {arg}");
            assert!(args.contains_key(arg), "ARG {arg} is not declared in the runtime stage");
        }
    }
    let licenses = labels.split("org.opencontainers.image.licenses=\"").nth(1).unwrap();
    let workspace = read("Cargo.toml");
    let license = workspace
        .lines()
        .find_map(|l| l.strip_prefix("license = \""))
        .and_then(|l| l.strip_suffix('"'))
        .expect("no license in Cargo.toml");
    assert!(
        licenses.starts_with(&format!("{license}\"")),
        "the licenses label is Cargo.toml's {license}"
    );
}

#[test]
fn containerfile_fetches_nothing_by_url() {
    for stage in containerfile() {
        for instruction in &stage.instructions {
            if instruction.keyword == "ADD" {
                assert!(
                    !instruction.args.contains("://") && !instruction.args.contains("git@"),
                    "line {}: ADD of a URL fetches unpinned content; download in a RUN with a checksum, or COPY",
                    instruction.line
                );
            }
        }
    }
}

#[test]
fn ignore_files_agree_and_keep_the_sources() {
    let container = read(".containerignore");
    let docker = read(".dockerignore");
    assert_eq!(
        container, docker,
        ".containerignore (podman, buildah) and .dockerignore (docker) differ"
    );
    let patterns: BTreeSet<&str> =
        container.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect();
    for needed in [".git", "target"] {
        assert!(patterns.contains(needed), "the build context must leave out {needed}");
    }
    // What the build reads: the workspace, the lock file, the crates and what they include.
    for kept in ["Cargo.toml", "Cargo.lock", "crates", "examples", "rustfmt.toml"] {
        assert!(
            !patterns.iter().any(|p| p.trim_start_matches('/') == kept || *p == "*" || *p == "**"),
            "the ignore files leave out {kept}, which the build needs"
        );
    }
}

/// A folder for PATH holding only links to the named programs (found on the current PATH),
/// plus the files of `extra` (name, script).
fn path_with(programs: &[&str], extra: &[(&str, &str)]) -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().unwrap();
    let path = std::env::var_os("PATH").unwrap_or_default();
    for program in programs {
        let found = std::env::split_paths(&path)
            .map(|d| d.join(program))
            .find(|p| p.is_file())
            .unwrap_or_else(|| {
                panic!("{program} is needed by tools/image/build and is not on PATH")
            });
        std::os::unix::fs::symlink(found, dir.path().join(program)).unwrap();
    }
    for (name, script) in extra {
        let file = dir.path().join(name);
        std::fs::write(&file, script).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    dir
}

/// Runs tools/image/build with PATH set to `path` alone (bash itself by absolute path).
fn image_build(path: &Path, env: &[(&str, &str)]) -> Output {
    let bash =
        ["/bin/bash", "/usr/bin/bash"].into_iter().find(|b| Path::new(b).is_file()).expect("bash");
    let mut command = Command::new(bash);
    command
        .arg(repo().join("tools/image/build"))
        .env_clear()
        .env("PATH", path)
        .env("HOME", "/nonexistent");
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().unwrap()
}

/// What the script runs before it looks for an engine.
const BASE_TOOLS: [&str; 3] = ["dirname", "grep", "tail"];

#[test]
fn image_build_without_an_engine_fails_naming_what_is_missing() {
    let path = path_with(&BASE_TOOLS, &[]);
    let output = image_build(path.path(), &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "tools/image/build succeeded without any engine:\n{stderr}");
    assert!(
        output.stdout.is_empty(),
        "it printed an image reference without building: {:?}",
        output.stdout
    );
    for engine in ["podman", "buildah", "docker"] {
        assert!(
            stderr.contains(&format!("{engine}: not installed")),
            "the message does not say that {engine} is missing:\n{stderr}"
        );
    }
    assert!(stderr.contains("no working container engine"), "{stderr}");
    assert!(stderr.contains("Install podman or buildah"), "the message says what to do:\n{stderr}");
}

#[test]
fn image_build_names_an_engine_that_is_installed_but_not_running() {
    let docker = "#!/bin/sh\necho 'Client: Docker Engine'\necho 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?' >&2\nexit 1\n";
    let path = path_with(&BASE_TOOLS, &[("docker", docker)]);
    let output = image_build(path.path(), &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(
        stderr.contains("docker: ")
            && stderr.contains(
                "is installed but 'docker info' fails: Cannot connect to the Docker daemon"
            ),
        "the message does not say why docker cannot build:\n{stderr}"
    );
    // Asking for one engine looks at that one only.
    let output = image_build(path.path(), &[("CERTGATE_IMAGE_ENGINE", "podman")]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("podman: not installed") && !stderr.contains("docker:"), "{stderr}");
    let output = image_build(path.path(), &[("CERTGATE_IMAGE_ENGINE", "kaniko")]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("not one of podman, buildah, docker"));
}

#[test]
fn image_build_passes_the_labels_read_from_the_source() {
    // A stand-in podman: `info` works, `build` records its arguments. It checks the script's
    // side, not an image.
    let log = tempfile::NamedTempFile::new().unwrap();
    let podman = format!(
        "#!/bin/sh\ncase \"$1\" in info) exit 0 ;; build) shift; printf '%s\\n' \"$@\" > '{}'; exit 0 ;; esac\nexit 2\n",
        log.path().display()
    );
    let path = path_with(
        &[&BASE_TOOLS[..], &["awk", "git", "date", "head"]].concat(),
        &[("podman", &podman)],
    );
    let output = image_build(path.path(), &[("SOURCE_DATE_EPOCH", "1700000000")]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "tools/image/build with a working (stand-in) podman failed:\n{stderr}"
    );
    let image = format!("ghcr.io/certgate/certgate:{}", version());
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).lines().last(),
        Some(image.as_str()),
        "{stderr}"
    );

    let args: Vec<String> =
        std::fs::read_to_string(log.path()).unwrap().lines().map(str::to_owned).collect();
    let after = |flag: &str| -> Vec<&str> {
        args.windows(2).filter(|w| w[0] == flag).map(|w| w[1].as_str()).collect()
    };
    assert_eq!(after("-f"), [repo().join("Containerfile").to_str().unwrap()]);
    assert_eq!(after("-t"), [image.as_str()]);
    let head =
        Command::new("git").arg("-C").arg(repo()).args(["rev-parse", "HEAD"]).output().unwrap();
    let head = String::from_utf8(head.stdout).unwrap().trim().to_owned();
    let build_args: BTreeMap<&str, &str> =
        after("--build-arg").into_iter().filter_map(|a| a.split_once('=')).collect();
    assert_eq!(build_args["VERSION"], version());
    assert_eq!(build_args["REVISION"], head);
    assert_eq!(build_args["SOURCE_DATE_EPOCH"], "1700000000");
    assert_eq!(
        build_args["CREATED"], "2023-11-14T22:13:20Z",
        "CREATED is SOURCE_DATE_EPOCH in RFC 3339"
    );
    assert!(build_args["SOURCE"].starts_with("https://"), "{build_args:?}");
    assert_eq!(
        args.last().map(String::as_str),
        Some(repo().to_str().unwrap()),
        "the context is the repository"
    );

    // A VERSION that is not the source's would label the image wrongly: refused.
    let output = image_build(path.path(), &[("VERSION", "v9.9.9")]);
    assert!(!output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("VERSION=v9.9.9, but the source is version")
    );
}
