//! Schema adjustments that field attributes cannot make.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
};

/// Whether the root schema lists `spec` as required.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum RootSpec {
    Required,
    Optional,
}

/// What happens to the `default`s in a derived schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Defaults {
    /// Removed everywhere: the upstream CRD declares none, and the serde defaults that let a
    /// required field decode as Go's zero value must not become API-server defaults.
    Drop,
    /// Kept: the types declare exactly upstream's defaults (`#[schemars(extend("default" =
    /// ...))]`) and use no serde default that schemars would turn into one.
    Keep,
}

/// Completes a kube-derived CRD:
/// - `names.listKind` as the API server would default it, spelled out like upstream;
/// - the root `apiVersion`, `kind` and `metadata` properties upstream declares;
/// - no `nullable` anywhere: upstream declares none, so the API server prunes explicit
///   `null`s from optional fields instead of storing them, and certgate behaves the same;
/// - no schema `title` (schemars adds the Rust type name);
/// - no `default` anywhere (see [`Defaults::Drop`]).
pub(super) fn finish(crd: CustomResourceDefinition, spec: RootSpec) -> CustomResourceDefinition {
    finish_with(crd, spec, Defaults::Drop)
}

/// [`finish`], with the choice of what happens to `default`s.
pub(super) fn finish_with(
    mut crd: CustomResourceDefinition,
    spec: RootSpec,
    defaults: Defaults,
) -> CustomResourceDefinition {
    let names = &mut crd.spec.names;
    names.list_kind = Some(format!("{}List", names.kind));
    for version in &mut crd.spec.versions {
        let root = version.schema.as_mut().and_then(|s| s.open_api_v3_schema.as_mut());
        if let Some(root) = root {
            finish_root(root, spec);
            drop_nullable(root, defaults);
        }
    }
    crd
}

fn finish_root(root: &mut JSONSchemaProps, spec: RootSpec) {
    root.title = None;
    if spec == RootSpec::Optional
        && let Some(required) = root.required.as_mut()
    {
        required.retain(|name| name != "spec");
        if required.is_empty() {
            root.required = None;
        }
    }
    let properties = root.properties.get_or_insert_default();
    for (name, type_) in [("apiVersion", "string"), ("kind", "string"), ("metadata", "object")] {
        properties.entry(name.to_owned()).or_insert_with(|| JSONSchemaProps {
            type_: Some(type_.to_owned()),
            ..Default::default()
        });
    }
}

/// Removes `nullable: true` and the `null` entries schemars adds to the enums of optional
/// fields, and `default`s unless they are kept, in every subschema.
fn drop_nullable(schema: &mut JSONSchemaProps, defaults: Defaults) {
    // The schemas are as deep as the Rust types (a handful of levels), so recursion is bounded.
    schema.nullable = None;
    if defaults == Defaults::Drop {
        schema.default = None;
    }
    if let Some(values) = schema.enum_.as_mut() {
        values.retain(|v| !v.0.is_null());
    }
    for child in children(schema) {
        drop_nullable(child, defaults);
    }
}

pub(super) fn children(schema: &mut JSONSchemaProps) -> Vec<&mut JSONSchemaProps> {
    let JSONSchemaProps {
        properties,
        items,
        additional_properties,
        additional_items,
        all_of,
        any_of,
        one_of,
        not,
        pattern_properties,
        definitions,
        ..
    } = schema;
    let mut out: Vec<&mut JSONSchemaProps> = Vec::new();
    for map in [properties, pattern_properties, definitions].into_iter().flatten() {
        out.extend(map.values_mut());
    }
    match items {
        Some(JSONSchemaPropsOrArray::Schema(s)) => out.push(s),
        Some(JSONSchemaPropsOrArray::Schemas(list)) => out.extend(list.iter_mut()),
        None => {}
    }
    for extra in [additional_properties, additional_items] {
        if let Some(JSONSchemaPropsOrBool::Schema(s)) = extra {
            out.push(s);
        }
    }
    for list in [all_of, any_of, one_of].into_iter().flatten() {
        out.extend(list.iter_mut());
    }
    out.extend(not.as_deref_mut());
    out
}
