//! The Envoy v3 downstream TLS context Contour generates for a secure virtual host (spec §5).
//!
//! The messages are the typed Envoy API of `envoy-types`; the proto3 JSON writer is ours,
//! because prost has none (see docs/decisions/0008-envoy-types.md).

mod names;
mod proto_json;
mod render;
mod translate;
pub mod types;

pub use names::{hashname, secret_name};
pub use render::{to_json, to_yaml};
pub use translate::{
    DEFAULT_ALPN_PROTOCOLS, DEFAULT_CIPHER_SUITES, TranslateOptions, downstream_tls_context,
};
