//! Bounded decoding of patch bodies.

use serde_json::Value;

use crate::PatchError;

/// The API server's default request body limit (`MaxRequestBodyBytes`, 3 MiB).
pub const MAX_BODY_BYTES: usize = 3 * 1024 * 1024;

/// Deepest nesting of objects and arrays accepted in a patch body.
pub const MAX_DEPTH: usize = 100;

/// Rejects bodies over [`MAX_BODY_BYTES`] before any parsing work is done.
pub(crate) fn check_size(body: &[u8]) -> Result<(), PatchError> {
    if body.len() > MAX_BODY_BYTES {
        return Err(PatchError::BodyTooLarge { limit: MAX_BODY_BYTES });
    }
    Ok(())
}

/// Decodes a JSON body. serde_json stops at 128 levels on its own; [`check_depth`]
/// then applies the tighter limit so every later recursion is bounded.
pub(crate) fn decode_json(body: &[u8]) -> Result<Value, PatchError> {
    check_size(body)?;
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| PatchError::BadRequest(format!("error decoding patch: {e}")))?;
    check_depth(&value)?;
    Ok(value)
}

/// Decodes a server-side apply body: YAML, of which JSON is a subset. The YAML budget
/// caps depth, aliases and node counts so anchors cannot blow up memory.
pub(crate) fn decode_yaml(body: &[u8]) -> Result<Value, PatchError> {
    check_size(body)?;
    let mut budget = serde_saphyr::Budget::default();
    budget.max_depth = MAX_DEPTH;
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    let value: Value = serde_saphyr::from_slice_with_options(body, options)
        .map_err(|e| PatchError::BadRequest(format!("error decoding YAML: {e}")))?;
    check_depth(&value)?;
    Ok(value)
}

/// Iterative depth check (no recursion, so it cannot itself overflow the stack).
pub(crate) fn check_depth(value: &Value) -> Result<(), PatchError> {
    let mut stack = vec![(value, 1usize)];
    while let Some((node, depth)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match node {
            Value::Object(map) => Box::new(map.values()),
            Value::Array(items) => Box::new(items.iter()),
            _ => continue,
        };
        if depth > MAX_DEPTH {
            return Err(PatchError::TooDeep { max: MAX_DEPTH });
        }
        stack.extend(children.map(|child| (child, depth + 1)));
    }
    Ok(())
}

/// The length of `value` as compact JSON, counting no further than `limit + 1` bytes: a
/// result above `limit` means "over the limit" without the cost of measuring all of it, and
/// nothing is allocated whatever the size.
pub fn encoded_len_up_to(value: &Value, limit: usize) -> usize {
    let mut counter = Counter { count: 0, stop: limit.saturating_add(1) };
    // The only error is the counter refusing more bytes, i.e. the value is over the limit.
    match serde_json::to_writer(&mut counter, value) {
        Ok(()) => counter.count,
        Err(_) => counter.stop,
    }
}

/// A writer that only counts, and fails once it has seen `stop` bytes.
struct Counter {
    count: usize,
    stop: usize,
}

impl std::io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.count = self.count.saturating_add(buf.len());
        if self.count >= self.stop {
            return Err(std::io::Error::other("over the limit"));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Upstream decodes strategic merge and apply bodies into a Go map; this is the error
/// text Go's JSON decoder gives when the body is some other JSON type.
pub(crate) fn not_an_object(value: &Value) -> PatchError {
    let found = match value {
        Value::Array(_) => "array",
        Value::String(_) => "string",
        Value::Number(_) => "number",
        Value::Bool(_) => "bool",
        Value::Null | Value::Object(_) => "object",
    };
    PatchError::BadRequest(format!(
        "json: cannot unmarshal {found} into Go value of type map[string]interface {{}}"
    ))
}
