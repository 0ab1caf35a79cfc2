//! Writing the CA bundle into a Mutating- or ValidatingWebhookConfiguration, as cert-manager's
//! cainjector does: `webhooks[*].clientConfig.caBundle` (base64 of the PEM) of every webhook.
//!
//! The object is handled as JSON so fields this build does not know survive the update.

use base64::Engine;
use serde_json::{Map, Value};

use super::bundle::Bundle;
use super::certs;
use super::error::InjectError;

/// What [`set_ca_bundle`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Injection {
    /// Webhooks in the configuration.
    pub webhooks: usize,
    /// Webhooks whose `caBundle` was different and is now set.
    pub changed: usize,
}

/// The `caBundle` value for `bundle_pem`.
pub fn ca_bundle_value(bundle_pem: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(bundle_pem)
}

/// Sets `clientConfig.caBundle` of every webhook of `object` to `bundle_pem`. A configuration
/// without webhooks is left as it is.
pub fn set_ca_bundle(object: &mut Value, bundle_pem: &str) -> Result<Injection, InjectError> {
    let value = ca_bundle_value(bundle_pem);
    let webhooks = match object.get_mut("webhooks") {
        None | Some(Value::Null) => return Ok(Injection { webhooks: 0, changed: 0 }),
        Some(Value::Array(webhooks)) => webhooks,
        Some(_) => return Err(InjectError::WebhooksNotAList),
    };
    let mut changed = 0;
    for (index, webhook) in webhooks.iter_mut().enumerate() {
        let webhook = webhook.as_object_mut().ok_or(InjectError::WebhookNotAnObject { index })?;
        let client_config = webhook
            .entry("clientConfig")
            .or_insert_with(|| Value::Object(Map::new()))
            .as_object_mut()
            .ok_or(InjectError::ClientConfigNotAnObject { index })?;
        if client_config.get("caBundle").and_then(Value::as_str) != Some(value.as_str()) {
            client_config.insert("caBundle".to_owned(), Value::String(value.clone()));
            changed += 1;
        }
    }
    Ok(Injection { webhooks: webhooks.len(), changed })
}

/// Whether a webhook of `object` trusts a CA that is not in `bundle` and is newer than every
/// CA in it: then another replica has rotated the CA after this one last read the Secret,
/// and writing `bundle` would take the new CA away from the API server. Re-read the Secret
/// first.
pub fn holds_newer_ca(object: &Value, bundle: &Bundle) -> bool {
    let newest = bundle.newest_not_before();
    let Some(webhooks) = object.get("webhooks").and_then(Value::as_array) else {
        return false;
    };
    webhooks
        .iter()
        .filter_map(|w| w.pointer("/clientConfig/caBundle").and_then(Value::as_str))
        .filter_map(|b64| base64::engine::general_purpose::STANDARD.decode(b64).ok())
        .flat_map(|pem| certs::lenient_cas("caBundle", &pem))
        .any(|ca| !bundle.contains(&ca.der) && ca.validity.not_before > newest)
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime, UNIX_EPOCH};

    use serde_json::json;

    use super::*;
    use crate::dynamic_serving::plan::{CaPlan, plan_ca};
    use crate::dynamic_serving::secret::Authority;

    fn authority(at: SystemTime) -> Authority {
        match plan_ca(None, at, Duration::from_secs(3_600)).unwrap() {
            CaPlan::Write { authority, .. } => authority,
            CaPlan::Use(_) => unreachable!(),
        }
    }

    #[test]
    fn sets_every_webhook_and_keeps_unknown_fields() {
        let mut object = json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingWebhookConfiguration",
            "metadata": {"name": "certgate", "resourceVersion": "7"},
            "webhooks": [
                {"name": "a.certgate.io", "clientConfig": {"url": "https://x/validate", "caBundle": ""}, "futureField": 1},
                {"name": "b.certgate.io", "clientConfig": {"service": {"name": "s", "namespace": "n"}}},
                {"name": "c.certgate.io"},
            ]
        });
        let injection = set_ca_bundle(&mut object, "PEM\n").unwrap();
        assert_eq!(injection, Injection { webhooks: 3, changed: 3 });
        for i in 0..3 {
            assert_eq!(object["webhooks"][i]["clientConfig"]["caBundle"], "UEVNCg==");
        }
        assert_eq!(object["webhooks"][0]["futureField"], 1);
        assert_eq!(object["webhooks"][1]["clientConfig"]["service"]["name"], "s");
        assert_eq!(object["metadata"]["resourceVersion"], "7");
        assert_eq!(
            set_ca_bundle(&mut object, "PEM\n").unwrap(),
            Injection { webhooks: 3, changed: 0 }
        );
    }

    #[test]
    fn refuses_malformed_configurations() {
        assert_eq!(
            set_ca_bundle(&mut json!({"webhooks": {}}), "x"),
            Err(InjectError::WebhooksNotAList)
        );
        assert_eq!(
            set_ca_bundle(&mut json!({"webhooks": [1]}), "x"),
            Err(InjectError::WebhookNotAnObject { index: 0 })
        );
        assert_eq!(
            set_ca_bundle(&mut json!({"webhooks": [{}, {"clientConfig": "x"}]}), "x"),
            Err(InjectError::ClientConfigNotAnObject { index: 1 })
        );
        assert_eq!(set_ca_bundle(&mut json!({}), "x"), Ok(Injection { webhooks: 0, changed: 0 }));
    }

    #[test]
    fn notices_a_newer_ca_injected_by_another_replica() {
        let t0 = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let old = authority(t0);
        let new = authority(t0 + Duration::from_secs(60));
        let with = |bundle: &str| json!({"webhooks": [{"clientConfig": {"caBundle": ca_bundle_value(bundle)}}]});
        assert!(holds_newer_ca(&with(&new.bundle().pem()), old.bundle()));
        assert!(!holds_newer_ca(&with(&old.bundle().pem()), new.bundle()));
        assert!(!holds_newer_ca(&with(&old.bundle().pem()), old.bundle()));
        assert!(!holds_newer_ca(
            &json!({"webhooks": [{"clientConfig": {"caBundle": "%%%"}}]}),
            old.bundle()
        ));
        assert!(!holds_newer_ca(&json!({}), old.bundle()));
    }
}
