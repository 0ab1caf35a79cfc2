//! `deploy/`, the Kustomize installation: every overlay renders with the real `kubectl
//! kustomize`, keeps the hardening and least-privilege invariants, carries exactly what certgate
//! generates (the CertificateRequestPolicy CRD of `certgate crds`, the webhooks of
//! `certgate_webhook::registration`), and is accepted by an API server: a server-side dry run
//! with certgate's and cert-manager's CRDs installed for real, against `certgate dev` and a
//! real kube-apiserver (`both!`, docs/real-cluster.md).
//!
//! Overlays are found by listing `deploy/overlays/`, so a new one is covered without touching
//! this file. `UPDATE_GOLDEN=1` rewrites `deploy/base/crd.yaml` from `certgate crds`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use certgate::cli::{Cli, Command as Subcommand};
use certgate::controllers::REGISTRY;
use certgate_webhook::registration::{self, Endpoint};
use clap::Parser as _;
use serde_json::{Value, json};

mod dev_support;
use dev_support::kubectl;

/// The repository root.
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn deploy() -> PathBuf {
    repo().join("deploy")
}

/// cert-manager's CRDs as upstream ships them (beside the repository, read-only).
fn upstream_crd(file: &str) -> PathBuf {
    repo().join("../shared/upstream-crds").join(file)
}

const NAMESPACE: &str = "certgate";
const IMAGE: &str = "ghcr.io/certgate/certgate";
const CRP_CRD: &str = "certificaterequestpolicies.policy.cert-manager.io";
const POLICY_CONFIGURATION: &str = "certgate-approver-policy";
const CERT_MANAGER_CONFIGURATION: &str = "certgate-cert-manager-webhook";
const PROPAGATOR_ROLE: &str = "certgate-controller:policy-propagator";

fn kubectl_ok(kubeconfig: Option<&Path>, args: &[&str], input: Option<&str>) -> String {
    let output = kubectl(kubeconfig, args, input);
    assert!(
        output.status.success(),
        "kubectl {} failed:\n{}{}",
        args.join(" "),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// Every directory under deploy/overlays, by name.
fn overlays() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(deploy().join("overlays"))
        .unwrap()
        .map(|entry| entry.unwrap())
        .filter(|entry| entry.file_type().unwrap().is_dir())
        .map(|entry| entry.file_name().into_string().unwrap())
        .collect();
    names.sort();
    for expected in [
        "default",
        "cert-manager-ca",
        "local-authorizer",
        "builtin-approver",
        "certificaterequest-webhook",
        "policy-propagator",
    ] {
        assert!(names.iter().any(|n| n == expected), "overlay {expected} missing: {names:?}");
    }
    names
}

/// An overlay rendered by `kubectl kustomize`: the YAML stream and its objects.
struct Rendered {
    name: String,
    text: String,
    objects: Vec<Value>,
}

impl Rendered {
    fn of(overlay: &str) -> Rendered {
        Rendered::of_dir(overlay, &deploy().join("overlays").join(overlay))
    }

    fn of_dir(overlay: &str, dir: &Path) -> Rendered {
        let text = kubectl_ok(None, &["kustomize", dir.to_str().unwrap()], None);
        let objects: Vec<Value> = serde_saphyr::from_multiple(&text)
            .unwrap_or_else(|err| panic!("overlay {overlay} renders unparseable YAML: {err}"));
        assert!(!objects.is_empty(), "overlay {overlay} renders nothing");
        Rendered { name: overlay.to_owned(), text, objects }
    }

    /// deploy/base with `components`, in that order, as an overlay of one's own would list
    /// them (written to a temporary directory; Kustomize wants relative paths).
    fn with_components(components: &[&str]) -> Rendered {
        let dir = tempfile::tempdir().unwrap();
        let up: PathBuf =
            dir.path().canonicalize().unwrap().components().skip(1).map(|_| "..").collect();
        let deploy = up.join(deploy().canonicalize().unwrap().strip_prefix("/").unwrap());
        let mut text = format!(
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- {}\ncomponents:\n",
            deploy.join("base").display()
        );
        for component in components {
            text.push_str(&format!("- {}\n", deploy.join("components").join(component).display()));
        }
        std::fs::write(dir.path().join("kustomization.yaml"), text).unwrap();
        Rendered::of_dir(&format!("base + {}", components.join(" + ")), dir.path())
    }

    fn all() -> Vec<Rendered> {
        overlays().iter().map(|o| Rendered::of(o)).collect()
    }

    fn of_kind(&self, kind: &str) -> Vec<&Value> {
        self.objects.iter().filter(|o| o["kind"] == kind).collect()
    }

    fn find(&self, kind: &str, name: &str) -> Option<&Value> {
        self.of_kind(kind).into_iter().find(|o| o["metadata"]["name"] == name)
    }

    fn get(&self, kind: &str, name: &str) -> &Value {
        self.find(kind, name)
            .unwrap_or_else(|| panic!("overlay {} renders no {kind} {name}", self.name))
    }

    /// The container arguments of a Deployment.
    fn args(&self, deployment: &str) -> Vec<&str> {
        strings(
            &self.get("Deployment", deployment)["spec"]["template"]["spec"]["containers"][0]["args"],
        )
    }
}

fn strings(value: &Value) -> Vec<&str> {
    value.as_array().map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default()
}

/// The committed CRD file without its comment header.
fn committed_crd() -> (String, String) {
    let text = std::fs::read_to_string(deploy().join("base/crd.yaml")).unwrap();
    let body_start = text.lines().take_while(|l| l.starts_with('#')).map(|l| l.len() + 1).sum();
    let (header, body) = text.split_at(body_start);
    (header.to_owned(), body.to_owned())
}

#[test]
fn the_crd_in_base_is_the_one_certgate_crds_prints() {
    let output = Command::new(env!("CARGO_BIN_EXE_certgate")).arg("crds").output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stream = String::from_utf8(output.stdout).unwrap();
    let documents: Vec<&str> = stream.split("---\n").filter(|d| !d.trim().is_empty()).collect();
    let generated = documents
        .iter()
        .find(|d| d.contains(&format!("\n  name: {CRP_CRD}\n")))
        .unwrap_or_else(|| panic!("certgate crds prints no {CRP_CRD}:\n{stream}"));
    let (header, body) = committed_crd();
    assert!(header.contains("certgate crds"), "deploy/base/crd.yaml lost its header: {header}");
    if std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1") {
        std::fs::write(deploy().join("base/crd.yaml"), format!("{header}{generated}")).unwrap();
        return;
    }
    pretty_assertions::assert_eq!(
        body,
        *generated,
        "deploy/base/crd.yaml differs from `certgate crds`; rerun with UPDATE_GOLDEN=1 and review the diff"
    );
}

