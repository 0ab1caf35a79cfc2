//! Values of object (message) types declared by an environment, such as the `cr`
//! variable of the approver-policy environment.

use std::sync::Arc;

use super::Value;

/// An immutable object: a declared type name and its set fields, in declaration order.
///
/// Fields that are not set are absent: `has(obj.field)` is false for them and selecting
/// them yields the field type's zero value, which the evaluator supplies from the
/// declaration.
#[derive(Clone, Debug)]
pub struct ObjectValue(Arc<Object>);

#[derive(Debug)]
struct Object {
    type_name: Arc<str>,
    fields: Vec<(Arc<str>, Value)>,
}

impl ObjectValue {
    pub fn new(type_name: impl Into<Arc<str>>, fields: Vec<(Arc<str>, Value)>) -> Self {
        Self(Arc::new(Object { type_name: type_name.into(), fields }))
    }

    pub fn type_name(&self) -> &str {
        &self.0.type_name
    }

    /// The value of a set field.
    pub fn field(&self, name: &str) -> Option<&Value> {
        self.0.fields.iter().find(|(n, _)| &**n == name).map(|(_, v)| v)
    }

    pub fn fields(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.0.fields.iter().map(|(n, v)| (&**n, v))
    }
}

impl PartialEq for ObjectValue {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
            || (self.0.type_name == other.0.type_name
                && self.0.fields.len() == other.0.fields.len()
                && self.0.fields.iter().all(|(n, v)| other.field(n) == Some(v)))
    }
}
