//! `check`'s loading: the shared offline loading, except that CertificateRequests and
//! CertificateRequestPolicies are first checked against their CRD schemas, as the API server
//! checks them on `kubectl apply`, and any object that is invalid (or does not decode) is
//! reported on its own and left out, while the rest of the run goes on.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;

use certgate_api::validation::{self, Resource};
use serde_json::Value;

use crate::shared::manifests::documents::{Syntax, parse};
use crate::shared::manifests::positions::{Node, Step};
use crate::shared::manifests::{LoadError, LoadErrors, Source, for_each_input};
use crate::shared::offline::Loaded;
use crate::shared::offline::classify::{Item, classify};
use crate::shared::unknown_fields::UnknownFields;

/// An object left out of the run (or read without its status), with what the API server
/// (or the decoder) said about it.
#[derive(Debug)]
pub struct InvalidObject {
    pub at: Source,
    pub message: String,
    /// How many input errors were found before it, to report both in file order.
    errors_before: usize,
}

impl std::fmt::Display for InvalidObject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.at, self.message)
    }
}

/// What `check` reads: the inputs, the objects left out as invalid, and the objects read
/// without their invalid `status`.
#[derive(Debug, Default)]
pub struct CheckInputs {
    pub loaded: Loaded,
    pub invalid: Vec<InvalidObject>,
    pub warnings: Vec<InvalidObject>,
    /// Fields the objects' schemas do not know (the API server would drop or refuse them).
    pub unknown_fields: UnknownFields,
    /// Where the fields of each CertificateRequest and CertificateRequestPolicy were
    /// written, so that the webhooks' field errors can point at them.
    pub positions: BTreeMap<Source, Node>,
}

/// Loads the files and directories in `args` (`-` is `stdin`). Input errors (unreadable or
/// unparsable files, objects of the wrong apiVersion or without a name, duplicates) fail the
/// whole load and are returned too; invalid objects do not.
pub fn load(args: &[PathBuf], stdin: impl Read) -> (CheckInputs, Option<LoadErrors>) {
    let mut inputs = CheckInputs::default();
    let result = for_each_input(args, stdin, |name, text, errors| {
        load_text(name, text, &mut inputs, errors)
    });
    (inputs, result.err())
}

impl CheckInputs {
    /// The input errors and the invalid objects, as `error: ...` lines in file order, for a
    /// run that stops on input errors but should still show every problem.
    pub fn error_lines(&self, errors: &LoadErrors) -> Vec<String> {
        let mut lines = Vec::new();
        let mut invalid = self.invalid.iter().peekable();
        for (index, error) in errors.0.iter().enumerate() {
            while let Some(object) = invalid.next_if(|o| o.errors_before <= index) {
                lines.push(format!("error: {object}"));
            }
            lines.push(format!("error: {error}"));
        }
        lines.extend(invalid.map(|object| format!("error: {object}")));
        lines
    }
}

fn load_text(name: &str, text: &str, inputs: &mut CheckInputs, errors: &mut Vec<LoadError>) {
    let file: Arc<str> = Arc::from(name);
    let documents = match parse(&file, text, Syntax::for_name(name)) {
        Ok(documents) => documents,
        Err(err) => return errors.push(err),
    };
    for document in documents {
        inputs.unknown_fields.add_document(&document);
        let positions = document.positions;
        match list_items(document.value) {
            Ok(items) => {
                let item_nodes = positions.child(Step::Key("items"));
                for (index, item) in items.into_iter().enumerate() {
                    let node = item_nodes.and_then(|n| n.child(Step::Index(index)));
                    let at = document.at.item(index).at(node.and_then(|n| n.at));
                    load_object(at, node, item, inputs, errors);
                }
            }
            // Not a flat List: one object, or something `classify` reports.
            Err(value) => load_object(document.at, Some(&positions), value, inputs, errors),
        }
    }
}

