//! An immutable snapshot of the xDS resources certgate serves: per resource type, the resources
//! by name (each already packed as a protobuf `Any`) and one version string.
//!
//! **Versions are content hashes**, not counters (ADR 0012): each resource's version is a
//! SHA-256 over its type URL and encoded bytes (delta xDS names resources by it), and a type's
//! version a SHA-256 over its resources' names and versions, in name order. So the version changes
//! exactly when that type's content changes (a rebuild that produces the same clusters keeps the
//! CDS version, and no Envoy is pushed anything), and it is the same in every certgate replica
//! and after a restart, which is what makes the resume rule of [`crate::ads`] safe: an Envoy
//! reconnecting to another replica with version `v` really holds what that replica calls `v`.
//! A counter would make two replicas' "7" mean different things.
//!
//! Equal content must also encode to equal bytes for the version to stay put. prost writes
//! fields in tag order, but protobuf `map` fields are `HashMap`s in envoy-types, whose order
//! varies; a producer that fills maps may see the version change for unchanged content. That
//! only costs a resend (different bytes never hash alike, so no change is ever missed).

use std::collections::BTreeMap;
use std::fmt;

use envoy_types::pb::google::protobuf::Any;
use thiserror::Error;

/// The resource types certgate serves, in the order a snapshot change pushes them on an ADS
/// stream: clusters before their endpoints, both before the listeners that route to them, and
/// listeners before their route configurations (the xDS protocol's make-before-break order).
/// Secrets go right after endpoints: an updated CA or CRL then reaches Envoy before a listener
/// change that relies on it; a new secret name is only requested once a listener names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TypeUrl {
    Cluster,
    ClusterLoadAssignment,
    Secret,
    Listener,
    RouteConfiguration,
}

impl TypeUrl {
    /// Every type, in push order.
    pub const ALL: [TypeUrl; 5] = [
        TypeUrl::Cluster,
        TypeUrl::ClusterLoadAssignment,
        TypeUrl::Secret,
        TypeUrl::Listener,
        TypeUrl::RouteConfiguration,
    ];

    /// The type URL on the wire (`DiscoveryRequest.type_url`, `Any.type_url`).
    pub const fn as_str(self) -> &'static str {
        match self {
            TypeUrl::Cluster => "type.googleapis.com/envoy.config.cluster.v3.Cluster",
            TypeUrl::ClusterLoadAssignment => {
                "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment"
            }
            TypeUrl::Secret => {
                "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret"
            }
            TypeUrl::Listener => "type.googleapis.com/envoy.config.listener.v3.Listener",
            TypeUrl::RouteConfiguration => {
                "type.googleapis.com/envoy.config.route.v3.RouteConfiguration"
            }
        }
    }

    /// The xDS service name used in logs and documentation (`CDS`, `EDS`, …).
    pub const fn short_name(self) -> &'static str {
        match self {
            TypeUrl::Cluster => "CDS",
            TypeUrl::ClusterLoadAssignment => "EDS",
            TypeUrl::Secret => "SDS",
            TypeUrl::Listener => "LDS",
            TypeUrl::RouteConfiguration => "RDS",
        }
    }

    /// The type named by a wire type URL; `None` for any type certgate does not serve.
    pub fn parse(type_url: &str) -> Option<TypeUrl> {
        TypeUrl::ALL.into_iter().find(|t| t.as_str() == type_url)
    }

    /// Whether an empty subscription (or `*`) means "every resource of the type". The xDS
    /// protocol gives that meaning to LDS and CDS only; RDS, EDS and SDS are always asked for
    /// by name.
    pub const fn supports_wildcard(self) -> bool {
        matches!(self, TypeUrl::Listener | TypeUrl::Cluster)
    }

    const fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for TypeUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a snapshot could not be built. These are programming errors of the producer (the
/// controller's translation), reported rather than served.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum SnapshotError {
    #[error("resource \"{name}\" is packed as {found}, but was added as {expected}")]
    TypeMismatch { name: String, expected: TypeUrl, found: String },
    #[error("{type_url} resource \"{name}\" is added twice")]
    Duplicate { type_url: TypeUrl, name: String },
    #[error("a {type_url} resource has an empty name")]
    EmptyName { type_url: TypeUrl },
    #[error("{type_url} is not a resource type certgate serves")]
    UnknownType { type_url: String },
}

/// The resources of one type and their version.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeResources {
    version: String,
    resources: BTreeMap<String, Any>,
    resource_versions: BTreeMap<String, String>,
}

impl TypeResources {
    /// The content hash of this type's resources (see the module documentation).
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The resources by name, in name order.
    pub fn resources(&self) -> &BTreeMap<String, Any> {
        &self.resources
    }

