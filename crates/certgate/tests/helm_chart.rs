//! `deploy/helm/certgate`, the Helm chart beside the Kustomize tree (issue #23): it passes
//! `helm lint --strict`, renders with default values the objects `kubectl kustomize
//! deploy/overlays/default` renders (object by object, whole objects), renders with each
//! switch what the matching Kustomize component adds or removes (each optional part,
//! `certificateRequestWebhook`, `webhook.tls.certManager`, `policyPropagator`, `issuers`, `edge`,
//! exactly its overlay under deploy/overlays, and the combinations docs/install.md allows the
//! union, as an overlay of one's own listing the components), and every value reaches what it
//! says it sets. Helm is the real one, v3 built from source by `tools/helm/build` (or
//! `$CERTGATE_HELM`); a missing helm fails the test, it is never skipped.
//!
//! The one object the chart does not render by default is the Namespace: `helm install`
//! stores the release in its namespace before creating anything, so the namespace must exist
//! beforehand and cannot then be one of the release's objects (values.yaml, namespace.create).
//! With `namespace.create=true` the render is the Kustomize overlay exactly.
//!
//! `UPDATE_GOLDEN=1` rewrites the chart's copy of the CRD (`crds/`) from `deploy/base/crd.yaml`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::{Value, json};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn chart() -> PathBuf {
    repo().join("deploy/helm/certgate")
}

/// The real helm: `$CERTGATE_HELM` (what `.ci/run` exports), or the path `tools/helm/build`
/// prints (it builds helm on the first run, about two minutes, and answers at once after).
fn helm() -> &'static Path {
    static HELM: OnceLock<PathBuf> = OnceLock::new();
    HELM.get_or_init(|| certgate_oracles::tool_path("CERTGATE_HELM", "helm/build"))
}

