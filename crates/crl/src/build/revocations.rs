//! The durable list of revoked certificates a CA issuer publishes: the `revocations.json` key of
//! its CRL Secret, written by `certgate revoke` and read by the `issuers-crl` controller.
//!
//! The text is a JSON array of entries:
//!
//! ```json
//! [{"serial": "3f1c…", "revokedAt": "2026-11-29T13:00:00Z", "reason": "keyCompromise",
//!   "notAfter": "2027-02-27T13:00:00Z", "certificate": "team-a/web"}]
//! ```
//!
//! - `serial`: the certificate's serial number, hexadecimal without colons (any case on read,
//!   written lowercase without leading zero octets);
//! - `revokedAt`, `notAfter`: RFC 3339 times (written in UTC, seconds);
//! - `reason`: a CRLReason name as `openssl ca -crl_reason` takes it (matched without regard
//!   to case; `unspecified` or absent means no reason code);
//! - `certificate`: optional, the `namespace/name` the certificate was issued for.
//!
//! Pure and bounded: [`parse_revocations`] never panics, refuses more than
//! [`RevocationLimits`] allows, and names the entry index and field at fault.

use std::collections::HashMap;

use super::der::magnitude;
use super::entry::{MAX_SERIAL_OCTETS, Reason, RevokedCert};
use crate::time::Timestamp;

/// The Secret key the revocation list is stored under.
pub const REVOCATIONS_KEY: &str = "revocations.json";

/// Default of [`RevocationLimits::max_bytes`]: half a Kubernetes Secret (1 MiB), leaving the
/// other half for the published `crl.pem`.
pub const DEFAULT_MAX_REVOCATIONS_BYTES: usize = 512 * 1024;
/// Default of [`RevocationLimits::max_entries`]: about 3,000 entries of ~170 bytes fill the
/// byte bound first; the count bound stops lists of tiny entries.
pub const DEFAULT_MAX_REVOCATIONS: usize = 10_000;
/// Longest `certificate` reference accepted (a namespace, a slash and a name).
pub const MAX_CERTIFICATE_REF_CHARS: usize = 512;

/// Bounds of [`parse_revocations`] and [`add_revocation`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RevocationLimits {
    /// Largest `revocations.json` text, in bytes.
    pub max_bytes: usize,
    /// Most entries.
    pub max_entries: usize,
}

impl Default for RevocationLimits {
    fn default() -> Self {
        RevocationLimits {
            max_bytes: DEFAULT_MAX_REVOCATIONS_BYTES,
            max_entries: DEFAULT_MAX_REVOCATIONS,
        }
    }
}

/// One revoked certificate, as the list stores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Revocation {
    /// The serial's unsigned magnitude (no leading zero octet), 1 to 20 octets, not zero.
    pub serial: Vec<u8>,
    pub revoked_at: Timestamp,
    /// `None`: unspecified (no reasonCode in the CRL).
    pub reason: Option<Reason>,
    /// The certificate's notAfter: once it passes, the entry leaves the CRL.
    pub not_after: Timestamp,
    /// `namespace/name` of the Certificate or CertificateRequest, when known.
    pub certificate: Option<String>,
}

impl Revocation {
    /// The serial as the list writes it: lowercase hex, no colons.
    pub fn serial_hex(&self) -> String {
        crate::name::hex(&self.serial)
    }

    /// The entry as the CRL builder takes it.
    pub fn revoked_cert(&self) -> RevokedCert {
        RevokedCert {
            serial: self.serial.clone(),
            revoked_at: self.revoked_at,
            reason: self.reason,
        }
    }
}

