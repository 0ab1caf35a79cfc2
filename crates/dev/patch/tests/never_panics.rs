//! Random objects and patches never panic, and merge patch matches RFC 7386 semantics.

use certgate_patch::{ApplyOptions, PatchType, apply_patch, builtin_strategy};
use proptest::prelude::*;
use serde_json::{Map, Value};

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        "[a-c$/]{0,4}".prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop_oneof![
                        "[a-c]{1,2}",
                        Just("$patch".to_owned()),
                        Just("$retainKeys".to_owned()),
                        Just("finalizers".to_owned()),
                        Just("$setElementOrder/finalizers".to_owned()),
                    ],
                    inner
                ),
                0..4
            )
            .prop_map(|pairs| Value::Object(pairs.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

proptest! {
    #[test]
    fn merge_patch_never_panics_and_follows_rfc7386(live in json_value(), patch in json_value()) {
        let body = patch.to_string();
        if let (Value::Object(live_map), Value::Object(patch_map)) = (&live, &patch) {
            let merged = apply_patch(&live, PatchType::Merge, body.as_bytes(), None, None).unwrap();
            for (key, value) in patch_map {
                match value {
                    Value::Null => prop_assert!(merged.get(key).is_none()),
                    Value::Object(_) => prop_assert!(merged.get(key).is_some_and(Value::is_object)),
                    other => prop_assert_eq!(merged.get(key), Some(other)),
                }
            }
            for (key, value) in live_map {
                if !patch_map.contains_key(key) {
                    prop_assert_eq!(merged.get(key), Some(value));
                }
            }
        } else {
            let _ = apply_patch(&live, PatchType::Merge, body.as_bytes(), None, None);
        }
    }

    #[test]
    fn other_patch_types_never_panic(live in json_value(), patch in json_value()) {
        let body = patch.to_string();
        let strategy = builtin_strategy("", "ConfigMap");
        let options = ApplyOptions { field_manager: "m".to_owned(), time: "t".to_owned(), ..ApplyOptions::default() };
        for patch_type in [PatchType::Json, PatchType::StrategicMerge, PatchType::Apply] {
            let _ = apply_patch(&live, patch_type, body.as_bytes(), strategy, Some(&options));
        }
    }
}