    /// The content hash of one resource; `None` when there is no resource of that name.
    pub fn resource_version(&self, name: &str) -> Option<&str> {
        self.resource_versions.get(name).map(String::as_str)
    }
}

/// Every resource certgate serves at one moment. Immutable once built: the cache hands the
/// same `Arc<Snapshot>` to every stream.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    types: [TypeResources; 5],
}

impl Snapshot {
    pub fn builder() -> SnapshotBuilder {
        SnapshotBuilder::default()
    }

    /// A snapshot without resources: every type has the version of empty content.
    pub fn empty() -> Snapshot {
        SnapshotBuilder::default().build()
    }

    pub fn of(&self, type_url: TypeUrl) -> &TypeResources {
        &self.types[type_url.index()]
    }

    pub fn version(&self, type_url: TypeUrl) -> &str {
        self.of(type_url).version()
    }

    pub fn resources(&self, type_url: TypeUrl) -> &BTreeMap<String, Any> {
        self.of(type_url).resources()
    }

    pub fn resource_version(&self, type_url: TypeUrl, name: &str) -> Option<&str> {
        self.of(type_url).resource_version(name)
    }
}

/// Collects resources, checks them, and hashes each type once at [`SnapshotBuilder::build`].
#[derive(Debug, Default)]
pub struct SnapshotBuilder {
    types: [BTreeMap<String, Any>; 5],
}

impl SnapshotBuilder {
    /// Adds a resource already packed as an `Any`, whose `type_url` must be `type_url`'s
    /// (a Cluster packed into the listeners would otherwise reach Envoy as a listener).
    pub fn add(
        &mut self,
        type_url: TypeUrl,
        name: impl Into<String>,
        resource: Any,
    ) -> Result<&mut Self, SnapshotError> {
        let name = name.into();
        if name.is_empty() {
            return Err(SnapshotError::EmptyName { type_url });
        }
        if resource.type_url != type_url.as_str() {
            return Err(SnapshotError::TypeMismatch {
                name,
                expected: type_url,
                found: resource.type_url,
            });
        }
        let resources = &mut self.types[type_url.index()];
        if resources.contains_key(&name) {
            return Err(SnapshotError::Duplicate { type_url, name });
        }
        resources.insert(name, resource);
        Ok(self)
    }

    /// Encodes a typed Envoy message (a `Cluster`, a `Secret`, …) and adds it under `name`;
    /// the resource type follows from the message's own type URL.
    pub fn add_message<M>(
        &mut self,
        name: impl Into<String>,
        message: &M,
    ) -> Result<&mut Self, SnapshotError>
    where
        M: prost::Message + prost::Name,
    {
        let type_url = M::type_url();
        let Some(resource_type) = TypeUrl::parse(&type_url) else {
            return Err(SnapshotError::UnknownType { type_url });
        };
        let any = Any { type_url, value: message.encode_to_vec() };
        self.add(resource_type, name, any)
    }

    pub fn build(self) -> Snapshot {
        let types = self.types.map(|resources| {
            let resource_versions: BTreeMap<String, String> = resources
                .iter()
                .map(|(name, any)| (name.clone(), hash_hex(&[any.type_url.as_bytes(), &any.value])))
                .collect();
            let version = type_version(&resource_versions);
            TypeResources { version, resources, resource_versions }
        });
        Snapshot { types }
    }
}

/// The version of a type: a hash over every (name, resource version) in name order (the map's
/// order), so it changes exactly when a resource is added, removed, renamed or changed.
fn type_version(resource_versions: &BTreeMap<String, String>) -> String {
    let parts: Vec<&[u8]> = resource_versions
        .iter()
        .flat_map(|(name, version)| [name.as_bytes(), version.as_bytes()])
        .collect();
    hash_hex(&parts)
}

/// The first 128 bits of a SHA-256 over `parts`, each length-prefixed so that no two different
/// sequences feed the hash the same bytes, as 32 hex digits.
fn hash_hex(parts: &[&[u8]]) -> String {
    let mut hash = ring::digest::Context::new(&ring::digest::SHA256);
    for part in parts {
        hash.update(&(part.len() as u64).to_be_bytes());
        hash.update(part);
    }
    let digest = hash.finish();
    let mut hex = String::with_capacity(32);
    for byte in &digest.as_ref()[..16] {
        hex.push_str(&format!("{byte:02x}"));
    }
    hex
}

