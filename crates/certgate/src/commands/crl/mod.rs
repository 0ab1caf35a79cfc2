//! `certgate crl`: client-certificate revocation for Contour HTTPProxies, offline.
//!
//! `inspect` describes CRL files, `verify` answers for one client chain what Envoy would, and
//! `check` validates HTTPProxies with their Secrets as Contour would, adding certgate-crl's
//! warnings. Input errors are collected and printed one per line on stderr (exit status 2).

mod check;
mod error;
mod input;
mod inspect;
mod output;
mod verify;

use std::io::{Read, Write};
use std::path::PathBuf;

use certgate_crl::Timestamp;
use clap::{Args, Subcommand};

pub use error::{CrlError, InputError};
pub use output::Format;

/// A subcommand's result when its output could be written: the exit status, or the input
/// errors that prevented it from running.
pub type Outcome = Result<u8, Vec<InputError>>;

/// Exit status for unreadable or unusable inputs (as `certgate check`).
pub const INPUT_ERROR: u8 = 2;

/// Exit status of `crl check --strict` when every HTTPProxy is valid but a warning was
/// reported (distinct from 1, an invalid HTTPProxy, and 2, an input error).
pub const WARNING_EXIT: u8 = 3;

pub const CRL_LONG_ABOUT: &str = "\
Client-certificate revocation for Contour HTTPProxies, offline: what is in a CRL file, what
Envoy answers a given client, and whether HTTPProxies with crlSecret are valid and will work.

  inspect  describe the CRLs in PEM files, check their signatures against a CA bundle, warn
  verify   print Envoy's verdict for one client chain (accepted, revoked, unknown-ca, ...)
  check    validate HTTPProxies with their Secrets as Contour would, plus certgate's CRL warnings

Every subcommand takes --at RFC3339 to fix the time, so results are reproducible.
Exit status 2 means an input could not be read or used. See docs/crl.md.

  certgate crl inspect crl.pem --ca ca.crt
  certgate crl verify --ca ca.crt --crl crl.pem client.crt
  certgate crl check -f manifests/";

const INSPECT_LONG_ABOUT: &str = "\
Describe every X509 CRL block of each PEM file: issuer, thisUpdate, nextUpdate (and how long
until it expires, or since it expired), the number of revoked entries, the CRL number and the
signature algorithm. With --ca, each CRL's signature is checked against the CA bundle: verified
by which CA, no issuer in the bundle, or a bad signature.

Then certgate-crl's warnings for the file as one crl.pem: CRLs that do not parse (Envoy then
refuses the whole TLS context), expired, soon-expiring (7 days) or not-yet-valid CRLs, CRLs
rustls would refuse, duplicates and superseded CRLs, and, with --ca, CAs that have no CRL
(with full-chain checking every CA, the root included, needs one; --leaf-only checks coverage
for crlOnlyVerifyLeafCert instead). Contour itself checks none of this.

With --revoked, the text lists each CRL's revoked entries in the CRL's order, as `openssl crl
-text` does (serial in uppercase hex, revocationDate, reason): the first 100, or the first N
with --revoked=N, then how many more there are; --revoked=all lists every one. -o json always
lists every entry under \"revoked\" ([{\"serial\",\"revocationDate\",\"reason\"}]), written as
it is read, so memory stays flat for huge CRLs.

Exit status: 0 no warnings, 1 any warning, 2 a file could not be read.

  certgate crl inspect crl.pem
  certgate crl inspect crl.pem --revoked=all
  certgate crl inspect crl.pem --ca ca.crt --at 2026-06-01T00:00:00Z -o json";

const VERIFY_LONG_ABOUT: &str = "\
Print what Envoy (BoringSSL), configured as Contour configures it, answers a client presenting
CERT (and the intermediates in CHAIN files or after the first certificate of CERT), with the
--ca files as trusted_ca and the --crl files as crl. One verdict word on the first line, the
reason on the second:

  accepted            the handshake succeeds
  revoked             a certificate of the path is listed (alert certificate_revoked)
  unknown-ca          no path to a CA, or a certificate needing a CRL has none (unknown_ca)
  crl-expired         the CRL used has nextUpdate <= now (certificate_expired)
  crl-not-yet-valid   the CRL used has thisUpdate > now (certificate_expired)
  bad-crl-signature   the CRL used does not verify with its issuer's key (decrypt_error)
  rejected            refused for another reason: expired or wrongly signed client
                      certificate, issuer without cRLSign, unhandled critical CRL
                      extension, a CRL Envoy cannot load

