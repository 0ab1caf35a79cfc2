//! Which Secret changes make Contour rebuild its configuration (spec §4.3), so watchers can
//! reproduce CRL rotation (#5463): a Secret matters if it has a `ca.crt` key at all, or if a
//! root proxy names it in `tls.secretName` or `clientValidation.crlSecret` (delegation is not
//! checked here; access is checked when the Secret is used).

use crate::delegation::NamespacedName;
use crate::secrets::CA_CERTIFICATE_KEY;
use crate::types::{HttpProxy, Secret};

/// Whether inserting, updating or deleting `secret` would trigger a rebuild for these proxies.
/// Only HTTPProxy references are considered (Ingress, Gateway and configuration-file
/// references are outside this crate).
pub fn secret_triggers_rebuild(secret: &Secret, proxies: &[HttpProxy]) -> bool {
    if secret.data.contains_key(CA_CERTIFICATE_KEY) {
        return true;
    }
    let target = NamespacedName::new(&secret.namespace, &secret.name);
    proxies.iter().any(|proxy| {
        let Some(tls) = proxy.spec.virtualhost.as_ref().and_then(|vh| vh.tls.as_ref()) else {
            return false;
        };
        let ns = proxy.namespace();
        if NamespacedName::from_reference(tls.secret_name(), ns) == target {
            return true;
        }
        tls.client_validation
            .as_ref()
            .is_some_and(|cv| NamespacedName::from_reference(cv.crl_secret(), ns) == target)
    })
}
