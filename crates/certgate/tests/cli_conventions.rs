//! The command-line conventions every command shares (issue #23, docs/cli.md): `version`,
//! `completion`, Go's duration syntax on every `DURATION` flag, pflag's boolean forms on every
//! boolean flag, a quiet exit when the output's reader goes away, and no Rust `Debug` text in
//! messages. The flag checks walk clap's whole command tree, so a new flag is covered the day
//! it is added.

use std::io::Read;
use std::process::{Command as Process, Stdio};
use std::time::Duration;

use certgate::cli::{Cli, Command};
use certgate::commands::webhook;
use certgate::shared::duration::SYNTAX;
use certgate_issuance::GoDuration;
use clap::{ArgAction, CommandFactory, Parser};

fn certgate() -> Process {
    Process::new(env!("CARGO_BIN_EXE_certgate"))
}

/// Runs certgate to completion: (status, stdout, stderr).
fn run(args: &[&str]) -> (i32, String, String) {
    let output = certgate().args(args).output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

/// Every command of the tree with its path from the top (`["certgate", "status",
/// "certificate"]`), the top included.
fn commands() -> Vec<(Vec<String>, clap::Command)> {
    fn walk(
        path: Vec<String>,
        command: &clap::Command,
        out: &mut Vec<(Vec<String>, clap::Command)>,
    ) {
        for sub in command.get_subcommands() {
            let mut sub_path = path.clone();
            sub_path.push(sub.get_name().to_owned());
            walk(sub_path, sub, out);
        }
        out.push((path, command.clone()));
    }
    let mut cli = Cli::command();
    cli.build();
    let mut out = Vec::new();
    walk(vec!["certgate".to_owned()], &cli, &mut out);
    out
}

/// `command` alone with nothing required, so one flag can be parsed by itself.
fn relaxed(command: &clap::Command) -> clap::Command {
    command
        .clone()
        .subcommand_required(false)
        .arg_required_else_help(false)
        .mut_args(|arg| arg.required(false))
}

/// Parses `args` with `command`; a flag that is required only with others
/// (`required_unless_present`) does not fail the parse: values are validated before the
/// required ones are looked for, and then parsed again without that check.
fn parse_alone(command: &clap::Command, args: &[&str]) -> Result<clap::ArgMatches, clap::Error> {
    match command.clone().try_get_matches_from(args) {
        Err(err) if err.kind() == clap::error::ErrorKind::MissingRequiredArgument => {
            Ok(command.clone().ignore_errors(true).try_get_matches_from(args).unwrap())
        }
        other => other,
    }
}

/// Each flag with the given value name: (command path, command, flag id, long name).
fn flags_named(value_name: &str) -> Vec<(String, clap::Command, String, String)> {
    let mut found = Vec::new();
    for (path, command) in commands() {
        for arg in command.get_arguments() {
            let named = arg.get_value_names().is_some_and(|names| names == [value_name]);
            if let (true, Some(long)) = (named, arg.get_long()) {
                found.push((
                    path.join(" "),
                    relaxed(&command),
                    arg.get_id().to_string(),
                    long.to_owned(),
                ));
            }
        }
    }
    found
}

#[test]
fn version_prints_version_commit_and_date() {
    let (status, text, stderr) = run(&["version"]);
    assert_eq!((status, stderr.as_str()), (0, ""));
    let version = env!("CARGO_PKG_VERSION");
    let rest = text
        .strip_prefix(&format!("certgate v{version} (commit "))
        .and_then(|rest| rest.strip_suffix(")\n"))
        .unwrap_or_else(|| panic!("{text:?}"));
    let (commit, date) = rest.split_once(", built ").unwrap_or_else(|| panic!("{text:?}"));
    assert!(commit == "unknown" || commit.chars().all(|c| c.is_ascii_hexdigit()), "{commit}");
    assert!(date == "unknown" || chrono::DateTime::parse_from_rfc3339(date).is_ok(), "{date}");

    let (status, json, _) = run(&["version", "-o", "json"]);
    assert_eq!(status, 0);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["clientVersion"]["gitVersion"], format!("v{version}"));
    assert_eq!(json["clientVersion"]["gitCommit"], commit);
    assert_eq!(json["clientVersion"]["buildDate"], date);
    let (status, yaml, _) = run(&["version", "-o", "yaml"]);
    assert_eq!(status, 0);
    // Parsed, not matched as text: a commit of digits only (3728688) is quoted in YAML.
    let parsed = certgate_goyaml::from_yaml(&yaml).unwrap_or_else(|e| panic!("{e}: {yaml}"));
    assert_eq!(parsed["clientVersion"]["gitCommit"], commit, "{yaml}");

    let (status, flag, _) = run(&["--version"]);
    assert_eq!((status, flag), (0, format!("certgate {version}\n")));
}

