//! Declarations of the cel-go extensions issue #3 asks for: strings (version 3, which
//! adds `reverse` to version 2) and optionals.

use super::decls::{CostHint, DeclError, Declarations, Overload};
use super::types::{OPTIONAL_TYPE_NAME, Type};

fn string_scan(arg: usize) -> CostHint {
    CostHint::Linear { arg, tenths_per_unit: 1 }
}

/// Adds the strings extension: `charAt`, `indexOf`, `lastIndexOf`, `lowerAscii`,
/// `upperAscii`, `replace`, `split`, `substring`, `trim`, `join`, `format`,
/// `strings.quote` and `reverse`.
pub fn add_strings_extension(decls: &mut Declarations) -> Result<(), DeclError> {
    use Type::{Int, String};
    let strings = || Type::list(String);
    let scan = string_scan(0);
    decls.add_function(
        "charAt",
        [Overload::receiver("string_char_at_int", vec![String, Int], String)],
    )?;
    for (name, prefix) in [("indexOf", "string_index_of"), ("lastIndexOf", "string_last_index_of")]
    {
        decls.add_function(
            name,
            [
                Overload::receiver(format!("{prefix}_string"), vec![String, String], Int)
                    .with_cost(scan),
                Overload::receiver(format!("{prefix}_string_int"), vec![String, String, Int], Int)
                    .with_cost(scan),
            ],
        )?;
    }
    for (name, id) in [
        ("lowerAscii", "string_lower_ascii"),
        ("upperAscii", "string_upper_ascii"),
        ("trim", "string_trim"),
        ("reverse", "string_reverse"),
    ] {
        decls.add_function(name, [Overload::receiver(id, vec![String], String).with_cost(scan)])?;
    }
    decls.add_function(
        "replace",
        [
            Overload::receiver(
                "string_replace_string_string",
                vec![String, String, String],
                String,
            )
            .with_cost(scan),
            Overload::receiver(
                "string_replace_string_string_int",
                vec![String, String, String, Int],
                String,
            )
            .with_cost(scan),
        ],
    )?;
    decls.add_function(
        "split",
        [
            Overload::receiver("string_split_string", vec![String, String], strings())
                .with_cost(scan),
            Overload::receiver("string_split_string_int", vec![String, String, Int], strings())
                .with_cost(scan),
        ],
    )?;
    decls.add_function(
        "substring",
        [
            Overload::receiver("string_substring_int", vec![String, Int], String).with_cost(scan),
            Overload::receiver("string_substring_int_int", vec![String, Int, Int], String)
                .with_cost(scan),
        ],
    )?;
    decls.add_function(
        "join",
        [
            Overload::receiver("list_join", vec![strings()], String).with_cost(scan),
            Overload::receiver("list_join_string", vec![strings(), String], String).with_cost(scan),
        ],
    )?;
    decls.add_function(
        "format",
        [Overload::receiver("string_format", vec![String, Type::list(Type::Dyn)], String)
            .with_cost(scan)],
    )?;
    decls.add_function(
        "strings.quote",
        [Overload::global("strings_quote", vec![String], String).with_cost(scan)],
    )
}

/// Adds the optional-value library: `optional.of`, `optional.ofNonZeroValue`,
/// `optional.none`, `optional.unwrap`, `hasValue`, `value`, `or`, `orValue`, and the
/// operators behind `x.?f`, `x[?i]` and indexing an optional container.
pub fn add_optionals(decls: &mut Declarations) -> Result<(), DeclError> {
    let v = || Type::param("V");
    let k = || Type::param("K");
    let opt = Type::optional;
    // The type name as a value: `type(optional.none()) == optional_type`.
    decls.add_variable(OPTIONAL_TYPE_NAME, Type::type_of(opt(Type::Dyn)))?;
    decls.add_function("optional.of", [Overload::global("optional_of", vec![v()], opt(v()))])?;
    decls.add_function(
        "optional.ofNonZeroValue",
        [Overload::global("optional_ofNonZeroValue", vec![v()], opt(v()))],
    )?;
    decls.add_function("optional.none", [Overload::global("optional_none", vec![], opt(v()))])?;
    decls.add_function(
        "optional.unwrap",
        [Overload::global("optional_unwrap", vec![Type::list(opt(v()))], Type::list(v()))],
    )?;
    decls.add_function(
        "hasValue",
        [Overload::receiver("optional_hasValue", vec![opt(v())], Type::Bool)],
    )?;
    decls.add_function("value", [Overload::receiver("optional_value", vec![opt(v())], v())])?;
    decls.add_function(
        "or",
        [Overload::receiver("optional_or_optional", vec![opt(v()), opt(v())], opt(v()))],
    )?;
    decls.add_function(
        "orValue",
        [Overload::receiver("optional_orValue_value", vec![opt(v()), v()], v())],
    )?;
    // `x.?f`: the checker types the field itself; the declaration keeps the call valid.
    decls.add_function(
        "_?._",
        [Overload::global("select_optional_field", vec![Type::Dyn, Type::String], opt(v()))],
    )?;
    decls.add_function(
        "_[?_]",
        [
            Overload::global(
                "list_optindex_optional_int",
                vec![Type::list(v()), Type::Int],
                opt(v()),
            ),
            Overload::global(
                "optional_list_optindex_optional_int",
                vec![opt(Type::list(v())), Type::Int],
                opt(v()),
            ),
            Overload::global(
                "map_optindex_optional_value",
                vec![Type::map(k(), v()), k()],
                opt(v()),
            ),
            Overload::global(
                "optional_map_optindex_optional_value",
                vec![opt(Type::map(k(), v())), k()],
                opt(v()),
            ),
        ],
    )?;
    // Indexing an optional list or map yields an optional; joins the standard `_[_]`.
    decls.add_function(
        "_[_]",
        [
            Overload::global(
                "optional_list_index_int",
                vec![opt(Type::list(v())), Type::Int],
                opt(v()),
            ),
            Overload::global(
                "optional_map_index_value",
                vec![opt(Type::map(k(), v())), k()],
                opt(v()),
            ),
        ],
    )
}
