//! The resource endpoints: get, list, watch, create, update, patch and delete on every
//! served resource, with the API server's semantics on top of the object store.

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{Query, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use certgate_store::{Key, Modification, ModifyError, Prefix, Store, StoreError, Stored};
use serde_json::{Value, json};

use crate::objects::{self, has_finalizers, is_deleting, mark_deleting, precondition};
use crate::resources::ResourceType;
use crate::selectors::{FieldSelector, LabelSelector};
use crate::server::Sandbox;
use crate::status::ApiError;
use crate::target::{Target, resolve};
use crate::{lifecycle, watch};

/// Largest request body accepted (the API server's limit).
pub const MAX_BODY_BYTES: usize = 3 * 1024 * 1024;

pub(crate) fn key(target: &Target, name: &str) -> Key {
    Key {
        group: target.resource.group.clone(),
        resource: target.resource.plural.clone(),
        namespace: target.namespace.clone().unwrap_or_default(),
        name: name.to_owned(),
    }
}

pub(crate) fn prefix(resource: &ResourceType, namespace: Option<&str>) -> Prefix {
    Prefix {
        group: resource.group.clone(),
        resource: resource.plural.clone(),
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
    method: Method,
    uri: Uri,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let target = match resolve(&sandbox.registry, uri.path()) {
        Ok(target) => target,
        Err(err) => return err.into_response(),
    };
    // Never write what was asked as a dry run: only creates can be dry-run here.
    if is_dry_run(&query) && method != Method::POST && method != Method::GET {
        return ApiError::bad_request(
            "the sandbox API server supports dryRun=All on create only; repeat the request without dryRun",
        )
        .into_response();
    }
    let result = match (&method, target.name.as_deref()) {
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
        (&Method::POST, None) => create(&sandbox, &target, &headers, &body, &query),
        (&Method::PUT, Some(name)) => update(&sandbox, &target, name, &headers, &body),
        (&Method::PATCH, Some(name)) => patch(&sandbox, &target, name, &headers, &body, &query),
        (&Method::DELETE, Some(name)) => delete(&sandbox, &target, name),
        (&Method::DELETE, None) => delete_collection(&sandbox, &target, &query),
        _ => Err(ApiError::method_not_allowed(method.as_str())),
    };
    match result {
        Ok((status, value)) => (status, axum::Json(value)).into_response(),
        Err(err) => err.into_response(),
    }
}

fn is_true(value: Option<&String>) -> bool {
    matches!(value.map(String::as_str), Some("true" | "1"))
}

type Answer = Result<(StatusCode, Value), ApiError>;

/// Reads a create or update body: JSON (the default) or YAML. Protobuf, which client-go's
/// typed clients send for built-in kinds (e.g. `kubectl create namespace`), is refused with
/// the API server's 415; `kubectl apply -f` and `create -f` send JSON.
fn parse_body(headers: &HeaderMap, body: &[u8]) -> Result<Value, ApiError> {
    if body.len() > MAX_BODY_BYTES {
        return Err(ApiError::new(413, "RequestEntityTooLarge", "the request body is too large"));
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
        _ => Err(ApiError::new(
            415,
            "UnsupportedMediaType",
            "the body of the request was in an unknown format - accepted media types include: \
             application/json, application/yaml",
        )),
    }
}

fn get(store: &Store, target: &Target, name: &str) -> Answer {
    let stored = store
        .get(&key(target, name))
        .ok_or_else(|| ApiError::not_found(&target.resource.qualified_plural(), name))?;
    Ok((StatusCode::OK, stored.object))
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
        &target.resource.kind,
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
                .filter(|s| {
                    labels.matches(s.object.pointer("/metadata/labels"))
                        && fields.matches(&s.object)
                })
                .map(|s| s.object),
        );
        if !more || limit.is_none_or(|l| items.len() >= l) {
            break;
        }
    }
    let mut metadata = json!({"resourceVersion": revision.to_string()});
    if more && let Some(last) = cursor {
        metadata["continue"] = json!(encode_continue(&last));
    }
    let list = json!({
        "apiVersion": target.resource.group_version(),
        "kind": target.resource.list_kind,
        "metadata": metadata,
        "items": items,
    });
    if crate::table::wanted(headers) {
        return Ok((StatusCode::OK, crate::table::from_list(&target.resource, &list)));
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
    Ok(Key {
        group: target.resource.group.clone(),
        resource: target.resource.plural.clone(),
        namespace,
        name,
    })
}

fn create(
    sandbox: &Sandbox,
    target: &Target,
    headers: &HeaderMap,
    body: &[u8],
    query: &HashMap<String, String>,
) -> Answer {
    if target.subresource.is_some() {
        return Err(ApiError::method_not_allowed("POST"));
    }
    let object = parse_body(headers, body)?;
    if is_dry_run(query) {
        let mut object = object;
        objects::prepare_create(&mut object, &target.resource, target.namespace.as_deref())?;
        lifecycle::admit_create(sandbox, target, &mut object)?;
        return Ok((StatusCode::CREATED, object));
    }
    create_object(sandbox, target, object)
}

/// Creates `object` in `target`'s collection with every admission step.
pub(crate) fn create_object(sandbox: &Sandbox, target: &Target, mut object: Value) -> Answer {
    objects::prepare_create(&mut object, &target.resource, target.namespace.as_deref())?;
    lifecycle::admit_create(sandbox, target, &mut object)?;
    let name =
        object.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default().to_owned();
    let stored = sandbox
        .store
        .create(key(target, &name), object)
        .map_err(|err| store_error(target, &name, err))?;
    let object = lifecycle::after_write(sandbox, target, stored)?;
    Ok((StatusCode::CREATED, object))
}

fn is_dry_run(query: &HashMap<String, String>) -> bool {
    query.get("dryRun").is_some_and(|d| d == "All")
}

/// Replaces the stored object with `new` under the status split, or deletes it when the
/// update removed the last finalizer of an object being deleted.
pub(crate) fn replace(
    sandbox: &Sandbox,
    target: &Target,
    name: &str,
    mut new: Value,
    expected: Option<u64>,
) -> Answer {
    let status_write = target.subresource.as_deref() == Some("status");
    let mut deleted = false;
    let outcome = sandbox.store.modify(&key(target, name), |current: &Stored| {
        if let Some(expected) = expected
            && expected != current.revision
        {
            return Err(store_error(
                target,
                name,
                StoreError::Conflict {
                    key: Box::new(current.key.clone()),
                    expected,
                    actual: current.revision,
                },
            ));
        }
        objects::prepare_update(&mut new, &current.object, &target.resource, status_write)?;
        lifecycle::admit_update(sandbox, target, &mut new)?;
        if is_deleting(&new) && !has_finalizers(&new) {
            deleted = true;
            return Ok(Modification::Delete);
        }
        if without_revision(&new) == without_revision(&current.object) {
            return Ok(Modification::Keep);
        }
        Ok(Modification::Replace(new.clone()))
    });
    answer_modification(sandbox, target, name, outcome, deleted)
}

/// The answer to a read-modify-write: the object as written (after its kind's follow-up
/// work), the object as it was when `deleted`, or the stored one when nothing changed.
fn answer_modification(
    sandbox: &Sandbox,
    target: &Target,
    name: &str,
    outcome: Result<Option<Stored>, ModifyError<ApiError>>,
    deleted: bool,
) -> Answer {
    match outcome {
        Ok(Some(stored)) if deleted => {
            lifecycle::after_delete(sandbox, target, &stored);
            Ok((StatusCode::OK, stored.object))
        }
        Ok(Some(stored)) => Ok((StatusCode::OK, lifecycle::after_write(sandbox, target, stored)?)),
        Ok(None) => get(&sandbox.store, target, name),
        Err(ModifyError::Store(err)) => Err(store_error(target, name, err)),
        Err(ModifyError::Rejected(err)) => Err(err),
    }
}

fn without_revision(object: &Value) -> Value {
    let mut object = object.clone();
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata.remove("resourceVersion");
    }
    object
}

