//! Revocation verdicts: what Envoy (BoringSSL) answers for a client chain, and what certgate's
//! own TLS stack (rustls + rustls-webpki 0.103, configured as in spec §7.4) answers.
//!
//! BoringSSL is emulated step by step (spec §6.2) because webpki differs in ways that change the
//! verdict: it never checks the trust anchor's own revocation, ignores `thisUpdate`, picks the
//! first authoritative CRL instead of the best-scored one, and refuses v1, delta and
//! `nextUpdate`-less CRLs outright. webpki still does what it is good at: the non-revocation
//! part of chain validation (signatures, validity, CA flags, EKU, name constraints).

use std::time::Duration;

use rustls_pki_types::{CertificateDer, UnixTime};
use serde::Serialize;
use webpki::{
    BorrowedCertRevocationList, CertRevocationList, EndEntityCert, ExpirationPolicy, KeyUsage,
    RevocationCheckDepth, RevocationOptionsBuilder, UnknownStatusPolicy,
};

use crate::bundle::{CaBundle, CrlBundle};
use crate::cert::Cert;
use crate::parse::Crl;
use crate::time::Timestamp;
use crate::verify::verify_with;

/// The answer to a client, in Envoy's terms. Serialises to the kebab-case word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The handshake succeeds.
    Accepted,
    /// A certificate of the path is listed in its issuer's CRL (alert `certificate_revoked`).
    Revoked,
    /// No path to a CA of the bundle, or a certificate needing a CRL has none (alert `unknown_ca`).
    UnknownCa,
    /// The CRL used has `nextUpdate <= now` (alert `certificate_expired`).
    CrlExpired,
    /// The CRL used has `thisUpdate > now` (alert `certificate_expired`).
    CrlNotYetValid,
    /// The CRL used does not verify with its issuer's key (alert `decrypt_error`).
    BadCrlSignature,
    /// Refused for a reason outside the six above: an expired or wrongly signed client
    /// certificate, an issuer without cRLSign, an unhandled critical CRL extension, a bundle
    /// Envoy cannot load. The reason text says which.
    Rejected,
}

impl Verdict {
    /// The kebab-case word (`accepted`, `revoked`, `unknown-ca`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Accepted => "accepted",
            Verdict::Revoked => "revoked",
            Verdict::UnknownCa => "unknown-ca",
            Verdict::CrlExpired => "crl-expired",
            Verdict::CrlNotYetValid => "crl-not-yet-valid",
            Verdict::BadCrlSignature => "bad-crl-signature",
            Verdict::Rejected => "rejected",
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Envoy's `only_verify_leaf_cert_crl` (Contour's `crlOnlyVerifyLeafCert`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RevocationMode {
    /// `false` (default): every certificate of the path, trust anchor included, needs a CRL.
    FullChain,
    /// `true`: only the client certificate is checked.
    LeafOnly,
}

impl RevocationMode {
    /// From the HTTPProxy field `crlOnlyVerifyLeafCert`.
    pub fn from_only_verify_leaf_cert_crl(only_leaf: bool) -> Self {
        if only_leaf { RevocationMode::LeafOnly } else { RevocationMode::FullChain }
    }
}

/// One verifier's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Outcome {
    pub verdict: Verdict,
    /// What happened, naming the certificate (by depth and subject) and the CRL.
    pub reason: String,
}

impl Outcome {
    fn new(verdict: Verdict, reason: impl Into<String>) -> Self {
        Outcome { verdict, reason: reason.into() }
    }
}

/// Both answers for one client chain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Evaluation {
    /// What Envoy (BoringSSL) answers: the behaviour certgate reproduces.
    pub envoy: Outcome,
    /// What rustls + webpki 0.103 (spec §7.4 settings) answers; may differ (see crate docs).
    pub rustls: Outcome,
    /// Subjects of the path BoringSSL builds, client certificate first.
    pub path: Vec<String>,
}

