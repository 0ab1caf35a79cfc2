//! The quantities the estimator tracks: cost ranges, size ranges, and the shape of a
//! value (its size, where it was read from, and the sizes of its parts).

use std::rc::Rc;

/// The cost of evaluating an expression: `min` for the cheapest evaluation that
/// produces a value, `max` for the dearest evaluation of any kind.
///
/// `max` is an upper bound of what the interpreter charges for any input within the
/// declared [`super::SizeBounds`]. `min` is a lower bound for evaluations that do not
/// fail: an error stops an evaluation early, so a failing one may cost less.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CostEstimate {
    pub min: u64,
    pub max: u64,
}

impl CostEstimate {
    pub(super) const ZERO: CostEstimate = CostEstimate { min: 0, max: 0 };

    /// What an expression too deep to walk may cost: anything.
    pub(super) const UNBOUNDED: CostEstimate = CostEstimate { min: 0, max: u64::MAX };

    pub(super) fn exact(cost: u64) -> Self {
        Self { min: cost, max: cost }
    }

    /// Evaluating both.
    pub(super) fn plus(self, other: CostEstimate) -> Self {
        Self { min: self.min.saturating_add(other.min), max: self.max.saturating_add(other.max) }
    }

    /// Evaluating one of the two, whichever the input selects.
    pub(super) fn either(self, other: CostEstimate) -> Self {
        Self { min: self.min.min(other.min), max: self.max.max(other.max) }
    }

    /// Evaluating this `times.min` to `times.max` times.
    pub(super) fn repeated(self, times: Sizes) -> Self {
        Self { min: self.min.saturating_mul(times.min), max: self.max.saturating_mul(times.max) }
    }
}

/// A range of sizes: bytes of a string or bytes value, elements of a list, entries of
/// a map (what the interpreter measures for a linear cost hint).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Sizes {
    pub min: u64,
    pub max: u64,
}

impl Sizes {
    pub const ZERO: Sizes = Sizes { min: 0, max: 0 };

    pub fn exact(size: u64) -> Self {
        Self { min: size, max: size }
    }

    pub fn at_most(max: u64) -> Self {
        Self { min: 0, max }
    }

    pub fn plus(self, other: Sizes) -> Self {
        Self { min: self.min.saturating_add(other.min), max: self.max.saturating_add(other.max) }
    }

    pub fn times(self, other: Sizes) -> Self {
        Self { min: self.min.saturating_mul(other.min), max: self.max.saturating_mul(other.max) }
    }

    pub fn union(self, other: Sizes) -> Self {
        Self { min: self.min.min(other.min), max: self.max.max(other.max) }
    }

    /// The same upper bound, with no lower bound.
    pub fn or_less(self) -> Self {
        Self::at_most(self.max)
    }
}

/// What the estimator knows of a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Shape {
    pub size: Sizes,
    /// The bounds path the value was read from (`cr.groups`, `cr.groups.@items`), so
    /// the bounds of its elements and fields can be looked up.
    pub path: Option<Rc<str>>,
    /// Sizes of each list element or map value, when known without a path (literals).
    pub items: Option<Sizes>,
    /// Sizes of each map key, when known without a path.
    pub keys: Option<Sizes>,
}

impl Shape {
    pub fn sized(size: Sizes) -> Self {
        Self { size, path: None, items: None, keys: None }
    }

    /// An empty list or map, with no parts.
    pub fn empty() -> Self {
        Self { size: Sizes::ZERO, path: None, items: Some(Sizes::ZERO), keys: Some(Sizes::ZERO) }
    }

    /// A value whose size does not matter or is exactly known (numbers, literals).
    pub fn exact(size: u64) -> Self {
        Self::sized(Sizes::exact(size))
    }
}
