//! The webhook configurations certgate's webhook is registered with: upstream's
//! configuration and webhook names, rules, match and failure policies and paths, so clients
//! see the same `admission webhook "<name>" denied the request: ...` messages as with
//! cert-manager, approver-policy and OCM's governance-policy-propagator.
//!
//! The propagator's two webhooks (Policies, PolicySets) are registered in the same
//! ValidatingWebhookConfiguration as approver-policy's, so that the one configuration whose
//! `caBundle` certgate (or cert-manager's cainjector) keeps current covers them, with no new
//! permission; they keep upstream's names, paths and `failurePolicy: Ignore`
//! (docs/webhook.md#ocm-policies-and-policysets).

use base64::Engine as _;
use serde_json::{Value, json};

/// Where the API server reaches the webhook.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Endpoint {
    /// `https://host:port` without a path (development and the sandbox).
    Url(String),
    /// A Service in the cluster (namespace, name, port).
    Service { namespace: String, name: String, port: u16 },
}

impl Endpoint {
    fn client_config(&self, path: &str, ca_bundle_pem: &str) -> Value {
        let ca_bundle = base64::engine::general_purpose::STANDARD.encode(ca_bundle_pem);
        match self {
            Endpoint::Url(base) => json!({
                "url": format!("{}{path}", base.trim_end_matches('/')),
                "caBundle": ca_bundle,
            }),
            Endpoint::Service { namespace, name, port } => json!({
                "service": {"namespace": namespace, "name": name, "path": path, "port": port},
                "caBundle": ca_bundle,
            }),
        }
    }
}

/// cert-manager's webhook name, which its denials carry.
pub const CERT_MANAGER_WEBHOOK: &str = "webhook.cert-manager.io";
/// approver-policy's webhook name.
pub const POLICY_WEBHOOK: &str = "policy.cert-manager.io";
/// governance-policy-propagator's webhook name for Policies.
pub const OCM_POLICY_WEBHOOK: &str = "policy.open-cluster-management.io.webhook";
/// governance-policy-propagator's webhook name for PolicySets.
pub const OCM_POLICY_SET_WEBHOOK: &str = "policyset.open-cluster-management.io.webhook";
/// governance-policy-propagator's path for Policies; served as an alias of `/validate`.
pub const OCM_POLICY_PATH: &str = "/validate-policy-open-cluster-management-io-v1-policy";
/// governance-policy-propagator's path for PolicySets; served as an alias of `/validate`.
pub const OCM_POLICY_SET_PATH: &str =
    "/validate-policy-open-cluster-management-io-v1beta1-policyset";

/// The `cert-manager.io/v1` resources cert-manager's validating webhook is registered for.
pub const CERT_MANAGER_VALIDATED: [&str; 8] = [
    "certificaterequests",
    "certificaterequests/status",
    "certificates",
    "certificates/status",
    "issuers",
    "issuers/status",
    "clusterissuers",
    "clusterissuers/status",
];

