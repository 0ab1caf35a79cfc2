//! Fields an object's schema does not know, found in the manifests offline commands read, so
//! that a typo is never dropped in silence: the API server prunes such fields (and, under
//! kubectl's default strict field validation, rejects the object), so `dnsName:` written for
//! `dnsNames:` would otherwise just be gone.
//!
//! One detector walks the parsed value against the object's OpenAPI v3 schema: the CRDs
//! certgate generates (`certgate crds`, and the cert-manager and Open Cluster Management kinds
//! it uses), and small schemas below for the core, RBAC and Contour kinds the commands read
//! (the Contour ones list the levels certgate reads, and leave the rest unchecked).
//! `x-kubernetes-preserve-unknown-fields` and `additionalProperties` are honoured; a schema
//! that declares no fields at all is not checked. Messages use the API server's wording,
//! `unknown field "spec.dnsName"`, plus the nearest known sibling when one is close.
//!
//! The work is bounded: nesting deeper than [`MAX_DEPTH`] is not walked and at most
//! [`MAX_WARNINGS`] warnings are kept (the rest are counted).

use std::collections::BTreeMap;
use std::fmt;
use std::io::Write;
use std::sync::OnceLock;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
};
use serde_json::Value;

use crate::shared::manifests::Source;
use crate::shared::manifests::documents::Document;
use crate::shared::manifests::positions::{Node, PathStep, Step, render_path};

/// Deepest nesting walked (Kubernetes objects are far shallower).
pub const MAX_DEPTH: usize = 64;

/// Most warnings kept over a whole run; later ones are only counted.
pub const MAX_WARNINGS: usize = 50;

/// Longest field name a suggestion is computed for.
const MAX_SUGGEST_CHARS: usize = 64;

/// A field the schema does not know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownField {
    /// The API server's rendering of the path: `spec.dnsName`, `spec.routes[0].x`.
    pub path: String,
    /// The known sibling the user probably meant.
    pub suggestion: Option<String>,
    steps: Vec<PathStep>,
}

impl fmt::Display for UnknownField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown field {}", certgate_gofmt::quote(&self.path))?;
        if let Some(suggestion) = &self.suggestion {
            write!(f, ", did you mean {}?", certgate_gofmt::quote(suggestion))?;
        }
        Ok(())
    }
}

/// An unknown field of an input object, with where it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldWarning {
    pub at: Source,
    pub kind: String,
    /// Empty when the object has none.
    pub namespace: String,
    pub name: String,
    pub field: UnknownField,
}

impl fmt::Display for FieldWarning {
    /// `<at>: <Kind> "<namespace>/<name>": unknown field ...`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self.namespace.as_str() {
            "" => self.name.clone(),
            namespace => format!("{namespace}/{}", self.name),
        };
        write!(f, "{}: {} {}: {}", self.at, self.kind, certgate_gofmt::quote(&name), self.field)
    }
}

/// The unknown fields found over a run, bounded.
#[derive(Debug, Default)]
pub struct UnknownFields {
    pub warnings: Vec<FieldWarning>,
    /// How many more were found than kept.
    pub omitted: usize,
}

impl UnknownFields {
    /// Checks every object of `document` (each item of a `List`).
    pub fn add_document(&mut self, document: &Document) {
        let value = &document.value;
        let is_list = value.get("kind").and_then(Value::as_str) == Some("List");
        match value.get("items").and_then(Value::as_array) {
            Some(items) if is_list => {
                for (index, item) in items.iter().enumerate() {
                    let node = document
                        .positions
                        .child(Step::Key("items"))
                        .and_then(|n| n.child(Step::Index(index)));
                    let at = document.at.item(index);
                    self.add_object(item, node, &at);
                }
            }
            _ => self.add_object(value, Some(&document.positions), &document.at),
        }
    }

