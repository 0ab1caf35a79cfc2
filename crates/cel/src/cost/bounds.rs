//! Declared size bounds of the values an expression reads.

use std::collections::BTreeMap;

use crate::value::MAX_CONCAT_LEN;

/// Path segment naming every element of a list (`cr.groups.@items`).
pub const ITEMS: &str = "@items";
/// Path segment naming every key of a map (`labels.@keys`).
pub const KEYS: &str = "@keys";
/// Path segment naming every value of a map (`labels.@values`).
pub const VALUES: &str = "@values";

/// The size assumed for a value nothing bounds: the engine refuses to build a string,
/// bytes value or list longer than [`MAX_CONCAT_LEN`], so no computed value is larger.
/// Inputs bound by the caller may be larger; declare their bounds.
pub const DEFAULT_MAX_UNKNOWN_SIZE: u64 = MAX_CONCAT_LEN as u64;

/// Upper bounds of the sizes of the values an expression reads, by path.
///
/// A size is the byte length of a string or bytes value, the element count of a list,
/// the entry count of a map. A path is a variable name followed by `.`-separated
/// fields and the segments [`ITEMS`], [`KEYS`] and [`VALUES`], the naming Kubernetes'
/// cost estimator uses: `cr.namespace` is the `namespace` field of `cr`,
/// `cr.groups.@items` every element of the list `cr.groups`. A path without a bound
/// gets [`SizeBounds::max_unknown_size`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SizeBounds {
    paths: BTreeMap<String, u64>,
    max_unknown_size: u64,
}

impl Default for SizeBounds {
    fn default() -> Self {
        Self::new()
    }
}

impl SizeBounds {
    /// No declared bounds; unknown sizes are [`DEFAULT_MAX_UNKNOWN_SIZE`].
    pub fn new() -> Self {
        Self { paths: BTreeMap::new(), max_unknown_size: DEFAULT_MAX_UNKNOWN_SIZE }
    }

    /// Bounds the size of the declared variable `name` (a dot-qualified name is one
    /// variable, as the checker resolves it).
    pub fn with_variable(self, name: impl Into<String>, max_size: u64) -> Self {
        self.with_path(name, max_size)
    }

    /// Bounds the size of the value at `path` (see the type's documentation), e.g.
    /// `cr.groups` for the number of groups and `cr.groups.@items` for each group's
    /// length. A leading dot (`.cr`) is ignored, as it only changes name resolution.
    pub fn with_path(mut self, path: impl Into<String>, max_size: u64) -> Self {
        let path = path.into();
        let path = path.strip_prefix('.').map(str::to_owned).unwrap_or(path);
        self.paths.insert(path, max_size);
        self
    }

    /// The size assumed for values nothing bounds.
    pub fn with_max_unknown_size(mut self, max_size: u64) -> Self {
        self.max_unknown_size = max_size;
        self
    }

    pub fn max_unknown_size(&self) -> u64 {
        self.max_unknown_size
    }

    /// The declared bound of `path`, if any.
    pub fn declared(&self, path: &str) -> Option<u64> {
        self.paths.get(path).copied()
    }

    /// The bound of `path`: declared, or [`Self::max_unknown_size`].
    pub fn max_size(&self, path: &str) -> u64 {
        self.declared(path).unwrap_or(self.max_unknown_size)
    }
}
