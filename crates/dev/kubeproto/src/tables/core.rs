//! The core group, `v1` (k8s.io/api/core/v1): Namespace, ConfigMap, Secret, ServiceAccount.

use super::meta::OBJECT_META;
use crate::schema::{
    Go::{OmitEmpty, PointerOmitEmpty, Value},
    Message, Type, field,
};

pub(crate) static NAMESPACE: Message = Message {
    name: "Namespace",
    fields: &[
        field(1, "metadata", Type::Message(&OBJECT_META), OmitEmpty),
        field(2, "spec", Type::Message(&NAMESPACE_SPEC), OmitEmpty),
        field(3, "status", Type::Message(&NAMESPACE_STATUS), OmitEmpty),
    ],
};

static NAMESPACE_SPEC: Message =
    Message { name: "NamespaceSpec", fields: &[field(1, "finalizers", Type::Strings, OmitEmpty)] };

static NAMESPACE_STATUS: Message = Message {
    name: "NamespaceStatus",
    fields: &[
        field(1, "phase", Type::String, OmitEmpty),
        field(2, "conditions", Type::Messages(&NAMESPACE_CONDITION), OmitEmpty),
    ],
};

static NAMESPACE_CONDITION: Message = Message {
    name: "NamespaceCondition",
    fields: &[
        field(1, "type", Type::String, Value),
        field(2, "status", Type::String, Value),
        // 3 is unused in generated.proto.
        field(4, "lastTransitionTime", Type::Time, OmitEmpty),
        field(5, "reason", Type::String, OmitEmpty),
        field(6, "message", Type::String, OmitEmpty),
    ],
};

pub(crate) static CONFIG_MAP: Message = Message {
    name: "ConfigMap",
    fields: &[
        field(1, "metadata", Type::Message(&OBJECT_META), OmitEmpty),
        field(4, "immutable", Type::Bool, PointerOmitEmpty),
        field(2, "data", Type::StringMap, OmitEmpty),
        field(3, "binaryData", Type::BytesMap, OmitEmpty),
    ],
};

pub(crate) static SECRET: Message = Message {
    name: "Secret",
    fields: &[
        field(1, "metadata", Type::Message(&OBJECT_META), OmitEmpty),
        field(5, "immutable", Type::Bool, PointerOmitEmpty),
        field(2, "data", Type::BytesMap, OmitEmpty),
        field(4, "stringData", Type::StringMap, OmitEmpty),
        field(3, "type", Type::String, OmitEmpty),
    ],
};

pub(crate) static SERVICE_ACCOUNT: Message = Message {
    name: "ServiceAccount",
    fields: &[
        field(1, "metadata", Type::Message(&OBJECT_META), OmitEmpty),
        field(2, "secrets", Type::Messages(&OBJECT_REFERENCE), OmitEmpty),
        field(3, "imagePullSecrets", Type::Messages(&LOCAL_OBJECT_REFERENCE), OmitEmpty),
        field(4, "automountServiceAccountToken", Type::Bool, PointerOmitEmpty),
    ],
};

static OBJECT_REFERENCE: Message = Message {
    name: "ObjectReference",
    fields: &[
        field(1, "kind", Type::String, OmitEmpty),
        field(2, "namespace", Type::String, OmitEmpty),
        field(3, "name", Type::String, OmitEmpty),
        field(4, "uid", Type::String, OmitEmpty),
        field(5, "apiVersion", Type::String, OmitEmpty),
        field(6, "resourceVersion", Type::String, OmitEmpty),
        field(7, "fieldPath", Type::String, OmitEmpty),
    ],
};

static LOCAL_OBJECT_REFERENCE: Message =
    Message { name: "LocalObjectReference", fields: &[field(1, "name", Type::String, OmitEmpty)] };
