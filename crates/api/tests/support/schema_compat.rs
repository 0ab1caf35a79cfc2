//! Comparison of generated CRDs with upstream's in `shared/upstream-crds/`: the files read,
//! the API surface of a version, and a recursive comparison of the schemas.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceColumnDefinition, CustomResourceDefinition, CustomResourceDefinitionVersion,
    JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
};

const UPSTREAM_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/upstream-crds");

/// The upstream CRD in `file` of `shared/upstream-crds/`.
pub fn upstream(file: &str) -> CustomResourceDefinition {
    let path = format!("{UPSTREAM_DIR}/{file}");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {path}: {e}"));
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("parse {path}: {e}"))
}

/// Everything about a version except the schema and the printer columns' prose.
pub fn surface(v: &CustomResourceDefinitionVersion) -> CustomResourceDefinitionVersion {
    let columns = v.additional_printer_columns.as_ref().map(|cols| {
        cols.iter()
            .map(|c| CustomResourceColumnDefinition { description: None, ..c.clone() })
            .collect()
    });
    CustomResourceDefinitionVersion {
        additional_printer_columns: columns,
        schema: None,
        ..v.clone()
    }
}

/// Problems that make `ours` reject or treat differently something `upstream` accepts: a
/// property upstream declares that ours lacks, a different type, format, enum, list type,
/// list-map key, default, `nullable`, value constraint or value-validation junctor (`anyOf`,
/// `oneOf`, `allOf`, `not`, compared without descriptions), a `required` entry upstream does
/// not have, or `x-kubernetes-preserve-unknown-fields` where upstream has none; and a
/// `required` entry upstream has that ours lacks (the validation built on ours must reject
/// what upstream does).
pub fn compare(ours: &JSONSchemaProps, upstream: &JSONSchemaProps) -> Vec<String> {
    let mut problems = Vec::new();
    compare_at("", ours, upstream, &mut problems);
    problems
}

macro_rules! same {
    ($path:expr, $problems:expr, $ours:expr, $upstream:expr, $($field:ident => $name:literal),+ $(,)?) => {
        $(
            if $ours.$field != $upstream.$field {
                $problems.push(format!(
                    "{}: {}: ours {:?}, upstream {:?}",
                    $path, $name, $ours.$field, $upstream.$field
                ));
            }
        )+
    };
}

fn compare_at(
    path: &str,
    ours: &JSONSchemaProps,
    upstream: &JSONSchemaProps,
    problems: &mut Vec<String>,
) {
    same!(path, problems, ours, upstream,
        type_ => "type",
        format => "format",
        enum_ => "enum",
        x_kubernetes_list_type => "x-kubernetes-list-type",
        x_kubernetes_list_map_keys => "x-kubernetes-list-map-keys",
        x_kubernetes_map_type => "x-kubernetes-map-type",
        x_kubernetes_int_or_string => "x-kubernetes-int-or-string",
        x_kubernetes_embedded_resource => "x-kubernetes-embedded-resource",
        max_length => "maxLength",
        min_length => "minLength",
        pattern => "pattern",
        minimum => "minimum",
        maximum => "maximum",
        max_items => "maxItems",
        min_items => "minItems",
        default => "default",
        nullable => "nullable",
    );
    for (name, ours_junctor, upstream_junctor) in [
        ("anyOf", junctor_value(&ours.any_of), junctor_value(&upstream.any_of)),
        ("oneOf", junctor_value(&ours.one_of), junctor_value(&upstream.one_of)),
        ("allOf", junctor_value(&ours.all_of), junctor_value(&upstream.all_of)),
        ("not", junctor_value(&ours.not), junctor_value(&upstream.not)),
    ] {
        if ours_junctor != upstream_junctor {
            problems
                .push(format!("{path}: {name}: ours {ours_junctor}, upstream {upstream_junctor}"));
        }
    }
    if ours.x_kubernetes_preserve_unknown_fields.unwrap_or(false)
        && !upstream.x_kubernetes_preserve_unknown_fields.unwrap_or(false)
    {
        problems
            .push(format!("{path}: x-kubernetes-preserve-unknown-fields where upstream has none"));
    }
    let upstream_required = upstream.required.as_deref().unwrap_or_default();
    for name in ours.required.as_deref().unwrap_or_default() {
        if !upstream_required.contains(name) {
            problems.push(format!("{path}: requires {name:?}, upstream does not"));
        }
    }
    // certgate validates manifests against its own CRDs (`certgate_api::validation`), so a
    // field upstream requires must be required here too, or a manifest upstream rejects
    // would be accepted and then fail to decode.
    let ours_required = ours.required.as_deref().unwrap_or_default();
    for name in upstream_required {
        if !ours_required.contains(name) {
            problems.push(format!("{path}: does not require {name:?}, upstream does"));
        }
    }
    let no_properties = Default::default();
    let ours_properties = ours.properties.as_ref().unwrap_or(&no_properties);
    for (name, upstream_child) in upstream.properties.iter().flatten() {
        let child_path = format!("{path}.{name}");
        match ours_properties.get(name) {
            Some(ours_child) => compare_at(&child_path, ours_child, upstream_child, problems),
            None => problems.push(format!("{child_path}: missing")),
        }
    }
    match (single_items(ours), single_items(upstream)) {
        (Some(o), Some(u)) => compare_at(&format!("{path}[]"), o, u, problems),
        (None, Some(_)) => problems.push(format!("{path}[]: items missing")),
        _ => {}
    }
    match (value_schema(ours), value_schema(upstream)) {
        (Some(o), Some(u)) => compare_at(&format!("{path}{{}}"), o, u, problems),
        (None, Some(_)) => problems.push(format!("{path}{{}}: additionalProperties missing")),
        _ => {}
    }
}

