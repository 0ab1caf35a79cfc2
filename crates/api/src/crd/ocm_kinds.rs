//! The Open Cluster Management CRDs: derived like certgate's own where the kind has a `spec`,
//! assembled here from the types' schemas for the two kinds without one (`PlacementBinding`,
//! `PlacementDecision`). Upstream's OCM CRDs declare defaults, so the types carry exactly
//! those and [`Defaults::Keep`] keeps them. What no field attribute can express is added after
//! kube's structural rewrite (which would otherwise hoist or strip it): the `oneOf`/`not`
//! rules on kinds and groups, the `anyOf` of int-or-string fields, and the one `nullable`.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, CustomResourceDefinitionNames, CustomResourceDefinitionSpec,
    CustomResourceDefinitionVersion, CustomResourceSubresourceStatus, CustomResourceSubresources,
    CustomResourceValidation, JSONSchemaProps, JSONSchemaPropsOrArray,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::CustomResourceExt;
use schemars::JsonSchema;
use serde_json::{Value, json};

use super::finish::{Defaults, RootSpec, children, finish_with};
use crate::ocm::{
    ClusterClaim, ManagedCluster, Placement, PlacementBinding, PlacementDecision, Policy, PolicySet,
};

pub(super) fn all() -> Vec<CustomResourceDefinition> {
    vec![
        policy(),
        placement_binding(),
        finish_with(PolicySet::crd(), RootSpec::Required, Defaults::Keep),
        placement(),
        placement_decision(),
        managed_cluster(),
        finish_with(ClusterClaim::crd(), RootSpec::Optional, Defaults::Keep),
    ]
}

fn policy() -> CustomResourceDefinition {
    let mut crd = finish_with(Policy::crd(), RootSpec::Required, Defaults::Keep);
    for root in roots(&mut crd) {
        let required = root.required.get_or_insert_default();
        if !required.iter().any(|name| name == "metadata") {
            required.insert(0, "metadata".to_owned());
        }
        for path in [
            &["spec", "dependencies", "[]"][..],
            &["spec", "policy-templates", "[]", "extraDependencies", "[]"],
        ] {
            if let Some(dependency) = at(root, path) {
                // A policy-engine dependency (same cluster namespace as the policy) names no
                // namespace; any other kind may.
                dependency.one_of = junctors(json!([
                    {
                        "properties": {
                            "kind": {"enum": ["CertificatePolicy", "ConfigurationPolicy"]},
                            "namespace": {"maxLength": 0},
                        },
                    },
                    {
                        "not": {
                            "properties": {
                                "kind": {"pattern": "^(?:(?:Certificate|Configuration)Policy)$"},
                            },
                        },
                    },
                ]));
            }
        }
    }
    crd
}

fn placement_binding() -> CustomResourceDefinition {
    let mut crd = hand_built::<PlacementBinding>(Names {
        kind: "PlacementBinding",
        plural: "placementbindings",
        short_names: &["pb"],
        group: crate::ocm::POLICY_GROUP,
        version: "v1",
    });
    for root in roots(&mut crd) {
        if let Some(reference) = at(root, &["placementRef"]) {
            // Only the matching kind and group pairs.
            reference.one_of = junctors(json!([
                {
                    "properties": {
                        "apiGroup": {"enum": [crate::ocm::CLUSTER_GROUP]},
                        "kind": {"enum": ["Placement"]},
                    },
                },
                {
                    "properties": {
                        "apiGroup": {"enum": [crate::ocm::PLACEMENT_RULE_GROUP]},
                        "kind": {"enum": ["PlacementRule"]},
                    },
                },
            ]));
        }
    }
    crd
}

fn placement() -> CustomResourceDefinition {
    let mut crd = finish_with(Placement::crd(), RootSpec::Required, Defaults::Keep);
    for root in roots(&mut crd) {
        int_or_string_any_of(root);
    }
    crd
}

fn placement_decision() -> CustomResourceDefinition {
    hand_built::<PlacementDecision>(Names {
        kind: "PlacementDecision",
        plural: "placementdecisions",
        short_names: &[],
        group: crate::ocm::CLUSTER_GROUP,
        version: "v1beta1",
    })
}

fn managed_cluster() -> CustomResourceDefinition {
    let mut crd = finish_with(ManagedCluster::crd(), RootSpec::Optional, Defaults::Keep);
    for root in roots(&mut crd) {
        int_or_string_any_of(root);
        // Go's zero `metav1.Time` is written as `null`; upstream's schema keeps it.
        if let Some(time_added) = at(root, &["spec", "taints", "[]", "timeAdded"]) {
            time_added.nullable = Some(true);
        }
    }
    crd
}

