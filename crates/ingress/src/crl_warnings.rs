//! certgate's deeper checks of one CRL Secret Contour accepted, as warnings: what
//! `certgate crl check` prints and what the edge controller publishes as `CRLWarning` events.
//! certgate-crl does the checks (CRL DER, signatures against the CA Secret's `ca.crt`, expiry,
//! coverage of every CA in the proxy's mode); this is the one place they are framed for an
//! HTTPProxy. None of them changes a status: Contour checks none of this.
//!
//! Clients may send intermediates that `ca.crt` lacks (often it holds only the root), and
//! Envoy uses a CRL from such an intermediate. What cannot be known offline is reported as
//! such: a CRL whose issuer is outside `ca.crt` gets advice (its signature is unverifiable
//! here, it applies only if clients send that intermediate), never a claim that it is unused.

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

#[cfg(test)]
mod tests {
    use certgate_crl::{Cert, Verdict, evaluate};
    use rcgen::{
        BasicConstraints, CertificateParams, CertificateRevocationListParams, DnType,
        ExtendedKeyUsagePurpose, IsCa, Issuer, KeyIdMethod, KeyPair, KeyUsagePurpose,
        RevocationReason, RevokedCertParams, SerialNumber, date_time_ymd,
    };

    use super::*;

    /// 2027-01-15T08:00:00Z: inside every validity window below, and more than 7 days
    /// before any CRL's nextUpdate.
    fn now() -> Timestamp {
        Timestamp::from_unix(1_800_000_000)
    }

    struct Ca {
        params: CertificateParams,
        key: KeyPair,
        pem: String,
        der: Vec<u8>,
    }

    impl Ca {
        fn issuer(&self) -> Issuer<'_, &KeyPair> {
            Issuer::from_params(&self.params, &self.key)
        }

