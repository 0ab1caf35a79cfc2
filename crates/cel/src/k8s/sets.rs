//! Kubernetes' sets library: lists treated as sets, compared with element equality.
//!
//! These are quadratic in the list sizes, as in Kubernetes; the engine's cost model
//! charges for that and bounds list sizes.

/// `sets.contains(list, sublist)`: every element of `sublist` occurs in `list`
/// (true for an empty `sublist`).
pub fn contains<T: PartialEq>(list: &[T], sublist: &[T]) -> bool {
    sublist.iter().all(|item| list.contains(item))
}

/// `sets.equivalent(a, b)`: each list contains every element of the other; duplicates
/// and order do not matter.
pub fn equivalent<T: PartialEq>(a: &[T], b: &[T]) -> bool {
    contains(a, b) && contains(b, a)
}

/// `sets.intersects(a, b)`: at least one element occurs in both (false if either is
/// empty).
pub fn intersects<T: PartialEq>(a: &[T], b: &[T]) -> bool {
    a.iter().any(|item| b.contains(item))
}
