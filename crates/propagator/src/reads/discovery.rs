//! Discovery for template reads, synchronously: the template engine asks "which resource
//! serves this kind?" from inside template execution, which runs on a blocking thread.
//! Answers are kept for 10 minutes, as upstream caches its GVK → GVR mappings; a group
//! version the server does not serve is asked again next time (it may be being installed).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use certgate_templates::access::ResourceInfo;
use tokio::runtime::Handle;

const TTL: Duration = Duration::from_secs(600);

pub struct Discovery {
    client: kube::Client,
    handle: Handle,
    cache: Mutex<HashMap<String, (Instant, Vec<ResourceInfo>)>>,
}

impl Discovery {
    pub fn new(client: kube::Client, handle: Handle) -> Self {
        Discovery { client, handle, cache: Mutex::new(HashMap::new()) }
    }

    /// The resource serving `kind` in `api_version`. Must not be called from an async task.
    pub fn resource(&self, api_version: &str, kind: &str) -> Option<ResourceInfo> {
        let cached = {
            let cache = self.cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            cache
                .get(api_version)
                .filter(|(at, _)| at.elapsed() < TTL)
                .map(|(_, resources)| resources.clone())
        };
        let resources = match cached {
            Some(resources) => resources,
            None => {
                let resources = self.handle.block_on(self.fetch(api_version))?;
                let mut cache =
                    self.cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                cache.insert(api_version.to_owned(), (Instant::now(), resources.clone()));
                resources
            }
        };
        resources.into_iter().find(|r| r.kind == kind)
    }

    async fn fetch(&self, api_version: &str) -> Option<Vec<ResourceInfo>> {
        let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
        let list = if group.is_empty() {
            self.client.list_core_api_resources(version).await
        } else {
            self.client.list_api_group_resources(api_version).await
        };
        let list = match list {
            Ok(list) => list,
            Err(error) => {
                tracing::debug!(api_version, error = %error, "discovery failed");
                return None;
            }
        };
        Some(
            list.resources
                .iter()
                .filter(|r| !r.name.contains('/'))
                .map(|r| ResourceInfo {
                    group: group.to_owned(),
                    version: version.to_owned(),
                    kind: r.kind.clone(),
                    plural: r.name.clone(),
                    namespaced: r.namespaced,
                    verbs: r.verbs.clone(),
                })
                .collect(),
        )
    }
}
