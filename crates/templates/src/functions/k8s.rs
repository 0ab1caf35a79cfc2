//! Functions that read Kubernetes objects; every read goes through the session's lookup
//! routine, so restrictions, RBAC and the read set apply uniformly.

use std::collections::BTreeMap;
use std::sync::Arc;

use certgate_gotemplate::{FuncError, FuncMap, Value, to_value};

use super::args::{expect_at_least, expect_count, string_arg, string_args};
use crate::access::{Found, LookupError, Query};
use crate::session::{Frame, current};

const CLUSTER_CLAIM_API_VERSION: &str = "cluster.open-cluster-management.io/v1alpha1";
const NODE_ROLE_PREFIX: &str = "node-role.kubernetes.io";

fn call(message: impl Into<String>) -> FuncError {
    FuncError::call(message)
}

/// Reads one object; a "not found" that the caller reports counts as a failed read.
fn get_object(frame: &Frame, query: &Query<'_>) -> Result<Arc<serde_json::Value>, LookupError> {
    match frame.lookup(query) {
        Ok(Found::Object(object)) => Ok(object),
        // A query with a name always gets one object; an empty list stands in for "none".
        Ok(Found::List(_)) => Ok(Arc::new(serde_json::Value::Null)),
        Err(error) => {
            if error.is_not_found() {
                frame.record_not_found_failure();
            }
            Err(error)
        }
    }
}

fn data_of(object: &serde_json::Value) -> Option<&serde_json::Map<String, serde_json::Value>> {
    object.get("data").and_then(serde_json::Value::as_object)
}

/// Empty namespace is allowed only when it defaults to the lookup namespace.
fn missing_input(frame: &Frame, namespace: &str, required: &[&str]) -> bool {
    required.iter().any(|v| v.is_empty())
        || (namespace.is_empty() && frame.session().access.lookup_namespace().is_empty())
}

fn from_secret(args: &[Value]) -> Result<Value, FuncError> {
    expect_count("fromSecret", args, 3)?;
    let (namespace, name, key) =
        (string_arg(&args[0])?, string_arg(&args[1])?, string_arg(&args[2])?);
    let frame = current("fromSecret")?;
    if missing_input(&frame, namespace, &[name, key]) {
        return Err(call("the input is invalid: namespace, name, and key must be specified"));
    }
    let query = Query { api_version: "v1", kind: "Secret", namespace, name, selector: &[] };
    let secret = get_object(&frame, &query)
        .map_err(|e| call(format!("failed to get the secret {name} from {namespace}: {e}")))?;
    frame.mark_sensitive();
    // Secret data is base64 in the API; it stays encoded in the output.
    let value = data_of(&secret).and_then(|d| d.get(key)).and_then(|v| v.as_str()).unwrap_or("");
    Ok(Value::from(protect_with_session(&frame, value)))
}

/// Encrypts when the session has keys (the template uses encryption); `""` stays `""`.
pub(super) fn protect_with_session(frame: &Frame, value: &str) -> String {
    match &frame.session().encryption {
        Some(keys) if !value.is_empty() => {
            frame.count_encrypted(1);
            keys.encrypt(value)
        }
        _ => value.to_owned(),
    }
}

fn from_config_map(args: &[Value]) -> Result<Value, FuncError> {
    expect_count("fromConfigMap", args, 3)?;
    let (namespace, name, key) =
        (string_arg(&args[0])?, string_arg(&args[1])?, string_arg(&args[2])?);
    let frame = current("fromConfigMap")?;
    if missing_input(&frame, namespace, &[name, key]) {
        return Err(call("the input is invalid: namespace, name, and key must be specified"));
    }
    let query = Query { api_version: "v1", kind: "ConfigMap", namespace, name, selector: &[] };
    let config_map = get_object(&frame, &query)
        .map_err(|e| call(format!("failed getting the ConfigMap {name} from {namespace}: {e}")))?;
    let value = data_of(&config_map).and_then(|d| d.get(key)).and_then(|v| v.as_str());
    Ok(Value::from(value.unwrap_or("")))
}

