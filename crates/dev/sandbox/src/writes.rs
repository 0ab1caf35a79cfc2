//! Every write as the API server performs it: compute the new object from the request and
//! the current state, run mutating admission, fill system fields and validate, run
//! validating admission, then store it only if nothing changed in between (compare and
//! swap on the revision that was read). A write that loses that race is recomputed, as the
//! API server's storage retries its read-modify-write loop, unless the client named the
//! version it expected. A dry run goes through every step but the store.
//!
//! Admission webhooks are called between reading and writing, never while the store's
//! writer lock is held, so a slow webhook delays only its own request.

use axum::http::StatusCode;
use certgate_store::{Key, StoreError, Stored};
use serde_json::Value;

use crate::admission::{self, Operation};
use crate::api::{key, store_error};
use crate::objects::{self, has_finalizers, is_deleting, mark_deleting, text};
use crate::requester::Requester;
use crate::server::Sandbox;
use crate::status::ApiError;
use crate::target::Target;
use crate::{lifecycle, limits, object_meta, storage_version, typed_fields};

/// How often a write is recomputed when another write lands between its read and write.
const ATTEMPTS: usize = 5;

pub(crate) type Answer = Result<(StatusCode, Value), ApiError>;

/// Creates `object` in `target`'s collection.
pub(crate) async fn create(
    sandbox: &Sandbox,
    target: &Target,
    requester: &Requester,
    mut object: Value,
) -> Answer {
    objects::decode_create(&mut object, &target.resource, target.namespace.as_deref())?;
    typed_fields::check(&object, &target.resource)?;
    crate::unknown_fields::check(sandbox, target, requester, &object)?;
    limits::check_object_size(&object)?;
    lifecycle::before_create(sandbox, target, &mut object)?;
    let mut object =
        admission::mutate(sandbox, target, requester, Operation::Create, object, None).await?;
    objects::fill_create(&mut object, &target.resource)?;
    object_meta::validate_create(&target.resource, &object)?;
    lifecycle::validate(sandbox, target, &mut object, None)?;
    admission::validate(sandbox, target, requester, Operation::Create, Some(&object), None).await?;
    // Mutating webhooks may have grown it: the bound holds for what is stored or answered.
    limits::check_object_size(&object)?;
    let name = text(&object, "/metadata/name").to_owned();
    if requester.dry_run {
        // kube-apiserver's dry-run storage refuses a name that is taken, as the create
        // would (409 AlreadyExists), after admission.
        if sandbox.store.get(&key(target, &name)).is_some() {
            let taken = StoreError::AlreadyExists(Box::new(key(target, &name)));
            return Err(store_error(target, &name, taken));
        }
        return Ok((StatusCode::CREATED, object));
    }
    let stored = sandbox
        .store
        .create(key(target, &name), storage_version::to_storage(&target.resource, object))
        .map_err(|err| store_error(target, &name, err))?;
    let object = lifecycle::after_write(sandbox, target, stored)?;
    Ok((StatusCode::CREATED, storage_version::view(&target.resource, object)))
}