/// The items of a `v1 List` whose items are objects and not Lists themselves; anything
/// else comes back unchanged for `classify` to handle or report.
fn list_items(value: Value) -> Result<Vec<Value>, Value> {
    let is_list = |v: &Value| {
        v.get("apiVersion").and_then(Value::as_str) == Some("v1")
            && v.get("kind").and_then(Value::as_str) == Some("List")
    };
    let flat = is_list(&value)
        && value
            .get("items")
            .and_then(Value::as_array)
            .is_some_and(|items| items.iter().all(|item| item.is_object() && !is_list(item)));
    if !flat {
        return Err(value);
    }
    match value {
        Value::Object(mut map) => match map.remove("items") {
            Some(Value::Array(items)) => Ok(items),
            _ => Ok(Vec::new()),
        },
        other => Err(other),
    }
}

/// The resource whose CRD schema applies to `value`, when it is one of certgate's kinds at
/// the apiVersion `check` reads (other apiVersions are `classify`'s input errors).
fn resource(value: &Value) -> Option<Resource> {
    let type_meta = (
        value.get("apiVersion").and_then(Value::as_str)?,
        value.get("kind").and_then(Value::as_str)?,
    );
    match type_meta {
        ("cert-manager.io/v1", "CertificateRequest") => Some(Resource::CertificateRequest),
        ("policy.cert-manager.io/v1alpha1", "CertificateRequestPolicy") => {
            Some(Resource::CertificateRequestPolicy)
        }
        _ => None,
    }
}

/// Where the field at `path` (`spec.allowed.dnsNames`, `spec.usages[2]`) of an object was
/// written, as the object's source at that line (the object's own when not found).
pub fn field_source(at: &Source, positions: Option<&Node>, path: &str) -> Source {
    let Some(positions) = positions else { return at.clone() };
    let mut steps = Vec::new();
    for part in path.split('.') {
        let (key, indices) = part.split_once('[').map_or((part, ""), |(k, rest)| (k, rest));
        if !key.is_empty() {
            steps.push(Step::Key(key));
        }
        for index in indices.split('[') {
            if let Some(Ok(index)) = index.strip_suffix(']').map(str::parse::<usize>) {
                steps.push(Step::Index(index));
            }
        }
    }
    at.at(positions.find(steps))
}

