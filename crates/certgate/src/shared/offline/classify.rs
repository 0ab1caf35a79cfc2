//! Turns one document into the typed objects `check` reads, or a notice that it was ignored.

use std::fmt;

use certgate_api::{CertificateRequest, CertificateRequestPolicy};
use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, Role, RoleBinding};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::shared::manifests::Source;
use crate::shared::manifests::{DecodeProblem, LoadError};

/// An object of a kind `check` reads.
#[derive(Debug)]
pub enum Object {
    CertificateRequest(Box<CertificateRequest>),
    Policy(Box<CertificateRequestPolicy>),
    Namespace(Box<Namespace>),
    Role(Box<Role>),
    ClusterRole(Box<ClusterRole>),
    RoleBinding(Box<RoleBinding>),
    ClusterRoleBinding(Box<ClusterRoleBinding>),
}

/// An object of another kind, skipped with a notice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ignored {
    pub at: Source,
    pub api_version: String,
    pub kind: String,
    pub name: String,
}

impl fmt::Display for Ignored {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = certgate_gofmt::quote(&self.name);
        write!(f, "{}: ignoring {} {} {name}", self.at, self.api_version, self.kind)
    }
}

/// What a document held.
#[derive(Debug)]
pub enum Item {
    Object(Source, Object),
    Ignored(Ignored),
}

#[derive(Clone, Copy)]
enum Kind {
    CertificateRequest,
    Policy,
    Namespace,
    Role,
    ClusterRole,
    RoleBinding,
    ClusterRoleBinding,
}

/// The kinds read, each with the one apiVersion accepted.
const KINDS: [(&str, &str, Kind); 7] = [
    ("CertificateRequest", "cert-manager.io/v1", Kind::CertificateRequest),
    ("CertificateRequestPolicy", "policy.cert-manager.io/v1alpha1", Kind::Policy),
    ("Namespace", "v1", Kind::Namespace),
    ("Role", RBAC_V1, Kind::Role),
    ("ClusterRole", RBAC_V1, Kind::ClusterRole),
    ("RoleBinding", RBAC_V1, Kind::RoleBinding),
    ("ClusterRoleBinding", RBAC_V1, Kind::ClusterRoleBinding),
];

const RBAC_V1: &str = "rbac.authorization.k8s.io/v1";

/// Classifies a document, flattening a `v1 List` into its items.
pub fn classify(at: Source, value: Value, out: &mut Vec<Item>) -> Result<(), LoadError> {
    let (api_version, kind) = type_meta(&at, &value)?;
    if !(api_version == "v1" && kind == "List") {
        out.push(classify_object(at, value)?);
        return Ok(());
    }
    // `type_meta` accepted the value, so it is a mapping.
    let items = match value {
        Value::Object(mut list) => list.remove("items"),
        _ => None,
    };
    let items = match items {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items,
        Some(_) => return Err(LoadError::ListItems { at }),
    };
    for (index, item) in items.into_iter().enumerate() {
        let item_at = at.item(index);
        let (item_version, item_kind) = type_meta(&item_at, &item)?;
        if item_version == "v1" && item_kind == "List" {
            return Err(LoadError::NestedList { at: item_at });
        }
        out.push(classify_object(item_at, item)?);
    }
    Ok(())
}

fn classify_object(at: Source, value: Value) -> Result<Item, LoadError> {
    let (api_version, kind) = type_meta(&at, &value)?;
    let Some(&(kind_name, expected, known)) = KINDS.iter().find(|(k, ..)| *k == kind) else {
        let name =
            value.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default().to_owned();
        let (api_version, kind) = (api_version.to_owned(), kind.to_owned());
        return Ok(Item::Ignored(Ignored { at, api_version, kind, name }));
    };
    if api_version != expected {
        let found = api_version.to_owned();
        return Err(LoadError::WrongApiVersion { at, kind: kind_name, expected, found });
    }
    let object = match known {
        Kind::CertificateRequest => Object::CertificateRequest(decode(&at, kind_name, value)?),
        Kind::Policy => Object::Policy(decode(&at, kind_name, value)?),
        Kind::Namespace => Object::Namespace(decode(&at, kind_name, value)?),
        Kind::Role => Object::Role(decode(&at, kind_name, value)?),
        Kind::ClusterRole => Object::ClusterRole(decode(&at, kind_name, value)?),
        Kind::RoleBinding => Object::RoleBinding(decode(&at, kind_name, value)?),
        Kind::ClusterRoleBinding => Object::ClusterRoleBinding(decode(&at, kind_name, value)?),
    };
    Ok(Item::Object(at, object))
}

