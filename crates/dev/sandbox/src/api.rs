//! The resource endpoints: get, list, watch, create, update, patch and delete on every
//! served resource, with the API server's semantics on top of the object store.

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::rejection::BytesRejection;
use axum::extract::{Extension, Query, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use certgate_rbac::UserInfo;
use certgate_store::{Key, Prefix, Store, StoreError};
use serde_json::{Value, json};

use crate::requester::Requester;
use crate::resources::ResourceType;
use crate::selectors::{FieldSelector, LabelSelector};
use crate::server::Sandbox;
use crate::status::ApiError;
use crate::target::{Target, resolve};
use crate::watch;
use crate::writes::{self, Answer};

/// Largest request body accepted (the API server's limit).
pub const MAX_BODY_BYTES: usize = 3 * 1024 * 1024;

pub(crate) fn key(target: &Target, name: &str) -> Key {
    let (group, resource) = crate::storage_version::stored_under(&target.resource);
    Key {
        group: group.to_owned(),
        resource: resource.to_owned(),
        namespace: target.namespace.clone().unwrap_or_default(),
        name: name.to_owned(),
    }
}

pub(crate) fn prefix(resource: &ResourceType, namespace: Option<&str>) -> Prefix {
    let (group, resource) = crate::storage_version::stored_under(resource);
    Prefix {
        group: group.to_owned(),
        resource: resource.to_owned(),
        namespace: namespace.map(str::to_owned),
    }
}

/// Maps store failures to the API server's errors for `target`.
pub(crate) fn store_error(target: &Target, name: &str, err: StoreError) -> ApiError {
    let resource = target.resource.qualified_plural();
    match err {
        StoreError::NotFound(_) => ApiError::not_found(&resource, name),
        StoreError::AlreadyExists(_) => ApiError::new(
            409,
            "AlreadyExists",
            format!("{resource} \"{name}\" already exists"),
        )
        .with_details(json!({"name": name, "group": target.resource.group, "kind": target.resource.plural})),
        StoreError::Conflict { .. } => ApiError::new(
            409,
            "Conflict",
            format!(
                "Operation cannot be fulfilled on {resource} \"{name}\": the object has been modified; \
                 please apply your changes to the latest version and try again"
            ),
        )
        .with_details(json!({"name": name, "group": target.resource.group, "kind": target.resource.plural})),
        StoreError::Expired { requested, oldest } => ApiError::new(
            410,
            "Expired",
            format!("too old resource version: {requested} ({oldest})"),
        ),
        StoreError::Storage(message) => ApiError::new(500, "InternalError", message),
        err @ StoreError::InvalidObject { .. } => ApiError::new(422, "Invalid", err.to_string()),
    }
}

/// Every request to a resource path.
pub async fn handle(
    State(sandbox): State<Arc<Sandbox>>,
    Extension(user): Extension<UserInfo>,
    method: Method,
    uri: Uri,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let target = match resolve(&sandbox.registry, uri.path()) {
        Ok(target) => target,
        Err(err) => return refused(&method, &uri, &user, err),
    };
    let body = match body {
        Ok(body) => body,
        Err(rejection) => return refused(&method, &uri, &user, body_rejected(&rejection)),
    };
    if let Err(err) = crate::options::check(&method, target.name.is_none(), &query) {
        return refused(&method, &uri, &user, err);
    }
    let mut requester =
        Requester::new(user.clone(), is_dry_run(&query), query.get("fieldManager").cloned());
    let content_type =
        headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or_default();
    requester.decoding = crate::options::decoding(&method, content_type, &query);
    let result = match (&method, target.name.as_deref()) {
        (&Method::POST, _) if target.resource.create_only => {
            crate::reviews::create(&sandbox, &target, &requester.user, &headers, &body)
        }
        (_, _) if target.resource.create_only => Err(ApiError::method_not_allowed()),
        (&Method::POST, Some(name)) if target.subresource.as_deref() == Some("token") => {
            crate::tokens::create(&sandbox, &target, name, &headers, &body)
        }
        (&Method::GET, None) if is_true(query.get("watch")) => {
            return watch::serve(sandbox, target, query).await;
        }
        (&Method::GET, None) => list(&sandbox, &target, &query, &headers),
        (&Method::GET, Some(name)) => get(&sandbox.store, &target, name).map(|(status, object)| {
            if crate::table::wanted(&headers) && target.subresource.is_none() {
                (status, crate::table::from_object(&target.resource, &object))
            } else {
                (status, object)
            }
        }),
        (&Method::POST, None) => create(&sandbox, &target, &requester, &headers, &body).await,
        (&Method::PUT, Some(name)) => {
            update(&sandbox, &target, name, &requester, &headers, &body).await
        }
        (&Method::PATCH, Some(name)) => {
            patch(&sandbox, &target, name, &requester, &headers, &body, &query).await
        }
        (&Method::DELETE, Some(name)) => {
            delete(&sandbox, &target, name, requester.clone(), &headers, &body, &query).await
        }
        (&Method::DELETE, None) => delete_collection(&sandbox, &target, &requester, &query).await,
        _ => Err(ApiError::method_not_allowed()),
    };
    let mut response = match result {
        Ok((status, value)) => (status, axum::Json(value)).into_response(),
        Err(err) => refused(&method, &uri, &user, err),
    };
    // Merged from every webhook called, so capped again as the API server's recorder caps them.
    for warning in certgate_dispatch::cap_warnings(requester.warnings()) {
        if let Ok(value) = HeaderValue::from_str(&warning_header(&warning)) {
            response.headers_mut().append(header::WARNING, value);
        }
    }
    response
}

/// Longest status message copied into a refusal's log line: enough for the reason, not
/// for the data of a large object.
const MAX_LOGGED_MESSAGE: usize = 300;

/// The answer to a refused request, with one `info` line saying who was refused and why
/// (the `Status` message, cut short; never a token or a request body).
fn refused(method: &Method, uri: &Uri, user: &UserInfo, err: ApiError) -> Response {
    let mut message = err.message.as_str();
    if message.len() > MAX_LOGGED_MESSAGE {
        let mut end = MAX_LOGGED_MESSAGE;
        while !message.is_char_boundary(end) {
            end -= 1;
        }
        message = &message[..end];
    }
    tracing::info!(
        method = %method,
        path = %uri.path(),
        user = %user.username,
        code = err.code,
        reason = %err.reason,
        "request refused: {message}"
    );
    err.into_response()
}

/// A body the extractor could not read: over the limit is the API server's 413 (its
/// `MaxBytesReader` message, k8s.io/apiserver/pkg/endpoints/handlers/rest.go `limitedReadBody`).
fn body_rejected(rejection: &BytesRejection) -> ApiError {
    if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
        return body_too_large();
    }
    ApiError::bad_request(format!("the request body could not be read: {}", rejection.body_text()))
}

