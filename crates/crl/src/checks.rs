//! Deeper checks of a CRL bundle against its CA bundle. They never change Contour's verdict
//! (Contour only checks PEM framing): each warning names a problem that will surface at
//! handshake time in Envoy or in certgate's rustls stack, which CRL or CA it concerns, and what
//! to do about it.

use std::time::Duration;

use serde::Serialize;
use webpki::BorrowedCertRevocationList;

use crate::bundle::{CaBundle, CrlBundle};
use crate::error::CrlParseError;
use crate::parse::Crl;
use crate::time::Timestamp;
use crate::verdict::RevocationMode;
use crate::verify::{SignatureStatus, verify_crl};

/// Options of [`check_bundle`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckOptions {
    /// Envoy's `only_verify_leaf_cert_crl`.
    pub mode: RevocationMode,
    /// The time to check against (the library never reads a clock).
    pub now: Timestamp,
    /// Warn when `nextUpdate` falls within this window after `now`.
    pub expiry_window: Duration,
}

impl CheckOptions {
    /// Full-chain mode, a 7-day expiry window.
    pub fn new(now: Timestamp) -> Self {
        CheckOptions {
            mode: RevocationMode::FullChain,
            now,
            expiry_window: Duration::from_secs(7 * 86_400),
        }
    }
}

/// Why rustls-webpki 0.103 refuses a CRL that BoringSSL accepts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(rename_all = "kebab-case")]
pub enum WebpkiRejection {
    #[error("it is a v1 CRL")]
    Version1,
    #[error("it has no nextUpdate")]
    NoNextUpdate,
    #[error("it has no crlExtensions")]
    NoExtensions,
    #[error("it is a delta CRL")]
    Delta,
    #[error("{0}")]
    Other(String),
}

/// A problem found by [`check_bundle`]. CRLs and CAs are named by their 1-based position in
/// `crl.pem` / `ca.crt` and by issuer or subject.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Warning {
    #[error("crl.pem holds no X509 CRL block: Contour rejects the Secret (failed to locate CRL)")]
    NoCrl,
    #[error(
        "malformed PEM block at byte {offset} of crl.pem: Contour skips it, but Envoy fails to load the file and rejects the TLS context; fix or remove the block"
    )]
    MalformedPemBlock { offset: usize },
    #[error(
        "CRL #{crl} does not parse ({error}): Envoy fails to load crl.pem and rejects the TLS context while the HTTPProxy stays Valid; replace the CRL"
    )]
    CrlUnparsable {
        crl: usize,
        #[serde(serialize_with = "display")]
        error: CrlParseError,
    },
    /// Not an error: the issuer may be an intermediate that clients send in the handshake
    /// (ca.crt holding only the root is a normal deployment), which BoringSSL adds to the path
    /// and then checks against this CRL. Offline, only its signature is unknowable.
    #[error(
        "CRL #{crl} (issuer {issuer}) is not from a CA in ca.crt, so its signature cannot be verified offline: Envoy uses it only for clients that send {issuer} in their handshake as an intermediate chaining to ca.crt; keep it if they do (and make sure that intermediate's current key signed it), remove it if none do"
    )]
    IssuerNotInBundle { crl: usize, issuer: String },
    #[error(
        "CRL #{crl} (issuer {issuer}) does not verify with any CA of that name ({detail}): handshakes needing it fail with a CRL signature failure; re-issue it with the CA's current key"
    )]
    BadSignature { crl: usize, issuer: String, detail: String },
    #[error(
        "CRL #{crl} (issuer {issuer}) is signed by CA #{ca} whose keyUsage lacks cRLSign: BoringSSL and webpki refuse it; re-issue the CA with cRLSign"
    )]
    IssuerNotCrlSigner { crl: usize, issuer: String, ca: usize },
    #[error(
        "CRL #{crl} (issuer {issuer}) expired: nextUpdate {next_update} is not after {now}; every handshake needing it will fail; publish a fresh CRL"
    )]
    Expired { crl: usize, issuer: String, next_update: Timestamp, now: Timestamp },
    #[error(
        "CRL #{crl} (issuer {issuer}) expires at {next_update}, within {window_hours} h of {now}: publish a fresh CRL before then or every handshake needing it will fail"
    )]
    ExpiresSoon {
        crl: usize,
        issuer: String,
        next_update: Timestamp,
        now: Timestamp,
        window_hours: u64,
    },
    #[error(
        "CRL #{crl} (issuer {issuer}) is not yet valid: thisUpdate {this_update} is after {now}; handshakes needing it fail until then (check the issuer's clock)"
    )]
    NotYetValid { crl: usize, issuer: String, this_update: Timestamp, now: Timestamp },
    #[error(
        "CA #{ca} ({subject}) has no CRL issued by it: with full-chain checking Envoy rejects every client whose path includes it as \"unknown certificate authority\"; add its CRL (an empty one is fine) or set crlOnlyVerifyLeafCert"
    )]
    MissingCrlForCa { ca: usize, subject: String },
    /// Leaf-only mode. Not raised when crl.pem holds a CRL from an issuer outside ca.crt: the
    /// clients then likely send the intermediate that issues them (see `IssuerNotInBundle`).
    #[error(
        "CA #{ca} ({subject}) issues no other CA of the bundle, so it likely issues client certificates, but has no CRL: in leaf-only mode its clients fail as \"unknown certificate authority\"; add its CRL"
    )]
    MissingCrlForLeafIssuer { ca: usize, subject: String },
    #[error(
        "CA #{ca} ({subject}) is not self-issued and its issuer {issuer} is not in ca.crt: with full-chain checking BoringSSL cannot check it against a CRL and every client under it fails; add {issuer} to ca.crt"
    )]
    IssuerOfCaMissing { ca: usize, subject: String, issuer: String },
    #[error(
        "CRL #{crl} (issuer {issuer}) has the unhandled critical extension {extension}: BoringSSL fails every handshake that uses it; re-issue the CRL without it"
    )]
    UnknownCriticalExtension { crl: usize, issuer: String, extension: String },
    #[error("CRL #{crl} (issuer {issuer}) is an exact duplicate of CRL #{same_as}; remove one")]
    Duplicate { crl: usize, issuer: String, same_as: usize },
    #[error(
        "CRL #{crl} (issuer {issuer}) is superseded by CRL #{by} ({why}); BoringSSL prefers the newest valid one but an older one can still be picked when the newer is unusable: remove it"
    )]
    Superseded { crl: usize, issuer: String, by: usize, why: String },
    #[error(
        "CRL #{crl} (issuer {issuer}) lists the same serial twice; harmless for lookup but a sign of a broken CRL generator"
    )]
    DuplicateSerials { crl: usize, issuer: String },
    #[error(
        "CRL #{crl} (issuer {issuer}) is refused by rustls-webpki because {reason}; Envoy accepts it, certgate's rustls stack would not load the bundle; re-issue it as a v2 CRL with nextUpdate and a cRLNumber"
    )]
    WebpkiRejects { crl: usize, issuer: String, reason: WebpkiRejection },
}

