//! DER building blocks for unit tests that hand-craft structures rcgen cannot produce.

/// A TLV with a short-form length, or the two-byte long form for 128..=65535 bytes.
pub(crate) fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    match u8::try_from(content.len()) {
        Ok(len) if len < 0x80 => out.push(len),
        _ => {
            let len = u16::try_from(content.len()).expect("test content under 64 KiB");
            out.push(0x82);
            out.extend_from_slice(&len.to_be_bytes());
        }
    }
    out.extend_from_slice(content);
    out
}
