//! The CEL types and size bounds of `self` in a CRD's `x-kubernetes-validations`, derived
//! from the schema node the rule sits on, as kube-apiserver declares them when it checks
//! the CRD: objects with `properties` are object types whose fields are exactly those
//! properties (so `self.nosuchfield` is a compile error), `additionalProperties` maps are
//! `map(string, T)`, arrays `list(T)`, `integer` is `int`, `number` `double`, strings with
//! format `byte` are `bytes`, `duration` a duration, `date`/`date-time` a timestamp;
//! int-or-string values and objects that only preserve unknown fields are `dyn`.
//!
//! Size bounds (for the static cost estimate) come from `maxLength`, `maxItems` and
//! `maxProperties`; where they are missing, from what fits in a request body of 3 MiB,
//! the API server's limit, as upstream estimates them.

use certgate_cel::check::{DeclError, Declarations, Type};
use certgate_cel::cost::{ITEMS, KEYS, SizeBounds, VALUES};
use serde_json::Value;

/// The API server's request body limit, which bounds every unbounded value.
const MAX_REQUEST_BYTES: u64 = 3 * 1024 * 1024;
/// Deepest schema node typed (deeper nodes are `dyn`); compile already refuses deeper.
const MAX_TYPE_DEPTH: usize = crate::MAX_DEPTH;
/// Most object types and size paths declared for one rule's `self`, bounding the work a
/// huge schema costs per rule.
const MAX_DECLARED: usize = 4096;

/// `self`'s type, the declarations of its object types, and its size bounds.
pub(crate) struct SelfType {
    pub ty: Type,
    pub objects: Vec<(String, Vec<(String, Type)>)>,
    pub bounds: Vec<(String, u64)>,
}

/// Types the node `schema` (the root when `root`).
pub(crate) fn self_type(schema: &Value, root: bool) -> SelfType {
    let mut out = SelfType { ty: Type::Dyn, objects: Vec::new(), bounds: Vec::new() };
    out.ty = walk(schema, "self", root, 0, &mut out);
    out
}

impl SelfType {
    /// Declares `self`, and `oldSelf` (optional when `optional_old_self`), in `decls`;
    /// returns the size bounds of both.
    pub fn declare(
        &self,
        decls: &mut Declarations,
        optional_old_self: bool,
    ) -> Result<SizeBounds, DeclError> {
        for (name, fields) in &self.objects {
            decls.add_object_type(name.clone(), fields.clone())?;
        }
        decls.add_variable("self", self.ty.clone())?;
        let old = if optional_old_self { Type::optional(self.ty.clone()) } else { self.ty.clone() };
        decls.add_variable("oldSelf", old)?;
        // Computed values of unknown size are unbounded, as cel-go's estimator has them.
        let mut bounds = SizeBounds::new().with_max_unknown_size(u64::MAX);
        for (path, size) in &self.bounds {
            bounds = bounds.with_path(path.clone(), *size);
            if let Some(rest) = path.strip_prefix("self") {
                bounds = bounds.with_path(format!("oldSelf{rest}"), *size);
            }
        }
        Ok(bounds)
    }
}

fn walk(schema: &Value, path: &str, root: bool, depth: usize, out: &mut SelfType) -> Type {
    if depth > MAX_TYPE_DEPTH || out.bounds.len() + out.objects.len() > MAX_DECLARED {
        return Type::Dyn;
    }
    let flag = |name: &str| schema.get(name).and_then(Value::as_bool).unwrap_or(false);
    let bound = |name: &str| schema.get(name).and_then(Value::as_u64);
    if flag("x-kubernetes-int-or-string") {
        out.bounds.push((path.to_owned(), bound("maxLength").unwrap_or(max_string())));
        return Type::Dyn;
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("object") => object(schema, path, root, depth, out),
        Some("array") => {
            let items = schema.get("items").unwrap_or(&Value::Null);
            let max = bound("maxItems").unwrap_or_else(|| max_elements(min_size(items)));
            out.bounds.push((path.to_owned(), max));
            Type::list(walk(items, &format!("{path}.{ITEMS}"), false, depth + 1, out))
        }
        Some("string") => {
            let max = bound("maxLength").unwrap_or(max_string());
            out.bounds.push((path.to_owned(), max));
            match schema.get("format").and_then(Value::as_str) {
                Some("byte") => Type::Bytes,
                Some("duration") => Type::Duration,
                Some("date" | "date-time") => Type::Timestamp,
                _ => Type::String,
            }
        }
        Some("integer") => Type::Int,
        Some("number") => Type::Double,
        Some("boolean") => Type::Bool,
        _ => Type::Dyn,
    }
}

