//! Declarations of the CEL standard library (cel-spec `langdef.md`, "Standard
//! Definitions"), with cel-go's overload ids.

use super::decls::{CostHint, DeclError, Declarations, Overload};
use super::types::Type;

/// Ordered types, named as in cel-go's ordering overload ids (`less_int64`).
const ORDERED: [(&str, Type); 8] = [
    ("bool", Type::Bool),
    ("int64", Type::Int),
    ("uint64", Type::Uint),
    ("double", Type::Double),
    ("string", Type::String),
    ("bytes", Type::Bytes),
    ("timestamp", Type::Timestamp),
    ("duration", Type::Duration),
];

/// The numeric pairs CEL compares across types (`1 < 2u`, `1.5 >= 1`).
const CROSS_NUMERIC: [(&str, Type, Type); 6] = [
    ("int64_double", Type::Int, Type::Double),
    ("int64_uint64", Type::Int, Type::Uint),
    ("uint64_double", Type::Uint, Type::Double),
    ("uint64_int64", Type::Uint, Type::Int),
    ("double_int64", Type::Double, Type::Int),
    ("double_uint64", Type::Double, Type::Uint),
];

/// Cost of scanning a string: a tenth per byte, as Kubernetes charges.
fn string_scan(arg: usize) -> CostHint {
    CostHint::Linear { arg, tenths_per_unit: 1 }
}

/// Cost of walking a list or map: one per element.
fn element_scan(arg: usize) -> CostHint {
    CostHint::Linear { arg, tenths_per_unit: 10 }
}

fn a() -> Type {
    Type::param("A")
}

fn b() -> Type {
    Type::param("B")
}

/// Adds the whole standard library: operators, `size`, string tests, conversions,
/// timestamp/duration accessors and the type names usable as values.
pub fn add_standard_library(decls: &mut Declarations) -> Result<(), DeclError> {
    add_logic(decls)?;
    add_equality_and_ordering(decls)?;
    add_arithmetic(decls)?;
    add_containers(decls)?;
    add_strings(decls)?;
    add_conversions(decls)?;
    add_time_accessors(decls)?;
    add_type_identifiers(decls)
}

/// The type names usable as values (`type(x) == int`), each a variable whose type is
/// `type(T)`; `type` itself is the type of type values, `type(type(dyn))`.
fn add_type_identifiers(decls: &mut Declarations) -> Result<(), DeclError> {
    let names = [
        ("bool", Type::Bool),
        ("bytes", Type::Bytes),
        ("double", Type::Double),
        ("int", Type::Int),
        ("uint", Type::Uint),
        ("string", Type::String),
        ("null_type", Type::Null),
        ("list", Type::list(Type::Dyn)),
        ("map", Type::map(Type::Dyn, Type::Dyn)),
        ("google.protobuf.Duration", Type::Duration),
        ("google.protobuf.Timestamp", Type::Timestamp),
        ("type", Type::type_of(Type::Dyn)),
    ];
    for (name, ty) in names {
        decls.add_variable(name, Type::type_of(ty))?;
    }
    Ok(())
}

fn add_logic(decls: &mut Declarations) -> Result<(), DeclError> {
    use Type::Bool;
    decls.add_function("_?_:_", [Overload::global("conditional", vec![Bool, a(), a()], a())])?;
    decls.add_function("_&&_", [Overload::global("logical_and", vec![Bool, Bool], Bool)])?;
    decls.add_function("_||_", [Overload::global("logical_or", vec![Bool, Bool], Bool)])?;
    decls.add_function("!_", [Overload::global("logical_not", vec![Bool], Bool)])?;
    // Used by comprehensions expanded from `all`/`exists` macros.
    decls.add_function(
        "@not_strictly_false",
        [Overload::global("not_strictly_false", vec![Bool], Bool)],
    )
}

fn add_equality_and_ordering(decls: &mut Declarations) -> Result<(), DeclError> {
    decls.add_function("_==_", [Overload::global("equals", vec![a(), a()], Type::Bool)])?;
    decls.add_function("_!=_", [Overload::global("not_equals", vec![a(), a()], Type::Bool)])?;
    for (operator, prefix) in
        [("_<_", "less"), ("_<=_", "less_equals"), ("_>_", "greater"), ("_>=_", "greater_equals")]
    {
        let same_type = ORDERED.iter().map(|(name, ty)| {
            Overload::global(format!("{prefix}_{name}"), vec![ty.clone(), ty.clone()], Type::Bool)
        });
        let cross = CROSS_NUMERIC.iter().map(|(name, left, right)| {
            Overload::global(
                format!("{prefix}_{name}"),
                vec![left.clone(), right.clone()],
                Type::Bool,
            )
        });
        decls.add_function(operator, same_type.chain(cross))?;
    }
    Ok(())
}