#[test]
fn completion_scripts_cover_the_commands() {
    for shell in ["bash", "zsh", "fish"] {
        let (status, script, stderr) = run(&["completion", shell]);
        assert_eq!((status, stderr.as_str()), (0, ""), "{shell}");
        for word in ["certgate", "check", "controller", "crds", "completion", "version"] {
            assert!(script.contains(word), "{shell} completion lacks {word}");
        }
        // A flag of a nested command is completed as well.
        assert!(script.contains("leader-elect"), "{shell} completion lacks --leader-elect");
    }
    let (status, _, stderr) = run(&["completion", "tcsh"]);
    assert_eq!(status, 2);
    assert!(stderr.contains("invalid value 'tcsh'"), "{stderr}");
}

#[test]
fn every_duration_flag_takes_gos_syntax() {
    let flags = flags_named("DURATION");
    assert!(flags.len() >= 15, "the walk found only {} DURATION flags", flags.len());
    for (path, command, id, long) in flags {
        for (text, expected) in [("1m30s", 90_000), ("1.5s", 1_500), ("2h45m", 9_900_000)] {
            let parsed = parse_alone(&command, &[path.as_str(), &format!("--{long}={text}")]);
            let matches = match parsed {
                Ok(matches) => matches,
                // Only a floor (a lease is at least 3s) may refuse a well-formed duration.
                Err(err) if text == "1.5s" && err.to_string().contains("too short for a lease") => {
                    continue;
                }
                Err(err) => panic!("{path} --{long}={text}: {err}"),
            };
            let millis = if let Ok(Some(value)) = matches.try_get_one::<Duration>(&id) {
                value.as_millis()
            } else if let Ok(Some(value)) = matches.try_get_one::<GoDuration>(&id) {
                u128::try_from(value.0 / 1_000_000).unwrap()
            } else {
                panic!("{path} --{long}: neither a Duration nor a GoDuration");
            };
            assert_eq!(millis, expected, "{path} --{long}={text}");
        }
        // One parser for all: the same error, naming the flag and the syntax.
        let err = parse_alone(&command, &[path.as_str(), &format!("--{long}=1d")])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(&format!("--{long} <DURATION>"))
                && err.contains("time: unknown unit \"d\" in duration \"1d\"")
                && err.contains(SYNTAX),
            "{path} --{long}: {err}"
        );
    }
}

#[test]
fn every_boolean_flag_takes_the_bare_form_and_a_value() {
    let flags = flags_named("BOOL");
    let mut count = 0;
    for (path, command) in commands() {
        for arg in command.get_arguments() {
            let action = arg.get_action();
            assert!(
                !matches!(action, ArgAction::SetTrue | ArgAction::SetFalse),
                "{} --{}: a boolean flag must also take =true|=false (see docs/cli.md)",
                path.join(" "),
                arg.get_id()
            );
        }
        let path = path.join(" ");
        for (_, relaxed, id, long) in flags.iter().filter(|f| f.0 == path) {
            count += 1;
            for (given, expected) in [
                (format!("--{long}"), true),
                (format!("--{long}=true"), true),
                (format!("--{long}=false"), false),
            ] {
                let matches = parse_alone(relaxed, &[path.as_str(), &given])
                    .unwrap_or_else(|err| panic!("{path} {given}: {err}"));
                assert_eq!(matches.get_one::<bool>(id), Some(&expected), "{path} {given}");
            }
        }
    }
    assert!(count >= 13, "the walk found only {count} boolean flags");
    // The value is attached with `=`, as pflag reads it: a separate word is not the flag's.
    let cli =
        Cli::try_parse_from(["certgate", "check", "-f", "x.yaml", "--explain=false"]).unwrap();
    let Command::Check(args) = cli.command else { panic!("expected check") };
    assert!(!args.explain);
    let cli = Cli::try_parse_from(["certgate", "check", "--explain", "-f", "x.yaml"]).unwrap();
    let Command::Check(args) = cli.command else { panic!("expected check") };
    assert!(args.explain);
}