/// Updates `name` with the object `compute` makes of the current one (the PUT body, or
/// the current object with a patch applied). The client's precondition is the
/// resourceVersion in the computed object, when it has one.
pub(crate) async fn update(
    sandbox: &Sandbox,
    target: &Target,
    name: &str,
    requester: &Requester,
    compute: impl Fn(&Stored) -> Result<Value, ApiError>,
) -> Answer {
    let status_write = target.subresource.as_deref() == Some("status");
    for _ in 0..ATTEMPTS {
        let current = read(sandbox, target, name)?;
        let new = compute(&current)?;
        // A patch result is measured before anything else handles it (a JSON patch of
        // copies can build an object far over the limit from a small body).
        typed_fields::check(&new, &target.resource)?;
        crate::unknown_fields::check(sandbox, target, requester, &new)?;
        limits::check_object_size(&new)?;
        let expected = objects::precondition(&new)?;
        if let Some(expected) = expected
            && expected != current.revision
        {
            return Err(conflict(target, name, &current, expected));
        }
        let mut new = new;
        lifecycle::before_update(target, &mut new);
        let mut new = admission::mutate(
            sandbox,
            target,
            requester,
            Operation::Update,
            new,
            Some(&current.object),
        )
        .await?;
        // A status write keeps the old object but not its ownership record: server-side
        // apply to /status records its managers as upstream does.
        let managed = new.pointer("/metadata/managedFields").filter(|_| status_write).cloned();
        objects::prepare_update(&mut new, &current.object, &target.resource, status_write)?;
        if let (Some(managed), Some(meta)) =
            (managed, new.get_mut("metadata").and_then(Value::as_object_mut))
        {
            meta.insert("managedFields".to_owned(), managed);
        }
        if without_revision(&new) == without_revision(&current.object) {
            return Ok((StatusCode::OK, current.object));
        }
        object_meta::validate_update(&target.resource, &new)?;
        lifecycle::validate(sandbox, target, &mut new, Some(&current.object))?;
        admission::validate(
            sandbox,
            target,
            requester,
            Operation::Update,
            Some(&new),
            Some(&current.object),
        )
        .await?;
        limits::check_object_size(&new)?;
        if requester.dry_run {
            return Ok((StatusCode::OK, with_revision(new, current.revision)));
        }
        // The update removed the last finalizer of an object being deleted: it goes now.
        let written = if is_deleting(&new) && !has_finalizers(&new) {
            remove(sandbox, target, &current)
        } else {
            put(sandbox, target, &current, new)
        };
        match written {
            Err(WriteError::Raced) if expected.is_none() => continue,
            Err(WriteError::Raced) => {
                return Err(conflict(target, name, &current, current.revision));
            }
            Err(WriteError::Api(err)) => return Err(err),
            Ok(answer) => return Ok(answer),
        }
    }
    Err(kept_changing(target, name))
}

/// Deletes `name`, or starts deleting it when it has finalizers (or is a namespace).
pub(crate) async fn delete(
    sandbox: &Sandbox,
    target: &Target,
    name: &str,
    requester: &Requester,
    preconditions: &Preconditions,
) -> Answer {
    for _ in 0..ATTEMPTS {
        let current = read(sandbox, target, name)?;
        preconditions.check(target, name, &current)?;
        let finalizing = has_finalizers(&current.object) || lifecycle::finalizes(target);
        if finalizing && is_deleting(&current.object) {
            return Ok((StatusCode::OK, current.object));
        }
        admission::mutate(
            sandbox,
            target,
            requester,
            Operation::Delete,
            Value::Null,
            Some(&current.object),
        )
        .await?;
        admission::validate(
            sandbox,
            target,
            requester,
            Operation::Delete,
            None,
            Some(&current.object),
        )
        .await?;
        if requester.dry_run {
            return Ok((StatusCode::OK, current.object));
        }
        let written = if finalizing {
            let mut object = current.object.clone();
            mark_deleting(&mut object)?;
            put(sandbox, target, &current, object)
        } else {
            remove(sandbox, target, &current)
        };
        match written {
            Err(WriteError::Raced) if preconditions.resource_version.is_none() => continue,
            Err(WriteError::Raced) => {
                return Err(conflict(target, name, &current, current.revision));
            }
            Err(WriteError::Api(err)) => return Err(err),
            Ok(answer) => return Ok(answer),
        }
    }
    Err(kept_changing(target, name))
}

/// `DeleteOptions.preconditions`.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Preconditions {
    pub uid: Option<String>,
    pub resource_version: Option<u64>,
}

impl Preconditions {
    /// Reads them from a DeleteOptions body (which may be empty).
    pub fn from_options(options: &Value) -> Result<Preconditions, ApiError> {
        let uid = options.pointer("/preconditions/uid").and_then(Value::as_str);
        let resource_version = match options
            .pointer("/preconditions/resourceVersion")
            .and_then(Value::as_str)
        {
            None | Some("") => None,
            Some(rv) => Some(rv.parse().map_err(|_| {
                ApiError::bad_request(format!(
                    "invalid resourceVersion {} in preconditions: it must come from a read of this server",
                    certgate_gofmt::quote(rv)
                ))
            })?),
        };
        Ok(Preconditions {
            uid: uid.filter(|u| !u.is_empty()).map(str::to_owned),
            resource_version,
        })
    }