/// `revocations.json` cannot be used. Each names what is wrong, where, and what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RevocationsError {
    #[error(
        "revocations.json is {bytes} bytes, more than the limit of {limit}: remove entries whose notAfter has passed"
    )]
    TooLarge { bytes: usize, limit: usize },
    #[error(
        "revocations.json is not a JSON array of revocations ({detail}); fix or remove the key"
    )]
    NotJson { detail: String },
    #[error(
        "revocations.json has {entries} entries, more than the limit of {limit}: remove entries whose notAfter has passed"
    )]
    TooManyEntries { entries: usize, limit: usize },
    #[error("revocations.json entry {index}: {field} {problem}")]
    Entry { index: usize, field: &'static str, problem: String },
    #[error(
        "revocations.json lists serial {serial} twice (entries {first} and {second}): keep one of them"
    )]
    DuplicateSerial { serial: String, first: usize, second: usize },
}

/// The reason names `openssl ca -crl_reason` takes, with their codes (RFC 5280 §5.3.1), as
/// the list writes them.
const REASON_NAMES: [(&str, Option<Reason>); 10] = [
    ("unspecified", None),
    ("keyCompromise", Some(Reason::KeyCompromise)),
    ("cACompromise", Some(Reason::CaCompromise)),
    ("affiliationChanged", Some(Reason::AffiliationChanged)),
    ("superseded", Some(Reason::Superseded)),
    ("cessationOfOperation", Some(Reason::CessationOfOperation)),
    ("certificateHold", Some(Reason::CertificateHold)),
    ("privilegeWithdrawn", Some(Reason::PrivilegeWithdrawn)),
    ("aACompromise", Some(Reason::AaCompromise)),
    // Listed only to explain why it is refused.
    ("removeFromCRL", None),
];

