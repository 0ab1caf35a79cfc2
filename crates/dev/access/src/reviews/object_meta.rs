//! The `metadata` of a review request: decoded, checked for emptiness as
//! `apiequality.Semantic.DeepEqual(metav1.ObjectMeta{}, ...)` does, and printed with Go's
//! `%#v`, which is how a 1.33 field error shows an `ObjectMeta`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use chrono::{DateTime, Datelike, Timelike};
use serde_json::{Map, Value};

use crate::decode::{Decoder, Field};
use crate::status::StatusError;
use certgate_gofmt::quote;

/// The fields of `metav1.ObjectMeta` a client can send, `managedFields` aside (validation
/// ignores it; kube-apiserver sets its own).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ObjectMeta {
    pub(crate) name: String,
    pub(crate) generate_name: String,
    pub(crate) namespace: String,
    pub(crate) self_link: String,
    pub(crate) uid: String,
    pub(crate) resource_version: String,
    pub(crate) generation: i64,
    pub(crate) creation_timestamp: Option<DateTime<chrono::FixedOffset>>,
    pub(crate) deletion_timestamp: Option<DateTime<chrono::FixedOffset>>,
    pub(crate) deletion_grace_period_seconds: Option<i64>,
    pub(crate) labels: Option<BTreeMap<String, String>>,
    pub(crate) annotations: Option<BTreeMap<String, String>>,
    pub(crate) owner_references: Option<Vec<Map<String, Value>>>,
    pub(crate) finalizers: Option<Vec<String>>,
}

impl ObjectMeta {
    pub(crate) fn decode(decoder: &Decoder, value: Option<&Value>) -> Result<Self, StatusError> {
        let top = Field { go_struct: decoder.kind, path: "metadata" };
        let Some(map) = decoder.object(value, top, "v1.ObjectMeta")? else {
            return Ok(ObjectMeta::default());
        };
        let string = |key: &str, path: &str| {
            decoder.string(map.get(key), Field { go_struct: "ObjectMeta", path })
        };
        let field = |path| Field { go_struct: "ObjectMeta", path };
        Ok(ObjectMeta {
            name: string("name", "metadata.name")?,
            generate_name: string("generateName", "metadata.generateName")?,
            namespace: string("namespace", "metadata.namespace")?,
            self_link: string("selfLink", "metadata.selfLink")?,
            uid: decoder.string_typed(map.get("uid"), field("metadata.uid"), "types.UID")?,
            resource_version: string("resourceVersion", "metadata.resourceVersion")?,
            generation: decoder
                .int64(map.get("generation"), field("metadata.generation"))?
                .unwrap_or(0),
            creation_timestamp: time(
                decoder,
                map.get("creationTimestamp"),
                field("metadata.creationTimestamp"),
            )?,
            deletion_timestamp: time(
                decoder,
                map.get("deletionTimestamp"),
                field("metadata.deletionTimestamp"),
            )?,
            deletion_grace_period_seconds: decoder.int64(
                map.get("deletionGracePeriodSeconds"),
                field("metadata.deletionGracePeriodSeconds"),
            )?,
            labels: string_map(decoder, map.get("labels"), field("metadata.labels"))?,
            annotations: string_map(
                decoder,
                map.get("annotations"),
                field("metadata.annotations"),
            )?,
            owner_references: match map.get("ownerReferences") {
                None | Some(Value::Null) => None,
                Some(Value::Array(items)) => Some(
                    items
                        .iter()
                        .map(|item| {
                            decoder
                                .object(
                                    Some(item),
                                    field("metadata.ownerReferences"),
                                    "v1.OwnerReference",
                                )
                                .map(|o| o.cloned().unwrap_or_default())
                        })
                        .collect::<Result<_, _>>()?,
                ),
                Some(other) => {
                    decoder.object(
                        Some(other),
                        field("metadata.ownerReferences"),
                        "[]v1.OwnerReference",
                    )?;
                    None
                }
            },
            finalizers: match map.get("finalizers") {
                None | Some(Value::Null) => None,
                value => Some(decoder.strings(value, field("metadata.finalizers"))?),
            },
        })
    }