/// Evaluates a client chain (`chain[0]` is the client certificate, the rest intermediates it
/// sends) against the CA bundle (`trusted_ca`) and the CRLs (`crl`), at time `now`.
pub fn evaluate(
    chain: &[Cert],
    cas: &CaBundle,
    crls: &CrlBundle,
    mode: RevocationMode,
    now: Timestamp,
) -> Evaluation {
    let Some(leaf) = chain.first() else {
        let none = Outcome::new(
            Verdict::Rejected,
            "no client certificate: the handshake fails (certificate required)",
        );
        return Evaluation { envoy: none.clone(), rustls: none, path: Vec::new() };
    };
    let path = build_path(leaf, chain.get(1..).unwrap_or_default(), cas);
    let envoy = envoy_outcome(chain, &path, cas, crls, mode, now);
    let rustls = rustls_outcome(chain, cas, crls, mode, now);
    Evaluation { envoy, rustls, path: path.iter().map(|c| c.subject.clone()).collect() }
}

/// Longest path considered; BoringSSL's default is 100, real client chains are 2–4 long.
const MAX_PATH: usize = 16;

/// BoringSSL-style path building by issuer name, trusted certificates first; stops at a
/// self-issued certificate. Signatures are not checked here (BoringSSL checks them after
/// revocation), which is also why this and webpki's path can differ.
fn build_path<'a>(leaf: &'a Cert, sent: &'a [Cert], cas: &'a CaBundle) -> Vec<&'a Cert> {
    let mut path = vec![leaf];
    while path.len() < MAX_PATH {
        let Some(current) = path.last() else { break };
        if current.self_issued {
            break;
        }
        let in_path = |c: &Cert| path.iter().any(|p| p.der == c.der);
        let next = cas
            .parsed()
            .map(|(_, c)| c)
            .chain(sent.iter())
            .find(|c| c.subject_der == current.issuer_der && !in_path(c));
        match next {
            Some(c) => path.push(c),
            None => break,
        }
    }
    path
}

fn is_trusted(cert: &Cert, cas: &CaBundle) -> bool {
    cas.parsed().any(|(_, c)| c.der == cert.der)
}

fn at(depth: usize, cert: &Cert) -> String {
    format!("certificate at depth {depth} ({})", cert.subject)
}

fn envoy_outcome(
    chain: &[Cert],
    path: &[&Cert],
    cas: &CaBundle,
    crls: &CrlBundle,
    mode: RevocationMode,
    now: Timestamp,
) -> Outcome {
    // Envoy loads every block; one broken CRL rejects the TLS context (spec §6.1).
    if let Some(item) = crls.items.iter().find(|i| i.crl.is_err()) {
        let why = item.crl.as_ref().err().map(|e| e.to_string()).unwrap_or_default();
        return Outcome::new(
            Verdict::Rejected,
            format!(
                "Envoy cannot load crl.pem (CRL #{}: {why}): it rejects the TLS context, so no client is served with it",
                item.number
            ),
        );
    }
    if !path.iter().any(|c| is_trusted(c, cas)) {
        let top = path.last().map_or_else(String::new, |c| c.issuer.clone());
        return Outcome::new(
            Verdict::UnknownCa,
            format!(
                "unable to get local issuer certificate: no CA in the bundle issued or is {top}"
            ),
        );
    }
    // Only the part up to and including the first trusted certificate, then trusted issuers.
    let depths = match mode {
        RevocationMode::LeafOnly => 1,
        RevocationMode::FullChain => path.len(),
    };
    for depth in 0..depths {
        let Some(cert) = path.get(depth) else { break };
        let issuer = path.get(depth + 1).copied().unwrap_or(cert);
        if let Err(outcome) = check_cert(depth, cert, issuer, path, crls, now) {
            return outcome;
        }
    }
    // Revocation passed; the rest of chain validation, by webpki.
    match webpki_verify(chain, cas, None, now) {
        Ok(()) => Outcome::new(Verdict::Accepted, "chain verified and no certificate is revoked"),
        Err(webpki::Error::UnknownIssuer) => Outcome::new(
            Verdict::UnknownCa,
            "no valid path to a CA of the bundle (issuer unknown or signatures do not verify)",
        ),
        Err(e) => Outcome::new(
            Verdict::Rejected,
            format!("chain verification fails: {}", crate::webpki_text::describe(&e)),
        ),
    }
}