/// `errors.NewRequestEntityTooLargeError("limit is 3145728")`.
pub(crate) fn body_too_large() -> ApiError {
    ApiError::new(
        413,
        "RequestEntityTooLarge",
        format!("Request entity too large: limit is {MAX_BODY_BYTES}"),
    )
}

/// `299 - "<text>"`, the Warning header the API server sends for admission warnings.
fn warning_header(text: &str) -> String {
    let escaped = text.replace('\\', "\\\\").replace('"', "\\\"");
    format!("299 - \"{escaped}\"")
}

fn is_true(value: Option<&String>) -> bool {
    matches!(value.map(String::as_str), Some("true" | "1"))
}

/// Reads a create or update body: JSON (the default), YAML, or the protobuf that client-go's
/// typed clients send for the built-in kinds kubectl creates imperatively (`kubectl create
/// namespace|token|clusterrolebinding ...`, `kubectl auth can-i`), decoded by
/// `certgate-kubeproto`; a protobuf kind it does not know gets the API server's 415.
pub(crate) fn parse_body(headers: &HeaderMap, body: &[u8]) -> Result<Value, ApiError> {
    if body.len() > MAX_BODY_BYTES {
        return Err(body_too_large());
    }
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("application/json");
    match content_type.split(';').next().unwrap_or_default().trim() {
        "" | "application/json" | "*/*" => serde_json::from_slice(body).map_err(|err| {
            ApiError::bad_request(format!("the request body is not valid JSON: {err}"))
        }),
        "application/yaml" => {
            let text = std::str::from_utf8(body)
                .map_err(|_| ApiError::bad_request("the request body is not UTF-8"))?;
            serde_saphyr::from_str(text).map_err(|err| {
                ApiError::bad_request(format!("the request body is not valid YAML: {err}"))
            })
        }
        "application/vnd.kubernetes.protobuf" => certgate_kubeproto::decode(body).map_err(|err| {
            let reason = match err.status_code() {
                413 => "RequestEntityTooLarge",
                415 => "UnsupportedMediaType",
                _ => "BadRequest",
            };
            ApiError::new(err.status_code(), reason, err.to_string())
        }),
        _ => Err(ApiError::new(
            415,
            "UnsupportedMediaType",
            "the body of the request was in an unknown format - accepted media types include: \
             application/json, application/yaml, application/vnd.kubernetes.protobuf",
        )),
    }
}