    /// Whether nothing is set; nil and empty maps and lists count as unset.
    pub(crate) fn is_empty(&self) -> bool {
        self.name.is_empty()
            && self.generate_name.is_empty()
            && self.namespace.is_empty()
            && self.self_link.is_empty()
            && self.uid.is_empty()
            && self.resource_version.is_empty()
            && self.generation == 0
            && self.creation_timestamp.is_none()
            && self.deletion_timestamp.is_none()
            && self.deletion_grace_period_seconds.is_none()
            && self.labels.as_ref().is_none_or(BTreeMap::is_empty)
            && self.annotations.as_ref().is_none_or(BTreeMap::is_empty)
            && self.owner_references.as_ref().is_none_or(Vec::is_empty)
            && self.finalizers.as_ref().is_none_or(Vec::is_empty)
    }

    /// Go's `%#v` of the decoded `v1.ObjectMeta`. Pointer addresses cannot be reproduced and
    /// are printed as `0xc000000000`; `ManagedFields` is printed as nil.
    pub(crate) fn go_syntax(&self) -> String {
        let mut out = String::from("v1.ObjectMeta{");
        let _ = write!(
            out,
            "Name:{}, GenerateName:{}, Namespace:{}, SelfLink:{}, UID:{}, ResourceVersion:{}, \
             Generation:{}, CreationTimestamp:{}, DeletionTimestamp:{}, \
             DeletionGracePeriodSeconds:{}, Labels:{}, Annotations:{}, OwnerReferences:{}, \
             Finalizers:{}, ManagedFields:[]v1.ManagedFieldsEntry(nil)}}",
            quote(&self.name),
            quote(&self.generate_name),
            quote(&self.namespace),
            quote(&self.self_link),
            quote(&self.uid),
            quote(&self.resource_version),
            self.generation,
            self.creation_timestamp.as_ref().map_or_else(zero_time, go_time),
            self.deletion_timestamp.as_ref().map_or_else(|| "<nil>".to_owned(), go_time),
            pointer("int64", self.deletion_grace_period_seconds.is_some()),
            string_map_syntax(self.labels.as_ref()),
            string_map_syntax(self.annotations.as_ref()),
            owner_references_syntax(self.owner_references.as_deref()),
            match &self.finalizers {
                None => "[]string(nil)".to_owned(),
                Some(items) => format!(
                    "[]string{{{}}}",
                    items.iter().map(|s| quote(s)).collect::<Vec<_>>().join(", ")
                ),
            },
        );
        out
    }
}

/// `metav1.Time`: RFC 3339 or null.
fn time(
    decoder: &Decoder,
    value: Option<&Value>,
    field: Field<'_>,
) -> Result<Option<DateTime<chrono::FixedOffset>>, StatusError> {
    let text = decoder.string_typed(value, field, "v1.Time")?;
    if text.is_empty() {
        return Ok(None);
    }
    DateTime::parse_from_rfc3339(&text).map(Some).map_err(|_| {
        StatusError::bad_request(format!(
            "{kind} in version \"v1\" cannot be handled as a {kind}: parsing time {} as \
             \"2006-01-02T15:04:05Z07:00\": cannot parse it as RFC 3339",
            quote(&text),
            kind = decoder.kind
        ))
    })
}

fn string_map(
    decoder: &Decoder,
    value: Option<&Value>,
    field: Field<'_>,
) -> Result<Option<BTreeMap<String, String>>, StatusError> {
    let Some(map) = decoder.object(value, field, "map[string]string")? else { return Ok(None) };
    let mut out = BTreeMap::new();
    for (key, value) in map {
        out.insert(key.clone(), decoder.string(Some(value), field)?);
    }
    Ok(Some(out))
}

/// `time.Time.GoString()` of a time decoded by `metav1.Time` (which converts to local time;
/// the sandbox's local zone is taken to be UTC).
fn go_time(time: &DateTime<chrono::FixedOffset>) -> String {
    let utc = time.naive_utc();
    let months = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    let month = months.get(utc.month0() as usize).copied().unwrap_or("January");
    format!(
        "time.Date({}, time.{month}, {}, {}, {}, {}, {}, time.Local)",
        utc.year(),
        utc.day(),
        utc.hour(),
        utc.minute(),
        utc.second(),
        utc.nanosecond()
    )
}