/// `apiVersion` and `kind` of a mapping.
fn type_meta<'v>(at: &Source, value: &'v Value) -> Result<(&'v str, &'v str), LoadError> {
    let Value::Object(map) = value else {
        return Err(LoadError::NotAnObject { at: at.clone(), found: json_type(value) });
    };
    let field = |name: &'static str| match map.get(name).and_then(Value::as_str) {
        Some(s) if !s.is_empty() => Ok(s),
        _ => Err(LoadError::MissingTypeMeta { at: at.clone(), field: name }),
    };
    Ok((field("apiVersion")?, field("kind")?))
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a sequence",
        Value::Object(_) => "a mapping",
    }
}

/// Decodes into the typed object, naming the offending field on failure.
fn decode<T: DeserializeOwned>(
    at: &Source,
    kind: &'static str,
    value: Value,
) -> Result<Box<T>, LoadError> {
    let name = value.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
    if name.is_empty() {
        return Err(LoadError::MissingName { at: at.clone(), kind });
    }
    let name = name.to_owned();
    serde_path_to_error::deserialize(value).map(Box::new).map_err(|err| {
        let path = err.path().to_string();
        let problem = Box::new(DecodeProblem { path, message: err.into_inner().to_string() });
        LoadError::Decode { at: at.clone(), kind, name, problem }
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;

    use super::*;

    fn at() -> Source {
        Source::document(&Arc::from("f.yaml"), 1)
    }

    fn run(value: Value) -> Result<Vec<Item>, String> {
        let mut out = Vec::new();
        classify(at(), value, &mut out).map_err(|e| e.to_string())?;
        Ok(out)
    }

    #[test]
    fn reads_namespaces_and_rbac_objects() {
        let items = run(json!({
            "apiVersion": "v1", "kind": "List", "items": [
                {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}},
                {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                 "metadata": {"name": "r"}, "rules": []},
            ]
        }))
        .unwrap();
        assert!(matches!(&items[..], [
            Item::Object(a, Object::Namespace(_)),
            Item::Object(b, Object::ClusterRole(_)),
        ] if a.to_string() == "f.yaml#1.items[0]" && b.to_string() == "f.yaml#1.items[1]"));
    }

    #[test]
    fn unknown_kinds_are_ignored_with_their_identity() {
        let items =
            run(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}))
                .unwrap();
        let [Item::Ignored(ignored)] = &items[..] else { panic!("{items:?}") };
        assert_eq!(ignored.to_string(), r#"f.yaml#1: ignoring v1 ConfigMap "c""#);
    }

    #[test]
    fn known_kind_with_another_api_version_is_an_error() {
        let err = run(json!({"apiVersion": "policy.cert-manager.io/v1beta1",
            "kind": "CertificateRequestPolicy", "metadata": {"name": "p"}}))
        .unwrap_err();
        assert_eq!(
            err,
            "f.yaml#1: CertificateRequestPolicy must have apiVersion \
             policy.cert-manager.io/v1alpha1, found \"policy.cert-manager.io/v1beta1\"; \
             convert the manifest to policy.cert-manager.io/v1alpha1"
        );
    }

    #[test]
    fn missing_type_meta_and_non_objects_are_errors() {
        assert_eq!(
            run(json!({"kind": "Namespace"})).unwrap_err(),
            "f.yaml#1: the object has no apiVersion; every manifest needs apiVersion and kind"
        );
        assert_eq!(
            run(json!(["a"])).unwrap_err(),
            "f.yaml#1: expected a Kubernetes object (a mapping with apiVersion and kind), \
             found a sequence"
        );
    }

    #[test]
    fn nested_lists_and_bad_items_are_errors() {
        let nested = json!({"apiVersion": "v1", "kind": "List",
            "items": [{"apiVersion": "v1", "kind": "List", "items": []}]});
        assert_eq!(
            run(nested).unwrap_err(),
            "f.yaml#1.items[0]: a List inside a List is not supported; flatten the items"
        );
        let bad = json!({"apiVersion": "v1", "kind": "List", "items": {"a": 1}});
        assert_eq!(
            run(bad).unwrap_err(),
            "f.yaml#1: `items` of a List must be a sequence of objects"
        );
    }

    #[test]
    fn objects_need_a_name() {
        let err =
            run(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {}})).unwrap_err();
        assert_eq!(err, "f.yaml#1: Namespace has no metadata.name; every object needs a name");
    }

    #[test]
    fn decode_errors_name_the_field() {
        let err = run(json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
            "metadata": {"name": "b", "namespace": "n"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": 7}}))
        .unwrap_err();
        assert_eq!(
            err,
            "f.yaml#1: RoleBinding \"b\": roleRef.name: invalid type: integer `7`, expected a string"
        );
    }
}
