//! From a policy template's raw JSON to its resolved JSON, as go-template-utils'
//! `ResolveTemplate` does it for the propagator (§7.2 of the spec): JSON → YAML, typed-value
//! and autoindent rewrites, parse, execute with the hub context, YAML → JSON.

mod context;
mod errors;
mod preprocess;
mod resolver;

pub use context::{HubContext, PolicyMetadata};
pub use errors::{ResolveError, ResolveErrorKind, template_position};
pub use preprocess::Preprocessor;
pub use resolver::{HubResolver, ResolveRequest, Resolved, ResolverConfig};
