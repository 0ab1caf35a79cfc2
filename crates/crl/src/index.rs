//! Serial-number index over a CRL's own DER buffer (see docs/decisions/0007-crl-index.md).
//!
//! Each revoked entry costs 16 bytes: a sort key (serial length in the top byte, then the
//! first 7 serial bytes) and the serial's offset and length in the DER. Most comparisons are
//! one `u64` compare; only serials sharing length and first 7 bytes touch the buffer. No
//! serial is copied, which is what keeps a million-entry CRL far below OpenSSL's memory.

use std::cmp::Ordering;

/// Longest serial accepted in an index (RFC 5280 allows 20 octets; real CAs stay below 21,
/// but BoringSSL and OpenSSL accept longer ones, so a generous bound is kept).
pub const MAX_SERIAL_LEN: usize = 126;

#[derive(Debug, Clone, Copy)]
struct Slot {
    key: u64,
    /// Offset of the minimal serial bytes in the DER.
    off: u32,
    len: u8,
    /// Bytes from the entry's SEQUENCE start to the serial (to reparse details lazily).
    back: u8,
}

fn key_of(serial: &[u8]) -> u64 {
    let mut k = [0u8; 8];
    k[0] = u8::try_from(serial.len()).unwrap_or(u8::MAX);
    for (dst, src) in k.iter_mut().skip(1).zip(serial) {
        *dst = *src;
    }
    u64::from_be_bytes(k)
}

/// Sorted serial index of one CRL. Serials are minimal DER INTEGER contents, ordered by
/// (length, bytes): the order itself is irrelevant, only equality matters.
#[derive(Debug, Clone, Default)]
pub struct SerialIndex {
    slots: Vec<Slot>,
}

impl SerialIndex {
    pub(crate) fn with_capacity(n: usize) -> Self {
        SerialIndex { slots: Vec::with_capacity(n) }
    }

    /// `serial` must be a subslice of `der` starting at `off`.
    pub(crate) fn push(&mut self, serial: &[u8], off: usize, back: usize) -> bool {
        let (Ok(off), Ok(len), Ok(back)) =
            (u32::try_from(off), u8::try_from(serial.len()), u8::try_from(back))
        else {
            return false;
        };
        self.slots.push(Slot { key: key_of(serial), off, len, back });
        true
    }

    pub(crate) fn finish(&mut self, der: &[u8]) {
        let cmp = |a: &Slot, b: &Slot| compare(der, a, b);
        // CAs often emit entries in serial order already; checking is linear and saves the sort.
        if !self.slots.windows(2).all(|w| matches!(w, [a, b] if cmp(a, b) != Ordering::Greater)) {
            self.slots.sort_unstable_by(cmp);
        }
        self.slots.shrink_to_fit();
    }

    /// Number of indexed entries.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether no entry is indexed.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Heap bytes used by the index itself (the DER buffer is owned by the CRL).
    pub fn heap_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<Slot>()
    }

    /// Finds a minimal serial; returns (serial offset, entry offset).
    pub(crate) fn find(&self, der: &[u8], serial: &[u8]) -> Option<(usize, usize)> {
        let key = key_of(serial);
        let i = self
            .slots
            .binary_search_by(|s| {
                s.key.cmp(&key).then_with(|| tail(der, s).cmp(serial.get(7..).unwrap_or_default()))
            })
            .ok()?;
        let s = self.slots.get(i)?;
        let off = s.off as usize;
        Some((off, off.checked_sub(usize::from(s.back))?))
    }

    /// Whether two entries share a serial (first duplicate found), for diagnostics.
    pub(crate) fn has_duplicates(&self, der: &[u8]) -> bool {
        self.slots.windows(2).any(|w| matches!(w, [a, b] if compare(der, a, b) == Ordering::Equal))
    }
}

fn tail<'a>(der: &'a [u8], s: &Slot) -> &'a [u8] {
    let off = s.off as usize;
    der.get(off + 7.min(usize::from(s.len))..off + usize::from(s.len)).unwrap_or_default()
}

fn compare(der: &[u8], a: &Slot, b: &Slot) -> Ordering {
    a.key.cmp(&b.key).then_with(|| tail(der, a).cmp(tail(der, b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_long_and_short_serials() {
        let der: Vec<u8> = (0u8..=255).collect();
        let mut idx = SerialIndex::default();
        // Serials are windows of the buffer: [10..30), [40..42), [10..29).
        assert!(idx.push(der.get(10..30).unwrap(), 10, 0));
        assert!(idx.push(der.get(40..42).unwrap(), 40, 2));
        assert!(idx.push(der.get(10..29).unwrap(), 10, 0));
        idx.finish(&der);
        assert_eq!(idx.find(&der, &der[40..42]), Some((40, 38)));
        assert_eq!(idx.find(&der, &der[10..30]), Some((10, 10)));
        assert_eq!(idx.find(&der, &der[10..29]), Some((10, 10)));
        assert_eq!(idx.find(&der, &der[11..30]), None);
        assert!(!idx.has_duplicates(&der));
    }
}
