//! certgate's deeper checks of one CRL Secret Contour accepted, as warnings: what
//! `certgate crl check` prints and what the edge controller publishes as `CRLWarning` events.
//! certgate-crl does the checks (CRL DER, signatures against the CA Secret's `ca.crt`, expiry,
//! coverage of every CA in the proxy's mode); this is the one place they are framed for an
//! HTTPProxy. None of them changes a status: Contour checks none of this.

use certgate_crl::{
    CaBundle, CheckOptions, CrlBundle, Limits, RevocationMode, Timestamp, Warning, check_bundle,
};

use crate::delegation::NamespacedName;

/// The client validation a CRL Secret is served with.
#[derive(Debug, Clone, Copy)]
pub struct ServedCrl<'a> {
    pub crl_secret: &'a NamespacedName,
    /// `crl.pem`, exactly as Envoy receives it.
    pub crl_pem: &'a [u8],
    /// The CA Secret's `ca.crt`, when one is attached.
    pub ca_bundle: Option<&'a [u8]>,
    /// `crlOnlyVerifyLeafCert`.
    pub only_verify_leaf: bool,
    /// `skipClientCertValidation` (Envoy's ACCEPT_UNTRUSTED).
    pub skip_client_cert_validation: bool,
}

/// The warnings for `served` at `now`.
pub fn crl_warnings(served: &ServedCrl<'_>, now: Timestamp) -> Vec<String> {
    let limits = Limits::default();
    let mut out = Vec::new();
    if served.skip_client_cert_validation {
        out.push(format!(
            "skipClientCertValidation is true: Envoy uses ACCEPT_UNTRUSTED, so clients are served even when CRL Secret {:?} says they are revoked; set it to false for the CRL to take effect",
            served.crl_secret.to_string()
        ));
    }
    let crls = match CrlBundle::parse(served.crl_pem, &limits) {
        Ok(crls) => crls,
        Err(error) => {
            out.push(format!("CRL Secret {:?}: {error}", served.crl_secret.to_string()));
            return out;
        }
    };
    let cas = match served.ca_bundle.map(|pem| CaBundle::parse(pem, &limits)) {
        None => None,
        Some(Ok(cas)) => Some(cas),
        Some(Err(error)) => {
            out.push(format!("CA bundle: {error}"));
            return out;
        }
    };
    let options = CheckOptions {
        mode: RevocationMode::from_only_verify_leaf_cert_crl(served.only_verify_leaf),
        ..CheckOptions::new(now)
    };
    let empty = CaBundle::default();
    out.extend(
        check_bundle(&crls, cas.as_ref().unwrap_or(&empty), &options)
            .iter()
            // Without a CA Secret there is no trusted CA to relate the CRLs to.
            .filter(|w| cas.is_some() || !matches!(w, Warning::IssuerNotInBundle { .. }))
            .map(ToString::to_string),
    );
    out
}