/// `value` with every number as a float: kustomize writes `0.0` as `0`.
fn numbers_as_floats(value: Value) -> Value {
    match value {
        Value::Number(n) => json!(n.as_f64().unwrap()),
        Value::Array(items) => Value::Array(items.into_iter().map(numbers_as_floats).collect()),
        Value::Object(map) => {
            Value::Object(map.into_iter().map(|(k, v)| (k, numbers_as_floats(v))).collect())
        }
        other => other,
    }
}

#[test]
fn every_overlay_installs_only_certgates_crd() {
    for rendered in Rendered::all() {
        let crds: Vec<&Value> = rendered.of_kind("CustomResourceDefinition");
        let names: Vec<&Value> = crds.iter().map(|c| &c["metadata"]["name"]).collect();
        // cert-manager owns CertificateRequest; certgate only brings the policy CRD.
        assert_eq!(names, [&json!(CRP_CRD)], "overlay {}", rendered.name);
        let committed: Value = serde_saphyr::from_str(&committed_crd().1).unwrap();
        let mut crd = crds[0].clone();
        crd["metadata"].as_object_mut().unwrap().remove("labels");
        assert!(
            numbers_as_floats(crd) == numbers_as_floats(committed.clone()),
            "overlay {} changes the CRD beyond labels",
            rendered.name
        );
    }
}

/// The hardening every Deployment keeps, whatever the overlay.
fn assert_hardened(rendered: &Rendered, deployment: &Value) {
    let name = deployment["metadata"]["name"].as_str().unwrap();
    let at = format!("overlay {}, Deployment {name}", rendered.name);
    assert_eq!(deployment["metadata"]["namespace"], NAMESPACE, "{at}");
    assert!(deployment["spec"]["replicas"].as_u64() >= Some(2), "{at}: replicas");
    let pod = &deployment["spec"]["template"]["spec"];
    let labels = &deployment["spec"]["template"]["metadata"]["labels"];
    assert_eq!(&deployment["spec"]["selector"]["matchLabels"], labels, "{at}: selector");
    assert_eq!(pod["securityContext"]["runAsNonRoot"], true, "{at}");
    assert!(pod["securityContext"]["runAsUser"].as_u64() > Some(0), "{at}: runAsUser");
    assert_eq!(pod["securityContext"]["seccompProfile"]["type"], "RuntimeDefault", "{at}");
    assert!(
        pod["topologySpreadConstraints"].as_array().is_some_and(|c| !c.is_empty())
            || pod["affinity"]["podAntiAffinity"].is_object(),
        "{at}: replicas are not spread"
    );
    let account = pod["serviceAccountName"].as_str().unwrap_or_else(|| panic!("{at}: no account"));
    assert!(
        rendered.find("ServiceAccount", account).is_some(),
        "{at}: no ServiceAccount {account}"
    );
    let containers = pod["containers"].as_array().unwrap();
    assert!(!containers.is_empty(), "{at}");
    for container in containers {
        let security = &container["securityContext"];
        assert_eq!(security["runAsNonRoot"], true, "{at}");
        assert_eq!(security["readOnlyRootFilesystem"], true, "{at}");
        assert_eq!(security["allowPrivilegeEscalation"], false, "{at}");
        assert_eq!(strings(&security["capabilities"]["drop"]), ["ALL"], "{at}");
        assert!(security["capabilities"]["add"].is_null(), "{at}");
        assert!(security["privileged"] != true, "{at}");
        for probe in ["livenessProbe", "readinessProbe"] {
            assert!(container[probe]["httpGet"]["path"].is_string(), "{at}: {probe}");
        }
        for resource in ["cpu", "memory"] {
            assert!(container["resources"]["requests"][resource].is_string(), "{at}: request");
            assert!(container["resources"]["limits"][resource].is_string(), "{at}: limit");
        }
        let image = container["image"].as_str().unwrap();
        let tag = image.strip_prefix(IMAGE).and_then(|t| t.strip_prefix(':'));
        assert!(tag.is_some_and(|t| !t.is_empty() && t != "latest"), "{at}: image {image}");
        let env: Vec<(&Value, &Value)> = container["env"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| (&e["name"], &e["valueFrom"]["fieldRef"]["fieldPath"]))
            .collect();
        for (variable, field) in
            [("POD_NAMESPACE", "metadata.namespace"), ("POD_NAME", "metadata.name")]
        {
            assert!(env.contains(&(&json!(variable), &json!(field))), "{at}: {variable}");
        }
    }
    // A disruption budget keeps one replica through voluntary disruptions.
    let budget = rendered
        .of_kind("PodDisruptionBudget")
        .into_iter()
        .find(|b| &b["spec"]["selector"]["matchLabels"] == labels)
        .unwrap_or_else(|| panic!("{at}: no PodDisruptionBudget selects its pods"));
    assert_eq!(budget["spec"]["minAvailable"], 1, "{at}");
}

