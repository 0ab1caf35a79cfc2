//! End to end: the `policy-propagator` as standalone `certgate controller` processes against
//! the sandbox and a real kube-apiserver: one watch per object however many replicas read
//! it, none once the policies are gone (`hub_templates_active_watches`), and a leader
//! failover that leaves the replicas in place.

mod dev_support;
use dev_support::*;
mod propagator_support;
use propagator_support::*;

/// The hub: upstream's OCM CRDs on the real server, the two policies of the fixtures placed
/// on cluster1 and cluster2. The controllers of these tests run with the admin kubeconfig.
fn hub(server: Server) -> Dev {
    let dev = server.start_with(&["--controllers=-policy-approver,-policy-readiness"]);
    install_ocm(&dev, false);
    dev.ok(&["apply", "-f", &fixture("hub.yaml")]);
    dev.ok(&["apply", "-f", &fixture("second-policy.yaml")]);
    dev.ok(&["apply", "-f", &fixture("decision.yaml")]);
    decide(&dev, "policies", &["cluster1", "cluster2"]);
    dev
}

const REPLICAS: [(&str, &str); 4] = [
    ("cluster1", "policies.test-config"),
    ("cluster2", "policies.test-config"),
    ("cluster1", "policies.second-config"),
    ("cluster2", "policies.second-config"),
];

/// The resolved ConfigMap data of a replica.
fn data(dev: &Dev, cluster: &str, name: &str) -> Option<String> {
    let output = dev.kubectl(
        &[
            "get", "policy", name, "-n", cluster, "-o",
            "jsonpath={.spec.policy-templates[0].objectDefinition.spec.object-templates[0].objectDefinition.data}",
        ],
        None,
    );
    output.status.success().then(|| String::from_utf8_lossy(&output.stdout).into_owned())
}

fn wait_resolved(dev: &Dev, value: &str) {
    for (cluster, name) in REPLICAS {
        eventually(dev, &format!("{cluster}/{name} with {value}"), || {
            data(dev, cluster, name).filter(|d| d.contains(&format!(":\"{value}\"")))
        });
    }
}

fn watches(controller: &ControllerProcess) -> Option<String> {
    let metrics = controller.get("/metrics");
    metrics
        .lines()
        .find(|l| l.starts_with("hub_templates_active_watches "))
        .map(|l| l.trim_start_matches("hub_templates_active_watches ").to_owned())
}

both!(
    fn one_watch_per_object_and_none_once_the_policies_are_gone(server) {
        let dev = hub(server);
        let controller = ControllerProcess::start(
            &dev.kubeconfig,
            &["--controllers=policy-propagator", "--leader-elect=false"],
        );
        wait_resolved(&dev, "hello");
        // Four replicas of two policies read one ConfigMap: one watch.
        assert_eq!(watches(&controller).as_deref(), Some("1"));
        dev.ok(&["patch", "configmap", "settings", "-n", "policies", "--type=merge", "-p", r#"{"data":{"field1":"again"}}"#]);
        wait_resolved(&dev, "again");
        assert_eq!(watches(&controller).as_deref(), Some("1"));

        dev.ok(&["delete", "policy", "test-config", "second-config", "-n", "policies"]);
        for (cluster, name) in REPLICAS {
            eventually(&dev, &format!("{cluster}/{name} deleted"), || {
                data(&dev, cluster, name).is_none().then_some(())
            });
        }
        eventually(&dev, "no watch left", || (watches(&controller).as_deref() == Some("0")).then_some(()));
    }
);

both!(
    fn a_standby_takes_over_without_touching_the_replicas(server) {
        let dev = hub(server);
        let flags = ["--controllers=policy-propagator"];
        let one = ControllerProcess::start(&dev.kubeconfig, &flags);
        let two = ControllerProcess::start(&dev.kubeconfig, &flags);
        let one_leads = eventually(&dev, "a leader", || match (one.is_leader(), two.is_leader()) {
            (true, true) => panic!("two leaders at once"),
            (true, false) => Some(true),
            (false, true) => Some(false),
            (false, false) => None,
        });
        let (leader, standby) = if one_leads { (one, two) } else { (two, one) };
        wait_resolved(&dev, "hello");
        let uids = |dev: &Dev| -> Vec<String> {
            REPLICAS
                .iter()
                .map(|(cluster, name)| {
                    dev.ok(&["get", "policy", name, "-n", cluster, "-o", "jsonpath={.metadata.uid}"])
                })
                .collect()
        };
        let before = uids(&dev);

        assert!(leader.terminate().success(), "SIGTERM is a clean exit");
        eventually(&dev, "the standby to lead", || standby.is_leader().then_some(()));
        // The new leader resolves a change, updating the replicas in place.
        dev.ok(&["patch", "configmap", "settings", "-n", "policies", "--type=merge", "-p", r#"{"data":{"field1":"after-failover"}}"#]);
        wait_resolved(&dev, "after-failover");
        assert_eq!(uids(&dev), before, "no replica was deleted and created again");
    }
);

both!(
    fn placement_rules_place_policies_when_their_crd_is_installed(server) {
        let dev = hub(server);
        dev.ok(&["apply", "-f", &fixture("placementrule.yaml")]);
        dev.ok(&["wait", "--for=condition=Established", "--timeout=60s", "crd/placementrules.apps.open-cluster-management.io"]);
        // The CRD is there when the controller starts (upstream reads PlacementRules only then).
        let _controller = ControllerProcess::start(
            &dev.kubeconfig,
            &["--controllers=policy-propagator", "--leader-elect=false"],
        );
        dev.ok(&["apply", "-f", &fixture("placed-by-rule.yaml")]);
        eventually(&dev, "the replica placed by the rule", || {
            dev.kubectl(&["get", "policy", "policies.ruled", "-n", "cluster2"], None).status.success().then_some(())
        });
        let placement = eventually(&dev, "the root's placement status", || {
            let text = dev.ok(&["get", "policy", "ruled", "-n", "policies", "-o", "jsonpath={.status.placement}"]);
            (!text.is_empty()).then_some(text)
        });
        assert_eq!(placement, r#"[{"placementBinding":"by-rule","placementRule":"rule"}]"#);
        assert!(!dev.kubectl(&["get", "policy", "policies.ruled", "-n", "cluster1"], None).status.success());
    }
);