fn add_arithmetic(decls: &mut Declarations) -> Result<(), DeclError> {
    use Type::{Bytes, Double, Duration, Int, String, Timestamp, Uint};
    decls.add_function(
        "_+_",
        [
            Overload::global("add_bytes", vec![Bytes, Bytes], Bytes).with_cost(element_scan(0)),
            Overload::global("add_double", vec![Double, Double], Double),
            Overload::global("add_duration_duration", vec![Duration, Duration], Duration),
            Overload::global("add_duration_timestamp", vec![Duration, Timestamp], Timestamp),
            Overload::global("add_timestamp_duration", vec![Timestamp, Duration], Timestamp),
            Overload::global("add_int64", vec![Int, Int], Int),
            Overload::global("add_list", vec![Type::list(a()), Type::list(a())], Type::list(a()))
                .with_cost(element_scan(0)),
            Overload::global("add_string", vec![String, String], String).with_cost(string_scan(0)),
            Overload::global("add_uint64", vec![Uint, Uint], Uint),
        ],
    )?;
    decls.add_function(
        "_-_",
        [
            Overload::global("subtract_double", vec![Double, Double], Double),
            Overload::global("subtract_duration_duration", vec![Duration, Duration], Duration),
            Overload::global("subtract_int64", vec![Int, Int], Int),
            Overload::global("subtract_timestamp_duration", vec![Timestamp, Duration], Timestamp),
            Overload::global("subtract_timestamp_timestamp", vec![Timestamp, Timestamp], Duration),
            Overload::global("subtract_uint64", vec![Uint, Uint], Uint),
        ],
    )?;
    for (operator, prefix) in [("_*_", "multiply"), ("_/_", "divide")] {
        decls.add_function(
            operator,
            [
                Overload::global(format!("{prefix}_double"), vec![Double, Double], Double),
                Overload::global(format!("{prefix}_int64"), vec![Int, Int], Int),
                Overload::global(format!("{prefix}_uint64"), vec![Uint, Uint], Uint),
            ],
        )?;
    }
    decls.add_function(
        "_%_",
        [
            Overload::global("modulo_int64", vec![Int, Int], Int),
            Overload::global("modulo_uint64", vec![Uint, Uint], Uint),
        ],
    )?;
    decls.add_function(
        "-_",
        [
            Overload::global("negate_double", vec![Double], Double),
            Overload::global("negate_int64", vec![Int], Int),
        ],
    )
}

fn add_containers(decls: &mut Declarations) -> Result<(), DeclError> {
    decls.add_function(
        "_[_]",
        [
            Overload::global("index_list", vec![Type::list(a()), Type::Int], a()),
            Overload::global("index_map", vec![Type::map(a(), b()), a()], b()),
        ],
    )?;
    decls.add_function(
        "@in",
        [
            Overload::global("in_list", vec![a(), Type::list(a())], Type::Bool)
                .with_cost(element_scan(1)),
            Overload::global("in_map", vec![a(), Type::map(a(), b())], Type::Bool),
        ],
    )?;
    let sized = [
        ("bytes", Type::Bytes),
        ("list", Type::list(a())),
        ("map", Type::map(a(), b())),
        ("string", Type::String),
    ];
    let global = sized
        .iter()
        .map(|(name, ty)| Overload::global(format!("size_{name}"), vec![ty.clone()], Type::Int));
    let receiver = sized
        .iter()
        .map(|(name, ty)| Overload::receiver(format!("{name}_size"), vec![ty.clone()], Type::Int));
    decls.add_function("size", global.chain(receiver))
}

fn add_strings(decls: &mut Declarations) -> Result<(), DeclError> {
    use Type::{Bool, String};
    for (name, id) in [
        ("contains", "contains_string"),
        ("endsWith", "ends_with_string"),
        ("startsWith", "starts_with_string"),
    ] {
        decls.add_function(
            name,
            [Overload::receiver(id, vec![String, String], Bool).with_cost(string_scan(0))],
        )?;
    }
    decls.add_function(
        "matches",
        [
            Overload::global("matches", vec![String, String], Bool).with_cost(string_scan(0)),
            Overload::receiver("matches_string", vec![String, String], Bool)
                .with_cost(string_scan(0)),
        ],
    )
}