fn get(store: &Store, target: &Target, name: &str) -> Answer {
    let stored = store
        .get(&key(target, name))
        .ok_or_else(|| ApiError::not_found(&target.resource.qualified_plural(), name))?;
    Ok((StatusCode::OK, crate::storage_version::view(&target.resource, stored.object)))
}

fn list(
    sandbox: &Sandbox,
    target: &Target,
    query: &HashMap<String, String>,
    headers: &HeaderMap,
) -> Answer {
    let labels =
        LabelSelector::parse(query.get("labelSelector").map(String::as_str).unwrap_or_default())?;
    let fields = FieldSelector::parse(
        query.get("fieldSelector").map(String::as_str).unwrap_or_default(),
        &target.resource,
    )?;
    let limit = query.get("limit").and_then(|l| l.parse::<usize>().ok()).filter(|l| *l > 0);
    let after = match query.get("continue").filter(|c| !c.is_empty()) {
        Some(token) => Some(decode_continue(target, token)?),
        None => None,
    };
    let prefix = prefix(&target.resource, target.namespace.as_deref());
    // Selectors filter after the page is read, as the API server's cache does not; read
    // pages until `limit` matching items are found.
    let mut items = Vec::new();
    let mut cursor = after;
    let mut revision;
    let mut more;
    loop {
        let page = sandbox.store.list(&prefix, cursor.as_ref(), limit.map(|l| l - items.len()));
        revision = page.revision;
        more = page.more;
        cursor = page.items.last().map(|s| s.key.clone());
        items.extend(
            page.items
                .into_iter()
                .map(|s| crate::storage_version::view(&target.resource, s.object))
                .filter(|object| {
                    labels.matches(object.pointer("/metadata/labels")) && fields.matches(object)
                }),
        );
        if !more || limit.is_none_or(|l| items.len() >= l) {
            break;
        }
    }
    let mut metadata = json!({"resourceVersion": revision.to_string()});
    if more && let Some(last) = cursor {
        metadata["continue"] = json!(encode_continue(&last));
    } else if target.resource.is_custom() {
        // kube-apiserver's unstructured lists (custom resources) always carry `continue`.
        metadata["continue"] = json!("");
    }
    let mut list = json!({
        "apiVersion": target.resource.group_version(),
        "kind": target.resource.list_kind,
        "metadata": metadata,
        "items": items,
    });
    if crate::table::wanted(headers) {
        return Ok((StatusCode::OK, crate::table::from_list(&target.resource, &list)));
    }
    if !target.resource.is_custom() {
        without_item_kinds(&mut list);
    }
    Ok((StatusCode::OK, list))
}

/// Continue tokens carry the last key's namespace and name (the resource is in the URL).
fn encode_continue(last: &Key) -> String {
    use base64::Engine as _;
    let raw = serde_json::to_vec(&json!([last.namespace, last.name])).unwrap_or_default();
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(raw)
}

fn decode_continue(target: &Target, token: &str) -> Result<Key, ApiError> {
    use base64::Engine as _;
    let invalid = || {
        ApiError::bad_request(
            "continue key is not valid: it must come from a previous list of this resource",
        )
    };
    let raw =
        base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(token).map_err(|_| invalid())?;
    let (namespace, name): (String, String) =
        serde_json::from_slice(&raw).map_err(|_| invalid())?;
    Ok(Key { namespace, name, ..key(target, "") })
}

async fn create(
    sandbox: &Sandbox,
    target: &Target,
    requester: &Requester,
    headers: &HeaderMap,
    body: &[u8],
) -> Answer {
    if target.subresource.is_some() {
        return Err(ApiError::method_not_allowed());
    }
    writes::create(sandbox, target, requester, parse_body(headers, body)?).await
}

fn is_dry_run(query: &HashMap<String, String>) -> bool {
    query.get("dryRun").is_some_and(|d| d == "All")
}

async fn update(
    sandbox: &Sandbox,
    target: &Target,
    name: &str,
    requester: &Requester,
    headers: &HeaderMap,
    body: &[u8],
) -> Answer {
    let object = parse_body(headers, body)?;
    let body_name = object.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
    if !body_name.is_empty() && body_name != name {
        return Err(ApiError::bad_request(format!(
            "the name of the object ({body_name}) does not match the name on the URL ({name})"
        )));
    }
    writes::update(sandbox, target, name, requester, |_| {
        // Fields the update removed have no owner any more, as with a patch.
        let mut object = object.clone();
        certgate_patch::prune_managed_fields(&mut object);
        Ok(object)
    })
    .await
}

