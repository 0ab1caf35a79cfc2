//! What to do with the CA Secret as found: use it as it is, or write new contents (create the
//! Secret, replace an unusable or ageing CA, or tidy the bundle). The caller writes with the
//! API server arbitrating between replicas (create, or update on the read resourceVersion),
//! and on a conflict reads the winner's Secret and plans again.

use std::time::{Duration, SystemTime};

use super::TLS_CRT;
use super::bundle::Bundle;
use super::certs::{self, CaCertificate};
use super::error::{GenerateError, InvalidCa};
use super::generate::generate_ca;
use super::secret::{Authority, CaSecretData};
use certgate_clock::rfc3339;

/// The decision for the CA Secret.
#[derive(Debug)]
pub enum CaPlan {
    /// The Secret is fine as it is.
    Use(Authority),
    /// Write `authority.contents()` to the Secret (creating it when there was none), then
    /// use it.
    Write { authority: Authority, reason: WriteReason },
}

/// Why the Secret is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteReason {
    /// There is no Secret yet: a new CA.
    Missing,
    /// The Secret's CA cannot be used: a new CA. The previous certificates that still parse
    /// as CAs stay in the bundle until they expire.
    Invalid(InvalidCa),
    /// 2/3 of the CA's lifetime passed at `renew_at`: a new CA, the previous one kept in the
    /// bundle until it expires.
    RenewalDue { renew_at: SystemTime },
    /// The CA is fine but `ca.crt` is not the bundle it should be (missing, lacking the
    /// current CA, holding expired or unusable certificates): same CA, bundle rewritten.
    BundleOutdated,
}

impl WriteReason {
    /// Whether the CA itself is replaced (rather than the bundle alone).
    pub fn new_ca(&self) -> bool {
        !matches!(self, WriteReason::BundleOutdated)
    }
}

impl std::fmt::Display for WriteReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteReason::Missing => f.write_str("the Secret does not exist; creating a new CA"),
            WriteReason::Invalid(why) => {
                write!(f, "the Secret's CA is unusable ({why}); replacing it with a new CA")
            }
            WriteReason::RenewalDue { renew_at } => write!(
                f,
                "2/3 of the CA's lifetime passed at {}; renewing it (the previous CA stays in ca.crt until it expires)",
                rfc3339(*renew_at)
            ),
            WriteReason::BundleOutdated => {
                f.write_str("ca.crt is not the current bundle; rewriting it")
            }
        }
    }
}

/// Decides what to do with `secret` (`None`: there is none) at `now`; new CAs are valid for
/// `ca_duration`.
pub fn plan_ca(
    secret: Option<&CaSecretData<'_>>,
    now: SystemTime,
    ca_duration: Duration,
) -> Result<CaPlan, GenerateError> {
    let Some(data) = secret else {
        return fresh(now, ca_duration, Vec::new(), WriteReason::Missing);
    };
    let bundled = Authority::bundled(data);
    match Authority::read_ca(data, now) {
        Err(invalid) => {
            // Whatever still reads as a CA may have signed leaves that are being served.
            let mut previous: Vec<CaCertificate> = data
                .tls_crt
                .map(|bytes| certs::lenient_cas(TLS_CRT, bytes).into_iter().take(1).collect())
                .unwrap_or_default();
            previous.extend(bundled);
            fresh(now, ca_duration, previous, WriteReason::Invalid(invalid))
        }
        Ok((ca, _)) if ca.validity.renewal_due(now) => {
            let renew_at = ca.validity.renew_at();
            let previous = std::iter::once(ca).chain(bundled).collect();
            fresh(now, ca_duration, previous, WriteReason::RenewalDue { renew_at })
        }
        Ok((ca, key_pem)) => {
            let bundle = Bundle::assemble(&ca, bundled, now);
            let authority = Authority::new(ca, key_pem, bundle);
            if data.ca_crt == Some(authority.bundle().pem().as_bytes()) {
                Ok(CaPlan::Use(authority))
            } else {
                Ok(CaPlan::Write { authority, reason: WriteReason::BundleOutdated })
            }
        }
    }
}

fn fresh(
    now: SystemTime,
    ca_duration: Duration,
    previous: Vec<CaCertificate>,
    reason: WriteReason,
) -> Result<CaPlan, GenerateError> {
    let generated = generate_ca(now, ca_duration)?;
    let ca = certs::first_ca(TLS_CRT, generated.cert_pem.as_bytes())
        .map_err(|source| GenerateError::Unreadable { source })?;
    let bundle = Bundle::assemble(&ca, previous, now);
    Ok(CaPlan::Write { authority: Authority::new(ca, generated.key_pem, bundle), reason })
}