fn object(schema: &Value, path: &str, root: bool, depth: usize, out: &mut SelfType) -> Type {
    let properties = schema.get("properties").and_then(Value::as_object);
    let embedded =
        root || schema.get("x-kubernetes-embedded-resource").and_then(Value::as_bool) == Some(true);
    if properties.is_none() && !embedded {
        if let Some(additional) = schema.get("additionalProperties").filter(|a| a.is_object()) {
            let max = schema
                .get("maxProperties")
                .and_then(Value::as_u64)
                .unwrap_or_else(|| max_properties(min_size(additional)));
            out.bounds.push((path.to_owned(), max));
            out.bounds.push((format!("{path}.{KEYS}"), max_string()));
            let value = walk(additional, &format!("{path}.{VALUES}"), false, depth + 1, out);
            return Type::map(Type::String, value);
        }
        if schema.get("x-kubernetes-preserve-unknown-fields").and_then(Value::as_bool) == Some(true)
        {
            return Type::Dyn;
        }
    }
    let mut fields = Vec::new();
    if embedded {
        // The API server's part of an object: only the name fields are visible to rules.
        let meta = format!("{path}.metadata");
        out.bounds.push((format!("{meta}.name"), 253));
        out.bounds.push((format!("{meta}.generateName"), 253));
        let meta_type = type_name(&meta);
        out.objects.push((
            meta_type.clone(),
            vec![("name".to_owned(), Type::String), ("generateName".to_owned(), Type::String)],
        ));
        fields.push(("apiVersion".to_owned(), Type::String));
        fields.push(("kind".to_owned(), Type::String));
        fields.push(("metadata".to_owned(), Type::object(meta_type)));
        out.bounds.push((format!("{path}.apiVersion"), max_string()));
        out.bounds.push((format!("{path}.kind"), max_string()));
    }
    for (name, property) in properties.into_iter().flatten() {
        if embedded && matches!(name.as_str(), "apiVersion" | "kind" | "metadata") {
            continue;
        }
        let ty = walk(property, &format!("{path}.{name}"), false, depth + 1, out);
        fields.push((name.clone(), ty));
    }
    out.bounds.push((path.to_owned(), u64::try_from(fields.len()).unwrap_or(u64::MAX)));
    let name = type_name(path);
    out.objects.push((name.clone(), fields));
    Type::object(name)
}

/// Object type names, unique per path (upstream's are random: its messages naming them
/// cannot be matched anyway).
fn type_name(path: &str) -> String {
    format!("selfType.{path}")
}

/// The longest string a request can carry (its quotes take two bytes).
fn max_string() -> u64 {
    MAX_REQUEST_BYTES - 2
}

/// The smallest JSON a value of `schema` serialises to: an object holds at least its
/// required properties that have no default (`"name":` and a comma each).
fn min_size(schema: &Value) -> u64 {
    min_size_at(schema, 0)
}

fn min_size_at(schema: &Value, depth: usize) -> u64 {
    match schema.get("type").and_then(Value::as_str) {
        Some("string") => 2,
        Some("boolean") => 4,
        Some("array") => 2,
        Some("object") if depth <= MAX_TYPE_DEPTH => {
            let properties = schema.get("properties").and_then(Value::as_object);
            let required = schema.get("required").and_then(Value::as_array).into_iter().flatten();
            2 + required
                .filter_map(Value::as_str)
                .filter_map(|name| Some((name, properties?.get(name)?)))
                .filter(|(_, property)| property.get("default").is_none())
                .map(|(name, property)| name.len() as u64 + min_size_at(property, depth + 1) + 4)
                .sum::<u64>()
        }
        Some("object") => 2,
        _ => 1,
    }
}

/// Most list elements of `min` bytes each (and a comma) in a request.
fn max_elements(min: u64) -> u64 {
    (MAX_REQUEST_BYTES - 2) / (min + 1)
}

/// Most map entries (`"":` and a comma, plus the value) in a request.
fn max_properties(min: u64) -> u64 {
    (MAX_REQUEST_BYTES - 2) / (min + 4)
}

/// The `maxItems` (or `maxProperties`) of `schema`, if declared.
pub(crate) fn repeat(schema: &Value, keyword: &str) -> Option<u64> {
    schema.get(keyword).and_then(Value::as_u64)
}

/// How many values of `schema` fit in one request (upstream's bound of how many times a
/// rule runs when an enclosing list or map is unbounded).
pub(crate) fn max_in_request(schema: &Value) -> u64 {
    MAX_REQUEST_BYTES / (min_size(schema) + 1)
}
