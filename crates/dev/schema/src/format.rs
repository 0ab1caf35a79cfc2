//! String formats the API server checks for custom resources. Formats it does not know
//! (including `int32`/`int64` on strings) are accepted, as upstream does.

use base64::Engine as _;

/// `Some(valid)` for a checked format, `None` for a format that is not checked.
pub(crate) fn check(format: &str, value: &str) -> Option<bool> {
    match format {
        "date-time" | "datetime" => Some(chrono::DateTime::parse_from_rfc3339(value).is_ok()),
        "date" => Some(chrono::NaiveDate::parse_from_str(value, "%Y-%m-%d").is_ok()),
        // Go's StdEncoding skips line breaks while decoding.
        "byte" => {
            let compact: String = value.chars().filter(|c| !matches!(c, '\r' | '\n')).collect();
            Some(base64::engine::general_purpose::STANDARD.decode(compact).is_ok())
        }
        _ => None,
    }
}
