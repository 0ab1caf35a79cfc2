//! A checksum on every stored value, so that a value altered on disk after it was written
//! (a flipped bit, a page overwritten by something else) is refused instead of served.
//!
//! redb verifies its own pages only when a file is opened with its integrity check; this
//! check is end to end: it covers the object's key, its revision and its JSON, so a value
//! that is intact but sits under the wrong key or revision is refused too.

use ring::digest::{Context, SHA256};

use crate::api::Key;

/// How many bytes of the SHA-256 digest are kept in front of each value: 64 bits make an
/// undetected random change vanishingly unlikely and cost 8 bytes per object.
pub(crate) const LEN: usize = 8;

/// The digest prefix of one stored value.
fn digest(key: &Key, revision: u64, json: &[u8]) -> [u8; LEN] {
    let mut context = Context::new(&SHA256);
    // Each part is length-prefixed so that no two different keys hash the same bytes.
    for part in [&key.group, &key.resource, &key.namespace, &key.name] {
        context.update(&(part.len() as u64).to_le_bytes());
        context.update(part.as_bytes());
    }
    context.update(&revision.to_le_bytes());
    context.update(json);
    let mut prefix = [0u8; LEN];
    prefix.copy_from_slice(&context.finish().as_ref()[..LEN]);
    prefix
}

/// The bytes to store: the checksum, then the JSON.
pub(crate) fn seal(key: &Key, revision: u64, json: &[u8]) -> Vec<u8> {
    let mut sealed = Vec::with_capacity(LEN + json.len());
    sealed.extend_from_slice(&digest(key, revision, json));
    sealed.extend_from_slice(json);
    sealed
}

/// The JSON of a stored value whose checksum matches; `None` when it does not (or the
/// value is too short to hold one).
pub(crate) fn open<'a>(key: &Key, revision: u64, sealed: &'a [u8]) -> Option<&'a [u8]> {
    let (stored, json) = sealed.split_at_checked(LEN)?;
    (stored == digest(key, revision, json)).then_some(json)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(name: &str) -> Key {
        Key {
            group: String::new(),
            resource: "secrets".to_owned(),
            namespace: "default".to_owned(),
            name: name.to_owned(),
        }
    }

    #[test]
    fn a_sealed_value_opens_to_its_json() {
        let sealed = seal(&key("a"), 3, b"{}");
        assert_eq!(open(&key("a"), 3, &sealed), Some(&b"{}"[..]));
    }

    #[test]
    fn any_change_to_the_value_key_or_revision_is_refused() {
        let sealed = seal(&key("a"), 3, br#"{"x":1}"#);
        for index in 0..sealed.len() {
            let mut flipped = sealed.clone();
            flipped[index] ^= 0x01;
            assert_eq!(open(&key("a"), 3, &flipped), None, "byte {index}");
        }
        assert_eq!(open(&key("b"), 3, &sealed), None);
        assert_eq!(open(&key("a"), 4, &sealed), None);
        assert_eq!(open(&key("a"), 3, &sealed[..LEN - 1]), None);
    }
}
