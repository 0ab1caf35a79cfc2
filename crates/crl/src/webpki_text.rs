//! webpki's errors in words. `rustls_webpki::Error` displays as its `Debug` rendering
//! (`CertExpired { time: UnixTime(..), not_after: UnixTime(..) }`), which must not reach users:
//! the errors certgate's verdicts meet are worded here with their times in RFC 3339, and any
//! other is named by its variant in words (`UnsupportedCrlVersion` → `unsupported CRL version`).

use rustls_pki_types::UnixTime;

use crate::Timestamp;

fn at(t: UnixTime) -> Timestamp {
    Timestamp::from_unix(i64::try_from(t.as_secs()).unwrap_or(i64::MAX))
}

/// What went wrong, for a verdict's reason or a warning.
pub(crate) fn describe(error: &webpki::Error) -> String {
    use webpki::Error as E;
    match error {
        E::CertExpired { time, not_after } => format!(
            "a certificate of the chain expired at {} (checked at {})",
            at(*not_after),
            at(*time)
        ),
        E::CertNotValidYet { time, not_before } => format!(
            "a certificate of the chain is not valid before {} (checked at {})",
            at(*not_before),
            at(*time)
        ),
        E::CrlExpired { time, next_update } => format!(
            "a CRL expired at {} (its nextUpdate; checked at {})",
            at(*next_update),
            at(*time)
        ),
        E::CertRevoked => "a certificate of the chain is revoked".to_owned(),
        E::UnknownIssuer => "no issuer of a certificate is among the CAs".to_owned(),
        E::UnknownRevocationStatus => "no CRL covers a certificate of the chain".to_owned(),
        E::InvalidSignatureForPublicKey | E::InvalidCrlSignatureForPublicKey => {
            "a signature in the chain does not verify".to_owned()
        }
        other => variant_in_words(&format!("{other:?}")),
    }
}

/// The variant name of a `Debug` rendering, in lower-case words; runs of capitals (`CRL`,
/// `EKU`) kept as one upper-case word.
fn variant_in_words(debug: &str) -> String {
    let name: String = debug.chars().take_while(char::is_ascii_alphanumeric).collect();
    let chars: Vec<char> = name.chars().collect();
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    for (i, &c) in chars.iter().enumerate() {
        let next_lower = chars.get(i + 1).is_some_and(char::is_ascii_lowercase);
        let prev_lower = i > 0 && chars[i - 1].is_ascii_lowercase();
        if c.is_ascii_uppercase() && !word.is_empty() && (prev_lower || next_lower) {
            words.push(std::mem::take(&mut word));
        }
        word.push(c);
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
        .iter()
        .map(|w| match w.as_str() {
            "Crl" => "CRL".to_owned(),
            "Eku" => "EKU".to_owned(),
            "Der" => "DER".to_owned(),
            "Ca" => "CA".to_owned(),
            w if w.len() > 1 && w.chars().all(|c| c.is_ascii_uppercase()) => w.to_owned(),
            w => w.to_lowercase(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unix(secs: u64) -> UnixTime {
        UnixTime::since_unix_epoch(std::time::Duration::from_secs(secs))
    }

    #[test]
    fn times_are_rfc3339_and_no_rust_structure_shows() {
        let expired = webpki::Error::CertExpired {
            time: unix(1_800_000_000),
            not_after: unix(1_700_000_000),
        };
        assert_eq!(
            describe(&expired),
            "a certificate of the chain expired at 2023-11-14T22:13:20Z (checked at 2027-01-15T08:00:00Z)"
        );
        let crl = webpki::Error::CrlExpired {
            time: unix(1_800_000_000),
            next_update: unix(1_700_000_000),
        };
        assert_eq!(
            describe(&crl),
            "a CRL expired at 2023-11-14T22:13:20Z (its nextUpdate; checked at 2027-01-15T08:00:00Z)"
        );
        assert_eq!(describe(&webpki::Error::CertRevoked), "a certificate of the chain is revoked");
    }

    #[test]
    fn other_variants_are_named_in_words() {
        assert_eq!(describe(&webpki::Error::UnsupportedCrlVersion), "unsupported CRL version");
        assert_eq!(describe(&webpki::Error::UnsupportedDeltaCrl), "unsupported delta CRL");
        assert_eq!(describe(&webpki::Error::CaUsedAsEndEntity), "CA used as end entity");
        assert_eq!(variant_in_words("EmptyEkuExtension"), "empty EKU extension");
        assert_eq!(variant_in_words("BadDer"), "bad DER");
        assert_eq!(variant_in_words("Thing { a: 1 }"), "thing");
        let text = describe(&webpki::Error::TrailingData(webpki::DerTypeId::Certificate));
        assert_eq!(text, "trailing data");
    }
}
