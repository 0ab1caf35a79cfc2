//! The per-execution budget: bytes of values produced, execution steps and a deadline.
//!
//! Output and `range` bounds alone do not bound an execution: a template can double a string
//! in a variable thirty times, or call a template twice per level forty levels deep, without
//! writing a byte. Every execution therefore carries a budget that the engine charges for
//! each function result (its [`weight`]), each step (function call, `{{template}}` call,
//! `range` iteration) and checks against a deadline at every step.
//!
//! Functions run synchronously on the executing thread, so the budget of the execution in
//! progress lives in a thread-local: functions that are about to build a large value call
//! [`check_alloc`] first, so that the allocation is refused instead of attempted. Outside an
//! execution (a function called directly), [`check_alloc`] measures against the default
//! [`Limits::max_value_bytes`].

use std::cell::RefCell;
use std::fmt;
use std::time::{Duration, Instant};

use crate::{FuncError, Limits, Value};

/// Why an execution was stopped; the text is the template error's message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Exceeded {
    Bytes(usize),
    Depth(usize),
    Steps(u64),
    Time(Duration),
}

impl fmt::Display for Exceeded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Exceeded::Bytes(limit) => {
                write!(f, "the values produced exceed the limit of {limit} bytes")
            }
            Exceeded::Depth(limit) => {
                write!(f, "the values produced nest deeper than the limit of {limit} levels")
            }
            Exceeded::Steps(limit) => write!(
                f,
                "the execution exceeds the limit of {limit} steps (function calls, template \
                 calls and range iterations)"
            ),
            Exceeded::Time(limit) => {
                write!(f, "the execution exceeds the time limit of {}", duration_text(*limit))
            }
        }
    }
}

/// `10s`, `1500ms`: the way the limits are configured and documented.
fn duration_text(d: Duration) -> String {
    if d.subsec_nanos() == 0 { format!("{}s", d.as_secs()) } else { format!("{}ms", d.as_millis()) }
}

struct State {
    max_depth: usize,
    max_bytes: usize,
    used_bytes: usize,
    max_steps: u64,
    steps: u64,
    deadline: Option<(Instant, Duration)>,
}

thread_local! {
    static CURRENT: RefCell<Option<State>> = const { RefCell::new(None) };
}

/// The budget of one execution, installed on this thread until dropped (which restores the
/// budget of an enclosing execution, if a function executes a template itself).
pub(crate) struct Scope {
    previous: Option<State>,
}

pub(crate) fn enter(limits: &Limits) -> Scope {
    let state = State {
        max_depth: limits.max_value_depth,
        max_bytes: limits.max_value_bytes,
        used_bytes: 0,
        max_steps: limits.max_steps,
        steps: 0,
        deadline: limits.max_duration.map(|d| (Instant::now() + d, d)),
    };
    let previous = CURRENT.with(|c| c.borrow_mut().replace(state));
    Scope { previous }
}

impl Drop for Scope {
    fn drop(&mut self) {
        let previous = self.previous.take();
        CURRENT.with(|c| *c.borrow_mut() = previous);
    }
}

/// Counts one step and checks the deadline.
pub(crate) fn step() -> Result<(), Exceeded> {
    CURRENT.with(|c| {
        let mut current = c.borrow_mut();
        let Some(state) = current.as_mut() else { return Ok(()) };
        state.steps = state.steps.saturating_add(1);
        if state.max_steps != 0 && state.steps > state.max_steps {
            return Err(Exceeded::Steps(state.max_steps));
        }
        match state.deadline {
            Some((deadline, limit)) if Instant::now() >= deadline => Err(Exceeded::Time(limit)),
            _ => Ok(()),
        }
    })
}

/// Bytes the current execution may still produce (the default limit outside one).
pub(crate) fn remaining() -> usize {
    CURRENT.with(|c| match c.borrow().as_ref() {
        Some(state) => state.max_bytes.saturating_sub(state.used_bytes),
        None => Limits::default().max_value_bytes,
    })
}

