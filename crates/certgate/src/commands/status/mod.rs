//! `certgate status KIND NAME`: where a cert-manager resource stands, modelled on
//! `cmctl status`. One subcommand per kind; `certificate` for now.

pub mod certificate;

use clap::{Args, Subcommand};

/// The long help of `certgate status` (`--help`).
pub const STATUS_LONG_ABOUT: &str = "\
Get details on the current status of cert-manager resources, as `cmctl status` does, and more.

  certgate status certificate my-crt -n my-namespace
  certgate status certificate my-crt -n my-namespace -o json";

#[derive(Debug, Args)]
pub struct StatusArgs {
    #[command(subcommand)]
    pub command: StatusCommand,
}

#[derive(Debug, Subcommand)]
pub enum StatusCommand {
    /// Where a Certificate stands: conditions, Secret, issuer, request, approval, retry.
    #[command(long_about = certificate::CERTIFICATE_LONG_ABOUT)]
    Certificate(certificate::CertificateArgs),
}
