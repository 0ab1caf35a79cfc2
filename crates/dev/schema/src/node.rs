//! The compiled form of one (sub-)schema.

use std::collections::BTreeMap;

use regex::Regex;
use serde_json::Value;

/// A JSON Schema `type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Type {
    Object,
    Array,
    String,
    Integer,
    Number,
    Boolean,
}

impl Type {
    pub(crate) fn parse(name: &str) -> Option<Type> {
        Some(match name {
            "object" => Type::Object,
            "array" => Type::Array,
            "string" => Type::String,
            "integer" => Type::Integer,
            "number" => Type::Number,
            "boolean" => Type::Boolean,
            _ => return None,
        })
    }
}

/// `x-kubernetes-list-type`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) enum ListType {
    #[default]
    Atomic,
    Set,
    Map(Vec<String>),
}

#[derive(Clone, Debug)]
pub(crate) struct Pattern {
    pub source: String,
    pub regex: Regex,
}

/// What an object keeps beyond its `properties`.
#[derive(Clone, Debug, Default)]
pub(crate) enum Additional {
    /// Nothing: unknown fields are pruned (unless `preserve_unknown`).
    #[default]
    None,
    /// `additionalProperties: true`: every key kept, values not validated.
    Any,
    /// `additionalProperties: {schema}`: every key kept, values validated.
    Schema(Box<Node>),
}

/// One schema. Fields mirror the OpenAPI keywords the API server honours for custom
/// resources; descriptions and examples are not kept.
#[derive(Clone, Debug, Default)]
pub(crate) struct Node {
    pub ty: Option<Type>,
    pub int_or_string: bool,
    pub nullable: bool,
    pub preserve_unknown: bool,
    pub embedded: bool,
    pub properties: BTreeMap<String, Node>,
    pub additional: Additional,
    pub items: Option<Box<Node>>,
    pub required: Vec<String>,
    pub enumeration: Vec<Value>,
    pub format: Option<String>,
    pub minimum: Option<f64>,
    pub exclusive_minimum: bool,
    pub maximum: Option<f64>,
    pub exclusive_maximum: bool,
    pub multiple_of: Option<f64>,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub pattern: Option<Pattern>,
    pub min_items: Option<u64>,
    pub max_items: Option<u64>,
    pub min_properties: Option<u64>,
    pub max_properties: Option<u64>,
    pub list: ListType,
    pub all_of: Vec<Node>,
    pub any_of: Vec<Node>,
    pub one_of: Vec<Node>,
    pub not: Option<Box<Node>>,
    pub default: Option<Value>,
    /// `x-kubernetes-validations`, compiled.
    pub rules: Vec<crate::rules::Rule>,
}

impl Node {
    /// The schema of the value under `key` of an object, if it is not pruned.
    pub(crate) fn child(&self, key: &str) -> Option<&Node> {
        match (self.properties.get(key), &self.additional) {
            (Some(node), _) => Some(node),
            (None, Additional::Schema(node)) => Some(node),
            (None, _) => None,
        }
    }
}

/// Fields every object of a kind carries, validated by the API server itself rather
/// than by the CRD schema.
pub(crate) fn is_type_meta_or_metadata(key: &str) -> bool {
    matches!(key, "apiVersion" | "kind" | "metadata")
}
