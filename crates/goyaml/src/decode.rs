//! `yaml.Unmarshal(text, &interface{})` followed by `json.Marshal`.
//!
//! The structure mirrors yaml.v3's `decode.go`: libyaml's events are first built into a node
//! tree (`libyaml::compose`), then the tree is decoded with yaml.v3's rules — node tags as
//! `parser.node` assigns them, duplicate-key checks, `<<` merges with yaml.v3's precedence,
//! `map[string]interface{}` only when every key is a string, and its alias-expansion ratio
//! limit. Finally the `json.Marshal` failures (non-string-keyed maps, NaN, infinities) are
//! applied while converting to `serde_json::Value`.

use std::collections::{BTreeMap, HashMap, HashSet};

use base64::Engine as _;
use serde_json::{Number, Value};

use crate::libyaml::{Kind, Node, compose};
use crate::resolve::{self, MAP_TAG, MERGE_TAG, SEQ_TAG, STR_TAG, Scalar};
use crate::timestamp::Timestamp;
use crate::{MAX_DEPTH, MAX_INPUT_BYTES, YamlError};

/// Upper bound on collected "unmarshal errors" (duplicate keys); yaml.v3 reports every
/// pair, which is quadratic for hostile input.
const MAX_TYPE_ERRORS: usize = 1000;

/// Go values as yaml.v3 produces them for `interface{}` targets.
#[derive(Clone, Debug)]
enum GoValue {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(f64),
    Str(String),
    Time(Timestamp),
    Seq(Vec<GoValue>),
    /// `map[string]interface{}`; BTreeMap order is `encoding/json`'s key order.
    StrMap(BTreeMap<String, GoValue>),
    /// `map[interface{}]interface{}`: decodes, but `json.Marshal` rejects it.
    AnyMap(Vec<(GoValue, GoValue)>),
}

impl GoValue {
    /// Identity used for merge precedence (Go compares interface values: type and value).
    fn identity(&self) -> String {
        format!("{self:?}")
    }