/// The names [`parse_reason`] accepts, comma-separated, for help texts and errors.
pub fn reason_names() -> String {
    REASON_NAMES
        .iter()
        .filter(|(name, _)| *name != "removeFromCRL")
        .map(|(name, _)| *name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A reason name as `openssl ca -crl_reason` takes it, matched without regard to case;
/// `unspecified` is `None`. `removeFromCRL` is refused (it belongs in delta CRLs: delete the
/// entry to release a certificate).
pub fn parse_reason(name: &str) -> Result<Option<Reason>, String> {
    if name.eq_ignore_ascii_case("removeFromCRL") {
        return Err(
            "\"removeFromCRL\" is for delta CRLs, which certgate does not publish: remove the entry instead"
                .into(),
        );
    }
    REASON_NAMES
        .iter()
        .find(|(known, _)| known.eq_ignore_ascii_case(name))
        .map(|(_, reason)| *reason)
        .ok_or_else(|| {
            format!(
                "{} is not a CRL reason; use one of {}",
                certgate_gofmt::quote(&truncate(name)),
                reason_names()
            )
        })
}

/// The name of a reason as the list writes it.
pub fn reason_name(reason: Option<Reason>) -> &'static str {
    REASON_NAMES.iter().find(|(_, r)| *r == reason).map_or("unspecified", |(name, _)| *name)
}

/// A serial in hex (any case, no colons, leading zeros allowed) as its unsigned magnitude.
pub fn parse_serial_hex(text: &str) -> Result<Vec<u8>, String> {
    if text.is_empty() {
        return Err("is empty; write the serial in hexadecimal".into());
    }
    if text.len() > 2 * (MAX_SERIAL_OCTETS + 8) {
        return Err(format!(
            "has {} characters, more than a serial of {MAX_SERIAL_OCTETS} octets",
            text.len()
        ));
    }
    if let Some(bad) = text.chars().find(|c| !c.is_ascii_hexdigit()) {
        return Err(format!(
            "{} holds {}: write the serial in hexadecimal without colons",
            certgate_gofmt::quote(&truncate(text)),
            if bad.is_control() { format!("U+{:04X}", u32::from(bad)) } else { format!("'{bad}'") }
        ));
    }
    let digits = text.as_bytes();
    let mut bytes = Vec::with_capacity(digits.len() / 2 + 1);
    let odd = digits.len() % 2 == 1;
    let mut pending: Option<u8> = if odd { Some(0) } else { None };
    for &d in digits {
        let v = hex_value(d);
        match pending.take() {
            Some(high) => bytes.push((high << 4) | v),
            None => pending = Some(v),
        }
    }
    let serial = magnitude(&bytes).to_vec();
    if serial.is_empty() {
        return Err("is zero: serials are positive".into());
    }
    if serial.len() > MAX_SERIAL_OCTETS {
        return Err(format!(
            "has {} octets, more than the {MAX_SERIAL_OCTETS} RFC 5280 allows",
            serial.len()
        ));
    }
    Ok(serial)
}

fn hex_value(d: u8) -> u8 {
    match d {
        b'0'..=b'9' => d - b'0',
        b'a'..=b'f' => d - b'a' + 10,
        b'A'..=b'F' => d - b'A' + 10,
        _ => 0,
    }
}

/// An RFC 3339 time, to the second.
pub fn parse_rfc3339(text: &str) -> Result<Timestamp, String> {
    chrono::DateTime::parse_from_rfc3339(text).map(|t| Timestamp::from_unix(t.timestamp())).map_err(
        |e| {
            format!(
                "{:?} is not an RFC 3339 time ({e}); write e.g. 2026-11-29T13:00:00Z",
                truncate(text)
            )
        },
    )
}

/// At most 64 characters of hostile text, for error messages.
fn truncate(text: &str) -> String {
    match text.char_indices().nth(64) {
        Some((end, _)) => format!("{}…", text.get(..end).unwrap_or_default()),
        None => text.to_owned(),
    }
}

/// Parses `revocations.json`. An empty (or whitespace-only) text is an empty list.
pub fn parse_revocations(
    text: &[u8],
    limits: &RevocationLimits,
) -> Result<Vec<Revocation>, RevocationsError> {
    if text.len() > limits.max_bytes {
        return Err(RevocationsError::TooLarge { bytes: text.len(), limit: limits.max_bytes });
    }
    if text.iter().all(u8::is_ascii_whitespace) {
        return Ok(Vec::new());
    }
    // serde_json bounds nesting (128 levels), so hostile depth fails instead of overflowing.
    let value: serde_json::Value = serde_json::from_slice(text)
        .map_err(|e| RevocationsError::NotJson { detail: e.to_string() })?;
    let serde_json::Value::Array(items) = value else {
        return Err(RevocationsError::NotJson {
            detail: format!("the top level is {}, not an array", kind(&value)),
        });
    };
    if items.len() > limits.max_entries {
        return Err(RevocationsError::TooManyEntries {
            entries: items.len(),
            limit: limits.max_entries,
        });
    }
    let mut out = Vec::with_capacity(items.len());
    let mut seen: HashMap<Vec<u8>, usize> = HashMap::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let revocation = entry(index, item)?;
        if let Some(first) = seen.insert(revocation.serial.clone(), index) {
            return Err(RevocationsError::DuplicateSerial {
                serial: revocation.serial_hex(),
                first,
                second: index,
            });
        }
        out.push(revocation);
    }
    Ok(out)
}

fn kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

const FIELDS: [&str; 5] = ["serial", "revokedAt", "reason", "notAfter", "certificate"];