/// Runs helm; (success, stdout, stderr).
fn run_helm(args: &[&str]) -> (bool, String, String) {
    let output = Command::new(helm())
        .args(args)
        .env("HELM_CACHE_HOME", std::env::temp_dir().join("certgate-helm-test/cache"))
        .env("HELM_CONFIG_HOME", std::env::temp_dir().join("certgate-helm-test/config"))
        .env("HELM_DATA_HOME", std::env::temp_dir().join("certgate-helm-test/data"))
        .output()
        .unwrap_or_else(|err| panic!("cannot run {}: {err}", helm().display()));
    (
        output.status.success(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

fn helm_ok(args: &[&str]) -> String {
    let (ok, stdout, stderr) = run_helm(args);
    assert!(ok, "helm {} failed:\n{stdout}{stderr}", args.join(" "));
    stdout
}

/// `helm template certgate deploy/helm/certgate --namespace NAMESPACE --include-crds` with
/// `--set`/`--set-json` arguments, parsed.
fn template_in(namespace: &str, sets: &[&str]) -> Objects {
    let chart = chart();
    let mut args = vec![
        "template",
        "certgate",
        chart.to_str().unwrap(),
        "--namespace",
        namespace,
        "--include-crds",
    ];
    args.extend_from_slice(sets);
    let text = helm_ok(&args);
    Objects::parse(&format!("helm template with {sets:?}"), &text)
}

fn template(sets: &[&str]) -> Objects {
    template_in("certgate", sets)
}

/// `kubectl kustomize` of an overlay under deploy/overlays.
fn kustomize_overlay(overlay: &str) -> Objects {
    kustomize(&format!("overlay {overlay}"), &repo().join("deploy/overlays").join(overlay))
}

/// `kubectl kustomize` of deploy/base with these components.
fn kustomize_components(components: &[&str]) -> Objects {
    kustomize_with("base", components)
}

/// `kubectl kustomize` of `resource` (a folder under deploy/) with these components, as an
/// overlay of one's own lists them (written to a temporary directory; Kustomize wants relative
/// paths).
fn kustomize_with(resource: &str, components: &[&str]) -> Objects {
    let dir = tempfile::tempdir().unwrap();
    let up: PathBuf =
        dir.path().canonicalize().unwrap().components().skip(1).map(|_| "..").collect();
    let deploy = up.join(repo().join("deploy").strip_prefix("/").unwrap());
    let mut text = format!(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- {}\ncomponents:\n",
        deploy.join(resource).display()
    );
    for component in components {
        text.push_str(&format!("- {}\n", deploy.join("components").join(component).display()));
    }
    std::fs::write(dir.path().join("kustomization.yaml"), text).unwrap();
    kustomize(&format!("{resource} + {}", components.join(" + ")), dir.path())
}

fn kustomize(what: &str, dir: &Path) -> Objects {
    let output =
        Command::new("kubectl").args(["kustomize", dir.to_str().unwrap()]).output().unwrap_or_else(
            |err| panic!("kubectl is part of this machine image but cannot be run: {err}"),
        );
    assert!(
        output.status.success(),
        "kubectl kustomize {what} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    Objects::parse(what, &String::from_utf8(output.stdout).unwrap())
}

/// (apiVersion, kind, namespace, name): what identifies an object.
type Key = (String, String, String, String);

/// A rendered YAML stream, by object.
struct Objects {
    what: String,
    objects: BTreeMap<Key, Value>,
}

impl Objects {
    fn parse(what: &str, text: &str) -> Objects {
        let documents: Vec<Value> = serde_saphyr::from_multiple(text)
            .unwrap_or_else(|err| panic!("{what} renders unparseable YAML: {err}\n{text}"));
        let mut objects = BTreeMap::new();
        for object in documents.into_iter().filter(|d| !d.is_null()) {
            let key = key(&object);
            assert!(!objects.contains_key(&key), "{what} renders {key:?} twice");
            objects.insert(key, object);
        }
        assert!(!objects.is_empty(), "{what} renders nothing");
        Objects { what: what.to_owned(), objects }
    }

    fn of_kind(&self, kind: &str) -> Vec<&Value> {
        self.objects.values().filter(|o| o["kind"] == kind).collect()
    }

    fn get(&self, kind: &str, name: &str) -> &Value {
        self.of_kind(kind)
            .into_iter()
            .find(|o| o["metadata"]["name"] == name)
            .unwrap_or_else(|| panic!("{} renders no {kind} {name}", self.what))
    }

    fn find(&self, kind: &str, name: &str) -> Option<&Value> {
        self.of_kind(kind).into_iter().find(|o| o["metadata"]["name"] == name)
    }

    /// Drops the objects of `kind` named `name`; panics when there is none.
    fn without(mut self, kind: &str, name: &str) -> Objects {
        let before = self.objects.len();
        self.objects.retain(|_, o| !(o["kind"] == kind && o["metadata"]["name"] == name));
        assert_eq!(
            self.objects.len(),
            before - 1,
            "{} renders no {kind} {name} to leave out",
            self.what
        );
        self
    }

    fn deployments(&self) -> Vec<&Value> {
        self.of_kind("Deployment")
    }

    /// The first container of a Deployment.
    fn container(&self, deployment: &str) -> &Value {
        &self.get("Deployment", deployment)["spec"]["template"]["spec"]["containers"][0]
    }

    fn args(&self, deployment: &str) -> Vec<&str> {
        self.container(deployment)["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect()
    }
}

fn key(object: &Value) -> Key {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    (
        text(&object["apiVersion"]),
        text(&object["kind"]),
        text(&object["metadata"]["namespace"]),
        text(&object["metadata"]["name"]),
    )
}

/// The first place two values differ, as a JSON path and both sides.
fn first_difference(path: &str, left: &Value, right: &Value) -> Option<String> {
    match (left, right) {
        (Value::Object(l), Value::Object(r)) => {
            let keys: BTreeSet<&String> = l.keys().chain(r.keys()).collect();
            keys.into_iter().find_map(|k| {
                first_difference(
                    &format!("{path}.{k}"),
                    l.get(k).unwrap_or(&Value::Null),
                    r.get(k).unwrap_or(&Value::Null),
                )
            })
        }
        (Value::Array(l), Value::Array(r)) if l.len() == r.len() => l
            .iter()
            .zip(r)
            .enumerate()
            .find_map(|(i, (l, r))| first_difference(&format!("{path}[{i}]"), l, r)),
        // YAML `0.0` and `0` are one number to the API server (Kustomize re-serialises
        // deploy/base/crd.yaml's `minimum: 0.0` as `0`; Helm passes crds/ through as written).
        (Value::Number(l), Value::Number(r)) if l.as_f64() == r.as_f64() => None,
        _ if left == right => None,
        _ => Some(format!("{path}: {left} vs {right}")),
    }
}

/// The chart's render and the Kustomize render hold the same objects, whole.
fn assert_same_objects(chart: &Objects, kustomize: &Objects) {
    let chart_keys: BTreeSet<&Key> = chart.objects.keys().collect();
    let kustomize_keys: BTreeSet<&Key> = kustomize.objects.keys().collect();
    let missing: Vec<_> = kustomize_keys.difference(&chart_keys).collect();
    let extra: Vec<_> = chart_keys.difference(&kustomize_keys).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{} and {} render different objects.\nonly in Kustomize: {missing:?}\nonly in the chart: {extra:?}\n\
         Change deploy/helm/certgate/templates so both install the same thing.",
        chart.what,
        kustomize.what
    );
    let mut differences = Vec::new();
    for (key, object) in &kustomize.objects {
        if let Some(difference) = first_difference("", &chart.objects[key], object) {
            differences.push(format!("{key:?} {difference} (chart vs Kustomize)"));
        }
    }
    assert!(
        differences.is_empty(),
        "{} and {} render these objects differently:\n{}\n\
         Change deploy/helm/certgate/templates or values.yaml so both install the same thing.",
        chart.what,
        kustomize.what,
        differences.join("\n")
    );
}

#[test]
fn chart_lints_strictly() {
    let chart = chart();
    let chart = chart.to_str().unwrap();
    for sets in [
        &[][..],
        &["--set", "serviceMonitor.enabled=true", "--set", "disableAutoApproval=false"],
        &["--set", "namespace.create=true", "--set", "controller.authorizer=local"],
        &[
            "--set",
            "certificateRequestWebhook.enabled=true",
            "--set",
            "policyPropagator.enabled=true",
        ],
        &["--set", "webhook.tls.certManager.enabled=true", "--set", "issuers.enabled=true"],
        &["--set", "edge.enabled=true", "--set", "serviceMonitor.enabled=true"],
        &[
            "--set",
            "edge.enabled=true",
            "--set",
            "edge.envoy.service.type=ClusterIP",
            "--set",
            "edge.podDisruptionBudget.enabled=false",
        ],
    ] {
        let mut args = vec!["lint", "--strict", chart, "--namespace", "certgate"];
        args.extend_from_slice(sets);
        let stdout = helm_ok(&args);
        assert!(stdout.contains("0 chart(s) failed"), "helm lint --strict {sets:?}:\n{stdout}");
        assert!(!stdout.contains("[WARNING]") && !stdout.contains("[ERROR]"), "{stdout}");
    }
}

#[test]
fn default_render_is_the_kustomize_default_overlay() {
    let kustomize = kustomize_overlay("default");
    // The Namespace is the only difference, and only because `helm install` needs it first.
    let defaults = template(&[]);
    assert!(
        defaults.find("Namespace", "certgate").is_none(),
        "the default render creates the namespace"
    );
    assert_same_objects(&defaults, &kustomize.without("Namespace", "certgate"));
    assert_same_objects(
        &template(&["--set", "namespace.create=true"]),
        &kustomize_overlay("default"),
    );
}

#[test]
fn switches_render_what_the_kustomize_components_do() {
    let namespace = ["--set", "namespace.create=true"];
    // The built-in approver: off by default (disableAutoApproval=true); false is overlay
    // builtin-approver. Disabling it again removes what the component adds.
    let builtin = template(&[&namespace[..], &["--set", "disableAutoApproval=false"]].concat());
    assert_same_objects(&builtin, &kustomize_overlay("builtin-approver"));
    assert_eq!(builtin.args("certgate-controller")[1], "--controllers=*,builtin-approver");
    let off = template(&[&namespace[..], &["--set", "disableAutoApproval=true"]].concat());
    assert_eq!(off.args("certgate-controller")[1], "--controllers=*");
    assert_same_objects(&off, &kustomize_overlay("default"));

    // The local authorizer: overlay local-authorizer, SubjectAccessReview role gone.
    let local = template(&[&namespace[..], &["--set", "controller.authorizer=local"]].concat());
    assert_same_objects(&local, &kustomize_overlay("local-authorizer"));
    assert!(local.find("ClusterRole", "certgate-controller:subjectaccessreviews").is_none());

    // Both, as an overlay of one's own listing both components.
    let both = template(
        &[
            &namespace[..],
            &["--set", "controller.authorizer=local", "--set", "disableAutoApproval=false"],
        ]
        .concat(),
    );
    assert_same_objects(&both, &kustomize_components(&["builtin-approver", "local-authorizer"]));

    // ServiceMonitors: the component's, less the edge's (no edge without edge.enabled).
    let monitored = template(&[&namespace[..], &["--set", "serviceMonitor.enabled=true"]].concat());
    assert_same_objects(
        &monitored,
        &kustomize_components(&["servicemonitor"]).without("ServiceMonitor", "certgate-edge"),
    );
    assert!(template(&[]).of_kind("ServiceMonitor").is_empty(), "ServiceMonitors are opt-in");
}

/// `--set` for each of `sets`.
fn set_args<'a>(sets: &[&'a str]) -> Vec<&'a str> {
    sets.iter().flat_map(|s| ["--set", s]).collect()
}

/// The optional parts, each the value turning it on and the overlay it renders.
const OPTIONAL_PARTS: [(&str, &str); 5] = [
    ("certificateRequestWebhook.enabled", "certificaterequest-webhook"),
    ("webhook.tls.certManager.enabled", "cert-manager-ca"),
    ("policyPropagator.enabled", "policy-propagator"),
    ("issuers.enabled", "issuers"),
    ("edge.enabled", "edge"),
];

#[test]
fn optional_parts_render_their_kustomize_overlays() {
    let default = kustomize_overlay("default");
    for (value, overlay) in OPTIONAL_PARTS {
        let on = format!("{value}=true");
        let off = format!("{value}=false");
        let chart = template(&set_args(&["namespace.create=true", &on]));
        assert_same_objects(&chart, &kustomize_overlay(overlay));
        // Off (the default, which default_render_is_the_kustomize_default_overlay renders) is
        // the default overlay.
        assert_same_objects(&template(&set_args(&["namespace.create=true", &off])), &default);
    }
}

#[test]
fn documented_combinations_render_the_union_of_their_components() {
    // docs/install.md#overlays: local-authorizer and builtin-approver combine with anything,
    // so do policy-propagator, issuers and edge; certificaterequest-webhook does not combine
    // with cert-manager-ca. There is no overlay for a combination: each is compared with an
    // overlay of one's own listing the components. policy-propagator and issuers each append a
    // --controllers argument in the order they are listed; the chart appends
    // policy-propagator's first, so they are listed in that order.
    let combinations: [(&[&str], &[&str]); 6] = [
        (
            &["policyPropagator.enabled=true", "issuers.enabled=true", "edge.enabled=true"],
            &["policy-propagator", "issuers", "edge"],
        ),
        (
            &["controller.authorizer=local", "webhook.tls.certManager.enabled=true"],
            &["local-authorizer", "cert-manager-ca"],
        ),
        (
            &[
                "webhook.tls.certManager.enabled=true",
                "edge.enabled=true",
                "serviceMonitor.enabled=true",
            ],
            &["cert-manager-ca", "edge", "servicemonitor"],
        ),
        (
            &[
                "disableAutoApproval=false",
                "certificateRequestWebhook.enabled=true",
                "issuers.enabled=true",
            ],
            &["builtin-approver", "certificaterequest-webhook", "issuers"],
        ),
        (
            &[
                "disableAutoApproval=false",
                "controller.authorizer=local",
                "policyPropagator.enabled=true",
                "issuers.enabled=true",
                "edge.enabled=true",
                "serviceMonitor.enabled=true",
                "webhook.tls.certManager.enabled=true",
            ],
            &[
                "builtin-approver",
                "local-authorizer",
                "policy-propagator",
                "issuers",
                "edge",
                "servicemonitor",
                "cert-manager-ca",
            ],
        ),
        (
            &[
                "disableAutoApproval=false",
                "controller.authorizer=local",
                "policyPropagator.enabled=true",
                "issuers.enabled=true",
                "edge.enabled=true",
                "serviceMonitor.enabled=true",
                "certificateRequestWebhook.enabled=true",
            ],
            &[
                "builtin-approver",
                "local-authorizer",
                "policy-propagator",
                "issuers",
                "edge",
                "servicemonitor",
                "certificaterequest-webhook",
            ],
        ),
    ];
    for (sets, components) in combinations {
        let chart = template(&set_args(&[&["namespace.create=true"][..], sets].concat()));
        assert_same_objects(&chart, &kustomize_components(components));
    }
    let both = template(&set_args(&["policyPropagator.enabled=true", "issuers.enabled=true"]));
    let args = both.args("certgate-controller");
    assert_eq!(
        args[args.len() - 2..],
        [
            "--controllers=policy-propagator",
            "--controllers=issuers,clusterissuers,certificaterequests-issuer-ca,certificaterequests-issuer-selfsigned,certificates,issuers-crl"
        ]
    );
}

#[test]
/// docs/install.md#overlays: certificaterequest-webhook is not meant to be combined with
/// cert-manager-ca; the chart refuses the two values together, saying so.
fn certificaterequest_webhook_refuses_cert_manager_ca() {
    let chart = chart();
    for namespace in [&[][..], &["--set", "namespace.create=true"][..]] {
        let mut args =
            vec!["template", "certgate", chart.to_str().unwrap(), "--namespace", "certgate"];
        args.extend_from_slice(namespace);
        args.extend(set_args(&[
            "certificateRequestWebhook.enabled=true",
            "webhook.tls.certManager.enabled=true",
        ]));
        let (ok, stdout, stderr) = run_helm(&args);
        assert!(!ok, "both were accepted:\n{stdout}");
        assert!(
            stderr.contains(
                "certificateRequestWebhook.enabled and webhook.tls.certManager.enabled cannot both be true"
            ),
            "the error does not say which values conflict:\n{stderr}"
        );
        // Either alone renders.
        for one in
            ["certificateRequestWebhook.enabled=true", "webhook.tls.certManager.enabled=true"]
        {
            let mut args =
                vec!["template", "certgate", chart.to_str().unwrap(), "--namespace", "certgate"];
            args.extend_from_slice(namespace);
            args.extend(set_args(&[one]));
            assert!(run_helm(&args).0, "{one} alone fails");
        }
    }
    // (`helm lint` renders in lint mode, where `fail` is logged, not an error: the check is
    // `helm template`'s and `helm install`'s.)
}

/// The pod spec of a DaemonSet's or Deployment's pod template.
fn pod_spec<'a>(objects: &'a Objects, kind: &str, name: &str) -> &'a Value {
    &objects.get(kind, name)["spec"]["template"]["spec"]
}

