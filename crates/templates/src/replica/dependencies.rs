//! Dependencies in the form managed clusters expect (§3 step 6): Policies named
//! `<namespace>.<name>` without a namespace, PolicySets replaced by their member Policies.

use serde_json::{Value, json};

const POLICY_V1: &str = "policy.open-cluster-management.io/v1";
const POLICY_V1BETA1: &str = "policy.open-cluster-management.io/v1beta1";

/// `policy_set` looks a PolicySet up by namespace and name (`None`: not found, so the
/// dependency is kept with its namespace defaulted, as upstream).
pub fn canonicalize_dependencies(
    dependencies: &[Value],
    root_namespace: &str,
    policy_set: &dyn Fn(&str, &str) -> Option<Value>,
) -> Vec<Value> {
    let mut out = Vec::with_capacity(dependencies.len());
    for dependency in dependencies {
        let text = |field: &str| dependency.get(field).and_then(Value::as_str).unwrap_or("");
        let (kind, api_version, name) = (text("kind"), text("apiVersion"), text("name"));
        let namespace = match text("namespace") {
            "" => root_namespace,
            ns => ns,
        };
        if kind == "PolicySet" && api_version == POLICY_V1BETA1 {
            let Some(set) = policy_set(namespace, name) else {
                let mut kept = dependency.clone();
                set_field(&mut kept, "namespace", namespace);
                out.push(kept);
                continue;
            };
            let members = set.pointer("/spec/policies").and_then(Value::as_array);
            for member in members.into_iter().flatten().filter_map(Value::as_str) {
                let mut policy = json!({
                    "apiVersion": POLICY_V1,
                    "kind": "Policy",
                    "name": format!("{namespace}.{member}"),
                });
                if let Some(compliance) = dependency.get("compliance") {
                    policy["compliance"] = compliance.clone();
                }
                out.push(policy);
            }
        } else if kind == "Policy" && api_version == POLICY_V1 {
            // Upstream treats a name with exactly one dot as already `<namespace>.<name>`.
            if name.split('.').count() == 2 {
                out.push(dependency.clone());
            } else {
                let mut policy = dependency.clone();
                set_field(&mut policy, "name", &format!("{namespace}.{name}"));
                if let Some(map) = policy.as_object_mut() {
                    map.remove("namespace");
                }
                out.push(policy);
            }
        } else {
            out.push(dependency.clone());
        }
    }
    out
}

fn set_field(object: &mut Value, field: &str, value: &str) {
    if let Some(map) = object.as_object_mut() {
        map.insert(field.to_owned(), Value::String(value.to_owned()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn none(_: &str, _: &str) -> Option<Value> {
        None
    }

    #[test]
    fn policies_get_their_namespace_in_the_name() {
        let deps = [
            json!({"apiVersion": POLICY_V1, "kind": "Policy", "name": "p", "namespace": "other", "compliance": "Compliant"}),
            json!({"apiVersion": POLICY_V1, "kind": "Policy", "name": "p"}),
            json!({"apiVersion": POLICY_V1, "kind": "Policy", "name": "ns2.p"}),
            json!({"apiVersion": POLICY_V1, "kind": "Policy", "name": "a.b.c"}),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "name": "x", "namespace": "y"}),
        ];
        assert_eq!(
            canonicalize_dependencies(&deps, "root", &none),
            vec![
                json!({"apiVersion": POLICY_V1, "kind": "Policy", "name": "other.p", "compliance": "Compliant"}),
                json!({"apiVersion": POLICY_V1, "kind": "Policy", "name": "root.p"}),
                json!({"apiVersion": POLICY_V1, "kind": "Policy", "name": "ns2.p"}),
                json!({"apiVersion": POLICY_V1, "kind": "Policy", "name": "root.a.b.c"}),
                json!({"apiVersion": "v1", "kind": "ConfigMap", "name": "x", "namespace": "y"}),
            ]
        );
    }

    #[test]
    fn policy_sets_expand_to_their_members_or_stay_when_missing() {
        let set = |ns: &str, name: &str| {
            (ns == "root" && name == "set").then(|| json!({"spec": {"policies": ["a", "b"]}}))
        };
        let deps = [
            json!({"apiVersion": POLICY_V1BETA1, "kind": "PolicySet", "name": "set", "compliance": "NonCompliant"}),
            json!({"apiVersion": POLICY_V1BETA1, "kind": "PolicySet", "name": "gone"}),
        ];
        assert_eq!(
            canonicalize_dependencies(&deps, "root", &set),
            vec![
                json!({"apiVersion": POLICY_V1, "kind": "Policy", "name": "root.a", "compliance": "NonCompliant"}),
                json!({"apiVersion": POLICY_V1, "kind": "Policy", "name": "root.b", "compliance": "NonCompliant"}),
                json!({"apiVersion": POLICY_V1BETA1, "kind": "PolicySet", "name": "gone", "namespace": "root"}),
            ]
        );
    }
}
