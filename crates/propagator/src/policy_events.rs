//! Which reconciles a Policy watch event concerns.
//!
//! A root's event re-queues the root. A replica's event re-queues the replica, unless it is
//! the controller's own last write coming back; and it re-queues the root only when the
//! root's status can change: the replica appeared, went, or its compliance changed. (A root
//! reconcile reads every replica of the root; re-running it for each of 1,000 replica
//! updates after one hub template edit was most of that edit's latency.)

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::own_writes::Written;
use crate::reads::ReplicaKey;
use crate::stored::StoredPolicy;

/// How the watch delivered the object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seen {
    /// Created or changed.
    Applied,
    /// Listed again after the watch restarted: what changed meanwhile is unknown.
    Listed,
    Deleted,
}

/// The reconciles to queue for one event.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Concerned {
    pub replica: Option<ReplicaKey>,
    pub root: Option<(String, String)>,
}

pub struct PolicyEvents {
    written: Arc<Written>,
    /// The last compliance seen of each replica.
    compliance: Mutex<HashMap<ReplicaKey, Option<String>>>,
}

impl PolicyEvents {
    pub fn new(written: Arc<Written>) -> Self {
        PolicyEvents { written, compliance: Mutex::default() }
    }

    pub fn concern(&self, policy: &StoredPolicy, seen: Seen) -> Concerned {
        let metadata = policy.metadata();
        let (Some(namespace), Some(name)) = (&metadata.namespace, &metadata.name) else {
            return Concerned::default();
        };
        let Some(replica) = policy.as_replica() else {
            return Concerned { replica: None, root: Some((namespace.clone(), name.clone())) };
        };
        let key = (namespace.clone(), name.clone());
        let compliance = replica.compliance.clone();
        let mut last = self.compliance.lock().unwrap_or_else(PoisonError::into_inner);
        let status_may_change = match seen {
            Seen::Deleted => {
                last.remove(&key);
                self.written.forget(&key);
                true
            }
            Seen::Listed => {
                last.insert(key.clone(), compliance);
                true
            }
            Seen::Applied => last.insert(key.clone(), compliance.clone()) != Some(compliance),
        };
        let own = seen == Seen::Applied
            && self.written.is_own(&key, metadata.resource_version.as_deref());
        let root = status_may_change
            .then(|| name.split_once('.'))
            .flatten()
            .map(|(root_namespace, root_name)| (root_namespace.to_owned(), root_name.to_owned()));
        Concerned { replica: (!own).then_some(key), root }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::policy_resource;
    use certgate_templates::replica::LABEL_ROOT_POLICY;

    use kube::api::DynamicObject;

    fn replica(version: &str, compliance: Option<&str>) -> StoredPolicy {
        let mut replica = DynamicObject::new("policies.p", &policy_resource()).within("cluster1");
        replica.metadata.resource_version = Some(version.to_owned());
        replica.metadata.labels =
            Some([(LABEL_ROOT_POLICY.to_owned(), "policies.p".to_owned())].into());
        if let Some(compliance) = compliance {
            replica.data = serde_json::json!({"status": {"compliant": compliance}});
        }
        StoredPolicy::from_watched(replica)
    }

    fn key() -> ReplicaKey {
        ("cluster1".to_owned(), "policies.p".to_owned())
    }

    fn root() -> Option<(String, String)> {
        Some(("policies".to_owned(), "p".to_owned()))
    }

    #[test]
    fn a_root_event_queues_the_root() {
        let events = PolicyEvents::new(Arc::default());
        let policy = StoredPolicy::from_watched(
            DynamicObject::new("p", &policy_resource()).within("policies"),
        );
        assert_eq!(
            events.concern(&policy, Seen::Applied),
            Concerned { replica: None, root: root() }
        );
    }

    #[test]
    fn the_root_is_queued_when_a_replica_appears_goes_or_changes_compliance() {
        let events = PolicyEvents::new(Arc::default());
        let queued =
            |version, compliance, seen| events.concern(&replica(version, compliance), seen);
        assert_eq!(
            queued("1", None, Seen::Applied),
            Concerned { replica: Some(key()), root: root() }
        );
        assert_eq!(
            queued("2", None, Seen::Applied),
            Concerned { replica: Some(key()), root: None }
        );
        assert_eq!(
            queued("3", Some("Compliant"), Seen::Applied),
            Concerned { replica: Some(key()), root: root() }
        );
        assert_eq!(queued("4", Some("Compliant"), Seen::Applied).root, None);
        assert_eq!(
            queued("4", Some("Compliant"), Seen::Listed).root,
            root(),
            "a re-list may hide changes"
        );
        assert_eq!(queued("4", Some("Compliant"), Seen::Deleted).root, root());
        assert_eq!(queued("5", Some("Compliant"), Seen::Applied).root, root(), "re-created");
    }

    #[test]
    fn the_controllers_own_write_does_not_queue_the_replica_again() {
        let written = Arc::new(Written::default());
        let events = PolicyEvents::new(written.clone());
        written.record(&key(), Some("1".to_owned()));
        let own = events.concern(&replica("1", None), Seen::Applied);
        assert_eq!(
            own,
            Concerned { replica: None, root: root() },
            "the new replica still counts for the status"
        );
        written.record(&key(), Some("2".to_owned()));
        assert_eq!(
            events.concern(&replica("3", None), Seen::Applied).replica,
            Some(key()),
            "someone else's edit"
        );
    }
}
