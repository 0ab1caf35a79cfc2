//! PEM encoding as Go's `pem.Encode` writes a block without headers: 64-column base64 lines
//! and a trailing newline, the form cert-manager, sprig and Kubernetes tooling emit.

use base64::Engine as _;

/// One PEM block of type `label` around `der`.
pub fn encode(label: &str, der: &[u8]) -> String {
    let text = base64::engine::general_purpose::STANDARD.encode(der);
    let mut pem = String::with_capacity(text.len() + text.len() / 64 + 2 * label.len() + 40);
    pem.push_str("-----BEGIN ");
    pem.push_str(label);
    pem.push_str("-----\n");
    for line in text.as_bytes().chunks(64) {
        // base64 output is ASCII.
        pem.push_str(std::str::from_utf8(line).unwrap_or_default());
        pem.push('\n');
    }
    pem.push_str("-----END ");
    pem.push_str(label);
    pem.push_str("-----\n");
    pem
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_64_columns_and_decode_back() {
        let der: Vec<u8> = (0..=255).collect();
        let pem = encode("CERTIFICATE", &der);
        let lines: Vec<&str> = pem.lines().collect();
        assert_eq!(lines.first(), Some(&"-----BEGIN CERTIFICATE-----"));
        assert_eq!(lines.last(), Some(&"-----END CERTIFICATE-----"));
        assert!(lines[1..lines.len() - 1].iter().all(|l| l.len() <= 64));
        assert_eq!(lines[1].len(), 64);
        assert!(pem.ends_with("-----\n"));
        let (block, rest) = super::super::decode(pem.as_bytes()).unwrap();
        assert_eq!((block.label, block.der, rest), (&b"CERTIFICATE"[..], der, &b""[..]));
        assert_eq!(encode("X", b""), "-----BEGIN X-----\n-----END X-----\n");
    }
}