fn add_conversions(decls: &mut Declarations) -> Result<(), DeclError> {
    use Type::{Bool, Bytes, Double, Duration, Int, String, Timestamp, Uint};
    let mut convert = |name: &str, result: Type, sources: &[(&str, Type)]| {
        decls.add_function(
            name,
            sources
                .iter()
                .map(|(id, source)| Overload::global(*id, vec![source.clone()], result.clone())),
        )
    };
    convert(
        "int",
        Int,
        &[
            ("int64_to_int64", Int),
            ("uint64_to_int64", Uint),
            ("double_to_int64", Double),
            ("string_to_int64", String),
            ("timestamp_to_int64", Timestamp),
            ("duration_to_int64", Duration),
        ],
    )?;
    convert(
        "uint",
        Uint,
        &[
            ("uint64_to_uint64", Uint),
            ("int64_to_uint64", Int),
            ("double_to_uint64", Double),
            ("string_to_uint64", String),
        ],
    )?;
    convert(
        "double",
        Double,
        &[
            ("double_to_double", Double),
            ("int64_to_double", Int),
            ("uint64_to_double", Uint),
            ("string_to_double", String),
        ],
    )?;
    convert(
        "string",
        String,
        &[
            ("string_to_string", String),
            ("bool_to_string", Bool),
            ("int64_to_string", Int),
            ("uint64_to_string", Uint),
            ("double_to_string", Double),
            ("bytes_to_string", Bytes),
            ("timestamp_to_string", Timestamp),
            ("duration_to_string", Duration),
        ],
    )?;
    convert("bytes", Bytes, &[("bytes_to_bytes", Bytes), ("string_to_bytes", String)])?;
    convert("bool", Bool, &[("bool_to_bool", Bool), ("string_to_bool", String)])?;
    convert(
        "duration",
        Duration,
        &[("duration_to_duration", Duration), ("string_to_duration", String)],
    )?;
    convert(
        "timestamp",
        Timestamp,
        &[
            ("timestamp_to_timestamp", Timestamp),
            ("string_to_timestamp", String),
            ("int64_to_timestamp", Int),
        ],
    )?;
    convert("dyn", Type::Dyn, &[("to_dyn", a())])?;
    decls.add_function("type", [Overload::global("type", vec![a()], Type::type_of(a()))])
}

fn add_time_accessors(decls: &mut Declarations) -> Result<(), DeclError> {
    use Type::{Duration, Int, String, Timestamp};
    // (function, timestamp overload id, its timezone variant, duration overload id)
    let accessors = [
        ("getFullYear", "timestamp_to_year", "timestamp_to_year_with_tz", None),
        ("getMonth", "timestamp_to_month", "timestamp_to_month_with_tz", None),
        ("getDayOfYear", "timestamp_to_day_of_year", "timestamp_to_day_of_year_with_tz", None),
        ("getDayOfMonth", "timestamp_to_day_of_month", "timestamp_to_day_of_month_with_tz", None),
        (
            "getDate",
            "timestamp_to_day_of_month_1_based",
            "timestamp_to_day_of_month_1_based_with_tz",
            None,
        ),
        ("getDayOfWeek", "timestamp_to_day_of_week", "timestamp_to_day_of_week_with_tz", None),
        ("getHours", "timestamp_to_hours", "timestamp_to_hours_with_tz", Some("duration_to_hours")),
        (
            "getMinutes",
            "timestamp_to_minutes",
            "timestamp_to_minutes_with_tz",
            Some("duration_to_minutes"),
        ),
        // cel-go spells this one without "with".
        (
            "getSeconds",
            "timestamp_to_seconds",
            "timestamp_to_seconds_tz",
            Some("duration_to_seconds"),
        ),
        (
            "getMilliseconds",
            "timestamp_to_milliseconds",
            "timestamp_to_milliseconds_with_tz",
            Some("duration_to_milliseconds"),
        ),
    ];
    for (name, plain, with_tz, duration) in accessors {
        let mut overloads = vec![
            Overload::receiver(plain, vec![Timestamp], Int),
            Overload::receiver(with_tz, vec![Timestamp, String], Int),
        ];
        if let Some(id) = duration {
            overloads.push(Overload::receiver(id, vec![Duration], Int));
        }
        decls.add_function(name, overloads)?;
    }
    Ok(())
}
