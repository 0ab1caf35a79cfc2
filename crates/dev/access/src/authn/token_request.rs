//! `POST /api/v1/namespaces/<ns>/serviceaccounts/<name>/token`: TokenRequest
//! (`authentication.k8s.io/v1`) as kube-apiserver's `TokenREST.Create` answers it.

use certgate_api::field::{BadValue, FieldError, Path};
use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{Map, Value, json};

use super::ISSUER;
use super::jwt::{self, ServiceAccountClaims};
use super::signer::{SignerError, TokenSigner};
use crate::decode::{Decoder, Field};
use crate::invalid::InvalidRequest;
use crate::status::StatusError;

const KIND: &str = "TokenRequest";
const GROUP: &str = "authentication.k8s.io";
const DECODER: Decoder = Decoder { kind: KIND };
/// `spec.expirationSeconds` when the request leaves it out.
const DEFAULT_EXPIRATION_SECONDS: i64 = 60 * 60;
const MIN_EXPIRATION_SECONDS: i64 = 10 * 60;
const MAX_EXPIRATION_SECONDS: i64 = 1 << 32;

/// Why a TokenRequest was refused; [`Self::status`] is the answer to send.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TokenRequestError {
    /// 400: undecodable body, a body namespace other than the URL's, or a bound object of a
    /// kind kube-apiserver cannot bind to.
    #[error("{}", .0.message)]
    BadRequest(StatusError),
    /// 422: `TokenRequest.authentication.k8s.io "<name>" is invalid: ...`.
    #[error("{0}")]
    Invalid(InvalidRequest),
    /// 404: the Secret named by `spec.boundObjectRef` does not exist (the caller passed no
    /// bound Secret).
    #[error("{}", .0.message)]
    BoundSecretNotFound(StatusError),
    /// 409: `spec.boundObjectRef.uid` names another incarnation of the Secret.
    #[error("{}", .0.message)]
    Conflict(StatusError),
    /// 500: the token could not be signed.
    #[error(transparent)]
    Signing(#[from] SignerError),
}

impl TokenRequestError {
    pub fn status(&self) -> StatusError {
        match self {
            TokenRequestError::BadRequest(status)
            | TokenRequestError::BoundSecretNotFound(status)
            | TokenRequestError::Conflict(status) => status.clone(),
            TokenRequestError::Invalid(invalid) => invalid.status(),
            TokenRequestError::Signing(error) => {
                StatusError::internal(&format!("failed to generate token: {error}"))
            }
        }
    }
}

/// The Secret a TokenRequest body asks to bind the token to (`spec.boundObjectRef` of kind
/// `Secret` in the core group), so that the caller can look it up in the request's namespace
/// before calling [`token_request`].
pub fn bound_secret_name(body: &Value) -> Option<String> {
    let reference = body.get("spec")?.get("boundObjectRef")?;
    let kind = reference.get("kind").and_then(Value::as_str).unwrap_or_default();
    let api_version = reference.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
    (kind == "Secret" && core_group(api_version))
        .then(|| reference.get("name").and_then(Value::as_str).unwrap_or_default().to_owned())
}

/// Issues a token for the ServiceAccount `namespace/service_account` (which the caller has
/// found, with its `metadata.uid`) and returns the TokenRequest with `status.token` and
/// `status.expirationTimestamp`. `bound_secret` is the `(name, uid)` of the Secret named by
/// [`bound_secret_name`], or `None` when the body binds to no Secret or the Secret does not
/// exist (answered with 404, as kube-apiserver does).
pub fn token_request(
    signer: &TokenSigner,
    body: &Value,
    namespace: &str,
    service_account: &str,
    service_account_uid: &str,
    bound_secret: Option<(&str, &str)>,
    now: DateTime<Utc>,
) -> Result<Value, TokenRequestError> {
    let request = decode(body)?;
    // The generic create handler first: a namespace in the body must be the URL's.
    if !request.namespace.is_empty() && request.namespace != namespace {
        return Err(TokenRequestError::BadRequest(StatusError::bad_request(
            "the namespace of the provided object does not match the namespace sent on the request",
        )));
    }
    if !request.name.is_empty() && request.name != service_account {
        return Err(TokenRequestError::Invalid(InvalidRequest::new(
            KIND,
            GROUP,
            service_account,
            vec![FieldError::invalid(
                Path::new("metadata").child("name"),
                BadValue::Str(request.name.clone()),
                "must match the service account name if specified",
            )],
        )));
    }
    let audiences = if request.audiences.is_empty() {
        vec![ISSUER.to_owned()]
    } else {
        request.audiences.clone()
    };
    let expiration = request.expiration_seconds.unwrap_or(DEFAULT_EXPIRATION_SECONDS);
    validate_expiration(expiration)?;
    let secret = match &request.bound_object {
        None => None,
        Some(reference) => Some(bind(reference, service_account, bound_secret)?),
    };

    let issued_at = now.timestamp();
    let expires = issued_at.saturating_add(expiration);
    let claims = ServiceAccountClaims {
        audiences: audiences.clone(),
        issued_at,
        expires,
        id: uuid(signer)?,
        namespace: namespace.to_owned(),
        name: service_account.to_owned(),
        uid: service_account_uid.to_owned(),
        secret,
    };
    let token = jwt::issue(signer, ISSUER, &claims)?;
    Ok(json!({
        "kind": KIND,
        "apiVersion": "authentication.k8s.io/v1",
        "metadata": {
            "name": service_account,
            "namespace": namespace,
            "creationTimestamp": rfc3339(now.timestamp()),
        },
        "spec": {
            "audiences": audiences,
            "expirationSeconds": expiration,
            "boundObjectRef": request.bound_object.as_ref().map(BoundObject::to_json),
        },
        "status": {
            "token": token,
            "expirationTimestamp": rfc3339(expires),
        },
    }))
}