/// Charges a value a function produced: its weight, and refuses it when it nests too deep
/// (printing, comparing and serializing values recurse).
pub(crate) fn charge(value: &Value) -> Result<(), Exceeded> {
    let (bytes, depth) = measure(value, remaining());
    CURRENT.with(|c| {
        let mut current = c.borrow_mut();
        let Some(state) = current.as_mut() else { return Ok(()) };
        if depth > state.max_depth {
            return Err(Exceeded::Depth(state.max_depth));
        }
        state.used_bytes = state.used_bytes.saturating_add(bytes);
        if state.used_bytes > state.max_bytes {
            return Err(Exceeded::Bytes(state.max_bytes));
        }
        Ok(())
    })
}

fn limit_bytes() -> usize {
    CURRENT.with(|c| match c.borrow().as_ref() {
        Some(state) => state.max_bytes,
        None => Limits::default().max_value_bytes,
    })
}

/// Refuses, before it is built, a value of `bytes` that would take the execution past its
/// bound on the bytes of values produced ([`Limits::max_value_bytes`]). Functions call this
/// with an upper estimate of what they are about to allocate; the error is the call's error
/// (`error calling <fn>: the values produced exceed the limit of N bytes`).
pub fn check_alloc(bytes: usize) -> Result<(), FuncError> {
    if bytes > remaining() {
        return Err(FuncError::call(Exceeded::Bytes(limit_bytes()).to_string()));
    }
    Ok(())
}

/// What a value counts against [`Limits::max_value_bytes`]: its bytes of text plus a fixed
/// overhead per value, walking shared parts as often as they occur (that is what printing
/// or serializing it costs). An upper bound of the length of its `%v` text. The walk stops
/// as soon as the weight exceeds `cap` (the result is then some number above `cap`), so it
/// costs at most about `cap / 24` steps, however the value was built.
pub fn weight(value: &Value, cap: usize) -> usize {
    measure(value, cap).0
}

/// What every value weighs before its text: at least as much as `fmt` prints for any
/// scalar under `%v` (`1.7976931348623157e+308` is 23 bytes).
pub(crate) const NODE: usize = 24;

/// The [`weight`] of a value and how deeply it nests (a scalar is 0, a list of scalars 1),
/// both as far as the walk went before the weight exceeded `cap`.
pub(crate) fn measure(value: &Value, cap: usize) -> (usize, usize) {
    // Every value is counted when it is reached (the root here, children when their parent
    // is opened), so a huge list is refused by its length before it is walked.
    let mut total = NODE;
    let mut deepest = 0usize;
    let mut pending = vec![(value, 0usize)];
    while let Some((v, depth)) = pending.pop() {
        match v {
            Value::String(s) => total = total.saturating_add(s.len()),
            Value::List(items) => {
                deepest = deepest.max(depth + 1);
                total = total.saturating_add(items.len().saturating_mul(NODE));
                if total > cap {
                    break;
                }
                pending.extend(items.iter().map(|item| (item, depth + 1)));
            }
            Value::Map(map) => {
                deepest = deepest.max(depth + 1);
                total = total.saturating_add(map.len().saturating_mul(NODE));
                if total > cap {
                    break;
                }
                for (key, item) in map.iter() {
                    total = total.saturating_add(key.len());
                    pending.push((item, depth + 1));
                }
            }
            _ => {}
        }
        if total > cap {
            break;
        }
    }
    (total, deepest)
}

/// The total [`weight`] of `values`, stopping above `cap`.
pub fn weight_all(values: &[Value], cap: usize) -> usize {
    let mut total = 0usize;
    for value in values {
        total = total.saturating_add(weight(value, cap.saturating_sub(total)));
        if total > cap {
            break;
        }
    }
    total
}

/// Refuses a result estimated at `factor` times the weight of `values` plus `extra` bytes
/// (see [`check_alloc`]); the weights are only walked as far as the budget reaches.
pub fn check_values(values: &[Value], factor: usize, extra: usize) -> Result<(), FuncError> {
    let room = remaining();
    let cap = room.saturating_sub(extra) / factor.max(1);
    let estimate = weight_all(values, cap).saturating_mul(factor.max(1)).saturating_add(extra);
    check_alloc(estimate)
}
