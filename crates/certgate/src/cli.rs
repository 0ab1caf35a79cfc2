//! Command-line surface of the `certgate` binary: the top-level parser and the list of
//! subcommands. Each command's arguments and long help live in its own module under
//! [`crate::commands`]; this file only names them (no behaviour).

use std::collections::BTreeSet;
use std::ffi::OsString;

use clap::{CommandFactory, Parser, Subcommand};

use crate::commands::{
    check, completion, controller, crds, crl, decide, dev, edge, explain, man, renew, revoke,
    status, template, version, webhook,
};

/// certgate: trust decisions for Kubernetes, compatible with cert-manager and approver-policy.
#[derive(Debug, Parser)]
#[command(name = "certgate", version, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Decide CertificateRequests against CertificateRequestPolicies offline, from manifest files.
    #[command(long_about = check::CHECK_LONG_ABOUT)]
    Check(check::CheckArgs),
    /// Explain why a CertificateRequest in a cluster is, or would be, Approved, Denied or Unprocessed.
    #[command(long_about = explain::EXPLAIN_LONG_ABOUT)]
    Explain(explain::ExplainArgs),
    /// Print the CustomResourceDefinitions certgate serves.
    #[command(long_about = crds::CRDS_LONG_ABOUT)]
    Crds(crds::CrdsArgs),
    /// Serve the admission webhook for CertificateRequests and CertificateRequestPolicies.
    #[command(long_about = webhook::WEBHOOK_LONG_ABOUT)]
    Webhook(webhook::WebhookArgs),
    /// Run certgate's controllers against a cluster: policy approval, policy readiness.
    #[command(long_about = controller::CONTROLLER_LONG_ABOUT)]
    Controller(controller::ControllerArgs),
    /// Run a local sandbox Kubernetes API server, for development and end-to-end tests only.
    #[command(long_about = dev::DEV_LONG_ABOUT)]
    Dev(dev::DevArgs),
    /// Approve a CertificateRequest by hand (as `cmctl approve`).
    #[command(long_about = decide::APPROVE_LONG_ABOUT)]
    Approve(decide::DecideArgs),
    /// Deny a CertificateRequest by hand (as `cmctl deny`).
    #[command(long_about = decide::DENY_LONG_ABOUT)]
    Deny(decide::DecideArgs),
    /// Mark Certificates for manual renewal (as `cmctl renew`).
    #[command(long_about = renew::RENEW_LONG_ABOUT)]
    Renew(renew::RenewArgs),
    /// Where cert-manager resources stand: `status certificate NAME` (as `cmctl status`, and more).
    #[command(long_about = status::STATUS_LONG_ABOUT)]
    Status(status::StatusArgs),
    /// Revoke a certificate of a CA issuer that publishes a CRL (certgate.io/crl-secret-name).
    #[command(long_about = revoke::REVOKE_LONG_ABOUT)]
    Revoke(revoke::RevokeArgs),
    /// OCM hub templates offline: resolve a Policy's {{hub ... hub}} templates for a cluster.
    Template(template::TemplateArgs),
    /// Client-certificate revocation for Contour HTTPProxies: inspect CRLs, verify a client, check.
    #[command(long_about = crl::CRL_LONG_ABOUT)]
    Crl(crl::CrlArgs),
    /// The Contour edge: HTTPProxy status and xDS for Envoy (serve), Envoy's bootstrap.
    #[command(long_about = edge::EDGE_LONG_ABOUT)]
    Edge(edge::EdgeArgs),
    /// Print certgate's version, commit and build date (`-o json|yaml` as kubectl's).
    #[command(long_about = version::VERSION_LONG_ABOUT)]
    Version(version::VersionArgs),
    /// Print a shell completion script (bash, zsh, fish, ...).
    #[command(long_about = completion::COMPLETION_LONG_ABOUT)]
    Completion(completion::CompletionArgs),
    /// Write man pages for certgate and every command into a directory.
    #[command(long_about = man::MAN_LONG_ABOUT)]
    Man(man::ManArgs),
}

