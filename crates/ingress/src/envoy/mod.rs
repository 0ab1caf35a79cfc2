//! The Envoy v3 downstream TLS context Contour generates for a secure virtual host (spec §5),
//! and the listeners, routes, clusters, endpoints and secrets of a processed snapshot.
//!
//! The messages are the typed Envoy API of `envoy-types`; the proto3 JSON writer is ours,
//! because prost has none (see docs/decisions/0008-envoy-types.md).

mod cluster;
mod endpoint;
mod listener;
mod names;
mod proto_json;
mod render;
mod resources;
mod route_config;
mod sds;
mod translate;
pub mod types;
pub mod xds_types;

pub use cluster::{eds_cluster, name_of as cluster_name_of};
pub use endpoint::{load_assignment, socket_address as load_assignment_socket};
pub use listener::{HTTPS_LISTENER, ListenerOptions};
pub use names::{
    alt_stat_name, cluster_name, hashname, load_assignment_name, secret_name,
    validation_secret_name,
};
pub use render::{to_json, to_yaml};
pub use resources::{EnvoyResources, ResourceOptions, XdsResource, build_resources};
pub use route_config::{HTTP_ROUTE_CONFIG, https_route_config_name};
pub use sds::{serving_secret, validation_secret};
pub use translate::{
    DEFAULT_ALPN_PROTOCOLS, DEFAULT_CIPHER_SUITES, TranslateOptions, ValidationDelivery,
    downstream_tls_context,
};
