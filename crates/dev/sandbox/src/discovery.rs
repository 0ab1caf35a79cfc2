//! Legacy (unaggregated) discovery documents: `/api`, `/apis`, `/apis/<group>` and the
//! resource list of each group version. kubectl and client-go fall back to these when the
//! server does not answer with aggregated discovery.

use serde_json::{Value, json};

use crate::registry::Registry;
use crate::resources::ResourceType;

/// `/api`: the core group's versions.
pub fn core_versions(server_address: &str) -> Value {
    json!({
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}],
    })
}

fn group_entry(group: &str, versions: &[String]) -> Value {
    let versions: Vec<Value> = versions
        .iter()
        .map(|v| json!({"groupVersion": format!("{group}/{v}"), "version": v}))
        .collect();
    json!({
        "name": group,
        "versions": versions,
        "preferredVersion": versions.first().cloned().unwrap_or(Value::Null),
    })
}

/// Named groups and their versions, in discovery order.
fn named_groups(registry: &Registry) -> Vec<(String, Vec<String>)> {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for (group, version, _) in registry.group_versions() {
        if group.is_empty() {
            continue;
        }
        match groups.iter_mut().find(|(g, _)| *g == group) {
            Some((_, versions)) => versions.push(version),
            None => groups.push((group, vec![version])),
        }
    }
    groups
}

/// `/apis`: every named group.
pub fn group_list(registry: &Registry) -> Value {
    let groups: Vec<Value> =
        named_groups(registry).iter().map(|(g, versions)| group_entry(g, versions)).collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

/// `/apis/<group>`, or `None` when the group is not served.
pub fn group(registry: &Registry, name: &str) -> Option<Value> {
    let (group, versions) = named_groups(registry).into_iter().find(|(g, _)| g == name)?;
    let mut entry = group_entry(&group, &versions);
    entry["kind"] = json!("APIGroup");
    entry["apiVersion"] = json!("v1");
    Some(entry)
}

/// `/api/v1` or `/apis/<group>/<version>`, or `None` when not served.
pub fn resource_list(registry: &Registry, group: &str, version: &str) -> Option<Value> {
    let (_, _, resources) =
        registry.group_versions().into_iter().find(|(g, v, _)| g == group && v == version)?;
    let group_version =
        if group.is_empty() { version.to_owned() } else { format!("{group}/{version}") };
    let mut entries = Vec::new();
    for resource in &resources {
        entries.push(resource_entry(resource));
        if resource.status_subresource {
            entries.push(json!({
                "name": format!("{}/status", resource.plural),
                "singularName": "",
                "namespaced": resource.namespaced,
                "kind": resource.kind,
                "verbs": ["get", "patch", "update"],
            }));
        }
        if resource.has_token_subresource() {
            entries.push(json!({
                "name": format!("{}/token", resource.plural),
                "singularName": "",
                "namespaced": true,
                "group": "authentication.k8s.io",
                "version": "v1",
                "kind": "TokenRequest",
                "verbs": ["create"],
            }));
        }
    }
    Some(json!({
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": group_version,
        "resources": entries,
    }))
}

fn resource_entry(resource: &ResourceType) -> Value {
    let mut entry = json!({
        "name": resource.plural,
        "singularName": resource.singular,
        "namespaced": resource.namespaced,
        "kind": resource.kind,
        "verbs": resource.verbs(),
    });
    if !resource.short_names.is_empty() {
        entry["shortNames"] = json!(resource.short_names);
    }
    if !resource.categories.is_empty() {
        entry["categories"] = json!(resource.categories);
    }
    entry
}