#[test]
fn leader_election_is_on_by_default_and_off_with_false() {
    let flags = flags_named("BOOL");
    for path in ["certgate controller", "certgate edge serve"] {
        let (_, relaxed, id, _) = flags
            .iter()
            .find(|f| f.0 == path && f.3 == "leader-elect")
            .unwrap_or_else(|| panic!("{path} has no --leader-elect"));
        let defaults = parse_alone(relaxed, &[path]).unwrap();
        assert_eq!(defaults.get_one::<bool>(id), Some(&true), "{path}");
        let off = parse_alone(relaxed, &[path, "--leader-elect=false"]);
        assert_eq!(off.unwrap().get_one::<bool>(id), Some(&false), "{path}");
    }
}

/// Starts certgate with its output on a pipe, reads one byte and closes the pipe: certgate
/// must end quietly, as Go's tools do under `| head`.
fn closes_early(args: &[&str]) {
    // The whole output is longer than a pipe holds (64 KiB on Linux), so certgate is still
    // writing when the reader goes away and meets the broken pipe.
    let (status, full, _) = run(args);
    assert_eq!(status, 0, "{args:?}");
    assert!(full.len() > 65_536 + 1, "{args:?} prints only {} bytes", full.len());

    let mut child =
        certgate().args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 1];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(stderr, "", "{args:?}");
    assert!(matches!(status.code(), Some(0 | 141)), "{args:?}: {status}");
}

#[test]
fn a_closed_pipe_ends_certgate_quietly() {
    closes_early(&["completion", "bash"]);
    closes_early(&["crds", "--include=cert-manager,ocm", "-o", "json"]);
}

#[test]
fn serving_durations_are_repeated_as_go_prints_them() {
    let cli = Cli::try_parse_from([
        "certgate",
        "webhook",
        "--dynamic-serving-ca-secret-name=ca",
        "--dynamic-serving-ca-secret-namespace=ns",
        "--dynamic-serving-dns-names=a",
        "--dynamic-serving-ca-duration=1000000h",
    ])
    .unwrap();
    let Command::Webhook(args) = cli.command else { panic!("expected webhook") };
    let Err(err) = webhook::dynamic_serving(&args) else { panic!("1000000h is out of range") };
    // Not Rust's `3600000000s`.
    assert_eq!(
        err.to_string(),
        "--dynamic-serving-ca-duration 1000000h0m0s is out of range; give a duration from 1m to \
         876000h (100 years)"
    );
}

