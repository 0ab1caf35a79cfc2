//! cert-manager key-usage names, what they mean in X.509, and the texts upstream renders
//! them with. Requested usages (`spec.usages` + `spec.isCA`) and the usages encoded in the
//! CSR are both turned into the same model, a keyUsage bit set plus an ordered extKeyUsage
//! list, because upstream compares them in exactly that form.

use std::fmt;

// keyUsage names by bit, in the order of Go's `x509.KeyUsage` bits (digitalSignature is
// bit 0). That order is also the order upstream prints the bits in.
use certgate_pki::{KEY_USAGE_NAMES, KnownExtKeyUsage};

/// cert-manager's second name for digitalSignature.
const SIGNING_ALIAS: &str = "signing";
const CERT_SIGN_BIT: usize = 5;

/// Usages used when `spec.usages` is empty (cert-manager's `DefaultKeyUsages`).
const DEFAULT_USAGES: [&str; 2] = ["digital signature", "key encipherment"];

/// A keyUsage bit set (bits 0..=8 as in Go's `x509.KeyUsage`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct KeyUsageBits(u16);

impl KeyUsageBits {
    fn bit_of(name: &str) -> Option<usize> {
        if name == SIGNING_ALIAS {
            return Some(0);
        }
        KEY_USAGE_NAMES.iter().position(|n| *n == name)
    }

    fn insert(&mut self, bit: usize) {
        self.0 |= 1 << bit;
    }

    /// Bits from the names a decoded CSR reports. Names that are not keyUsage bits cannot
    /// come from the 9-bit field upstream reads, so they do not count.
    pub(crate) fn from_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Self {
        let mut bits = KeyUsageBits::default();
        for bit in names.into_iter().filter_map(Self::bit_of) {
            bits.insert(bit);
        }
        bits
    }

    /// The set bits' names, lowest bit first, as upstream lists them.
    pub(crate) fn names(self) -> UsageList {
        UsageList(
            KEY_USAGE_NAMES
                .iter()
                .enumerate()
                .filter(|(bit, _)| self.0 & (1 << bit) != 0)
                .map(|(_, name)| *name)
                .collect(),
        )
    }
}

/// An extended key usage Go's `crypto/x509` knows, from pki's table: comparing two compares
/// their OIDs.
pub(crate) type ExtKeyUsage = &'static KnownExtKeyUsage;

/// Printed for a known extended key usage without a cert-manager name.
const UNNAMED_EXT_KEY_USAGE: &str = "unknown";

/// A decoded CSR reports extended key usages by cert-manager name, or by dotted OID when
/// there is no name; both forms are accepted. Unknown OIDs are ignored, as Go ignores them.
fn from_csr_entry(entry: &str) -> Option<ExtKeyUsage> {
    KnownExtKeyUsage::by_oid(entry).or_else(|| KnownExtKeyUsage::by_name(entry))
}

/// The extended key usages Go would decode from a CSR's entries, in encoded order.
pub(crate) fn ext_key_usages_from_csr<'a>(
    entries: impl IntoIterator<Item = &'a str>,
) -> Vec<ExtKeyUsage> {
    entries.into_iter().filter_map(from_csr_entry).collect()
}

/// The names of extended key usages, in order, as upstream lists them.
pub(crate) fn ext_key_usage_names(usages: &[ExtKeyUsage]) -> UsageList {
    UsageList(usages.iter().map(|u| u.name().unwrap_or(UNNAMED_EXT_KEY_USAGE)).collect())
}

/// Key usages requested by `spec.usages` and `spec.isCA`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Requested {
    pub(crate) key_usage: KeyUsageBits,
    /// In `spec.usages` order, duplicates kept (upstream compares the lists as they are).
    pub(crate) ext_key_usages: Vec<ExtKeyUsage>,
}

/// `spec.usages` entries that are not cert-manager key usages, printed like Go's `%v` of a
/// string slice (`[a b]`, no quoting), which is how upstream reports them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct UnknownUsages(Vec<String>);

impl fmt::Display for UnknownUsages {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}]", self.0.join(" "))
    }
}

