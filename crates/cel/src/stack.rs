//! Stack safety of the recursive stages (checker, cost estimate, compiler, evaluator).
//!
//! The parser admits every rule cel-go admits, whose trees are up to about a thousand
//! levels high (250 levels of nesting, each adding a list, a comprehension, an index,
//! ...). Walking such a tree recursively needs more than the 2 MiB stack of an async
//! worker in a debug build, so each recursive step checks the room left and, when less
//! than [`RED_ZONE`] remains, continues on a fresh heap-allocated segment. The caller's
//! stack therefore never grows by more than the red zone, whatever the rule.

/// Room kept free for the deepest frame cycle between two checks (the evaluator's, in a
/// debug build, is under 16 KiB).
const RED_ZONE: usize = 128 * 1024;

/// Size of each additional segment.
const SEGMENT: usize = 1024 * 1024;

/// Runs one recursive step, on a new stack segment if the current one is nearly full.
#[inline]
pub(crate) fn guarded<R>(step: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, SEGMENT, step)
}
