//! OpenAPI v3 documents: the root index (`/openapi/v3`) and one document per group version.
//!
//! kubectl reads them before `apply`, `create` and `replace` to learn whether the server
//! takes the `fieldValidation` and `dryRun` query parameters for a kind (it looks for the
//! kind's operations and their parameters), and to compute strategic merge patches. The
//! documents describe every served path and operation; built-in kinds get an open schema
//! (any fields), custom resources their CRD's `openAPIV3Schema`.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use serde_json::{Map, Value, json};

use crate::registry::Registry;
use crate::resources::ResourceType;

/// The `paths` key of a group version: `api/v1` or `apis/<group>/<version>`.
fn path_key(group: &str, version: &str) -> String {
    if group.is_empty() { format!("api/{version}") } else { format!("apis/{group}/{version}") }
}

/// `/openapi/v3`: where each group version's document is, with a content hash that
/// changes whenever the document does (clients cache by it).
pub fn index(registry: &Registry) -> Value {
    let mut paths = Map::new();
    for (group, version, resources) in registry.group_versions() {
        let key = path_key(&group, &version);
        let hash = content_hash(&document(&group, &version, &resources));
        paths.insert(
            key.clone(),
            json!({"serverRelativeURL": format!("/openapi/v3/{key}?hash={hash}")}),
        );
    }
    json!({"paths": paths})
}

/// The document for `group`/`version`, or `None` when not served.
pub fn group_version(registry: &Registry, group: &str, version: &str) -> Option<Value> {
    let (_, _, resources) =
        registry.group_versions().into_iter().find(|(g, v, _)| g == group && v == version)?;
    Some(document(group, version, &resources))
}

fn content_hash(document: &Value) -> String {
    let mut hasher = DefaultHasher::new();
    document.to_string().hash(&mut hasher);
    format!("{:016X}", hasher.finish())
}

/// The schema name of a kind, in Kubernetes' reverse-domain style.
fn schema_name(resource: &ResourceType) -> String {
    let group = match resource.group.as_str() {
        "" => "io.k8s.api.core".to_owned(),
        group if group.ends_with(".k8s.io") => {
            format!("io.k8s.api.{}", group.trim_end_matches(".k8s.io").replace('.', "_"))
        }
        group => group.split('.').rev().collect::<Vec<_>>().join("."),
    };
    format!("{group}.{}.{}", resource.version, resource.kind)
}

fn document(group: &str, version: &str, resources: &[ResourceType]) -> Value {
    let mut paths = Map::new();
    let mut schemas = Map::new();
    for resource in resources {
        let name = schema_name(resource);
        let gvk = json!({"group": group, "version": version, "kind": resource.kind});
        let mut schema = resource.schema.clone().unwrap_or_else(
            || json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}),
        );
        if let Some(object) = schema.as_object_mut() {
            object.insert("x-kubernetes-group-version-kind".to_owned(), json!([gvk]));
        }
        schemas.insert(name.clone(), schema);
        let reference = json!({"$ref": format!("#/components/schemas/{name}")});
        for (path, item) in operations(resource, &gvk, &reference) {
            paths.insert(path, item);
        }
    }
    json!({
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes (certgate sandbox)", "version": crate::version::GIT_VERSION},
        "paths": paths,
        "components": {"schemas": schemas},
    })
}

/// The query parameters kubectl looks for on write operations.
fn write_parameters() -> Value {
    json!([
        {"name": "dryRun", "in": "query", "schema": {"type": "string", "uniqueItems": true}},
        {"name": "fieldManager", "in": "query", "schema": {"type": "string", "uniqueItems": true}},
        {"name": "fieldValidation", "in": "query", "schema": {"type": "string", "uniqueItems": true}},
    ])
}

fn operation(action: &str, gvk: &Value, reference: &Value, writes: bool) -> Value {
    let body = json!({"content": {"application/json": {"schema": reference}}});
    let mut op = json!({
        "x-kubernetes-action": action,
        "x-kubernetes-group-version-kind": gvk,
        "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": reference}}}},
    });
    if writes {
        op["parameters"] = write_parameters();
        op["requestBody"] = body;
    }
    op
}

fn operations(resource: &ResourceType, gvk: &Value, reference: &Value) -> Vec<(String, Value)> {
    let base = if resource.group.is_empty() {
        format!("/api/{}", resource.version)
    } else {
        format!("/apis/{}/{}", resource.group, resource.version)
    };
    let collection = if resource.namespaced {
        format!("{base}/namespaces/{{namespace}}/{}", resource.plural)
    } else {
        format!("{base}/{}", resource.plural)
    };
    let item = format!("{collection}/{{name}}");
    if resource.create_only {
        return vec![(collection, json!({"post": operation("post", gvk, reference, true)}))];
    }
    let mut paths = vec![
        (
            collection,
            json!({
                "get": operation("list", gvk, reference, false),
                "post": operation("post", gvk, reference, true),
                "delete": operation("deletecollection", gvk, reference, false),
            }),
        ),
        (
            item.clone(),
            json!({
                "get": operation("get", gvk, reference, false),
                "put": operation("put", gvk, reference, true),
                "patch": operation("patch", gvk, reference, true),
                "delete": operation("delete", gvk, reference, false),
            }),
        ),
    ];
    if resource.has_token_subresource() {
        let token =
            json!({"group": "authentication.k8s.io", "version": "v1", "kind": "TokenRequest"});
        paths.push((
            format!("{item}/token"),
            json!({"post": operation("post", &token, &json!({"type": "object"}), true)}),
        ));
    }
    if resource.status_subresource {
        paths.push((
            format!("{item}/status"),
            json!({
                "get": operation("get", gvk, reference, false),
                "put": operation("put", gvk, reference, true),
                "patch": operation("patch", gvk, reference, true),
            }),
        ));
    }
    paths
}