fn entry(index: usize, item: &serde_json::Value) -> Result<Revocation, RevocationsError> {
    let problem =
        |field: &'static str, problem: String| RevocationsError::Entry { index, field, problem };
    let serde_json::Value::Object(map) = item else {
        return Err(RevocationsError::Entry {
            index,
            field: "entry",
            problem: format!("is {}, not an object", kind(item)),
        });
    };
    if let Some(unknown) = map.keys().find(|k| !FIELDS.contains(&k.as_str())) {
        return Err(RevocationsError::Entry {
            index,
            field: "entry",
            problem: format!(
                "has the unknown field {}; the fields are {}",
                certgate_gofmt::quote(&truncate(unknown)),
                FIELDS.join(", ")
            ),
        });
    }
    let string = |field: &'static str, required: bool| -> Result<Option<&str>, RevocationsError> {
        match map.get(field) {
            None | Some(serde_json::Value::Null) if !required => Ok(None),
            None | Some(serde_json::Value::Null) => Err(problem(field, "is missing".into())),
            Some(serde_json::Value::String(s)) => Ok(Some(s.as_str())),
            Some(other) => Err(problem(field, format!("is {}, not a string", kind(other)))),
        }
    };
    let serial = parse_serial_hex(string("serial", true)?.unwrap_or_default())
        .map_err(|p| problem("serial", p))?;
    let revoked_at = parse_rfc3339(string("revokedAt", true)?.unwrap_or_default())
        .map_err(|p| problem("revokedAt", p))?;
    let not_after = parse_rfc3339(string("notAfter", true)?.unwrap_or_default())
        .map_err(|p| problem("notAfter", p))?;
    let reason = match string("reason", false)? {
        Some(name) => parse_reason(name).map_err(|p| problem("reason", p))?,
        None => None,
    };
    let certificate = match string("certificate", false)? {
        Some(c) if c.chars().count() > MAX_CERTIFICATE_REF_CHARS => {
            return Err(problem(
                "certificate",
                format!("is longer than {MAX_CERTIFICATE_REF_CHARS} characters"),
            ));
        }
        other => other.map(str::to_owned),
    };
    Ok(Revocation { serial, revoked_at, reason, not_after, certificate })
}

/// Writes the list as `revocations.json`: one entry per line, fields in a fixed order, a
/// trailing newline. [`parse_revocations`] reads it back unchanged.
pub fn revocations_to_json(list: &[Revocation]) -> String {
    let mut out = String::from("[");
    for (i, r) in list.iter().enumerate() {
        out.push_str(if i == 0 { "\n  " } else { ",\n  " });
        let mut fields = vec![
            format!("\"serial\":{}", json_string(&r.serial_hex())),
            format!("\"revokedAt\":{}", json_string(&r.revoked_at.to_string())),
            format!("\"reason\":{}", json_string(reason_name(r.reason))),
            format!("\"notAfter\":{}", json_string(&r.not_after.to_string())),
        ];
        if let Some(c) = &r.certificate {
            fields.push(format!("\"certificate\":{}", json_string(c)));
        }
        out.push('{');
        out.push_str(&fields.join(","));
        out.push('}');
    }
    out.push_str(if list.is_empty() { "]\n" } else { "\n]\n" });
    out
}

fn json_string(s: &str) -> String {
    serde_json::Value::String(s.to_owned()).to_string()
}

/// What [`add_revocation`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Added {
    /// The entry was appended.
    Added,
    /// The serial was already listed; the list is unchanged. The existing entry.
    AlreadyRevoked(Revocation),
}

/// Appends `new` to `list` unless its serial is listed (revoking twice changes nothing: the
/// first revocation's date and reason stay). Refuses to grow past `limits.max_entries`.
pub fn add_revocation(
    list: &mut Vec<Revocation>,
    new: Revocation,
    limits: &RevocationLimits,
) -> Result<Added, RevocationsError> {
    let serial = magnitude(&new.serial).to_vec();
    if let Some(existing) = list.iter().find(|r| magnitude(&r.serial) == serial.as_slice()) {
        return Ok(Added::AlreadyRevoked(existing.clone()));
    }
    if list.len() >= limits.max_entries {
        return Err(RevocationsError::TooManyEntries {
            entries: list.len() + 1,
            limit: limits.max_entries,
        });
    }
    list.push(Revocation { serial, ..new });
    let bytes = revocations_to_json(list).len();
    if bytes > limits.max_bytes {
        list.pop();
        return Err(RevocationsError::TooLarge { bytes, limit: limits.max_bytes });
    }
    Ok(Added::Added)
}

/// The entries a CRL issued at `now` lists: those whose certificate has not expired
/// (`notAfter` after `now`), as the builder takes them.
pub fn active_revocations(list: &[Revocation], now: Timestamp) -> Vec<RevokedCert> {
    list.iter().filter(|r| r.not_after > now).map(Revocation::revoked_cert).collect()
}

#[cfg(test)]
mod tests;