fn display<S: serde::Serializer, T: std::fmt::Display>(v: &T, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(v)
}

/// Checks every CRL and the CA coverage. Order: bundle-level, then per CRL in bundle order,
/// then per CA.
pub fn check_bundle(crls: &CrlBundle, cas: &CaBundle, opts: &CheckOptions) -> Vec<Warning> {
    let mut out = Vec::new();
    if crls.items.is_empty() {
        out.push(Warning::NoCrl);
    }
    out.extend(crls.malformed_offsets.iter().map(|&offset| Warning::MalformedPemBlock { offset }));
    for item in &crls.items {
        match &item.crl {
            Err(error) => {
                out.push(Warning::CrlUnparsable { crl: item.number, error: error.clone() })
            }
            Ok(crl) => check_crl(item.number, crl, cas, opts, &mut out),
        }
    }
    check_supersession(crls, &mut out);
    check_coverage(crls, cas, opts.mode, &mut out);
    out
}

fn check_crl(
    number: usize,
    crl: &Crl,
    cas: &CaBundle,
    opts: &CheckOptions,
    out: &mut Vec<Warning>,
) {
    let info = crl.info();
    let issuer = || info.issuer.clone();
    match verify_crl(crl, cas) {
        SignatureStatus::Verified { ca, .. } => {
            let not_signer = cas
                .items
                .iter()
                .find(|i| i.number == ca)
                .and_then(|i| i.cert.as_ref().ok())
                .is_some_and(|c| c.crl_sign == Some(false));
            if not_signer {
                out.push(Warning::IssuerNotCrlSigner { crl: number, issuer: issuer(), ca });
            }
        }
        SignatureStatus::NoIssuerInBundle { .. } => {
            out.push(Warning::IssuerNotInBundle { crl: number, issuer: issuer() })
        }
        SignatureStatus::Failed { attempts, .. } => {
            let detail = attempts
                .iter()
                .map(|(ca, why)| format!("CA #{ca}: {why}"))
                .collect::<Vec<_>>()
                .join("; ");
            out.push(Warning::BadSignature { crl: number, issuer: issuer(), detail });
        }
    }
    let now = opts.now;
    if info.this_update > now {
        out.push(Warning::NotYetValid {
            crl: number,
            issuer: issuer(),
            this_update: info.this_update,
            now,
        });
    }
    if let Some(next_update) = info.next_update {
        if next_update <= now {
            out.push(Warning::Expired { crl: number, issuer: issuer(), next_update, now });
        } else if next_update <= now.saturating_add(opts.expiry_window) {
            out.push(Warning::ExpiresSoon {
                crl: number,
                issuer: issuer(),
                next_update,
                now,
                window_hours: opts.expiry_window.as_secs() / 3600,
            });
        }
    }
    for ext in info.unhandled_critical_extensions() {
        out.push(Warning::UnknownCriticalExtension {
            crl: number,
            issuer: issuer(),
            extension: ext.name.map_or_else(|| ext.oid.clone(), |n| format!("{n} ({})", ext.oid)),
        });
    }
    if info.duplicate_serials {
        out.push(Warning::DuplicateSerials { crl: number, issuer: issuer() });
    }
    if let Err(e) = BorrowedCertRevocationList::from_der(crl.der()) {
        let reason = match e {
            webpki::Error::UnsupportedCrlVersion => WebpkiRejection::Version1,
            webpki::Error::UnsupportedDeltaCrl => WebpkiRejection::Delta,
            _ if info.version == 1 => WebpkiRejection::Version1,
            _ if info.next_update.is_none() => WebpkiRejection::NoNextUpdate,
            _ if !info.has_extensions => WebpkiRejection::NoExtensions,
            _ if info.delta_base.is_some() => WebpkiRejection::Delta,
            other => WebpkiRejection::Other(crate::webpki_text::describe(&other)),
        };
        out.push(Warning::WebpkiRejects { crl: number, issuer: issuer(), reason });
    }
}

