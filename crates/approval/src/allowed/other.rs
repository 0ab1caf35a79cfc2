//! The attributes without a fixed field: SAN otherNames and non-standard SANs, and Subject
//! RDNs whose OID has no named field (`subject.otherAttributes`) or whose value is not a
//! string. Both work by OID: request values grouped by OID, each group checked against the
//! policy entry for that OID, then `required` entries that the request lacks.

use std::collections::HashSet;

use certgate_api::field::{BadValue, FieldError, Path};
use certgate_api::policy::AllowedOtherName;

use super::allowed_path;
use super::attribute::{Context, SliceRule, check_slice, json_list};
use crate::attributes::{OidGroup, RequestAttributes};

const NON_STRING_VALUE: &str = "<non-string value>";
const NON_STRING_DETAIL: &str = "subject attribute uses an unsupported ASN.1 type or string encoding; re-issue the certificate with a UTF8String or PrintableString subject";

/// Non-standard SANs (always denied), then `allowed.otherNames`.
pub(crate) fn other_names(
    cx: &Context<'_>,
    attrs: &RequestAttributes<'_>,
    entries: &[AllowedOtherName],
    errors: &mut Vec<FieldError>,
) {
    for kind in &attrs.unsupported_sans {
        let name = kind.as_str();
        errors.push(FieldError::invalid(
            allowed_path().child("subjectAltName").child(name),
            BadValue::Str(name.to_owned()),
            format!("{name} SAN entries are not permitted"),
        ));
    }
    let base = || allowed_path().child("otherNames");
    check_groups(cx, &attrs.other_names, entries, &base, errors);
    let present: HashSet<&str> = attrs.other_names.iter().map(|g| g.oid).collect();
    missing_required(entries, &present, &base, errors);
}

/// Non-string Subject values (other than CN / serialNumber), then
/// `allowed.subject.otherAttributes`.
pub(crate) fn other_attributes(
    cx: &Context<'_>,
    attrs: &RequestAttributes<'_>,
    entries: &[AllowedOtherName],
    errors: &mut Vec<FieldError>,
) {
    let base = || allowed_path().child("subject").child("otherAttributes");
    for attribute in &attrs.non_string {
        let path = match attribute.named_field {
            Some(field) => allowed_path().child("subject").child(field),
            None => base().key(attribute.oid),
        };
        errors.push(FieldError::invalid(
            path,
            BadValue::Str(NON_STRING_VALUE.to_owned()),
            NON_STRING_DETAIL,
        ));
    }
    check_groups(cx, &attrs.other_attributes, entries, &base, errors);
    missing_required(entries, &attrs.other_attribute_oids, &base, errors);
}

fn check_groups(
    cx: &Context<'_>,
    groups: &[OidGroup<'_>],
    entries: &[AllowedOtherName],
    base: &dyn Fn() -> Path,
    errors: &mut Vec<FieldError>,
) {
    for group in groups {
        let path = || base().key(group.oid);
        // Upstream indexes entries in a map, so a repeated OID's last entry wins.
        match entries.iter().rev().find(|entry| entry.oid == group.oid) {
            None => errors.push(FieldError::invalid(
                path(),
                json_list(&group.values),
                "no allowed values",
            )),
            Some(entry) => {
                check_slice(cx, &group.values, Some(SliceRule::of_entry(entry)), &path, errors)
            }
        }
    }
}

fn missing_required(
    entries: &[AllowedOtherName],
    present: &HashSet<&str>,
    base: &dyn Fn() -> Path,
    errors: &mut Vec<FieldError>,
) {
    for entry in entries {
        if entry.required == Some(true) && !present.contains(entry.oid.as_str()) {
            errors.push(FieldError::required(base().key(&entry.oid).child("required"), "true"));
        }
    }
}