/// Go's `fmt.Sprint` of a JSON value, for values that are encrypted one by one.
fn sprint(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => "<nil>".to_owned(),
        other => other.to_string(),
    }
}

/// `copySecretData` / `copyConfigMapData`: the `data` map as Go's `json.Marshal` writes it
/// (`null` without data). The pipeline unquotes the template so YAML reads it as a map.
fn copy_data(
    name_of_fn: &'static str,
    kind: &'static str,
    args: &[Value],
) -> Result<Value, FuncError> {
    expect_count(name_of_fn, args, 2)?;
    let (namespace, name) = (string_arg(&args[0])?, string_arg(&args[1])?);
    let frame = current(name_of_fn)?;
    if missing_input(&frame, namespace, &[name]) {
        return Err(call("the input is invalid: namespace and name must be specified"));
    }
    let query = Query { api_version: "v1", kind, namespace, name, selector: &[] };
    let object = get_object(&frame, &query).map_err(|e| {
        call(if kind == "Secret" {
            format!("failed to get the secret {name} from {namespace}: {e}")
        } else {
            format!("failed getting the ConfigMap {name} from {namespace}: {e}")
        })
    })?;
    let Some(data) = data_of(&object) else { return Ok(Value::from("null")) };
    if kind != "Secret" {
        return Ok(Value::from(certgate_gofmt::json(&serde_json::Value::Object(data.clone()))));
    }
    frame.mark_sensitive();
    if frame.session().encryption.is_none() {
        return Ok(Value::from(certgate_gofmt::json(&serde_json::Value::Object(data.clone()))));
    }
    let protected: serde_json::Map<String, serde_json::Value> = data
        .iter()
        .map(|(k, v)| {
            (k.clone(), serde_json::Value::String(protect_with_session(&frame, &sprint(v))))
        })
        .collect();
    Ok(Value::from(certgate_gofmt::json(&serde_json::Value::Object(protected))))
}

fn list_value(items: &[Arc<serde_json::Value>]) -> Value {
    let items: Vec<Value> = items.iter().map(|item| to_value(item)).collect();
    Value::from(BTreeMap::from([(Arc::<str>::from("items"), Value::from(items))]))
}

fn empty_map() -> Value {
    Value::from(BTreeMap::<Arc<str>, Value>::new())
}

fn lookup(args: &[Value]) -> Result<Value, FuncError> {
    expect_at_least("lookup", args, 4)?;
    let strings = string_args(args)?;
    let (api_version, kind, namespace, name) = (strings[0], strings[1], strings[2], strings[3]);
    let frame = current("lookup")?;
    let query = Query { api_version, kind, namespace, name, selector: &strings[4..] };
    match frame.lookup(&query) {
        Ok(Found::Object(object)) => {
            if kind == "Secret" {
                frame.mark_sensitive();
            }
            Ok(to_value(&object))
        }
        Ok(Found::List(items)) => {
            if kind == "Secret" && !items.is_empty() {
                frame.mark_sensitive();
            }
            Ok(list_value(&items))
        }
        // A missing object is Go's nil map: no error, and fields render `<no value>`.
        Err(error) if error.is_not_found() => Ok(empty_map()),
        Err(error) => Err(call(error.to_string())),
    }
}

/// Go's dynamic type name in `interface conversion` panics on unstructured content.
fn go_json_type(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "nil",
        serde_json::Value::Bool(_) => "bool",
        serde_json::Value::Number(n) if n.is_i64() || n.is_u64() => "int64",
        serde_json::Value::Number(_) => "float64",
        serde_json::Value::String(_) => "string",
        serde_json::Value::Array(_) => "[]interface {}",
        serde_json::Value::Object(_) => "map[string]interface {}",
    }
}

