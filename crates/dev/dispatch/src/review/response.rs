//! Reading a webhook's HTTP answer: client-go's `Result.Into` (status codes, content types,
//! decoding) and upstream's `VerifyAdmissionResponse` (uid, kind, patch fields). Responses
//! are hostile input: every shape problem becomes a `CallError`, never a panic.

use serde::Deserialize;
use serde_json::Value;

use super::request::ReviewVersion;
use crate::call_error::CallError;
use certgate_gofmt::quote;

/// What came back over HTTP, the body already read within the size bound.
#[derive(Debug)]
pub(crate) struct HttpAnswer {
    pub status: u16,
    pub content_type: Option<String>,
    pub body: Vec<u8>,
}

/// The `response.status` (`metav1.Status`) a webhook sends with a denial.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct WebhookStatus {
    pub message: String,
    pub reason: String,
    pub code: i64,
    pub details: Option<Value>,
}

/// A response that passed verification.
#[derive(Debug, Default)]
pub(crate) struct VerifiedResponse {
    pub allowed: bool,
    /// The decoded (base64) patch bytes; empty when there is none.
    pub patch: Vec<u8>,
    pub patch_type: String,
    pub status: Option<WebhookStatus>,
    pub warnings: Vec<String>,
}

#[derive(Deserialize)]
struct Envelope {
    #[serde(default, rename = "apiVersion")]
    api_version: Option<String>,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    response: Option<ResponseFields>,
}

#[derive(Deserialize)]
struct ResponseFields {
    #[serde(default)]
    uid: Option<String>,
    #[serde(default)]
    allowed: Option<bool>,
    #[serde(default)]
    status: Option<StatusFields>,
    #[serde(default)]
    patch: Option<String>,
    #[serde(default, rename = "patchType")]
    patch_type: Option<String>,
    #[serde(default)]
    warnings: Option<Vec<Option<String>>>,
}

#[derive(Deserialize)]
struct StatusFields {
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    code: Option<i64>,
    #[serde(default)]
    details: Option<Value>,
}

/// Media type of a Content-Type header value, lowercased, without parameters.
fn media_type(content_type: &str) -> String {
    content_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase()
}

/// Decodes and verifies the answer to a request with `uid`.
pub(crate) fn read(
    answer: &HttpAnswer,
    version: ReviewVersion,
    uid: &str,
    mutating: bool,
) -> Result<VerifiedResponse, CallError> {
    let envelope = decode(answer)?;
    verify(envelope, version, uid, mutating)
}