#[test]
fn edge_values_reach_the_edge() {
    let objects = template(&[
        "--set",
        "edge.enabled=true",
        "--set",
        "edge.replicaCount=3",
        "--set-json",
        r#"edge.resources={"requests":{"cpu":"250m","memory":"1Gi"}}"#,
        "--set-json",
        r#"edge.extraArgs=["--log-level=debug"]"#,
        "--set-json",
        r#"edge.nodeSelector={"pool":"edge"}"#,
        "--set",
        "edge.podDisruptionBudget.minAvailable=2",
        "--set",
        "edge.envoy.image.repository=registry.example/envoy",
        "--set",
        "edge.envoy.image.tag=v1.41.0",
        "--set",
        "edge.envoy.image.pullPolicy=Always",
        "--set",
        "edge.envoy.logLevel=debug",
        "--set-json",
        r#"edge.envoy.resources={"requests":{"cpu":"1"},"limits":{"memory":"2Gi"}}"#,
        "--set-json",
        r#"edge.envoy.nodeSelector={"pool":"ingress"}"#,
        "--set",
        "edge.envoy.service.type=NodePort",
        "--set-json",
        r#"edge.envoy.service.annotations={"service.beta.kubernetes.io/aws-load-balancer-type":"nlb"}"#,
        "--set",
        "certManager.namespace=pki",
        "--set",
        "certManager.serviceAccountName=issuer-controller",
    ]);
    let defaults = template(&["--set", "edge.enabled=true"]);
    let edge = objects.get("Deployment", "certgate-edge");
    assert_eq!(edge["spec"]["replicas"], 3);
    assert_eq!(
        objects.container("certgate-edge")["resources"],
        // Maps merge with the defaults, as Helm merges values.
        json!({"requests": {"cpu": "250m", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "512Mi"}})
    );
    assert_eq!(objects.args("certgate-edge").last(), Some(&"--log-level=debug"));
    assert_eq!(
        pod_spec(&objects, "Deployment", "certgate-edge")["nodeSelector"],
        json!({"pool": "edge"})
    );
    assert_eq!(objects.get("PodDisruptionBudget", "certgate-edge")["spec"]["minAvailable"], 2);
    // The edge's values leave the controller and the webhook alone.
    for deployment in ["certgate-controller", "certgate-webhook"] {
        assert_eq!(objects.get("Deployment", deployment), defaults.get("Deployment", deployment));
    }

    let envoy = &pod_spec(&objects, "DaemonSet", "envoy")["containers"][0];
    assert_eq!(envoy["image"], "registry.example/envoy:v1.41.0");
    assert_eq!(envoy["imagePullPolicy"], "Always");
    let args = envoy["args"].as_array().unwrap();
    assert_eq!(args[args.len() - 2..], [json!("--log-level"), json!("debug")]);
    assert_eq!(
        envoy["resources"],
        json!({"requests": {"cpu": "1", "memory": "128Mi"}, "limits": {"memory": "2Gi"}})
    );
    assert_eq!(
        pod_spec(&objects, "DaemonSet", "envoy")["nodeSelector"],
        json!({"pool": "ingress"})
    );
    // The bootstrap init container runs the certgate image.
    assert_eq!(
        pod_spec(&objects, "DaemonSet", "envoy")["initContainers"][0]["image"],
        objects.container("certgate-edge")["image"]
    );
    let service = objects.get("Service", "envoy");
    assert_eq!(service["spec"]["type"], "NodePort");
    assert_eq!(service["spec"]["externalTrafficPolicy"], "Local");
    assert_eq!(
        service["metadata"]["annotations"],
        json!({"service.beta.kubernetes.io/aws-load-balancer-type": "nlb"})
    );
    // externalTrafficPolicy exists for LoadBalancer and NodePort Services only.
    let internal =
        template(&["--set", "edge.enabled=true", "--set", "edge.envoy.service.type=ClusterIP"]);
    assert_eq!(internal.get("Service", "envoy")["spec"]["type"], "ClusterIP");
    assert!(internal.get("Service", "envoy")["spec"]["externalTrafficPolicy"].is_null());
    assert!(internal.get("Service", "envoy")["metadata"]["annotations"].is_null());
    // A digest wins over the tag.
    let pinned = template(&[
        "--set",
        "edge.enabled=true",
        "--set",
        "edge.envoy.image.digest=sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
    ]);
    assert_eq!(
        pod_spec(&pinned, "DaemonSet", "envoy")["containers"][0]["image"],
        "docker.io/envoyproxy/envoy@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
    );
    // certManager.*: the requester allowed to use the policies approving the chart's certificates.
    let serving = template(&[
        "--set",
        "webhook.tls.certManager.enabled=true",
        "--set",
        "certManager.namespace=pki",
        "--set",
        "certManager.serviceAccountName=issuer-controller",
    ]);
    for (objects, binding) in [
        (&objects, "certgate-edge-xds:policy-user"),
        (&serving, "certgate-webhook-serving:policy-user"),
    ] {
        assert_eq!(
            objects.get("RoleBinding", binding)["subjects"],
            json!([{"kind": "ServiceAccount", "name": "issuer-controller", "namespace": "pki"}]),
            "{binding}"
        );
    }
    let unguarded = template(&[
        "--set",
        "edge.enabled=true",
        "--set",
        "edge.podDisruptionBudget.enabled=false",
    ]);
    assert!(unguarded.find("PodDisruptionBudget", "certgate-edge").is_none());
}