/// The grants the invariants below forbid except in one named ClusterRole: (ClusterRole, API
/// group, resource, verb). All are the policy-propagator's (docs/install.md#policy-propagator):
/// replicas are deleted when a cluster leaves a placement; default-mode hub templates read
/// Secrets and the encryption keys are Secrets it creates, in every cluster namespace; hub
/// templates under a ServiceAccount read with a token requested for it.
const EXCEPTIONS: &[(&str, &str, &str, &str)] = &[
    (PROPAGATOR_ROLE, "policy.open-cluster-management.io", "policies", "delete"),
    (PROPAGATOR_ROLE, "", "secrets", "get"),
    (PROPAGATOR_ROLE, "", "secrets", "list"),
    (PROPAGATOR_ROLE, "", "secrets", "watch"),
    (PROPAGATOR_ROLE, "", "secrets", "create"),
    (PROPAGATOR_ROLE, "", "secrets", "update"),
    (PROPAGATOR_ROLE, "", "serviceaccounts/token", "create"),
];

/// No wildcard anywhere; no deletes, no Secrets cluster-wide and no ServiceAccount tokens but
/// the [`EXCEPTIONS`]; every binding refers to a rendered role and (in certgate's namespace) a
/// rendered ServiceAccount.
fn assert_least_privilege(rendered: &Rendered) {
    for kind in ["ClusterRole", "Role"] {
        for role in rendered.of_kind(kind) {
            let at = format!("overlay {}, {kind} {}", rendered.name, role["metadata"]["name"]);
            let rules = role["rules"].as_array().unwrap_or_else(|| panic!("{at}: no rules"));
            for rule in rules {
                for field in ["apiGroups", "resources", "verbs"] {
                    let values = strings(&rule[field]);
                    assert!(!values.is_empty(), "{at}: {field} empty");
                    assert!(!values.iter().any(|v| v.contains('*')), "{at}: {field} {values:?}");
                }
                assert!(rule["nonResourceURLs"].is_null(), "{at}");
                let verbs = strings(&rule["verbs"]);
                for verb in ["escalate", "bind", "impersonate", "deletecollection"] {
                    assert!(!verbs.contains(&verb), "{at}: {verb}");
                }
                // Each (group, resource, verb) a rule grants that only an exception may.
                let name = role["metadata"]["name"].as_str().unwrap();
                for group in strings(&rule["apiGroups"]) {
                    for resource in strings(&rule["resources"]) {
                        for verb in &verbs {
                            let restricted = *verb == "delete"
                                || (kind == "ClusterRole" && resource == "secrets")
                                || resource == "serviceaccounts/token";
                            let excepted = kind == "ClusterRole"
                                && EXCEPTIONS.contains(&(name, group, resource, verb));
                            assert!(
                                !restricted || excepted,
                                "{at}: {verb} on {resource} ({group:?}) is not among the exceptions"
                            );
                        }
                    }
                }
                // Writing webhook configurations only ever by name.
                if strings(&rule["resources"]).iter().any(|r| r.ends_with("webhookconfigurations"))
                {
                    assert!(!strings(&rule["resourceNames"]).is_empty(), "{at}: {rule}");
                }
            }
            if kind == "Role" {
                assert_eq!(role["metadata"]["namespace"], NAMESPACE, "{at}");
            }
        }
    }
    for (kind, role_kinds) in [
        ("ClusterRoleBinding", &["ClusterRole"][..]),
        ("RoleBinding", &["Role", "ClusterRole"][..]),
    ] {
        for binding in rendered.of_kind(kind) {
            let at = format!("overlay {}, {kind} {}", rendered.name, binding["metadata"]["name"]);
            let role_kind = binding["roleRef"]["kind"].as_str().unwrap();
            let role = binding["roleRef"]["name"].as_str().unwrap();
            assert!(role_kinds.contains(&role_kind), "{at}");
            assert!(rendered.find(role_kind, role).is_some(), "{at}: {role_kind} {role} missing");
            for subject in binding["subjects"].as_array().unwrap() {
                assert_eq!(subject["kind"], "ServiceAccount", "{at}");
                if subject["namespace"] == NAMESPACE {
                    let account = subject["name"].as_str().unwrap();
                    assert!(rendered.find("ServiceAccount", account).is_some(), "{at}: {account}");
                }
            }
        }
    }
}

