//! Kubernetes' list library: `isSorted`, `sum`, `min`, `max`, `indexOf`,
//! `lastIndexOf`, generic over the element type until the engine's value type exists.
//!
//! Comparisons use `PartialOrd` the way cel-go uses `Compare`: an element only wins or
//! breaks the order when the comparison says so definitely, so incomparable pairs (a
//! NaN double) neither reorder `min`/`max` nor make a list unsorted.

use std::cmp::Ordering;

/// Why a list function failed, with cel-go / Kubernetes texts.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ListError {
    /// `min()` or `max()` of an empty list; `function` is `min` or `max`.
    #[error("{function} called on empty list")]
    Empty { function: &'static str },
    /// `sum()` of `int` elements left the 64-bit signed range.
    #[error("integer overflow")]
    IntOverflow,
    /// `sum()` of `uint` elements left the 64-bit unsigned range.
    #[error("unsigned integer overflow")]
    UintOverflow,
}

/// An element type `sum()` accepts: CEL `int`, `uint`, `double` (and `duration`, which
/// the engine implements on its own type).
pub trait Summable: Sized {
    /// The sum of an empty list (`0`, `0u`, `0.0`, `duration('0s')`).
    fn zero() -> Self;
    /// `self + other` with CEL's overflow errors.
    fn checked_sum(&self, other: &Self) -> Result<Self, ListError>;
}

impl Summable for i64 {
    fn zero() -> Self {
        0
    }
    fn checked_sum(&self, other: &Self) -> Result<Self, ListError> {
        self.checked_add(*other).ok_or(ListError::IntOverflow)
    }
}

impl Summable for u64 {
    fn zero() -> Self {
        0
    }
    fn checked_sum(&self, other: &Self) -> Result<Self, ListError> {
        self.checked_add(*other).ok_or(ListError::UintOverflow)
    }
}

impl Summable for f64 {
    fn zero() -> Self {
        0.0
    }
    /// IEEE addition; infinities and NaN are values in CEL, not errors.
    fn checked_sum(&self, other: &Self) -> Result<Self, ListError> {
        Ok(self + other)
    }
}

/// `<list>.isSorted()`: false as soon as an element is definitely greater than the
/// next one; empty and one-element lists are sorted.
pub fn is_sorted<T: PartialOrd>(list: &[T]) -> bool {
    !list
        .windows(2)
        .any(|pair| matches!(pair, [a, b] if a.partial_cmp(b) == Some(Ordering::Greater)))
}

/// `<list>.sum()`: the zero of `T` plus every element, left to right.
pub fn sum<T: Summable>(list: &[T]) -> Result<T, ListError> {
    list.iter().try_fold(T::zero(), |acc, item| acc.checked_sum(item))
}

/// `<list>.min()`: the first of the smallest elements; an empty list is an error.
pub fn min<T: PartialOrd + Clone>(list: &[T]) -> Result<T, ListError> {
    extreme(list, "min", Ordering::Greater)
}

/// `<list>.max()`: the first of the largest elements; an empty list is an error.
pub fn max<T: PartialOrd + Clone>(list: &[T]) -> Result<T, ListError> {
    extreme(list, "max", Ordering::Less)
}

/// Keeps the running result unless it compares as `replace_when` against the next
/// element, as Kubernetes' shared min/max loop does.
fn extreme<T: PartialOrd + Clone>(
    list: &[T],
    function: &'static str,
    replace_when: Ordering,
) -> Result<T, ListError> {
    let mut items = list.iter();
    let first = items.next().ok_or(ListError::Empty { function })?;
    let best =
        items.fold(
            first,
            |best, next| {
                if best.partial_cmp(next) == Some(replace_when) { next } else { best }
            },
        );
    Ok(best.clone())
}

/// `<list>.indexOf(value)`: the first index holding an equal element, or -1.
pub fn index_of<T: PartialEq>(list: &[T], value: &T) -> i64 {
    list.iter().position(|item| item == value).map_or(-1, index_to_i64)
}

/// `<list>.lastIndexOf(value)`: the last index holding an equal element, or -1.
pub fn last_index_of<T: PartialEq>(list: &[T], value: &T) -> i64 {
    list.iter().rposition(|item| item == value).map_or(-1, index_to_i64)
}

/// Slice indices always fit: a slice never holds more than `isize::MAX` elements.
fn index_to_i64(index: usize) -> i64 {
    i64::try_from(index).unwrap_or(i64::MAX)
}
