//! Reading the few fields a decision needs from tenant-written JSON without rejecting the
//! rest of it: a field of an unexpected JSON type reads as "something else" and is
//! reported by the rule that needed it, with that rule's message.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};

/// A JSON value read for its text: a string, or anything else (then empty), so that a
/// mistyped `apiVersion` is reported as a wrong type rather than a decoding error.
#[derive(Debug, Default)]
pub(crate) struct Text(pub(crate) String);

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct TextVisitor;

        impl<'de> Visitor<'de> for TextVisitor {
            type Value = Text;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }

            fn visit_str<E: de::Error>(self, text: &str) -> Result<Text, E> {
                Ok(Text(text.to_owned()))
            }

            fn visit_string<E: de::Error>(self, text: String) -> Result<Text, E> {
                Ok(Text(text))
            }

            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Text, M::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Text::default())
            }

            fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Text, S::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Text::default())
            }

            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Text, E> {
                Ok(Text::default())
            }

            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Text, E> {
                Ok(Text::default())
            }

            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Text, E> {
                Ok(Text::default())
            }

            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Text, E> {
                Ok(Text::default())
            }

            fn visit_unit<E: de::Error>(self) -> Result<Text, E> {
                Ok(Text::default())
            }
        }

        d.deserialize_any(TextVisitor)
    }
}

/// A type read from the entries of a JSON object, each key once in order; a repeated key
/// counts with its last value, as the API server's decoder takes it.
pub(crate) trait FromEntries<'de>: Sized {
    fn from_entries<M: MapAccess<'de>>(map: M) -> Result<Self, M::Error>;
}

/// A JSON object read as `T`, or any other JSON value, skipped. serde's derived structs
/// would also read a struct from an array, by position; this never does.
pub(crate) enum ObjectOr<T> {
    Object(T),
    Other,
}

impl<'de, T: FromEntries<'de>> Deserialize<'de> for ObjectOr<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ObjectOrVisitor(PhantomData))
    }
}

struct ObjectOrVisitor<T>(PhantomData<T>);

impl<'de, T: FromEntries<'de>> Visitor<'de> for ObjectOrVisitor<T> {
    type Value = ObjectOr<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<Self::Value, M::Error> {
        T::from_entries(map).map(ObjectOr::Object)
    }

    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(ObjectOr::Other)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(ObjectOr::Other)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(ObjectOr::Other)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(ObjectOr::Other)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(ObjectOr::Other)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(ObjectOr::Other)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(ObjectOr::Other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Default, PartialEq)]
    struct Keys(Vec<String>);

    impl<'de> FromEntries<'de> for Keys {
        fn from_entries<M: MapAccess<'de>>(mut map: M) -> Result<Self, M::Error> {
            let mut keys = Vec::new();
            while let Some(key) = map.next_key::<String>()? {
                map.next_value::<IgnoredAny>()?;
                keys.push(key);
            }
            Ok(Keys(keys))
        }
    }

    fn read(json: &str) -> Option<Keys> {
        match serde_json::from_str::<ObjectOr<Keys>>(json).unwrap() {
            ObjectOr::Object(keys) => Some(keys),
            ObjectOr::Other => None,
        }
    }

    #[test]
    fn objects_are_read_and_everything_else_is_skipped() {
        assert_eq!(
            read(r#"{"a": [1, {"b": 2}], "c": null}"#),
            Some(Keys(vec!["a".into(), "c".into()]))
        );
        for other in ["[1, [2], {\"a\": 3}]", "\"text\"", "1", "-1", "1.5", "true", "null"] {
            assert_eq!(read(other), None, "{other}");
        }
    }

    #[test]
    fn text_is_empty_for_anything_but_a_string() {
        let text = |json: &str| serde_json::from_str::<Text>(json).unwrap().0;
        assert_eq!(text(r#""cert-manager.io/v1""#), "cert-manager.io/v1");
        for other in ["1", "null", "[\"v1\"]", "{\"a\": \"v1\"}"] {
            assert_eq!(text(other), "", "{other}");
        }
    }
}