        fn crl(&self, revoked: &[u64]) -> String {
            CertificateRevocationListParams {
                this_update: date_time_ymd(2027, 1, 1),
                next_update: date_time_ymd(2027, 3, 1),
                crl_number: SerialNumber::from(1),
                issuing_distribution_point: None,
                revoked_certs: revoked
                    .iter()
                    .map(|&serial| RevokedCertParams {
                        serial_number: SerialNumber::from(serial),
                        revocation_time: date_time_ymd(2027, 1, 1),
                        reason_code: Some(RevocationReason::KeyCompromise),
                        invalidity_date: None,
                    })
                    .collect(),
                key_identifier_method: KeyIdMethod::PreSpecified(
                    self.params.key_identifier(&self.key),
                ),
            }
            .signed_by(&self.issuer())
            .expect("crl")
            .pem()
            .expect("crl pem")
        }
    }

    fn params(cn: &str, serial: u64) -> CertificateParams {
        let mut p = CertificateParams::new(Vec::<String>::new()).expect("params");
        p.distinguished_name.push(DnType::CommonName, cn);
        p.distinguished_name.push(DnType::OrganizationName, "certgate tests");
        p.not_before = date_time_ymd(2026, 1, 1);
        p.not_after = date_time_ymd(2036, 1, 1);
        p.serial_number = Some(SerialNumber::from(serial));
        p
    }

    fn ca(cn: &str, serial: u64, parent: Option<&Ca>) -> Ca {
        let mut params = params(cn, serial);
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let key = KeyPair::generate().expect("key");
        let cert = match parent {
            None => params.self_signed(&key),
            Some(parent) => params.signed_by(&key, &parent.issuer()),
        }
        .expect("ca");
        Ca { pem: cert.pem(), der: cert.der().to_vec(), params, key }
    }

    fn client(cn: &str, serial: u64, parent: &Ca) -> Cert {
        let mut p = params(cn, serial);
        p.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        p.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        let key = KeyPair::generate().expect("key");
        let cert = p.signed_by(&key, &parent.issuer()).expect("client");
        Cert::from_der(cert.der().to_vec()).expect("client cert")
    }

    /// root → intermediate → {good client (serial 0x10), revoked client (serial 0x11)}.
    struct Pki {
        root: Ca,
        inter: Ca,
        good: Cert,
        revoked: Cert,
    }

    fn pki() -> Pki {
        let root = ca("root-ca", 1, None);
        let inter = ca("sub-ca", 2, Some(&root));
        let good = client("good", 0x10, &inter);
        let revoked = client("revoked", 0x11, &inter);
        Pki { root, inter, good, revoked }
    }

    fn warnings(crl_pem: &str, ca_crt: Option<&str>, only_verify_leaf: bool) -> Vec<String> {
        let secret = NamespacedName::new("default", "crl");
        crl_warnings(
            &ServedCrl {
                crl_secret: &secret,
                crl_pem: crl_pem.as_bytes(),
                ca_bundle: ca_crt.map(str::as_bytes),
                only_verify_leaf,
                skip_client_cert_validation: false,
            },
            now(),
        )
    }

    /// Envoy's verdict for `client` sending the intermediate in its handshake.
    fn envoy(pki: &Pki, client: &Cert, crl_pem: &str, ca_crt: &str, leaf_only: bool) -> Verdict {
        let limits = Limits::default();
        let cas = CaBundle::parse(ca_crt.as_bytes(), &limits).expect("cas");
        let crls = CrlBundle::parse(crl_pem.as_bytes(), &limits).expect("crls");
        let inter = Cert::from_der(pki.inter.der.clone()).expect("intermediate");
        let mode = RevocationMode::from_only_verify_leaf_cert_crl(leaf_only);
        evaluate(&[client.clone(), inter], &cas, &crls, mode, now()).envoy.verdict
    }

    fn assert_offline_advice(warning: &str) {
        assert!(warning.starts_with("CRL #1 (issuer O=certgate tests,CN=sub-ca)"), "{warning}");
        assert!(warning.contains("signature cannot be verified offline"), "{warning}");
        assert!(
            warning.contains("send O=certgate tests,CN=sub-ca in their handshake"),
            "{warning}"
        );
        assert!(warning.contains("keep it if they do"), "{warning}");
        assert!(!warning.contains("never uses it"), "{warning}");
    }

    fn is_missing_crl(warning: &str) -> bool {
        warning.contains("has no CRL")
    }

    /// ca.crt holds only the root, clients send the intermediate, crl.pem has the
    /// intermediate's and the root's CRL: Envoy accepts the good client and refuses the
    /// revoked one in both modes. The only warning is that the intermediate's CRL cannot be
    /// verified offline; nothing says it is unused or that a CRL is missing.
    #[test]
    fn root_only_bundle_with_intermediate_and_root_crls() {
        let pki = pki();
        let crl_pem = [pki.inter.crl(&[0x11]), pki.root.crl(&[])].concat();
        for leaf_only in [false, true] {
            let w = warnings(&crl_pem, Some(&pki.root.pem), leaf_only);
            assert_eq!(w.len(), 1, "leaf_only {leaf_only}: {w:#?}");
            assert_offline_advice(&w[0]);
            assert_eq!(
                envoy(&pki, &pki.good, &crl_pem, &pki.root.pem, leaf_only),
                Verdict::Accepted
            );
            assert_eq!(
                envoy(&pki, &pki.revoked, &crl_pem, &pki.root.pem, leaf_only),
                Verdict::Revoked
            );
        }
    }

    /// Same, without the root's CRL. Full chain: Envoy refuses every client (the root has no
    /// CRL), so the missing-CRL warning for the root stays. Leaf-only: Envoy serves the good
    /// client, so the root is not reported as a leaf issuer without a CRL.
    #[test]
    fn root_only_bundle_with_only_the_intermediate_crl() {
        let pki = pki();
        let crl_pem = pki.inter.crl(&[0x11]);
        let root = &pki.root.pem;

        let full = warnings(&crl_pem, Some(root), false);
        assert_eq!(full.len(), 2, "{full:#?}");
        assert_offline_advice(&full[0]);
        assert!(
            full[1].starts_with("CA #1 (O=certgate tests,CN=root-ca) has no CRL issued by it")
                && full[1].contains("full-chain"),
            "{}",
            full[1]
        );
        assert_eq!(envoy(&pki, &pki.good, &crl_pem, root, false), Verdict::UnknownCa);

        let leaf = warnings(&crl_pem, Some(root), true);
        assert_eq!(leaf.len(), 1, "{leaf:#?}");
        assert_offline_advice(&leaf[0]);
        assert!(!leaf.iter().any(|w| is_missing_crl(w)), "{leaf:#?}");
        assert_eq!(envoy(&pki, &pki.good, &crl_pem, root, true), Verdict::Accepted);
        assert_eq!(envoy(&pki, &pki.revoked, &crl_pem, root, true), Verdict::Revoked);
    }

    /// Unchanged: with both CAs in ca.crt and both CRLs nothing is reported; a missing CRL of
    /// a CA in ca.crt is still reported in both modes.
    #[test]
    fn bundle_with_both_cas_is_unchanged() {
        let pki = pki();
        let both = [pki.root.pem.as_str(), pki.inter.pem.as_str()].concat();
        let crls = [pki.root.crl(&[]), pki.inter.crl(&[0x11])].concat();
        assert_eq!(warnings(&crls, Some(&both), false), Vec::<String>::new());
        assert_eq!(warnings(&crls, Some(&both), true), Vec::<String>::new());

        let root_crl = pki.root.crl(&[]);
        let full = warnings(&root_crl, Some(&both), false);
        assert_eq!(full.len(), 1, "{full:#?}");
        assert!(
            full[0].starts_with("CA #2 (O=certgate tests,CN=sub-ca) has no CRL"),
            "{}",
            full[0]
        );
        let leaf = warnings(&root_crl, Some(&both), true);
        assert_eq!(leaf.len(), 1, "{leaf:#?}");
        assert!(
            leaf[0].starts_with("CA #2 (O=certgate tests,CN=sub-ca) issues no other CA"),
            "{}",
            leaf[0]
        );
        assert_eq!(envoy(&pki, &pki.good, &root_crl, &both, true), Verdict::UnknownCa);

        // Only the root's CRL for a root-only bundle: nothing outside ca.crt, so in leaf-only
        // mode the root is still assumed to issue clients, and it has its CRL.
        assert_eq!(warnings(&root_crl, Some(&pki.root.pem), true), Vec::<String>::new());
    }

    /// Without a CA Secret there is nothing to relate the CRL to: no issuer advice. With
    /// skipClientCertValidation the ACCEPT_UNTRUSTED warning comes first.
    #[test]
    fn no_ca_bundle_and_skip_validation() {
        let pki = pki();
        let crl_pem = pki.inter.crl(&[]);
        assert_eq!(warnings(&crl_pem, None, false), Vec::<String>::new());
        let secret = NamespacedName::new("default", "crl");
        let w = crl_warnings(
            &ServedCrl {
                crl_secret: &secret,
                crl_pem: crl_pem.as_bytes(),
                ca_bundle: Some(pki.root.pem.as_bytes()),
                only_verify_leaf: true,
                skip_client_cert_validation: true,
            },
            now(),
        );
        assert_eq!(w.len(), 2, "{w:#?}");
        assert!(w[0].starts_with("skipClientCertValidation is true"), "{}", w[0]);
        assert_offline_advice(&w[1]);
    }
}
