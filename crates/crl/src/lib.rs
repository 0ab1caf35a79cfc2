//! CRL bundles for certgate: what Contour accepts in an HTTPProxy `crlSecret`, and what Envoy
//! (BoringSSL) will then do with client certificates. Pure: no I/O, no clock (`now` is always
//! an argument), every input treated as hostile (bounded by [`Limits`], never panics).
//!
//! PEM decoding, DER reading and signature verification are `certgate-pki`'s, the workspace's
//! one implementation of each; this crate adds Contour's walk and texts on top of the PEM
//! decoder and chooses [`certgate_pki::signature::Policy::Ring`] for CRL signatures. What it
//! keeps as its own is the revoked-list walk: [`Crl::from_der`] steps through the entries with
//! `certgate-pki`'s zero-allocation DER reader and records offsets in a [`SerialIndex`]
//! instead of building an object per entry, because a CRL can list millions of serials and a
//! general X.509 parser would hold them all (several times the memory, see `benches/`).
//!
//! # API by consumer
//!
//! **Contour Secret validation** (`certgate-ingress`), byte-exact messages of spec §2/§4.2:
//! - [`validate_crl_pem`]`(&[u8]) -> Result<(), ContourPemError>`: `crl.pem` check (first
//!   `X509 CRL` block wins; DER not parsed). The caller checks the Secret type and emptiness.
//! - [`validate_ca_pem`]`(&[u8]) -> Result<(), ContourPemError>`: `ca.crt` check, unwrapped
//!   (Contour prefixes `invalid CA certificate bundle: `).
//! - [`contains_pem_header`]: Contour's header test, quirk included.
//! - [`ContourBlocks`]: Contour's block walk, for checks with other block-type rules (its
//!   `tls.crt`/`tls.key` checks); [`decode_pem_block`]: Go's `pem.Decode` for one block.
//!
//! **Parsing** (`certgate crl`, checks, verdicts):
//! - [`CrlBundle::parse`]`(&[u8], &Limits) -> Result<CrlBundle, BundleError>`: every `X509 CRL`
//!   block as a [`CrlItem`] (1-based `number`, `offset`, `Result<Crl, CrlParseError>`).
//! - [`CaBundle::parse`]`(&[u8], &Limits) -> Result<CaBundle, BundleError>`: every
//!   `CERTIFICATE` block as a [`CaItem`] holding a [`Cert`].
//! - [`Crl::from_der`]`(Vec<u8>, &Limits)`, [`Crl::info`] ([`CrlInfo`]: issuer in RFC 4514,
//!   `this_update`, `next_update`, `entries`, `crl_number`, `delta_base`, extensions with
//!   criticality, `signature_algorithm`), [`Crl::is_revoked`]`(&[u8]) -> bool` and
//!   [`Crl::lookup`]`(&[u8]) -> Option<RevokedEntry>` (serials as minimal DER INTEGER bytes;
//!   other encodings of the same integer are reduced first).
//! - [`Crl::revoked_entries`]: the entries in the CRL's own order as [`ListedEntry`]s
//!   (serial as `openssl crl -text` prints it, date, reason), decoded lazily.
//!
//! **Signatures**: [`verify_crl`]`(&Crl, &CaBundle) -> SignatureStatus` says which CA (by
//! number) verified it, or that no CA has the issuer's name, or why each candidate failed.
//!
//! **Warnings**: [`check_bundle`]`(&CrlBundle, &CaBundle, &CheckOptions) -> Vec<Warning>`. Each
//! [`Warning`] names the CRL (`CRL #n`, issuer) or CA and says what to do; none of them changes
//! Contour's verdict, which looks only at PEM framing.
//!
//! **Verdicts**: [`evaluate`]`(chain: &[Cert], &CaBundle, &CrlBundle, RevocationMode, Timestamp)
//! -> Evaluation`: `envoy` is what Envoy/BoringSSL answers ([`Verdict`], serialised as
//! `accepted`, `revoked`, `unknown-ca`, `crl-expired`, `crl-not-yet-valid`,
//! `bad-crl-signature`, plus `rejected` for failures outside revocation), `rustls` what
//! certgate's rustls/webpki 0.103 stack answers with the spec §7.4 settings.
//!
//! **Building** (certgate's CA issuer, issue #22), in [`build`]: [`build::CaSigner`] (CA
//! certificate + PKCS#8 key), [`build::build_crl`] (a signed v2 CRL, PEM or DER, that parses,
//! verifies and draws no warning here), [`build::decide_refresh`] (publish now? look again
//! when?).
//!
//! # Differences between BoringSSL and webpki that `evaluate` models
//! - Full-chain mode checks the trust anchor too in BoringSSL (a root needs its own CRL and can
//!   be revoked by it); webpki never checks the anchor.
//! - BoringSSL builds the chain up to a self-signed root from the bundle even when an
//!   intermediate of the bundle could end it (PARTIAL_CHAIN only matters when no root is
//!   there); webpki stops at the first trust anchor.
//! - BoringSSL fails a CRL whose `thisUpdate` is in the future; webpki does not look.
//! - BoringSSL scores candidate CRLs (no unhandled critical extension, then time validity) and
//!   takes the newest `thisUpdate`; webpki takes the first authoritative CRL.
//! - webpki refuses v1 CRLs, CRLs without `nextUpdate` or extensions and delta CRLs when the
//!   verifier is built (the whole bundle fails); BoringSSL uses them (without `nextUpdate` a
//!   CRL never expires).
//! - Alerts: an expired CRL is `certificate_expired` in BoringSSL, `unknown_ca` in rustls.
//!
//! # What is not modelled
//! Issuing-distribution-point scope and reasons (presence is reported, scope is not
//! evaluated), indirect CRLs, name comparison by canonical form (names are compared as DER
//! bytes; BoringSSL canonicalises case and spaces), RSA-PSS CRL signatures, and the BoringSSL
//! PEM reader's own framing rules (Go's decoder rules are used; malformed blocks are reported).
#![forbid(unsafe_code)]

