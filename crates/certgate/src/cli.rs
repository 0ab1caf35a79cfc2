//! Command-line surface of the `certgate` binary: the top-level parser and the list of
//! subcommands. Each command's arguments and long help live in its own module under
//! [`crate::commands`]; this file only names them (no behaviour).

use clap::{Parser, Subcommand};

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

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use clap::CommandFactory;

    use super::*;
    use crate::shared::report::ReportFormat;

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

    #[test]
    fn unknown_output_format_is_a_usage_error() {
        let err = Cli::try_parse_from(["certgate", "check", "-f", "x", "-o", "xml"]).unwrap_err();
        assert_eq!(err.kind(), clap::error::ErrorKind::InvalidValue);
    }
}