/// Every webhook points at a rendered Service port.
fn assert_webhooks_reach_a_service(rendered: &Rendered) {
    for kind in ["ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"] {
        for configuration in rendered.of_kind(kind) {
            for webhook in configuration["webhooks"].as_array().unwrap() {
                let at = format!("overlay {}, webhook {}", rendered.name, webhook["name"]);
                let service = &webhook["clientConfig"]["service"];
                assert_eq!(service["namespace"], NAMESPACE, "{at}");
                assert!(webhook["clientConfig"]["url"].is_null(), "{at}");
                let found = rendered.get("Service", service["name"].as_str().unwrap());
                let ports = found["spec"]["ports"].as_array().unwrap();
                assert!(ports.iter().any(|p| p["port"] == service["port"]), "{at}");
            }
        }
    }
}

#[test]
fn every_overlay_keeps_pods_hardened_and_privileges_least() {
    for rendered in Rendered::all() {
        let deployments: Vec<&Value> = rendered.of_kind("Deployment");
        let names: BTreeSet<&str> =
            deployments.iter().map(|d| d["metadata"]["name"].as_str().unwrap()).collect();
        assert_eq!(
            names,
            BTreeSet::from(["certgate-controller", "certgate-webhook"]),
            "overlay {}",
            rendered.name
        );
        for deployment in deployments {
            assert_hardened(&rendered, deployment);
        }
        assert_least_privilege(&rendered);
        assert_webhooks_reach_a_service(&rendered);
        let namespaces: Vec<&Value> =
            rendered.of_kind("Namespace").into_iter().map(|n| &n["metadata"]["name"]).collect();
        assert_eq!(namespaces, [&json!(NAMESPACE)], "overlay {}", rendered.name);
        let service = rendered.get("Service", "certgate-webhook");
        assert_eq!(
            service["spec"]["ports"],
            json!([{"name": "https", "port": 443, "targetPort": "https", "protocol": "TCP"}]),
            "overlay {}",
            rendered.name
        );
    }
}

const CONTROLLER_ARGS: [&str; 6] = [
    "controller",
    "--controllers=*",
    "--authorizer=sar",
    "--leader-election-namespace=$(POD_NAMESPACE)",
    "--listen=0.0.0.0:9402",
    "--log-format=json",
];

const WEBHOOK_ARGS: [&str; 7] = [
    "webhook",
    "--listen=0.0.0.0:9443",
    "--dynamic-serving-ca-secret-name=certgate-webhook-ca",
    "--dynamic-serving-ca-secret-namespace=$(POD_NAMESPACE)",
    "--dynamic-serving-dns-names=certgate-webhook,certgate-webhook.certgate,certgate-webhook.certgate.svc",
    "--inject-ca-bundle=certgate-approver-policy",
    "--log-format=json",
];

fn replaced<'a>(args: &[&'a str], index: usize, value: &'a str) -> Vec<&'a str> {
    let mut args = args.to_vec();
    args[index] = value;
    args
}

/// Which ClusterRoles, Roles and bindings an overlay renders.
fn rbac_names(rendered: &Rendered) -> BTreeSet<String> {
    ["ClusterRole", "Role", "ClusterRoleBinding", "RoleBinding"]
        .iter()
        .flat_map(|kind| {
            rendered
                .of_kind(kind)
                .into_iter()
                .map(move |o| format!("{kind}/{}", o["metadata"]["name"].as_str().unwrap()))
        })
        .collect()
}

#[test]
fn each_overlay_runs_the_commands_it_promises() {
    for rendered in Rendered::all() {
        let (controller, webhook): (Vec<&str>, Vec<&str>) = match rendered.name.as_str() {
            "default" => (CONTROLLER_ARGS.to_vec(), WEBHOOK_ARGS.to_vec()),
            "local-authorizer" => {
                (replaced(&CONTROLLER_ARGS, 2, "--authorizer=local"), WEBHOOK_ARGS.to_vec())
            }
            "builtin-approver" => (
                replaced(&CONTROLLER_ARGS, 1, "--controllers=*,builtin-approver"),
                WEBHOOK_ARGS.to_vec(),
            ),
            "cert-manager-ca" => (
                CONTROLLER_ARGS.to_vec(),
                vec![
                    "webhook",
                    "--listen=0.0.0.0:9443",
                    "--tls-cert-file=/tls/tls.crt",
                    "--tls-private-key-file=/tls/tls.key",
                    "--log-format=json",
                ],
            ),
            "certificaterequest-webhook" => {
                let mut webhook = WEBHOOK_ARGS.to_vec();
                webhook.insert(6, "--inject-ca-bundle=certgate-cert-manager-webhook");
                (CONTROLLER_ARGS.to_vec(), webhook)
            }
            "policy-propagator" => {
                let mut controller = CONTROLLER_ARGS.to_vec();
                controller.push("--controllers=policy-propagator");
                (controller, WEBHOOK_ARGS.to_vec())
            }
            _ => continue, // an overlay added later: the generic invariants cover it
        };
        assert_eq!(rendered.args("certgate-controller"), controller, "overlay {}", rendered.name);
        assert_eq!(rendered.args("certgate-webhook"), webhook, "overlay {}", rendered.name);
    }
}