/// client-go's handling of the HTTP answer and `Into`.
fn decode(answer: &HttpAnswer) -> Result<Envelope, CallError> {
    // A missing Content-Type is read as the client's own (JSON), as client-go does.
    let raw_type = answer.content_type.clone().unwrap_or_else(|| "application/json".to_owned());
    let is_json = media_type(&raw_type) == "application/json";
    if !(200..=206).contains(&answer.status) {
        return Err(CallError::Response(status_error(answer, is_json)));
    }
    if !is_json {
        return Err(CallError::Response(format!("serializer for {raw_type} doesn't exist")));
    }
    if answer.body.is_empty() {
        return Err(CallError::Response(format!(
            "0-length response with status code: {} and content type: {raw_type}",
            answer.status
        )));
    }
    let value: Value = serde_json::from_slice(&answer.body).map_err(|e| {
        CallError::Response(format!("couldn't get version/kind; json parse error: {e}"))
    })?;
    if !value.is_object() {
        return Err(CallError::Response(format!(
            "couldn't get version/kind; json parse error: expected a JSON object, got {}",
            json_type(&value)
        )));
    }
    // A Status object in place of the review is returned as the error it describes.
    if value.get("kind").and_then(Value::as_str) == Some("Status") {
        let status = value.get("status").and_then(Value::as_str).unwrap_or_default();
        if status != "Success" {
            let message = value.get("message").and_then(Value::as_str).unwrap_or_default();
            return Err(CallError::Response(message.to_owned()));
        }
        return Ok(Envelope { api_version: None, kind: None, response: None });
    }
    Envelope::deserialize(&value).map_err(|e| CallError::Response(e.to_string()))
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// How much of a non-JSON error body client-go quotes.
const MAX_UNSTRUCTURED_BYTES: usize = 2048;

/// The error client-go builds for a non-2xx answer: the Status the body carries, or
/// `NewGenericServerResponse`'s message for the code.
fn status_error(answer: &HttpAnswer, is_json: bool) -> String {
    if is_json
        && let Ok(value) = serde_json::from_slice::<Value>(&answer.body)
        && value.get("kind").and_then(Value::as_str) == Some("Status")
        && matches!(value.get("apiVersion").and_then(Value::as_str), None | Some("v1"))
        && value.get("status").and_then(Value::as_str) == Some("Failure")
    {
        return value.get("message").and_then(Value::as_str).unwrap_or_default().to_owned();
    }
    let is_text = match &answer.content_type {
        None => true,
        Some(ct) => ct.is_empty() || media_type(ct).starts_with("text/"),
    };
    let server_message = if is_text {
        let mut end = answer.body.len().min(MAX_UNSTRUCTURED_BYTES);
        while end > 0 && std::str::from_utf8(&answer.body[..end]).is_err() {
            end -= 1;
        }
        String::from_utf8_lossy(&answer.body[..end]).trim().to_owned()
    } else {
        "unknown".to_owned()
    };
    generic_server_response(answer.status, &server_message)
}

/// apimachinery's `NewGenericServerResponse` message (no resource: webhook calls have none).
fn generic_server_response(code: u16, server_message: &str) -> String {
    match code {
        409 => "the server reported a conflict".to_owned(),
        404 => "the server could not find the requested resource".to_owned(),
        400 => "the server rejected our request for an unknown reason".to_owned(),
        401 => "the server has asked for the client to provide credentials".to_owned(),
        403 | 415 => server_message.to_owned(),
        406 if server_message.is_empty() || server_message == "unknown" => {
            "the server was unable to respond with a content type that the client supports".to_owned()
        }
        406 => server_message.to_owned(),
        405 => "the server does not allow this method on the requested resource".to_owned(),
        422 => "the server rejected our request due to an error in our request".to_owned(),
        503 => "the server is currently unable to handle the request".to_owned(),
        504 => "the server was unable to return a response in the time allotted, but may still be processing the request".to_owned(),
        429 => "the server has received too many requests and has asked us to try again later".to_owned(),
        code if code >= 500 => format!(
            "an error on the server ({}) has prevented the request from succeeding",
            quote(server_message)
        ),
        code => format!("the server responded with the status code {code} but did not return more information"),
    }
}

/// Go's `[]byte` JSON decoding: standard base64 with padding, line breaks ignored.
fn decode_base64(text: &str) -> Result<Vec<u8>, CallError> {
    use base64::Engine;
    let cleaned: String = text.chars().filter(|c| *c != '\r' && *c != '\n').collect();
    base64::engine::general_purpose::STANDARD.decode(cleaned.as_bytes()).map_err(|e| {
        let offset = match e {
            base64::DecodeError::InvalidByte(offset, _) => offset,
            base64::DecodeError::InvalidLastSymbol(offset, _) => offset,
            _ => cleaned.len(),
        };
        CallError::Response(format!("illegal base64 data at input byte {offset}"))
    })
}

/// Upstream's `VerifyAdmissionResponse`.
fn verify(
    envelope: Envelope,
    version: ReviewVersion,
    uid: &str,
    mutating: bool,
) -> Result<VerifiedResponse, CallError> {
    let invalid = |message: String| CallError::InvalidResponse(message);
    let Some(response) = envelope.response else {
        return Err(invalid("webhook response was absent".to_owned()));
    };
    // The base64 patch is part of decoding the body in Go, before any verification.
    let patch = match response.patch.as_deref() {
        Some(text) => decode_base64(text)?,
        None => Vec::new(),
    };
    let mut patch_type = String::new();
    match version {
        ReviewVersion::V1 => {
            let got_uid = response.uid.clone().unwrap_or_default();
            if got_uid != uid {
                return Err(invalid(format!(
                    "expected response.uid={}, got {}",
                    quote(uid),
                    quote(&got_uid)
                )));
            }
            let api_version = envelope.api_version.unwrap_or_default();
            let kind = envelope.kind.unwrap_or_default();
            if api_version != "admission.k8s.io/v1" || kind != "AdmissionReview" {
                return Err(invalid(format!(
                    "expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got {}, Kind={kind}",
                    go_group_version(&api_version)
                )));
            }
            if mutating {
                if !patch.is_empty() && response.patch_type.is_none() {
                    return Err(invalid(
                        "webhook returned response.patch but not response.patchType".to_owned(),
                    ));
                }
                if patch.is_empty() && response.patch_type.is_some() {
                    return Err(invalid(
                        "webhook returned response.patchType but not response.patch".to_owned(),
                    ));
                }
                if let Some(t) = response.patch_type.as_deref() {
                    if t.is_empty() {
                        return Err(invalid(
                            "webhook returned invalid response.patchType of \"\"".to_owned(),
                        ));
                    }
                    patch_type = t.to_owned();
                }
            } else {
                if !patch.is_empty() {
                    return Err(invalid(
                        "validating webhook may not return response.patch".to_owned(),
                    ));
                }
                if response.patch_type.is_some() {
                    return Err(invalid(
                        "validating webhook may not return response.patchType".to_owned(),
                    ));
                }
            }
        }
        // v1beta1 never checked the uid, the kind or the patch type; a patch is read as a
        // JSONPatch, and a validating webhook's patch is ignored.
        ReviewVersion::V1beta1 => {
            if mutating && !patch.is_empty() {
                patch_type = "JSONPatch".to_owned();
            }
        }
    }
    let patch = if mutating { patch } else { Vec::new() };
    Ok(VerifiedResponse {
        allowed: response.allowed.unwrap_or(false),
        patch,
        patch_type,
        status: response.status.map(|s| WebhookStatus {
            message: s.message.unwrap_or_default(),
            reason: s.reason.unwrap_or_default(),
            code: s.code.unwrap_or_default(),
            details: s.details.filter(|d| !d.is_null()),
        }),
        warnings: response.warnings.unwrap_or_default().into_iter().flatten().collect(),
    })
}

/// The group and version of a parsed `apiVersion` as Go's `GroupVersionKind.String()` prints
/// them: always `group/version`, so a missing apiVersion reads `/`.
fn go_group_version(api_version: &str) -> String {
    match api_version.split_once('/') {
        Some((group, version)) => format!("{group}/{version}"),
        None => format!("/{api_version}"),
    }
}

#[cfg(test)]
mod tests;
