//! Policy OIDs must be canonical dotted form, because evaluation matches them by exact
//! string against the request's (always canonical) OIDs: `01.2` or `+1.2` would silently
//! never match.

use certgate_api::field::{BadValue, FieldError, Path};

/// The error for a non-canonical or negative OID, if any.
pub(crate) fn validate(path: Path, oid: &str) -> Option<FieldError> {
    let Some(arcs) = parse(oid).filter(|arcs| render(arcs) == oid) else {
        return Some(FieldError::invalid(
            path,
            BadValue::Str(oid.to_owned()),
            r#"must be a valid, canonical dotted ASN.1 object identifier (e.g. "1.3.6.1.4.1.311.20.2.3")"#,
        ));
    };
    arcs.iter().any(|arc| *arc < 0).then(|| {
        FieldError::invalid(path, BadValue::Str(oid.to_owned()), "OID arcs must be non-negative")
    })
}

/// Dot-separated decimal integers, each as Go's `strconv.Atoi` reads it (optional sign,
/// 64-bit range); `None` when any part is not one.
fn parse(oid: &str) -> Option<Vec<i64>> {
    if oid.is_empty() {
        return None;
    }
    oid.split('.').map(|part| part.parse::<i64>().ok()).collect()
}

fn render(arcs: &[i64]) -> String {
    arcs.iter().map(i64::to_string).collect::<Vec<_>>().join(".")
}

#[cfg(test)]
mod tests {
    use super::*;

    const CANONICAL: &str = r#"must be a valid, canonical dotted ASN.1 object identifier (e.g. "1.3.6.1.4.1.311.20.2.3")"#;

    #[test]
    fn canonical_oids_pass_and_others_fail_with_upstream_texts() {
        for oid in ["1.3.6.1.4.1.311.20.2.3", "2.5.4.3", "1", "0.0"] {
            assert_eq!(validate(Path::new("oid"), oid), None, "{oid}");
        }
        for oid in
            ["", "1.", ".1", "1..2", "01.2", "+1.2", "1.2.a", "-0.1", "1.99999999999999999999"]
        {
            let err = validate(Path::new("oid"), oid).map(|e| e.detail);
            assert_eq!(err.as_deref(), Some(CANONICAL), "{oid}");
        }
        let err = validate(Path::new("oid"), "1.-2").map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some(r#"oid: Invalid value: "1.-2": OID arcs must be non-negative"#)
        );
    }
}
