//! Properties over arbitrary users and requests.

mod common;

use std::sync::LazyLock;

use certgate_rbac::{
    AccessReview, Authorizer, RbacAuthorizer, RbacObjects, ResourceAttributes, UserInfo,
};
use common::{fixture, objects};
use proptest::prelude::*;

/// Parsed once: YAML parsing would otherwise dominate every case.
static FIXTURE: LazyLock<RbacObjects> = LazyLock::new(fixture);

fn word() -> impl Strategy<Value = String> {
    // Mostly names from the fixture, so that bindings and rules actually apply.
    prop_oneof![
        prop::sample::select(vec![
            "",
            "*",
            "team-a",
            "team-b",
            "pods",
            "log",
            "get",
            "list",
            "update",
            "apps",
            "cert-manager.io",
            "signers",
            "devs",
            "ops",
            "approvers",
            "alice",
            "carol",
            "system:masters",
        ])
        .prop_map(str::to_owned),
        "[a-z:/*.-]{0,12}",
    ]
}

fn user() -> impl Strategy<Value = UserInfo> {
    (word(), prop::collection::vec(word(), 0..4), any::<bool>()).prop_map(|(name, groups, sa)| {
        if sa {
            UserInfo::service_account(&name, &groups.concat(), "")
        } else {
            UserInfo { username: name, groups, ..UserInfo::default() }
        }
    })
}

fn resource() -> impl Strategy<Value = ResourceAttributes> {
    (word(), word(), word(), word(), word(), word()).prop_map(
        |(namespace, verb, group, resource, subresource, name)| ResourceAttributes {
            namespace,
            verb,
            group,
            version: "v1".to_owned(),
            resource,
            subresource,
            name,
        },
    )
}

fn not_master(user: &UserInfo) -> bool {
    !user.groups.iter().any(|g| g == certgate_rbac::SYSTEM_MASTERS)
}

proptest! {
    #[test]
    fn star_rule_allows_anything(user in user(), resource in resource(), cluster_wide in any::<bool>()) {
        let mut objects = objects(
            r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: all}
rules: [{apiGroups: ["*"], resources: ["*"], verbs: ["*"]}]
"#,
        );
        // Bound cluster-wide, or by a RoleBinding in the request's namespace.
        let (kind, namespace) = if cluster_wide || resource.namespace.is_empty() {
            ("ClusterRoleBinding", None)
        } else {
            ("RoleBinding", Some(resource.namespace.clone()))
        };
        let binding = serde_json::json!({
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": kind,
            "metadata": {"name": "all", "namespace": namespace},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "all"},
            "subjects": [{"kind": "User", "name": user.username}],
        });
        match namespace {
            None => objects.cluster_role_bindings.push(serde_json::from_value(binding).unwrap()),
            Some(_) => objects.role_bindings.push(serde_json::from_value(binding).unwrap()),
        }
        let decision = RbacAuthorizer::new(objects)
            .authorize(&AccessReview { user: user.clone(), resource: resource.clone() })
            .unwrap();
        prop_assert!(decision.allowed);
        if not_master(&user) {
            let source = match kind {
                "RoleBinding" => format!("RoleBinding \"all/{}\"", resource.namespace),
                _ => "ClusterRoleBinding \"all\"".to_owned(),
            };
            prop_assert_eq!(
                decision.reason,
                format!("RBAC: allowed by {source} of ClusterRole \"all\" to User \"{}\"", user.username)
            );
        }
    }

    #[test]
    fn no_bindings_deny_everyone_but_masters(user in user(), resource in resource()) {
        let mut objects = FIXTURE.clone();
        objects.role_bindings.clear();
        objects.cluster_role_bindings.clear();
        let authorizer = RbacAuthorizer::new(objects);
        let decision = authorizer.authorize(&AccessReview { user: user.clone(), resource }).unwrap();
        prop_assert_eq!(decision.allowed, !not_master(&user));
        prop_assert_eq!(decision.reason, "");
    }

    #[test]
    fn explain_agrees_with_authorize(user in user(), resource in resource()) {
        let authorizer = RbacAuthorizer::new(FIXTURE.clone());
        let review = AccessReview { user, resource };
        let explanation = authorizer.explain(&review);
        prop_assert_eq!(&explanation.decision, &authorizer.authorize(&review).unwrap());
    }
}
