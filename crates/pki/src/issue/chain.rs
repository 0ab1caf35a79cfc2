//! The chain and CA cert-manager returns for a CA-signed certificate
//! (`ParseSingleCertificateChain` in pkg/util/pki/parse_certificate_chain.go): the CA's
//! certificates plus the new one, de-duplicated, must link into exactly one chain by issuer
//! name and signature. The chain runs from the leaf up to the highest certificate that is
//! not self-signed; the CA is the top of the chain (its root when self-signed).

use super::SigningError;
use super::certificate::Certificate;
use crate::pem;

/// cert-manager refuses more unique certificates than this.
const MAX_CERTIFICATES: usize = 1000;

/// PEM of the chain (`status.certificate`) and of the CA (`status.ca`, empty when the chain
/// has no self-signed root and only one certificate).
pub(super) struct Bundle {
    pub(super) chain_pem: String,
    pub(super) ca_pem: String,
}

pub(super) fn bundle(certificates: &[&Certificate]) -> Result<Bundle, SigningError> {
    let mut unique: Vec<&Certificate> = certificates.to_vec();
    unique.sort_by(|a, b| a.der.cmp(&b.der));
    unique.dedup_by(|a, b| a.der == b.der);
    if unique.len() > MAX_CERTIFICATES {
        return Err(SigningError::ChainTooLong);
    }

    // issuer[i]: the node certificate i was linked to; chains hold the head of each list.
    let mut issuer: Vec<Option<usize>> = vec![None; unique.len()];
    let mut chains: Vec<usize> = (0..unique.len()).collect();
    // Merging joins two disjoint lists, so links never form a cycle; the walk is bounded
    // all the same.
    let root = |issuer: &[Option<usize>], mut node: usize| {
        for _ in 0..issuer.len() {
            match issuer[node] {
                Some(parent) => node = parent,
                None => break,
            }
        }
        node
    };
    while chains.len() > 1 {
        let Some(last) = chains.pop() else { break };
        let mut merged = false;
        for slot in chains.iter_mut() {
            let other = *slot;
            let other_root = root(&issuer, other);
            if links(unique[other_root], unique[last]) {
                issuer[other_root] = Some(last);
                merged = true;
                break;
            }
            let last_root = root(&issuer, last);
            if links(unique[last_root], unique[other]) {
                issuer[last_root] = Some(other);
                *slot = last;
                merged = true;
                break;
            }
        }
        if !merged {
            return Err(SigningError::ChainBroken);
        }
    }

    let Some(&head) = chains.first() else {
        return Err(SigningError::ChainBroken);
    };
    let mut chain: Vec<&Certificate> = Vec::new();
    let mut node = head;
    let mut steps = 0usize;
    let ca = loop {
        steps += 1;
        match issuer[node].filter(|_| steps <= unique.len()) {
            Some(parent) => {
                chain.push(unique[node]);
                node = parent;
            }
            None => {
                let top = unique[node];
                if !chain.is_empty() && !is_self_signed(top) {
                    chain.push(top);
                }
                break top;
            }
        }
    };
    let ca_pem = pem::encode("CERTIFICATE", &ca.der);
    if chain.is_empty() {
        let ca_pem_if_root = if is_self_signed(ca) { ca_pem.clone() } else { String::new() };
        return Ok(Bundle { chain_pem: ca_pem, ca_pem: ca_pem_if_root });
    }
    // Self-signed certificates are left out of the chain (`EncodeX509Chain`).
    let chain_pem = chain
        .iter()
        .filter(|certificate| !is_self_signed(certificate))
        .map(|certificate| pem::encode("CERTIFICATE", &certificate.der))
        .collect();
    Ok(Bundle { chain_pem, ca_pem })
}

/// `child`'s issuer is `parent`'s subject and `parent` signed it.
fn links(child: &Certificate, parent: &Certificate) -> bool {
    child.issuer == parent.subject && child.is_signed_by(parent)
}

fn is_self_signed(certificate: &Certificate) -> bool {
    certificate.is_signed_by(certificate)
}