    fn check(&self, target: &Target, name: &str, current: &Stored) -> Result<(), ApiError> {
        let actual_uid = text(&current.object, "/metadata/uid");
        if let Some(uid) = &self.uid
            && uid != actual_uid
        {
            return Err(precondition_failed(
                target,
                name,
                format!(
                    "Precondition failed: UID in precondition: {uid}, UID in object meta: {actual_uid}"
                ),
            ));
        }
        if let Some(rv) = self.resource_version
            && rv != current.revision
        {
            return Err(precondition_failed(
                target,
                name,
                format!(
                    "Precondition failed: ResourceVersion in precondition: {rv}, ResourceVersion in object meta: {}",
                    current.revision
                ),
            ));
        }
        Ok(())
    }
}

fn precondition_failed(target: &Target, name: &str, message: String) -> ApiError {
    let resource = target.resource.qualified_plural();
    ApiError::new(409, "Conflict", format!("Operation cannot be fulfilled on {resource} \"{name}\": {message}"))
        .with_details(serde_json::json!({"name": name, "group": target.resource.group, "kind": target.resource.plural}))
}

/// Why a compare-and-swap write did not happen.
enum WriteError {
    /// Another write changed the object after it was read.
    Raced,
    Api(ApiError),
}

/// The current object, as the target's version shows it.
fn read(sandbox: &Sandbox, target: &Target, name: &str) -> Result<Stored, ApiError> {
    let stored = sandbox
        .store
        .get(&key(target, name))
        .ok_or_else(|| ApiError::not_found(&target.resource.qualified_plural(), name))?;
    Ok(Stored { object: storage_version::view(&target.resource, stored.object), ..stored })
}

fn put(
    sandbox: &Sandbox,
    target: &Target,
    current: &Stored,
    object: Value,
) -> Result<(StatusCode, Value), WriteError> {
    let stored = sandbox
        .store
        .update(
            &current.key,
            Some(current.revision),
            storage_version::to_storage(&target.resource, object),
        )
        .map_err(|err| raced_or(target, &current.key, err))?;
    let object = lifecycle::after_write(sandbox, target, stored).map_err(WriteError::Api)?;
    Ok((StatusCode::OK, storage_version::view(&target.resource, object)))
}

fn remove(
    sandbox: &Sandbox,
    target: &Target,
    current: &Stored,
) -> Result<(StatusCode, Value), WriteError> {
    let stored = sandbox
        .store
        .delete(&current.key, Some(current.revision))
        .map_err(|err| raced_or(target, &current.key, err))?;
    lifecycle::after_delete(sandbox, target, &stored);
    Ok((StatusCode::OK, storage_version::view(&target.resource, stored.object)))
}

/// A conflict or a vanished object after the read is a lost race; anything else is final.
fn raced_or(target: &Target, key: &Key, err: StoreError) -> WriteError {
    match err {
        StoreError::Conflict { .. } | StoreError::NotFound(_) => WriteError::Raced,
        other => WriteError::Api(store_error(target, &key.name, other)),
    }
}

fn conflict(target: &Target, name: &str, current: &Stored, expected: u64) -> ApiError {
    store_error(
        target,
        name,
        StoreError::Conflict {
            key: Box::new(current.key.clone()),
            expected,
            actual: current.revision,
        },
    )
}

fn kept_changing(target: &Target, name: &str) -> ApiError {
    ApiError::new(
        409,
        "Conflict",
        format!(
            "Operation cannot be fulfilled on {} \"{name}\": the object kept changing while the request was applied; try again",
            target.resource.qualified_plural()
        ),
    )
}

fn without_revision(object: &Value) -> Value {
    let mut object = object.clone();
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata.remove("resourceVersion");
    }
    object
}

/// A dry-run answer carries the version it was computed from.
fn with_revision(mut object: Value, revision: u64) -> Value {
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata.insert("resourceVersion".to_owned(), Value::String(revision.to_string()));
    }
    object
}
