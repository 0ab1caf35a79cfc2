//! The kinds of objects the sandbox serves: the built-in ones certgate needs, and whatever
//! CustomResourceDefinitions add at run time.
//!
//! Deployments, Services and PodDisruptionBudgets are stored and served (so certgate's
//! installation manifests in `deploy/` can be applied, dry run included) but nothing acts on
//! them: no pods are scheduled, no endpoints exist, no disruption budget is computed.
//! certgate-patch has no strategic merge schema for them yet, so a client-side `kubectl apply`
//! of one that exists is refused with 415 (create, merge and JSON patches and server-side
//! apply work).

use serde_json::{Value, json};

/// One served resource of one group version.
#[derive(Clone, Debug, PartialEq)]
pub struct ResourceType {
    /// `""` for the core group.
    pub group: String,
    pub version: String,
    pub kind: String,
    pub list_kind: String,
    /// The resource name in URLs, e.g. `configmaps`.
    pub plural: String,
    pub singular: String,
    pub namespaced: bool,
    pub short_names: Vec<String>,
    pub categories: Vec<String>,
    /// Whether `<plural>/status` is a subresource: writes to the main resource then keep the
    /// stored status, and writes to the status keep everything else.
    pub status_subresource: bool,
    /// A CRD version's `openAPIV3Schema`; `None` for built-in kinds.
    pub schema: Option<Value>,
    /// A CRD version's `additionalPrinterColumns`, as written in the CRD.
    pub printer_columns: Vec<Value>,
    /// A CRD version's `selectableFields`, as field selector paths (`spec.issuerRef.name`:
    /// the `jsonPath` without its leading dot).
    pub selectable_fields: Vec<String>,
    /// A review (SubjectAccessReview, TokenReview, ...): answers `create` only and is never
    /// stored.
    pub create_only: bool,
}

impl ResourceType {
    /// `group/version`, or `version` for the core group.
    pub fn group_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// `plural.group` (`plural` for the core group), as Kubernetes names a resource in
    /// messages, e.g. `configmaps` or `certificaterequests.cert-manager.io`.
    pub fn qualified_plural(&self) -> String {
        qualified(&self.plural, &self.group)
    }

    /// `Kind.group` as Kubernetes names a kind in validation messages.
    pub fn qualified_kind(&self) -> String {
        qualified(&self.kind, &self.group)
    }

    pub fn is_custom(&self) -> bool {
        self.schema.is_some()
    }

    /// Whether `<plural>/token` is a subresource (ServiceAccounts' TokenRequest).
    pub fn has_token_subresource(&self) -> bool {
        self.group.is_empty() && self.plural == "serviceaccounts"
    }

    /// The verbs discovery lists for the resource.
    pub fn verbs(&self) -> &'static [&'static str] {
        if self.create_only { &["create"] } else { &VERBS }
    }
}

fn qualified(name: &str, group: &str) -> String {
    if group.is_empty() { name.to_owned() } else { format!("{name}.{group}") }
}

/// The verbs every served resource supports.
pub const VERBS: [&str; 8] =
    ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

struct Builtin {
    group: &'static str,
    version: &'static str,
    kind: &'static str,
    plural: &'static str,
    namespaced: bool,
    short_names: &'static [&'static str],
    categories: &'static [&'static str],
    status: bool,
    create_only: bool,
}

const BUILTINS: &[Builtin] = &[
    b("", "v1", "Namespace", "namespaces", false, &["ns"], &[], true),
    b("", "v1", "ConfigMap", "configmaps", true, &["cm"], &[], false),
    b("", "v1", "Secret", "secrets", true, &[], &[], false),
    b("", "v1", "ServiceAccount", "serviceaccounts", true, &["sa"], &[], false),
    b("", "v1", "Service", "services", true, &["svc"], &["all"], true),
    b("", "v1", "Event", "events", true, &["ev"], &[], false),
    b("events.k8s.io", "v1", "Event", "events", true, &["ev"], &[], false),
    b("coordination.k8s.io", "v1", "Lease", "leases", true, &[], &[], false),
    b("discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", true, &[], &[], false),
    b("apps", "v1", "Deployment", "deployments", true, &["deploy"], &["all"], true),
    b("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", true, &["pdb"], &[], true),
    b("rbac.authorization.k8s.io", "v1", "Role", "roles", true, &[], &[], false),
    b("rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", false, &[], &[], false),
    b("rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings", true, &[], &[], false),
    b(
        "rbac.authorization.k8s.io",
        "v1",
        "ClusterRoleBinding",
        "clusterrolebindings",
        false,
        &[],
        &[],
        false,
    ),
    b(
        "apiextensions.k8s.io",
        "v1",
        "CustomResourceDefinition",
        "customresourcedefinitions",
        false,
        &["crd", "crds"],
        &["api-extensions"],
        true,
    ),
    b(
        "admissionregistration.k8s.io",
        "v1",
        "MutatingWebhookConfiguration",
        "mutatingwebhookconfigurations",
        false,
        &[],
        &["api-extensions"],
        false,
    ),
    b(
        "admissionregistration.k8s.io",
        "v1",
        "ValidatingWebhookConfiguration",
        "validatingwebhookconfigurations",
        false,
        &[],
        &["api-extensions"],
        false,
    ),
    review("authentication.k8s.io", "TokenReview", "tokenreviews", false),
    review("authentication.k8s.io", "SelfSubjectReview", "selfsubjectreviews", false),
    review("authorization.k8s.io", "SubjectAccessReview", "subjectaccessreviews", false),
    review("authorization.k8s.io", "SelfSubjectAccessReview", "selfsubjectaccessreviews", false),
    review("authorization.k8s.io", "LocalSubjectAccessReview", "localsubjectaccessreviews", true),
    review("authorization.k8s.io", "SelfSubjectRulesReview", "selfsubjectrulesreviews", false),
];