/// Same issuer (name and key identifier): exact duplicates, and complete CRLs superseded by a
/// higher CRL number or, without numbers, a later thisUpdate.
fn check_supersession(crls: &CrlBundle, out: &mut Vec<Warning>) {
    let parsed: Vec<(usize, &Crl)> =
        crls.parsed().filter(|(_, c)| c.info().delta_base.is_none()).collect();
    for (i, (n, crl)) in parsed.iter().enumerate() {
        let same_issuer = |other: &Crl| {
            other.issuer_der() == crl.issuer_der()
                && other.authority_key_id() == crl.authority_key_id()
        };
        // Exact duplicate of an earlier CRL: report against the later one only.
        if let Some((first, _)) = parsed.iter().take(i).find(|(_, o)| o.der() == crl.der()) {
            out.push(Warning::Duplicate {
                crl: *n,
                issuer: crl.info().issuer.clone(),
                same_as: *first,
            });
            continue;
        }
        let newer = parsed
            .iter()
            .filter(|(m, o)| m != n && same_issuer(o) && o.der() != crl.der())
            .find_map(|(m, o)| {
                let (a, b) = (crl.info(), o.info());
                match (&a.crl_number, &b.crl_number) {
                    (Some(x), Some(y)) if y > x => Some((*m, format!("cRLNumber {y} > {x}"))),
                    (Some(x), Some(y)) if y < x => None,
                    _ if b.this_update > a.this_update => Some((
                        *m,
                        format!("thisUpdate {} is later than {}", b.this_update, a.this_update),
                    )),
                    _ => None,
                }
            });
        if let Some((by, why)) = newer {
            out.push(Warning::Superseded { crl: *n, issuer: crl.info().issuer.clone(), by, why });
        }
    }
}

fn check_coverage(crls: &CrlBundle, cas: &CaBundle, mode: RevocationMode, out: &mut Vec<Warning>) {
    let cas_parsed: Vec<_> = cas.parsed().collect();
    let has_own_crl =
        |subject_der: &[u8]| crls.parsed().any(|(_, c)| c.issuer_der() == subject_der);
    // A CRL from an issuer outside ca.crt is most likely from an intermediate the clients
    // send. Then the CAs of ca.crt that issue no other CA of the bundle may well issue only
    // such intermediates, so guessing that they issue client certificates is unfounded.
    let crl_from_outside = crls
        .parsed()
        .any(|(_, c)| !cas_parsed.iter().any(|(_, ca)| ca.subject_der == c.issuer_der()));
    for (number, ca) in &cas_parsed {
        match mode {
            RevocationMode::FullChain => {
                if !has_own_crl(&ca.subject_der) {
                    out.push(Warning::MissingCrlForCa { ca: *number, subject: ca.subject.clone() });
                }
                let issuer_present = cas_parsed.iter().any(|(_, o)| o.subject_der == ca.issuer_der);
                if !ca.self_issued && !issuer_present {
                    out.push(Warning::IssuerOfCaMissing {
                        ca: *number,
                        subject: ca.subject.clone(),
                        issuer: ca.issuer.clone(),
                    });
                }
            }
            RevocationMode::LeafOnly => {
                let issues_a_ca = cas_parsed
                    .iter()
                    .any(|(m, o)| m != number && !o.self_issued && o.issuer_der == ca.subject_der);
                if !issues_a_ca && !crl_from_outside && !has_own_crl(&ca.subject_der) {
                    out.push(Warning::MissingCrlForLeafIssuer {
                        ca: *number,
                        subject: ca.subject.clone(),
                    });
                }
            }
        }
    }
}
