//! The four PATCH content types the API server understands.

/// How a PATCH body is interpreted, chosen by the request's `Content-Type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PatchType {
    /// RFC 6902 JSON patch, `application/json-patch+json`.
    Json,
    /// RFC 7386 JSON merge patch, `application/merge-patch+json`.
    Merge,
    /// Kubernetes strategic merge patch, `application/strategic-merge-patch+json`.
    StrategicMerge,
    /// Server-side apply, `application/apply-patch+yaml` (YAML or JSON body).
    Apply,
}

impl PatchType {
    /// Parses a `Content-Type` header value; parameters such as `; charset=utf-8` are
    /// ignored (as the API server does) and the media type compares case-insensitively.
    pub fn from_content_type(content_type: &str) -> Option<PatchType> {
        let media_type = content_type.split(';').next().unwrap_or_default().trim();
        [PatchType::Json, PatchType::Merge, PatchType::StrategicMerge, PatchType::Apply]
            .into_iter()
            .find(|t| t.content_type().eq_ignore_ascii_case(media_type))
    }

    /// The media type for this patch type.
    pub fn content_type(self) -> &'static str {
        match self {
            PatchType::Json => "application/json-patch+json",
            PatchType::Merge => "application/merge-patch+json",
            PatchType::StrategicMerge => "application/strategic-merge-patch+json",
            PatchType::Apply => "application/apply-patch+yaml",
        }
    }
}
