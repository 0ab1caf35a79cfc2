//! `meta.k8s.io/v1` (k8s.io/apimachinery/pkg/apis/meta/v1): ObjectMeta and its parts, label and
//! field selector requirements, DeleteOptions.

use crate::schema::{
    Go::{OmitEmpty, PointerOmitEmpty, Value},
    Message, Type, field,
};

pub(crate) static OBJECT_META: Message = Message {
    name: "ObjectMeta",
    fields: &[
        field(1, "name", Type::String, OmitEmpty),
        field(2, "generateName", Type::String, OmitEmpty),
        field(3, "namespace", Type::String, OmitEmpty),
        field(4, "selfLink", Type::String, OmitEmpty),
        field(5, "uid", Type::String, OmitEmpty),
        field(6, "resourceVersion", Type::String, OmitEmpty),
        field(7, "generation", Type::Int64, OmitEmpty),
        // A value struct: Go writes `"creationTimestamp": null` when it is zero.
        field(8, "creationTimestamp", Type::Time, OmitEmpty),
        field(9, "deletionTimestamp", Type::Time, PointerOmitEmpty),
        field(10, "deletionGracePeriodSeconds", Type::Int64, PointerOmitEmpty),
        field(11, "labels", Type::StringMap, OmitEmpty),
        field(12, "annotations", Type::StringMap, OmitEmpty),
        field(13, "ownerReferences", Type::Messages(&OWNER_REFERENCE), OmitEmpty),
        field(14, "finalizers", Type::Strings, OmitEmpty),
        // 15 was clusterName, 16 was initializers: both removed, skipped as unknown.
        field(17, "managedFields", Type::Messages(&MANAGED_FIELDS_ENTRY), OmitEmpty),
    ],
};

/// Go declares apiVersion first although its field number is 5.
pub(crate) static OWNER_REFERENCE: Message = Message {
    name: "OwnerReference",
    fields: &[
        field(5, "apiVersion", Type::String, Value),
        field(1, "kind", Type::String, Value),
        field(3, "name", Type::String, Value),
        field(4, "uid", Type::String, Value),
        field(6, "controller", Type::Bool, PointerOmitEmpty),
        field(7, "blockOwnerDeletion", Type::Bool, PointerOmitEmpty),
    ],
};

pub(crate) static MANAGED_FIELDS_ENTRY: Message = Message {
    name: "ManagedFieldsEntry",
    fields: &[
        field(1, "manager", Type::String, OmitEmpty),
        field(2, "operation", Type::String, OmitEmpty),
        field(3, "apiVersion", Type::String, OmitEmpty),
        field(4, "time", Type::Time, PointerOmitEmpty),
        // 5 was the old `fields`, tombstoned.
        field(6, "fieldsType", Type::String, OmitEmpty),
        field(7, "fieldsV1", Type::FieldsV1, PointerOmitEmpty),
        field(8, "subresource", Type::String, OmitEmpty),
    ],
};

pub(crate) static LABEL_SELECTOR: Message = Message {
    name: "LabelSelector",
    fields: &[
        field(1, "matchLabels", Type::StringMap, OmitEmpty),
        field(2, "matchExpressions", Type::Messages(&LABEL_SELECTOR_REQUIREMENT), OmitEmpty),
    ],
};

pub(crate) static LABEL_SELECTOR_REQUIREMENT: Message = Message {
    name: "LabelSelectorRequirement",
    fields: &[
        field(1, "key", Type::String, Value),
        field(2, "operator", Type::String, Value),
        field(3, "values", Type::Strings, OmitEmpty),
    ],
};

pub(crate) static FIELD_SELECTOR_REQUIREMENT: Message = Message {
    name: "FieldSelectorRequirement",
    fields: &[
        field(1, "key", Type::String, Value),
        field(2, "operator", Type::String, Value),
        field(3, "values", Type::Strings, OmitEmpty),
    ],
};

pub(crate) static DELETE_OPTIONS: Message = Message {
    name: "DeleteOptions",
    fields: &[
        field(1, "gracePeriodSeconds", Type::Int64, PointerOmitEmpty),
        field(2, "preconditions", Type::Message(&PRECONDITIONS), PointerOmitEmpty),
        field(3, "orphanDependents", Type::Bool, PointerOmitEmpty),
        field(4, "propagationPolicy", Type::String, PointerOmitEmpty),
        field(5, "dryRun", Type::Strings, OmitEmpty),
        field(6, "ignoreStoreReadErrorWithClusterBreakingPotential", Type::Bool, PointerOmitEmpty),
    ],
};

pub(crate) static PRECONDITIONS: Message = Message {
    name: "Preconditions",
    fields: &[
        field(1, "uid", Type::String, PointerOmitEmpty),
        field(2, "resourceVersion", Type::String, PointerOmitEmpty),
    ],
};
