//! `authentication.k8s.io/v1` (k8s.io/api/authentication/v1): TokenRequest, TokenReview,
//! SelfSubjectReview.

use super::meta::OBJECT_META;
use crate::schema::{
    Go::{OmitEmpty, Pointer, Value},
    Message, Type, field,
};

pub(crate) static TOKEN_REQUEST: Message = Message {
    name: "TokenRequest",
    fields: &[
        field(1, "metadata", Type::Message(&OBJECT_META), OmitEmpty),
        field(2, "spec", Type::Message(&TOKEN_REQUEST_SPEC), Value),
        field(3, "status", Type::Message(&TOKEN_REQUEST_STATUS), OmitEmpty),
    ],
};

/// Go order is audiences, expirationSeconds, boundObjectRef; none has omitempty, so the two
/// pointers are written as null when unset.
static TOKEN_REQUEST_SPEC: Message = Message {
    name: "TokenRequestSpec",
    fields: &[
        field(1, "audiences", Type::Strings, Value),
        field(4, "expirationSeconds", Type::Int64, Pointer),
        field(3, "boundObjectRef", Type::Message(&BOUND_OBJECT_REFERENCE), Pointer),
    ],
};

static BOUND_OBJECT_REFERENCE: Message = Message {
    name: "BoundObjectReference",
    fields: &[
        field(1, "kind", Type::String, OmitEmpty),
        field(2, "apiVersion", Type::String, OmitEmpty),
        field(3, "name", Type::String, OmitEmpty),
        field(4, "uid", Type::String, OmitEmpty),
    ],
};

static TOKEN_REQUEST_STATUS: Message = Message {
    name: "TokenRequestStatus",
    fields: &[
        field(1, "token", Type::String, Value),
        field(2, "expirationTimestamp", Type::Time, Value),
    ],
};

pub(crate) static TOKEN_REVIEW: Message = Message {
    name: "TokenReview",
    fields: &[
        field(1, "metadata", Type::Message(&OBJECT_META), OmitEmpty),
        field(2, "spec", Type::Message(&TOKEN_REVIEW_SPEC), Value),
        field(3, "status", Type::Message(&TOKEN_REVIEW_STATUS), OmitEmpty),
    ],
};

static TOKEN_REVIEW_SPEC: Message = Message {
    name: "TokenReviewSpec",
    fields: &[
        field(1, "token", Type::String, OmitEmpty),
        field(2, "audiences", Type::Strings, OmitEmpty),
    ],
};

/// Go order is authenticated, user, audiences (4), error (3).
static TOKEN_REVIEW_STATUS: Message = Message {
    name: "TokenReviewStatus",
    fields: &[
        field(1, "authenticated", Type::Bool, OmitEmpty),
        field(2, "user", Type::Message(&USER_INFO), OmitEmpty),
        field(4, "audiences", Type::Strings, OmitEmpty),
        field(3, "error", Type::String, OmitEmpty),
    ],
};

static USER_INFO: Message = Message {
    name: "UserInfo",
    fields: &[
        field(1, "username", Type::String, OmitEmpty),
        field(2, "uid", Type::String, OmitEmpty),
        field(3, "groups", Type::Strings, OmitEmpty),
        field(4, "extra", Type::ExtraMap, OmitEmpty),
    ],
};

pub(crate) static SELF_SUBJECT_REVIEW: Message = Message {
    name: "SelfSubjectReview",
    fields: &[
        field(1, "metadata", Type::Message(&OBJECT_META), OmitEmpty),
        field(2, "status", Type::Message(&SELF_SUBJECT_REVIEW_STATUS), OmitEmpty),
    ],
};

static SELF_SUBJECT_REVIEW_STATUS: Message = Message {
    name: "SelfSubjectReviewStatus",
    fields: &[field(1, "userInfo", Type::Message(&USER_INFO), OmitEmpty)],
};