/// Every ServiceMonitor scrapes /metrics on port `metrics` of at least one Service it selects,
/// whose target is a container port of the pods that Service selects.
fn assert_service_monitors_reach_pods(objects: &Objects, expected: &[&str]) {
    let monitors = objects.of_kind("ServiceMonitor");
    let names: BTreeSet<&str> =
        monitors.iter().map(|m| m["metadata"]["name"].as_str().unwrap()).collect();
    assert_eq!(names, expected.iter().copied().collect(), "{}: ServiceMonitors", objects.what);
    for monitor in monitors {
        let at = format!("{}: ServiceMonitor {}", objects.what, monitor["metadata"]["name"]);
        assert_eq!(monitor["apiVersion"], "monitoring.coreos.com/v1", "{at}");
        let endpoints = monitor["spec"]["endpoints"].as_array().unwrap();
        assert_eq!(endpoints.len(), 1, "{at}");
        assert_eq!(endpoints[0]["port"], "metrics", "{at}");
        assert_eq!(endpoints[0]["path"], "/metrics", "{at}");
        assert_eq!(endpoints[0]["scheme"], "http", "{at}: the metrics ports are plain HTTP");
        let selector = monitor["spec"]["selector"]["matchLabels"].as_object().unwrap();
        let namespace = &monitor["metadata"]["namespace"];
        let mut scraped = 0;
        for service in objects.of_kind("Service") {
            let labels = &service["metadata"]["labels"];
            if service["metadata"]["namespace"] != *namespace
                || !selector.iter().all(|(k, v)| labels[k] == *v)
            {
                continue;
            }
            let Some(port) = service["spec"]["ports"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["name"] == "metrics")
            else {
                continue;
            };
            scraped += 1;
            let pods = service["spec"]["selector"].as_object().unwrap();
            let deployments: Vec<&Value> = objects
                .deployments()
                .into_iter()
                .filter(|d| {
                    let labels = &d["spec"]["template"]["metadata"]["labels"];
                    pods.iter().all(|(k, v)| labels[k] == *v)
                })
                .collect();
            assert!(
                !deployments.is_empty(),
                "{at}: Service {} selects no pods",
                service["metadata"]["name"]
            );
            for deployment in deployments {
                let containers =
                    deployment["spec"]["template"]["spec"]["containers"].as_array().unwrap();
                let target = &port["targetPort"];
                let container_port = containers
                    .iter()
                    .flat_map(|c| c["ports"].as_array().cloned().unwrap_or_default())
                    .find(|p| p["name"] == *target || p["containerPort"] == *target);
                assert!(
                    container_port.is_some(),
                    "{at}: Service {} targets {target}, which Deployment {} does not expose",
                    service["metadata"]["name"],
                    deployment["metadata"]["name"]
                );
            }
        }
        assert!(scraped > 0, "{at}: no Service it selects has a port named metrics");
    }
}