/// The controllers `certgate controller` runs with the rendered controller arguments: parsed
/// by certgate's own command line (a repeated `--controllers` adds to the list) and selected
/// from its registry.
fn selected_controllers(rendered: &Rendered) -> Vec<&'static str> {
    let args = rendered.args("certgate-controller");
    let cli = Cli::try_parse_from(std::iter::once("certgate").chain(args.iter().copied()))
        .unwrap_or_else(|err| panic!("overlay {}: {args:?}: {err}", rendered.name));
    let Subcommand::Controller(controller) = cli.command else {
        panic!("overlay {}: not `certgate controller`: {args:?}", rendered.name)
    };
    REGISTRY
        .select(&controller.controllers)
        .unwrap_or_else(|err| panic!("overlay {}: {err}", rendered.name))
        .iter()
        .map(|spec| spec.name)
        .collect()
}

const DEFAULT_CONTROLLERS: [&str; 2] = ["policy-approver", "policy-readiness"];

#[test]
fn each_overlay_selects_the_controllers_it_promises() {
    for rendered in Rendered::all() {
        let mut expected = DEFAULT_CONTROLLERS.to_vec();
        match rendered.name.as_str() {
            "builtin-approver" => expected.push("builtin-approver"),
            "policy-propagator" => expected.push("policy-propagator"),
            _ => {}
        }
        assert_eq!(selected_controllers(&rendered), expected, "overlay {}", rendered.name);
    }
}

/// builtin-approver replaces `--controllers=*` (checking it first), policy-propagator adds an
/// argument `--controllers=policy-propagator` at the end, local-authorizer replaces
/// `--authorizer=sar`: listed in any order in an overlay, they render the same installation.
#[test]
fn the_controller_components_combine_in_either_order() {
    let base = rbac_names(&Rendered::of("default"));
    let propagator: BTreeSet<String> =
        [format!("ClusterRole/{PROPAGATOR_ROLE}"), format!("ClusterRoleBinding/{PROPAGATOR_ROLE}")]
            .into();
    let sar = ["ClusterRole", "ClusterRoleBinding"]
        .map(|kind| format!("{kind}/certgate-controller:subjectaccessreviews"));

    let orders: [&[&str]; 2] =
        [&["builtin-approver", "policy-propagator"], &["policy-propagator", "builtin-approver"]];
    let both: Vec<Rendered> = orders.iter().map(|o| Rendered::with_components(o)).collect();
    let mut args = replaced(&CONTROLLER_ARGS, 1, "--controllers=*,builtin-approver");
    args.push("--controllers=policy-propagator");
    for rendered in &both {
        assert_eq!(rendered.text, both[0].text, "{} and {} differ", rendered.name, both[0].name);
        assert_eq!(rendered.args("certgate-controller"), args, "{}", rendered.name);
        assert_eq!(
            selected_controllers(rendered),
            ["policy-approver", "policy-readiness", "builtin-approver", "policy-propagator"],
            "{}",
            rendered.name
        );
        assert_eq!(rbac_names(rendered), &base | &propagator, "{}", rendered.name);
        assert_least_privilege(rendered);
    }

    let orders: [&[&str]; 3] = [
        &["local-authorizer", "builtin-approver", "policy-propagator"],
        &["policy-propagator", "local-authorizer", "builtin-approver"],
        &["builtin-approver", "policy-propagator", "local-authorizer"],
    ];
    let all: Vec<Rendered> = orders.iter().map(|o| Rendered::with_components(o)).collect();
    let args = replaced(&args, 2, "--authorizer=local");
    for rendered in &all {
        assert_eq!(rendered.text, all[0].text, "{} and {} differ", rendered.name, all[0].name);
        assert_eq!(rendered.args("certgate-controller"), args, "{}", rendered.name);
        assert_eq!(selected_controllers(rendered), selected_controllers(&both[0]));
        let expected: BTreeSet<String> =
            (&base | &propagator).into_iter().filter(|n| !sar.contains(n)).collect();
        assert_eq!(rbac_names(rendered), expected, "{}", rendered.name);
        assert_least_privilege(rendered);
        for deployment in rendered.of_kind("Deployment") {
            assert_hardened(rendered, deployment);
        }
    }
}

