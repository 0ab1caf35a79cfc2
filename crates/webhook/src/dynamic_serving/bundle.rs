//! The CA bundle (`ca.crt`, and every webhook configuration's `caBundle`): the current CA
//! first, then the previous CAs until they expire, so a client still holding an older bundle
//! and a replica still serving a leaf of the previous CA keep working through a rotation.

use std::time::SystemTime;

use super::certs::CaCertificate;

/// The most certificates a bundle holds. With renewal at 2/3 of the lifetime a bundle
/// normally holds two; the cap only bounds what a Secret written by others can make us keep.
pub const MAX_BUNDLE: usize = 8;

/// An ordered, duplicate-free list of CA certificates, the current one first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bundle {
    certificates: Vec<CaCertificate>,
}

impl Bundle {
    /// `current`, then each of `previous` that has not expired at `now` and is not already
    /// in, in the given order, at most [`MAX_BUNDLE`] in all.
    pub fn assemble(
        current: &CaCertificate,
        previous: impl IntoIterator<Item = CaCertificate>,
        now: SystemTime,
    ) -> Self {
        let mut certificates = vec![current.clone()];
        for ca in previous {
            if certificates.len() == MAX_BUNDLE {
                break;
            }
            if ca.validity.expired(now) || certificates.iter().any(|c| c.der == ca.der) {
                continue;
            }
            certificates.push(ca);
        }
        Self { certificates }
    }

    pub fn certificates(&self) -> &[CaCertificate] {
        &self.certificates
    }

    /// Whether the bundle holds exactly this certificate.
    pub fn contains(&self, der: &[u8]) -> bool {
        self.certificates.iter().any(|c| c.der == der)
    }

    /// The latest `notBefore` of the bundle's certificates: how recent its newest CA is.
    pub fn newest_not_before(&self) -> SystemTime {
        self.certificates
            .iter()
            .map(|c| c.validity.not_before)
            .max()
            .unwrap_or(SystemTime::UNIX_EPOCH)
    }

    /// The PEM text: one block per certificate, in order.
    pub fn pem(&self) -> String {
        self.certificates.iter().map(CaCertificate::pem).collect()
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, UNIX_EPOCH};

    use super::*;
    use crate::dynamic_serving::validity::Validity;

    fn ca(id: u8, not_before: u64, not_after: u64) -> CaCertificate {
        CaCertificate {
            der: vec![id],
            validity: Validity {
                not_before: UNIX_EPOCH + Duration::from_secs(not_before),
                not_after: UNIX_EPOCH + Duration::from_secs(not_after),
            },
            serial: id.to_string(),
            public_key: vec![id],
        }
    }

    fn ids(bundle: &Bundle) -> Vec<u8> {
        bundle.certificates().iter().map(|c| c.der[0]).collect()
    }

    #[test]
    fn keeps_the_previous_cas_until_they_expire() {
        let now = UNIX_EPOCH + Duration::from_secs(500);
        let current = ca(1, 400, 1_000);
        let previous = [ca(2, 100, 700), ca(3, 0, 499), ca(1, 400, 1_000), ca(2, 100, 700)];
        let bundle = Bundle::assemble(&current, previous, now);
        assert_eq!(ids(&bundle), [1, 2]);
        assert_eq!(bundle.newest_not_before(), UNIX_EPOCH + Duration::from_secs(400));
        assert!(bundle.contains(&[2]));
        assert!(!bundle.contains(&[3]));
        let later = Bundle::assemble(
            &current,
            bundle.certificates().to_vec(),
            now + Duration::from_secs(201),
        );
        assert_eq!(ids(&later), [1]);
    }

    #[test]
    fn is_bounded() {
        let now = UNIX_EPOCH;
        let previous = (2..40).map(|id| ca(id, 0, 10));
        let bundle = Bundle::assemble(&ca(1, 0, 10), previous, now);
        assert_eq!(bundle.certificates().len(), MAX_BUNDLE);
        assert_eq!(ids(&bundle)[..3], [1, 2, 3]);
    }
}
