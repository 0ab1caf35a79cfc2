//! `spec.constraints` admission checks (spec §8.2), in upstream's order: Ed25519 with
//! sizes, size ranges, size order, then duration order and signs.
//!
//! The algorithm enum check of upstream cannot fire here: the typed policy only holds the
//! three supported algorithms, as the CRD enum guarantees for stored objects.

use certgate_api::field::{BadValue, FieldError, Path};
use certgate_api::gofmt::GoDuration;
use certgate_api::policy::{Constraints, PrivateKeyAlgorithm};

const MAX_KEY_SIZE: i64 = 8192;

pub(crate) fn validate(constraints: Option<&Constraints>, errors: &mut Vec<FieldError>) {
    let Some(constraints) = constraints else { return };
    let base = Path::new("spec").child("constraints");

    if let Some(key) = &constraints.private_key {
        let path = base.child("privateKey");
        // Go `int` values render as JSON.
        let size = |n: i64| BadValue::Json(serde_json::json!(n));
        if key.algorithm == Some(PrivateKeyAlgorithm::Ed25519) {
            if let Some(max) = key.max_size {
                errors.push(FieldError::invalid(
                    path.child("maxSize"),
                    size(max),
                    "maxSize cannot be defined with algorithm constraint Ed25519",
                ));
            }
            if let Some(min) = key.min_size {
                errors.push(FieldError::invalid(
                    path.child("minSize"),
                    size(min),
                    "minSize cannot be defined with algorithm constraint Ed25519",
                ));
            }
        }
        for (field, value) in [("maxSize", key.max_size), ("minSize", key.min_size)] {
            if let Some(value) = value.filter(|v| !(0..=MAX_KEY_SIZE).contains(v)) {
                errors.push(FieldError::invalid(
                    path.child(field),
                    size(value),
                    "must be between 0 and 8192 inclusive",
                ));
            }
        }
        if let (Some(max), Some(min)) = (key.max_size, key.min_size)
            && max < min
        {
            errors.push(FieldError::invalid(
                path.child("maxSize"),
                size(max),
                "maxSize must be the same value as minSize or larger",
            ));
        }
    }

    // An unparseable duration cannot reach a cluster (the API server rejects it while
    // decoding); offline it is reported here, where its checks would be.
    let mut parse = |field: &str, text: Option<&String>| {
        let text = text?;
        GoDuration::parse(text)
            .inspect_err(|err| {
                errors.push(FieldError::invalid(
                    base.child(field),
                    BadValue::Str(text.clone()),
                    err.to_string(),
                ));
            })
            .ok()
    };
    let max = parse("maxDuration", constraints.max_duration.as_ref());
    let min = parse("minDuration", constraints.min_duration.as_ref());
    let duration = |d: GoDuration| BadValue::Str(d.to_string());
    if let (Some(max), Some(min)) = (max, min)
        && max < min
    {
        errors.push(FieldError::invalid(
            base.child("maxDuration"),
            duration(max),
            "maxDuration must be the same value as minDuration or larger",
        ));
    }
    if let Some(max) = max.filter(|d| d.0 < 0) {
        errors.push(FieldError::invalid(
            base.child("maxDuration"),
            duration(max),
            "maxDuration must be a value greater or equal to 0",
        ));
    }
    if let Some(min) = min.filter(|d| d.0 < 0) {
        errors.push(FieldError::invalid(
            base.child("minDuration"),
            duration(min),
            "minDuration must be a value greater or equal to 0",
        ));
    }
}