#[test]
fn service_monitors_scrape_each_components_metrics_port() {
    let chart = template(&["--set", "serviceMonitor.enabled=true"]);
    assert_service_monitors_reach_pods(&chart, &["certgate-controller", "certgate-webhook"]);
    // With edge.enabled, the edge's too.
    let chart_edge =
        template(&["--set", "serviceMonitor.enabled=true", "--set", "edge.enabled=true"]);
    assert_service_monitors_reach_pods(
        &chart_edge,
        &["certgate-controller", "certgate-webhook", "certgate-edge"],
    );
    // The Kustomize component, with the edge overlay: the edge's ServiceMonitor finds its Service.
    let edge = kustomize_with("overlays/edge", &["servicemonitor"]);
    assert_service_monitors_reach_pods(
        &edge,
        &["certgate-controller", "certgate-webhook", "certgate-edge"],
    );

    // The metrics ports are those the servers listen on: the controller's --listen, the
    // webhook's --metrics-listen default (9402, as cert-manager's), the edge's --listen.
    let port_of = |objects: &Objects, deployment: &str, name: &str| -> u64 {
        let container = objects.container(deployment);
        container["ports"].as_array().unwrap().iter().find(|p| p["name"] == name).unwrap()["containerPort"]
            .as_u64()
            .unwrap()
    };
    assert!(chart.args("certgate-controller").contains(&"--listen=0.0.0.0:9402"));
    assert_eq!(port_of(&chart, "certgate-controller", "http-metrics"), 9402);
    assert_eq!(port_of(&chart, "certgate-webhook", "metrics"), 9402);
    assert!(edge.args("certgate-edge").contains(&"--listen=0.0.0.0:8000"));
    assert_eq!(port_of(&edge, "certgate-edge", "http-metrics"), 8000);
    // serviceMonitor.* values reach the ServiceMonitors.
    let tuned = template(&[
        "--set",
        "serviceMonitor.enabled=true",
        "--set",
        "serviceMonitor.interval=15s",
        "--set",
        "serviceMonitor.scrapeTimeout=10s",
        "--set-json",
        r#"serviceMonitor.labels={"release":"kube-prometheus-stack"}"#,
    ]);
    for monitor in tuned.of_kind("ServiceMonitor") {
        assert_eq!(monitor["metadata"]["labels"]["release"], "kube-prometheus-stack");
        assert_eq!(monitor["metadata"]["labels"]["app.kubernetes.io/name"], "certgate");
        assert_eq!(monitor["spec"]["endpoints"][0]["interval"], "15s");
        assert_eq!(monitor["spec"]["endpoints"][0]["scrapeTimeout"], "10s");
    }
}