/// The MutatingWebhookConfiguration and the ValidatingWebhookConfigurations, in that order:
/// cert-manager's (mutating, validating), then approver-policy's, which also holds the
/// propagator's Policy and PolicySet webhooks.
pub fn configurations(endpoint: &Endpoint, ca_bundle_pem: &str) -> Vec<Value> {
    let hook = |name: &str, path: &str, rules: Value, timeout: u32, failure_policy: &str| {
        json!({
            "name": name,
            "admissionReviewVersions": ["v1"],
            "clientConfig": endpoint.client_config(path, ca_bundle_pem),
            "failurePolicy": failure_policy,
            "matchPolicy": "Equivalent",
            "sideEffects": "None",
            "timeoutSeconds": timeout,
            "rules": rules,
        })
    };
    let webhook = |name: &str, path: &str, rules: Value, timeout: u32| {
        hook(name, path, rules, timeout, "Fail")
    };
    // Upstream's: no timeout given (the API server's default, 10s), Ignore when unreachable.
    let ocm_webhook = |name: &str, path: &str, version: &str, resource: &str| {
        let rules = json!([{
            "apiGroups": ["policy.open-cluster-management.io"],
            "apiVersions": [version],
            "operations": ["CREATE", "UPDATE"],
            "resources": [resource],
        }]);
        hook(name, path, rules, 10, "Ignore")
    };
    let configuration = |kind: &str, name: &str, webhooks: Value| {
        json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": kind,
            "metadata": {"name": name, "labels": {"app.kubernetes.io/managed-by": "certgate"}},
            "webhooks": webhooks,
        })
    };
    vec![
        configuration(
            "MutatingWebhookConfiguration",
            "cert-manager-webhook",
            json!([webhook(
                CERT_MANAGER_WEBHOOK,
                "/mutate",
                json!([{
                    "apiGroups": ["cert-manager.io"],
                    "apiVersions": ["v1"],
                    "operations": ["CREATE"],
                    "resources": ["certificaterequests"],
                }]),
                30,
            )]),
        ),
        configuration(
            "ValidatingWebhookConfiguration",
            "cert-manager-webhook",
            json!([webhook(
                CERT_MANAGER_WEBHOOK,
                "/validate",
                // Upstream validates every cert-manager kind (`*/*` over `cert-manager.io` and
                // `acme.cert-manager.io`). certgate validates CertificateRequests,
                // Certificates, Issuers and ClusterIssuers (and their status, as upstream), and
                // registers for those.
                json!([{
                    "apiGroups": ["cert-manager.io"],
                    "apiVersions": ["v1"],
                    "operations": ["CREATE", "UPDATE"],
                    "resources": CERT_MANAGER_VALIDATED,
                }]),
                30,
            )]),
        ),
        configuration(
            "ValidatingWebhookConfiguration",
            "cert-manager-approver-policy",
            json!([
                webhook(
                    POLICY_WEBHOOK,
                    "/validate",
                    json!([{
                        "apiGroups": ["policy.cert-manager.io"],
                        "apiVersions": ["v1alpha1"],
                        "operations": ["CREATE", "UPDATE"],
                        "resources": ["certificaterequestpolicies"],
                    }]),
                    10,
                ),
                ocm_webhook(OCM_POLICY_WEBHOOK, OCM_POLICY_PATH, "v1", "policies"),
                ocm_webhook(OCM_POLICY_SET_WEBHOOK, OCM_POLICY_SET_PATH, "v1beta1", "policysets"),
            ]),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_get_the_path_and_the_bundle_is_base64_pem() {
        let configs = configurations(&Endpoint::Url("https://127.0.0.1:9443/".into()), "PEM");
        let urls: Vec<&str> = configs
            .iter()
            .map(|c| c["webhooks"][0]["clientConfig"]["url"].as_str().unwrap())
            .collect();
        assert_eq!(
            urls,
            [
                "https://127.0.0.1:9443/mutate",
                "https://127.0.0.1:9443/validate",
                "https://127.0.0.1:9443/validate"
            ]
        );
        assert_eq!(configs[0]["webhooks"][0]["clientConfig"]["caBundle"], "UEVN");
    }

    #[test]
    fn webhook_names_and_rules_are_upstreams() {
        let configs = configurations(
            &Endpoint::Service {
                namespace: "certgate".into(),
                name: "certgate-webhook".into(),
                port: 443,
            },
            "",
        );
        let names: Vec<(&str, &str)> = configs
            .iter()
            .map(|c| (c["kind"].as_str().unwrap(), c["webhooks"][0]["name"].as_str().unwrap()))
            .collect();
        assert_eq!(
            names,
            [
                ("MutatingWebhookConfiguration", "webhook.cert-manager.io"),
                ("ValidatingWebhookConfiguration", "webhook.cert-manager.io"),
                ("ValidatingWebhookConfiguration", "policy.cert-manager.io"),
            ]
        );
        assert_eq!(configs[0]["webhooks"][0]["rules"][0]["operations"], json!(["CREATE"]));
        assert_eq!(
            configs[1]["webhooks"][0]["rules"][0],
            json!({
                "apiGroups": ["cert-manager.io"],
                "apiVersions": ["v1"],
                "operations": ["CREATE", "UPDATE"],
                "resources": [
                    "certificaterequests",
                    "certificaterequests/status",
                    "certificates",
                    "certificates/status",
                    "issuers",
                    "issuers/status",
                    "clusterissuers",
                    "clusterissuers/status"
                ],
            })
        );
        assert_eq!(
            configs[1]["webhooks"][0]["clientConfig"]["service"],
            json!({"namespace": "certgate", "name": "certgate-webhook", "path": "/validate", "port": 443})
        );
        for config in &configs {
            let webhook = &config["webhooks"][0];
            assert_eq!(
                (&webhook["failurePolicy"], &webhook["sideEffects"], &webhook["matchPolicy"]),
                (&json!("Fail"), &json!("None"), &json!("Equivalent"))
            );
        }
    }

    #[test]
    fn the_propagators_webhooks_are_upstreams_beside_approver_policys() {
        let configs = configurations(&Endpoint::Url("https://127.0.0.1:9443".into()), "PEM");
        let webhooks = configs[2]["webhooks"].as_array().unwrap();
        let ocm: Vec<Value> = webhooks[1..]
            .iter()
            .map(|w| {
                json!([
                    w["name"],
                    w["clientConfig"]["url"],
                    w["failurePolicy"],
                    w["matchPolicy"],
                    w["timeoutSeconds"],
                    w["sideEffects"],
                    w["admissionReviewVersions"],
                    w["rules"]
                ])
            })
            .collect();
        let rules = |version: &str, resource: &str| {
            json!([{
                "apiGroups": ["policy.open-cluster-management.io"],
                "apiVersions": [version],
                "operations": ["CREATE", "UPDATE"],
                "resources": [resource],
            }])
        };
        assert_eq!(
            ocm,
            [
                json!([
                    "policy.open-cluster-management.io.webhook",
                    "https://127.0.0.1:9443/validate-policy-open-cluster-management-io-v1-policy",
                    "Ignore",
                    "Equivalent",
                    10,
                    "None",
                    ["v1"],
                    rules("v1", "policies")
                ]),
                json!([
                    "policyset.open-cluster-management.io.webhook",
                    "https://127.0.0.1:9443/validate-policy-open-cluster-management-io-v1beta1-policyset",
                    "Ignore",
                    "Equivalent",
                    10,
                    "None",
                    ["v1"],
                    rules("v1beta1", "policysets")
                ]),
            ]
        );
        assert_eq!(webhooks[1]["clientConfig"]["caBundle"], "UEVN");
    }
}
