//! When the served CRLs stop being valid: for each CRL Secret a served virtual host uses, the
//! earliest `nextUpdate` of the CRLs in its `crl.pem`. Envoy refuses every client whose chain
//! needs a CRL past its `nextUpdate`, so this is the time by which a new CRL must be in the
//! Secret; exported as a timestamp gauge (alert on `value - time()`).
//!
//! Parsing a large CRL is linear in its entries, so the result is kept per Secret and reused
//! while the bytes are the same (compared by SHA-256); a rebuild caused by anything else does
//! not parse the CRLs again.

use std::collections::BTreeMap;

use certgate_crl::{CrlBundle, Limits};
use certgate_ingress::NamespacedName;
use certgate_ingress::secrets::CRL_KEY;

use super::decide::Inputs;

type Digest = [u8; 32];

/// The last result per CRL Secret.
#[derive(Debug, Default)]
pub struct NextUpdates {
    memo: BTreeMap<NamespacedName, (Digest, Option<i64>)>,
}

impl NextUpdates {
    /// The earliest `nextUpdate` (Unix seconds) of each of `served` that has one; Secrets no
    /// longer served are forgotten.
    pub fn update(
        &mut self,
        inputs: &Inputs,
        served: &[NamespacedName],
    ) -> BTreeMap<NamespacedName, i64> {
        let mut memo = BTreeMap::new();
        for name in served {
            let Some(pem) = inputs.secrets.get(name).and_then(|s| s.data.get(CRL_KEY)) else {
                continue;
            };
            let digest = digest(pem);
            let earliest = match self.memo.get(name) {
                Some((seen, earliest)) if *seen == digest => *earliest,
                _ => earliest_next_update(pem),
            };
            memo.insert(name.clone(), (digest, earliest));
        }
        self.memo = memo;
        self.memo
            .iter()
            .filter_map(|(name, (_, earliest))| earliest.map(|at| (name.clone(), at)))
            .collect()
    }
}

/// The earliest `nextUpdate` among the CRLs of a `crl.pem` that parse; `None` when none
/// parses or none has a `nextUpdate`.
pub fn earliest_next_update(pem: &[u8]) -> Option<i64> {
    let bundle = CrlBundle::parse(pem, &Limits::default()).ok()?;
    bundle.parsed().filter_map(|(_, crl)| crl.info().next_update).map(|t| t.unix()).min()
}

fn digest(bytes: &[u8]) -> Digest {
    let mut out = [0u8; 32];
    out.copy_from_slice(ring::digest::digest(&ring::digest::SHA256, bytes).as_ref());
    out
}

#[cfg(test)]
mod tests {
    use certgate_ingress::Secret;

    use super::*;

    #[test]
    fn a_secret_without_a_parsable_crl_has_no_next_update() {
        let name = NamespacedName { namespace: "ns".into(), name: "crl".into() };
        let mut inputs = Inputs::default();
        inputs.secrets.insert(
            name.clone(),
            Secret::new("ns", "crl", "Opaque").with_data(CRL_KEY, b"not a CRL".to_vec()),
        );
        let mut next = NextUpdates::default();
        assert!(next.update(&inputs, std::slice::from_ref(&name)).is_empty());
        assert_eq!(next.memo.len(), 1, "remembered, not parsed again");
        assert!(next.update(&inputs, &[]).is_empty());
        assert!(next.memo.is_empty(), "forgotten once no longer served");
    }
}
