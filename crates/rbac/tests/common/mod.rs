//! Shared helpers: RBAC objects from multi-document YAML, users and requests.
#![allow(dead_code, reason = "each test binary includes this module and uses a different subset")]

use certgate_rbac::{AccessReview, RbacObjects, ResourceAttributes, UserInfo};

/// Parses `---`-separated Role, ClusterRole, RoleBinding and ClusterRoleBinding documents.
pub fn objects(yaml: &str) -> RbacObjects {
    let documents: Vec<serde_json::Value> =
        serde_saphyr::from_multiple(yaml).expect("fixture is valid YAML");
    let mut objects = RbacObjects::default();
    for document in documents {
        let kind = document["kind"].as_str().expect("every document has a kind").to_owned();
        match kind.as_str() {
            "Role" => objects.roles.push(serde_json::from_value(document).expect("Role")),
            "ClusterRole" => {
                objects.cluster_roles.push(serde_json::from_value(document).expect("ClusterRole"))
            }
            "RoleBinding" => {
                objects.role_bindings.push(serde_json::from_value(document).expect("RoleBinding"))
            }
            "ClusterRoleBinding" => objects
                .cluster_role_bindings
                .push(serde_json::from_value(document).expect("ClusterRoleBinding")),
            other => panic!("unexpected kind {other} in fixture"),
        }
    }
    objects
}

pub fn fixture() -> RbacObjects {
    objects(include_str!("../fixtures/cluster.yaml"))
}

pub fn user(name: &str, groups: &[&str]) -> UserInfo {
    UserInfo {
        username: name.to_owned(),
        groups: groups.iter().map(|g| (*g).to_owned()).collect(),
        ..UserInfo::default()
    }
}

/// `resource` may be `res` or `res/sub`.
pub fn request(
    namespace: &str,
    verb: &str,
    group: &str,
    resource: &str,
    name: &str,
) -> ResourceAttributes {
    let (resource, subresource) = resource.split_once('/').unwrap_or((resource, ""));
    ResourceAttributes {
        namespace: namespace.to_owned(),
        verb: verb.to_owned(),
        group: group.to_owned(),
        version: "v1".to_owned(),
        resource: resource.to_owned(),
        subresource: subresource.to_owned(),
        name: name.to_owned(),
    }
}

pub fn review(user: UserInfo, resource: ResourceAttributes) -> AccessReview {
    AccessReview { user, resource }
}
