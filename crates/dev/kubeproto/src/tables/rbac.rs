//! `rbac.authorization.k8s.io/v1` (k8s.io/api/rbac/v1): Role, ClusterRole, RoleBinding,
//! ClusterRoleBinding.

use super::meta::{LABEL_SELECTOR, OBJECT_META};
use crate::schema::{
    Go::{OmitEmpty, PointerOmitEmpty, Value},
    Message, Type, field,
};

pub(crate) static ROLE: Message = Message {
    name: "Role",
    fields: &[
        field(1, "metadata", Type::Message(&OBJECT_META), OmitEmpty),
        // No omitempty: a Role without rules is written `"rules": null`.
        field(2, "rules", Type::Messages(&POLICY_RULE), Value),
    ],
};

pub(crate) static CLUSTER_ROLE: Message = Message {
    name: "ClusterRole",
    fields: &[
        field(1, "metadata", Type::Message(&OBJECT_META), OmitEmpty),
        field(2, "rules", Type::Messages(&POLICY_RULE), Value),
        field(3, "aggregationRule", Type::Message(&AGGREGATION_RULE), PointerOmitEmpty),
    ],
};

static POLICY_RULE: Message = Message {
    name: "PolicyRule",
    fields: &[
        field(1, "verbs", Type::Strings, Value),
        field(2, "apiGroups", Type::Strings, OmitEmpty),
        field(3, "resources", Type::Strings, OmitEmpty),
        field(4, "resourceNames", Type::Strings, OmitEmpty),
        field(5, "nonResourceURLs", Type::Strings, OmitEmpty),
    ],
};

static AGGREGATION_RULE: Message = Message {
    name: "AggregationRule",
    fields: &[field(1, "clusterRoleSelectors", Type::Messages(&LABEL_SELECTOR), OmitEmpty)],
};

pub(crate) static ROLE_BINDING: Message = Message { name: "RoleBinding", fields: &BINDING_FIELDS };

pub(crate) static CLUSTER_ROLE_BINDING: Message =
    Message { name: "ClusterRoleBinding", fields: &BINDING_FIELDS };

/// RoleBinding and ClusterRoleBinding share their fields.
static BINDING_FIELDS: [crate::schema::Field; 3] = [
    field(1, "metadata", Type::Message(&OBJECT_META), OmitEmpty),
    field(2, "subjects", Type::Messages(&SUBJECT), OmitEmpty),
    field(3, "roleRef", Type::Message(&ROLE_REF), Value),
];

static SUBJECT: Message = Message {
    name: "Subject",
    fields: &[
        field(1, "kind", Type::String, Value),
        field(2, "apiGroup", Type::String, OmitEmpty),
        field(3, "name", Type::String, Value),
        field(4, "namespace", Type::String, OmitEmpty),
    ],
};

static ROLE_REF: Message = Message {
    name: "RoleRef",
    fields: &[
        field(1, "apiGroup", Type::String, Value),
        field(2, "kind", Type::String, Value),
        field(3, "name", Type::String, Value),
    ],
};
