//! Generated JSON values for the encode comparison: strings the emitter must quote or write
//! as literal blocks, keys needing quotes, numbers at the int/float boundaries, empty and
//! nested collections.

use proptest::prelude::*;
use serde_json::{Map, Number, Value};

use super::docs::PLAIN_ATOMS;

/// Characters that change how a string is emitted, plus ordinary ones.
const CHARS: &[char] = &[
    'a', 'b', ' ', ' ', '\n', '\n', '\t', ':', '#', '-', '\'', '"', '{', '}', '[', ']', '|', '>',
    '&', '*', '!', '%', '@', '`', '\r', '\u{85}', 'é', '\u{2028}', '😀', '\u{1}', '\u{7f}',
    '\u{feff}', ',', '?', '~', '0', '1', '.', 'e', 'y', '\\', '/', '=',
];

fn string() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::collection::vec(prop::sample::select(CHARS), 0..12)
            .prop_map(|chars| chars.into_iter().collect()),
        2 => prop::sample::select(PLAIN_ATOMS).prop_map(str::to_owned),
        1 => prop::sample::select(&[
            "", " ", "\n", "\n\n", "a\n", "a\n\n", "a\n\n\n", "\na", " a\nb", "a \nb", "a\n b",
            "{{ x }}", "{x", "- a", "---", "...", "--- a", "a: b", "#", "a #b", "<<", "=",
        ][..])
        .prop_map(str::to_owned),
        1 => (1usize..4).prop_map(|n| "long".repeat(n * 40)),
    ]
}

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1000i64..1000).prop_map(Value::from),
        any::<f64>()
            .prop_filter_map("JSON has no NaN or infinities", Number::from_f64)
            .prop_map(Value::Number),
        prop::sample::select(
            &[
                0.5,
                1.0,
                -1.0,
                0.1,
                1e20,
                1e21,
                1e-7,
                123456789.0,
                1.5e300,
                5e-324,
                -0.0,
                9007199254740993.0,
                18446744073709551616.0,
                9.223372036854776e18,
            ][..]
        )
        .prop_filter_map("finite", Number::from_f64)
        .prop_map(Value::Number),
    ]
}

pub fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        1 => Just(Value::Null),
        1 => any::<bool>().prop_map(Value::Bool),
        3 => number(),
        6 => string().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 40, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((string(), inner), 0..5)
                .prop_map(|entries| Value::Object(entries.into_iter().collect::<Map<_, _>>())),
        ]
    })
}
