//! Reading request bodies field by field, refusing wrong JSON types with the 400 that
//! kube-apiserver's decoder gives (`<Kind> in version "v1" cannot be handled as a <Kind>:
//! json: cannot unmarshal ...`). Absent and `null` fields read as Go's zero values; unknown
//! fields are ignored, as with the default `fieldValidation=Warn`.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::status::StatusError;

/// The kind being decoded, for error messages.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Decoder {
    pub(crate) kind: &'static str,
}

/// Where a field sits: the Go struct that holds it and its JSON path from the root.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Field<'a> {
    pub(crate) go_struct: &'a str,
    pub(crate) path: &'a str,
}

impl Decoder {
    /// The body as a JSON object.
    pub(crate) fn root<'v>(&self, body: &'v Value) -> Result<&'v Map<String, Value>, StatusError> {
        match body {
            Value::Object(map) => Ok(map),
            other => Err(StatusError::bad_request(format!(
                "{kind} in version \"v1\" cannot be handled as a {kind}: json: cannot unmarshal \
                 {} into Go value of type v1.{kind}",
                certgate_gofmt::unmarshal_kind(other),
                kind = self.kind
            ))),
        }
    }

    /// A nested object; `None` when absent or null.
    pub(crate) fn object<'v>(
        &self,
        value: Option<&'v Value>,
        field: Field<'_>,
        go_type: &str,
    ) -> Result<Option<&'v Map<String, Value>>, StatusError> {
        match value {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Object(map)) => Ok(Some(map)),
            Some(other) => Err(self.type_error(other, field, go_type)),
        }
    }

    pub(crate) fn string(
        &self,
        value: Option<&Value>,
        field: Field<'_>,
    ) -> Result<String, StatusError> {
        self.string_typed(value, field, "string")
    }

    /// A string of a named Go string type (`types.UID`).
    pub(crate) fn string_typed(
        &self,
        value: Option<&Value>,
        field: Field<'_>,
        go_type: &str,
    ) -> Result<String, StatusError> {
        match value {
            None | Some(Value::Null) => Ok(String::new()),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(other) => Err(self.type_error(other, field, go_type)),
        }
    }

    pub(crate) fn int64(
        &self,
        value: Option<&Value>,
        field: Field<'_>,
    ) -> Result<Option<i64>, StatusError> {
        match value {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => match n.as_i64() {
                Some(i) => Ok(Some(i)),
                None => Err(self.error(&format!("number {n}"), field, "int64")),
            },
            Some(other) => Err(self.type_error(other, field, "int64")),
        }
    }

    pub(crate) fn strings(
        &self,
        value: Option<&Value>,
        field: Field<'_>,
    ) -> Result<Vec<String>, StatusError> {
        self.strings_typed(value, field, "[]string")
    }

    /// A list of strings of a named slice type (`v1.ExtraValue`).
    pub(crate) fn strings_typed(
        &self,
        value: Option<&Value>,
        field: Field<'_>,
        go_type: &str,
    ) -> Result<Vec<String>, StatusError> {
        match value {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| match item {
                    // Go decodes a null element of []string as "".
                    Value::Null => Ok(String::new()),
                    Value::String(s) => Ok(s.clone()),
                    other => Err(self.type_error(other, field, "string")),
                })
                .collect(),
            Some(other) => Err(self.type_error(other, field, go_type)),
        }
    }

    /// `map[string]v1.ExtraValue`.
    pub(crate) fn extra(
        &self,
        value: Option<&Value>,
        field: Field<'_>,
    ) -> Result<BTreeMap<String, Vec<String>>, StatusError> {
        let Some(map) = self.object(value, field, "map[string]v1.ExtraValue")? else {
            return Ok(BTreeMap::new());
        };
        let mut extra = BTreeMap::new();
        for (key, values) in map {
            extra.insert(key.clone(), self.strings_typed(Some(values), field, "v1.ExtraValue")?);
        }
        Ok(extra)
    }

    fn type_error(&self, value: &Value, field: Field<'_>, go_type: &str) -> StatusError {
        self.error(certgate_gofmt::unmarshal_kind(value), field, go_type)
    }

    fn error(&self, found: &str, field: Field<'_>, go_type: &str) -> StatusError {
        StatusError::bad_request(format!(
            "{kind} in version \"v1\" cannot be handled as a {kind}: json: cannot unmarshal \
             {found} into Go struct field {}.{} of type {go_type}",
            field.go_struct,
            field.path,
            kind = self.kind
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const D: Decoder = Decoder { kind: "TokenRequest" };
    const F: Field<'static> =
        Field { go_struct: "TokenRequestSpec", path: "spec.expirationSeconds" };

    #[test]
    fn wrong_types_read_like_go() {
        assert_eq!(D.int64(Some(&json!(3600)), F), Ok(Some(3600)));
        assert_eq!(D.int64(Some(&json!(null)), F), Ok(None));
        assert_eq!(
            D.int64(Some(&json!("1h")), F).unwrap_err().message,
            r#"TokenRequest in version "v1" cannot be handled as a TokenRequest: json: cannot unmarshal string into Go struct field TokenRequestSpec.spec.expirationSeconds of type int64"#
        );
        assert_eq!(
            D.int64(Some(&json!(1.5)), F).unwrap_err().message,
            r#"TokenRequest in version "v1" cannot be handled as a TokenRequest: json: cannot unmarshal number 1.5 into Go struct field TokenRequestSpec.spec.expirationSeconds of type int64"#
        );
        assert_eq!(D.strings(Some(&json!(["a", null])), F), Ok(vec!["a".into(), String::new()]));
        assert!(D.strings(Some(&json!([1])), F).is_err());
        assert_eq!(
            D.root(&json!([])).unwrap_err().message,
            r#"TokenRequest in version "v1" cannot be handled as a TokenRequest: json: cannot unmarshal array into Go value of type v1.TokenRequest"#
        );
        let extra = D.extra(Some(&json!({"k": ["v"]})), F).expect("extra");
        assert_eq!(extra.get("k"), Some(&vec!["v".to_owned()]));
    }
}