pub mod build;
mod bundle;
mod cert;
mod checks;
mod error;
mod index;
mod listing;
mod name;
mod oid;
mod parse;
mod pem;
mod sigalg;
mod time;
mod verdict;
mod verify;
mod webpki_text;

pub use bundle::{CaBundle, CaItem, CrlBundle, CrlItem, OtherBlock, parse_chain_pem};
pub use cert::Cert;
pub use checks::{CheckOptions, Warning, WebpkiRejection, check_bundle};
pub use error::{BundleError, CertParseError, CrlParseError};
pub use index::{MAX_SERIAL_LEN, SerialIndex};
pub use listing::{ListedEntry, RevokedEntries, openssl_serial, reason_name};
pub use parse::{Crl, CrlExtension, CrlInfo, CrlNumber, RevokedEntry};
pub use pem::{
    CERTIFICATE_LABEL, CRL_LABEL, ContourBlocks, ContourPemError, PemBlock, PemBundle,
    contains_pem_header, decode_pem_block, parse_pem_bundle, validate_ca_pem, validate_crl_pem,
};
pub use sigalg::SignatureAlgorithm;
pub use time::Timestamp;
pub use verdict::{Evaluation, Outcome, RevocationMode, Verdict, evaluate};
pub use verify::{SignatureStatus, verify_crl, verify_with};

/// Bounds applied to hostile input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Largest PEM bundle (and single CRL DER) accepted. Kubernetes Secrets stop at 1 MiB;
    /// the default leaves room for CRLs read from files by `certgate crl`.
    pub max_bundle_bytes: usize,
    /// Most PEM blocks in one bundle.
    pub max_blocks: usize,
    /// Most revoked entries in one CRL.
    pub max_entries_per_crl: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_bundle_bytes: 256 << 20, max_blocks: 4096, max_entries_per_crl: 10_000_000 }
    }
}
