//! What a call adds to the run-time cost, as cel-go v0.31.0's actual cost tracker
//! counts it (its default per-overload rules plus the strings extension's trackers), so
//! that an evaluation stops with `cost limit exceeded` exactly where cel-go's does.
//! Overloads cel-go does not have (Kubernetes libraries, optionals) keep the
//! declaration's [`CostHint`], which the static estimate also uses.

use crate::check::CostHint;
use crate::value::Value;

/// A call's run-time cost rule. "size" is cel-go's: code points of a string, bytes of
/// a bytes value, elements of a list or map, 1 for anything else; "scan(n)" is
/// `ceil(n / 10)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CallCost {
    /// The declaration's hint (an overload cel-go does not have).
    Hint(CostHint),
    /// `scan(size(args[arg]))`: prefix/suffix tests, string/bytes conversions,
    /// `strings.quote`, `format`.
    Scan(usize),
    /// `size(args[arg])`: `in` on a list.
    Elements(usize),
    /// `scan(min(size(a), size(b)))`: equality and ordering.
    MinScan,
    /// `scan(size(a) + size(b))`: string and bytes concatenation.
    SumScan,
    /// `scan(1 + size(subject)) * ceil(size(pattern) / 4)`.
    Matches,
    /// `scan(size(a)) * scan(size(b))`: `contains`.
    Contains,
    /// strings extension: `2 + scan(size(s))`.
    CharAt,
    /// strings extension: `1 + ceil(size(s) * size(t) / 10)`.
    Search,
    /// strings extension: `1 + scan(size(s)) + size(result)`.
    Transform,
    /// strings extension: `1 + ceil(max(1, size(s)) * max(1, size(t)) / 10) + size(result)`.
    Replace,
    /// strings extension: `11 + scan(size(s) + 1) + size(result)`.
    Split,
    /// strings extension: `1 + scan(size(list) + 1) + size(result)`.
    Join,
}

impl CallCost {
    /// The rule for overload `id`, declared with `hint`.
    pub(crate) fn for_overload(id: &str, hint: CostHint) -> Self {
        match id {
            "starts_with_string" | "ends_with_string" => Self::Scan(1),
            "string_to_bytes" | "bytes_to_string" | "strings_quote" | "string_format" => {
                Self::Scan(0)
            }
            "in_list" => Self::Elements(1),
            "equals"
            | "not_equals"
            | "less_string"
            | "greater_string"
            | "less_equals_string"
            | "greater_equals_string"
            | "less_bytes"
            | "greater_bytes"
            | "less_equals_bytes"
            | "greater_equals_bytes" => Self::MinScan,
            "add_string" | "add_bytes" => Self::SumScan,
            "matches" | "matches_string" => Self::Matches,
            "contains_string" => Self::Contains,
            "string_char_at_int" => Self::CharAt,
            "string_index_of_string"
            | "string_index_of_string_int"
            | "string_last_index_of_string"
            | "string_last_index_of_string_int" => Self::Search,
            "string_lower_ascii"
            | "string_upper_ascii"
            | "string_substring_int"
            | "string_substring_int_int"
            | "string_trim"
            | "string_reverse" => Self::Transform,
            "string_replace_string_string" | "string_replace_string_string_int" => Self::Replace,
            "string_split_string" | "string_split_string_int" => Self::Split,
            "list_join" | "list_join_string" => Self::Join,
            // cel-go charges list concatenation 1, whatever the sizes.
            "add_list" => Self::Hint(CostHint::Constant(1)),
            _ => Self::Hint(hint),
        }
    }

    /// The part of the cost known before the call (all of it, for most rules).
    pub(crate) fn before(self, args: &[&Value]) -> u64 {
        let size = |i: usize| args.get(i).map_or(1, |v| size(v));
        match self {
            Self::Hint(hint) => hint_cost(hint, args),
            Self::Scan(arg) => scan(size(arg)),
            Self::Elements(arg) => size(arg),
            Self::MinScan => scan(size(0).min(size(1))),
            Self::SumScan => scan(size(0).saturating_add(size(1))),
            Self::Matches => scan(size(0).saturating_add(1)).saturating_mul(size(1).div_ceil(4)),
            Self::Contains => scan(size(0)).saturating_mul(scan(size(1))),
            Self::CharAt => scan(size(0)).saturating_add(2),
            Self::Search => size(0).saturating_mul(size(1)).div_ceil(10).saturating_add(1),
            Self::Transform => scan(size(0)).saturating_add(1),
            Self::Replace => {
                let (s, t) = (size(0).max(1), size(1).max(1));
                s.saturating_mul(t).div_ceil(10).saturating_add(1)
            }
            Self::Split => scan(size(0).saturating_add(1)).saturating_add(11),
            Self::Join => scan(size(0).saturating_add(1)).saturating_add(1),
        }
    }

    /// Whether the rule charges the size of the result too (see [`Self::after`]).
    pub(crate) fn sizes_result(self) -> bool {
        matches!(self, Self::Transform | Self::Replace | Self::Split | Self::Join)
    }

    /// The part of the cost that depends on the result.
    pub(crate) fn after(self, result: &Value) -> u64 {
        if self.sizes_result() { size(result) } else { 0 }
    }
}

/// `ceil(n / 10)`: cel-go's string traversal factor of 0.1.
fn scan(n: u64) -> u64 {
    n.div_ceil(10)
}

/// What a certgate hint charges: `Linear` is `1 + ceil(size * tenths / 10)`, with the
/// size in bytes or elements (0 for other values), as the static estimate assumes.
fn hint_cost(hint: CostHint, args: &[&Value]) -> u64 {
    match hint {
        CostHint::Constant(c) => c,
        CostHint::Linear { arg, tenths_per_unit } => {
            let n = match args.get(arg) {
                Some(Value::String(s)) => s.len(),
                Some(Value::Bytes(b)) => b.len(),
                Some(Value::List(l)) => l.len(),
                Some(Value::Map(m)) => m.len(),
                _ => 0,
            };
            let n = u64::try_from(n).unwrap_or(u64::MAX);
            1 + n.saturating_mul(u64::from(tenths_per_unit)).div_ceil(10)
        }
    }
}

/// cel-go's size of a value for costs: code points of a string (not bytes), bytes of a
/// bytes value, elements of a list or map, the value's for a present optional, else 1.
pub(crate) fn size(v: &Value) -> u64 {
    let n = match v {
        Value::String(s) => s.chars().count(),
        Value::Bytes(b) => b.len(),
        Value::List(l) => l.len(),
        Value::Map(m) => m.len(),
        Value::Optional(Some(inner)) => return size(inner),
        _ => 1,
    };
    u64::try_from(n).unwrap_or(u64::MAX)
}