/// The parts of a TokenRequest body that matter.
struct Request {
    name: String,
    namespace: String,
    audiences: Vec<String>,
    expiration_seconds: Option<i64>,
    bound_object: Option<BoundObject>,
}

struct BoundObject {
    kind: String,
    api_version: String,
    name: String,
    uid: String,
}

impl BoundObject {
    /// As `v1.BoundObjectReference` serializes: empty fields left out.
    fn to_json(&self) -> Value {
        let mut map = Map::new();
        for (key, value) in [
            ("kind", &self.kind),
            ("apiVersion", &self.api_version),
            ("name", &self.name),
            ("uid", &self.uid),
        ] {
            if !value.is_empty() {
                map.insert(key.into(), value.clone().into());
            }
        }
        Value::Object(map)
    }
}

fn decode(body: &Value) -> Result<Request, TokenRequestError> {
    let bad = TokenRequestError::BadRequest;
    let root = DECODER.root(body).map_err(bad)?;
    let meta = |path| Field { go_struct: "ObjectMeta", path };
    let spec_field = |path| Field { go_struct: "TokenRequestSpec", path };
    let reference_field = |path| Field { go_struct: "BoundObjectReference", path };
    let metadata = DECODER
        .object(root.get("metadata"), Field { go_struct: KIND, path: "metadata" }, "v1.ObjectMeta")
        .map_err(bad)?;
    let spec = DECODER
        .object(root.get("spec"), Field { go_struct: KIND, path: "spec" }, "v1.TokenRequestSpec")
        .map_err(bad)?;
    let get = |map: Option<&Map<String, Value>>, key: &str| map.and_then(|m| m.get(key)).cloned();
    let reference = DECODER
        .object(
            spec.and_then(|s| s.get("boundObjectRef")),
            spec_field("spec.boundObjectRef"),
            "v1.BoundObjectReference",
        )
        .map_err(bad)?;
    let bound_object = match reference {
        None => None,
        Some(r) => Some(BoundObject {
            kind: DECODER
                .string(r.get("kind"), reference_field("spec.boundObjectRef.kind"))
                .map_err(bad)?,
            api_version: DECODER
                .string(r.get("apiVersion"), reference_field("spec.boundObjectRef.apiVersion"))
                .map_err(bad)?,
            name: DECODER
                .string(r.get("name"), reference_field("spec.boundObjectRef.name"))
                .map_err(bad)?,
            uid: DECODER
                .string_typed(r.get("uid"), reference_field("spec.boundObjectRef.uid"), "types.UID")
                .map_err(bad)?,
        }),
    };
    Ok(Request {
        name: DECODER.string(get(metadata, "name").as_ref(), meta("metadata.name")).map_err(bad)?,
        namespace: DECODER
            .string(get(metadata, "namespace").as_ref(), meta("metadata.namespace"))
            .map_err(bad)?,
        audiences: DECODER
            .strings(get(spec, "audiences").as_ref(), spec_field("spec.audiences"))
            .map_err(bad)?,
        expiration_seconds: DECODER
            .int64(get(spec, "expirationSeconds").as_ref(), spec_field("spec.expirationSeconds"))
            .map_err(bad)?,
        bound_object,
    })
}

