//! The requester identity stamped on a CertificateRequest CREATE (`/mutate`,
//! cert-manager-requests spec §2.1): what the object carries, read in the same pass as the
//! review, and the JSON patch that makes it the requester's.

use std::collections::BTreeMap;

use serde::de::{IgnoredAny, MapAccess};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::lenient::{FromEntries, ObjectOr, Text};
use crate::objects::{CERTIFICATE_REQUEST, expect_type, wrong_type};
use crate::patch::{JsonPatch, Op, PatchBuilder};
use crate::verdict::Verdict;
use crate::wire::{NullableList, UserInfoIn};

/// Why a CREATE object of the right type could not be stamped.
const NO_SPEC: &str = "request.object has no `spec` object to stamp the requester identity into";

/// A CREATE's `request.object` as the identity stamp reads it, in the same pass as the
/// rest of the review: its type and `spec`'s identity fields. Everything else (the CSR
/// above all) is skipped unparsed, since the patch never touches it.
pub(crate) type StampObject = ObjectOr<StampFields>;

pub(crate) struct StampFields {
    api_version: Text,
    kind: Text,
    /// `None` when absent or `null`.
    spec: Option<ObjectOr<Carried>>,
}

/// The identity fields `spec` carries, each as given (any JSON type).
#[derive(Default)]
pub(crate) struct Carried {
    uid: Option<Value>,
    username: Option<Value>,
    groups: Option<Value>,
    extra: Option<Value>,
}

/// The RFC 6902 patch that turns `object` into the same object carrying the requester's
/// identity: uid, username and groups always written (`""`, `[]` when empty), `extra`
/// replaced by the requester's extras, or removed when there are none. A field that
/// already holds the wanted value gets no operation, so a CREATE that already carries the
/// identity gets no patch.
pub(crate) fn stamp(object: &StampObject, user: &UserInfoIn) -> Result<Option<JsonPatch>, Verdict> {
    let ObjectOr::Object(object) = object else {
        return Err(wrong_type("", "", "object", CERTIFICATE_REQUEST));
    };
    expect_type(&object.api_version.0, &object.kind.0, "object", CERTIFICATE_REQUEST)?;
    let Some(ObjectOr::Object(carried)) = &object.spec else {
        return Err(Verdict::bad_request(NO_SPEC));
    };
    let mut patch = PatchBuilder::default();
    match write_identity(&mut patch, carried, user) {
        Ok(()) => Ok(patch.finish()),
        Err(err) => {
            Err(Verdict::internal(format!("the identity patch could not be written: {err}")))
        }
    }
}

/// Pushes the operations for each identity field, in the order uid, username, groups, extra.
fn write_identity(
    patch: &mut PatchBuilder,
    carried: &Carried,
    user: &UserInfoIn,
) -> Result<(), serde_json::Error> {
    set(patch, "/spec/uid", &carried.uid, Some(&user.uid), |v| v.as_str() == Some(&user.uid))?;
    set(patch, "/spec/username", &carried.username, Some(&user.username), |v| {
        v.as_str() == Some(&user.username)
    })?;
    set(patch, "/spec/groups", &carried.groups, Some(&user.groups), |v| {
        same_strings(v, &user.groups)
    })?;
    let extra = (!user.extra.is_empty()).then_some(&user.extra);
    set(patch, "/spec/extra", &carried.extra, extra, |v| same_extra(v, &user.extra))
}

/// Pushes the operation, if any, that makes the field at `path` hold `wanted` (`None`:
/// absent), given what it `carried` and whether that already `matches` the wanted value.
fn set<V: Serialize>(
    patch: &mut PatchBuilder,
    path: &str,
    carried: &Option<Value>,
    wanted: Option<&V>,
    matches: impl FnOnce(&Value) -> bool,
) -> Result<(), serde_json::Error> {
    match (carried, wanted) {
        (None, None) => Ok(()),
        (Some(_), None) => patch.push(Op::Remove, path, &()),
        (None, Some(value)) => patch.push(Op::Add, path, value),
        (Some(carried), Some(_)) if matches(carried) => Ok(()),
        (Some(_), Some(value)) => patch.push(Op::Replace, path, value),
    }
}

/// A JSON array of exactly these strings, in this order (JSON equality).
fn same_strings(value: &Value, strings: &[String]) -> bool {
    value.as_array().is_some_and(|items| {
        items.len() == strings.len()
            && items.iter().zip(strings).all(|(item, s)| item.as_str() == Some(s))
    })
}

/// A JSON object with exactly these keys, each holding these strings in order.
fn same_extra(value: &Value, extra: &BTreeMap<String, NullableList>) -> bool {
    value.as_object().is_some_and(|map| {
        map.len() == extra.len()
            && extra
                .iter()
                .all(|(key, list)| map.get(key).is_some_and(|v| same_strings(v, &list.0)))
    })
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "camelCase")]
enum ObjectKey {
    ApiVersion,
    Kind,
    Spec,
    #[serde(other)]
    Other,
}

impl<'de> FromEntries<'de> for StampFields {
    fn from_entries<M: MapAccess<'de>>(mut map: M) -> Result<Self, M::Error> {
        let mut fields =
            StampFields { api_version: Text::default(), kind: Text::default(), spec: None };
        while let Some(key) = map.next_key::<ObjectKey>()? {
            match key {
                ObjectKey::ApiVersion => fields.api_version = map.next_value()?,
                ObjectKey::Kind => fields.kind = map.next_value()?,
                ObjectKey::Spec => fields.spec = map.next_value()?,
                ObjectKey::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(fields)
    }
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "lowercase")]
enum SpecKey {
    Uid,
    Username,
    Groups,
    Extra,
    #[serde(other)]
    Other,
}

impl<'de> FromEntries<'de> for Carried {
    fn from_entries<M: MapAccess<'de>>(mut map: M) -> Result<Self, M::Error> {
        let mut carried = Carried::default();
        while let Some(key) = map.next_key::<SpecKey>()? {
            let slot = match key {
                SpecKey::Uid => &mut carried.uid,
                SpecKey::Username => &mut carried.username,
                SpecKey::Groups => &mut carried.groups,
                SpecKey::Extra => &mut carried.extra,
                SpecKey::Other => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            *slot = Some(map.next_value()?);
        }
        Ok(carried)
    }
}
