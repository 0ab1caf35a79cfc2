//! [`KindResolver`] through API discovery, with the caching rules of cert-manager's
//! approval check: found kinds and kinds missing from an existing group are cached, a
//! missing group is not.

use std::num::NonZeroUsize;
use std::sync::Arc;
use std::time::Duration;

use certgate_rbac::{DiscoveryError, KindResolver, ResolveFuture, ResolvedKind};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::APIResourceList;

use crate::api_error::describe;
use crate::ttl_cache::TtlCache;
use certgate_clock::{Clock, SystemClock};

/// How long a found kind is reused by default. Upstream keeps it for the life of the
/// process; a bound lets a CRD that is deleted and recreated with another scope or plural
/// be picked up without a restart.
pub const DEFAULT_FOUND_TTL: Duration = Duration::from_secs(5 * 60);

/// How long "the group exists but serves no such kind" is reused (upstream's 30 s).
pub const DEFAULT_NOT_FOUND_TTL: Duration = Duration::from_secs(30);

/// How many group/kind answers are remembered by default.
pub const DEFAULT_DISCOVERY_CACHE_ENTRIES: NonZeroUsize = NonZeroUsize::new(1_024).unwrap();

/// Resolves an issuer group/kind to its resource plural and scope.
///
/// Discovery lists the server's groups (`/apis`; `/api` for the core group `""`), then
/// the resources of each of the group's versions in the order the server lists them, and
/// takes the first top-level resource (not a subresource such as `issuers/status`) whose
/// kind matches exactly.
pub struct DiscoveryKindResolver {
    client: kube::Client,
    found_ttl: Duration,
    not_found_ttl: Duration,
    cache: TtlCache<(String, String), Option<ResolvedKind>>,
}

impl DiscoveryKindResolver {
    pub fn new(client: kube::Client) -> Self {
        DiscoveryKindResolver {
            client,
            found_ttl: DEFAULT_FOUND_TTL,
            not_found_ttl: DEFAULT_NOT_FOUND_TTL,
            cache: TtlCache::new(DEFAULT_DISCOVERY_CACHE_ENTRIES, Arc::new(SystemClock)),
        }
    }

    /// Changes how long found kinds and kinds missing from an existing group are reused
    /// (zero disables that cache).
    pub fn with_ttls(mut self, found: Duration, not_found: Duration) -> Self {
        self.found_ttl = found;
        self.not_found_ttl = not_found;
        self
    }

    /// Replaces the cache with an empty one of at most `entries` answers read against
    /// `clock`; least recently used answers are evicted first.
    pub fn with_cache(mut self, entries: NonZeroUsize, clock: Arc<dyn Clock>) -> Self {
        self.cache = TtlCache::new(entries, clock);
        self
    }

    /// The group's versions as discovery paths, or `None` when the server lacks the group.
    async fn group_versions(&self, group: &str) -> Result<Option<Vec<Source>>, Failure> {
        if group.is_empty() {
            let core = self
                .client
                .list_core_api_versions()
                .await
                .map_err(|err| Failure::ListGroups { path: "/api", cause: describe(&err) })?;
            return Ok(Some(core.versions.into_iter().map(Source::Core).collect()));
        }
        let groups = self
            .client
            .list_api_groups()
            .await
            .map_err(|err| Failure::ListGroups { path: "/apis", cause: describe(&err) })?;
        Ok(groups
            .groups
            .into_iter()
            .find(|g| g.name == group)
            .map(|g| g.versions.into_iter().map(|v| Source::Group(v.group_version)).collect()))
    }

    async fn resources(&self, source: &Source) -> Result<APIResourceList, Failure> {
        let listed = match source {
            Source::Core(version) => self.client.list_core_api_resources(version).await,
            Source::Group(group_version) => {
                self.client.list_api_group_resources(group_version).await
            }
        };
        listed.map_err(|err| Failure::ListResources { path: source.path(), cause: describe(&err) })
    }

    async fn discover(&self, group: &str, kind: &str) -> Result<Lookup, Failure> {
        let Some(sources) = self.group_versions(group).await? else {
            return Ok(Lookup::NoGroup);
        };
        for source in &sources {
            let list = self.resources(source).await?;
            let found = list
                .resources
                .into_iter()
                .find(|r| r.kind == kind && !r.name.contains('/'))
                .map(|r| ResolvedKind { plural: r.name, namespaced: r.namespaced });
            if let Some(found) = found {
                return Ok(Lookup::Found(found));
            }
        }
        Ok(Lookup::NoKind)
    }
}

impl KindResolver for DiscoveryKindResolver {
    fn resolve<'a>(&'a self, group: &'a str, kind: &'a str) -> ResolveFuture<'a> {
        Box::pin(self.resolve_cached(group, kind))
    }
}

impl DiscoveryKindResolver {
    /// The cached answer, or discovery's (cached by the rules above).
    async fn resolve_cached(
        &self,
        group: &str,
        kind: &str,
    ) -> Result<Option<ResolvedKind>, DiscoveryError> {
        let key = (group.to_owned(), kind.to_owned());
        if let Some(answer) = self.cache.get(&key) {
            return Ok(answer);
        }
        let lookup = self.discover(group, kind).await.map_err(|err| DiscoveryError {
            message: format!("resolving kind {kind:?} in API group {group:?}: {err}"),
        })?;
        Ok(match lookup {
            Lookup::Found(found) => {
                self.cache.insert(key, Some(found.clone()), self.found_ttl);
                Some(found)
            }
            Lookup::NoKind => {
                self.cache.insert(key, None, self.not_found_ttl);
                None
            }
            // Not cached: a group whose CRD was just created must resolve on the next request.
            Lookup::NoGroup => None,
        })
    }
}

enum Lookup {
    Found(ResolvedKind),
    NoKind,
    NoGroup,
}

/// Where one version's resources are listed: the core group lives under `/api`.
enum Source {
    Core(String),
    Group(String),
}

impl Source {
    fn path(&self) -> String {
        match self {
            Source::Core(version) => format!("/api/{version}"),
            Source::Group(group_version) => format!("/apis/{group_version}"),
        }
    }
}

#[derive(Debug, thiserror::Error)]
enum Failure {
    #[error(
        "API discovery failed listing API groups (GET {path}): {cause}; denying. Check that the \
         API server is reachable and that certgate may read discovery"
    )]
    ListGroups { path: &'static str, cause: String },
    #[error(
        "API discovery failed listing resources (GET {path}): {cause}; denying. Check that the \
         API server and any aggregated API serving this group are available"
    )]
    ListResources { path: String, cause: String },
}