fn load_object(
    at: Source,
    positions: Option<&Node>,
    mut value: Value,
    inputs: &mut CheckInputs,
    errors: &mut Vec<LoadError>,
) {
    let name =
        value.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default().to_owned();
    // A nameless object is `classify`'s input error, whatever else is wrong with it.
    if let Some(resource) = resource(&value).filter(|_| !name.is_empty()) {
        if let Some(positions) = positions {
            inputs.positions.insert(at.clone(), positions.clone());
        }
        // The API server drops a policy's `status` on create; offline its readiness comes
        // from the admission checks anyway.
        if resource == Resource::CertificateRequestPolicy {
            validation::drop_status(&mut value);
        }
        let mut found = validation::validate(resource, &mut value);
        // A request keeps its `status`, whose conditions tell whether a dumped request was
        // decided. An invalid one does not make the manifest invalid (`kubectl apply` would
        // create the request without it, so it is dropped with a warning, and the request is
        // reviewed as a new one would be).
        let (status, rest): (Vec<_>, Vec<_>) =
            found.drain(..).partition(|e| e.path.as_str().starts_with("status"));
        if !rest.is_empty() {
            let message = validation::invalid_message(resource, &name, &rest);
            let at = field_source(&at, positions, rest[0].path.as_str());
            inputs.invalid.push(InvalidObject { at, message, errors_before: errors.len() });
            return;
        }
        if !status.is_empty() {
            let errors = certgate_api::field::aggregate(&status).unwrap_or_default();
            inputs.warnings.push(InvalidObject {
                errors_before: errors.len(),
                at: field_source(&at, positions, status[0].path.as_str()),
                message: format!(
                    "CertificateRequest {}: status ignored, as the API server ignores it \
                     on create: {errors}",
                    certgate_gofmt::quote(&name)
                ),
            });
            validation::drop_status(&mut value);
            // Validated again without the status, so that the spec is normalised as a valid
            // object's is; the spec was valid, so this finds nothing.
            let _ = validation::validate(resource, &mut value);
        }
        if resource == Resource::CertificateRequest {
            validation::zero_spec(&mut value);
        }
    }
    let mut items = Vec::new();
    match classify(at, value, &mut items) {
        Ok(()) => {}
        // A field the types cannot hold is a problem of that object only.
        Err(LoadError::Decode { at, kind, name, problem }) => {
            let message = format!("{kind} {}: {problem}", certgate_gofmt::quote(&name));
            let at = field_source(&at, positions, &problem.path);
            inputs.invalid.push(InvalidObject { at, message, errors_before: errors.len() });
        }
        Err(err) => errors.push(err),
    }
    for item in items {
        match item {
            Item::Object(at, object) => {
                if let Err(err) = inputs.loaded.inputs.add(at, object) {
                    errors.push(err);
                }
            }
            Item::Ignored(ignored) => inputs.loaded.ignored.push(ignored),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> (CheckInputs, Vec<LoadError>) {
        let mut inputs = CheckInputs::default();
        let mut errors = Vec::new();
        load_text("f.yaml", text, &mut inputs, &mut errors);
        (inputs, errors)
    }

    const BAD_POLICY: &str = "apiVersion: policy.cert-manager.io/v1alpha1
kind: CertificateRequestPolicy
metadata: {name: bad}
spec: {selector: {issuerRef: {}}, constraints: {privateKey: {algorithm: DSA}}}
";

    #[test]
    fn an_invalid_object_is_left_out_with_the_api_servers_message() {
        let text = format!(
            "{BAD_POLICY}---\napiVersion: policy.cert-manager.io/v1alpha1\n\
             kind: CertificateRequestPolicy\nmetadata: {{name: good}}\n\
             spec: {{selector: {{namespace: {{}}}}}}\n"
        );
        let (inputs, errors) = run(&text);
        assert!(errors.is_empty(), "{errors:?}");
        let names: Vec<_> = inputs
            .loaded
            .inputs
            .policies
            .iter()
            .map(|p| p.object.metadata.name.clone().unwrap_or_default())
            .collect();
        assert_eq!(names, ["good"]);
        assert_eq!(
            inputs.invalid.iter().map(ToString::to_string).collect::<Vec<_>>(),
            ["f.yaml:4:62: CertificateRequestPolicy.policy.cert-manager.io \"bad\" is invalid: \
                 spec.constraints.privateKey.algorithm: Unsupported value: \"DSA\": supported \
                 values: \"RSA\", \"ECDSA\", \"Ed25519\""]
        );
    }

    #[test]
    fn list_items_are_checked_one_by_one_and_named_by_the_line_of_the_field() {
        let text = "apiVersion: v1\nkind: List\nitems:\n\
            - {apiVersion: v1, kind: Namespace, metadata: {name: a}}\n\
            - {apiVersion: cert-manager.io/v1, kind: CertificateRequest, \
               metadata: {name: r, namespace: a}, spec: {issuerRef: {name: 1}, request: YWJj}}\n";
        let (inputs, errors) = run(text);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(inputs.loaded.inputs.namespaces.len(), 1);
        assert_eq!(
            inputs.invalid[0].to_string(),
            "f.yaml:5:116: CertificateRequest.cert-manager.io \"r\" is invalid: \
             spec.issuerRef.name: Invalid value: \"integer\": spec.issuerRef.name in body must \
             be of type string: \"integer\""
        );
    }

    #[test]
    fn with_input_errors_every_problem_is_listed_in_file_order() {
        let text = format!(
            "apiVersion: v1\nkind: Namespace\nmetadata: {{}}\n---\n{BAD_POLICY}---\n\
             apiVersion: cert-manager.io/v1alpha2\nkind: CertificateRequest\n\
             metadata: {{name: old}}\n"
        );
        let (inputs, errors) = run(&text);
        let lines = inputs.error_lines(&LoadErrors(errors));
        let at: Vec<_> = lines.iter().filter_map(|l| l.split(": ").nth(1)).collect();
        assert_eq!(at, ["f.yaml:1:1", "f.yaml:8:62", "f.yaml:10:1"], "{lines:?}");
    }
}