#[test]
fn rbac_follows_the_components_each_overlay_runs() {
    let default = Rendered::of("default");
    let base = rbac_names(&default);
    let expected_base: BTreeSet<String> = [
        "ClusterRole/certgate-controller",
        "ClusterRole/certgate-controller:subjectaccessreviews",
        "ClusterRole/certgate-controller-approve:cert-manager-io",
        "ClusterRole/certgate-webhook",
        "ClusterRole/certgate-webhook:ca-injection",
        "Role/certgate-controller:leader-election",
        "Role/certgate-webhook:dynamic-serving",
    ]
    .iter()
    .flat_map(|r| {
        let binding = r.replacen("Role/", "RoleBinding/", 1);
        [(*r).to_owned(), binding]
    })
    .collect();
    assert_eq!(base, expected_base);

    let approve = default.get("ClusterRole", "certgate-controller-approve:cert-manager-io");
    assert_eq!(
        approve["rules"],
        json!([{
            "apiGroups": ["cert-manager.io"],
            "resources": ["signers"],
            "verbs": ["approve"],
            "resourceNames": ["issuers.cert-manager.io/*", "clusterissuers.cert-manager.io/*"],
        }])
    );
    let leases = default.get("Role", "certgate-controller:leader-election");
    assert_eq!(
        leases["rules"],
        json!([
            {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["get", "update", "patch"], "resourceNames": ["certgate-controller"]},
            {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["create"]},
        ])
    );
    let secrets = default.get("Role", "certgate-webhook:dynamic-serving");
    assert_eq!(
        secrets["rules"],
        json!([
            {"apiGroups": [""], "resources": ["secrets"], "verbs": ["get", "update"], "resourceNames": ["certgate-webhook-ca"]},
            {"apiGroups": [""], "resources": ["secrets"], "verbs": ["create"]},
        ])
    );
    let injection = default.get("ClusterRole", "certgate-webhook:ca-injection");
    assert_eq!(strings(&injection["rules"][0]["resourceNames"]), [POLICY_CONFIGURATION]);

    let without = |names: &[&str]| -> BTreeSet<String> {
        base.iter()
            .filter(|n| !names.iter().any(|x| n.ends_with(&format!("/{x}"))))
            .cloned()
            .collect()
    };
    let local = rbac_names(&Rendered::of("local-authorizer"));
    assert_eq!(local, without(&["certgate-controller:subjectaccessreviews"]));
    let builtin = rbac_names(&Rendered::of("builtin-approver"));
    assert_eq!(builtin, base);

    let cert_manager_ca = Rendered::of("cert-manager-ca");
    let mut expected =
        without(&["certgate-webhook:ca-injection", "certgate-webhook:dynamic-serving"]);
    expected.insert("Role/certgate-webhook-serving:policy-user".into());
    expected.insert("RoleBinding/certgate-webhook-serving:policy-user".into());
    assert_eq!(rbac_names(&cert_manager_ca), expected);

    // policy-propagator: its ClusterRole and binding, with exactly the rules docs/install.md and
    // docs/propagator.md list.
    let with_propagator = Rendered::of("policy-propagator");
    let mut expected = base.clone();
    expected.insert(format!("ClusterRole/{PROPAGATOR_ROLE}"));
    expected.insert(format!("ClusterRoleBinding/{PROPAGATOR_ROLE}"));
    assert_eq!(rbac_names(&with_propagator), expected);
    let role = with_propagator.get("ClusterRole", PROPAGATOR_ROLE);
    assert_eq!(
        role["rules"],
        json!([
            {"apiGroups": ["policy.open-cluster-management.io"], "resources": ["policies"], "verbs": ["get", "list", "watch", "create", "update", "patch", "delete"]},
            {"apiGroups": ["policy.open-cluster-management.io"], "resources": ["policies/status"], "verbs": ["patch", "update"]},
            {"apiGroups": ["policy.open-cluster-management.io"], "resources": ["placementbindings", "policysets"], "verbs": ["get", "list", "watch"]},
            {"apiGroups": ["cluster.open-cluster-management.io"], "resources": ["placements", "placementdecisions", "managedclusters"], "verbs": ["get", "list", "watch"]},
            {"apiGroups": ["apps.open-cluster-management.io"], "resources": ["placementrules"], "verbs": ["get", "list", "watch"]},
            {"apiGroups": [""], "resources": ["configmaps", "secrets"], "verbs": ["get", "list", "watch"]},
            {"apiGroups": [""], "resources": ["secrets"], "verbs": ["create"]},
            {"apiGroups": [""], "resources": ["secrets"], "verbs": ["update"], "resourceNames": ["policy-encryption-key"]},
            {"apiGroups": [""], "resources": ["serviceaccounts"], "verbs": ["get", "list", "watch"]},
            {"apiGroups": [""], "resources": ["serviceaccounts/token"], "verbs": ["create"]},
            {"apiGroups": ["events.k8s.io"], "resources": ["events"], "verbs": ["create", "patch"]},
        ])
    );
    let binding = with_propagator.get("ClusterRoleBinding", PROPAGATOR_ROLE);
    assert_eq!(
        binding["roleRef"],
        json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": PROPAGATOR_ROLE})
    );
    assert_eq!(
        binding["subjects"],
        json!([{"kind": "ServiceAccount", "name": "certgate-controller", "namespace": NAMESPACE}])
    );
    // The exceptions to the least-privilege invariants are this role's and nothing else's.
    for rendered in Rendered::all() {
        if rendered.find("ClusterRole", PROPAGATOR_ROLE).is_some() {
            assert_eq!(rendered.name, "policy-propagator");
        }
    }

    let with_cr_webhook = Rendered::of("certificaterequest-webhook");
    assert_eq!(rbac_names(&with_cr_webhook), base);
    let injection = with_cr_webhook.get("ClusterRole", "certgate-webhook:ca-injection");
    assert_eq!(
        injection["rules"],
        json!([
            {"apiGroups": ["admissionregistration.k8s.io"], "resources": ["validatingwebhookconfigurations"], "verbs": ["get", "update"], "resourceNames": [POLICY_CONFIGURATION, CERT_MANAGER_CONFIGURATION]},
            {"apiGroups": ["admissionregistration.k8s.io"], "resources": ["mutatingwebhookconfigurations"], "verbs": ["get", "update"], "resourceNames": [CERT_MANAGER_CONFIGURATION]},
        ])
    );
}