    /// Checks one object; `positions` is where its fields were written, `at` its source.
    pub fn add_object(&mut self, object: &Value, positions: Option<&Node>, at: &Source) {
        let Some(schema) = schema_of(object) else { return };
        let mut found = Vec::new();
        let mut omitted = 0;
        let room = MAX_WARNINGS.saturating_sub(self.warnings.len());
        let mut walk = Walk { found: &mut found, room, omitted: &mut omitted };
        walk.value(schema, object, &mut Vec::new(), 0);
        self.omitted += omitted;
        let text = |pointer: &str| object.pointer(pointer).and_then(Value::as_str).unwrap_or("");
        for field in found {
            let steps = field.steps.iter().map(PathStep::as_step);
            let position = positions.and_then(|p| p.find(steps));
            self.warnings.push(FieldWarning {
                at: at.at(position),
                kind: text("/kind").to_owned(),
                namespace: text("/metadata/namespace").to_owned(),
                name: text("/metadata/name").to_owned(),
                field,
            });
        }
    }

    /// Writes each warning as `warning: <file>:<line>:<column>: ...`, and how many were left
    /// out.
    pub fn write(&self, out: &mut dyn Write) -> std::io::Result<()> {
        for warning in &self.warnings {
            writeln!(out, "warning: {warning}")?;
        }
        if self.omitted > 0 {
            writeln!(out, "warning: and {} more unknown fields", self.omitted)?;
        }
        Ok(())
    }

    pub fn is_empty(&self) -> bool {
        self.warnings.is_empty() && self.omitted == 0
    }
}

/// Every document of every input as plain JSON values (`List`s left whole), like
/// [`crate::shared::manifests::load_values`], with the unknown fields of every object.
pub fn load_values_checked(
    args: &[std::path::PathBuf],
    stdin: impl std::io::Read,
) -> Result<(Vec<Value>, UnknownFields), crate::shared::manifests::LoadErrors> {
    let documents = crate::shared::manifests::load_documents(args, stdin)?;
    let mut unknown = UnknownFields::default();
    for document in &documents {
        unknown.add_document(document);
    }
    Ok((documents.into_iter().map(|d| d.value).collect(), unknown))
}

/// The unknown fields of `object` against `schema` (for tests and callers with a schema of
/// their own).
pub fn unknown_fields(schema: &JSONSchemaProps, object: &Value) -> (Vec<UnknownField>, usize) {
    let mut found = Vec::new();
    let mut omitted = 0;
    let mut walk = Walk { found: &mut found, room: MAX_WARNINGS, omitted: &mut omitted };
    walk.value(schema, object, &mut Vec::new(), 0);
    (found, omitted)
}

struct Walk<'a> {
    found: &'a mut Vec<UnknownField>,
    room: usize,
    omitted: &'a mut usize,
}

impl Walk<'_> {
    fn value(
        &mut self,
        schema: &JSONSchemaProps,
        value: &Value,
        steps: &mut Vec<PathStep>,
        depth: usize,
    ) {
        if depth >= MAX_DEPTH {
            return;
        }
        match value {
            Value::Object(map) => {
                let properties = schema.properties.as_ref();
                let additional = match &schema.additional_properties {
                    Some(JSONSchemaPropsOrBool::Schema(s)) => Some(Some(s.as_ref())),
                    Some(JSONSchemaPropsOrBool::Bool(true)) => Some(None),
                    _ => None,
                };
                // A schema that declares no fields is not checked.
                if properties.is_none() && additional.is_none() {
                    return;
                }
                let preserve = schema.x_kubernetes_preserve_unknown_fields == Some(true);
                for (key, child) in map {
                    let known = properties.and_then(|p| p.get(key));
                    let child_schema = match (known, additional) {
                        (Some(s), _) | (None, Some(Some(s))) => Some(s),
                        _ => None,
                    };
                    if let Some(s) = child_schema {
                        steps.push(PathStep::Key(key.clone()));
                        self.value(s, child, steps, depth + 1);
                        steps.pop();
                    } else if additional.is_none() && !preserve {
                        steps.push(PathStep::Key(key.clone()));
                        let suggestion = properties.and_then(|p| nearest(key, p.keys()));
                        self.record(steps, suggestion);
                        steps.pop();
                    }
                }
            }
            Value::Array(items) => {
                if let Some(JSONSchemaPropsOrArray::Schema(item)) = &schema.items {
                    for (index, child) in items.iter().enumerate() {
                        steps.push(PathStep::Index(index));
                        self.value(item, child, steps, depth + 1);
                        steps.pop();
                    }
                }
            }
            _ => {}
        }
    }

    fn record(&mut self, steps: &[PathStep], suggestion: Option<String>) {
        if self.found.len() >= self.room {
            *self.omitted += 1;
            return;
        }
        let path = render_path(steps);
        self.found.push(UnknownField { path, suggestion, steps: steps.to_vec() });
    }
}

