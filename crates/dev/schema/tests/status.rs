//! The 422 Invalid message and causes.

use certgate_api::field::{BadValue, FieldError, Path};
use certgate_schema::{StatusCause, causes, invalid_message};
use pretty_assertions::assert_eq;
use serde_json::json;

fn required() -> FieldError {
    FieldError::required(Path::new("spec.request"), "")
}

fn unsupported() -> FieldError {
    FieldError::not_supported(Path::new("spec.mode"), BadValue::Str("x".into()), &["a", "b"])
}

#[test]
fn one_error_is_inlined_and_several_are_bracketed() {
    assert_eq!(
        invalid_message("CertificateRequest", "cert-manager.io", "cr", &[required()]),
        r#"CertificateRequest.cert-manager.io "cr" is invalid: spec.request: Required value"#
    );
    assert_eq!(
        invalid_message("Widget", "example.com", "w", &[required(), unsupported(), required()]),
        r#"Widget.example.com "w" is invalid: [spec.request: Required value, spec.mode: Unsupported value: "x": supported values: "a", "b"]"#
    );
    assert_eq!(invalid_message("ConfigMap", "", "c\"m", &[]), r#"ConfigMap "c\"m" is invalid"#);
}

#[test]
fn causes_carry_reason_body_and_field() {
    let too_long = FieldError {
        kind: certgate_api::field::ErrorType::TooLong,
        path: Path::new("spec.name"),
        value: Some(BadValue::Str("abcd".into())),
        detail: "may not be more than 3 bytes".into(),
    };
    let all = causes(&[required(), unsupported(), too_long, required()]);
    assert_eq!(
        all,
        [
            StatusCause {
                reason: "FieldValueRequired".into(),
                message: "Required value".into(),
                field: "spec.request".into()
            },
            StatusCause {
                reason: "FieldValueNotSupported".into(),
                message: r#"Unsupported value: "x": supported values: "a", "b""#.into(),
                field: "spec.mode".into()
            },
            StatusCause {
                reason: "FieldValueTooLong".into(),
                message: "Too long: may not be more than 3 bytes".into(),
                field: "spec.name".into()
            },
            StatusCause {
                reason: "FieldValueRequired".into(),
                message: "Required value".into(),
                field: "spec.request".into()
            },
        ]
    );
    assert_eq!(
        serde_json::to_value(&all[0]).expect("serializes"),
        json!({"reason": "FieldValueRequired", "message": "Required value", "field": "spec.request"})
    );
}
