//! `spec.usages` to keyUsage bits and extended key usages, as cert-manager's
//! `KeyUsagesForCertificateOrCertificateRequest` (pkg/util/pki/csr.go) maps them, and the
//! usage lists its "encoded CSR error" messages print.

use crate::usages::{EXT_KEY_USAGES, KEY_USAGE_NAMES, KnownExtKeyUsage};

/// keyUsage bits in Go's `x509.KeyUsage` numbering: bit `i` is `KEY_USAGE_NAMES[i]`.
pub(super) const DIGITAL_SIGNATURE: u16 = 1 << 0;
pub(super) const CERT_SIGN: u16 = 1 << 5;

/// The usages cert-manager applies when `spec.usages` is empty (`v1.DefaultKeyUsages`).
pub const DEFAULT_USAGES: [&str; 2] = ["digital signature", "key encipherment"];

/// What `spec.usages` and `spec.isCA` ask for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Usages {
    pub(super) key_usage: u16,
    /// In `spec.usages` order, repeats kept (Go appends each one).
    pub(super) ext_key_usages: Vec<&'static KnownExtKeyUsage>,
}

/// Maps `spec.usages` (the defaults when empty); `isCA` adds `cert sign`. Names cert-manager
/// does not know are returned, in order, as the error.
pub(super) fn from_spec<S: AsRef<str>>(usages: &[S], is_ca: bool) -> Result<Usages, Vec<String>> {
    let mut key_usage = if is_ca { CERT_SIGN } else { 0 };
    let mut ext_key_usages = Vec::new();
    let mut unknown = Vec::new();
    let defaults = DEFAULT_USAGES.map(str::to_string);
    let names: Vec<&str> = if usages.is_empty() {
        defaults.iter().map(String::as_str).collect()
    } else {
        usages.iter().map(AsRef::as_ref).collect()
    };
    for name in names {
        if let Some(bit) = key_usage_bit(name) {
            key_usage |= bit;
        } else if let Some(known) = ext_key_usage(name) {
            ext_key_usages.push(known);
        } else {
            unknown.push(name.to_string());
        }
    }
    if unknown.is_empty() { Ok(Usages { key_usage, ext_key_usages }) } else { Err(unknown) }
}

/// `signing` is cert-manager's alias for `digital signature`.
fn key_usage_bit(name: &str) -> Option<u16> {
    if name == "signing" {
        return Some(DIGITAL_SIGNATURE);
    }
    KEY_USAGE_NAMES.iter().position(|known| *known == name).map(|bit| 1 << bit)
}

/// Only the names cert-manager's `spec.usages` accepts: every named Go usage (the two
/// Microsoft code-signing usages have no name).
fn ext_key_usage(name: &str) -> Option<&'static KnownExtKeyUsage> {
    KnownExtKeyUsage::by_name(name)
}

/// keyUsage bits from the names the crate's decoder reports.
pub(super) fn key_usage_from_names(names: &[String]) -> u16 {
    names.iter().filter_map(|name| key_usage_bit(name)).fold(0, |bits, bit| bits | bit)
}

/// The names of the set bits in bit order (`apiutil.KeyUsageStrings`).
pub(super) fn key_usage_names(bits: u16) -> Vec<String> {
    KEY_USAGE_NAMES
        .iter()
        .enumerate()
        .filter(|(bit, _)| bits & (1 << bit) != 0)
        .map(|(_, name)| (*name).to_string())
        .collect()
}

/// Names for extended key usages (`apiutil.ExtKeyUsageStrings`): `unknown` for the two that
/// have no `spec.usages` spelling.
pub(super) fn ext_key_usage_names(usages: &[&'static KnownExtKeyUsage]) -> Vec<String> {
    usages.iter().map(|known| known.name().unwrap_or("unknown").to_string()).collect()
}

/// Whether `oid` is an extended key usage Go knows (`x509.ExtKeyUsage`).
pub(super) fn known_ext_key_usage(oid: &str) -> Option<&'static KnownExtKeyUsage> {
    EXT_KEY_USAGES.iter().find(|known| known.oid == oid)
}

/// A usage list as cert-manager prints it in "encoded CSR error" messages:
/// `[ 'digital signature', 'key encipherment' ]`, or `[]`.
pub(super) fn print(names: &[String]) -> String {
    if names.is_empty() {
        return "[]".to_string();
    }
    let quoted: Vec<String> = names.iter().map(|name| format!("'{name}'")).collect();
    format!("[ {} ]", quoted.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY_ENCIPHERMENT: u16 = 1 << 2;

    fn oids(usages: &Usages) -> Vec<&'static str> {
        usages.ext_key_usages.iter().map(|known| known.oid).collect()
    }

    #[test]
    fn empty_usages_take_the_defaults() {
        let usages = from_spec::<&str>(&[], false).unwrap();
        assert_eq!(usages.key_usage, DIGITAL_SIGNATURE | KEY_ENCIPHERMENT);
        assert!(usages.ext_key_usages.is_empty());
        let ca = from_spec::<&str>(&[], true).unwrap();
        assert_eq!(ca.key_usage, DIGITAL_SIGNATURE | KEY_ENCIPHERMENT | CERT_SIGN);
    }

    #[test]
    fn key_and_extended_usages_split_in_order_with_repeats() {
        let usages = from_spec(
            &["signing", "server auth", "crl sign", "s/mime", "client auth", "email protection"],
            false,
        )
        .unwrap();
        assert_eq!(usages.key_usage, DIGITAL_SIGNATURE | (1 << 6));
        assert_eq!(
            oids(&usages),
            ["1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.4", "1.3.6.1.5.5.7.3.2", "1.3.6.1.5.5.7.3.4"]
        );
        // Explicit usages replace the defaults entirely.
        assert_eq!(from_spec(&["server auth"], false).unwrap().key_usage, 0);
        assert_eq!(from_spec(&["decipher only"], true).unwrap().key_usage, (1 << 8) | CERT_SIGN);
    }

    #[test]
    fn unknown_usages_are_listed() {
        assert_eq!(
            from_spec(&["nope", "server auth", "Digital Signature"], false).unwrap_err(),
            ["nope", "Digital Signature"]
        );
    }

    #[test]
    fn names_and_printing() {
        let bits = DIGITAL_SIGNATURE | KEY_ENCIPHERMENT | CERT_SIGN;
        assert_eq!(
            print(&key_usage_names(bits)),
            "[ 'digital signature', 'key encipherment', 'cert sign' ]"
        );
        assert_eq!(print(&[]), "[]");
        let ms = known_ext_key_usage("1.3.6.1.4.1.311.61.1.1").unwrap();
        let server = known_ext_key_usage("1.3.6.1.5.5.7.3.1").unwrap();
        assert_eq!(ext_key_usage_names(&[server, ms]), ["server auth", "unknown"]);
        assert_eq!(key_usage_from_names(&key_usage_names(0x1ff)), 0x1ff);
    }
}
