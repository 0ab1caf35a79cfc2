//! What kube-apiserver 1.33 needs beyond the cert-manager messages: `%#v` and nil values,
//! `ErrorBody()` and the cause types of a 422's `details.causes`.

use pretty_assertions::assert_eq;

use super::{BadValue, ErrorType, FieldError, Path};

/// Moved from `certgate-access`, whose errors these are.
#[test]
fn renders_like_apimachinery() {
    let error = FieldError::invalid(
        Path::new("spec").child("expirationSeconds"),
        BadValue::Int(599),
        "may not specify a duration less than 10 minutes",
    );
    assert_eq!(
        error.to_string(),
        "spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes"
    );
    assert_eq!(
        FieldError::invalid(Path::new("spec").child("resourceAttributes"), BadValue::Null, "x")
            .to_string(),
        r#"spec.resourceAttributes: Invalid value: "null": x"#
    );
    assert_eq!(
        FieldError::required(Path::new("spec").child("x"), "needed").to_string(),
        "spec.x: Required value: needed"
    );
    assert_eq!(
        FieldError::not_supported(
            Path::new("spec").child("kind"),
            BadValue::Str("Pod".into()),
            &["Secret"]
        )
        .to_string(),
        r#"spec.kind: Unsupported value: "Pod": supported values: "Secret""#
    );
}

#[test]
fn go_syntax_values_are_printed_as_given_and_nil_is_hidden_like_any_value() {
    assert_eq!(
        FieldError::invalid(
            Path::new("webhooks").index(0).child("admissionReviewVersions"),
            BadValue::GoSyntax(r#"[]string{"v2", "v2"}"#.to_owned()),
            "must include at least one of v1, v1beta1",
        )
        .to_string(),
        r#"webhooks[0].admissionReviewVersions: Invalid value: []string{"v2", "v2"}: must include at least one of v1, v1beta1"#
    );
    let required =
        FieldError { value: Some(BadValue::Null), ..FieldError::required(Path::new("a"), "") };
    assert_eq!(required.to_string(), "a: Required value");
}

#[test]
fn body_is_the_message_without_the_path() {
    let cases = [
        (
            FieldError::invalid(Path::new("a"), BadValue::Str("x".into()), "bad"),
            r#"Invalid value: "x": bad"#,
        ),
        (FieldError::invalid(Path::new("b"), BadValue::Int(1), ""), "Invalid value: 1"),
        (FieldError::required(Path::new("c"), "needed"), "Required value: needed"),
        (FieldError::forbidden(Path::new("d"), ""), "Forbidden"),
        (
            FieldError::not_supported(Path::new("e"), BadValue::Str("Pod".into()), &["Secret"]),
            r#"Unsupported value: "Pod": supported values: "Secret""#,
        ),
        (
            FieldError::duplicate(Path::new("f"), BadValue::Str("ok".into())),
            r#"Duplicate value: "ok""#,
        ),
        (FieldError::too_many(Path::new("g"), 65, 64), "Too many: 65: must have at most 64 items"),
        (FieldError::too_many(Path::new("h"), 2, 1), "Too many: 2: must have at most 1 item"),
    ];
    for (error, want) in cases {
        assert_eq!(error.body(), want);
        assert_eq!(error.to_string(), format!("{}: {want}", error.path));
    }
}

#[test]
fn with_detail_rewords_only_the_detail() {
    let error = FieldError::not_supported(Path::new("kind"), BadValue::Str("Pod".into()), &["A"])
        .with_detail("serves no Pods");
    assert_eq!(error.to_string(), r#"kind: Unsupported value: "Pod": serves no Pods"#);
    assert_eq!(error.kind, ErrorType::NotSupported);
}

#[test]
fn cause_types_are_the_go_error_type_values() {
    let cases = [
        (ErrorType::Invalid, "FieldValueInvalid"),
        (ErrorType::Required, "FieldValueRequired"),
        (ErrorType::NotSupported, "FieldValueNotSupported"),
        (ErrorType::Forbidden, "FieldValueForbidden"),
        (ErrorType::Internal, "InternalError"),
        (ErrorType::Duplicate, "FieldValueDuplicate"),
        (ErrorType::NotFound, "FieldValueNotFound"),
        (ErrorType::TooLong, "FieldValueTooLong"),
        (ErrorType::TooMany, "FieldValueTooMany"),
    ];
    for (kind, want) in cases {
        assert_eq!(kind.cause(), want, "{kind:?}");
    }
}