fn expiration_path() -> Path {
    Path::new("spec").child("expirationSeconds")
}

/// `ValidateTokenRequest`: between 10 minutes and 2^32 seconds.
fn validate_expiration(seconds: i64) -> Result<(), TokenRequestError> {
    let mut errors = Vec::new();
    if seconds < MIN_EXPIRATION_SECONDS {
        errors.push(FieldError::invalid(
            expiration_path(),
            BadValue::Int(seconds),
            "may not specify a duration less than 10 minutes",
        ));
    }
    if seconds > MAX_EXPIRATION_SECONDS {
        errors.push(FieldError::invalid(
            expiration_path(),
            BadValue::Int(seconds),
            "may not specify a duration larger than 2^32 seconds",
        ));
    }
    if errors.is_empty() {
        Ok(())
    } else {
        // kube-apiserver names no object here: `TokenRequest.authentication.k8s.io "" is invalid`.
        Err(TokenRequestError::Invalid(InvalidRequest::new(KIND, GROUP, "", errors)))
    }
}

/// The Secret to bind to, `(name, uid)`.
fn bind(
    reference: &BoundObject,
    service_account: &str,
    bound_secret: Option<(&str, &str)>,
) -> Result<(String, String), TokenRequestError> {
    let core = core_group(&reference.api_version);
    match reference.kind.as_str() {
        "Secret" if core => {}
        // kube-apiserver binds to these too; the sandbox serves neither.
        "Pod" | "Node" if core => {
            return Err(TokenRequestError::Invalid(InvalidRequest::new(
                KIND,
                GROUP,
                service_account,
                vec![
                    FieldError::not_supported(
                        Path::new("spec").child("boundObjectRef").child("kind"),
                        BadValue::Str(reference.kind.clone()),
                        &["Secret"],
                    )
                    .with_detail(
                        "certgate dev binds tokens to Secrets only: it serves no Pods or Nodes; \
                     supported values: \"Secret\"",
                    ),
                ],
            )));
        }
        _ => {
            return Err(TokenRequestError::BadRequest(StatusError::bad_request(format!(
                "cannot bind token to object of type {}",
                group_version_kind(&reference.api_version, &reference.kind)
            ))));
        }
    }
    let Some((name, uid)) = bound_secret.filter(|(name, _)| *name == reference.name) else {
        return Err(TokenRequestError::BoundSecretNotFound(StatusError::not_found(
            "",
            "secrets",
            &reference.name,
        )));
    };
    if !reference.uid.is_empty() && reference.uid != uid {
        return Err(TokenRequestError::Conflict(StatusError::conflict(
            "",
            "Secret",
            &reference.name,
            &format!(
                "the UID in the bound object reference ({}) does not match the UID in record. \
                 The object might have been deleted and then recreated",
                reference.uid
            ),
        )));
    }
    Ok((name.to_owned(), uid.to_owned()))
}

/// Whether an `apiVersion` is in the core group (`v1`, or empty as `kubectl` may send).
fn core_group(api_version: &str) -> bool {
    parse_group_version(api_version).is_some_and(|(group, _)| group.is_empty())
}

/// `schema.ParseGroupVersion`: `""`, `<version>` or `<group>/<version>`.
fn parse_group_version(api_version: &str) -> Option<(&str, &str)> {
    if api_version.is_empty() {
        return Some(("", ""));
    }
    match api_version.split_once('/') {
        None => Some(("", api_version)),
        Some((group, version)) if !version.contains('/') => Some((group, version)),
        Some(_) => None,
    }
}

/// `schema.FromAPIVersionAndKind(...).String()`: `<group>/<version>, Kind=<kind>`.
fn group_version_kind(api_version: &str, kind: &str) -> String {
    let (group, version) = parse_group_version(api_version).unwrap_or(("", ""));
    format!("{group}/{version}, Kind={kind}")
}

/// `metav1.Time` in JSON: RFC 3339, whole seconds, UTC.
fn rfc3339(seconds: i64) -> String {
    DateTime::from_timestamp(seconds, 0)
        .map(|t| t.to_rfc3339_opts(SecondsFormat::Secs, true))
        .unwrap_or_default()
}

/// A random (version 4) UUID, as kube-apiserver uses for `jti`.
fn uuid(signer: &TokenSigner) -> Result<String, SignerError> {
    let mut bytes = signer.random_bytes()?;
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Ok(format!("{}-{}-{}-{}-{}", &hex[0..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..32]))
}

#[cfg(test)]
mod tests;