#[cfg(test)]
mod tests {
    use std::time::UNIX_EPOCH;

    use super::*;
    use crate::dynamic_serving::secret::CaSecretContents;

    const HOUR: Duration = Duration::from_secs(3_600);
    const YEAR: Duration = Duration::from_secs(8_760 * 3_600);

    fn t0() -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(1_800_000_000)
    }

    fn plan(contents: Option<&CaSecretContents>, now: SystemTime) -> CaPlan {
        plan_ca(contents.map(CaSecretContents::as_data).as_ref(), now, YEAR).unwrap()
    }

    fn written(plan: CaPlan) -> (Authority, WriteReason) {
        match plan {
            CaPlan::Write { authority, reason } => (authority, reason),
            CaPlan::Use(authority) => panic!("expected a write, got Use({authority:?})"),
        }
    }

    fn used(plan: CaPlan) -> Authority {
        match plan {
            CaPlan::Use(authority) => authority,
            CaPlan::Write { reason, .. } => panic!("expected Use, got a write: {reason}"),
        }
    }

    fn serials(authority: &Authority) -> Vec<String> {
        authority.bundle().certificates().iter().map(|c| c.serial.clone()).collect()
    }

    #[test]
    fn creates_a_ca_then_uses_it_as_written() {
        let (created, reason) = written(plan(None, t0()));
        assert_eq!(reason, WriteReason::Missing);
        assert_eq!(serials(&created), [created.serial().to_owned()]);
        let contents = created.contents();
        assert_eq!(contents.ca_crt, contents.tls_crt);
        let again = used(plan(Some(&contents), t0() + HOUR));
        assert_eq!(again.contents(), contents);
    }

    #[test]
    fn a_replica_losing_the_creation_race_uses_the_winners_ca() {
        let (winner, _) = written(plan(None, t0()));
        let (loser, _) = written(plan(None, t0()));
        assert_ne!(winner.serial(), loser.serial());
        // The loser's create got 409 AlreadyExists; it reads the winner's Secret.
        let read = used(plan(Some(&winner.contents()), t0()));
        assert_eq!(read.serial(), winner.serial());
    }

    #[test]
    fn renews_at_two_thirds_and_keeps_the_previous_ca_until_it_expires() {
        let (first, _) = written(plan(None, t0()));
        let first_contents = first.contents();
        let renew_at = first.validity().renew_at();
        used(plan(Some(&first_contents), renew_at - Duration::from_secs(1)));

        let (second, reason) = written(plan(Some(&first_contents), renew_at));
        assert_eq!(reason, WriteReason::RenewalDue { renew_at });
        assert!(reason.new_ca());
        assert_eq!(serials(&second), [second.serial().to_owned(), first.serial().to_owned()]);
        assert_eq!(
            second.contents().ca_crt,
            format!("{}{}", second.contents().tls_crt, first_contents.tls_crt)
        );

        // Other replicas read it and keep it as it is while the previous CA is valid.
        let second_contents = second.contents();
        let previous_expiry = first.validity().not_after;
        used(plan(Some(&second_contents), previous_expiry));

        // Once the previous CA expired, the bundle is tidied; the CA stays.
        let (tidied, reason) =
            written(plan(Some(&second_contents), previous_expiry + Duration::from_secs(1)));
        assert_eq!(reason, WriteReason::BundleOutdated);
        assert!(!reason.new_ca());
        assert_eq!(tidied.serial(), second.serial());
        assert_eq!(tidied.contents().ca_crt, second_contents.tls_crt);
        assert_eq!(tidied.contents().tls_key, second_contents.tls_key);
    }

    #[test]
    fn repairs_a_bundle_that_lacks_the_current_ca() {
        let (ca, _) = written(plan(None, t0()));
        let (other, _) = written(plan(None, t0()));
        let mut contents = ca.contents();
        contents.ca_crt = other.contents().tls_crt;
        let (repaired, reason) = written(plan(Some(&contents), t0()));
        assert_eq!(reason, WriteReason::BundleOutdated);
        assert_eq!(repaired.serial(), ca.serial());
        // The foreign CA stays until it expires: it may be what clients hold.
        assert_eq!(serials(&repaired), [ca.serial().to_owned(), other.serial().to_owned()]);
    }

    #[test]
    fn replaces_an_unusable_ca_and_keeps_what_still_reads_as_one() {
        let (ca, _) = written(plan(None, t0()));
        let (other, _) = written(plan(None, t0()));
        let mut contents = ca.contents();
        contents.tls_key = other.contents().tls_key;
        let (replaced, reason) = written(plan(Some(&contents), t0()));
        assert_eq!(reason, WriteReason::Invalid(InvalidCa::KeyMismatch));
        assert_eq!(
            reason.to_string(),
            "the Secret's CA is unusable (tls.key does not belong to the certificate in tls.crt); replacing it with a new CA"
        );
        assert_ne!(replaced.serial(), ca.serial());
        assert_eq!(serials(&replaced), [replaced.serial().to_owned(), ca.serial().to_owned()]);
    }

    #[test]
    fn replaces_an_expired_ca_without_keeping_it() {
        let (ca, _) = written(plan(None, t0()));
        let after = ca.validity().not_after + Duration::from_secs(1);
        let (replaced, reason) = written(plan(Some(&ca.contents()), after));
        assert!(matches!(reason, WriteReason::Invalid(InvalidCa::Expired { .. })), "{reason}");
        assert_eq!(serials(&replaced), [replaced.serial().to_owned()]);
    }

    #[test]
    fn hostile_or_corrupt_secrets_are_replaced_never_trusted() {
        let (ca, _) = written(plan(None, t0()));
        let good = ca.contents();
        let leaf = rcgen::generate_simple_self_signed(vec!["evil.example".to_owned()]).unwrap();
        let huge = "A".repeat(1 << 20);
        let (leaf_pem, leaf_key) = (leaf.cert.pem(), leaf.signing_key.serialize_pem());
        let cases: Vec<(&str, CaSecretData<'_>)> = vec![
            ("empty", CaSecretData::default()),
            (
                "only ca.crt",
                CaSecretData { ca_crt: Some(good.ca_crt.as_bytes()), ..Default::default() },
            ),
            (
                "binary",
                CaSecretData {
                    tls_crt: Some(b"\x00\xff\x10"),
                    tls_key: Some(b"\x00"),
                    ca_crt: Some(b"\xff"),
                },
            ),
            (
                "leaf as CA",
                CaSecretData {
                    tls_crt: Some(leaf_pem.as_bytes()),
                    tls_key: Some(leaf_key.as_bytes()),
                    ca_crt: Some(leaf_pem.as_bytes()),
                },
            ),
            (
                "huge",
                CaSecretData {
                    tls_crt: Some(huge.as_bytes()),
                    tls_key: Some(huge.as_bytes()),
                    ca_crt: Some(huge.as_bytes()),
                },
            ),
            (
                "key in tls.crt",
                CaSecretData {
                    tls_crt: Some(good.tls_key.as_bytes()),
                    tls_key: Some(good.tls_crt.as_bytes()),
                    ca_crt: None,
                },
            ),
        ];
        for (name, data) in cases {
            let (replaced, reason) = match plan_ca(Some(&data), t0(), YEAR).unwrap() {
                CaPlan::Write { authority, reason } => (authority, reason),
                CaPlan::Use(_) => panic!("{name}: used"),
            };
            assert!(matches!(reason, WriteReason::Invalid(_)), "{name}: {reason}");
            assert_ne!(replaced.serial(), ca.serial(), "{name}");
            // Only CA certificates ever reach the bundle.
            assert!(
                replaced.bundle().certificates().iter().all(|c| c.der != leaf.cert.der().to_vec()),
                "{name}"
            );
        }
    }

    #[test]
    fn mutated_secrets_never_panic() {
        let (ca, _) = written(plan(None, t0()));
        let good = ca.contents();
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..200 {
            let mut fields = [
                good.tls_crt.clone().into_bytes(),
                good.tls_key.clone().into_bytes(),
                good.ca_crt.clone().into_bytes(),
            ];
            let field = &mut fields[(next() % 3) as usize];
            for _ in 0..=(next() % 4) {
                let at = (next() as usize) % field.len();
                field[at] = next() as u8;
            }
            if round % 7 == 0 {
                let at = (next() as usize) % field.len();
                field.truncate(at);
            }
            let data = CaSecretData {
                tls_crt: Some(&fields[0]),
                tls_key: Some(&fields[1]),
                ca_crt: Some(&fields[2]),
            };
            plan_ca(Some(&data), t0(), YEAR).unwrap_or_else(|err| panic!("round {round}: {err}"));
        }
    }

    #[test]
    fn reasons_read_well() {
        let reason = WriteReason::RenewalDue { renew_at: t0() };
        assert_eq!(
            reason.to_string(),
            "2/3 of the CA's lifetime passed at 2027-01-15T08:00:00Z; renewing it (the previous CA stays in ca.crt until it expires)"
        );
        assert_eq!(
            WriteReason::Missing.to_string(),
            "the Secret does not exist; creating a new CA"
        );
        let _ = HOUR;
    }
}