fn zero_time() -> String {
    "time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC)".to_owned()
}

fn pointer(go_type: &str, set: bool) -> String {
    if set { format!("(*{go_type})(0xc000000000)") } else { format!("(*{go_type})(nil)") }
}

fn string_map_syntax(map: Option<&BTreeMap<String, String>>) -> String {
    match map {
        None => "map[string]string(nil)".to_owned(),
        Some(map) => {
            let entries: Vec<String> =
                map.iter().map(|(k, v)| format!("{}:{}", quote(k), quote(v))).collect();
            format!("map[string]string{{{}}}", entries.join(", "))
        }
    }
}

fn owner_references_syntax(references: Option<&[Map<String, Value>]>) -> String {
    let Some(references) = references else { return "[]v1.OwnerReference(nil)".to_owned() };
    let text = |r: &Map<String, Value>, key: &str| {
        quote(r.get(key).and_then(Value::as_str).unwrap_or_default())
    };
    let flag = |r: &Map<String, Value>, key: &str| {
        pointer("bool", r.get(key).is_some_and(|v| !v.is_null()))
    };
    let items: Vec<String> = references
        .iter()
        .map(|r| {
            format!(
                "v1.OwnerReference{{APIVersion:{}, Kind:{}, Name:{}, UID:{}, Controller:{}, \
                 BlockOwnerDeletion:{}}}",
                text(r, "apiVersion"),
                text(r, "kind"),
                text(r, "name"),
                text(r, "uid"),
                flag(r, "controller"),
                flag(r, "blockOwnerDeletion"),
            )
        })
        .collect();
    format!("[]v1.OwnerReference{{{}}}", items.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const D: Decoder = Decoder { kind: "SubjectAccessReview" };

    #[test]
    fn emptiness_ignores_nil_versus_empty() {
        for empty in [
            json!(null),
            json!({}),
            json!({"labels": {}, "finalizers": [], "creationTimestamp": null, "managedFields": [{"manager": "kubectl"}]}),
        ] {
            assert!(ObjectMeta::decode(&D, Some(&empty)).expect("decodes").is_empty(), "{empty}");
        }
        for set in [json!({"name": "x"}), json!({"labels": {"a": "b"}}), json!({"generation": 2})] {
            assert!(!ObjectMeta::decode(&D, Some(&set)).expect("decodes").is_empty(), "{set}");
        }
    }

    #[test]
    fn prints_like_go() {
        let meta = ObjectMeta::decode(
            &D,
            Some(&json!({
                "name": "x",
                "labels": {"b": "2", "a": "1"},
                "creationTimestamp": "2024-03-04T05:06:07Z",
                "finalizers": ["f"],
            })),
        )
        .expect("decodes");
        assert_eq!(
            meta.go_syntax(),
            r#"v1.ObjectMeta{Name:"x", GenerateName:"", Namespace:"", SelfLink:"", UID:"", ResourceVersion:"", Generation:0, CreationTimestamp:time.Date(2024, time.March, 4, 5, 6, 7, 0, time.Local), DeletionTimestamp:<nil>, DeletionGracePeriodSeconds:(*int64)(nil), Labels:map[string]string{"a":"1", "b":"2"}, Annotations:map[string]string(nil), OwnerReferences:[]v1.OwnerReference(nil), Finalizers:[]string{"f"}, ManagedFields:[]v1.ManagedFieldsEntry(nil)}"#
        );
        assert_eq!(ObjectMeta::default().go_syntax().matches("(nil)").count(), 6);
    }

    #[test]
    fn bad_types_are_bad_requests() {
        let status = ObjectMeta::decode(&D, Some(&json!({"name": 1}))).unwrap_err();
        assert_eq!(
            status.message,
            r#"SubjectAccessReview in version "v1" cannot be handled as a SubjectAccessReview: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string"#
        );
        assert!(ObjectMeta::decode(&D, Some(&json!({"creationTimestamp": "yesterday"}))).is_err());
    }
}