#[test]
fn pod_values_reach_every_deployment() {
    let objects = template(&[
        "--set-json",
        r#"resources={"requests":{"cpu":"10m","memory":"32Mi"},"limits":{"cpu":"500m","memory":"128Mi"}}"#,
        "--set-json",
        r#"nodeSelector={"pool":"system"}"#,
        "--set-json",
        r#"tolerations=[{"key":"dedicated","operator":"Equal","value":"system","effect":"NoSchedule"}]"#,
        "--set-json",
        r#"affinity={"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"pool","operator":"In","values":["system"]}]}]}}}"#,
        "--set",
        "priorityClassName=system-cluster-critical",
        "--set-json",
        r#"podSecurityContext={"runAsNonRoot":true,"runAsUser":1000,"runAsGroup":1000,"fsGroup":1000}"#,
        "--set-json",
        r#"securityContext={"privileged":false,"readOnlyRootFilesystem":false}"#,
        "--set-json",
        r#"podLabels={"team":"pki","app.kubernetes.io/component":"overridden"}"#,
        "--set-json",
        r#"podAnnotations={"example.com/scrape":"yes"}"#,
        "--set-json",
        r#"imagePullSecrets=[{"name":"registry"}]"#,
        "--set",
        "image.repository=registry.example/certgate",
        "--set",
        "image.tag=v9.9.9",
        "--set",
        "image.pullPolicy=Always",
        "--set",
        "logFormat=text",
    ]);
    let deployments = objects.deployments();
    assert_eq!(deployments.len(), 2);
    for deployment in deployments {
        let name = deployment["metadata"]["name"].as_str().unwrap();
        let pod = &deployment["spec"]["template"];
        let spec = &pod["spec"];
        let container = &spec["containers"][0];
        assert_eq!(
            container["resources"],
            json!({"requests": {"cpu": "10m", "memory": "32Mi"}, "limits": {"cpu": "500m", "memory": "128Mi"}}),
            "{name}"
        );
        // Maps merge with the defaults, as Helm merges values (null removes a default key).
        assert_eq!(
            spec["nodeSelector"],
            json!({"kubernetes.io/os": "linux", "pool": "system"}),
            "{name}"
        );
        assert_eq!(spec["tolerations"][0]["key"], "dedicated", "{name}");
        assert_eq!(
            spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
                [0]["matchExpressions"][0]["key"],
            "pool",
            "{name}"
        );
        assert_eq!(spec["priorityClassName"], "system-cluster-critical", "{name}");
        assert_eq!(spec["securityContext"]["runAsUser"], 1000, "{name}");
        assert_eq!(spec["securityContext"]["fsGroup"], 1000, "{name}");
        assert_eq!(container["securityContext"]["privileged"], false, "{name}");
        assert_eq!(container["securityContext"]["readOnlyRootFilesystem"], false, "{name}");
        assert_eq!(
            container["securityContext"]["capabilities"],
            json!({"drop": ["ALL"]}),
            "{name}"
        );
        assert_eq!(spec["imagePullSecrets"], json!([{"name": "registry"}]), "{name}");
        assert_eq!(container["image"], "registry.example/certgate:v9.9.9", "{name}");
        assert_eq!(container["imagePullPolicy"], "Always", "{name}");
        assert!(
            container["args"].as_array().unwrap().contains(&json!("--log-format=text")),
            "{name}"
        );
        // Pod labels are added, but cannot take the selector's labels away.
        assert_eq!(pod["metadata"]["labels"]["team"], "pki", "{name}");
        assert_eq!(
            pod["metadata"]["labels"]["app.kubernetes.io/component"],
            deployment["spec"]["selector"]["matchLabels"]["app.kubernetes.io/component"],
            "{name}: podLabels overrode a selector label"
        );
        assert_eq!(pod["metadata"]["annotations"]["example.com/scrape"], "yes", "{name}");
    }
    // A digest wins over the tag.
    let pinned = template(&[
        "--set",
        "image.digest=sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
    ]);
    for deployment in ["certgate-controller", "certgate-webhook"] {
        assert_eq!(
            pinned.container(deployment)["image"],
            "ghcr.io/certgate/certgate@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
        );
    }
}

#[test]
fn component_values_override_only_their_component() {
    let objects = template(&[
        "--set",
        "controller.replicaCount=3",
        "--set",
        "webhook.replicaCount=4",
        "--set-json",
        r#"controller.resources={"requests":{"cpu":"200m"}}"#,
        "--set-json",
        r#"webhook.nodeSelector={"pool":"webhooks"}"#,
        "--set-json",
        r#"controller.extraArgs=["--controllers=policy-propagator"]"#,
        "--set-json",
        r#"webhook.extraArgs=["--shutdown-grace-period=40s"]"#,
        "--set-json",
        "webhook.topologySpreadConstraints=[]",
        "--set",
        "controller.podDisruptionBudget.enabled=false",
        "--set",
        "webhook.podDisruptionBudget.maxUnavailable=1",
    ]);
    let defaults = template(&[]);
    let replicas = |o: &Objects, d: &str| o.get("Deployment", d)["spec"]["replicas"].clone();
    assert_eq!(replicas(&objects, "certgate-controller"), 3);
    assert_eq!(replicas(&objects, "certgate-webhook"), 4);
    assert_eq!(
        objects.container("certgate-controller")["resources"],
        json!({"requests": {"cpu": "200m"}})
    );
    assert_eq!(
        objects.container("certgate-webhook")["resources"],
        defaults.container("certgate-webhook")["resources"]
    );
    let pod = |o: &Objects, d: &str| o.get("Deployment", d)["spec"]["template"]["spec"].clone();
    assert_eq!(pod(&objects, "certgate-webhook")["nodeSelector"], json!({"pool": "webhooks"}));
    assert_eq!(
        pod(&objects, "certgate-controller")["nodeSelector"],
        json!({"kubernetes.io/os": "linux"})
    );
    assert!(pod(&objects, "certgate-webhook")["topologySpreadConstraints"].is_null());
    assert_eq!(
        pod(&objects, "certgate-controller")["topologySpreadConstraints"],
        pod(&defaults, "certgate-controller")["topologySpreadConstraints"]
    );
    // Extra arguments come after the chart's, in order.
    let mut expected = defaults.args("certgate-controller");
    expected.push("--controllers=policy-propagator");
    assert_eq!(objects.args("certgate-controller"), expected);
    let mut expected = defaults.args("certgate-webhook");
    expected.push("--shutdown-grace-period=40s");
    assert_eq!(objects.args("certgate-webhook"), expected);
    assert!(objects.find("PodDisruptionBudget", "certgate-controller").is_none());
    assert_eq!(objects.get("PodDisruptionBudget", "certgate-webhook")["spec"]["maxUnavailable"], 1);
    assert!(
        objects.get("PodDisruptionBudget", "certgate-webhook")["spec"]["minAvailable"].is_null()
    );
}