When certgate's own rustls/webpki stack would answer differently, a third line says so. With
-o json, one document: {\"envoy\": {\"verdict\", \"reason\"}, \"rustls\": {...}, \"path\": [...]}.

Without --leaf-only every certificate of the path, the trust anchor included, needs a CRL from
its issuer (Envoy's default, crlOnlyVerifyLeafCert: false): a root without its own CRL makes
every client unknown-ca. --leaf-only checks the client certificate only.

Exit status: 0 accepted, 1 any other verdict, 2 an input could not be read.

  certgate crl verify --ca ca.crt --crl crl.pem client.crt
  certgate crl verify --ca ca.crt --crl root.crl --crl inter.crl --leaf-only client.crt inter.crt
  certgate crl verify --ca ca.crt --crl crl.pem --at 2026-06-01T00:00:00Z client.crt";

const CHECK_LONG_ABOUT: &str = "\
Validate HTTPProxies (projectcontour.io/v1) offline as Contour would, from manifest files that
also hold the Secrets and TLSCertificateDelegations they refer to: the status Contour writes
(exact messages, e.g. for a crlSecret that is missing, not delegated, or holds no CRL) and the
Envoy DownstreamTlsContext it sends (with -o json).

For every CRL Secret Contour accepts, certgate-crl's checks run against the CA Secret's ca.crt
in the proxy's mode (crlOnlyVerifyLeafCert) at --at or now: unparsable, expired or
not-yet-valid CRLs, bad signatures, CAs without a CRL, and more. They are warnings: Contour
only checks PEM framing, so they never change validity, but each names a problem that makes
client handshakes fail in Envoy.

Fields the schemas of the objects do not know (a misspelt crlSecret, say) are warned about on
standard error with their file, line and column, and the nearest known field; the API server
would drop them (or refuse the object under kubectl's strict field validation).

JSON output: {\"results\":[{\"namespace\",\"name\",\"valid\",\"status\",\"warnings\",\"envoy\"}]}.
Exit status: 0 every HTTPProxy valid (warnings or not), 1 any invalid, 2 input errors (an
unreadable file, an object that does not parse, no HTTPProxy at all), 3 with --strict (alias
--fail-on-warning) when every HTTPProxy is valid but any warning was reported (certgate's, a
status condition's or an unknown field); the output is the same with or without --strict.

  certgate crl check -f manifests/
  certgate crl check -f manifests/ --strict    # for CI: exit 3 on any warning
  certgate crl check -f proxy.yaml -f secrets.yaml -o json --at 2026-06-01T00:00:00Z
  kubectl get httpproxies,secrets,tlscertificatedelegations -A -o yaml | certgate crl check -f -";

#[derive(Debug, Args)]
pub struct CrlArgs {
    #[command(subcommand)]
    pub command: CrlCommand,
}

#[derive(Debug, Subcommand)]
pub enum CrlCommand {
    /// Describe the CRLs in PEM files, check their signatures and warn about problems.
    #[command(long_about = INSPECT_LONG_ABOUT)]
    Inspect(InspectArgs),
    /// Print Envoy's verdict (accepted, revoked, unknown-ca, ...) for one client chain.
    #[command(long_about = VERIFY_LONG_ABOUT)]
    Verify(VerifyArgs),
    /// Validate HTTPProxies with their CRL and CA Secrets as Contour would, plus CRL warnings.
    #[command(long_about = CHECK_LONG_ABOUT)]
    Check(CheckArgs),
}

#[derive(Debug, Args)]
pub struct InspectArgs {
    /// PEM files of CRLs (a crl.pem); each is inspected as one bundle. `-` reads standard
    /// input.
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,

    /// The CA bundle (ca.crt) to check signatures and CA coverage against.
    #[arg(long, value_name = "FILE")]
    pub ca: Option<PathBuf>,

    /// Check coverage for crlOnlyVerifyLeafCert: true (only client certificates need CRLs).
    #[arg(long, value_name = "BOOL", action = clap::ArgAction::Set, default_value_t = false, num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub leaf_only: bool,

    /// The time to check against (RFC 3339); default now.
    #[arg(long, value_name = "RFC3339", value_parser = input::parse_at)]
    pub at: Option<Timestamp>,

    /// List revoked entries in text: the first 100, the first N (--revoked=N) or all
    /// (--revoked=all). JSON always lists all.
    #[arg(
        long,
        value_name = "N|all",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "100",
        value_parser = parse_revoked
    )]
    pub revoked: Option<RevokedListing>,

    #[arg(short = 'o', long = "output", value_enum, default_value_t = Format::Text)]
    pub output: Format,
}

/// How many revoked entries `inspect` lists per CRL in text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RevokedListing {
    /// At most this many, then a count of the rest.
    First(usize),
    All,
}

fn parse_revoked(text: &str) -> Result<RevokedListing, String> {
    if text == "all" {
        return Ok(RevokedListing::All);
    }
    text.parse::<usize>().map(RevokedListing::First).map_err(|_| {
        format!(
            "{} is not a number of entries or \"all\"; use e.g. --revoked=20 or --revoked=all",
            certgate_gofmt::quote(text)
        )
    })
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The CA bundle Envoy trusts (trusted_ca; Contour's ca.crt). Repeat to concatenate. Any
    /// FILE, CERT or CHAIN may be `-`, standard input (read once).
    #[arg(long, value_name = "FILE", required = true)]
    pub ca: Vec<PathBuf>,

    /// PEM CRLs (Envoy's crl; Contour's crl.pem). Repeat to concatenate.
    #[arg(long, value_name = "FILE", required = true)]
    pub crl: Vec<PathBuf>,

    /// Check the client certificate only (crlOnlyVerifyLeafCert: true).
    #[arg(long, value_name = "BOOL", action = clap::ArgAction::Set, default_value_t = false, num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub leaf_only: bool,

    /// The time of the handshake (RFC 3339); default now.
    #[arg(long, value_name = "RFC3339", value_parser = input::parse_at)]
    pub at: Option<Timestamp>,

    /// The client certificate (PEM); further certificates in it are sent as intermediates.
    #[arg(value_name = "CERT")]
    pub cert: PathBuf,

    /// Intermediate certificates the client sends (PEM).
    #[arg(value_name = "CHAIN")]
    pub chain: Vec<PathBuf>,

    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = Format::Text)]
    pub output: Format,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// A manifest file, or a directory searched recursively for *.yaml, *.yml and *.json files
    /// (in name order). `-` reads standard input. Repeat to give several.
    #[arg(short = 'f', long = "filename", value_name = "PATH", required = true)]
    pub files: Vec<PathBuf>,

    /// The time CRLs are checked at and conditions are stamped with (RFC 3339); default now.
    #[arg(long, value_name = "RFC3339", value_parser = input::parse_at)]
    pub at: Option<Timestamp>,

    /// Exit 3 when every HTTPProxy is valid but any warning is reported (for CI); the output
    /// is unchanged.
    #[arg(long, visible_alias = "fail-on-warning", value_name = "BOOL", action = clap::ArgAction::Set, default_value_t = false, num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub strict: bool,

    #[arg(short = 'o', long = "output", value_enum, default_value_t = Format::Text)]
    pub output: Format,
}

/// Runs a `crl` subcommand; returns the exit status. Input errors are written to `stderr`
/// (one `error:` line each) and give [`INPUT_ERROR`]; only output failures are `Err`.
pub fn run(
    args: &CrlArgs,
    stdin: impl Read,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<u8, CrlError> {
    let outcome = match &args.command {
        CrlCommand::Inspect(args) => inspect::run(args, &mut input::PemInputs::new(stdin), stdout)?,
        CrlCommand::Verify(args) => verify::run(args, &mut input::PemInputs::new(stdin), stdout)?,
        CrlCommand::Check(args) => check::run(args, stdin, stdout, stderr)?,
    };
    match outcome {
        Ok(code) => Ok(code),
        Err(errors) => {
            for line in errors.iter().flat_map(InputError::lines) {
                writeln!(stderr, "error: {line}")?;
            }
            Ok(INPUT_ERROR)
        }
    }
}
