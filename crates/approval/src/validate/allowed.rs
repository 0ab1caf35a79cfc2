//! `spec.allowed` admission checks (spec §8.1): `required` needs values or validations,
//! every CEL rule must compile, and otherNames / otherAttributes OIDs must be canonical.
//!
//! Order, as upstream: the string-slice fields (SAN slices, then the subject slices), then
//! commonName, then subject.serialNumber, then each otherNames entry, then each
//! otherAttributes entry; within a field: OID, `required`, then rules by index.

use super::budget::{self, Compiler};
use super::oid;
use crate::attributes::is_named_subject_oid;
use certgate_api::field::{BadValue, FieldError, Path};
use certgate_api::policy::{Allowed, AllowedOtherName};

const REQUIRED_VALUES: &str =
    "at least one of 'values' or 'validations' must be defined if field is 'required'";
const REQUIRED_VALUE: &str =
    "at least one of 'value' or 'validations' must be defined if field is 'required'";
const NAMED_OID: &str = "this OID is covered by a dedicated allowed.commonName / allowed.subject.* field; configure it there instead of otherAttributes";

pub(crate) fn validate(
    rules: &mut Compiler<'_>,
    allowed: Option<&Allowed>,
    errors: &mut Vec<FieldError>,
) {
    let Some(allowed) = allowed else { return };
    let over_limits = budget::check_limits(allowed);
    if !over_limits.is_empty() {
        // Nothing is compiled: the other checks of `allowed` still run and report.
        rules.stop();
        errors.extend(over_limits);
    }
    let base = Path::new("spec").child("allowed");
    let subject = allowed.subject.as_ref();
    let subject_path = base.child("subject");

    let mut slices = vec![
        (base.child("dnsNames"), allowed.dns_names.as_ref()),
        (base.child("ipAddresses"), allowed.ip_addresses.as_ref()),
        (base.child("uris"), allowed.uris.as_ref()),
        (base.child("emailAddresses"), allowed.email_addresses.as_ref()),
    ];
    if let Some(subject) = subject {
        slices.extend([
            (subject_path.child("organizations"), subject.organizations.as_ref()),
            (subject_path.child("countries"), subject.countries.as_ref()),
            (subject_path.child("organizationalUnits"), subject.organizational_units.as_ref()),
            (subject_path.child("localities"), subject.localities.as_ref()),
            (subject_path.child("provinces"), subject.provinces.as_ref()),
            (subject_path.child("streetAddresses"), subject.street_addresses.as_ref()),
            (subject_path.child("postalCodes"), subject.postal_codes.as_ref()),
        ]);
    }
    for (path, slice) in slices {
        let Some(slice) = slice else { continue };
        let validations = slice.validations.as_deref().unwrap_or_default();
        if slice.required == Some(true) && slice.values.is_none() && validations.is_empty() {
            errors.push(FieldError::required(path.child("values"), REQUIRED_VALUES));
        }
        rules.compile_all(&path, validations, errors);
    }

    let mut strings = vec![(base.child("commonName"), allowed.common_name.as_ref())];
    if let Some(subject) = subject {
        strings.push((subject_path.child("serialNumber"), subject.serial_number.as_ref()));
    }
    for (path, string) in strings {
        let Some(string) = string else { continue };
        let validations = string.validations.as_deref().unwrap_or_default();
        if string.required == Some(true) && string.value.is_none() && validations.is_empty() {
            errors.push(FieldError::required(path.child("value"), REQUIRED_VALUE));
        }
        rules.compile_all(&path, validations, errors);
    }

    let other_names = allowed.other_names.as_deref().unwrap_or_default();
    for (i, entry) in other_names.iter().enumerate() {
        let path = base.child("otherNames").index(i);
        errors.extend(oid::validate(path.child("oid"), &entry.oid));
        validate_entry(rules, &path, entry, errors);
    }
    let other_attributes = subject.and_then(|s| s.other_attributes.as_deref()).unwrap_or_default();
    for (i, entry) in other_attributes.iter().enumerate() {
        let path = subject_path.child("otherAttributes").index(i);
        let oid_error = oid::validate(path.child("oid"), &entry.oid).or_else(|| {
            is_named_subject_oid(&entry.oid).then(|| {
                FieldError::invalid(path.child("oid"), BadValue::Str(entry.oid.clone()), NAMED_OID)
            })
        });
        errors.extend(oid_error);
        validate_entry(rules, &path, entry, errors);
    }
}

fn validate_entry(
    rules: &mut Compiler<'_>,
    path: &Path,
    entry: &AllowedOtherName,
    errors: &mut Vec<FieldError>,
) {
    let validations = entry.validations.as_deref().unwrap_or_default();
    if entry.required == Some(true) && entry.values.is_none() && validations.is_empty() {
        errors.push(FieldError::required(path.child("values"), REQUIRED_VALUES));
    }
    rules.compile_all(path, validations, errors);
}
