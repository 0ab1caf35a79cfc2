//! Arbitrary source never panics on parse or execute.

mod common;

use proptest::prelude::*;

/// Pieces that steer random sources into the interesting parts of the grammar.
fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("{{".to_owned()),
        Just("}}".to_owned()),
        Just("{{hub".to_owned()),
        Just("hub}}".to_owned()),
        Just("{{- ".to_owned()),
        Just(" -}}".to_owned()),
        Just("if ".to_owned()),
        Just("else ".to_owned()),
        Just("end".to_owned()),
        Just("range ".to_owned()),
        Just("with ".to_owned()),
        Just("define \"d\"".to_owned()),
        Just("template \"d\" .".to_owned()),
        Just("block \"b\" .".to_owned()),
        Just("break".to_owned()),
        Just("$x := ".to_owned()),
        Just(" | ".to_owned()),
        Just("(".to_owned()),
        Just(")".to_owned()),
        Just(".List".to_owned()),
        Just("fromX ".to_owned()),
        Just("fromSecret \"a\" ".to_owned()),
        Just("printf \"%d\" ".to_owned()),
        Just("index . 1".to_owned()),
        Just("\"s\"".to_owned()),
        Just("`r`".to_owned()),
        Just("'c'".to_owned()),
        Just("1.5e3".to_owned()),
        Just("/*".to_owned()),
        Just("*/".to_owned()),
        Just("\n".to_owned()),
        "[ -~]{0,6}",
        any::<String>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_sources_never_panic(parts in prop::collection::vec(fragment(), 0..24)) {
        let source: String = parts.concat();
        for engine in [common::engine(), common::hub()] {
            if let Ok(parsed) = engine.parse(&source) {
                let _ = parsed.execute(&common::data());
            }
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(source in any::<String>()) {
        if let Ok(parsed) = common::engine().parse(&source) {
            let _ = parsed.execute(&common::data());
        }
    }
}
