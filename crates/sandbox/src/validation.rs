use crate::resources::ResourceType;
use crate::status::ApiError;
use serde_json::Value;
#[derive(Default)]
pub struct Schemas;
impl Schemas {
    pub fn validate(&self, _resource: &ResourceType, _object: &mut Value) -> Result<(), ApiError> {
        Ok(())
    }
}
