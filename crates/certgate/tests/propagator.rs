//! End to end: the `policy-propagator` controller replicating OCM root policies into managed
//! cluster namespaces and resolving their hub templates, driven by the real `kubectl`
//! against the sandbox (which installs the OCM CRDs itself) and a real kube-apiserver (where
//! the test installs upstream's OCM CRDs, as an OCM hub has them).

mod dev_support;
use dev_support::*;
mod propagator_support;
use propagator_support::*;

/// The resolved ConfigMap data of the replica in `cluster`, once it exists.
fn replica_data(dev: &Dev, cluster: &str) -> Option<String> {
    let output = dev.kubectl(
        &[
            "get",
            "policy",
            "policies.test-config",
            "-n",
            cluster,
            "-o",
            "jsonpath={.spec.policy-templates[0].objectDefinition.spec.object-templates[0].objectDefinition.data}",
        ],
        None,
    );
    output.status.success().then(|| String::from_utf8_lossy(&output.stdout).into_owned())
}

fn replica_exists(dev: &Dev, cluster: &str) -> bool {
    dev.kubectl(&["get", "policy", "policies.test-config", "-n", cluster], None).status.success()
}

both!(
    fn root_policies_propagate_to_placed_clusters_with_hub_templates_resolved(server) {
        let dev = server.start_with(&["--controllers=*,policy-propagator"]);
        install_ocm(&dev, true);
        dev.ok(&["apply", "-f", &fixture("hub.yaml")]);
        dev.ok(&["apply", "-f", &fixture("decision.yaml")]);
        decide(&dev, "policies", &["cluster1", "cluster2"]);

        for cluster in ["cluster1", "cluster2"] {
            let want = format!(r#"{{"cluster":"{cluster}","field1":"hello"}}"#);
            eventually(&dev, &format!("the replica in {cluster}"), || {
                replica_data(&dev, cluster).filter(|d| *d == want)
            });
        }
        let labels = dev.ok(&[
            "get", "policy", "policies.test-config", "-n", "cluster1", "-o",
            "jsonpath={.metadata.labels}",
        ]);
        assert_eq!(
            labels,
            r#"{"policy.open-cluster-management.io/cluster-name":"cluster1","policy.open-cluster-management.io/cluster-namespace":"cluster1","policy.open-cluster-management.io/root-policy":"policies.test-config"}"#
        );
        let status = eventually(&dev, "the root's status", || {
            let status = dev.ok(&["get", "policy", "test-config", "-n", "policies", "-o", "jsonpath={.status}"]);
            status.contains("cluster2").then_some(status)
        });
        assert_eq!(
            status,
            r#"{"placement":[{"placement":"all","placementBinding":"bind"}],"status":[{"clustername":"cluster1","clusternamespace":"cluster1"},{"clustername":"cluster2","clusternamespace":"cluster2"}]}"#
        );
        let events = dev.ok(&[
            "get", "events.events.k8s.io", "-n", "policies", "-o",
            "jsonpath={range .items[*]}{.reason} {.note}{\"\\n\"}{end}",
        ]);
        for cluster in ["cluster1", "cluster2"] {
            let line = format!("PolicyPropagation Policy policies/test-config was propagated to cluster {cluster}");
            assert!(events.lines().any(|l| l == line), "{events}");
        }

        // A ConfigMap the templates read changes: both replicas follow.
        dev.ok(&["patch", "configmap", "settings", "-n", "policies", "--type=merge", "-p", r#"{"data":{"field1":"changed"}}"#]);
        for cluster in ["cluster1", "cluster2"] {
            let want = format!(r#"{{"cluster":"{cluster}","field1":"changed"}}"#);
            eventually(&dev, &format!("the updated replica in {cluster}"), || {
                replica_data(&dev, cluster).filter(|d| *d == want)
            });
        }

        // A replica edited by hand is put back.
        dev.ok(&["label", "policy", "policies.test-config", "-n", "cluster1", "policy.open-cluster-management.io/cluster-name=elsewhere", "--overwrite"]);
        eventually(&dev, "the restored label", || {
            let label = dev.ok(&["get", "policy", "policies.test-config", "-n", "cluster1", "-o", "jsonpath={.metadata.labels.policy\\.open-cluster-management\\.io/cluster-name}"]);
            (label == "cluster1").then_some(())
        });

        // cluster2 leaves the placement: its replica goes, the status follows.
        decide(&dev, "policies", &["cluster1"]);
        eventually(&dev, "the replica in cluster2 deleted", || (!replica_exists(&dev, "cluster2")).then_some(()));
        eventually(&dev, "the root's status without cluster2", || {
            let status = dev.ok(&["get", "policy", "test-config", "-n", "policies", "-o", "jsonpath={.status.status}"]);
            (status == r#"[{"clustername":"cluster1","clusternamespace":"cluster1"}]"#).then_some(())
        });

        // Disabled: every replica goes.
        dev.ok(&["patch", "policy", "test-config", "-n", "policies", "--type=merge", "-p", r#"{"spec":{"disabled":true}}"#]);
        eventually(&dev, "the replica in cluster1 deleted", || (!replica_exists(&dev, "cluster1")).then_some(()));
        // Enabled again, then the root deleted: the replica comes back, then goes.
        dev.ok(&["patch", "policy", "test-config", "-n", "policies", "--type=merge", "-p", r#"{"spec":{"disabled":false}}"#]);
        eventually(&dev, "the replica in cluster1 back", || replica_exists(&dev, "cluster1").then_some(()));
        dev.ok(&["delete", "policy", "test-config", "-n", "policies"]);
        eventually(&dev, "the replica in cluster1 deleted with its root", || (!replica_exists(&dev, "cluster1")).then_some(()));
    }
);

both!(
    fn template_errors_are_annotated_and_refer_to_upstreams_texts(server) {
        let dev = server.start_with(&["--controllers=*,policy-propagator"]);
        install_ocm(&dev, true);
        dev.ok(&["apply", "-f", &fixture("hub.yaml")]);
        dev.ok(&["apply", "-f", &fixture("decision.yaml")]);
        decide(&dev, "policies", &["cluster1"]);
        eventually(&dev, "the replica", || replica_data(&dev, "cluster1"));
        // The ConfigMap goes: the replica carries upstream's error annotation.
        dev.ok(&["delete", "configmap", "settings", "-n", "policies"]);
        let annotation = eventually(&dev, "the hub-templates-error annotation", || {
            let text = dev.ok(&[
                "get", "policy", "policies.test-config", "-n", "cluster1", "-o",
                "jsonpath={.spec.policy-templates[0].objectDefinition.metadata.annotations.policy\\.open-cluster-management\\.io/hub-templates-error}",
            ]);
            (!text.is_empty()).then_some(text)
        });
        assert!(
            annotation.ends_with(r#"error calling fromConfigMap: failed getting the ConfigMap settings from : configmaps "settings" not found"#),
            "{annotation}"
        );
        let events = dev.ok(&[
            "get", "events.events.k8s.io", "-n", "policies", "--field-selector", "type=Warning", "-o",
            "jsonpath={range .items[*]}{.note}{\"\\n\"}{end}",
        ]);
        assert!(events.contains("Failed to resolve templates for cluster cluster1: failed to resolve the template"), "{events}");
        // Created again: resolved again.
        dev.ok(&["create", "configmap", "settings", "-n", "policies", "--from-literal=field1=back"]);
        eventually(&dev, "the replica resolved again", || {
            replica_data(&dev, "cluster1").filter(|d| d == r#"{"cluster":"cluster1","field1":"back"}"#)
        });
    }
);

both!(
    fn encrypted_values_use_the_clusters_key_and_follow_its_rotation(server) {
        let dev = server.start_with(&["--controllers=*,policy-propagator"]);
        install_ocm(&dev, true);
        dev.ok(&["apply", "-f", &fixture("encrypted.yaml")]);
        dev.ok(&["apply", "-f", &fixture("decision.yaml")]);
        decide(&dev, "policies", &["cluster1"]);
        let password = || {
            let output = dev.kubectl(
                &[
                    "get", "policy", "policies.enc-config", "-n", "cluster1", "-o",
                    "jsonpath={.spec.policy-templates[0].objectDefinition.spec.object-templates[0].objectDefinition.data.password}",
                ],
                None,
            );
            Some(String::from_utf8_lossy(&output.stdout).into_owned())
                .filter(|p| p.starts_with("$ocm_encrypted:"))
        };
        let first = eventually(&dev, "the encrypted value", password);
        let iv = dev.ok(&["get", "policy", "policies.enc-config", "-n", "cluster1", "-o", "jsonpath={.metadata.annotations.policy\\.open-cluster-management\\.io/encryption-iv}"]);
        assert_eq!(iv.len(), 24, "a base64 16-byte IV: {iv}");
        let key_secret = |field: &str| {
            dev.ok(&["get", "secret", "policy-encryption-key", "-n", "cluster1", "-o", &format!("jsonpath={field}")])
        };
        assert_eq!(key_secret("{.metadata.labels.cluster\\.open-cluster-management\\.io/backup}"), "policy");
        let key = key_secret("{.data.key}");
        assert_eq!(key.len(), 44, "a base64 32-byte key: {key}");
        let stamped = key_secret("{.metadata.annotations.policy\\.open-cluster-management\\.io/last-rotated}");
        assert!(stamped.ends_with('Z') && stamped.len() == 20, "{stamped}");

        // The key is due (its last rotation long ago): rotated, the old one kept, and the
        // policy re-processed with the new key and the same IV.
        dev.ok(&["annotate", "secret", "policy-encryption-key", "-n", "cluster1", "--overwrite", "policy.open-cluster-management.io/last-rotated=2000-01-01T00:00:00Z"]);
        let rotated = eventually(&dev, "the rotated key", || {
            let at = key_secret("{.metadata.annotations.policy\\.open-cluster-management\\.io/last-rotated}");
            (at != "2000-01-01T00:00:00Z").then_some(at)
        });
        assert_eq!(key_secret("{.data.previousKey}"), key);
        assert_ne!(key_secret("{.data.key}"), key);
        let trigger = dev.ok(&["get", "policy", "enc-config", "-n", "policies", "-o", "jsonpath={.metadata.annotations.policy\\.open-cluster-management\\.io/trigger-update}"]);
        assert_eq!(trigger, format!("rotate-key-cluster1-{rotated}"));
        let second = eventually(&dev, "the value encrypted with the new key", || password().filter(|p| *p != first));
        assert!(second.starts_with("$ocm_encrypted:"));
        let replica_annotations = dev.ok(&["get", "policy", "policies.enc-config", "-n", "cluster1", "-o", "jsonpath={.metadata.annotations}"]);
        assert!(!replica_annotations.contains("trigger-update"), "{replica_annotations}");
        assert!(replica_annotations.contains(&iv), "the IV is kept: {replica_annotations}");
    }
);

both!(
    fn replicas_follow_the_members_of_a_policy_set_they_depend_on(server) {
        let dev = server.start_with(&["--controllers=*,policy-propagator"]);
        install_ocm(&dev, true);
        dev.ok(&["apply", "-f", &fixture("hub.yaml")]);
        dev.ok(&["apply", "-f", &fixture("dependencies.yaml")]);
        dev.ok(&["apply", "-f", &fixture("decision.yaml")]);
        decide(&dev, "policies", &["cluster1"]);
        let dependencies = |want: &str| {
            let want = want.to_owned();
            eventually(&dev, &format!("dependencies {want}"), || {
                let output = dev.kubectl(
                    &["get", "policy", "policies.dependent", "-n", "cluster1", "-o", "jsonpath={.spec.dependencies[*].name}"],
                    None,
                );
                (String::from_utf8_lossy(&output.stdout) == want).then_some(())
            })
        };
        dependencies("sets.first");
        // A member joins the set in another namespace: the replica lists it.
        dev.ok(&["patch", "policyset", "baseline", "-n", "sets", "--type=merge", "-p", r#"{"spec":{"policies":["first","second"]}}"#]);
        dependencies("sets.first sets.second");
    }
);