/// A junctor as JSON without `description`s (prose, which upstream has and ours may not).
fn junctor_value<T: serde::Serialize>(junctor: &Option<T>) -> serde_json::Value {
    fn strip(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Object(map) => {
                map.remove("description");
                map.values_mut().for_each(strip);
            }
            serde_json::Value::Array(list) => list.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut value = serde_json::to_value(junctor).unwrap_or_default();
    strip(&mut value);
    value
}

fn single_items(s: &JSONSchemaProps) -> Option<&JSONSchemaProps> {
    match &s.items {
        Some(JSONSchemaPropsOrArray::Schema(items)) => Some(items),
        _ => None,
    }
}

fn value_schema(s: &JSONSchemaProps) -> Option<&JSONSchemaProps> {
    match &s.additional_properties {
        Some(JSONSchemaPropsOrBool::Schema(values)) => Some(values),
        _ => None,
    }
}

/// Violations of the API server's structural-schema rules that a derived schema can fall
/// into: a node without a type (other than an int-or-string or preserve-unknown-fields one),
/// a junctor (`anyOf`/`oneOf`/`allOf`/`not`, which schemars emits for untagged enums and
/// options) that carries more than value validations or names a property the node does not
/// declare, `properties` together with `additionalProperties`, and tuple `items`. (`nullable`
/// is structural; [`compare`] holds it to upstream's.)
pub fn structural_problems(schema: &JSONSchemaProps) -> Vec<String> {
    let mut problems = Vec::new();
    structural_at("", schema, &mut problems);
    problems
}

fn structural_at(path: &str, s: &JSONSchemaProps, problems: &mut Vec<String>) {
    let int_or_string = s.x_kubernetes_int_or_string == Some(true);
    let untyped_allowed = int_or_string || s.x_kubernetes_preserve_unknown_fields == Some(true);
    if s.type_.as_deref().unwrap_or_default().is_empty() && !untyped_allowed {
        problems.push(format!("{path}: no type"));
    }
    if int_or_string && s.type_.is_some() {
        problems.push(format!("{path}: int-or-string with a type"));
    }
    let any_of = s.any_of.as_deref().unwrap_or_default();
    let int_or_string_any_of = int_or_string && is_integer_or_string(any_of);
    let mut junctors: Vec<(&str, &JSONSchemaProps)> = Vec::new();
    if !int_or_string_any_of {
        junctors.extend(any_of.iter().map(|j| ("anyOf", j)));
    }
    junctors.extend(s.one_of.iter().flatten().map(|j| ("oneOf", j)));
    junctors.extend(s.all_of.iter().flatten().map(|j| ("allOf", j)));
    junctors.extend(s.not.as_deref().map(|j| ("not", j)));
    for (name, junctor) in junctors {
        value_validation_at(&format!("{path}: {name}"), junctor, Some(s), problems);
    }
    if s.properties.is_some() && s.additional_properties.is_some() {
        problems.push(format!("{path}: both properties and additionalProperties"));
    }
    if matches!(s.items, Some(JSONSchemaPropsOrArray::Schemas(_))) {
        problems.push(format!("{path}: tuple items"));
    }
    for (name, child) in s.properties.iter().flatten() {
        structural_at(&format!("{path}.{name}"), child, problems);
    }
    if let Some(items) = single_items(s) {
        structural_at(&format!("{path}[]"), items, problems);
    }
    if let Some(values) = value_schema(s) {
        structural_at(&format!("{path}{{}}"), values, problems);
    }
}

/// `anyOf: [{type: integer}, {type: string}]`, the one typed junctor the API server allows
/// (beside `x-kubernetes-int-or-string`).
fn is_integer_or_string(any_of: &[JSONSchemaProps]) -> bool {
    let only_type = |j: &JSONSchemaProps, t: &str| {
        *j == JSONSchemaProps { type_: Some(t.to_owned()), ..Default::default() }
    };
    matches!(any_of, [a, b] if only_type(a, "integer") && only_type(b, "string"))
}

/// A junctor's subschema: value validations only, over properties the structural node
/// (`structural`, when known) declares.
fn value_validation_at(
    path: &str,
    j: &JSONSchemaProps,
    structural: Option<&JSONSchemaProps>,
    problems: &mut Vec<String>,
) {
    if j.type_.is_some()
        || j.additional_properties.is_some()
        || j.default.is_some()
        || j.nullable.is_some()
        || j.description.is_some()
        || j.x_kubernetes_preserve_unknown_fields.is_some()
        || j.x_kubernetes_int_or_string.is_some()
        || j.x_kubernetes_embedded_resource.is_some()
        || j.x_kubernetes_list_type.is_some()
        || j.x_kubernetes_map_type.is_some()
    {
        problems.push(format!("{path}: more than value validations"));
    }
    for (name, child) in j.properties.iter().flatten() {
        let declared = structural.and_then(|s| s.properties.as_ref()?.get(name));
        if structural.is_some() && declared.is_none() {
            problems.push(format!("{path}: names property {name:?} the schema does not declare"));
        }
        value_validation_at(&format!("{path}.{name}"), child, declared, problems);
    }
    let nested = j.any_of.iter().chain(&j.one_of).chain(&j.all_of).flatten();
    for junctor in nested.chain(j.not.as_deref()) {
        value_validation_at(path, junctor, structural, problems);
    }
}

/// [`compare`], except that below each of the `opaque` paths (as [`compare`] writes them:
/// `.spec.acme`) ours keeps whatever object it is given: there it must be `type: object` with
/// `x-kubernetes-preserve-unknown-fields` and nothing else to check (no properties, no
/// required entries, no value validations), where upstream's is an object. Such a node
/// accepts every object upstream's schema accepts there; it neither validates, defaults nor
/// prunes one. Problems at or below those paths are left out; a path that is not such a node
/// in ours, or not an object in upstream's, is a problem itself.
#[allow(dead_code, reason = "not every test crate that includes this file uses it")]
pub fn compare_with_opaque(
    ours: &JSONSchemaProps,
    upstream: &JSONSchemaProps,
    opaque: &[&str],
) -> Vec<String> {
    let below = |problem: &str, path: &str| {
        problem.strip_prefix(path).is_some_and(|rest| rest.starts_with([':', '.', '[', '{']))
    };
    let mut problems: Vec<String> = compare(ours, upstream)
        .into_iter()
        .filter(|problem| !opaque.iter().any(|path| below(problem, path)))
        .collect();
    for path in opaque {
        let expected = JSONSchemaProps {
            type_: Some("object".to_owned()),
            x_kubernetes_preserve_unknown_fields: Some(true),
            ..Default::default()
        };
        let node =
            at_path(ours, path).map(|node| JSONSchemaProps { description: None, ..node.clone() });
        match node {
            Some(node) if node == expected => {}
            Some(node) => problems.push(format!(
                "{path}: not an object kept as written: {}",
                serde_json::to_string(&node).unwrap_or_default()
            )),
            None => problems.push(format!("{path}: missing in ours")),
        }
        match at_path(upstream, path) {
            Some(node) if node.type_.as_deref() == Some("object") => {}
            _ => problems.push(format!("{path}: not an object in upstream's schema")),
        }
    }
    problems
}

/// The property at `path` (`.spec.acme`: property names only).
#[allow(dead_code, reason = "not every test crate that includes this file uses it")]
fn at_path<'a>(schema: &'a JSONSchemaProps, path: &str) -> Option<&'a JSONSchemaProps> {
    path.split('.')
        .filter(|name| !name.is_empty())
        .try_fold(schema, |node, name| node.properties.as_ref()?.get(name))
}

/// Properties ours declares and upstream does not (upstream's API server prunes them, so
/// ours must not keep them).
#[allow(dead_code, reason = "not every test crate that includes this file uses it")]
pub fn extra_properties(
    path: &str,
    ours: &JSONSchemaProps,
    upstream: &JSONSchemaProps,
) -> Vec<String> {
    let mut out = Vec::new();
    for (name, child) in ours.properties.iter().flatten() {
        match upstream.properties.as_ref().and_then(|p| p.get(name)) {
            Some(theirs) => out.extend(extra_properties(&format!("{path}.{name}"), child, theirs)),
            None => out.push(format!("{path}.{name}")),
        }
    }
    if let (Some(JSONSchemaPropsOrArray::Schema(o)), Some(JSONSchemaPropsOrArray::Schema(u))) =
        (&ours.items, &upstream.items)
    {
        out.extend(extra_properties(&format!("{path}[]"), o, u));
    }
    if let (Some(JSONSchemaPropsOrBool::Schema(o)), Some(JSONSchemaPropsOrBool::Schema(u))) =
        (&ours.additional_properties, &upstream.additional_properties)
    {
        out.extend(extra_properties(&format!("{path}{{}}"), o, u));
    }
    out
}