#[test]
fn webhook_and_approval_values_reach_their_objects() {
    let objects =
        template(&["--set", "webhook.failurePolicy=Ignore", "--set", "webhook.timeoutSeconds=25"]);
    let defaults = template(&[]);
    let webhooks = |o: &Objects| {
        o.get("ValidatingWebhookConfiguration", "certgate-approver-policy")["webhooks"]
            .as_array()
            .unwrap()
            .clone()
    };
    for webhook in webhooks(&objects) {
        assert_eq!(webhook["failurePolicy"], "Ignore", "{}", webhook["name"]);
        assert_eq!(webhook["timeoutSeconds"], 25, "{}", webhook["name"]);
    }
    // By default approver-policy's webhook fails closed; OCM's keep upstream's Ignore.
    let policies: BTreeMap<String, Value> = webhooks(&defaults)
        .into_iter()
        .map(|w| (w["name"].as_str().unwrap().to_owned(), w["failurePolicy"].clone()))
        .collect();
    assert_eq!(policies["policy.cert-manager.io"], "Fail");
    assert_eq!(policies["policy.open-cluster-management.io.webhook"], "Ignore");
    assert_eq!(policies["policyset.open-cluster-management.io.webhook"], "Ignore");

    // approveSignerNames: the approve ClusterRole's resourceNames; empty: every signer.
    let role = |o: &Objects| {
        o.get("ClusterRole", "certgate-controller-approve:cert-manager-io")["rules"][0].clone()
    };
    assert_eq!(
        role(&defaults)["resourceNames"],
        json!(["issuers.cert-manager.io/*", "clusterissuers.cert-manager.io/*"])
    );
    let external = template(&[
        "--set-json",
        r#"approveSignerNames=["issuers.cert-manager.io/*","awspcaclusterissuers.awspca.cert-manager.io/*"]"#,
    ]);
    assert_eq!(
        role(&external)["resourceNames"],
        json!(["issuers.cert-manager.io/*", "awspcaclusterissuers.awspca.cert-manager.io/*"])
    );
    let every = template(&["--set-json", "approveSignerNames=[]"]);
    assert!(
        role(&every)["resourceNames"].is_null(),
        "an empty approveSignerNames grants every signer"
    );
    assert_eq!(role(&every)["verbs"], json!(["approve"]));
}

#[test]
fn release_namespace_is_used_everywhere() {
    let objects = template_in(
        "pki-system",
        &set_args(&[
            "namespace.create=true",
            "edge.enabled=true",
            "policyPropagator.enabled=true",
            "issuers.enabled=true",
            "serviceMonitor.enabled=true",
        ]),
    );
    let text = serde_json::to_string(&objects.objects.values().collect::<Vec<_>>()).unwrap();
    for object in objects.objects.values() {
        let namespace = &object["metadata"]["namespace"];
        assert!(
            namespace.is_null() || namespace == "pki-system",
            "{:?} in namespace {namespace}",
            key(object)
        );
        for subject in object["subjects"].as_array().into_iter().flatten() {
            // cert-manager's controller (certManager.*) is the one subject elsewhere.
            if subject["name"] != "cert-manager" {
                assert_eq!(subject["namespace"], "pki-system", "{:?}", key(object));
            }
        }
        if let Some(namespaces) = object["spec"]["selector"]["namespace"]["matchNames"].as_array() {
            assert_eq!(namespaces, &vec![json!("pki-system")], "{:?}", key(object));
        }
    }
    assert!(objects.find("Namespace", "pki-system").is_some());
    for webhook in
        objects.get("ValidatingWebhookConfiguration", "certgate-approver-policy")["webhooks"]
            .as_array()
            .unwrap()
    {
        assert_eq!(webhook["clientConfig"]["service"]["namespace"], "pki-system");
    }
    assert!(objects.args("certgate-webhook").contains(
        &"--dynamic-serving-dns-names=certgate-webhook,certgate-webhook.pki-system,certgate-webhook.pki-system.svc"
    ));
    assert!(
        !text.contains("certgate-webhook.certgate") && !text.contains("certgate-edge.certgate"),
        "a DNS name still names namespace certgate"
    );
    assert_eq!(
        objects.get("Certificate", "certgate-edge-xds")["spec"]["dnsNames"],
        json!(["certgate-edge", "certgate-edge.pki-system", "certgate-edge.pki-system.svc"])
    );
    // The webhook's serving certificate from cert-manager, in the release namespace too.
    let serving = template_in("pki-system", &set_args(&["webhook.tls.certManager.enabled=true"]));
    assert_eq!(
        serving.get("Certificate", "certgate-webhook-tls")["spec"]["dnsNames"],
        json!([
            "certgate-webhook",
            "certgate-webhook.pki-system",
            "certgate-webhook.pki-system.svc"
        ])
    );
    assert_eq!(
        serving.get("ValidatingWebhookConfiguration", "certgate-approver-policy")["metadata"]["annotations"]
            ["cert-manager.io/inject-ca-from"],
        "pki-system/certgate-webhook-tls"
    );
    assert_eq!(
        serving.get("CertificateRequestPolicy", "certgate-webhook-serving")["spec"]["selector"]["namespace"]
            ["matchNames"],
        json!(["pki-system"])
    );
    let certificaterequests =
        template_in("pki-system", &set_args(&["certificateRequestWebhook.enabled=true"]));
    for kind in ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"] {
        assert_eq!(
            certificaterequests.get(kind, "certgate-cert-manager-webhook")["webhooks"][0]["clientConfig"]
                ["service"]["namespace"],
            "pki-system",
            "{kind}"
        );
    }
}