/// The key usages a CertificateRequest asks for: cert sign when it is a CA, plus
/// `spec.usages` (or the defaults when that is empty).
pub(crate) fn requested(usages: &[String], is_ca: bool) -> Result<Requested, UnknownUsages> {
    let mut key_usage = KeyUsageBits::default();
    if is_ca {
        key_usage.insert(CERT_SIGN_BIT);
    }
    let names: Vec<&str> = if usages.is_empty() {
        DEFAULT_USAGES.to_vec()
    } else {
        usages.iter().map(String::as_str).collect()
    };
    let mut ext_key_usages = Vec::new();
    let mut unknown = Vec::new();
    for name in names {
        if let Some(bit) = KeyUsageBits::bit_of(name) {
            key_usage.insert(bit);
        } else if let Some(eku) = KnownExtKeyUsage::by_name(name) {
            ext_key_usages.push(eku);
        } else {
            unknown.push(name.to_owned());
        }
    }
    if unknown.is_empty() {
        Ok(Requested { key_usage, ext_key_usages })
    } else {
        Err(UnknownUsages(unknown))
    }
}

/// A list of usage names printed as upstream prints them in mismatch errors:
/// `[ 'a', 'b' ]`, or `[]` when empty.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct UsageList(Vec<&'static str>);

impl fmt::Display for UsageList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, name) in self.0.iter().enumerate() {
            let separator = if i == 0 { "" } else { "," };
            write!(f, "{separator} '{name}'")?;
        }
        if !self.0.is_empty() {
            f.write_str(" ")?;
        }
        f.write_str("]")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| (*n).to_owned()).collect()
    }

    fn eku(name: &str) -> ExtKeyUsage {
        KnownExtKeyUsage::by_name(name).unwrap()
    }

    #[test]
    fn usage_list_prints_like_upstream() {
        assert_eq!(UsageList(vec![]).to_string(), "[]");
        assert_eq!(UsageList(vec!["server auth"]).to_string(), "[ 'server auth' ]");
        assert_eq!(
            UsageList(vec!["digital signature", "key encipherment"]).to_string(),
            "[ 'digital signature', 'key encipherment' ]"
        );
    }

    #[test]
    fn unknown_usages_print_like_go_slices() {
        let err = requested(&strings(&["server auth", "foo bar", "baz"]), false).unwrap_err();
        assert_eq!(err.to_string(), "[foo bar baz]");
        // Go prints a slice holding one empty string as `[]`.
        assert_eq!(requested(&strings(&[""]), false).unwrap_err().to_string(), "[]");
    }

    #[test]
    fn empty_usages_mean_the_defaults() {
        let got = requested(&[], false).unwrap();
        assert_eq!(
            got.key_usage.names().to_string(),
            "[ 'digital signature', 'key encipherment' ]"
        );
        assert!(got.ext_key_usages.is_empty());
    }

    #[test]
    fn ca_adds_cert_sign_and_bits_print_in_bit_order() {
        let got = requested(&strings(&["crl sign", "signing", "any"]), true).unwrap();
        assert_eq!(
            got.key_usage.names().to_string(),
            "[ 'digital signature', 'cert sign', 'crl sign' ]"
        );
        assert_eq!(got.ext_key_usages, vec![eku("any")]);
    }

    #[test]
    fn requested_ext_key_usages_keep_order_and_duplicates() {
        let got =
            requested(&strings(&["s/mime", "client auth", "email protection"]), false).unwrap();
        assert_eq!(
            got.ext_key_usages,
            vec![eku("email protection"), eku("client auth"), eku("email protection")]
        );
        assert_eq!(got.key_usage, KeyUsageBits::default());
    }

    #[test]
    fn csr_entries_by_name_or_oid_unknown_oids_dropped() {
        let got = ext_key_usages_from_csr([
            "server auth",
            "1.3.6.1.5.5.7.3.2",
            "1.2.3.4",
            "1.3.6.1.4.1.311.61.1.1",
        ]);
        assert_eq!(
            got,
            vec![
                eku("server auth"),
                eku("client auth"),
                KnownExtKeyUsage::by_oid("1.3.6.1.4.1.311.61.1.1").unwrap()
            ]
        );
        assert_eq!(
            ext_key_usage_names(&got).to_string(),
            "[ 'server auth', 'client auth', 'unknown' ]"
        );
    }

    #[test]
    fn key_usage_bits_from_csr_names() {
        let bits =
            KeyUsageBits::from_names(["key encipherment", "digital signature", "decipher only"]);
        assert_eq!(
            bits.names().to_string(),
            "[ 'digital signature', 'key encipherment', 'decipher only' ]"
        );
    }
}