/// No message certgate writes is a Rust `Debug` rendering (`{:?}`): names are quoted as Go's
/// `%q` quotes them (`certgate_gofmt::quote`), durations printed as Go prints them. Checked
/// over the sources, outside tests, so a new `{x:?}` in a message fails here.
#[test]
fn no_debug_formatting_in_messages() {
    fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 50, "{} files under {}", files.len(), src.display());
    let mut found = Vec::new();
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy();
        if name == "tests.rs"
            || name == "testing.rs"
            || file.components().any(|c| c.as_os_str() == "tests")
        {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        // Test modules come last in a file.
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        for (index, line) in code.lines().enumerate() {
            if line.contains(":?}") || line.contains(":#?}") {
                let at = file.strip_prefix(&src).unwrap().display().to_string();
                found.push(format!("src/{at}:{}: {}", index + 1, line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "Debug formatting in messages:\n{}", found.join("\n"));
}

/// A name with a control character is quoted as Go quotes it (`"\x7f"`), not as Rust's
/// `Debug` does (`"\u{7f}"`).
#[test]
fn names_are_quoted_as_go_quotes_them() {
    let err = Cli::try_parse_from([
        "certgate",
        "template",
        "resolve",
        "-f",
        "policy.yaml",
        "--cluster",
        "c",
        "--cluster-label",
        "\u{7f}",
    ])
    .unwrap_err()
    .to_string();
    assert!(err.contains(r#"expected KEY=VALUE, found "\x7f""#), "{err}");
    assert!(!err.contains("\\u{"), "{err}");
}

/// Runs certgate with `input` on standard input: (status, stdout, stderr).
fn run_with_stdin(args: &[&str], input: &[u8]) -> (i32, String, String) {
    use std::io::Write as _;
    let mut child = certgate()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let output = child.wait_with_output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

/// `-` is standard input wherever a command reads files: the PEM inputs of `crl inspect` and
/// `crl verify` as the manifests of `check -f -`, `crl check -f -` and `template resolve -f -`
/// (tested with those commands); read once even where verify reads a CRL input twice.
#[test]
fn a_dash_reads_standard_input() {
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/crl");
    let crl = fixtures.join("crl.pem");
    let crl_path = crl.to_str().unwrap();
    let crl_bytes = std::fs::read(&crl).unwrap();
    let at = "--at=2026-06-01T00:00:00Z";

    let (status, from_file, stderr) = run(&["crl", "inspect", crl_path, at]);
    assert_eq!((status, stderr.as_str()), (0, ""));
    let (status, from_stdin, stderr) = run_with_stdin(&["crl", "inspect", "-", at], &crl_bytes);
    assert_eq!((status, stderr.as_str()), (0, ""));
    assert_eq!(from_stdin, from_file.replacen(&format!("{crl_path}:"), "-:", 1));

    let ca = fixtures.join("ca.crt");
    let client = fixtures.join("client-revoked.crt");
    let verify = |crl: &str| {
        ["crl", "verify", "--ca", ca.to_str().unwrap(), "--crl", crl, client.to_str().unwrap(), at]
            .map(str::to_owned)
    };
    let (status, from_file, _) = run(&verify(crl_path).each_ref().map(String::as_str));
    assert_eq!(status, 1);
    assert!(from_file.starts_with("revoked\n"), "{from_file}");
    let (status, from_stdin, stderr) =
        run_with_stdin(&verify("-").each_ref().map(String::as_str), &crl_bytes);
    assert_eq!((status, from_stdin, stderr.as_str()), (1, from_file, ""));
}

/// `crl verify -o json` gives the text's verdict and reason as one document.
#[test]
fn crl_verify_speaks_json() {
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/crl");
    let file = |name: &str| fixtures.join(name).to_str().unwrap().to_owned();
    let (ca, crl, client) = (file("ca.crt"), file("crl.pem"), file("client-revoked.crt"));
    let args = ["crl", "verify", "--ca", &ca, "--crl", &crl, &client, "--at=2026-06-01T00:00:00Z"];
    let (status, text, _) = run(&args);
    assert_eq!(status, 1);
    let (status, json, stderr) = run(&[&args[..], &["-o", "json"]].concat());
    assert_eq!((status, stderr.as_str()), (1, ""));
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let mut lines = text.lines();
    assert_eq!(json["envoy"]["verdict"], lines.next().unwrap());
    assert_eq!(json["envoy"]["reason"], lines.next().unwrap());
    assert_eq!(json["rustls"]["verdict"], "revoked");
    assert_eq!(json["path"][0], "CN=client revoked");
}

/// `certgate man DIR` writes a page for every command of the tree, and says where when it
/// cannot write.
#[test]
fn man_pages_cover_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("man1");
    let (status, stdout, stderr) = run(&["man", out.to_str().unwrap()]);
    assert_eq!((status, stderr.as_str()), (0, ""));
    let mut expected = 0;
    for (path, _) in commands() {
        // `help` and the copies of the tree under it are clap's, not commands.
        if path.iter().any(|name| name == "help") {
            continue;
        }
        expected += 1;
        let page = out.join(format!("{}.1", path.join("-")));
        let text = std::fs::read_to_string(&page)
            .unwrap_or_else(|err| panic!("{}: {err}", page.display()));
        assert!(text.contains(&format!(".TH {} 1", path.join("-"))), "{}", page.display());
    }
    assert!(expected > 20, "{expected}");
    assert_eq!(stdout, format!("wrote {expected} man pages to {}\n", out.display()));

    let file = dir.path().join("not-a-directory");
    std::fs::write(&file, "x").unwrap();
    let (status, _, stderr) = run(&["man", file.to_str().unwrap()]);
    // certgate's status for a command that could not run.
    assert_eq!(status, 2);
    assert!(stderr.starts_with("error: cannot create the directory "), "{stderr}");
}

/// `-o` is the same everywhere: `-o`/`--output`, with values among `text`, `wide`, `json`
/// and `yaml`.
#[test]
fn output_formats_have_the_same_names_everywhere() {
    let mut count = 0;
    for (path, command) in commands() {
        for arg in command.get_arguments() {
            let long = arg.get_long();
            if long != Some("output") && arg.get_short() != Some('o') {
                continue;
            }
            count += 1;
            let path = path.join(" ");
            assert_eq!((arg.get_short(), long), (Some('o'), Some("output")), "{path}");
            for value in arg.get_possible_values() {
                assert!(
                    ["text", "wide", "json", "yaml"].contains(&value.get_name()),
                    "{path} -o {}",
                    value.get_name()
                );
            }
        }
    }
    assert!(count >= 9, "the walk found only {count} -o flags");
}
