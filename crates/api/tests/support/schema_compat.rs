//! Recursive comparison of a generated CRD schema with an upstream one.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
};

/// Problems that make `ours` reject or treat differently something `upstream` accepts: a
/// property upstream declares that ours lacks, a different type, format, enum, list type,
/// list-map key, default or value constraint, a `required` entry upstream does not have, or
/// `x-kubernetes-preserve-unknown-fields` where upstream has none; and a `required` entry
/// upstream has that ours lacks (the validation built on ours must reject what upstream does).
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
    );
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
/// into: a node without a type, the `anyOf`/`oneOf`/`allOf`/`not` schemars emits for
/// untagged enums and options, `properties` together with `additionalProperties`, tuple
/// `items`, and leftover `nullable` markers.
pub fn structural_problems(schema: &JSONSchemaProps) -> Vec<String> {
    let mut problems = Vec::new();
    structural_at("", schema, &mut problems);
    problems
}

fn structural_at(path: &str, s: &JSONSchemaProps, problems: &mut Vec<String>) {
    if s.type_.as_deref().unwrap_or_default().is_empty() {
        problems.push(format!("{path}: no type"));
    }
    if s.any_of.is_some() || s.one_of.is_some() || s.all_of.is_some() || s.not.is_some() {
        problems.push(format!("{path}: anyOf/oneOf/allOf/not"));
    }
    if s.properties.is_some() && s.additional_properties.is_some() {
        problems.push(format!("{path}: both properties and additionalProperties"));
    }
    if matches!(s.items, Some(JSONSchemaPropsOrArray::Schemas(_))) {
        problems.push(format!("{path}: tuple items"));
    }
    if s.nullable.is_some() {
        problems.push(format!("{path}: nullable"));
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
