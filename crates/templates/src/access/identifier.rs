//! The identity of a read, as kubernetes-dependency-watches names a watched object, and the
//! set of reads a template made: a controller watches exactly these to re-resolve on change.

use std::collections::BTreeSet;
use std::fmt;

/// `{Group, Version, Kind, Namespace, Name, Selector}`. A get sets `name`; a list sets
/// `selector` (empty for "everything"); cluster-scoped reads have no namespace.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjectIdentifier {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub namespace: String,
    pub name: String,
    pub selector: String,
}

impl ObjectIdentifier {
    /// `v1` for the core group, else `group/version`.
    pub fn group_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }
}

/// `GroupVersion=v1, Kind=Secret, Namespace=ns, Name=n[, Selector=…]`: this text appears in
/// user-visible RBAC errors.
impl fmt::Display for ObjectIdentifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "GroupVersion={}, Kind={}, Namespace={}, Name={}",
            self.group_version(),
            self.kind,
            self.namespace,
            self.name
        )?;
        if !self.selector.is_empty() {
            write!(f, ", Selector={}", self.selector)?;
        }
        Ok(())
    }
}

/// The distinct reads of one resolution, in identifier order. Reads of missing objects and
/// denied reads are included: creating the object or granting access must re-resolve.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadSet {
    reads: BTreeSet<ObjectIdentifier>,
}

impl ReadSet {
    pub fn new() -> Self {
        Self::default()
    }

    /// Returns whether the identifier was new.
    pub fn insert(&mut self, id: ObjectIdentifier) -> bool {
        self.reads.insert(id)
    }

    pub fn contains(&self, id: &ObjectIdentifier) -> bool {
        self.reads.contains(id)
    }

    pub fn len(&self) -> usize {
        self.reads.len()
    }

    pub fn is_empty(&self) -> bool {
        self.reads.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &ObjectIdentifier> {
        self.reads.iter()
    }

    /// Adds every read of `other` (templates of one replica share one watch set).
    pub fn extend(&mut self, other: ReadSet) {
        self.reads.extend(other.reads);
    }
}

impl IntoIterator for ReadSet {
    type Item = ObjectIdentifier;
    type IntoIter = std::collections::btree_set::IntoIter<ObjectIdentifier>;

    fn into_iter(self) -> Self::IntoIter {
        self.reads.into_iter()
    }
}

impl FromIterator<ObjectIdentifier> for ReadSet {
    fn from_iter<T: IntoIterator<Item = ObjectIdentifier>>(iter: T) -> Self {
        ReadSet { reads: iter.into_iter().collect() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_form() {
        let mut id = ObjectIdentifier {
            version: "v1".into(),
            kind: "Secret".into(),
            namespace: "ns".into(),
            name: "n".into(),
            ..Default::default()
        };
        assert_eq!(id.to_string(), "GroupVersion=v1, Kind=Secret, Namespace=ns, Name=n");
        id.group = "cluster.open-cluster-management.io".into();
        id.name = String::new();
        id.namespace = String::new();
        id.selector = "a=b".into();
        assert_eq!(
            id.to_string(),
            "GroupVersion=cluster.open-cluster-management.io/v1, Kind=Secret, Namespace=, Name=, Selector=a=b"
        );
    }
}