/// The identity of a kind whose CRD is assembled here.
struct Names {
    kind: &'static str,
    plural: &'static str,
    short_names: &'static [&'static str],
    group: &'static str,
    version: &'static str,
}

/// The CRD of a namespaced kind without `spec` whose type `T` is the whole object (its
/// `metadata` skipped by the schema), with the status subresource, finished like the derived
/// ones.
fn hand_built<T: JsonSchema>(names: Names) -> CustomResourceDefinition {
    let short_names = (!names.short_names.is_empty())
        .then(|| names.short_names.iter().map(|name| (*name).to_owned()).collect());
    let crd = CustomResourceDefinition {
        metadata: ObjectMeta {
            name: Some(format!("{}.{}", names.plural, names.group)),
            ..Default::default()
        },
        spec: CustomResourceDefinitionSpec {
            group: names.group.to_owned(),
            names: CustomResourceDefinitionNames {
                kind: names.kind.to_owned(),
                plural: names.plural.to_owned(),
                singular: Some(names.kind.to_ascii_lowercase()),
                short_names,
                ..Default::default()
            },
            scope: "Namespaced".to_owned(),
            versions: vec![CustomResourceDefinitionVersion {
                name: names.version.to_owned(),
                served: true,
                storage: true,
                schema: Some(CustomResourceValidation { open_api_v3_schema: schema_of::<T>() }),
                subresources: Some(CustomResourceSubresources {
                    status: Some(CustomResourceSubresourceStatus(json!({}))),
                    scale: None,
                }),
                ..Default::default()
            }],
            ..Default::default()
        },
        ..Default::default()
    };
    finish_with(crd, RootSpec::Optional, Defaults::Keep)
}

/// `T`'s schema generated as kube-derive generates a custom resource's: inline, structural,
/// OpenAPI v3. `None` only if the schema does not convert, which the CRD tests rule out.
fn schema_of<T: JsonSchema>() -> Option<JSONSchemaProps> {
    let generator = schemars::generate::SchemaSettings::openapi3()
        .with(|settings| {
            settings.inline_subschemas = true;
            settings.meta_schema = None;
        })
        .with_transform(schemars::transform::AddNullable::default())
        .with_transform(kube::core::schema::StructuralSchemaRewriter)
        .with_transform(kube::core::schema::OptionalEnum)
        .with_transform(kube::core::schema::OptionalIntOrString)
        .into_generator();
    let schema = generator.into_root_schema_for::<T>();
    serde_json::from_value(schema.to_value()).ok()
}

/// Every version's root schema.
fn roots(crd: &mut CustomResourceDefinition) -> impl Iterator<Item = &mut JSONSchemaProps> {
    crd.spec
        .versions
        .iter_mut()
        .filter_map(|version| version.schema.as_mut()?.open_api_v3_schema.as_mut())
}

/// The subschema at `path`: property names, `[]` for a list's items.
fn at<'a>(schema: &'a mut JSONSchemaProps, path: &[&str]) -> Option<&'a mut JSONSchemaProps> {
    let Some((first, rest)) = path.split_first() else { return Some(schema) };
    let child = if *first == "[]" {
        match schema.items.as_mut()? {
            JSONSchemaPropsOrArray::Schema(items) => &mut **items,
            JSONSchemaPropsOrArray::Schemas(_) => return None,
        }
    } else {
        schema.properties.as_mut()?.get_mut(*first)?
    };
    at(child, rest)
}

/// Value-validation subschemas written as JSON.
fn junctors(list: Value) -> Option<Vec<JSONSchemaProps>> {
    serde_json::from_value(list).ok()
}

/// The `anyOf: [integer, string]` controller-gen writes beside every
/// `x-kubernetes-int-or-string` (kube's rewriter strips the types from such an `anyOf`).
fn int_or_string_any_of(schema: &mut JSONSchemaProps) {
    // The schemas are as deep as the Rust types, so recursion is bounded.
    if schema.x_kubernetes_int_or_string == Some(true) && schema.any_of.is_none() {
        schema.any_of = junctors(json!([{"type": "integer"}, {"type": "string"}]));
    }
    for child in children(schema) {
        int_or_string_any_of(child);
    }
}