/// registration.rs's configurations for the in-cluster Service, without a CA bundle.
fn registered() -> Vec<Value> {
    let endpoint = Endpoint::Service {
        namespace: NAMESPACE.into(),
        name: "certgate-webhook".into(),
        port: 443,
    };
    let mut configurations = registration::configurations(&endpoint, "");
    for configuration in &mut configurations {
        for webhook in configuration["webhooks"].as_array_mut().unwrap() {
            webhook["clientConfig"].as_object_mut().unwrap().remove("caBundle");
        }
    }
    configurations
}

#[test]
fn the_webhooks_are_registered_as_certgate_registers_them() {
    let registered = registered();
    let (mutating, cert_manager, policy) = (&registered[0], &registered[1], &registered[2]);
    assert_eq!(policy["webhooks"][0]["name"], registration::POLICY_WEBHOOK);
    // OCM's two webhooks ride in the same configuration, with upstream's failurePolicy Ignore.
    let ocm: Vec<(&Value, &Value)> = policy["webhooks"].as_array().unwrap()[1..]
        .iter()
        .map(|w| (&w["name"], &w["failurePolicy"]))
        .collect();
    assert_eq!(
        ocm,
        [
            (&json!(registration::OCM_POLICY_WEBHOOK), &json!("Ignore")),
            (&json!(registration::OCM_POLICY_SET_WEBHOOK), &json!("Ignore")),
        ]
    );
    for rendered in Rendered::all() {
        let at = format!("overlay {}", rendered.name);
        // approver-policy's webhook, in every overlay: everything but the object's name.
        let configuration = rendered.get("ValidatingWebhookConfiguration", POLICY_CONFIGURATION);
        assert_eq!(configuration["webhooks"], policy["webhooks"], "{at}");
        // The CA bundle is filled in at run time, never shipped.
        let injected_by_cert_manager =
            configuration["metadata"]["annotations"]["cert-manager.io/inject-ca-from"]
                .as_str()
                .map(str::to_owned);
        if rendered.name == "cert-manager-ca" {
            assert_eq!(injected_by_cert_manager.as_deref(), Some("certgate/certgate-webhook-tls"));
            let certificate = rendered.get("Certificate", "certgate-webhook-tls");
            assert_eq!(
                strings(&certificate["spec"]["dnsNames"]),
                ["certgate-webhook", "certgate-webhook.certgate", "certgate-webhook.certgate.svc"]
            );
            assert_eq!(certificate["spec"]["secretName"], "certgate-webhook-tls");
        } else if [
            "default",
            "local-authorizer",
            "builtin-approver",
            "certificaterequest-webhook",
            "policy-propagator",
        ]
        .contains(&rendered.name.as_str())
        {
            assert_eq!(injected_by_cert_manager, None, "{at}");
        }

        let cert_manager_hooks = (
            rendered.find("MutatingWebhookConfiguration", CERT_MANAGER_CONFIGURATION),
            rendered.find("ValidatingWebhookConfiguration", CERT_MANAGER_CONFIGURATION),
        );
        if rendered.name != "certificaterequest-webhook" {
            if rendered.name == "default" {
                assert_eq!(cert_manager_hooks, (None, None), "{at}");
            }
            continue;
        }
        let (Some(rendered_mutating), Some(rendered_validating)) = cert_manager_hooks else {
            panic!("{at}: cert-manager's webhook configurations missing");
        };
        assert_eq!(rendered_mutating["webhooks"], mutating["webhooks"], "{at}");
        assert_eq!(rendered_validating["webhooks"], cert_manager["webhooks"], "{at}");
    }
}