/// The known field closest to `unknown`: within a small edit distance (case ignored), or a
/// plural or prefix of it. Ties go to the first in name order.
pub fn nearest<'k>(unknown: &str, known: impl Iterator<Item = &'k String>) -> Option<String> {
    let length = unknown.chars().count();
    if length == 0 || length > MAX_SUGGEST_CHARS {
        return None;
    }
    let limit = (length / 3).clamp(1, 2);
    let wanted = unknown.to_lowercase();
    let mut best: Option<(usize, &String)> = None;
    for candidate in known {
        if candidate.chars().count() > MAX_SUGGEST_CHARS {
            continue;
        }
        let lower = candidate.to_lowercase();
        let related = length >= 4
            && (lower.starts_with(&wanted) || wanted.starts_with(&lower))
            && lower.len().abs_diff(wanted.len()) <= 3;
        let distance = if related { 1 } else { levenshtein(&wanted, &lower) };
        if distance <= limit && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, name)| name.clone())
}

/// Edit distance counting a swap of two neighbouring characters as one edit (optimal string
/// alignment), so `nmae` is one edit from `name`.
fn levenshtein(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Three rows: two back (for swaps), one back, and the current one.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current: Vec<usize> = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        current[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (previous[j] + 1).min(current[j - 1] + 1).min(previous[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(before[j - 2] + 1);
            }
            current[j] = best;
        }
        std::mem::swap(&mut before, &mut previous);
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

/// The schema of `object`'s apiVersion and kind, when certgate knows one.
fn schema_of(object: &Value) -> Option<&'static JSONSchemaProps> {
    let api_version = object.get("apiVersion").and_then(Value::as_str)?;
    let kind = object.get("kind").and_then(Value::as_str)?;
    registry().get(&(api_version.to_owned(), kind.to_owned()))
}

type Registry = BTreeMap<(String, String), JSONSchemaProps>;

fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(build_registry)
}

fn build_registry() -> Registry {
    let mut registry = Registry::new();
    let crds = certgate_api::crd::all()
        .into_iter()
        .chain(certgate_api::crd::cert_manager())
        .chain(certgate_api::crd::ocm());
    for crd in crds {
        for version in &crd.spec.versions {
            let schema = version.schema.as_ref().and_then(|s| s.open_api_v3_schema.clone());
            if let Some(mut schema) = schema {
                // The API server checks `metadata` as ObjectMeta, whatever the CRD says.
                if let Some(properties) = schema.properties.as_mut() {
                    properties.insert("metadata".to_owned(), object_meta());
                }
                let api_version = format!("{}/{}", crd.spec.group, version.name);
                registry.insert((api_version, crd.spec.names.kind.clone()), schema);
            }
        }
    }
    for (api_version, kind, schema) in builtin() {
        registry.insert((api_version.to_owned(), kind.to_owned()), schema);
    }
    registry
}

fn object(fields: Vec<(&str, JSONSchemaProps)>) -> JSONSchemaProps {
    JSONSchemaProps {
        type_: Some("object".to_owned()),
        properties: Some(fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()),
        ..JSONSchemaProps::default()
    }
}

/// A map whose values follow `values`.
fn map_of(values: JSONSchemaProps) -> JSONSchemaProps {
    JSONSchemaProps {
        type_: Some("object".to_owned()),
        additional_properties: Some(JSONSchemaPropsOrBool::Schema(Box::new(values))),
        ..JSONSchemaProps::default()
    }
}

fn list(items: JSONSchemaProps) -> JSONSchemaProps {
    JSONSchemaProps {
        type_: Some("array".to_owned()),
        items: Some(JSONSchemaPropsOrArray::Schema(Box::new(items))),
        ..JSONSchemaProps::default()
    }
}