#[test]
fn schema_refuses_misspelt_and_invalid_values() {
    let chart = chart();
    for (set, complaint) in [
        ("serviceMonitor.enable=true", "enable"),
        ("webhook.failurePolicy=fail", "failurePolicy"),
        ("webhook.timeoutSeconds=31", "timeoutSeconds"),
        ("logFormat=yaml", "logFormat"),
        ("controller.authorizer=rbac", "authorizer"),
        ("replicaCount=3", "replicaCount"),
        ("edge.enable=true", "enable"),
        ("edge.envoy.service.type=External", "type"),
        ("edge.envoy.logLevel=verbose", "logLevel"),
        ("webhook.tls.certManager=true", "certManager"),
        ("issuers=true", "issuers"),
        ("policyPropagator.enabled=yes", "enabled"),
    ] {
        let (ok, stdout, stderr) =
            run_helm(&["template", "certgate", chart.to_str().unwrap(), "--set", set]);
        assert!(!ok, "--set {set} was accepted:\n{stdout}");
        assert!(
            stderr.contains(complaint),
            "--set {set}: the error does not name {complaint}:\n{stderr}"
        );
    }
}

/// The chart's CRD: deploy/base/crd.yaml (`certgate crds`) with the label Kustomize adds.
fn expected_chart_crd() -> String {
    let base = std::fs::read_to_string(repo().join("deploy/base/crd.yaml")).unwrap();
    let body: String = base.split_inclusive('\n').skip_while(|l| l.starts_with('#')).collect();
    let anchor = "metadata:\n  name: certificaterequestpolicies.policy.cert-manager.io\n";
    assert_eq!(body.matches(anchor).count(), 1, "deploy/base/crd.yaml has no single {anchor:?}");
    let body = body.replacen(
        anchor,
        &format!("{anchor}  labels:\n    app.kubernetes.io/part-of: certgate\n"),
        1,
    );
    format!(
        "# Generated from deploy/base/crd.yaml (`certgate crds`) plus the label deploy/base adds. Do not\n\
         # edit; regenerate with UPDATE_GOLDEN=1 cargo test -p certgate --test helm_chart (the test fails\n\
         # when this file drifts). Helm installs it before the templates and never upgrades or deletes\n\
         # it: apply deploy/base/crd.yaml yourself when upgrading (docs/install.md#helm).\n{body}"
    )
}

#[test]
fn chart_crd_is_the_generated_crd() {
    let path = chart().join("crds/certificaterequestpolicies.yaml");
    let expected = expected_chart_crd();
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &expected).unwrap();
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        actual == expected,
        "{} is not deploy/base/crd.yaml plus its label; run UPDATE_GOLDEN=1 cargo test -p certgate --test helm_chart",
        path.display()
    );
    let crds: Vec<_> =
        std::fs::read_dir(chart().join("crds")).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(
        crds.len(),
        1,
        "crds/ holds certgate's one CRD only (cert-manager ships its own): {crds:?}"
    );
}

#[test]
fn chart_metadata_and_readme_match_the_values() {
    let chart_yaml: Value =
        serde_saphyr::from_str(&std::fs::read_to_string(chart().join("Chart.yaml")).unwrap())
            .unwrap();
    assert_eq!(chart_yaml["apiVersion"], "v2");
    assert_eq!(chart_yaml["name"], "certgate");
    assert_eq!(
        chart_yaml["appVersion"],
        format!("v{}", env!("CARGO_PKG_VERSION")),
        "appVersion is the crate's version"
    );
    let kustomization =
        std::fs::read_to_string(repo().join("deploy/base/kustomization.yaml")).unwrap();
    assert!(
        kustomization.contains(&format!("newTag: {}", chart_yaml["appVersion"].as_str().unwrap())),
        "the chart's appVersion and deploy/base's image tag differ"
    );

    // Every value (leaf, or map meant to be replaced whole) is described in the README.
    let values: Value =
        serde_saphyr::from_str(&std::fs::read_to_string(chart().join("values.yaml")).unwrap())
            .unwrap();
    let readme = std::fs::read_to_string(chart().join("README.md")).unwrap();
    let mut paths = Vec::new();
    collect_value_paths("", &values, &mut paths);
    let undocumented: Vec<&String> =
        paths.iter().filter(|p| !readme.contains(&format!("`{p}`"))).collect();
    assert!(
        undocumented.is_empty(),
        "deploy/helm/certgate/README.md does not describe {undocumented:?}"
    );
    // And every value is in the schema.
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(chart().join("values.schema.json")).unwrap())
            .unwrap();
    for path in &paths {
        let mut node = &schema;
        for part in path.split('.') {
            node = &node["properties"][part];
        }
        assert!(!node.is_null(), "values.schema.json does not describe {path}");
    }
}

/// Dotted paths of values.yaml: maps whose defaults hold fixed keys are walked, the rest
/// (Kubernetes objects such as resources, free-form maps, lists) are one value.
fn collect_value_paths(prefix: &str, value: &Value, out: &mut Vec<String>) {
    const WHOLE: [&str; 6] = [
        "resources",
        "podSecurityContext",
        "securityContext",
        "nodeSelector",
        "affinity",
        "labels",
    ];
    let last = prefix.rsplit('.').next().unwrap_or_default();
    match value {
        Value::Object(map) if !map.is_empty() && !WHOLE.contains(&last) => {
            for (k, v) in map {
                let path = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                collect_value_paths(&path, v, out);
            }
        }
        _ => out.push(prefix.to_owned()),
    }
}
