//! What the API server knows about one write when it runs admission (upstream's
//! `admission.Attributes`), in the shape the AdmissionReview needs.

use std::collections::BTreeMap;

/// The admission operation. Its AdmissionReview spelling is [`Operation::as_str`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operation {
    Create,
    Update,
    Delete,
    Connect,
}

impl Operation {
    /// `CREATE`, `UPDATE`, `DELETE` or `CONNECT`: the AdmissionReview and rule spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Create => "CREATE",
            Operation::Update => "UPDATE",
            Operation::Delete => "DELETE",
            Operation::Connect => "CONNECT",
        }
    }
}

impl std::fmt::Display for Operation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct GroupVersionKind {
    pub group: String,
    pub version: String,
    pub kind: String,
}

impl GroupVersionKind {
    pub fn new(group: &str, version: &str, kind: &str) -> Self {
        GroupVersionKind {
            group: group.to_owned(),
            version: version.to_owned(),
            kind: kind.to_owned(),
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct GroupVersionResource {
    pub group: String,
    pub version: String,
    pub resource: String,
}

impl GroupVersionResource {
    pub fn new(group: &str, version: &str, resource: &str) -> Self {
        GroupVersionResource {
            group: group.to_owned(),
            version: version.to_owned(),
            resource: resource.to_owned(),
        }
    }

    /// `pods` or `deployments.apps`: Go's `GroupResource.String()`, used in error messages.
    pub fn group_resource(&self) -> String {
        if self.group.is_empty() {
            self.resource.clone()
        } else {
            format!("{}.{}", self.resource, self.group)
        }
    }
}

/// What the API server knows about one write when it runs admission.
#[derive(Clone, Debug)]
pub struct AdmissionAttributes {
    pub operation: Operation,
    pub kind: GroupVersionKind,
    pub resource: GroupVersionResource,
    /// `""` or e.g. `status`.
    pub subresource: String,
    /// The resource's scope. Rules' `scope` follows upstream and looks at `namespace` instead;
    /// this decides whether a mutating webhook may have moved the object to another namespace.
    pub namespaced: bool,
    pub name: String,
    /// `""` for cluster-scoped objects. Upstream sets it to the Namespace's own name for requests
    /// that address an existing Namespace (`/api/v1/namespaces/NAME`).
    pub namespace: String,
    pub user: certgate_rbac::UserInfo,
    /// `None` for DELETE.
    pub object: Option<serde_json::Value>,
    /// `None` for CREATE.
    pub old_object: Option<serde_json::Value>,
    pub dry_run: bool,
    /// CreateOptions/UpdateOptions/DeleteOptions/PatchOptions as the API server sends them;
    /// passed through to the AdmissionReview unchanged.
    pub options: serde_json::Value,
    /// Labels of the object's namespace (`None` for cluster-scoped objects). For a Namespace
    /// object itself selectors match the object's own labels, as upstream.
    pub namespace_labels: Option<BTreeMap<String, String>>,
}

/// The labels of an object in its JSON form (`metadata.labels`), `None` when it has no
/// metadata object at all (upstream's `meta.Accessor` failure).
pub(crate) fn object_labels(object: &serde_json::Value) -> Option<BTreeMap<String, String>> {
    let metadata = object.get("metadata")?.as_object()?;
    let mut labels = BTreeMap::new();
    if let Some(map) = metadata.get("labels").and_then(|l| l.as_object()) {
        for (key, value) in map {
            if let Some(value) = value.as_str() {
                labels.insert(key.clone(), value.to_owned());
            }
        }
    }
    Some(labels)
}