/// BoringSSL's CRL selection and checks for one certificate (spec §6.2).
fn check_cert(
    depth: usize,
    cert: &Cert,
    issuer: &Cert,
    path: &[&Cert],
    crls: &CrlBundle,
    now: Timestamp,
) -> Result<(), Outcome> {
    let akid_ok = |crl: &Crl| match crl.authority_key_id() {
        None => true,
        Some(akid) => std::iter::once(issuer)
            .chain(path.iter().copied().filter(|c| c.subject_der == crl.issuer_der()))
            .any(|c| c.subject_key_id.as_deref().is_none_or(|skid| skid == akid)),
    };
    let time_ok = |crl: &Crl| {
        let i = crl.info();
        i.this_update <= now && i.next_update.is_none_or(|n| n > now)
    };
    let best = crls
        .parsed()
        .filter(|(_, crl)| crl.issuer_der() == cert.issuer_der.as_slice() && akid_ok(crl))
        .max_by_key(|(number, crl)| {
            let no_critical = crl.info().unhandled_critical_extensions().next().is_none();
            // Score, then the newest thisUpdate, then the earliest in the bundle.
            (
                (u8::from(no_critical) << 1) | u8::from(time_ok(crl)),
                crl.info().this_update,
                std::cmp::Reverse(*number),
            )
        });
    let Some((number, crl)) = best else {
        return Err(Outcome::new(
            Verdict::UnknownCa,
            format!(
                "unable to get certificate CRL: no CRL from {} covers the {}; with full-chain checking every CA of the path, the root included, needs its own CRL",
                cert.issuer,
                at(depth, cert)
            ),
        ));
    };
    let info = crl.info();
    let which = format!("CRL #{number} (issuer {})", info.issuer);
    if issuer.crl_sign == Some(false) {
        return Err(Outcome::new(
            Verdict::Rejected,
            format!("{which}: its issuer's keyUsage lacks cRLSign (KEYUSAGE_NO_CRL_SIGN)"),
        ));
    }
    if info.this_update > now {
        return Err(Outcome::new(
            Verdict::CrlNotYetValid,
            format!("{which} is not yet valid: thisUpdate {} is after {now}", info.this_update),
        ));
    }
    if let Some(next) = info.next_update.filter(|n| *n <= now) {
        return Err(Outcome::new(
            Verdict::CrlExpired,
            format!(
                "{which} has expired: nextUpdate {next} is not after {now}; every handshake needing it fails"
            ),
        ));
    }
    if let Err(why) = verify_with(crl, issuer) {
        return Err(Outcome::new(
            Verdict::BadCrlSignature,
            format!("{which}: CRL signature failure checked with {}: {why}", issuer.subject),
        ));
    }
    if let Some(ext) = info.unhandled_critical_extensions().next() {
        return Err(Outcome::new(
            Verdict::Rejected,
            format!("{which}: unhandled critical CRL extension {}", ext.name.unwrap_or(&ext.oid)),
        ));
    }
    if crl.is_revoked(&cert.serial_der) {
        return Err(Outcome::new(
            Verdict::Revoked,
            format!("{} serial {} is revoked by {which}", at(depth, cert), cert.serial),
        ));
    }
    Ok(())
}

fn unix(now: Timestamp) -> UnixTime {
    UnixTime::since_unix_epoch(Duration::from_secs(u64::try_from(now.0).unwrap_or(0)))
}