    /// Go's `%#v`, as far as yaml.v3's "invalid map key" message shows it.
    fn go_syntax(&self) -> String {
        match self {
            GoValue::Null => "interface {}(nil)".to_owned(),
            GoValue::Bool(b) => b.to_string(),
            GoValue::Int(i) => i.to_string(),
            GoValue::Uint(u) => format!("0x{u:x}"),
            GoValue::Float(f) => certgate_gofmt::format_float_g(*f),
            GoValue::Str(s) => s_quote(s),
            GoValue::Time(t) => format!("time.Date({})", t.rfc3339_nano()),
            GoValue::Seq(items) => format!(
                "[]interface {{}}{{{}}}",
                items.iter().map(GoValue::go_syntax).collect::<Vec<_>>().join(", ")
            ),
            GoValue::StrMap(map) => format!(
                "map[string]interface {{}}{{{}}}",
                map.iter()
                    .map(|(k, v)| format!("{}:{}", s_quote(k), v.go_syntax_in_map()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            GoValue::AnyMap(pairs) => format!(
                "map[interface {{}}]interface {{}}{{{}}}",
                pairs
                    .iter()
                    .map(|(k, v)| format!("{}:{}", k.go_syntax(), v.go_syntax_in_map()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    fn go_syntax_in_map(&self) -> String {
        self.go_syntax()
    }
}

fn s_quote(s: &str) -> String {
    format!("{s:?}")
}

/// The tree decoder (yaml.v3 `decoder`), for `interface{}` targets only.
struct Decoder<'t> {
    nodes: &'t [Node],
    decode_count: usize,
    alias_count: usize,
    alias_depth: usize,
    active_aliases: HashSet<usize>,
    type_errors: Vec<String>,
    depth: usize,
}

type Fatal = String;

/// yaml.v3 `allowedAliasRatio`: up to 99% of decoded nodes may come from aliases in small
/// documents, scaling down to 10% for very large ones.
fn allowed_alias_ratio(decode_count: usize) -> f64 {
    const LOW: f64 = 400_000.0;
    const HIGH: f64 = 4_000_000.0;
    let count = decode_count as f64;
    if count <= LOW {
        0.99
    } else if count >= HIGH {
        0.10
    } else {
        0.99 - 0.89 * ((count - LOW) / (HIGH - LOW))
    }
}

/// Either a map being filled: string keys or arbitrary keys.
enum Target<'a> {
    Str(&'a mut BTreeMap<String, GoValue>),
    Any(&'a mut Vec<(GoValue, GoValue)>),
}

impl<'t> Decoder<'t> {
    fn count(&mut self) -> Result<(), Fatal> {
        self.decode_count += 1;
        if self.alias_depth > 0 {
            self.alias_count += 1;
        }
        if self.alias_count > 100
            && self.decode_count > 1000
            && self.alias_count as f64 / self.decode_count as f64
                > allowed_alias_ratio(self.decode_count)
        {
            return Err("document contains excessive aliasing".to_owned());
        }
        Ok(())
    }

    /// `Node.ShortTag`.
    fn short_tag_of(&self, idx: usize) -> &str {
        let node = &self.nodes[idx];
        match &node.kind {
            Kind::Alias { target, .. } => self.short_tag_of(*target),
            _ => &node.tag,
        }
    }

    fn is_merge_key(&self, idx: usize) -> bool {
        let node = &self.nodes[idx];
        matches!(&node.kind, Kind::Scalar { value } if value == "<<") && node.tag == MERGE_TAG
    }

    /// Follows an alias with yaml.v3's cycle detection and alias accounting.
    fn with_alias<T>(
        &mut self,
        idx: usize,
        f: impl FnOnce(&mut Self, usize) -> Result<T, Fatal>,
    ) -> Result<T, Fatal> {
        let Kind::Alias { target, name } = &self.nodes[idx].kind else {
            return f(self, idx);
        };
        let (target, name) = (*target, name.clone());
        if !self.active_aliases.insert(idx) {
            return Err(format!("anchor '{name}' value contains itself"));
        }
        self.alias_depth += 1;
        let result = f(self, target);
        self.alias_depth -= 1;
        self.active_aliases.remove(&idx);
        result
    }

    fn enter(&mut self) -> Result<(), Fatal> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(format!("exceeded max depth of {MAX_DEPTH}"));
        }
        Ok(())
    }

    /// `d.unmarshal(n, interface{})`.
    fn value(&mut self, idx: usize) -> Result<GoValue, Fatal> {
        self.count()?;
        if matches!(self.nodes[idx].kind, Kind::Alias { .. }) {
            return self.with_alias(idx, |d, target| d.value(target));
        }
        self.enter()?;
        let nodes = self.nodes;
        let node = &nodes[idx];
        let result = match &node.kind {
            Kind::Scalar { value } => scalar_value(node, value),
            Kind::Sequence(items) => {
                let mut out = Vec::with_capacity(items.len());
                for &item in items {
                    out.push(self.value(item)?);
                }
                Ok(GoValue::Seq(out))
            }
            Kind::Mapping(items) => {
                let all_string = items
                    .chunks(2)
                    .map(|pair| self.short_tag_of(pair[0]))
                    .all(|t| t == STR_TAG || t == MERGE_TAG);
                if all_string {
                    let mut map = BTreeMap::new();
                    self.mapping(idx, &mut Target::Str(&mut map), None)?;
                    Ok(GoValue::StrMap(map))
                } else {
                    let mut pairs = Vec::new();
                    self.mapping(idx, &mut Target::Any(&mut pairs), None)?;
                    Ok(GoValue::AnyMap(pairs))
                }
            }
            Kind::Alias { .. } => Ok(GoValue::Null), // handled above
        };
        self.depth -= 1;
        result
    }

    /// A key decoded into a Go `string` (keys of `map[string]interface{}`).
    fn string_key(&mut self, idx: usize) -> Result<Option<String>, Fatal> {
        self.count()?;
        if matches!(self.nodes[idx].kind, Kind::Alias { .. }) {
            return self.with_alias(idx, |d, target| d.string_key(target));
        }
        let node = &self.nodes[idx];
        match &node.kind {
            Kind::Scalar { value } => match scalar_value(node, value)? {
                GoValue::Null => Ok(None),
                // A scalar decoded into a Go string keeps its text (binary: the decoded data).
                GoValue::Str(s) if node.tag == resolve::BINARY_TAG => Ok(Some(s)),
                _ => Ok(Some(value.clone())),
            },
            Kind::Sequence(_) | Kind::Mapping(_) => {
                let tag = if matches!(node.kind, Kind::Mapping(_)) { MAP_TAG } else { SEQ_TAG };
                self.type_error(format!("line {}: cannot unmarshal {tag} into string", node.line));
                Ok(None)
            }
            Kind::Alias { .. } => Ok(None),
        }
    }

    fn type_error(&mut self, text: String) {
        if self.type_errors.len() < MAX_TYPE_ERRORS {
            self.type_errors.push(text);
        }
    }

    /// yaml.v3 `uniqueKeys`: every later key with the same node kind and text as an earlier
    /// one is reported, pair by pair, in source order. Returns whether there was one:
    /// yaml.v3 then leaves the mapping undecoded (nothing inside it is reported).
    fn duplicate_keys(&mut self, items: &[usize]) -> bool {
        let mut groups: HashMap<(u8, &str), Vec<usize>> = HashMap::new();
        let mut order = Vec::new();
        for pair in items.chunks(2) {
            let node = &self.nodes[pair[0]];
            let key = match &node.kind {
                Kind::Scalar { value } => (0, value.as_str()),
                Kind::Alias { name, .. } => (1, name.as_str()),
                Kind::Sequence(_) => (2, ""),
                Kind::Mapping(_) => (3, ""),
            };
            let group = groups.entry(key).or_default();
            group.push(pair[0]);
            order.push((key, group.len() - 1));
        }
        let mut found = false;
        for (key, position) in order {
            let Some(group) = groups.get(&key) else { continue };
            let first = &self.nodes[group[position]];
            for &later in &group[position + 1..] {
                if self.type_errors.len() >= MAX_TYPE_ERRORS {
                    return true;
                }
                let later = &self.nodes[later];
                let text = format!(
                    "line {}: mapping key {} already defined at line {}",
                    later.line,
                    s_quote(key.1),
                    first.line
                );
                self.type_errors.push(text);
                found = true;
            }
        }
        found
    }

    /// `d.mapping` into an existing map; `merged` is yaml.v3's `mergedFields` (set while this
    /// mapping is merged into another, so keys already present win).
    fn mapping(
        &mut self,
        idx: usize,
        target: &mut Target<'_>,
        mut merged: Option<&mut HashSet<String>>,
    ) -> Result<(), Fatal> {
        let nodes = self.nodes;
        let Kind::Mapping(items) = &nodes[idx].kind else {
            return Ok(());
        };
        if self.duplicate_keys(items) {
            return Ok(());
        }
        let mut merge_node = None;
        for pair in items.chunks(2) {
            let (key_idx, value_idx) = (pair[0], pair[1]);
            if self.is_merge_key(key_idx) {
                merge_node = Some(value_idx);
                continue;
            }
            match target {
                Target::Str(map) => {
                    let Some(key) = self.string_key(key_idx)? else { continue };
                    if let Some(set) = merged.as_deref_mut()
                        && !set.insert(key.clone())
                    {
                        continue;
                    }
                    let value = self.value(value_idx)?;
                    map.insert(key, value);
                }
                Target::Any(pairs) => {
                    let key = self.value(key_idx)?;
                    if let Some(set) = merged.as_deref_mut()
                        && !set.insert(key.identity())
                    {
                        continue;
                    }
                    if matches!(key, GoValue::Seq(_) | GoValue::StrMap(_) | GoValue::AnyMap(_)) {
                        return Err(format!("invalid map key: {}", key.go_syntax()));
                    }
                    let value = self.value(value_idx)?;
                    let identity = key.identity();
                    if let Some(slot) = pairs.iter_mut().find(|(k, _)| k.identity() == identity) {
                        slot.1 = value;
                    } else {
                        pairs.push((key, value));
                    }
                }
            }
        }
        if let Some(merge_idx) = merge_node {
            self.merge(idx, merge_idx, target, merged)?;
        }
        Ok(())
    }

    /// yaml.v3 `d.merge`: a mapping, an alias to one, or a sequence of those.
    fn merge(
        &mut self,
        parent: usize,
        merge_idx: usize,
        target: &mut Target<'_>,
        merged: Option<&mut HashSet<String>>,
    ) -> Result<(), Fatal> {
        let mut own = HashSet::new();
        let set = match merged {
            Some(set) => set,
            None => {
                // The parent's own keys take precedence over merged ones.
                let nodes = self.nodes;
                if let Kind::Mapping(items) = &nodes[parent].kind {
                    for pair in items.chunks(2) {
                        let identity = match target {
                            Target::Str(_) => self.string_key(pair[0])?,
                            Target::Any(_) => Some(self.value(pair[0])?.identity()),
                        };
                        if let Some(identity) = identity {
                            own.insert(identity);
                        }
                    }
                }
                &mut own
            }
        };
        const WANT_MAP: &str = "map merge requires map or sequence of maps as the value";
        let is_map_or_alias_to_map = |d: &Self, i: usize| match &d.nodes[i].kind {
            Kind::Mapping(_) => true,
            Kind::Alias { target, .. } => matches!(d.nodes[*target].kind, Kind::Mapping(_)),
            _ => false,
        };
        let nodes = self.nodes;
        match &nodes[merge_idx].kind {
            Kind::Mapping(_) | Kind::Alias { .. } => {
                if !is_map_or_alias_to_map(self, merge_idx) {
                    return Err(WANT_MAP.to_owned());
                }
                self.merge_source(merge_idx, target, set)?;
            }
            Kind::Sequence(items) => {
                for &item in items {
                    if !is_map_or_alias_to_map(self, item) {
                        return Err(WANT_MAP.to_owned());
                    }
                    self.merge_source(item, target, set)?;
                }
            }
            Kind::Scalar { .. } => return Err(WANT_MAP.to_owned()),
        }
        Ok(())
    }

    fn merge_source(
        &mut self,
        idx: usize,
        target: &mut Target<'_>,
        set: &mut HashSet<String>,
    ) -> Result<(), Fatal> {
        self.count()?;
        if matches!(self.nodes[idx].kind, Kind::Alias { .. }) {
            return self.with_alias(idx, |d, t| d.merge_source_node(t, target, set));
        }
        self.merge_source_node(idx, target, set)
    }

    fn merge_source_node(
        &mut self,
        idx: usize,
        target: &mut Target<'_>,
        set: &mut HashSet<String>,
    ) -> Result<(), Fatal> {
        self.enter()?;
        let result = self.mapping(idx, target, Some(set));
        self.depth -= 1;
        result
    }
}

/// A scalar node decoded into `interface{}` (`d.scalar`).
fn scalar_value(node: &Node, value: &str) -> Result<GoValue, Fatal> {
    if node.tag == STR_TAG {
        return Ok(GoValue::Str(value.to_owned()));
    }
    let (tag, resolved) = resolve::resolve_tagged(&node.tag, value)?;
    if tag == resolve::BINARY_TAG {
        // Go's StdEncoding ignores line breaks inside the data.
        let compact: String = value.chars().filter(|c| !matches!(c, '\r' | '\n')).collect();
        let data = base64::engine::general_purpose::STANDARD
            .decode(compact.as_bytes())
            .map_err(|_| "!!binary value contains invalid base64 data".to_owned())?;
        return Ok(GoValue::Str(certgate_gofmt::lossy_utf8(&data)));
    }
    Ok(match resolved {
        Scalar::Null => GoValue::Null,
        Scalar::Bool(b) => GoValue::Bool(b),
        Scalar::Int(i) => GoValue::Int(i),
        Scalar::Uint(u) => GoValue::Uint(u),
        Scalar::Float(f) => GoValue::Float(f),
        Scalar::Str(s) => GoValue::Str(s),
        Scalar::Time(t) => GoValue::Time(t),
        Scalar::Merge => GoValue::Str("<<".to_owned()),
    })
}

/// `json.Marshal` of the decoded value, as a `serde_json::Value`.
fn to_json(value: GoValue) -> Result<Value, String> {
    Ok(match value {
        GoValue::Null => Value::Null,
        GoValue::Bool(b) => Value::Bool(b),
        GoValue::Int(i) => Value::Number(i.into()),
        GoValue::Uint(u) => Value::Number(u.into()),
        GoValue::Float(f) => Value::Number(json_float(f)?),
        GoValue::Str(s) => Value::String(s),
        GoValue::Time(t) => Value::String(t.rfc3339_nano()),
        GoValue::Seq(items) => {
            Value::Array(items.into_iter().map(to_json).collect::<Result<_, _>>()?)
        }
        GoValue::StrMap(map) => {
            let mut out = serde_json::Map::new();
            for (k, v) in map {
                out.insert(k, to_json(v)?);
            }
            Value::Object(out)
        }
        GoValue::AnyMap(_) => {
            return Err("json: unsupported type: map[interface {}]interface {}".to_owned());
        }
    })
}

/// A float64 as the JSON number Go writes: integral values print without a fraction, so
/// they read back as integers; NaN and infinities are errors.
pub(crate) fn json_float(f: f64) -> Result<Number, String> {
    if f.is_nan() {
        return Err("json: unsupported value: NaN".to_owned());
    }
    if f.is_infinite() {
        let sign = if f > 0.0 { "+Inf" } else { "-Inf" };
        return Err(format!("json: unsupported value: {sign}"));
    }
    // Go writes floats below 1e21 in plain notation with the *shortest* digits that round-trip
    // (2^63 as 9223372036854776000, not ...808), like Rust's `Display`; the text is read back
    // as an integer when it fits one, else as a float.
    if f.fract() == 0.0 && !(f == 0.0 && f.is_sign_negative()) && f.abs() < 1e21 {
        let text = format!("{f}");
        if let Ok(i) = text.parse::<i64>() {
            return Ok(Number::from(i));
        }
        if let Ok(u) = text.parse::<u64>() {
            return Ok(Number::from(u));
        }
    }
    Number::from_f64(f).ok_or_else(|| "json: unsupported value".to_owned())
}

/// Entry point behind [`crate::from_yaml`]: libyaml's node tree of the first document,
/// then yaml.v3's decoder, then `json.Marshal`'s checks.
pub fn decode(text: &str) -> Result<Value, YamlError> {
    if text.len() > MAX_INPUT_BYTES {
        return Err(YamlError(format!(
            "yaml: input too large ({} bytes, limit {MAX_INPUT_BYTES})",
            text.len()
        )));
    }
    let composed = compose(text)?;
    let Some(root) = composed.root else {
        return Ok(Value::Null);
    };
    let mut decoder = Decoder {
        nodes: &composed.nodes,
        // The document node itself is the first decode operation in yaml.v3.
        decode_count: 1,
        alias_count: 0,
        alias_depth: 0,
        active_aliases: HashSet::new(),
        type_errors: Vec::new(),
        depth: 0,
    };
    let value = decoder.value(root).map_err(|e| YamlError(format!("yaml: {e}")))?;
    if !decoder.type_errors.is_empty() {
        return Err(YamlError(format!(
            "yaml: unmarshal errors:\n  {}",
            decoder.type_errors.join("\n  ")
        )));
    }
    to_json(value).map_err(YamlError)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_tag_is_error_free_string() {
        assert_eq!(decode("!foo bar").ok(), Some(Value::String("bar".into())));
    }
}
