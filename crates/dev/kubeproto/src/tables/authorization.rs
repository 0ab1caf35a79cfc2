//! `authorization.k8s.io/v1` (k8s.io/api/authorization/v1): SubjectAccessReview,
//! LocalSubjectAccessReview, SelfSubjectAccessReview, SelfSubjectRulesReview.

use super::meta::{FIELD_SELECTOR_REQUIREMENT, LABEL_SELECTOR_REQUIREMENT, OBJECT_META};
use crate::schema::{
    Field,
    Go::{OmitEmpty, PointerOmitEmpty, Value},
    Message, Type, field,
};

pub(crate) static SUBJECT_ACCESS_REVIEW: Message =
    Message { name: "SubjectAccessReview", fields: &SUBJECT_ACCESS_REVIEW_FIELDS };

pub(crate) static LOCAL_SUBJECT_ACCESS_REVIEW: Message =
    Message { name: "LocalSubjectAccessReview", fields: &SUBJECT_ACCESS_REVIEW_FIELDS };

/// SubjectAccessReview and LocalSubjectAccessReview share their fields.
static SUBJECT_ACCESS_REVIEW_FIELDS: [Field; 3] = [
    field(1, "metadata", Type::Message(&OBJECT_META), OmitEmpty),
    field(2, "spec", Type::Message(&SUBJECT_ACCESS_REVIEW_SPEC), Value),
    field(3, "status", Type::Message(&SUBJECT_ACCESS_REVIEW_STATUS), OmitEmpty),
];

pub(crate) static SELF_SUBJECT_ACCESS_REVIEW: Message = Message {
    name: "SelfSubjectAccessReview",
    fields: &[
        field(1, "metadata", Type::Message(&OBJECT_META), OmitEmpty),
        field(2, "spec", Type::Message(&SELF_SUBJECT_ACCESS_REVIEW_SPEC), Value),
        field(3, "status", Type::Message(&SUBJECT_ACCESS_REVIEW_STATUS), OmitEmpty),
    ],
};

pub(crate) static SELF_SUBJECT_RULES_REVIEW: Message = Message {
    name: "SelfSubjectRulesReview",
    fields: &[
        field(1, "metadata", Type::Message(&OBJECT_META), OmitEmpty),
        field(2, "spec", Type::Message(&SELF_SUBJECT_RULES_REVIEW_SPEC), Value),
        field(3, "status", Type::Message(&SUBJECT_RULES_REVIEW_STATUS), OmitEmpty),
    ],
};

static SUBJECT_ACCESS_REVIEW_SPEC: Message = Message {
    name: "SubjectAccessReviewSpec",
    fields: &[
        field(1, "resourceAttributes", Type::Message(&RESOURCE_ATTRIBUTES), PointerOmitEmpty),
        field(
            2,
            "nonResourceAttributes",
            Type::Message(&NON_RESOURCE_ATTRIBUTES),
            PointerOmitEmpty,
        ),
        field(3, "user", Type::String, OmitEmpty),
        field(4, "groups", Type::Strings, OmitEmpty),
        field(5, "extra", Type::ExtraMap, OmitEmpty),
        field(6, "uid", Type::String, OmitEmpty),
    ],
};

static SELF_SUBJECT_ACCESS_REVIEW_SPEC: Message = Message {
    name: "SelfSubjectAccessReviewSpec",
    fields: &[
        field(1, "resourceAttributes", Type::Message(&RESOURCE_ATTRIBUTES), PointerOmitEmpty),
        field(
            2,
            "nonResourceAttributes",
            Type::Message(&NON_RESOURCE_ATTRIBUTES),
            PointerOmitEmpty,
        ),
    ],
};

static RESOURCE_ATTRIBUTES: Message = Message {
    name: "ResourceAttributes",
    fields: &[
        field(1, "namespace", Type::String, OmitEmpty),
        field(2, "verb", Type::String, OmitEmpty),
        field(3, "group", Type::String, OmitEmpty),
        field(4, "version", Type::String, OmitEmpty),
        field(5, "resource", Type::String, OmitEmpty),
        field(6, "subresource", Type::String, OmitEmpty),
        field(7, "name", Type::String, OmitEmpty),
        field(8, "fieldSelector", Type::Message(&FIELD_SELECTOR_ATTRIBUTES), PointerOmitEmpty),
        field(9, "labelSelector", Type::Message(&LABEL_SELECTOR_ATTRIBUTES), PointerOmitEmpty),
    ],
};

static FIELD_SELECTOR_ATTRIBUTES: Message = Message {
    name: "FieldSelectorAttributes",
    fields: &[
        field(1, "rawSelector", Type::String, OmitEmpty),
        field(2, "requirements", Type::Messages(&FIELD_SELECTOR_REQUIREMENT), OmitEmpty),
    ],
};

static LABEL_SELECTOR_ATTRIBUTES: Message = Message {
    name: "LabelSelectorAttributes",
    fields: &[
        field(1, "rawSelector", Type::String, OmitEmpty),
        field(2, "requirements", Type::Messages(&LABEL_SELECTOR_REQUIREMENT), OmitEmpty),
    ],
};

static NON_RESOURCE_ATTRIBUTES: Message = Message {
    name: "NonResourceAttributes",
    fields: &[field(1, "path", Type::String, OmitEmpty), field(2, "verb", Type::String, OmitEmpty)],
};

/// Go order is allowed, denied (4), reason (2), evaluationError (3); `allowed` has no
/// omitempty, so a request's empty status is written `{"allowed": false}`.
static SUBJECT_ACCESS_REVIEW_STATUS: Message = Message {
    name: "SubjectAccessReviewStatus",
    fields: &[
        field(1, "allowed", Type::Bool, Value),
        field(4, "denied", Type::Bool, OmitEmpty),
        field(2, "reason", Type::String, OmitEmpty),
        field(3, "evaluationError", Type::String, OmitEmpty),
    ],
};

static SELF_SUBJECT_RULES_REVIEW_SPEC: Message = Message {
    name: "SelfSubjectRulesReviewSpec",
    fields: &[field(1, "namespace", Type::String, OmitEmpty)],
};

/// The two rule lists and `incomplete` have no omitempty.
static SUBJECT_RULES_REVIEW_STATUS: Message = Message {
    name: "SubjectRulesReviewStatus",
    fields: &[
        field(1, "resourceRules", Type::Messages(&RESOURCE_RULE), Value),
        field(2, "nonResourceRules", Type::Messages(&NON_RESOURCE_RULE), Value),
        field(3, "incomplete", Type::Bool, Value),
        field(4, "evaluationError", Type::String, OmitEmpty),
    ],
};

static RESOURCE_RULE: Message = Message {
    name: "ResourceRule",
    fields: &[
        field(1, "verbs", Type::Strings, Value),
        field(2, "apiGroups", Type::Strings, OmitEmpty),
        field(3, "resources", Type::Strings, OmitEmpty),
        field(4, "resourceNames", Type::Strings, OmitEmpty),
    ],
};

static NON_RESOURCE_RULE: Message = Message {
    name: "NonResourceRule",
    fields: &[
        field(1, "verbs", Type::Strings, Value),
        field(2, "nonResourceURLs", Type::Strings, OmitEmpty),
    ],
};