/// The command line as clap should read it. pflag treats `--flag=false` of a boolean flag that
/// is false by default as not given; clap counts any explicit value as present for its
/// conflicts and requirements (`--dev-self-signed=false --tls-cert-file ...` was refused as a
/// conflict). Such words are dropped before parsing: the flag keeps its default, false. Flags
/// that are true by default, or read from an environment variable (where `=false` overrides
/// it), keep the word; nothing after `--` is touched.
pub fn normalise(args: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
    let droppable = false_by_default(&Cli::command());
    let mut after_separator = false;
    args.into_iter()
        .filter(|arg| {
            if after_separator {
                return true;
            }
            if arg == "--" {
                after_separator = true;
                return true;
            }
            let name =
                arg.to_str().and_then(|text| text.strip_prefix("--")?.strip_suffix("=false"));
            !name.is_some_and(|name| droppable.contains(name))
        })
        .collect()
}

/// The long names of boolean flags that are false by default and not read from the
/// environment, in every command, unless the same name is anything else in another command.
fn false_by_default(root: &clap::Command) -> BTreeSet<String> {
    let mut droppable = BTreeSet::new();
    let mut other = BTreeSet::new();
    let mut stack = vec![root];
    while let Some(command) = stack.pop() {
        for arg in command.get_arguments() {
            let Some(long) = arg.get_long() else { continue };
            let boolean = arg.get_value_names().is_some_and(|names| names == ["BOOL"]);
            let defaults: Vec<_> = arg.get_default_values().iter().collect();
            if boolean && defaults == ["false"] && arg.get_env().is_none() {
                droppable.insert(long.to_owned());
            } else {
                other.insert(long.to_owned());
            }
        }
        stack.extend(command.get_subcommands());
    }
    &droppable - &other
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use clap::CommandFactory;

    use super::*;
    use crate::shared::report::ReportFormat;

    fn parse_normalised(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(normalise(args.iter().map(OsString::from)))
    }

    #[test]
    fn an_explicit_false_counts_as_not_given_as_pflag_reads_it() {
        let with_files =
            ["certgate", "webhook", "--tls-cert-file=a.pem", "--tls-private-key-file=a.key"];
        let mut args = with_files.to_vec();
        args.push("--dev-self-signed=false");
        // Without normalising, clap refuses it as a conflict.
        assert_eq!(
            Cli::try_parse_from(&args).unwrap_err().kind(),
            clap::error::ErrorKind::ArgumentConflict
        );
        let Command::Webhook(parsed) = parse_normalised(&args).unwrap().command else {
            panic!("expected webhook")
        };
        assert!(!parsed.dev_self_signed);
        // A true one still conflicts.
        args.pop();
        args.push("--dev-self-signed");
        assert_eq!(
            parse_normalised(&args).unwrap_err().kind(),
            clap::error::ErrorKind::ArgumentConflict
        );
    }

    #[test]
    fn true_by_default_flags_and_words_after_the_separator_are_kept() {
        let kept: Vec<OsString> =
            ["certgate", "controller", "--leader-elect=false", "--", "--demo=false"]
                .iter()
                .map(OsString::from)
                .collect();
        assert_eq!(normalise(kept.clone()), kept);
        let dropped = normalise(["certgate", "dev", "--demo=false"].map(OsString::from));
        assert_eq!(dropped, ["certgate", "dev"].map(OsString::from));
    }

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn check_requires_a_filename() {
        let err = Cli::try_parse_from(["certgate", "check"]).unwrap_err();
        assert_eq!(err.kind(), clap::error::ErrorKind::MissingRequiredArgument);
        assert_eq!(err.exit_code(), 2);
    }

    #[test]
    fn check_accepts_repeated_filenames_and_formats() {
        let cli = Cli::try_parse_from([
            "certgate",
            "check",
            "-f",
            "a.yaml",
            "--filename",
            "dir",
            "-o",
            "yaml",
            "--explain",
        ])
        .unwrap();
        let Command::Check(args) = cli.command else { panic!("expected check") };
        assert_eq!(args.files, [PathBuf::from("a.yaml"), PathBuf::from("dir")]);
        assert_eq!(args.output, ReportFormat::Yaml);
        assert!(args.explain);
    }

    /// kubectl's client flags (k8s.io/cli-runtime ConfigFlags, as cmctl registers them), but
    /// `-n/--namespace`, which each command declares where it reads namespaced objects.
    const CLIENT_FLAGS: &[&str] = &[
        "kubeconfig",
        "context",
        "cluster",
        "user",
        "server",
        "token",
        "as",
        "as-group",
        "as-uid",
        "certificate-authority",
        "client-certificate",
        "client-key",
        "tls-server-name",
        "insecure-skip-tls-verify",
        "request-timeout",
        "disable-compression",
        "cache-dir",
    ];

    /// Every command that talks to an API server; those reading namespaced objects by name
    /// also take `-n/--namespace`.
    const CLUSTER_COMMANDS: &[(&str, bool)] = &[
        ("explain", true),
        ("webhook", false),
        ("controller", false),
        ("approve", true),
        ("deny", true),
        ("renew", true),
        ("status certificate", true),
        ("revoke certificate", true),
        ("revoke certificaterequest", true),
        ("edge serve", false),
    ];

    /// The commands cmctl also has, with the flags of their own there (the root's logging
    /// flags and the client flags come on top).
    const CMCTL_COMMANDS: &[(&str, &[&str])] = &[
        ("approve", &["reason", "message"]),
        ("deny", &["reason", "message"]),
        ("renew", &["all", "all-namespaces", "selector"]),
        ("status certificate", &[]),
    ];

    /// The logging flags cmctl's root command adds to every command.
    const CMCTL_LOGGING_FLAGS: &[&str] = &["v", "vmodule", "logging-format", "log-flush-frequency"];

    /// Every command without subcommands, by its path (`status certificate`).
    fn leaf_commands() -> Vec<(String, clap::Command)> {
        fn walk(prefix: &str, command: &clap::Command, out: &mut Vec<(String, clap::Command)>) {
            for sub in command.get_subcommands() {
                let path = format!("{prefix}{}", sub.get_name()).trim().to_owned();
                if sub.has_subcommands() {
                    walk(&format!("{path} "), sub, out);
                } else {
                    out.push((path, sub.clone()));
                }
            }
        }
        let mut root = Cli::command();
        root.build();
        let mut out = Vec::new();
        walk("", &root, &mut out);
        out
    }

    fn longs(command: &clap::Command) -> Vec<String> {
        command.get_arguments().filter_map(|a| a.get_long().map(str::to_owned)).collect()
    }

    fn short_of(command: &clap::Command, long: &str) -> Option<char> {
        command.get_arguments().find(|a| a.get_long() == Some(long)).and_then(|a| a.get_short())
    }

    #[test]
    fn every_command_that_talks_to_a_cluster_has_the_client_flags_in_its_help() {
        let leaves = leaf_commands();
        assert!(leaves.len() > 15, "the walk found only {} commands", leaves.len());
        for (path, command) in &leaves {
            let longs = longs(command);
            let listed = CLUSTER_COMMANDS.iter().find(|(name, _)| name == path);
            // A command with any client flag is a cluster command, and is in the list
            // (`template resolve --cluster` names an OCM managed cluster, not a kubeconfig's).
            let has_any = CLIENT_FLAGS
                .iter()
                .filter(|flag| **flag != "cluster")
                .any(|flag| longs.iter().any(|l| l == flag));
            assert_eq!(
                has_any,
                listed.is_some(),
                "{path}: a command with a client flag must be in CLUSTER_COMMANDS and have them \
                 all; a listed one must have them"
            );
            let Some((_, namespaced)) = listed else { continue };
            let help = command.clone().render_long_help().to_string();
            assert!(help.contains("Cluster client flags (as kubectl's):"), "{path}:\n{help}");
            for flag in CLIENT_FLAGS {
                assert!(longs.iter().any(|l| l == flag), "{path} lacks --{flag}");
                assert!(help.contains(&format!("--{flag}")), "{path}: --help lacks --{flag}");
            }
            assert_eq!(short_of(command, "server"), Some('s'), "{path} -s");
            if *namespaced {
                assert_eq!(short_of(command, "namespace"), Some('n'), "{path} -n/--namespace");
            }
        }
        // Every listed command exists.
        for (name, _) in CLUSTER_COMMANDS {
            assert!(leaves.iter().any(|(path, _)| path == name), "no command {name}");
        }
    }

    #[test]
    fn cmctl_commands_accept_every_flag_of_cmctls() {
        let leaves = leaf_commands();
        for (name, own) in CMCTL_COMMANDS {
            let (_, command) = leaves.iter().find(|(path, _)| path == name).unwrap();
            let longs = longs(command);
            for flag in CLIENT_FLAGS.iter().chain(CMCTL_LOGGING_FLAGS).chain(own.iter()) {
                assert!(longs.iter().any(|l| l == flag), "{name} lacks cmctl's --{flag}");
            }
            assert_eq!(short_of(command, "namespace"), Some('n'), "{name}");
            assert_eq!(short_of(command, "v"), Some('v'), "{name}");
        }
        let renew = &leaves.iter().find(|(path, _)| path == "renew").unwrap().1;
        assert_eq!(short_of(renew, "all-namespaces"), Some('A'));
        assert_eq!(short_of(renew, "selector"), Some('l'));
    }

    #[test]
    fn a_cmctl_approve_command_line_parses_unchanged() {
        let cli = Cli::try_parse_from([
            "certgate",
            "approve",
            "my-cr",
            "-n",
            "team-a",
            "--reason",
            "ManualApproval",
            "--message",
            "checked",
            "--kubeconfig",
            "/k",
            "--context",
            "prod",
            "--cluster",
            "prod-cluster",
            "--user",
            "me",
            "-s",
            "https://api.example:6443",
            "--token",
            "t",
            "--as",
            "alice",
            "--as-group",
            "a",
            "--as-group",
            "b",
            "--as-uid",
            "7",
            "--certificate-authority",
            "/ca.crt",
            "--client-certificate",
            "/me.crt",
            "--client-key",
            "/me.key",
            "--tls-server-name",
            "api.internal",
            "--insecure-skip-tls-verify=false",
            "--request-timeout",
            "30s",
            "--disable-compression",
            "--cache-dir",
            "/tmp/cache",
            "-v",
            "4",
            "--vmodule",
            "approve=5",
            "--logging-format",
            "text",
            "--log-flush-frequency",
            "10s",
        ])
        .unwrap();
        let Command::Approve(args) = cli.command else { panic!("expected approve") };
        assert_eq!(args.names, ["my-cr"]);
        assert_eq!(args.namespace.as_deref(), Some("team-a"));
        assert_eq!(
            (args.reason.as_str(), args.message.as_deref()),
            ("ManualApproval", Some("checked"))
        );
        let c = &args.cluster;
        assert_eq!(c.kubeconfig, Some(PathBuf::from("/k")));
        assert_eq!(
            (c.context.as_deref(), c.cluster.as_deref(), c.user.as_deref()),
            (Some("prod"), Some("prod-cluster"), Some("me"))
        );
        assert_eq!(c.server.as_deref(), Some("https://api.example:6443"));
        assert_eq!(c.token.as_deref(), Some("t"));
        assert_eq!(c.impersonate.as_deref(), Some("alice"));
        assert_eq!(c.impersonate_groups, ["a", "b"]);
        assert_eq!(c.impersonate_uid.as_deref(), Some("7"));
        assert_eq!(c.request_timeout, std::time::Duration::from_secs(30));
        assert!(!c.insecure_skip_tls_verify && c.disable_compression);
        assert_eq!(args.log.verbosity, 4);
        // cmctl's defaults.
        let cli = Cli::try_parse_from(["certgate", "deny", "x"]).unwrap();
        let Command::Deny(args) = cli.command else { panic!("expected deny") };
        assert_eq!(args.reason, "KubectlCertManager");
        assert_eq!(args.cluster.request_timeout, std::time::Duration::ZERO);
        assert_eq!(args.log.logging_format, "text");
    }

    #[test]
    fn unknown_output_format_is_a_usage_error() {
        let err = Cli::try_parse_from(["certgate", "check", "-f", "x", "-o", "xml"]).unwrap_err();
        assert_eq!(err.kind(), clap::error::ErrorKind::InvalidValue);
    }
}
