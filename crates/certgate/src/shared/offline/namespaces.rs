//! Namespace labels from the Namespace objects given, for `selector.namespace.matchLabels`.

use std::collections::BTreeMap;

use certgate_approval::NamespaceLookup;
use k8s_openapi::api::core::v1::Namespace;

use super::inputs::Sourced;

/// The label the API server puts on every Namespace (`NamespaceDefaultLabelName`, Kubernetes
/// 1.21+), so policies selecting on it work offline as they do in a cluster.
pub const NAME_LABEL: &str = "kubernetes.io/metadata.name";

pub struct NamespaceLabels {
    labels: BTreeMap<String, BTreeMap<String, String>>,
}

impl NamespaceLabels {
    pub fn new(namespaces: &[Sourced<Namespace>]) -> Self {
        let labels = namespaces
            .iter()
            .filter_map(|ns| {
                let name = ns.object.metadata.name.clone()?;
                let mut labels = ns.object.metadata.labels.clone().unwrap_or_default();
                labels.insert(NAME_LABEL.to_owned(), name.clone());
                Some((name, labels))
            })
            .collect();
        NamespaceLabels { labels }
    }
}

impl NamespaceLookup for NamespaceLabels {
    /// A namespace not among the inputs fails as a Get of a missing object does.
    fn labels(&self, namespace: &str) -> Result<BTreeMap<String, String>, String> {
        self.labels
            .get(namespace)
            .cloned()
            .ok_or_else(|| format!("namespaces {} not found", certgate_gofmt::quote(namespace)))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::shared::manifests::Source;

    fn namespace(name: &str, labels: &[(&str, &str)]) -> Sourced<Namespace> {
        let mut object = Namespace::default();
        object.metadata.name = Some(name.to_owned());
        object.metadata.labels =
            Some(labels.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect());
        Sourced { at: Source::document(&Arc::from("f.yaml"), 0), object }
    }

    #[test]
    fn labels_include_the_api_server_name_label() {
        let lookup = NamespaceLabels::new(&[namespace("team-a", &[("tier", "web")])]);
        let labels = lookup.labels("team-a").unwrap();
        assert_eq!(
            labels.into_iter().collect::<Vec<_>>(),
            [
                ("kubernetes.io/metadata.name".to_owned(), "team-a".to_owned()),
                ("tier".to_owned(), "web".to_owned())
            ]
        );
    }

    #[test]
    fn missing_namespace_reads_like_the_api_server_not_found() {
        let lookup = NamespaceLabels::new(&[]);
        assert_eq!(lookup.labels("team-b").unwrap_err(), r#"namespaces "team-b" not found"#);
    }
}