#[cfg(test)]
mod tests {
    use envoy_types::pb::envoy::config::cluster::v3::Cluster;
    use envoy_types::pb::envoy::config::endpoint::v3::ClusterLoadAssignment;
    use envoy_types::pb::envoy::config::listener::v3::Listener;
    use envoy_types::pb::envoy::config::route::v3::RouteConfiguration;
    use envoy_types::pb::envoy::extensions::transport_sockets::tls::v3::Secret;
    use prost::Name;

    use super::*;

    #[test]
    fn type_urls_are_the_generated_messages_own() {
        assert_eq!(TypeUrl::Listener.as_str(), Listener::type_url());
        assert_eq!(TypeUrl::RouteConfiguration.as_str(), RouteConfiguration::type_url());
        assert_eq!(TypeUrl::Cluster.as_str(), Cluster::type_url());
        assert_eq!(TypeUrl::ClusterLoadAssignment.as_str(), ClusterLoadAssignment::type_url());
        assert_eq!(TypeUrl::Secret.as_str(), Secret::type_url());
        for t in TypeUrl::ALL {
            assert_eq!(TypeUrl::parse(t.as_str()), Some(t));
        }
        assert_eq!(TypeUrl::parse("type.googleapis.com/envoy.config.core.v3.Node"), None);
        assert_eq!(TypeUrl::parse(""), None);
    }

    fn cluster(name: &str, timeout_seconds: i64) -> Cluster {
        Cluster {
            name: name.to_owned(),
            connect_timeout: Some(envoy_types::pb::google::protobuf::Duration {
                seconds: timeout_seconds,
                nanos: 0,
            }),
            ..Cluster::default()
        }
    }

    #[test]
    fn a_type_version_changes_only_with_that_type() {
        let mut one = Snapshot::builder();
        one.add_message("a", &cluster("a", 1)).unwrap();
        one.add_message("l", &Listener { name: "l".into(), ..Listener::default() }).unwrap();
        let one = one.build();

        let mut same = Snapshot::builder();
        same.add_message("l", &Listener { name: "l".into(), ..Listener::default() }).unwrap();
        same.add_message("a", &cluster("a", 1)).unwrap();
        assert_eq!(same.build(), one, "insertion order does not matter");

        let mut two = Snapshot::builder();
        two.add_message("a", &cluster("a", 2)).unwrap();
        two.add_message("l", &Listener { name: "l".into(), ..Listener::default() }).unwrap();
        let two = two.build();
        assert_ne!(two.version(TypeUrl::Cluster), one.version(TypeUrl::Cluster));
        assert_ne!(
            two.resource_version(TypeUrl::Cluster, "a"),
            one.resource_version(TypeUrl::Cluster, "a")
        );
        assert_eq!(
            two.resource_version(TypeUrl::Listener, "l"),
            one.resource_version(TypeUrl::Listener, "l")
        );
        assert_eq!(one.resource_version(TypeUrl::Listener, "missing"), None);
        assert_eq!(two.version(TypeUrl::Listener), one.version(TypeUrl::Listener));
        assert_eq!(two.version(TypeUrl::Secret), one.version(TypeUrl::Secret));
        assert_eq!(one.version(TypeUrl::Cluster).len(), 32);
    }

    #[test]
    fn renaming_a_resource_changes_the_version() {
        let build = |name: &str| {
            let mut b = Snapshot::builder();
            b.add_message(name, &cluster("x", 1)).unwrap();
            b.build()
        };
        assert_ne!(build("a").version(TypeUrl::Cluster), build("b").version(TypeUrl::Cluster));
        assert_ne!(
            build("a").version(TypeUrl::Cluster),
            Snapshot::empty().version(TypeUrl::Cluster)
        );
    }

    #[test]
    fn mistakes_of_the_producer_are_errors() {
        let mut b = Snapshot::builder();
        let any = Any { type_url: Cluster::type_url(), value: Vec::new() };
        assert!(matches!(
            b.add(TypeUrl::Listener, "a", any.clone()),
            Err(SnapshotError::TypeMismatch { .. })
        ));
        assert_eq!(
            b.add(TypeUrl::Cluster, "", any.clone()).err(),
            Some(SnapshotError::EmptyName { type_url: TypeUrl::Cluster })
        );
        b.add(TypeUrl::Cluster, "a", any.clone()).unwrap();
        assert_eq!(
            b.add(TypeUrl::Cluster, "a", any).err(),
            Some(SnapshotError::Duplicate { type_url: TypeUrl::Cluster, name: "a".into() })
        );
        let node = envoy_types::pb::envoy::config::core::v3::Node::default();
        assert!(matches!(b.add_message("n", &node), Err(SnapshotError::UnknownType { .. })));
    }
}
