//! `.ManagedClusterLabels`: upstream's context transformer reads the cluster's ManagedCluster
//! through the resolver's client (so its identity and watches apply) before executing.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::access::{Access, Found, LookupError, ObjectReader, Query, ReadSet, lookup};

/// The labels of ManagedCluster `cluster` (empty when it does not exist), and the read made.
pub fn read(
    reader: &dyn ObjectReader,
    access: &Access,
    cluster: &str,
) -> (Result<BTreeMap<String, String>, LookupError>, ReadSet) {
    let mut reads = ReadSet::new();
    let query = Query {
        api_version: "cluster.open-cluster-management.io/v1",
        kind: "ManagedCluster",
        namespace: "",
        name: cluster,
        selector: &[],
    };
    let result = match lookup(reader, access, &mut reads, &query, 1) {
        Ok(Found::Object(object)) => Ok(labels(&object)),
        Ok(_) => Ok(BTreeMap::new()),
        Err(e) if e.is_not_found() => Ok(BTreeMap::new()),
        Err(e) => Err(e),
    };
    (result, reads)
}

fn labels(object: &Value) -> BTreeMap<String, String> {
    object
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
        .map(|m| m.iter().filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned()))).collect())
        .unwrap_or_default()
}