both!(
    fn every_overlay_is_accepted_by_the_api_server_in_a_server_dry_run(server) {
    let dev = server.start_with(&["--no-webhook", "--controllers=-*"]);
    let sandbox = Admin(&dev.kubeconfig);
    // What the cluster has before certgate is installed: cert-manager's CRDs. certgate's own
    // CRD and Namespace are applied for real too, as docs/install.md installs them first (a
    // dry run creates nothing, so namespaced objects need the namespace to exist).
    for file in [
        "cert-manager.io_certificaterequests.yaml",
        "cert-manager.io_certificates.yaml",
        "cert-manager.io_issuers.yaml",
        "cert-manager.io_clusterissuers.yaml",
    ] {
        let path = upstream_crd(file);
        assert!(path.exists(), "{} is missing", path.display());
        sandbox.ok(
            &["apply", "--server-side", "--force-conflicts", "-f", path.to_str().unwrap()],
            None,
        );
    }
    for file in ["base/crd.yaml", "base/namespace.yaml"] {
        sandbox.ok(&["apply", "-f", deploy().join(file).to_str().unwrap()], None);
    }
    sandbox.ok(
        &["wait", "--for=condition=Established", &format!("crd/{CRP_CRD}"), "--timeout=30s"],
        None,
    );

    for rendered in Rendered::all() {
        let output = kubectl(
            Some(sandbox.0),
            &["apply", "--dry-run=server", "-f", "-"],
            Some(&rendered.text),
        );
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "overlay {} is refused:\n{stdout}{}",
            rendered.name,
            String::from_utf8_lossy(&output.stderr)
        );
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.len(), rendered.objects.len(), "overlay {}:\n{stdout}", rendered.name);
        assert!(
            lines.iter().all(|l| l.ends_with("(server dry run)")),
            "overlay {}:\n{stdout}",
            rendered.name
        );
    }
    // Nothing of the dry runs was stored.
    let stored = sandbox.ok(
        &[
            "get",
            "deployments,services,poddisruptionbudgets,serviceaccounts,roles",
            "-n",
            NAMESPACE,
            "-o",
            "name",
        ],
        None,
    );
    assert!(!stored.contains("certgate-"), "{stored}");
    let configurations =
        sandbox.ok(&["get", "validatingwebhookconfigurations", "-o", "name"], None);
    assert!(!configurations.contains(POLICY_CONFIGURATION), "{configurations}");
    }
);

/// kubectl as the API server's admin.
struct Admin<'a>(&'a Path);

impl Admin<'_> {
    fn ok(&self, args: &[&str], input: Option<&str>) -> String {
        kubectl_ok(Some(self.0), args, input)
    }
}

/// A CertificateRequest as cert-manager's controller makes it from the Certificate of
/// component cert-manager-ca: an ECDSA P-256 CSR for `dns_names` with an empty subject and
/// the usages encoded, requested by `username`.
fn serving_request(name: &str, dns_names: &[&str], username: &str) -> String {
    use base64::Engine as _;
    let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
    let mut params = rcgen::CertificateParams::new(
        dns_names.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>(),
    )
    .unwrap();
    params.distinguished_name = rcgen::DistinguishedName::new();
    params.key_usages = vec![rcgen::KeyUsagePurpose::DigitalSignature];
    params.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ServerAuth];
    let csr = params.serialize_request(&key).unwrap().pem().unwrap();
    let request = base64::engine::general_purpose::STANDARD.encode(csr);
    format!(
        "apiVersion: cert-manager.io/v1\nkind: CertificateRequest\nmetadata:\n  name: {name}\n  namespace: certgate\n\
         spec:\n  issuerRef:\n    group: cert-manager.io\n    kind: Issuer\n    name: certgate-selfsigned\n\
         \x20 duration: 2160h\n  usages: [digital signature, server auth]\n  username: \"{username}\"\n\
         \x20 groups: [system:serviceaccounts, system:serviceaccounts:cert-manager, system:authenticated]\n\
         \x20 request: {request}\n"
    )
}

#[test]
fn the_cert_manager_ca_policy_approves_the_webhooks_serving_certificate_and_nothing_else() {
    const CERT_MANAGER: &str = "system:serviceaccount:cert-manager:cert-manager";
    const NAMES: [&str; 3] =
        ["certgate-webhook", "certgate-webhook.certgate", "certgate-webhook.certgate.svc"];
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        deploy().join("components/cert-manager-ca/policy.yaml"),
        dir.path().join("policy.yaml"),
    )
    .unwrap();
    let requests = [
        serving_request("serving", &NAMES, CERT_MANAGER),
        serving_request("more-names", &[NAMES[0], "evil.example.com"], CERT_MANAGER),
        serving_request("someone-else", &NAMES, "system:serviceaccount:certgate:certgate-webhook"),
    ];
    std::fs::write(dir.path().join("requests.yaml"), requests.join("---\n")).unwrap();
    std::fs::write(
        dir.path().join("namespace.yaml"),
        std::fs::read_to_string(deploy().join("base/namespace.yaml")).unwrap(),
    )
    .unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_certgate"))
        .args(["check", "-o", "json", "-f"])
        .arg(dir.path())
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|err| {
        panic!(
            "{err}: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    assert_eq!(report["rbacEvaluated"], true, "{report:#}");
    assert_eq!(report["policies"][0]["ready"], true, "{report:#}");
    let decisions: Vec<(&str, &str)> = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["name"].as_str().unwrap(), r["decision"].as_str().unwrap()))
        .collect();
    assert_eq!(
        decisions,
        [("serving", "Approved"), ("more-names", "Denied"), ("someone-else", "Unprocessed")],
        "{report:#}"
    );
}
