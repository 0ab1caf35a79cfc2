//! Patch errors and the HTTP status each one maps to.
//!
//! `Display` gives the full detail (for logs and for the `Status.message` where upstream
//! shows it); [`PatchError::status_message`] gives exactly what the Kubernetes API server
//! puts into `Status.message`, which for some errors is a fixed generic sentence.

/// Upstream's generic `Status.message` for 422 responses built from a bare status code
/// (the detail is dropped by the API server, so clients only ever see this sentence).
pub const GENERIC_UNPROCESSABLE: &str =
    "the server rejected our request due to an error in our request";

/// Media types the API server accepts for PATCH of a custom resource, in upstream's order.
pub const CUSTOM_RESOURCE_PATCH_TYPES: &str =
    "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml";

/// One server-side apply conflict: a field another manager owns with a different value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    /// The other manager as upstream prints it: its name quoted, plus
    /// ` using <apiVersion>` when it wrote through an Update rather than an Apply.
    pub manager: String,
    /// The field in upstream's path notation, e.g. `.spec.x`.
    pub field: String,
}

/// Why a patch could not be applied. Every variant maps to one HTTP status.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PatchError {
    /// The body is not a well-formed patch of its type (400 BadRequest).
    #[error("{0}")]
    BadRequest(String),
    /// The body exceeds the API server's request size limit (413).
    #[error("Request entity too large: limit is {limit}")]
    BodyTooLarge {
        /// The limit in bytes.
        limit: usize,
    },
    /// A JSON patch has more operations than the API server allows (413).
    #[error(
        "Request entity too large: The allowed maximum operations in a JSON patch is {max}, got {got}"
    )]
    TooManyOperations {
        /// The limit.
        max: usize,
        /// Operations in the request.
        got: usize,
    },
    /// The `copy` operations of a JSON patch would add more bytes than the API server
    /// allows (422, with upstream's generic message; the detail is in `Display`, for logs).
    /// Split the patch, or write the object with a PUT or a merge patch instead.
    #[error(
        "Unable to complete the copy, the accumulated size increase of copy is {copied}, exceeding the limit {limit}"
    )]
    CopyTooLarge {
        /// The limit in bytes.
        limit: usize,
        /// Bytes the copies had added when the limit was passed (counted up to `limit + 1`
        /// for the copy that passed it).
        copied: usize,
    },
    /// The body nests deeper than the allowed depth (400).
    #[error(
        "patch is nested deeper than {max} levels; flatten it or split it into several patches"
    )]
    TooDeep {
        /// The depth limit.
        max: usize,
    },
    /// A JSON patch operation does not apply to the live object (422 Invalid); `detail`
    /// names the operation and path in the style of the API server's json-patch library.
    #[error("{detail}")]
    JsonPatchFailed {
        /// What failed and where.
        detail: String,
    },
    /// The patch is well formed but cannot be applied to this object (422 Invalid), e.g.
    /// a strategic merge patch whose content contradicts its `$retainKeys` list.
    #[error("{0}")]
    Unprocessable(String),
    /// Strategic merge patch sent for a kind without a strategic merge schema, i.e. a
    /// custom resource (415 UnsupportedMediaType); the client should use a merge patch.
    #[error(
        "the body of the request was in an unknown format - accepted media types include: {CUSTOM_RESOURCE_PATCH_TYPES}"
    )]
    StrategicMergeUnsupported,
    /// `PatchOptions` are invalid for an apply request (422 Invalid), e.g. no field manager.
    #[error("PatchOptions.meta.k8s.io \"\" is invalid: {0}")]
    InvalidOptions(String),
    /// Server-side apply found fields owned by other managers with different values and
    /// `force` was false (409 Conflict). Retry with `force=true` to take them over.
    #[error("{}", conflict_message(.0))]
    Conflicts(Vec<Conflict>),
    /// An applied configuration whose keyed list repeats a key or has an item without any
    /// key field (500 with no reason, as upstream answers), e.g.
    /// `failed to create typed patch object (ns/name; group/version, Kind=K): .status.conditions: duplicate entries for key [type="Ready"]`.
    #[error("{0}")]
    TypedPatch(String),
}

impl PatchError {
    /// The HTTP status code the API server answers with for this error.
    pub fn status_code(&self) -> u16 {
        match self {
            Self::BadRequest(_) | Self::TooDeep { .. } => 400,
            Self::BodyTooLarge { .. } | Self::TooManyOperations { .. } => 413,
            Self::JsonPatchFailed { .. }
            | Self::CopyTooLarge { .. }
            | Self::Unprocessable(_)
            | Self::InvalidOptions(_) => 422,
            Self::StrategicMergeUnsupported => 415,
            Self::Conflicts(_) => 409,
            Self::TypedPatch(_) => 500,
        }
    }

    /// The `Status.reason` the API server sets for this error.
    pub fn reason(&self) -> &'static str {
        match self.status_code() {
            400 => "BadRequest",
            409 => "Conflict",
            413 => "RequestEntityTooLarge",
            415 => "UnsupportedMediaType",
            // Upstream's `StatusReasonUnknown`, which is empty and left out of the Status.
            500 => "",
            _ => "Invalid",
        }
    }

    /// The `Status.message` the API server sends. For JSON patch failures upstream drops
    /// the detail and sends a generic sentence; everything else carries the full text.
    pub fn status_message(&self) -> String {
        match self {
            Self::JsonPatchFailed { .. } | Self::CopyTooLarge { .. } => {
                GENERIC_UNPROCESSABLE.to_owned()
            }
            other => other.to_string(),
        }
    }
}

/// Upstream's conflict message: singular form for one conflict, otherwise grouped by
/// manager (managers sorted) with one `- path` line per field.
fn conflict_message(conflicts: &[Conflict]) -> String {
    if let [only] = conflicts {
        return format!(
            "Apply failed with 1 conflict: conflict with {}: {}",
            only.manager, only.field
        );
    }
    let mut managers: Vec<&str> = conflicts.iter().map(|c| c.manager.as_str()).collect();
    managers.sort_unstable();
    managers.dedup();
    let mut lines = Vec::new();
    for manager in managers {
        lines.push(format!("conflicts with {manager}:"));
        for conflict in conflicts.iter().filter(|c| c.manager == manager) {
            lines.push(format!("- {}", conflict.field));
        }
    }
    format!("Apply failed with {} conflicts: {}", conflicts.len(), lines.join("\n"))
}