#[allow(clippy::too_many_arguments)]
const fn b(
    group: &'static str,
    version: &'static str,
    kind: &'static str,
    plural: &'static str,
    namespaced: bool,
    short_names: &'static [&'static str],
    categories: &'static [&'static str],
    status: bool,
) -> Builtin {
    Builtin {
        group,
        version,
        kind,
        plural,
        namespaced,
        short_names,
        categories,
        status,
        create_only: false,
    }
}

/// A review kind: created to get an answer, never stored.
const fn review(
    group: &'static str,
    kind: &'static str,
    plural: &'static str,
    namespaced: bool,
) -> Builtin {
    Builtin {
        group,
        version: "v1",
        kind,
        plural,
        namespaced,
        short_names: &[],
        categories: &[],
        status: false,
        create_only: true,
    }
}

/// The built-in resources, in discovery order.
pub fn builtins() -> Vec<ResourceType> {
    BUILTINS
        .iter()
        .map(|b| ResourceType {
            group: b.group.to_owned(),
            version: b.version.to_owned(),
            kind: b.kind.to_owned(),
            list_kind: format!("{}List", b.kind),
            plural: b.plural.to_owned(),
            singular: b.kind.to_ascii_lowercase(),
            namespaced: b.namespaced,
            short_names: b.short_names.iter().map(|s| (*s).to_owned()).collect(),
            categories: b.categories.iter().map(|s| (*s).to_owned()).collect(),
            status_subresource: b.status,
            schema: None,
            printer_columns: Vec::new(),
            selectable_fields: Vec::new(),
            create_only: b.create_only,
        })
        .collect()
}

/// Why a CustomResourceDefinition cannot be served.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("CustomResourceDefinition {} cannot be served: {reason}", certgate_gofmt::quote(.name))]
pub struct CrdError {
    pub name: String,
    pub reason: String,
}

/// A CRD version's `selectableFields[].jsonPath` (`.spec.x`) as field selector paths
/// (`spec.x`). The CRD's validation admitted only simple paths to string, boolean and
/// integer fields.
fn selectable_fields(version: &Value) -> Vec<String> {
    version
        .get("selectableFields")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|field| field.get("jsonPath").and_then(Value::as_str))
        .map(|path| path.strip_prefix('.').unwrap_or(path).to_owned())
        .collect()
}

/// The resources a CustomResourceDefinition serves: one per served version.
pub fn from_crd(crd: &Value) -> Result<Vec<ResourceType>, CrdError> {
    let name = crd.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
    let fail = |reason: &str| CrdError { name: name.to_owned(), reason: reason.to_owned() };
    let text = |pointer: &str| crd.pointer(pointer).and_then(Value::as_str).unwrap_or_default();
    let strings = |pointer: &str| -> Vec<String> {
        crd.pointer(pointer)
            .and_then(Value::as_array)
            .map(|items| items.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default()
    };
    let group = text("/spec/group");
    let kind = text("/spec/names/kind");
    let plural = text("/spec/names/plural");
    if group.is_empty() || kind.is_empty() || plural.is_empty() {
        return Err(fail("spec.group, spec.names.kind and spec.names.plural are required"));
    }
    let namespaced = match text("/spec/scope") {
        "Namespaced" => true,
        "Cluster" => false,
        _ => return Err(fail("spec.scope must be Namespaced or Cluster")),
    };
    let singular = match text("/spec/names/singular") {
        "" => kind.to_ascii_lowercase(),
        singular => singular.to_owned(),
    };
    let list_kind = match text("/spec/names/listKind") {
        "" => format!("{kind}List"),
        list_kind => list_kind.to_owned(),
    };
    let versions =
        crd.pointer("/spec/versions").and_then(Value::as_array).cloned().unwrap_or_default();
    let served: Vec<ResourceType> = versions
        .iter()
        .filter(|v| v.get("served").and_then(Value::as_bool).unwrap_or(false))
        .map(|v| ResourceType {
            group: group.to_owned(),
            version: v.get("name").and_then(Value::as_str).unwrap_or_default().to_owned(),
            kind: kind.to_owned(),
            list_kind: list_kind.clone(),
            plural: plural.to_owned(),
            singular: singular.clone(),
            namespaced,
            short_names: strings("/spec/names/shortNames"),
            categories: strings("/spec/names/categories"),
            status_subresource: v.pointer("/subresources/status").is_some(),
            schema: Some(v.pointer("/schema/openAPIV3Schema").cloned().unwrap_or_else(
                || json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}),
            )),
            printer_columns: v
                .get("additionalPrinterColumns")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
            selectable_fields: selectable_fields(v),
            create_only: false,
        })
        .collect();
    if served.iter().any(|r| r.version.is_empty()) {
        return Err(fail("every spec.versions entry needs a name"));
    }
    if served.is_empty() {
        return Err(fail("no version is served"));
    }
    Ok(served)
}
