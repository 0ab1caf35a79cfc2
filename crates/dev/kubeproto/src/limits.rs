//! The bounds every decode runs under. Bodies come from the network, so each resource a body
//! can make the decoder spend (bytes read, stack, allocations) has a ceiling.

/// The largest body accepted: the API server's default request-body limit (3 MiB).
pub const MAX_BODY_BYTES: usize = 3 * 1024 * 1024;

/// How deep messages may nest. The supported kinds nest at most 6 deep (ClusterRole →
/// aggregationRule → clusterRoleSelectors → matchExpressions, map entries and times count as
/// messages), so this only guards against tables added later.
pub const MAX_DEPTH: usize = 32;

/// How many list items and map entries one body may hold, all fields together. Each item
/// becomes a JSON value of up to a few hundred bytes, so this caps the memory a small body
/// of empty entries (two bytes each on the wire) can make the decoder allocate.
pub const MAX_ITEMS: usize = 100_000;

/// The bounds of one decode; [`Limits::default`] holds the constants above.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Bodies longer than this are refused before any byte is read.
    pub max_body_bytes: usize,
    /// The deepest message nesting accepted (the object itself is depth 1).
    pub max_depth: usize,
    /// The most list items plus map entries accepted in one body.
    pub max_items: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self { max_body_bytes: MAX_BODY_BYTES, max_depth: MAX_DEPTH, max_items: MAX_ITEMS }
    }
}