fn update(
    sandbox: &Sandbox,
    target: &Target,
    name: &str,
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
    let expected = precondition(&object)?;
    replace(sandbox, target, name, object, expected)
}

fn patch(
    sandbox: &Sandbox,
    target: &Target,
    name: &str,
    headers: &HeaderMap,
    body: &[u8],
    query: &HashMap<String, String>,
) -> Answer {
    let content_type =
        headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or_default();
    let patch_type = certgate_patch::PatchType::from_content_type(content_type).ok_or_else(|| {
        ApiError::new(415, "UnsupportedMediaType", format!("the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml (got {content_type:?})"))
    })?;
    if body.len() > MAX_BODY_BYTES {
        return Err(ApiError::new(413, "RequestEntityTooLarge", "the request body is too large"));
    }
    crate::patching::patch(sandbox, target, name, patch_type, body, query)
}

/// Deletes (or starts deleting, with finalizers) one object.
pub(crate) fn delete_object(sandbox: &Sandbox, target: &Target, name: &str) -> Answer {
    delete(sandbox, target, name)
}

fn delete(sandbox: &Sandbox, target: &Target, name: &str) -> Answer {
    let mut deleted = false;
    let outcome = sandbox.store.modify(&key(target, name), |current: &Stored| {
        if has_finalizers(&current.object) || lifecycle::finalizes(target) {
            if is_deleting(&current.object) {
                return Ok(Modification::Keep);
            }
            let mut object = current.object.clone();
            mark_deleting(&mut object)?;
            return Ok(Modification::Replace(object));
        }
        deleted = true;
        Ok::<_, ApiError>(Modification::Delete)
    });
    answer_modification(sandbox, target, name, outcome, deleted)
}

fn delete_collection(
    sandbox: &Sandbox,
    target: &Target,
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
        if let Ok((_, object)) = delete(sandbox, &item, &stored.key.name) {
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
