//! Kubernetes reads of hub templates: the [`ObjectReader`] seam, access modes, the lookup
//! routine with upstream's check order, and the identities of the reads made.

mod identifier;
mod labels;
mod lookup;
mod memory;
mod mode;
mod reader;
mod selector;

pub use identifier::{ObjectIdentifier, ReadSet};
pub use lookup::{DEFAULT_MAX_LIST_ITEMS, ErrorClass, Found, LookupError, Query, lookup};
pub(crate) use memory::split_api_version;
pub use memory::{InMemoryObjects, InvalidObject};
pub use mode::{Access, AllowedClusterScoped};
pub use reader::{ObjectReader, ReadError, ResourceInfo, RetryReason, STANDARD_VERBS};
pub use selector::{LabelSelector, Operator, Requirement, SelectorError};