fn cluster_claim(
    function: &'static str,
    args: &[Value],
    tolerate_missing: bool,
) -> Result<Value, FuncError> {
    expect_count(function, args, 1)?;
    let name = string_arg(&args[0])?;
    let frame = current(function)?;
    if name.is_empty() {
        return Err(call("a claim name must be provided"));
    }
    let query = Query {
        api_version: CLUSTER_CLAIM_API_VERSION,
        kind: "ClusterClaim",
        namespace: "",
        name,
        selector: &[],
    };
    let claim = match frame.lookup(&query) {
        Ok(Found::Object(object)) => object,
        Ok(Found::List(_)) => return Ok(Value::from("")),
        Err(error) if error.is_not_found() && tolerate_missing => return Ok(Value::from("")),
        Err(error) => {
            if error.is_not_found() {
                frame.record_not_found_failure();
            }
            return Err(call(error.to_string()));
        }
    };
    let Some(spec) = claim.get("spec").and_then(serde_json::Value::as_object) else {
        return Err(call(format!("unexpected ClusterClaim format: {name}")));
    };
    match spec.get("value") {
        None => Ok(Value::from("")),
        Some(serde_json::Value::String(value)) => Ok(Value::from(value.as_str())),
        // Upstream's unchecked type assertion panics; text/template reports the panic.
        Some(other) => Err(call(format!(
            "interface conversion: interface {{}} is {}, not string",
            go_json_type(other)
        ))),
    }
}

/// Nodes carrying every requested role label and no other role label except `worker`.
fn nodes_with_exact_roles(
    function: &'static str,
    args: &[Value],
) -> Result<Vec<Arc<serde_json::Value>>, FuncError> {
    let roles = string_args(args)?;
    let frame = current(function)?;
    let mut wanted: Vec<String> = roles
        .iter()
        .filter(|r| !r.trim().is_empty())
        .map(|r| format!("{NODE_ROLE_PREFIX}/{r}"))
        .collect();
    if wanted.is_empty() {
        return Err(call("the input is invalid: at least one name must be specified"));
    }
    let selector: Vec<&str> = wanted.iter().map(String::as_str).collect();
    let query =
        Query { api_version: "v1", kind: "Node", namespace: "", name: "", selector: &selector };
    let nodes = match frame.lookup(&query) {
        Ok(Found::List(items)) => items,
        Ok(Found::Object(object)) => vec![object],
        Err(error) => return Err(call(error.to_string())),
    };
    wanted.push(format!("{NODE_ROLE_PREFIX}/worker"));
    let exact = |node: &Arc<serde_json::Value>| {
        let labels = node.pointer("/metadata/labels").and_then(serde_json::Value::as_object);
        labels
            .into_iter()
            .flatten()
            .all(|(key, _)| !key.starts_with(NODE_ROLE_PREFIX) || wanted.iter().any(|w| w == key))
    };
    Ok(nodes.into_iter().filter(exact).collect())
}

pub(super) fn register(map: &mut FuncMap) {
    map.insert("fromSecret", from_secret);
    map.insert("fromConfigMap", from_config_map);
    map.insert("copySecretData", |args: &[Value]| copy_data("copySecretData", "Secret", args));
    map.insert("copyConfigMapData", |args: &[Value]| {
        copy_data("copyConfigMapData", "ConfigMap", args)
    });
    map.insert("lookup", lookup);
    map.insert("fromClusterClaim", |args: &[Value]| cluster_claim("fromClusterClaim", args, false));
    map.insert("lookupClusterClaim", |args: &[Value]| {
        cluster_claim("lookupClusterClaim", args, true)
    });
    map.insert("getNodesWithExactRoles", |args: &[Value]| {
        Ok(list_value(&nodes_with_exact_roles("getNodesWithExactRoles", args)?))
    });
    map.insert("hasNodesWithExactRoles", |args: &[Value]| {
        Ok(Value::Bool(!nodes_with_exact_roles("hasNodesWithExactRoles", args)?.is_empty()))
    });
}
