//! `openAPIV3Schema` JSON to [`Node`]s, refusing what the API server refuses when a CRD is
//! created: malformed keywords and non-structural schemas.

use serde_json::{Map, Value};

use crate::MAX_DEPTH;
use crate::error::SchemaError;
use crate::node::{Additional, ListType, Node, Pattern, Type};

/// Keywords a CRD schema may not use at all (the API server rejects the CRD).
const FORBIDDEN: &[&str] =
    &["$ref", "$schema", "definitions", "dependencies", "patternProperties", "additionalItems"];

/// Keywords that give a value a shape, so they may not appear inside `allOf`, `anyOf`,
/// `oneOf` or `not`, where only value validations are allowed in a structural schema.
const SHAPE_ONLY: &[&str] = &[
    "default",
    "nullable",
    "additionalProperties",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource",
    "x-kubernetes-int-or-string",
];

#[derive(Clone, Copy)]
struct Ctx {
    depth: usize,
    /// Inside a logical junctor: value validations only.
    junctor: bool,
    /// The nearest structural ancestor is `x-kubernetes-int-or-string`, whose junctors
    /// conventionally carry `type: integer` / `type: string`.
    int_or_string: bool,
}

pub(crate) fn root(schema: &Value) -> Result<Node, SchemaError> {
    let at = "openAPIV3Schema".to_owned();
    let node = compile(schema, &at, Ctx { depth: 0, junctor: false, int_or_string: false })?;
    if node.ty != Some(Type::Object) {
        return Err(SchemaError::NotStructural {
            at,
            reason: "the root must have type: object".into(),
        });
    }
    Ok(node)
}

fn compile(schema: &Value, at: &str, ctx: Ctx) -> Result<Node, SchemaError> {
    if ctx.depth > MAX_DEPTH {
        return Err(SchemaError::TooDeep { at: at.to_owned(), max: MAX_DEPTH });
    }
    let Value::Object(map) = schema else {
        return Err(SchemaError::NotASchema { at: at.to_owned(), found: json_type(schema) });
    };
    let k = Keywords { map, at };
    for keyword in FORBIDDEN {
        if map.contains_key(*keyword) {
            return Err(k.not_structural(format!("`{keyword}` is not allowed in a CRD schema")));
        }
    }
    if ctx.junctor {
        if let Some(keyword) = SHAPE_ONLY.iter().find(|kw| map.contains_key(**kw)) {
            return Err(k.not_structural(format!(
                "`{keyword}` is not allowed inside allOf, anyOf, oneOf or not"
            )));
        }
        if map.contains_key("type") && !ctx.int_or_string {
            return Err(
                k.not_structural("`type` is not allowed inside allOf, anyOf, oneOf or not".into())
            );
        }
    }
    let mut node = Node {
        ty: k
            .string("type")?
            .map(|name| {
                Type::parse(name).ok_or_else(|| SchemaError::UnknownType {
                    at: at.to_owned(),
                    found: name.to_owned(),
                })
            })
            .transpose()?,
        int_or_string: k.boolean("x-kubernetes-int-or-string")?,
        nullable: k.boolean("nullable")?,
        preserve_unknown: k.boolean("x-kubernetes-preserve-unknown-fields")?,
        embedded: k.boolean("x-kubernetes-embedded-resource")?,
        required: k.strings("required")?,
        enumeration: k.array("enum")?.cloned().unwrap_or_default(),
        format: k.string("format")?.map(str::to_owned),
        minimum: k.number("minimum")?,
        exclusive_minimum: k.boolean("exclusiveMinimum")?,
        maximum: k.number("maximum")?,
        exclusive_maximum: k.boolean("exclusiveMaximum")?,
        multiple_of: k.number("multipleOf")?,
        min_length: k.count("minLength")?,
        max_length: k.count("maxLength")?,
        min_items: k.count("minItems")?,
        max_items: k.count("maxItems")?,
        min_properties: k.count("minProperties")?,
        max_properties: k.count("maxProperties")?,
        default: map.get("default").cloned(),
        ..Node::default()
    };
    node.rules = crate::rules::compile(map, at)?;
    if node.multiple_of.is_some_and(|factor| factor <= 0.0) {
        return Err(k.malformed("multipleOf", "a number greater than 0"));
    }
    if k.boolean("uniqueItems")? {
        return Err(k.not_structural(
            "`uniqueItems: true` is not allowed; use x-kubernetes-list-type: set".into(),
        ));
    }
    if let Some(source) = k.string("pattern")? {
        let regex = regex::Regex::new(&crate::gore::translate(source)).map_err(|source_err| {
            SchemaError::Pattern {
                at: at.to_owned(),
                pattern: source.to_owned(),
                source: source_err,
            }
        })?;
        node.pattern = Some(Pattern { source: source.to_owned(), regex });
    }
    node.list = list_type(&k)?;
    if !ctx.junctor && node.ty.is_none() && !node.int_or_string && !node.preserve_unknown {
        return Err(k.not_structural("`type` is required (unless x-kubernetes-int-or-string or x-kubernetes-preserve-unknown-fields is true)".into()));
    }

    let child = Ctx {
        depth: ctx.depth + 1,
        junctor: ctx.junctor,
        int_or_string: if ctx.junctor { ctx.int_or_string } else { node.int_or_string },
    };
    if let Some(properties) = map.get("properties") {
        let Value::Object(properties) = properties else {
            return Err(k.malformed("properties", "an object of schemas"));
        };
        for (name, schema) in properties {
            node.properties
                .insert(name.clone(), compile(schema, &format!("{at}.properties[{name}]"), child)?);
        }
    }
    node.additional = match map.get("additionalProperties") {
        None => Additional::None,
        Some(Value::Bool(true)) => Additional::Any,
        Some(Value::Bool(false)) => {
            return Err(k.not_structural("`additionalProperties: false` is not allowed".into()));
        }
        Some(schema) => Additional::Schema(Box::new(compile(
            schema,
            &format!("{at}.additionalProperties"),
            child,
        )?)),
    };
    if !node.properties.is_empty() && !matches!(node.additional, Additional::None) {
        return Err(k.not_structural(
            "`properties` and `additionalProperties` are mutually exclusive".into(),
        ));
    }
    match map.get("items") {
        None if node.ty == Some(Type::Array) && !ctx.junctor => {
            return Err(k.not_structural("`items` is required for type: array".into()));
        }
        None => {}
        Some(Value::Array(_)) => {
            return Err(k.not_structural("`items` must be a single schema, not a list".into()));
        }
        Some(schema) => {
            node.items = Some(Box::new(compile(schema, &format!("{at}.items"), child)?))
        }
    }
    let junctor = Ctx { junctor: true, ..child };
    node.all_of = k.schemas("allOf", junctor)?;
    node.any_of = k.schemas("anyOf", junctor)?;
    node.one_of = k.schemas("oneOf", junctor)?;
    if let Some(schema) = map.get("not") {
        node.not = Some(Box::new(compile(schema, &format!("{at}.not"), junctor)?));
    }
    Ok(node)
}