/// A value not checked here (a scalar, or a part of a schema certgate does not model).
fn any() -> JSONSchemaProps {
    JSONSchemaProps::default()
}

fn leaves(names: &[&'static str]) -> Vec<(&'static str, JSONSchemaProps)> {
    names.iter().map(|name| (*name, any())).collect()
}

fn with(
    mut fields: Vec<(&'static str, JSONSchemaProps)>,
    more: &[&'static str],
) -> JSONSchemaProps {
    fields.extend(leaves(more));
    object(fields)
}

/// metav1.ObjectMeta.
fn object_meta() -> JSONSchemaProps {
    let owner =
        object(leaves(&["apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion"]));
    with(
        vec![
            ("labels", map_of(any())),
            ("annotations", map_of(any())),
            ("ownerReferences", list(owner)),
            ("finalizers", list(any())),
            ("managedFields", any()),
        ],
        &[
            "name",
            "generateName",
            "namespace",
            "selfLink",
            "uid",
            "resourceVersion",
            "generation",
            "creationTimestamp",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
        ],
    )
}

/// A top-level object: type meta, metadata and `fields`.
fn top(fields: Vec<(&'static str, JSONSchemaProps)>) -> JSONSchemaProps {
    let mut all = vec![("apiVersion", any()), ("kind", any()), ("metadata", object_meta())];
    all.extend(fields);
    object(all)
}

/// The kinds without a CRD that offline commands read.
fn builtin() -> Vec<(&'static str, &'static str, JSONSchemaProps)> {
    let rule =
        object(leaves(&["apiGroups", "resources", "verbs", "resourceNames", "nonResourceURLs"]));
    let rules = || ("rules", list(rule.clone()));
    let subject = object(leaves(&["kind", "apiGroup", "name", "namespace"]));
    let binding = || {
        top(vec![
            ("subjects", list(subject.clone())),
            ("roleRef", object(leaves(&["apiGroup", "kind", "name"]))),
        ])
    };
    const RBAC: &str = "rbac.authorization.k8s.io/v1";
    const CONTOUR: &str = "projectcontour.io/v1";
    vec![
        ("v1", "Secret", top(leaves(&["data", "stringData", "type", "immutable"]))),
        ("v1", "ConfigMap", top(leaves(&["data", "binaryData", "immutable"]))),
        (
            "v1",
            "Namespace",
            top(vec![
                ("spec", object(leaves(&["finalizers"]))),
                ("status", object(leaves(&["phase", "conditions"]))),
            ]),
        ),
        (RBAC, "Role", top(vec![rules()])),
        (RBAC, "ClusterRole", top(vec![rules(), ("aggregationRule", any())])),
        (RBAC, "RoleBinding", binding()),
        (RBAC, "ClusterRoleBinding", binding()),
        (CONTOUR, "HTTPProxy", http_proxy()),
        (
            CONTOUR,
            "TLSCertificateDelegation",
            top(vec![
                (
                    "spec",
                    object(vec![(
                        "delegations",
                        list(object(leaves(&["secretName", "targetNamespaces"]))),
                    )]),
                ),
                ("status", any()),
            ]),
        ),
    ]
}

/// Contour's HTTPProxy, at the levels certgate reads (`crl check`): every field of each level
/// listed is named (a test compares them with Contour's CRD); the levels below are unchecked.
fn http_proxy() -> JSONSchemaProps {
    let client_validation = object(leaves(&[
        "caSecret",
        "crlOnlyVerifyLeafCert",
        "crlSecret",
        "forwardClientCertificate",
        "optionalClientCertificate",
        "skipClientCertValidation",
    ]));
    let tls = with(
        vec![("clientValidation", client_validation)],
        &[
            "enableFallbackCertificate",
            "maximumProtocolVersion",
            "minimumProtocolVersion",
            "passthrough",
            "secretName",
        ],
    );
    let virtualhost = with(
        vec![("tls", tls)],
        &[
            "authorization",
            "corsPolicy",
            "fqdn",
            "ipAllowPolicy",
            "ipDenyPolicy",
            "jwtProviders",
            "rateLimitPolicy",
        ],
    );
    let service = object(leaves(&[
        "cookieRewritePolicies",
        "healthPort",
        "mirror",
        "name",
        "port",
        "protocol",
        "requestHeadersPolicy",
        "responseHeadersPolicy",
        "slowStartPolicy",
        "validation",
        "weight",
    ]));
    let route = with(
        vec![("services", list(service.clone()))],
        &[
            "authPolicy",
            "conditions",
            "cookieRewritePolicies",
            "directResponsePolicy",
            "enableWebsockets",
            "healthCheckPolicy",
            "internalRedirectPolicy",
            "ipAllowPolicy",
            "ipDenyPolicy",
            "jwtVerificationPolicy",
            "loadBalancerPolicy",
            "pathRewritePolicy",
            "permitInsecure",
            "rateLimitPolicy",
            "requestHeadersPolicy",
            "requestRedirectPolicy",
            "responseHeadersPolicy",
            "retryPolicy",
            "timeoutPolicy",
        ],
    );
    let include = object(leaves(&["conditions", "name", "namespace"]));
    let tcpproxy = with(
        vec![("services", list(service))],
        &["healthCheckPolicy", "include", "includes", "loadBalancerPolicy"],
    );
    let spec = with(
        vec![
            ("virtualhost", virtualhost),
            ("routes", list(route)),
            ("includes", list(include)),
            ("tcpproxy", tcpproxy),
        ],
        &["ingressClassName"],
    );
    top(vec![("spec", spec), ("status", any())])
}

/// The schema certgate checks `apiVersion`/`kind` against (tests compare it with upstream).
pub fn schema_for(api_version: &str, kind: &str) -> Option<&'static JSONSchemaProps> {
    registry().get(&(api_version.to_owned(), kind.to_owned()))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;

    use super::*;
    use crate::shared::manifests::documents::{Syntax, parse};

    fn warnings(text: &str) -> Vec<String> {
        let file: Arc<str> = Arc::from("f.yaml");
        let mut found = UnknownFields::default();
        for document in parse(&file, text, Syntax::Yaml).unwrap() {
            found.add_document(&document);
        }
        let mut out = Vec::new();
        found.write(&mut out).unwrap();
        String::from_utf8(out).unwrap().lines().map(str::to_owned).collect()
    }

    #[test]
    fn a_typo_is_named_with_the_nearest_field_and_its_line() {
        let text = "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: web\n  \
                    namespace: team\n  lables: {a: b}\nspec:\n  secretName: web\n  dnsName: [a]\n";
        assert_eq!(
            warnings(text),
            [
                "warning: f.yaml:6:3: Certificate \"team/web\": unknown field \"metadata.lables\", \
                 did you mean \"labels\"?",
                "warning: f.yaml:9:3: Certificate \"team/web\": unknown field \"spec.dnsName\", \
                 did you mean \"dnsNames\"?",
            ]
        );
    }

    #[test]
    fn nested_fields_in_lists_are_found_and_unrelated_names_get_no_suggestion() {
        let text = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: policy.cert-manager.io/v1alpha1\n  \
                    kind: CertificateRequestPolicy\n  metadata: {name: p}\n  spec:\n    allowed:\n      \
                    dnsNames:\n        validations:\n        - {rule: 'true', mesage: m, zzzzzz: 1}\n";
        assert_eq!(
            warnings(text),
            [
                "warning: f.yaml:11:26: CertificateRequestPolicy \"p\": unknown field \
                 \"spec.allowed.dnsNames.validations[0].mesage\", did you mean \"message\"?",
                "warning: f.yaml:11:37: CertificateRequestPolicy \"p\": unknown field \
                 \"spec.allowed.dnsNames.validations[0].zzzzzz\"",
            ]
        );
    }

    #[test]
    fn preserved_and_map_fields_are_not_reported() {
        // OCM policy templates preserve unknown fields; labels and Secret data are maps.
        let policy = json!({
            "apiVersion": "policy.open-cluster-management.io/v1", "kind": "Policy",
            "metadata": {"name": "p", "namespace": "n", "labels": {"anything": "x"}},
            "spec": {"disabled": false, "policy-templates": [
                {"objectDefinition": {"whatever": {"deep": 1}}}
            ]}
        });
        let schema = schema_for("policy.open-cluster-management.io/v1", "Policy").unwrap();
        assert_eq!(unknown_fields(schema, &policy), (Vec::new(), 0));
        let secret = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"},
                            "data": {"tls.crt": "eA=="}, "strinData": {}});
        let (found, _) = unknown_fields(schema_for("v1", "Secret").unwrap(), &secret);
        assert_eq!(
            found[0].to_string(),
            "unknown field \"strinData\", did you mean \"stringData\"?"
        );
    }

    #[test]
    fn kinds_without_a_schema_and_wrong_types_are_left_alone() {
        assert!(
            warnings("apiVersion: example.com/v1\nkind: Thing\nspec: {anything: 1}\n").is_empty()
        );
        let text = "apiVersion: v1\nkind: Secret\nmetadata: [not, a, map]\ndata: 3\n";
        assert!(warnings(text).is_empty());
    }

    #[test]
    fn warnings_are_bounded_with_a_count_of_the_rest() {
        let mut text = String::from("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n");
        for i in 0..(MAX_WARNINGS + 7) {
            text.push_str(&format!("extra{i}: 1\n"));
        }
        let lines = warnings(&text);
        assert_eq!(lines.len(), MAX_WARNINGS + 1);
        assert_eq!(lines.last().unwrap(), "warning: and 7 more unknown fields");
    }

    #[test]
    fn suggestions_use_edit_distance_plurals_and_prefixes() {
        let known: Vec<String> =
            ["dnsNames", "uris", "ipAddresses", "commonName", "name"].map(String::from).to_vec();
        let near = |s: &str| nearest(s, known.iter());
        assert_eq!(near("dnsName").as_deref(), Some("dnsNames"));
        assert_eq!(near("DNSNames").as_deref(), Some("dnsNames"));
        assert_eq!(near("ipAddress").as_deref(), Some("ipAddresses"));
        assert_eq!(near("commonNme").as_deref(), Some("commonName"));
        assert_eq!(near("nmae").as_deref(), Some("name"));
        assert_eq!(near("x"), None);
        assert_eq!(near("somethingElse"), None);
        assert_eq!(near(&"a".repeat(1000)), None);
    }

    #[test]
    fn deep_nesting_is_not_walked_past_the_bound() {
        let mut value = json!({"end": 1});
        for _ in 0..(MAX_DEPTH * 2) {
            value = json!({"labels": value});
        }
        let object = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": value});
        let (found, omitted) = unknown_fields(schema_for("v1", "ConfigMap").unwrap(), &object);
        assert_eq!((found.len(), omitted), (0, 0));
    }

    /// Every level of the Contour schemas that lists fields lists exactly Contour's.
    #[test]
    fn contour_levels_match_contours_crd() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/upstream-crds/projectcontour.io_crds.yaml"
        );
        let Ok(text) = std::fs::read_to_string(path) else {
            panic!("{path} is needed to compare the Contour schemas with upstream");
        };
        let crds: Vec<Value> = serde_saphyr::from_multiple(&text).unwrap();
        for kind in ["HTTPProxy", "TLSCertificateDelegation"] {
            let crd =
                crds.iter().find(|c| c.pointer("/spec/names/kind") == Some(&json!(kind))).unwrap();
            let upstream = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
            let ours =
                serde_json::to_value(schema_for("projectcontour.io/v1", kind).unwrap()).unwrap();
            compare(&ours, upstream, kind);
        }
    }

    fn compare(ours: &Value, upstream: &Value, at: &str) {
        if let Some(properties) = ours.get("properties").and_then(Value::as_object) {
            let theirs = upstream.get("properties").and_then(Value::as_object);
            let theirs: Vec<&String> = theirs.map(|p| p.keys().collect()).unwrap_or_default();
            let mine: Vec<&String> = properties.keys().collect();
            if at.contains("metadata") {
                return;
            }
            assert_eq!(mine, theirs, "fields of {at}");
            for (key, child) in properties {
                compare(child, &upstream["properties"][key], &format!("{at}.{key}"));
            }
        }
        if let Some(items) = ours.get("items") {
            compare(items, &upstream["items"], &format!("{at}[]"));
        }
    }
}