async fn patch(
    sandbox: &Sandbox,
    target: &Target,
    name: &str,
    requester: &Requester,
    headers: &HeaderMap,
    body: &[u8],
    query: &HashMap<String, String>,
) -> Answer {
    let content_type =
        headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or_default();
    let patch_type = certgate_patch::PatchType::from_content_type(content_type)
        .ok_or_else(ApiError::unsupported_patch_type)?;
    if body.len() > MAX_BODY_BYTES {
        return Err(body_too_large());
    }
    crate::patching::patch(sandbox, target, name, requester, patch_type, body, query).await
}

/// DELETE with an optional DeleteOptions body: its preconditions, and its `dryRun`
/// (kubectl sends `--dry-run=server` there rather than in the query).
async fn delete(
    sandbox: &Sandbox,
    target: &Target,
    name: &str,
    mut requester: Requester,
    headers: &HeaderMap,
    body: &[u8],
    query: &HashMap<String, String>,
) -> Answer {
    let options = if body.iter().all(u8::is_ascii_whitespace) {
        Value::Null
    } else {
        parse_body(headers, body)?
    };
    crate::options::delete_options(query, Some(&options))?;
    let preconditions = writes::Preconditions::from_options(&options)?;
    if let Some(dry_run) = options.get("dryRun").and_then(Value::as_array) {
        requester.dry_run |= dry_run.iter().any(|d| d == "All");
    }
    let (code, object) = writes::delete(sandbox, target, name, &requester, &preconditions).await?;
    if object.pointer("/metadata/deletionTimestamp").is_some() {
        // Still there (finalizers, a namespace terminating): the object, as upstream.
        return Ok((code, object));
    }
    Ok((code, deleted_status(target, name, &object)))
}

/// What kube-apiserver answers for an object deleted at once (dry runs included): a
/// `Success` Status naming it (`details.kind` is the resource, as upstream), not the object.
fn deleted_status(target: &Target, name: &str, object: &Value) -> Value {
    let mut details = json!({"name": name, "kind": target.resource.plural});
    if !target.resource.group.is_empty() {
        details["group"] = json!(target.resource.group);
    }
    if let Some(uid) = object.pointer("/metadata/uid") {
        details["uid"] = uid.clone();
    }
    json!({
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
        "details": details,
    })
}

async fn delete_collection(
    sandbox: &Sandbox,
    target: &Target,
    requester: &Requester,
    query: &HashMap<String, String>,
) -> Answer {
    let labels =
        LabelSelector::parse(query.get("labelSelector").map(String::as_str).unwrap_or_default())?;
    let listed =
        sandbox.store.list(&prefix(&target.resource, target.namespace.as_deref()), None, None);
    let mut deleted = Vec::new();
    for stored in listed.items {
        if !labels.matches(stored.object.pointer("/metadata/labels")) {
            continue;
        }
        let item = Target {
            namespace: Some(stored.key.namespace.clone()).filter(|n| !n.is_empty()),
            ..target.clone()
        };
        let none = writes::Preconditions::default();
        if let Ok((_, object)) =
            writes::delete(sandbox, &item, &stored.key.name, requester, &none).await
        {
            deleted.push(object);
        }
    }
    Ok((
        StatusCode::OK,
        json!({
            "apiVersion": target.resource.group_version(),
            "kind": target.resource.list_kind,
            "metadata": {"resourceVersion": sandbox.store.revision().to_string()},
            "items": deleted,
        }),
    ))
}

/// A built-in kind's list as kube-apiserver encodes its typed lists: the items carry no
/// `apiVersion` and `kind` (only the list does); custom resources' items keep theirs.
fn without_item_kinds(list: &mut Value) {
    if let Some(items) = list.get_mut("items").and_then(Value::as_array_mut) {
        for item in items.iter_mut().filter_map(Value::as_object_mut) {
            item.remove("apiVersion");
            item.remove("kind");
        }
    }
}

/// Streams a response body from JSON lines.
pub(crate) fn json_line(value: &Value) -> Bytes {
    let mut line = serde_json::to_vec(value).unwrap_or_default();
    line.push(b'\n');
    Bytes::from(line)
}

pub(crate) fn stream_response(body: Body) -> Response {
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "application/json")
        .body(body)
        .unwrap_or_else(|_| {
            ApiError::new(500, "InternalError", "cannot build the watch response").into_response()
        })
}
