//! End to end: OCM governance-policy-propagator's admission checks, served by certgate's
//! webhook under upstream's webhook names and paths, seen by the real `kubectl` exactly as
//! with the propagator's own webhook. The sandbox installs OCM's CRDs at bootstrap; on the
//! real API server the test installs upstream's.

use std::path::Path;

mod dev_support;

const DENIED_BY: &str =
    "admission webhook \"policy.open-cluster-management.io.webhook\" denied the request: ";
const NAME_TOO_LONG: &str =
    "the combined length of the policy namespace and name cannot exceed 62 characters";
const UNSET: &str =
    "RemediationAction field of the policy and policy template cannot both be unset";

/// A Policy in namespace `policies` (8 characters) with one ConfigurationPolicy template.
fn policy(name: &str, remediation_action: Option<&str>, labels: &str) -> String {
    let action =
        remediation_action.map(|a| format!("  remediationAction: {a}\n")).unwrap_or_default();
    format!(
        "apiVersion: policy.open-cluster-management.io/v1\nkind: Policy\nmetadata:\n  name: {name}\n\
         \x20 namespace: policies\n{labels}spec:\n  disabled: false\n{action}  policy-templates:\n\
         \x20 - objectDefinition:\n      apiVersion: policy.open-cluster-management.io/v1\n\
         \x20     kind: ConfigurationPolicy\n      metadata:\n        name: namespaces\n\
         \x20     spec:\n        severity: low\n"
    )
}

fn policy_set(exclusions: &[&str]) -> String {
    let mut text = "apiVersion: policy.open-cluster-management.io/v1beta1\nkind: PolicySet\n\
                    metadata:\n  name: set\n  namespace: policies\nspec:\n  policies: [a, b]\n  exclusions:\n"
        .to_owned();
    for name in exclusions {
        text.push_str(&format!("  - policyName: {name}\n    clusterNames: [cluster-a]\n"));
    }
    text
}

both!(
    fn ocm_policies_are_admitted_as_the_propagators_webhook_admits_them(server) {
        let dev = server.start();
        if dev.is_real() {
            // certgate installs no OCM CRD in a cluster: a hub has upstream's.
            let crds = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/upstream-crds");
            for file in [
                "policy.open-cluster-management.io_policies.yaml",
                "policy.open-cluster-management.io_policysets.yaml",
            ] {
                let path = crds.join(file);
                dev.ok(&["apply", "--server-side", "-f", path.to_str().unwrap()]);
            }
        }
        dev.ok(&[
            "wait",
            "--for=condition=Established",
            "crd/policies.policy.open-cluster-management.io",
            "crd/policysets.policy.open-cluster-management.io",
            "--timeout=30s",
        ]);
        dev.ok(&["create", "namespace", "policies"]);
        let creating = |what: &str| format!("Error from server (Forbidden): error when creating \"STDIN\": {DENIED_BY}{what}\n");

        // 54 + 8 characters are allowed, 55 + 8 are not.
        let longest = "p".repeat(54);
        dev.ok_with(&["create", "-f", "-"], Some(&policy(&longest, Some("inform"), "")));
        let refused = dev.fails(&["create", "-f", "-"], Some(&policy(&"p".repeat(55), Some("inform"), "")));
        assert_eq!(refused, creating(NAME_TOO_LONG));
        // Replicas (labelled with their root policy) skip the name check.
        let replica = "  labels:\n    policy.open-cluster-management.io/root-policy: policies.p\n";
        dev.ok_with(&["create", "-f", "-"], Some(&policy(&"r".repeat(60), Some("inform"), replica)));

        // Without a remediationAction of its own, a ConfigurationPolicy template needs the policy's.
        let refused = dev.fails(&["create", "-f", "-"], Some(&policy("unset", None, "")));
        assert_eq!(refused, creating(UNSET));
        let refused = dev.fails(
            &[
                "patch",
                "policy",
                &longest,
                "-n",
                "policies",
                "--type=json",
                "-p",
                r#"[{"op":"remove","path":"/spec/remediationAction"}]"#,
            ],
            None,
        );
        assert_eq!(refused, format!("Error from server (Forbidden): {DENIED_BY}{UNSET}\n"));

        // PolicySets: each exclusion names a listed policy, once.
        let refused = dev.fails(&["create", "-f", "-"], Some(&policy_set(&["a", "x", "a"])));
        assert_eq!(
            refused,
            "Error from server (Forbidden): error when creating \"STDIN\": admission webhook \
             \"policyset.open-cluster-management.io.webhook\" denied the request: policy in \
             spec.exclusions has a duplicate entry: a\npolicy in spec.exclusions is not listed in \
             spec.policies: x\n"
        );
        dev.ok_with(&["create", "-f", "-"], Some(&policy_set(&["a", "b"])));

        // DELETE is not checked.
        dev.ok(&["delete", "policy", &longest, "-n", "policies"]);
        dev.ok(&["delete", "policyset", "set", "-n", "policies"]);
    }
);