/// webpki path validation with the bundle as trust anchors (Envoy sets PARTIAL_CHAIN, so any
/// bundle certificate can end a path) and `revocation` if given.
fn webpki_verify(
    chain: &[Cert],
    cas: &CaBundle,
    revocation: Option<webpki::RevocationOptions<'_>>,
    now: Timestamp,
) -> Result<(), webpki::Error> {
    let Some(leaf) = chain.first() else { return Err(webpki::Error::BadDer) };
    let leaf_der = CertificateDer::from(leaf.der.as_slice());
    let ee = EndEntityCert::try_from(&leaf_der)?;
    let ca_ders: Vec<CertificateDer<'_>> =
        cas.parsed().map(|(_, c)| CertificateDer::from(c.der.as_slice())).collect();
    let anchors: Vec<_> =
        ca_ders.iter().filter_map(|d| webpki::anchor_from_trusted_cert(d).ok()).collect();
    let intermediates: Vec<CertificateDer<'_>> =
        chain.iter().skip(1).map(|c| CertificateDer::from(c.der.as_slice())).collect();
    ee.verify_for_usage(
        webpki::ALL_VERIFICATION_ALGS,
        &anchors,
        &intermediates,
        unix(now),
        KeyUsage::client_auth(),
        revocation,
        None,
    )
    .map(|_| ())
}

// The deprecated unit variants are still what older code paths of webpki 0.103 return.
#[allow(deprecated)]
fn rustls_outcome(
    chain: &[Cert],
    cas: &CaBundle,
    crls: &CrlBundle,
    mode: RevocationMode,
    now: Timestamp,
) -> Outcome {
    let mut parsed = Vec::new();
    for item in &crls.items {
        let result = match &item.crl {
            Ok(crl) => BorrowedCertRevocationList::from_der(crl.der())
                .map_err(|e| crate::webpki_text::describe(&e)),
            Err(e) => Err(e.to_string()),
        };
        match result {
            Ok(c) => parsed.push(CertRevocationList::from(c)),
            Err(why) => {
                return Outcome::new(
                    Verdict::Rejected,
                    format!(
                        "rustls refuses the CRL bundle at build time (CRL #{}: {why})",
                        item.number
                    ),
                );
            }
        }
    }
    let refs: Vec<&CertRevocationList<'_>> = parsed.iter().collect();
    let revocation = RevocationOptionsBuilder::new(&refs).ok().map(|b| {
        b.with_depth(match mode {
            RevocationMode::LeafOnly => RevocationCheckDepth::EndEntity,
            RevocationMode::FullChain => RevocationCheckDepth::Chain,
        })
        .with_status_policy(UnknownStatusPolicy::Deny)
        .with_expiration_policy(ExpirationPolicy::Enforce)
        .build()
    });
    match webpki_verify(chain, cas, revocation, now) {
        Ok(()) => {
            Outcome::new(Verdict::Accepted, "webpki verified the chain and revocation status")
        }
        Err(e) => {
            let verdict = match &e {
                webpki::Error::CertRevoked => Verdict::Revoked,
                webpki::Error::UnknownRevocationStatus | webpki::Error::UnknownIssuer => {
                    Verdict::UnknownCa
                }
                webpki::Error::CrlExpired { .. } => Verdict::CrlExpired,
                webpki::Error::InvalidCrlSignatureForPublicKey
                | webpki::Error::UnsupportedCrlSignatureAlgorithm
                | webpki::Error::UnsupportedCrlSignatureAlgorithmContext(_)
                | webpki::Error::UnsupportedCrlSignatureAlgorithmForPublicKey
                | webpki::Error::UnsupportedCrlSignatureAlgorithmForPublicKeyContext(_) => {
                    Verdict::BadCrlSignature
                }
                _ => Verdict::Rejected,
            };
            Outcome::new(verdict, format!("webpki: {}", crate::webpki_text::describe(&e)))
        }
    }
}
