//! Writing DER: enough for the few structures certgate builds by hand (sprig's SEC1 and
//! PKCS#8 key conversions, test fixtures).

/// A TLV with a minimal definite length.
pub fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
    let len = content.len();
    let mut out = Vec::with_capacity(content.len() + 6);
    out.push(tag);
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes = len.to_be_bytes();
        let skip = bytes.iter().take_while(|b| **b == 0).count();
        let significant = bytes.get(skip..).unwrap_or_default();
        out.push(0x80 | significant.len() as u8);
        out.extend_from_slice(significant);
    }
    out.extend_from_slice(content);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_are_minimal() {
        assert_eq!(tlv(0x04, &[1, 2]), [0x04, 0x02, 1, 2]);
        assert_eq!(tlv(0x04, &[0; 0x80])[..3], [0x04, 0x81, 0x80]);
        assert_eq!(tlv(0x04, &[0; 0x100])[..4], [0x04, 0x82, 0x01, 0x00]);
        assert_eq!(tlv(0x30, &[]), [0x30, 0x00]);
    }
}