fn list_type(k: &Keywords<'_>) -> Result<ListType, SchemaError> {
    let keys = k.strings("x-kubernetes-list-map-keys")?;
    match k.string("x-kubernetes-list-type")? {
        None | Some("atomic") if keys.is_empty() => Ok(ListType::Atomic),
        Some("set") if keys.is_empty() => Ok(ListType::Set),
        Some("map") if !keys.is_empty() => Ok(ListType::Map(keys)),
        Some("map") => Err(
            k.not_structural("x-kubernetes-list-type: map needs x-kubernetes-list-map-keys".into())
        ),
        Some("atomic" | "set") | None => Err(k.not_structural(
            "x-kubernetes-list-map-keys is only allowed with x-kubernetes-list-type: map".into(),
        )),
        Some(_) => Err(k.malformed("x-kubernetes-list-type", "one of atomic, set or map")),
    }
}

/// Typed access to one schema's keywords, with errors naming the keyword.
struct Keywords<'a> {
    map: &'a Map<String, Value>,
    at: &'a str,
}

impl<'a> Keywords<'a> {
    fn malformed(&self, keyword: &'static str, expected: &'static str) -> SchemaError {
        SchemaError::Malformed { at: self.at.to_owned(), keyword, expected }
    }
    fn not_structural(&self, reason: String) -> SchemaError {
        SchemaError::NotStructural { at: self.at.to_owned(), reason }
    }
    fn string(&self, keyword: &'static str) -> Result<Option<&'a str>, SchemaError> {
        match self.map.get(keyword) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(self.malformed(keyword, "a string")),
        }
    }
    fn boolean(&self, keyword: &'static str) -> Result<bool, SchemaError> {
        match self.map.get(keyword) {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(self.malformed(keyword, "a boolean")),
        }
    }
    fn number(&self, keyword: &'static str) -> Result<Option<f64>, SchemaError> {
        match self.map.get(keyword) {
            None => Ok(None),
            Some(Value::Number(n)) => {
                n.as_f64().map(Some).ok_or_else(|| self.malformed(keyword, "a number"))
            }
            Some(_) => Err(self.malformed(keyword, "a number")),
        }
    }
    fn count(&self, keyword: &'static str) -> Result<Option<u64>, SchemaError> {
        match self.map.get(keyword) {
            None => Ok(None),
            Some(value) => value
                .as_u64()
                .map(Some)
                .ok_or_else(|| self.malformed(keyword, "a non-negative integer")),
        }
    }
    fn array(&self, keyword: &'static str) -> Result<Option<&'a Vec<Value>>, SchemaError> {
        match self.map.get(keyword) {
            None => Ok(None),
            Some(Value::Array(items)) => Ok(Some(items)),
            Some(_) => Err(self.malformed(keyword, "an array")),
        }
    }
    fn strings(&self, keyword: &'static str) -> Result<Vec<String>, SchemaError> {
        let items = self.array(keyword)?.map(Vec::as_slice).unwrap_or_default();
        items
            .iter()
            .map(|item| {
                item.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| self.malformed(keyword, "an array of strings"))
            })
            .collect()
    }
    fn schemas(&self, keyword: &'static str, ctx: Ctx) -> Result<Vec<Node>, SchemaError> {
        let items = self.array(keyword)?.map(Vec::as_slice).unwrap_or_default();
        items
            .iter()
            .enumerate()
            .map(|(i, schema)| compile(schema, &format!("{}.{keyword}[{i}]", self.at), ctx))
            .collect()
    }
}

pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}
