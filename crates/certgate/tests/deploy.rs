//! `deploy/`, the Kustomize installation: every overlay renders with the real `kubectl
//! kustomize`, keeps the hardening and least-privilege invariants, carries exactly what certgate
//! generates (the CertificateRequestPolicy CRD of `certgate crds`, the webhooks of
//! `certgate_webhook::registration`), and is accepted by an API server: a server-side dry run
//! with certgate's and cert-manager's CRDs installed for real, against `certgate dev` and a
//! real kube-apiserver (`both!`, docs/real-cluster.md).
//!
//! Overlays are found by listing `deploy/overlays/`, so a new one is covered without touching
//! this file. `UPDATE_GOLDEN=1` rewrites `deploy/base/crd.yaml` from `certgate crds`.
//!
//! The `edge` overlay (`certgate edge serve` and Envoy, docs/edge.md#deploying) is checked
//! further: every flag its containers pass is one the command's `--help` lists (certgate's and
//! the tested Envoy's) and certgate's own parser accepts; the Services, ports, Secrets, mounts
//! and DNS names fit together; Envoy (`--mode validate`) accepts the bootstrap the rendered
//! init container writes; certgate's policies approve exactly the xDS certificates; and on a
//! real kube-apiserver every pod template passes the namespace's Pod Security enforcement and
//! the rendered `edge serve`, running with nothing but the overlay's RBAC, serves a real
//! Envoy started with the rendered arguments over mutual TLS. The `issuers` overlay
//! (cert-manager's CA and SelfSigned issuers, docs/issuance.md#deploying) has its ClusterRole
//! checked rule by rule, and its rendered `certgate controller`, running on a real
//! kube-apiserver with nothing but the overlay's RBAC, makes issuers Ready and signs approved
//! requests. No container runs (no images here): the processes are the test's own binaries
//! with the rendered arguments.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use certgate::cli::{Cli, Command as Subcommand};
use certgate::controllers::REGISTRY;
use certgate_webhook::registration::{self, Endpoint};
use clap::Parser as _;
use serde_json::{Value, json};

mod dev_support;
mod edge_support;
mod revocation_lists;
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
/// The ClusterRoles (and bindings) of component issuers: the CA and SelfSigned issuers',
/// the certificates controller's and issuers-crl's.
const ISSUERS_ROLE: &str = "certgate-controller:issuers";
const CERTIFICATES_ROLE: &str = "certgate-controller:certificates";
const CRL_ROLE: &str = "certgate-controller:issuers-crl";
const ISSUERS_ROLES: [&str; 3] = [ISSUERS_ROLE, CERTIFICATES_ROLE, CRL_ROLE];
/// What component issuers appends to the controller's arguments: cert-manager's CA and
/// SelfSigned issuer controllers, the certificates controller and issuers-crl
/// (docs/issuance.md).
const ISSUERS_ARG: &str = "--controllers=issuers,clusterissuers,certificaterequests-issuer-ca,certificaterequests-issuer-selfsigned,certificates,issuers-crl";
const ISSUER_CONTROLLERS: [&str; 6] = [
    "issuers",
    "clusterissuers",
    "certificaterequests-issuer-ca",
    "certificaterequests-issuer-selfsigned",
    "certificates",
    "issuers-crl",
];
/// The edge's Deployment, ServiceAccount, Service, ClusterRole and Lease.
const EDGE: &str = "certgate-edge";

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
        "issuers",
        "edge",
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

    /// The pod spec of a workload's template.
    fn pod(&self, kind: &str, name: &str) -> &Value {
        &self.get(kind, name)["spec"]["template"]["spec"]
    }

    /// The container (or init container) `container` of a workload.
    fn container(&self, kind: &str, name: &str, container: &str) -> &Value {
        all_containers(self.pod(kind, name))
            .into_iter()
            .find(|c| c["name"] == container)
            .unwrap_or_else(|| panic!("overlay {}: {kind} {name} has no {container}", self.name))
    }

    /// The certgate image, as the base's controller runs it.
    fn certgate_image(&self) -> &Value {
        &self.container("Deployment", "certgate-controller", "controller")["image"]
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
        assert_container_hardened(&at, container);
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

/// The container hardening of every certgate and Envoy container, init containers included.
fn assert_container_hardened(at: &str, container: &Value) {
    let at = format!("{at}, container {}", container["name"]);
    let security = &container["securityContext"];
    assert_eq!(security["runAsNonRoot"], true, "{at}");
    assert_eq!(security["readOnlyRootFilesystem"], true, "{at}");
    assert_eq!(security["allowPrivilegeEscalation"], false, "{at}");
    assert_eq!(strings(&security["capabilities"]["drop"]), ["ALL"], "{at}");
    assert!(security["capabilities"]["add"].is_null(), "{at}");
    assert!(security["privileged"] != true, "{at}");
    assert_eq!(security["seccompProfile"]["type"], "RuntimeDefault", "{at}");
}

/// The pod templates of every workload an overlay renders, with what they are called.
fn pod_templates(rendered: &Rendered) -> Vec<(String, &Value)> {
    ["Deployment", "DaemonSet", "StatefulSet", "ReplicaSet", "Job", "CronJob"]
        .iter()
        .flat_map(|kind| {
            rendered.of_kind(kind).into_iter().map(move |workload| {
                let template = if *kind == "CronJob" {
                    &workload["spec"]["jobTemplate"]["spec"]["template"]
                } else {
                    &workload["spec"]["template"]
                };
                (format!("{kind} {}", workload["metadata"]["name"].as_str().unwrap()), template)
            })
        })
        .collect()
}

/// A pod's containers and init containers.
fn all_containers(pod: &Value) -> Vec<&Value> {
    ["initContainers", "containers"]
        .iter()
        .filter_map(|key| pod[*key].as_array())
        .flatten()
        .collect()
}

/// No pod shares the node's network, process or IPC namespaces, binds a host port or mounts
/// a host path: the namespace enforces the restricted Pod Security Standard, under which such
/// pods are refused at creation (a Deployment or DaemonSet asking for them is accepted and
/// then never gets a pod; the real-server test below checks the standard itself).
fn assert_no_host_access(rendered: &Rendered) {
    for (workload, template) in pod_templates(rendered) {
        let at = format!("overlay {}, {workload}", rendered.name);
        let pod = &template["spec"];
        for field in ["hostNetwork", "hostPID", "hostIPC"] {
            assert!(pod[field] != true, "{at}: {field}");
        }
        for volume in pod["volumes"].as_array().into_iter().flatten() {
            assert!(volume["hostPath"].is_null(), "{at}: hostPath volume {volume}");
        }
        for container in all_containers(pod) {
            for port in container["ports"].as_array().into_iter().flatten() {
                assert!(port["hostPort"].is_null(), "{at}: hostPort {port}");
            }
        }
    }
}

/// Every certgate container of an overlay (init containers included) runs the same image: the
/// edge component pins the tag itself (the base's `images:` does not reach it), and this
/// keeps both pins equal.
fn assert_one_certgate_image(rendered: &Rendered) {
    let images: BTreeSet<&str> = pod_templates(rendered)
        .into_iter()
        .flat_map(|(_, template)| all_containers(&template["spec"]))
        .filter_map(|container| container["image"].as_str())
        .filter(|image| image.starts_with(&format!("{IMAGE}:")) || *image == IMAGE)
        .collect();
    assert_eq!(images.len(), 1, "overlay {}: certgate images {images:?}", rendered.name);
}

/// The Envoy release certgate's tests run (tools/envoy/install's default), which the edge's
/// DaemonSet must pin.
fn tested_envoy_version() -> String {
    let script = std::fs::read_to_string(repo().join("tools/envoy/install")).unwrap();
    let start = script.find("${ENVOY_VERSION:-").expect("tools/envoy/install names no version")
        + "${ENVOY_VERSION:-".len();
    let end = start + script[start..].find('}').unwrap();
    script[start..end].to_owned()
}

/// The envoy DaemonSet of overlay edge: hardened pods as certgate's, Envoy's own image (the
/// tested release), a readiness probe but no liveness probe (an Envoy cut off from xDS keeps
/// serving what it has; restarting it would not help), no API access at all.
fn assert_envoy_hardened(rendered: &Rendered, daemonset: &Value) {
    let at = format!("overlay {}, DaemonSet envoy", rendered.name);
    assert_eq!(daemonset["metadata"]["namespace"], NAMESPACE, "{at}");
    let labels = &daemonset["spec"]["template"]["metadata"]["labels"];
    assert_eq!(&daemonset["spec"]["selector"]["matchLabels"], labels, "{at}: selector");
    let pod = &daemonset["spec"]["template"]["spec"];
    assert_eq!(pod["securityContext"]["runAsNonRoot"], true, "{at}");
    assert!(pod["securityContext"]["runAsUser"].as_u64() > Some(0), "{at}: runAsUser");
    assert_eq!(pod["securityContext"]["seccompProfile"]["type"], "RuntimeDefault", "{at}");
    // No token in the pod, and its ServiceAccount bound to nothing.
    assert_eq!(pod["automountServiceAccountToken"], false, "{at}");
    let account = pod["serviceAccountName"].as_str().unwrap();
    assert_eq!(rendered.get("ServiceAccount", account)["automountServiceAccountToken"], false);
    for kind in ["ClusterRoleBinding", "RoleBinding"] {
        for binding in rendered.of_kind(kind) {
            for subject in binding["subjects"].as_array().unwrap() {
                assert!(
                    !(subject["name"] == account && subject["namespace"] == NAMESPACE),
                    "{at}: {kind} {} binds {account}",
                    binding["metadata"]["name"]
                );
            }
        }
    }
    for container in all_containers(pod) {
        assert_container_hardened(&at, container);
        for resource in ["cpu", "memory"] {
            assert!(container["resources"]["requests"][resource].is_string(), "{at}: request");
        }
        assert!(container["resources"]["limits"]["memory"].is_string(), "{at}: memory limit");
    }
    let init = &pod["initContainers"][0];
    assert_eq!(&init["image"], rendered.certgate_image(), "{at}: bootstrap image");
    let envoy = &pod["containers"][0];
    assert_eq!(pod["containers"].as_array().unwrap().len(), 1, "{at}");
    assert_eq!(
        envoy["image"],
        format!("docker.io/envoyproxy/envoy:v{}", tested_envoy_version()),
        "{at}: not the Envoy release the tests run"
    );
    assert!(envoy["readinessProbe"].is_object(), "{at}: readiness");
    assert!(envoy["livenessProbe"].is_null(), "{at}: liveness");
}

/// The grants the invariants below forbid except in one named ClusterRole: (ClusterRole, API
/// group, resource, verb). The policy-propagator's (docs/install.md#policy-propagator):
/// replicas are deleted when a cluster leaves a placement; default-mode hub templates read
/// Secrets and the encryption keys are Secrets it creates, in every cluster namespace; hub
/// templates under a ServiceAccount read with a token requested for it. The edge's
/// (docs/edge.md#deploying): an HTTPProxy names serving, CA and CRL Secrets of any namespace
/// (delegation), so every Secret is watched, as Contour does; never read by name or written.
/// The issuers' (docs/install.md#issuers): CA key pairs and SelfSigned keys are Secrets of
/// any namespace (an Issuer's own, the requests'), read by name, and Secrets' metadata is
/// watched to look again at the issuers and requests a changed Secret concerns; never written.
/// The certificates controller's: Certificates' Secrets and next private keys are Secrets of
/// any namespace, written, and next private keys and stale CertificateRequests deleted.
/// issuers-crl's: CRL Secrets in any issuer's resource namespace, created and updated.
const EXCEPTIONS: &[(&str, &str, &str, &str)] = &[
    (PROPAGATOR_ROLE, "policy.open-cluster-management.io", "policies", "delete"),
    (PROPAGATOR_ROLE, "", "secrets", "get"),
    (PROPAGATOR_ROLE, "", "secrets", "list"),
    (PROPAGATOR_ROLE, "", "secrets", "watch"),
    (PROPAGATOR_ROLE, "", "secrets", "create"),
    (PROPAGATOR_ROLE, "", "secrets", "update"),
    (PROPAGATOR_ROLE, "", "serviceaccounts/token", "create"),
    (EDGE, "", "secrets", "list"),
    (EDGE, "", "secrets", "watch"),
    (ISSUERS_ROLE, "", "secrets", "get"),
    (ISSUERS_ROLE, "", "secrets", "list"),
    (ISSUERS_ROLE, "", "secrets", "watch"),
    (CERTIFICATES_ROLE, "cert-manager.io", "certificaterequests", "delete"),
    (CERTIFICATES_ROLE, "", "secrets", "get"),
    (CERTIFICATES_ROLE, "", "secrets", "list"),
    (CERTIFICATES_ROLE, "", "secrets", "watch"),
    (CERTIFICATES_ROLE, "", "secrets", "create"),
    (CERTIFICATES_ROLE, "", "secrets", "update"),
    (CERTIFICATES_ROLE, "", "secrets", "delete"),
    (CRL_ROLE, "", "secrets", "get"),
    (CRL_ROLE, "", "secrets", "list"),
    (CRL_ROLE, "", "secrets", "watch"),
    (CRL_ROLE, "", "secrets", "create"),
    (CRL_ROLE, "", "secrets", "update"),
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
        let edge = rendered.name == "edge";
        let mut expected = BTreeSet::from(["certgate-controller", "certgate-webhook"]);
        if edge {
            expected.insert(EDGE);
        }
        assert_eq!(names, expected, "overlay {}", rendered.name);
        for deployment in deployments {
            assert_hardened(&rendered, deployment);
        }
        let daemonsets: Vec<&Value> = rendered.of_kind("DaemonSet");
        let names: Vec<&str> =
            daemonsets.iter().map(|d| d["metadata"]["name"].as_str().unwrap()).collect();
        assert_eq!(names, if edge { vec!["envoy"] } else { vec![] }, "overlay {}", rendered.name);
        for daemonset in daemonsets {
            assert_envoy_hardened(&rendered, daemonset);
        }
        assert_no_host_access(&rendered);
        assert_one_certgate_image(&rendered);
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
            "issuers" => {
                let mut controller = CONTROLLER_ARGS.to_vec();
                controller.push(ISSUERS_ARG);
                (controller, WEBHOOK_ARGS.to_vec())
            }
            // Its own commands: the_edge_overlay_runs_the_edge_commands.
            "edge" => (CONTROLLER_ARGS.to_vec(), WEBHOOK_ARGS.to_vec()),
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
            "issuers" => expected.extend(ISSUER_CONTROLLERS),
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

    // issuers appends its argument as policy-propagator does: with builtin-approver and
    // local-authorizer any order renders the same installation.
    let issuers: BTreeSet<String> = ISSUERS_ROLES
        .iter()
        .flat_map(|role| [format!("ClusterRole/{role}"), format!("ClusterRoleBinding/{role}")])
        .collect();
    let orders: [&[&str]; 3] = [
        &["issuers", "builtin-approver", "local-authorizer"],
        &["local-authorizer", "issuers", "builtin-approver"],
        &["builtin-approver", "local-authorizer", "issuers"],
    ];
    let all: Vec<Rendered> = orders.iter().map(|o| Rendered::with_components(o)).collect();
    let mut args = replaced(&CONTROLLER_ARGS, 1, "--controllers=*,builtin-approver");
    args[2] = "--authorizer=local";
    args.push(ISSUERS_ARG);
    let mut selected = DEFAULT_CONTROLLERS.to_vec();
    selected.push("builtin-approver");
    selected.extend(ISSUER_CONTROLLERS);
    for rendered in &all {
        assert_eq!(rendered.text, all[0].text, "{} and {} differ", rendered.name, all[0].name);
        assert_eq!(rendered.args("certgate-controller"), args, "{}", rendered.name);
        assert_eq!(selected_controllers(rendered), selected, "{}", rendered.name);
        let expected: BTreeSet<String> =
            (&base | &issuers).into_iter().filter(|n| !sar.contains(n)).collect();
        assert_eq!(rbac_names(rendered), expected, "{}", rendered.name);
        assert_least_privilege(rendered);
        for deployment in rendered.of_kind("Deployment") {
            assert_hardened(rendered, deployment);
        }
    }
    // With policy-propagator, both append: the arguments follow the components' order, and
    // either order selects the same controllers with the same RBAC.
    let propagator_arg = "--controllers=policy-propagator";
    let mut expected_selection = DEFAULT_CONTROLLERS.to_vec();
    expected_selection.push("policy-propagator");
    expected_selection.extend(ISSUER_CONTROLLERS);
    expected_selection.sort_unstable();
    for (order, tail) in [
        (["policy-propagator", "issuers"], [propagator_arg, ISSUERS_ARG]),
        (["issuers", "policy-propagator"], [ISSUERS_ARG, propagator_arg]),
    ] {
        let rendered = Rendered::with_components(&order);
        let mut args = CONTROLLER_ARGS.to_vec();
        args.extend(tail);
        assert_eq!(rendered.args("certgate-controller"), args, "{}", rendered.name);
        let mut selected = selected_controllers(&rendered);
        selected.sort_unstable();
        assert_eq!(selected, expected_selection, "{}", rendered.name);
        assert_eq!(rbac_names(&rendered), &(&base | &propagator) | &issuers, "{}", rendered.name);
        assert_least_privilege(&rendered);
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
    // issuers: its ClusterRoles and bindings, with exactly the rules docs/controller.md lists
    // and crates/issuer uses: list+watch of issuers, clusterissuers and certificaterequests
    // (kube-runtime watchers; get as cert-manager grants it), replace_status (update) of
    // the three statuses, Secrets read by name and watched as metadata, events.k8s.io events.
    let with_issuers = Rendered::of("issuers");
    let mut expected = base.clone();
    for role in ISSUERS_ROLES {
        expected.insert(format!("ClusterRole/{role}"));
        expected.insert(format!("ClusterRoleBinding/{role}"));
    }
    assert_eq!(rbac_names(&with_issuers), expected);
    assert_eq!(
        with_issuers.get("ClusterRole", ISSUERS_ROLE)["rules"],
        json!([
            {"apiGroups": ["cert-manager.io"], "resources": ["issuers", "clusterissuers"], "verbs": ["get", "list", "watch"]},
            {"apiGroups": ["cert-manager.io"], "resources": ["issuers/status", "clusterissuers/status"], "verbs": ["update"]},
            {"apiGroups": ["cert-manager.io"], "resources": ["certificaterequests"], "verbs": ["get", "list", "watch"]},
            {"apiGroups": ["cert-manager.io"], "resources": ["certificaterequests/status"], "verbs": ["update"]},
            {"apiGroups": [""], "resources": ["secrets"], "verbs": ["get", "list", "watch"]},
            {"apiGroups": ["events.k8s.io"], "resources": ["events"], "verbs": ["create", "patch"]},
        ])
    );
    // certificates: Certificates watched and their status replaced (and their finalizers, for
    // owner references with blockOwnerDeletion); the requests of each
    // revision watched (owned), created and deleted; Secrets read by name, watched as
    // metadata, created, replaced and deleted (next private keys); events in both groups.
    assert_eq!(
        with_issuers.get("ClusterRole", CERTIFICATES_ROLE)["rules"],
        json!([
            {"apiGroups": ["cert-manager.io"], "resources": ["certificates"], "verbs": ["get", "list", "watch"]},
            {"apiGroups": ["cert-manager.io"], "resources": ["certificates/status"], "verbs": ["update"]},
            {"apiGroups": ["cert-manager.io"], "resources": ["certificates/finalizers"], "verbs": ["update"]},
            {"apiGroups": ["cert-manager.io"], "resources": ["certificaterequests"], "verbs": ["get", "list", "watch", "create", "delete"]},
            {"apiGroups": [""], "resources": ["secrets"], "verbs": ["get", "list", "watch", "create", "update", "delete"]},
            {"apiGroups": ["events.k8s.io", ""], "resources": ["events"], "verbs": ["create", "patch"]},
        ])
    );
    // issuers-crl: issuers watched; the CA Secret read, the CRL Secret created or replaced,
    // Secrets watched as metadata; events.k8s.io events.
    assert_eq!(
        with_issuers.get("ClusterRole", CRL_ROLE)["rules"],
        json!([
            {"apiGroups": ["cert-manager.io"], "resources": ["issuers", "clusterissuers"], "verbs": ["get", "list", "watch"]},
            {"apiGroups": [""], "resources": ["secrets"], "verbs": ["get", "list", "watch", "create", "update"]},
            {"apiGroups": ["events.k8s.io"], "resources": ["events"], "verbs": ["create", "patch"]},
        ])
    );
    for role in ISSUERS_ROLES {
        let binding = with_issuers.get("ClusterRoleBinding", role);
        assert_eq!(
            binding["roleRef"],
            json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role})
        );
        assert_eq!(
            binding["subjects"],
            json!([{"kind": "ServiceAccount", "name": "certgate-controller", "namespace": NAMESPACE}])
        );
    }
    // The exceptions to the least-privilege invariants are these roles' and the edge's, in
    // their overlays only.
    for rendered in Rendered::all() {
        if rendered.find("ClusterRole", PROPAGATOR_ROLE).is_some() {
            assert_eq!(rendered.name, "policy-propagator");
        }
        for role in ISSUERS_ROLES {
            if rendered.find("ClusterRole", role).is_some() {
                assert_eq!(rendered.name, "issuers", "{role}");
            }
        }
        if rendered.find("ClusterRole", EDGE).is_some() {
            assert_eq!(rendered.name, "edge");
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

    // edge: `certgate edge serve`'s ClusterRole and Lease Role with exactly what its code
    // uses (crates/edge/src/controller: list+watch watchers, a merge patch of
    // httpproxies/status, events.k8s.io events, kube-lease-manager's get/patch/create), and
    // cert-manager's `use` of the xDS certificates' policies. Envoy gets nothing.
    let edge = Rendered::of("edge");
    let mut expected = base.clone();
    for name in [EDGE, "certgate-edge:leader-election", "certgate-edge-xds:policy-user"] {
        let kind = if name == EDGE { "ClusterRole" } else { "Role" };
        expected.insert(format!("{kind}/{name}"));
        expected.insert(format!("{kind}Binding/{name}"));
    }
    assert_eq!(rbac_names(&edge), expected);
    assert_eq!(
        edge.get("ClusterRole", EDGE)["rules"],
        json!([
            {"apiGroups": ["projectcontour.io"], "resources": ["httpproxies", "tlscertificatedelegations"], "verbs": ["list", "watch"]},
            {"apiGroups": ["projectcontour.io"], "resources": ["httpproxies/status"], "verbs": ["patch"]},
            {"apiGroups": [""], "resources": ["secrets", "services"], "verbs": ["list", "watch"]},
            {"apiGroups": ["discovery.k8s.io"], "resources": ["endpointslices"], "verbs": ["list", "watch"]},
            {"apiGroups": ["events.k8s.io"], "resources": ["events"], "verbs": ["create", "patch"]},
        ])
    );
    assert_eq!(
        edge.get("Role", "certgate-edge:leader-election")["rules"],
        json!([
            {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["get", "patch"], "resourceNames": [EDGE]},
            {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["create"]},
        ])
    );
    assert_eq!(
        edge.get("Role", "certgate-edge-xds:policy-user")["rules"],
        json!([{
            "apiGroups": ["policy.cert-manager.io"],
            "resources": ["certificaterequestpolicies"],
            "verbs": ["use"],
            "resourceNames": ["certgate-edge-xds-ca", "certgate-edge-xds-server", "certgate-edge-xds-client"],
        }])
    );
    for (kind, name, subject) in [
        (
            "ClusterRoleBinding",
            EDGE,
            json!({"kind": "ServiceAccount", "name": EDGE, "namespace": NAMESPACE}),
        ),
        (
            "RoleBinding",
            "certgate-edge:leader-election",
            json!({"kind": "ServiceAccount", "name": EDGE, "namespace": NAMESPACE}),
        ),
        (
            "RoleBinding",
            "certgate-edge-xds:policy-user",
            json!({"kind": "ServiceAccount", "name": "cert-manager", "namespace": "cert-manager"}),
        ),
    ] {
        let binding = edge.get(kind, name);
        let role_kind = if kind == "ClusterRoleBinding" { "ClusterRole" } else { "Role" };
        assert_eq!(
            binding["roleRef"],
            json!({"apiGroup": "rbac.authorization.k8s.io", "kind": role_kind, "name": name})
        );
        assert_eq!(binding["subjects"], json!([subject]), "{kind} {name}");
    }
    // The Lease the Role names is the one `certgate edge serve` elects on by default (the
    // Deployment does not pass --leader-election-lease-name).
    assert!(!edge.args(EDGE).iter().any(|a| a.starts_with("--leader-election-lease-name")));
    let certgate::commands::edge::EdgeCommand::Serve(defaults) = parse_edge(&["edge", "serve"])
    else {
        panic!("not edge serve")
    };
    assert_eq!(defaults.leader_election_lease_name, EDGE);
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
            "issuers",
            "edge",
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
    // The sandbox serves no DaemonSets (overlay edge's Envoy): a schema-less stand-in there
    // while it does not. The real API server checks them fully.
    let apps = sandbox.ok(&["api-resources", "--api-group=apps", "-o", "name"], None);
    if !dev.is_real() && !apps.lines().any(|l| l.starts_with("daemonsets")) {
        sandbox.ok(&["apply", "-f", "-"], Some(DAEMONSET_STAND_IN));
        sandbox.ok(
            &["wait", "--for=condition=Established", "crd/daemonsets.apps", "--timeout=30s"],
            None,
        );
    }

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
            "deployments,daemonsets,services,poddisruptionbudgets,serviceaccounts,roles,certificates,issuers",
            "-n",
            NAMESPACE,
            "-o",
            "name",
        ],
        None,
    );
    assert!(!stored.contains("certgate-") && !stored.contains("/envoy"), "{stored}");
    let configurations =
        sandbox.ok(&["get", "validatingwebhookconfigurations", "-o", "name"], None);
    assert!(!configurations.contains(POLICY_CONFIGURATION), "{configurations}");
    }
);

/// The sandbox's stand-in for the built-in DaemonSet API.
const DAEMONSET_STAND_IN: &str = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n\
metadata:\n  name: daemonsets.apps\nspec:\n  group: apps\n  scope: Namespaced\n\
\x20 names: {plural: daemonsets, singular: daemonset, kind: DaemonSet, listKind: DaemonSetList}\n\
\x20 versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n\
\x20       type: object\n        x-kubernetes-preserve-unknown-fields: true\n";

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

// ---------------------------------------------------------------------------------------------
// Overlay edge: `certgate edge serve` and Envoy (docs/edge.md#deploying).

const EDGE_ARGS: [&str; 12] = [
    "edge",
    "serve",
    "--xds-address=0.0.0.0",
    "--xds-port=8001",
    "--xds-tls-cert-file=/xds-tls/tls.crt",
    "--xds-tls-key-file=/xds-tls/tls.key",
    "--xds-tls-ca-file=/xds-tls/ca.crt",
    "--envoy-service-http-port=8080",
    "--envoy-service-https-port=8443",
    "--leader-election-namespace=$(POD_NAMESPACE)",
    "--listen=0.0.0.0:8000",
    "--log-format=json",
];

const BOOTSTRAP_ARGS: [&str; 12] = [
    "edge",
    "bootstrap",
    "/config/envoy.json",
    "--xds-address=certgate-edge",
    "--xds-port=8001",
    "--xds-server-name=certgate-edge",
    "--envoy-cafile=/certs/ca.crt",
    "--envoy-cert-file=/certs/tls.crt",
    "--envoy-key-file=/certs/tls.key",
    "--resources-dir=/config/resources",
    "--admin-address=/admin/admin.sock",
    "--namespace=$(POD_NAMESPACE)",
];

const ENVOY_ARGS: [&str; 9] = [
    "-c",
    "/config/envoy.json",
    "--service-node",
    "$(POD_NAME)",
    "--service-cluster",
    "$(POD_NAMESPACE)",
    "--disable-hot-restart",
    "--log-level",
    "info",
];

/// The edge Deployment's container.
fn edge_container(edge: &Rendered) -> &Value {
    edge.container("Deployment", EDGE, "edge")
}

fn bootstrap_container(edge: &Rendered) -> &Value {
    edge.container("DaemonSet", "envoy", "bootstrap")
}

fn envoy_container(edge: &Rendered) -> &Value {
    edge.container("DaemonSet", "envoy", "envoy")
}

#[test]
fn the_edge_overlay_runs_the_edge_commands() {
    let edge = Rendered::of("edge");
    assert_eq!(edge.args(EDGE), EDGE_ARGS);
    assert_eq!(strings(&bootstrap_container(&edge)["args"]), BOOTSTRAP_ARGS);
    let envoy = envoy_container(&edge);
    assert_eq!(strings(&envoy["command"]), ["envoy"]);
    assert_eq!(strings(&envoy["args"]), ENVOY_ARGS);
    // Two replicas, both serving xDS; the Lease decides the status writer.
    assert_eq!(edge.get("Deployment", EDGE)["spec"]["replicas"], 2);
    // The `$(VAR)`s the arguments use come from the downward API of their own container.
    for (container, variables) in [
        (edge_container(&edge), &["POD_NAMESPACE", "CONTOUR_NAMESPACE"][..]),
        (bootstrap_container(&edge), &["POD_NAMESPACE"][..]),
        (envoy, &["POD_NAME", "POD_NAMESPACE"][..]),
    ] {
        let env: Vec<(&str, &str)> = container["env"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["name"].as_str().unwrap(),
                    e["valueFrom"]["fieldRef"]["fieldPath"].as_str().unwrap_or_default(),
                )
            })
            .collect();
        for variable in variables {
            // CONTOUR_NAMESPACE: where `edge serve` looks for the Envoy Service (as Contour).
            let field =
                if *variable == "POD_NAME" { "metadata.name" } else { "metadata.namespace" };
            assert!(
                env.contains(&(variable, field)),
                "{}: {variable} in {env:?}",
                container["name"]
            );
        }
    }
}

/// The flags (`--long` and `-s`) a command's `--help` lists.
fn help_flags(program: &Path, args: &[&str]) -> BTreeSet<String> {
    let output = Command::new(program)
        .args(args)
        .arg("--help")
        .output()
        .unwrap_or_else(|err| panic!("cannot run {}: {err}", program.display()));
    assert!(output.status.success(), "{} {args:?} --help failed", program.display());
    let text = String::from_utf8_lossy(&output.stdout);
    text.split_whitespace()
        .map(|token| token.trim_matches(|c: char| matches!(c, ',' | '[' | ']' | '(' | ')' | '|')))
        .filter(|token| {
            token.len() > 1
                && token.starts_with('-')
                && token[1..].starts_with(|c: char| c.is_ascii_alphabetic() || c == '-')
        })
        .map(|token| token.split(['=', '<']).next().unwrap().to_owned())
        .collect()
}

/// The flags of `args` (their values and positional arguments left out).
fn flags_of<'a>(args: &[&'a str]) -> Vec<&'a str> {
    args.iter().filter(|a| a.starts_with('-')).map(|a| a.split('=').next().unwrap()).collect()
}

/// `certgate edge ...` parsed by certgate's own command line.
fn parse_edge(args: &[&str]) -> certgate::commands::edge::EdgeCommand {
    let cli = Cli::try_parse_from(std::iter::once("certgate").chain(args.iter().copied()))
        .unwrap_or_else(|err| panic!("{args:?}: {err}"));
    let Subcommand::Edge(edge) = cli.command else { panic!("not `certgate edge`: {args:?}") };
    edge.command
}

fn envoy_binary() -> PathBuf {
    certgate_oracles::tool_path("CERTGATE_ENVOY", "envoy/install")
}

/// A renamed or removed flag fails here, not in a cluster: every flag the edge's containers
/// pass is listed by that command's `--help` (the built certgate's, and the Envoy release the
/// DaemonSet pins, which the tests run), and certgate's parser accepts the rendered arguments
/// with their values.
#[test]
fn every_flag_the_edge_passes_is_one_its_command_lists() {
    let edge = Rendered::of("edge");
    let certgate = Path::new(env!("CARGO_BIN_EXE_certgate"));
    let envoy = envoy_binary();
    let edge_args = edge.args(EDGE);
    let bootstrap_args = strings(&bootstrap_container(&edge)["args"]);
    let envoy_args = strings(&envoy_container(&edge)["args"]);
    for (program, command, args) in [
        (certgate, &["edge", "serve"][..], &edge_args[2..]),
        (certgate, &["edge", "bootstrap"][..], &bootstrap_args[2..]),
        (envoy.as_path(), &[][..], &envoy_args[..]),
    ] {
        let listed = help_flags(program, command);
        assert!(listed.len() > 5, "{} {command:?} --help lists {listed:?}", program.display());
        for flag in flags_of(args) {
            assert!(
                listed.contains(flag),
                "{flag} is not a flag of {} {command:?}: {listed:?}",
                program.display()
            );
        }
    }
    use certgate::commands::edge::EdgeCommand;
    let EdgeCommand::Serve(serve) = parse_edge(&edge_args) else { panic!("not edge serve") };
    assert_eq!(serve.xds_port, 8001);
    assert!(serve.xds_tls_cert_file.is_some() && !serve.insecure, "xDS without TLS");
    assert!(serve.leader_elect, "leader election off");
    let EdgeCommand::Bootstrap(_) = parse_edge(&bootstrap_args) else { panic!("not bootstrap") };
}

/// The container port named `name`.
fn container_port(container: &Value, name: &str) -> u64 {
    container["ports"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("container {} has no port {name}", container["name"]))
        ["containerPort"]
        .as_u64()
        .unwrap()
}

/// The value of `--flag=value` in `args`.
fn flag_value<'a>(args: &[&'a str], flag: &str) -> &'a str {
    args.iter()
        .find_map(|a| a.strip_prefix(flag).and_then(|rest| rest.strip_prefix('=')))
        .unwrap_or_else(|| panic!("no {flag}= in {args:?}"))
}

/// Where `container` mounts the pod's volume `volume`, and whether read-only.
fn mount_of(pod: &Value, container: &Value, volume: &str) -> (String, bool) {
    let mount = container["volumeMounts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == volume)
        .unwrap_or_else(|| panic!("container {} does not mount {volume}", container["name"]));
    assert!(
        pod["volumes"].as_array().unwrap().iter().any(|v| v["name"] == volume),
        "no volume {volume}"
    );
    (mount["mountPath"].as_str().unwrap().to_owned(), mount["readOnly"] == true)
}

fn volume<'a>(pod: &'a Value, name: &str) -> &'a Value {
    pod["volumes"].as_array().unwrap().iter().find(|v| v["name"] == name).unwrap()
}

/// The edge's pieces name each other consistently: Services and ports, the Secrets the
/// Certificates write and the pods mount, the files the flags name, the DNS name Envoy
/// checks, the probes' port.
#[test]
fn the_edge_pieces_fit_together() {
    let edge = Rendered::of("edge");
    let edge_pod = edge.pod("Deployment", EDGE);
    let serve = edge_container(&edge);
    let serve_args = edge.args(EDGE);
    let envoy_pod = edge.pod("DaemonSet", "envoy");
    let bootstrap = bootstrap_container(&edge);
    let bootstrap_args = strings(&bootstrap["args"]);
    let envoy = envoy_container(&edge);
    let envoy_args = strings(&envoy["args"]);

    // xDS: the Envoys dial the Service certgate-edge, which reaches the server's port.
    let service = edge.get("Service", EDGE);
    assert_eq!(
        service["spec"]["selector"],
        edge.get("Deployment", EDGE)["spec"]["selector"]["matchLabels"]
    );
    assert_eq!(flag_value(&bootstrap_args, "--xds-address"), EDGE);
    let xds_port: u64 = flag_value(&bootstrap_args, "--xds-port").parse().unwrap();
    let port = &service["spec"]["ports"][0];
    assert_eq!(service["spec"]["ports"].as_array().unwrap().len(), 1);
    assert_eq!(port["port"], xds_port);
    assert_eq!(container_port(serve, port["targetPort"].as_str().unwrap()), xds_port);
    assert_eq!(flag_value(&serve_args, "--xds-port"), xds_port.to_string());
    assert_eq!(flag_value(&serve_args, "--xds-address"), "0.0.0.0");

    // The probes and metrics on the --listen port.
    let listen = flag_value(&serve_args, "--listen");
    assert_eq!(
        listen.rsplit(':').next().unwrap(),
        container_port(serve, "http-metrics").to_string()
    );
    assert_eq!(serve["livenessProbe"]["httpGet"]["path"], "/healthz");
    assert_eq!(serve["readinessProbe"]["httpGet"]["path"], "/readyz");
    for probe in ["livenessProbe", "readinessProbe"] {
        assert_eq!(serve[probe]["httpGet"]["port"], "http-metrics");
    }

    // The server's TLS files come from the Secret of Certificate certgate-edge-xds, whose
    // DNS names are the Service's and include the one the bootstrap makes Envoy check.
    let server_certificate = edge.get("Certificate", "certgate-edge-xds");
    let server_secret = server_certificate["spec"]["secretName"].as_str().unwrap();
    let (mount, read_only) = mount_of(edge_pod, serve, "xds-tls");
    assert!(read_only);
    assert_eq!(volume(edge_pod, "xds-tls")["secret"]["secretName"], server_secret);
    for (flag, file) in [
        ("--xds-tls-cert-file", "tls.crt"),
        ("--xds-tls-key-file", "tls.key"),
        ("--xds-tls-ca-file", "ca.crt"),
    ] {
        assert_eq!(flag_value(&serve_args, flag), format!("{mount}/{file}"));
    }
    assert_eq!(
        strings(&server_certificate["spec"]["dnsNames"]),
        [EDGE.to_owned(), format!("{EDGE}.{NAMESPACE}"), format!("{EDGE}.{NAMESPACE}.svc")]
    );
    assert!(
        strings(&server_certificate["spec"]["dnsNames"])
            .contains(&flag_value(&bootstrap_args, "--xds-server-name")),
        "Envoy would refuse the xDS server's certificate"
    );
    assert_eq!(
        strings(&server_certificate["spec"]["usages"]),
        ["digital signature", "server auth"]
    );

    // Envoy's client certificate: the Secret of Certificate envoy-xds, mounted at the same
    // path in the init container (which writes the paths into the SDS files) and in Envoy
    // (which reads them, and again on every renewal).
    let client_certificate = edge.get("Certificate", "envoy-xds");
    assert_eq!(
        strings(&client_certificate["spec"]["usages"]),
        ["digital signature", "client auth"]
    );
    let client_secret = client_certificate["spec"]["secretName"].as_str().unwrap();
    assert_eq!(volume(envoy_pod, "envoy-xds")["secret"]["secretName"], client_secret);
    let (certs, read_only) = mount_of(envoy_pod, bootstrap, "envoy-xds");
    assert!(read_only);
    assert_eq!(mount_of(envoy_pod, envoy, "envoy-xds"), (certs.clone(), true));
    for (flag, file) in [
        ("--envoy-cafile", "ca.crt"),
        ("--envoy-cert-file", "tls.crt"),
        ("--envoy-key-file", "tls.key"),
    ] {
        assert_eq!(flag_value(&bootstrap_args, flag), format!("{certs}/{file}"));
    }

    // Both leaves come from the CA Issuer, whose CA certificate is self-signed; each side
    // trusts the other through its own Secret's ca.crt, that CA.
    let ca_certificate = edge.get("Certificate", "certgate-edge-xds-ca");
    assert_eq!(ca_certificate["spec"]["isCA"], true);
    let ca_issuer = edge.get("Issuer", "certgate-edge-xds-ca");
    assert_eq!(ca_issuer["spec"]["ca"]["secretName"], ca_certificate["spec"]["secretName"]);
    let root_issuer = ca_certificate["spec"]["issuerRef"]["name"].as_str().unwrap();
    assert_eq!(edge.get("Issuer", root_issuer)["spec"]["selfSigned"], json!({}));
    for certificate in [server_certificate, client_certificate] {
        assert_eq!(
            certificate["spec"]["issuerRef"],
            json!({"group": "cert-manager.io", "kind": "Issuer", "name": "certgate-edge-xds-ca"})
        );
        assert_eq!(certificate["metadata"]["namespace"], NAMESPACE);
    }

    // The bootstrap and the admin socket: written by the init container into emptyDirs that
    // Envoy mounts at the same paths; the configuration read-only.
    let (config, read_only) = mount_of(envoy_pod, bootstrap, "envoy-config");
    assert!(!read_only, "the init container writes the bootstrap");
    assert_eq!(mount_of(envoy_pod, envoy, "envoy-config"), (config.clone(), true));
    assert_eq!(volume(envoy_pod, "envoy-config")["emptyDir"], json!({}));
    assert_eq!(bootstrap_args[2], format!("{config}/envoy.json"));
    assert_eq!(envoy_args[..2], ["-c", bootstrap_args[2]]);
    assert!(flag_value(&bootstrap_args, "--resources-dir").starts_with(&format!("{config}/")));
    let (admin, read_only) = mount_of(envoy_pod, envoy, "envoy-admin");
    assert!(!read_only, "Envoy creates its admin socket");
    assert_eq!(volume(envoy_pod, "envoy-admin")["emptyDir"], json!({}));
    assert_eq!(flag_value(&bootstrap_args, "--admin-address"), format!("{admin}/admin.sock"));

    // Envoy's listeners bind the ports certgate programs, which the Service envoy exposes as
    // 80 and 443; readiness waits for the HTTP listener.
    for (flag, port_name, service_port) in
        [("--envoy-service-http-port", "http", 80), ("--envoy-service-https-port", "https", 443)]
    {
        let programmed: u64 = flag_value(&serve_args, flag).parse().unwrap();
        assert_eq!(container_port(envoy, port_name), programmed, "{flag}");
        let exposed = edge.get("Service", "envoy")["spec"]["ports"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["targetPort"] == port_name)
            .unwrap_or_else(|| panic!("Service envoy does not expose {port_name}"))
            .clone();
        assert_eq!(exposed["port"], service_port);
    }
    let envoy_service = edge.get("Service", "envoy");
    assert_eq!(envoy_service["spec"]["type"], "LoadBalancer");
    assert_eq!(
        envoy_service["spec"]["selector"],
        edge.get("DaemonSet", "envoy")["spec"]["selector"]["matchLabels"]
    );
    assert_eq!(envoy["readinessProbe"]["tcpSocket"]["port"], "http");
}

/// A pod's volume mounts as local directories under `root` (created), for running the
/// rendered arguments outside a container.
fn local_mounts(root: &Path, containers: &[&Value]) -> Vec<(String, PathBuf)> {
    let mut mounts: Vec<(String, PathBuf)> = Vec::new();
    for container in containers {
        for mount in container["volumeMounts"].as_array().into_iter().flatten() {
            let path = mount["mountPath"].as_str().unwrap().to_owned();
            if !mounts.iter().any(|(p, _)| *p == path) {
                let local = root.join(path.trim_start_matches('/'));
                std::fs::create_dir_all(&local).unwrap();
                mounts.push((path, local));
            }
        }
    }
    mounts
}

/// A rendered argument as it runs here: `$(VAR)` from `env`, mounted paths (whole values or
/// a flag's value) under their local directories.
fn localize(arg: &str, mounts: &[(String, PathBuf)], env: &[(&str, &str)]) -> String {
    let mut arg = arg.to_owned();
    for (name, value) in env {
        arg = arg.replace(&format!("$({name})"), value);
    }
    let (flag, value) = match arg.split_once('=') {
        Some((flag, value)) if flag.starts_with('-') => (format!("{flag}="), value.to_owned()),
        _ => (String::new(), arg.clone()),
    };
    for (path, local) in mounts {
        if value == *path || value.starts_with(&format!("{path}/")) {
            return format!("{flag}{}{}", local.display(), &value[path.len()..]);
        }
    }
    assert!(!arg.contains("$("), "{arg}: a variable the test does not set");
    arg
}

/// `args` with `--flag=...` (which must be there) set to `value`.
fn with_flag(mut args: Vec<String>, flag: &str, value: &str) -> Vec<String> {
    let at = args
        .iter()
        .position(|a| a.starts_with(&format!("{flag}=")))
        .unwrap_or_else(|| panic!("no {flag}= in {args:?}"));
    args[at] = format!("{flag}={value}");
    args
}

/// What cert-manager would issue from the edge's Certificates: the CA, the xDS server's
/// certificate for `server_names` and Envoy's client certificate (CN envoy), each written
/// as a kubernetes.io/tls Secret's files (tls.crt, tls.key, ca.crt) into a directory.
struct XdsSecrets {
    ca: String,
    server: (String, String),
    client: (String, String),
}

impl XdsSecrets {
    fn issue(server_names: &[&str]) -> XdsSecrets {
        use rcgen::{
            BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer,
            KeyPair, KeyUsagePurpose,
        };
        let ca_key = KeyPair::generate().unwrap();
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.distinguished_name.push(DnType::CommonName, "certgate-edge-xds-ca");
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params.key_usages =
            vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::DigitalSignature];
        let ca = ca_params.self_signed(&ca_key).unwrap();
        let issuer = Issuer::from_params(&ca_params, &ca_key);
        let leaf = |names: Vec<String>, cn: Option<&str>, usage: ExtendedKeyUsagePurpose| {
            let key = KeyPair::generate().unwrap();
            let mut params = CertificateParams::new(names).unwrap();
            params.distinguished_name = rcgen::DistinguishedName::new();
            if let Some(cn) = cn {
                params.distinguished_name.push(DnType::CommonName, cn);
            }
            params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
            params.extended_key_usages = vec![usage];
            let cert = params.signed_by(&key, &issuer).unwrap();
            (cert.pem(), key.serialize_pem())
        };
        XdsSecrets {
            ca: ca.pem(),
            server: leaf(
                server_names.iter().map(|n| (*n).to_owned()).collect(),
                None,
                ExtendedKeyUsagePurpose::ServerAuth,
            ),
            client: leaf(Vec::new(), Some("envoy"), ExtendedKeyUsagePurpose::ClientAuth),
        }
    }

    fn write(&self, dir: &Path, (cert, key): &(String, String)) {
        std::fs::write(dir.join("tls.crt"), cert).unwrap();
        std::fs::write(dir.join("tls.key"), key).unwrap();
        std::fs::write(dir.join("ca.crt"), &self.ca).unwrap();
    }
}

/// The local directory of the mount of `volume` in `container`.
fn local_dir_of(
    mounts: &[(String, PathBuf)],
    pod: &Value,
    container: &Value,
    volume: &str,
) -> PathBuf {
    let (path, _) = mount_of(pod, container, volume);
    mounts.iter().find(|(p, _)| *p == path).unwrap().1.clone()
}

/// The rendered init container's `certgate edge bootstrap` writes a bootstrap (and its SDS
/// files) that the pinned Envoy release accepts with the rendered Envoy arguments
/// (`--mode validate` loads every static resource, the certificate files included, without
/// serving). Paths are the pod's mounts moved under a temporary directory.
#[test]
fn envoy_accepts_the_bootstrap_the_rendered_init_container_writes() {
    let edge = Rendered::of("edge");
    let pod = edge.pod("DaemonSet", "envoy");
    let (bootstrap, envoy) = (bootstrap_container(&edge), envoy_container(&edge));
    let dir = tempfile::tempdir().unwrap();
    let mounts = local_mounts(dir.path(), &[bootstrap, envoy]);
    let secrets = XdsSecrets::issue(&[EDGE]);
    secrets.write(&local_dir_of(&mounts, pod, bootstrap, "envoy-xds"), &secrets.client);
    let env = [("POD_NAMESPACE", NAMESPACE), ("POD_NAME", "envoy-0")];

    let args: Vec<String> =
        strings(&bootstrap["args"]).iter().map(|a| localize(a, &mounts, &env)).collect();
    let output = Command::new(env!("CARGO_BIN_EXE_certgate"))
        .args(&args)
        .env_remove("ENVOY_CAFILE")
        .env_remove("ENVOY_CERT_FILE")
        .env_remove("ENVOY_KEY_FILE")
        .env_remove("CONTOUR_NAMESPACE")
        .output()
        .unwrap();
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    let config = local_dir_of(&mounts, pod, envoy, "envoy-config");
    let written: Value =
        serde_json::from_slice(&std::fs::read(config.join("envoy.json")).unwrap()).unwrap();
    let text = written.to_string();
    assert!(text.contains(EDGE), "the xDS cluster does not dial {EDGE}: {text}");
    assert!(config.join("resources/sds").is_dir(), "no SDS files under --resources-dir");

    let mut args: Vec<String> =
        strings(&envoy["args"]).iter().map(|a| localize(a, &mounts, &env)).collect();
    args.extend(["--mode", "validate"].map(str::to_owned));
    let output = Command::new(envoy_binary()).args(&args).output().unwrap();
    assert!(
        output.status.success(),
        "Envoy refuses the rendered bootstrap ({args:?}):\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A CertificateRequest (as JSON) as cert-manager's controller makes it from `certificate`
/// (a rendered Certificate, possibly edited): its issuer, duration, isCA and usages, and an
/// ECDSA P-256 CSR with its DNS names and common name, requested by `username`.
fn request_from(name: &str, certificate: &Value, username: &str) -> Value {
    use base64::Engine as _;
    let spec = &certificate["spec"];
    let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
    let names: Vec<String> = strings(&spec["dnsNames"]).iter().map(|n| (*n).to_owned()).collect();
    let mut params = rcgen::CertificateParams::new(names).unwrap();
    params.distinguished_name = rcgen::DistinguishedName::new();
    if let Some(cn) = spec["commonName"].as_str() {
        params.distinguished_name.push(rcgen::DnType::CommonName, cn);
    }
    let csr = params.serialize_request(&key).unwrap().pem().unwrap();
    json!({
        "apiVersion": "cert-manager.io/v1",
        "kind": "CertificateRequest",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {
            "issuerRef": spec["issuerRef"],
            "duration": spec["duration"],
            "isCA": spec["isCA"].as_bool().unwrap_or(false),
            "usages": spec["usages"],
            "username": username,
            "groups": ["system:serviceaccounts", "system:serviceaccounts:cert-manager", "system:authenticated"],
            "request": base64::engine::general_purpose::STANDARD.encode(csr),
        },
    })
}

/// cert-manager runs without its own approver, so the edge's three Certificates are issued
/// only if certgate approves their requests: the component's policies approve exactly those
/// (as cert-manager's controller requests them) and deny the same shapes stretched.
#[test]
fn the_edge_policies_approve_the_xds_certificates_and_nothing_else() {
    const CERT_MANAGER: &str = "system:serviceaccount:cert-manager:cert-manager";
    let edge = Rendered::of("edge");
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(deploy().join("components/edge/policy.yaml"), dir.path().join("policy.yaml"))
        .unwrap();
    std::fs::copy(deploy().join("base/namespace.yaml"), dir.path().join("namespace.yaml")).unwrap();
    let certificate = |name: &str| edge.get("Certificate", name).clone();
    let edited = |name: &str, edit: &dyn Fn(&mut Value)| {
        let mut certificate = certificate(name);
        edit(&mut certificate["spec"]);
        certificate
    };
    let requests = [
        request_from("ca", &certificate("certgate-edge-xds-ca"), CERT_MANAGER),
        request_from("server", &certificate("certgate-edge-xds"), CERT_MANAGER),
        request_from("client", &certificate("envoy-xds"), CERT_MANAGER),
        request_from(
            "server-more-names",
            &edited("certgate-edge-xds", &|spec| {
                spec["dnsNames"].as_array_mut().unwrap().push(json!("evil.example.com"))
            }),
            CERT_MANAGER,
        ),
        request_from(
            "client-serving-too",
            &edited("envoy-xds", &|spec| {
                spec["usages"].as_array_mut().unwrap().push(json!("server auth"))
            }),
            CERT_MANAGER,
        ),
        // A second CA under the edge's CA.
        request_from(
            "ca-from-the-ca",
            &edited("certgate-edge-xds-ca", &|spec| {
                spec["issuerRef"]["name"] = json!("certgate-edge-xds-ca")
            }),
            CERT_MANAGER,
        ),
        request_from(
            "someone-else",
            &certificate("envoy-xds"),
            "system:serviceaccount:certgate:certgate-edge",
        ),
    ];
    let stream: Vec<String> = requests.iter().map(Value::to_string).collect();
    std::fs::write(dir.path().join("requests.yaml"), stream.join("\n---\n")).unwrap();
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
    for policy in report["policies"].as_array().unwrap() {
        assert_eq!(policy["ready"], true, "{report:#}");
    }
    let decisions: Vec<(&str, &str)> = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["name"].as_str().unwrap(), r["decision"].as_str().unwrap()))
        .collect();
    assert_eq!(
        decisions,
        [
            ("ca", "Approved"),
            ("server", "Approved"),
            ("client", "Approved"),
            ("server-more-names", "Denied"),
            ("client-serving-too", "Denied"),
            ("ca-from-the-ca", "Denied"),
            ("someone-else", "Unprocessed"),
        ],
        "{report:#}"
    );
}

/// The edge component only adds objects, so it combines with every other component, in
/// either order, keeping every invariant.
#[test]
fn the_edge_component_combines_with_every_other_component() {
    let components: Vec<String> = std::fs::read_dir(deploy().join("components"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| name != "edge")
        .collect();
    assert!(components.len() >= 5, "{components:?}");
    let edge_rbac: BTreeSet<String> =
        &rbac_names(&Rendered::of("edge")) - &rbac_names(&Rendered::of("default"));
    for component in &components {
        let alone = rbac_names(&Rendered::with_components(&[component]));
        let orders = [[component.as_str(), "edge"], ["edge", component.as_str()]];
        let both: Vec<Rendered> = orders.iter().map(|o| Rendered::with_components(o)).collect();
        for rendered in &both {
            assert_eq!(
                rendered.text, both[0].text,
                "{} and {} differ",
                rendered.name, both[0].name
            );
            assert_eq!(rbac_names(rendered), &alone | &edge_rbac, "{}", rendered.name);
            assert_eq!(rendered.args(EDGE), EDGE_ARGS, "{}", rendered.name);
            for deployment in rendered.of_kind("Deployment") {
                assert_hardened(rendered, deployment);
            }
            assert_envoy_hardened(rendered, rendered.get("DaemonSet", "envoy"));
            assert_no_host_access(rendered);
            assert_one_certgate_image(rendered);
            assert_least_privilege(rendered);
        }
    }
}

/// A Pod made from a workload's template, as its controller would create it.
fn pod_from(template: &Value, name: &str) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": NAMESPACE, "labels": template["metadata"]["labels"]},
        "spec": template["spec"],
    })
}

/// The namespace enforces the restricted Pod Security Standard, which the API server applies
/// to pods only: a Deployment or DaemonSet whose pods break it is accepted and then never gets
/// a pod. So every pod template of every overlay is created as a Pod (server dry run) on a
/// real kube-apiserver, whose PodSecurity admission refuses what the standard forbids; and,
/// to show the check bites, Envoy's pod with Contour's host ports is refused.
#[test]
fn every_pod_template_passes_the_namespaces_pod_security_standard_on_a_real_api_server() {
    let dev = dev_support::Dev::real_with(&["--no-webhook", "--controllers=-*"]);
    dev.ok(&["apply", "-f", deploy().join("base/namespace.yaml").to_str().unwrap()]);
    let overlays = Rendered::all();
    // The ServiceAccount admission refuses pods naming a missing account: create them.
    let mut accounts = BTreeSet::new();
    for rendered in &overlays {
        for account in rendered.of_kind("ServiceAccount") {
            if accounts.insert(account["metadata"]["name"].as_str().unwrap().to_owned()) {
                dev.ok_with(&["apply", "-f", "-"], Some(&account.to_string()));
            }
        }
    }
    let mut checked = 0;
    for rendered in &overlays {
        for (workload, template) in pod_templates(rendered) {
            let name = workload.to_lowercase().replace(' ', "-");
            let output = dev.kubectl(
                &["create", "--dry-run=server", "-f", "-"],
                Some(&pod_from(template, &name).to_string()),
            );
            assert!(
                output.status.success(),
                "overlay {}, {workload}: {}",
                rendered.name,
                String::from_utf8_lossy(&output.stderr)
            );
            checked += 1;
        }
    }
    assert!(checked > 2 * overlays.len(), "{checked} pod templates");

    let edge = Rendered::of("edge");
    let mut template = edge.get("DaemonSet", "envoy")["spec"]["template"].clone();
    template["spec"]["containers"][0]["ports"][0]["hostPort"] = json!(80);
    let refused = dev.fails(
        &["create", "--dry-run=server", "-f", "-"],
        Some(&pod_from(&template, "envoy-with-host-ports").to_string()),
    );
    assert!(
        refused.contains("violates PodSecurity \"restricted:latest\"")
            && refused.contains("hostPort"),
        "{refused}"
    );
}

/// A process of the live edge test, killed and waited for on drop, its output kept.
struct Running {
    name: &'static str,
    child: std::process::Child,
    log: std::sync::Arc<std::sync::Mutex<String>>,
}

impl Running {
    fn spawn(name: &'static str, command: &mut Command) -> Running {
        use std::io::BufRead as _;
        let mut child = command
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap_or_else(|err| panic!("cannot start {name}: {err}"));
        let log = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let pipes: [Box<dyn std::io::Read + Send>; 2] =
            [Box::new(child.stdout.take().unwrap()), Box::new(child.stderr.take().unwrap())];
        for pipe in pipes {
            let log = log.clone();
            std::thread::spawn(move || {
                for line in std::io::BufReader::new(pipe).lines().map_while(Result::ok) {
                    let mut log = log.lock().unwrap_or_else(|e| e.into_inner());
                    log.push_str(&line);
                    log.push('\n');
                }
            });
        }
        Running { name, child, log }
    }

    fn log(&self) -> String {
        let log = self.log.lock().unwrap_or_else(|e| e.into_inner()).clone();
        format!("--- {} log ---\n{log}", self.name)
    }

    /// SIGTERM, then the exit status (a process that does not stop fails the test).
    fn terminate(mut self) -> std::process::ExitStatus {
        let pid = self.child.id().to_string();
        assert!(Command::new("kill").arg(&pid).status().unwrap().success());
        let deadline = std::time::Instant::now() + edge_support::HANG_GUARD;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(std::time::Instant::now() < deadline, "{} ignores SIGTERM", self.name);
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The environment a container's downward-API variables give it in a pod named `pod_name` of
/// certgate's namespace.
fn downward_env(container: &Value, pod_name: &str) -> Vec<(String, String)> {
    container["env"]
        .as_array()
        .unwrap()
        .iter()
        .map(|variable| {
            let value = match variable["valueFrom"]["fieldRef"]["fieldPath"].as_str() {
                Some("metadata.namespace") => NAMESPACE,
                Some("metadata.name") => pod_name,
                other => panic!("{variable}: {other:?} is not set by the test"),
            };
            (variable["name"].as_str().unwrap().to_owned(), value.to_owned())
        })
        .collect()
}

/// The whole response (status line, headers, body) to `GET path` on `address` (plain HTTP),
/// if it answers.
fn http_get(address: &str, path: &str) -> Option<String> {
    use std::io::{Read as _, Write as _};
    let mut stream = std::net::TcpStream::connect(address).ok()?;
    write!(stream, "GET {path} HTTP/1.0\r\nHost: localhost\r\n\r\n").ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    Some(response)
}

/// The status code of `GET path` on `address` (plain HTTP), if it answers.
fn http_status(address: &str, path: &str) -> Option<String> {
    http_get(address, path)?.split_whitespace().nth(1).map(str::to_owned)
}

/// The edge as the overlay deploys it, short of containers, on a real kube-apiserver (which
/// enforces RBAC): the overlay's ServiceAccount, ClusterRole, Role and bindings applied as
/// rendered, `certgate edge serve` run with the rendered arguments and a token of that
/// ServiceAccount (so it has exactly the overlay's permissions), the rendered init
/// container's `certgate edge bootstrap` and a real Envoy with the rendered arguments, the
/// pods' mounts as local directories holding what cert-manager would issue from the
/// overlay's Certificates. Only the addresses change: loopback and free ports instead of the
/// pod's, and the xDS address 127.0.0.1 instead of the Service's name (the certificate is
/// still checked for the rendered --xds-server-name). It must: be ready and healthy on its
/// probes' paths, win the Lease, write a status, serve Envoy over mutual TLS (a client
/// reaches the HTTPProxy's virtual host; the endpoint itself is unreachable here, so Envoy
/// answers 503), record a CRLWarning event, never be refused by the API server, and release
/// the Lease on SIGTERM.
#[test]
fn the_rendered_edge_serves_the_rendered_envoy_with_only_the_overlays_rbac_on_a_real_api_server() {
    use edge_support::cluster::{NAMESPACE as PROXY_NAMESPACE, objects, proxy_field};
    use edge_support::{free_port, wait_for};

    let dev = edge_support::cluster::start(dev_support::Server::Real);
    let edge = Rendered::of("edge");
    dev.ok(&["apply", "-f", deploy().join("base/namespace.yaml").to_str().unwrap()]);
    let identity: Vec<Value> = edge
        .objects
        .iter()
        .filter(|o| {
            let name = o["metadata"]["name"].as_str().unwrap();
            ["ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"]
                .contains(&o["kind"].as_str().unwrap())
                && (name == EDGE || name == "certgate-edge:leader-election")
        })
        .cloned()
        .collect();
    assert_eq!(identity.len(), 5, "{identity:#?}");
    let list = json!({"apiVersion": "v1", "kind": "List", "items": identity});
    dev.ok_with(&["apply", "-f", "-"], Some(&list.to_string()));
    let token = dev.ok(&["create", "token", EDGE, "-n", NAMESPACE]);
    let admin = std::fs::read_to_string(&dev.kubeconfig).unwrap();
    let admin_token = dev_support::real_cluster::ADMIN_TOKEN;
    assert!(admin.contains(admin_token));
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig-certgate-edge");
    std::fs::write(&kubeconfig, admin.replace(admin_token, token.trim())).unwrap();
    let pki = edge_support::pki::pki();
    dev.ok_with(&["apply", "-f", "-"], Some(&objects(&pki, "192.0.2.1", 80)));

    // The pods' volumes, filled as cert-manager would fill the Secrets.
    let (serve, bootstrap, envoy) =
        (edge_container(&edge), bootstrap_container(&edge), envoy_container(&edge));
    let (edge_pod, envoy_pod) = (edge.pod("Deployment", EDGE), edge.pod("DaemonSet", "envoy"));
    let edge_mounts = local_mounts(&dir.path().join("edge"), &[serve]);
    let envoy_mounts = local_mounts(&dir.path().join("envoy"), &[bootstrap, envoy]);
    let server_names = strings(&edge.get("Certificate", "certgate-edge-xds")["spec"]["dnsNames"]);
    let secrets = XdsSecrets::issue(&server_names);
    secrets.write(&local_dir_of(&edge_mounts, edge_pod, serve, "xds-tls"), &secrets.server);
    secrets.write(&local_dir_of(&envoy_mounts, envoy_pod, envoy, "envoy-xds"), &secrets.client);

    let (xds, http, https, listen) = (free_port(), free_port(), free_port(), free_port());
    let localized = |args: Vec<&str>, mounts: &[(String, PathBuf)], pod_name: &str| {
        let env = [("POD_NAMESPACE", NAMESPACE), ("POD_NAME", pod_name)];
        args.iter().map(|a| localize(a, mounts, &env)).collect::<Vec<String>>()
    };
    let mut args = localized(strings(&serve["args"]), &edge_mounts, "certgate-edge-0");
    for (flag, value) in [
        ("--xds-address", "127.0.0.1".to_owned()),
        ("--xds-port", xds.to_string()),
        ("--envoy-service-http-port", http.to_string()),
        ("--envoy-service-https-port", https.to_string()),
        ("--listen", format!("127.0.0.1:{listen}")),
    ] {
        args = with_flag(args, flag, &value);
    }
    let server = Running::spawn(
        "certgate edge serve",
        Command::new(env!("CARGO_BIN_EXE_certgate"))
            .args(&args)
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .envs(downward_env(serve, "certgate-edge-0"))
            .env("RUST_LOG", "info")
            .env_remove("CONTOUR_CERT_FILE")
            .env_remove("CONTOUR_KEY_FILE")
            .env_remove("CONTOUR_CAFILE"),
    );

    let mut args = localized(strings(&bootstrap["args"]), &envoy_mounts, "envoy-0");
    args = with_flag(args, "--xds-address", "127.0.0.1");
    args = with_flag(args, "--xds-port", &xds.to_string());
    let output = Command::new(env!("CARGO_BIN_EXE_certgate"))
        .args(&args)
        .env_remove("ENVOY_CAFILE")
        .env_remove("ENVOY_CERT_FILE")
        .env_remove("ENVOY_KEY_FILE")
        .env_remove("CONTOUR_NAMESPACE")
        .output()
        .unwrap();
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    let mut args = localized(strings(&envoy["args"]), &envoy_mounts, "envoy-0");
    args.extend(["--concurrency", "1"].map(str::to_owned));
    let proxy = Running::spawn("envoy", Command::new(envoy_binary()).args(&args));
    let context = || format!("{}{}{}", dev.logs(), server.log(), proxy.log());

    let address = format!("127.0.0.1:{listen}");
    wait_for(
        "the edge to be ready and healthy",
        || match (http_status(&address, "/readyz"), http_status(&address, "/healthz")) {
            (Some(ready), Some(healthy)) if ready == "200" && healthy == "200" => Ok(()),
            seen => Err(format!("{seen:?}")),
        },
        context,
    );
    wait_for(
        "the HTTPProxy to be valid",
        || match proxy_field(&dev, "{.status.currentStatus}") {
            valid if valid == "valid" => Ok(()),
            _ => Err(proxy_field(&dev, "{.status}")),
        },
        context,
    );
    let holder =
        dev.ok(&["get", "lease", EDGE, "-n", NAMESPACE, "-o", "jsonpath={.spec.holderIdentity}"]);
    assert!(holder.starts_with("certgate-edge-0"), "lease holder {holder:?}\n{}", context());
    wait_for(
        "Envoy, configured over mutual TLS, to answer for the virtual host",
        || match edge_support::client::get(
            std::net::SocketAddr::from(([127, 0, 0, 1], https)),
            &pki,
            &pki.good,
        ) {
            edge_support::client::Answer::Http { status, .. }
                if status.starts_with("HTTP/1.1 503") =>
            {
                Ok(())
            }
            answer => Err(format!("{answer:?}")),
        },
        context,
    );

    // Events: certgate's CRL warning about skipClientCertValidation.
    dev.ok(&[
        "patch",
        "httpproxy",
        "edge",
        "-n",
        PROXY_NAMESPACE,
        "--type=merge",
        "-p",
        r#"{"spec":{"virtualhost":{"tls":{"clientValidation":{"skipClientCertValidation":true}}}}}"#,
    ]);
    wait_for(
        "a CRLWarning event",
        || {
            let reasons = dev.ok(&[
                "get",
                "events.v1.events.k8s.io",
                "-n",
                PROXY_NAMESPACE,
                "-o",
                "jsonpath={.items[*].reason}",
            ]);
            if reasons.split_whitespace().any(|r| r == "CRLWarning") {
                Ok(())
            } else {
                Err(reasons)
            }
        },
        context,
    );

    let log = server.log();
    assert!(
        !log.to_lowercase().contains("forbidden"),
        "the API server refused the edge something:\n{log}"
    );
    let failure = context();
    let status = server.terminate();
    assert!(status.success(), "edge serve exited with {status}\n{failure}");
    let holder =
        dev.ok(&["get", "lease", EDGE, "-n", NAMESPACE, "-o", "jsonpath={.spec.holderIdentity}"]);
    assert!(holder.is_empty(), "the Lease is still held by {holder:?}");
}

// ---------------------------------------------------------------------------------------------
// Overlay issuers: cert-manager's CA and SelfSigned issuers (docs/issuance.md#deploying).

/// What makes up the controller's identity in `rendered`: its ServiceAccount, and every role
/// bound to it with its binding.
fn controller_identity(rendered: &Rendered) -> Vec<Value> {
    let bound = |binding: &&Value| {
        binding["subjects"].as_array().unwrap().iter().any(|subject| {
            subject["name"] == "certgate-controller" && subject["namespace"] == NAMESPACE
        })
    };
    let mut objects = vec![rendered.get("ServiceAccount", "certgate-controller").clone()];
    for kind in ["ClusterRoleBinding", "RoleBinding"] {
        for binding in rendered.of_kind(kind).into_iter().filter(bound) {
            let (role_kind, role) = (&binding["roleRef"]["kind"], &binding["roleRef"]["name"]);
            objects.push(rendered.get(role_kind.as_str().unwrap(), role.as_str().unwrap()).clone());
            objects.push(binding.clone());
        }
    }
    objects
}

/// A CertificateRequest in namespace payments for `name.payments.svc` from the issuer
/// `kind`/`issuer`, with `annotations` (YAML lines under `metadata.annotations`), and its
/// CSR's key (PEM).
fn issuer_request(name: &str, kind: &str, issuer: &str, annotations: &str) -> (String, String) {
    use base64::Engine as _;
    let dns = format!("{name}.payments.svc");
    let key = rcgen::KeyPair::generate().unwrap();
    let mut params = rcgen::CertificateParams::new(vec![dns.clone()]).unwrap();
    params.distinguished_name = rcgen::DistinguishedName::new();
    params.distinguished_name.push(rcgen::DnType::CommonName, dns);
    let csr = params.serialize_request(&key).unwrap().pem().unwrap();
    let request = base64::engine::general_purpose::STANDARD.encode(csr);
    let manifest = format!(
        "apiVersion: cert-manager.io/v1\nkind: CertificateRequest\nmetadata:\n  name: {name}\n  namespace: payments\n\
         \x20 annotations: {{{annotations}}}\n\
         spec:\n  issuerRef:\n    group: cert-manager.io\n    kind: {kind}\n    name: {issuer}\n\
         \x20 duration: 1h\n  usages: [digital signature, key encipherment, server auth]\n  request: {request}\n"
    );
    (manifest, key.serialize_pem())
}

/// The issuers as the overlay deploys them, short of containers, on a real kube-apiserver
/// (which enforces RBAC): the controller's ServiceAccount with every role the overlay binds
/// to it, applied as rendered, and `certgate controller` run with the rendered arguments (the
/// default controllers and the four issuer controllers, the default
/// --cluster-resource-namespace) and a token of that ServiceAccount, so it has exactly the
/// overlay's permissions. It must win the Lease, make a CA Issuer (its key pair in its
/// namespace), a CA ClusterIssuer (its key pair in cert-manager, the default
/// --cluster-resource-namespace) and a SelfSigned Issuer Ready, sign an approved request
/// through each (the SelfSigned one once its key Secret appears), issue a Certificate through
/// the CA Issuer (`certificates`: its request approved with `certgate approve`, its Secret
/// with tls.crt, tls.key and ca.crt, Ready=True), publish the CA Issuer's CRL once it is
/// annotated and again with the Certificate revoked (`issuers-crl`), count both on /metrics,
/// record the events, never be refused by the API server, and release the Lease on SIGTERM.
#[test]
fn the_rendered_issuers_sign_with_only_the_overlays_rbac_on_a_real_api_server() {
    use edge_support::{free_port, wait_for};

    let dev = dev_support::Dev::real_with(&["--controllers=-*"]);
    let overlay = Rendered::of("issuers");
    dev.ok(&["apply", "-f", deploy().join("base/namespace.yaml").to_str().unwrap()]);
    let identity = controller_identity(&overlay);
    assert!(
        identity
            .iter()
            .any(|o| o["kind"] == "ClusterRole" && o["metadata"]["name"] == ISSUERS_ROLE),
        "{identity:#?}"
    );
    let list = json!({"apiVersion": "v1", "kind": "List", "items": identity});
    dev.ok_with(&["apply", "-f", "-"], Some(&list.to_string()));
    let token = dev.ok(&["create", "token", "certgate-controller", "-n", NAMESPACE]);
    let admin = std::fs::read_to_string(&dev.kubeconfig).unwrap();
    let admin_token = dev_support::real_cluster::ADMIN_TOKEN;
    assert!(admin.contains(admin_token));
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig-certgate-controller");
    std::fs::write(&kubeconfig, admin.replace(admin_token, token.trim())).unwrap();

    // A CA key pair for an Issuer of payments and one for a ClusterIssuer, in cert-manager.
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.distinguished_name.push(rcgen::DnType::CommonName, "certgate deploy test CA");
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    // cRLSign: the Issuer of payments publishes a CRL too.
    ca_params.key_usages = vec![
        rcgen::KeyUsagePurpose::KeyCertSign,
        rcgen::KeyUsagePurpose::CrlSign,
        rcgen::KeyUsagePurpose::DigitalSignature,
    ];
    let ca = ca_params.self_signed(&ca_key).unwrap();
    let (ca_file, ca_key_file) = (dir.path().join("ca.crt"), dir.path().join("ca.key"));
    std::fs::write(&ca_file, ca.pem()).unwrap();
    std::fs::write(&ca_key_file, ca_key.serialize_pem()).unwrap();
    let (cert_arg, key_arg) =
        (format!("--cert={}", ca_file.display()), format!("--key={}", ca_key_file.display()));
    for namespace in ["payments", "cert-manager"] {
        dev.ok(&["create", "namespace", namespace]);
        dev.ok(&["create", "secret", "tls", "ca-key-pair", "-n", namespace, &cert_arg, &key_arg]);
    }
    dev.ok_with(
        &["apply", "-f", "-"],
        Some(
            "apiVersion: cert-manager.io/v1\nkind: Issuer\nmetadata: {name: ca, namespace: payments}\n\
             spec: {ca: {secretName: ca-key-pair}}\n---\n\
             apiVersion: cert-manager.io/v1\nkind: Issuer\nmetadata: {name: selfsigned, namespace: payments}\n\
             spec: {selfSigned: {}}\n---\n\
             apiVersion: cert-manager.io/v1\nkind: ClusterIssuer\nmetadata: {name: ca}\n\
             spec: {ca: {secretName: ca-key-pair}}\n",
        ),
    );

    let container = overlay.container("Deployment", "certgate-controller", "controller");
    let env = [("POD_NAMESPACE", NAMESPACE), ("POD_NAME", "certgate-controller-0")];
    let args: Vec<String> =
        strings(&container["args"]).iter().map(|a| localize(a, &[], &env)).collect();
    assert!(args.iter().any(|a| a == ISSUERS_ARG), "{args:?}");
    assert!(!args.iter().any(|a| a.starts_with("--cluster-resource-namespace")), "{args:?}");
    let listen = format!("127.0.0.1:{}", free_port());
    let args = with_flag(args, "--listen", &listen);
    let controller = Running::spawn(
        "certgate controller",
        Command::new(env!("CARGO_BIN_EXE_certgate"))
            .args(&args)
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .envs(downward_env(container, "certgate-controller-0"))
            .env("RUST_LOG", "info"),
    );
    let context = || format!("{}{}", dev.logs(), controller.log());
    let ready = |kind: &str, namespace: Option<&str>, name: &str| {
        let mut args = vec!["get", kind, name];
        if let Some(namespace) = namespace {
            args.extend(["-n", namespace]);
        }
        args.extend([
            "-o",
            r#"jsonpath={range .status.conditions[?(@.type=="Ready")]}{.status} {.reason}{end}"#,
        ]);
        dev.ok(&args)
    };
    let wait_ready = |kind: &str, namespace: Option<&str>, name: &str, expected: &str| {
        wait_for(
            &format!("{kind} {name} to be Ready {expected}"),
            || match ready(kind, namespace, name) {
                seen if seen == expected => Ok(()),
                seen => Err(seen),
            },
            context,
        )
    };
    wait_ready("issuer", Some("payments"), "ca", "True KeyPairVerified");
    wait_ready("issuer", Some("payments"), "selfsigned", "True IsReady");
    wait_ready("clusterissuer", None, "ca", "True KeyPairVerified");
    let holder = dev.ok(&[
        "get",
        "lease",
        "certgate-controller",
        "-n",
        NAMESPACE,
        "-o",
        "jsonpath={.spec.holderIdentity}",
    ]);
    assert!(holder.starts_with("certgate-controller-0"), "lease holder {holder:?}\n{}", context());

    let self_key = "  cert-manager.io/private-key-secret-name: self-key\n";
    let requests = [
        ("through-issuer", "Issuer", "ca", ""),
        ("through-clusterissuer", "ClusterIssuer", "ca", ""),
        ("self", "Issuer", "selfsigned", self_key.trim()),
    ];
    let mut self_signed_key = String::new();
    for (name, kind, issuer, annotations) in requests {
        let (manifest, key) = issuer_request(name, kind, issuer, annotations);
        if name == "self" {
            self_signed_key = key;
        }
        dev.ok_with(&["create", "-f", "-"], Some(&manifest));
        let approved = dev.certgate(&dev.kubeconfig, &["approve", name, "-n", "payments"]);
        assert_eq!(approved.0, 0, "{approved:?}");
    }
    wait_ready("certificaterequest", Some("payments"), "self", "False Pending");
    let key_file = dir.path().join("self.key");
    std::fs::write(&key_file, &self_signed_key).unwrap();
    dev.ok(&[
        "create",
        "secret",
        "generic",
        "self-key",
        "-n",
        "payments",
        &format!("--from-file=tls.key={}", key_file.display()),
    ]);
    for (name, ..) in requests {
        wait_ready("certificaterequest", Some("payments"), name, "True Issued");
        let certificate = dev.ok(&[
            "get",
            "certificaterequest",
            name,
            "-n",
            "payments",
            "-o",
            "jsonpath={.status.certificate}",
        ]);
        assert!(!certificate.is_empty(), "{name}: no certificate");
    }
    let reasons = dev.ok(&[
        "get",
        "events.v1.events.k8s.io",
        "-n",
        "payments",
        "-o",
        "jsonpath={.items[*].reason}",
    ]);
    for reason in ["KeyPairVerified", "CertificateIssued"] {
        assert!(reasons.split_whitespace().any(|r| r == reason), "no {reason} event: {reasons}");
    }

    // certificates: a Certificate of the CA Issuer becomes a private key, the request of
    // revision 1 (approved here by the admin), and its Secret.
    dev.ok_with(
        &["apply", "-f", "-"],
        Some(
            "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: {name: web, namespace: payments}\n\
             spec:\n  secretName: web-tls\n  dnsNames: [web.payments.svc]\n  duration: 2h\n\
             \x20 privateKey: {algorithm: ECDSA}\n  issuerRef: {name: ca, kind: Issuer}\n",
        ),
    );
    wait_for(
        "the Certificate's request web-1",
        || {
            let found =
                dev.kubectl(&["get", "certificaterequest", "web-1", "-n", "payments"], None);
            if found.status.success() { Ok(()) } else { Err("absent".to_owned()) }
        },
        context,
    );
    let approved = dev.certgate(&dev.kubeconfig, &["approve", "web-1", "-n", "payments"]);
    assert_eq!(approved.0, 0, "{approved:?}");
    wait_ready("certificate", Some("payments"), "web", "True Ready");
    let keys = dev.ok(&[
        "get",
        "secret",
        "web-tls",
        "-n",
        "payments",
        "-o",
        r#"go-template={{range $key, $value := .data}}{{if $value}}{{$key}} {{end}}{{end}}"#,
    ]);
    for key in ["ca.crt", "tls.crt", "tls.key"] {
        assert!(keys.split_whitespace().any(|k| k == key), "web-tls has no {key}: {keys}");
    }

    // issuers-crl: the annotated CA Issuer publishes its CRL, empty, then with the
    // Certificate revoked (by the admin, as `certgate revoke` is run).
    dev.ok(&["annotate", "issuer", "ca", "-n", "payments", "certgate.io/crl-secret-name=ca-crl"]);
    let crl_entries = || -> Result<usize, String> {
        let pem = dev.ok(&[
            "get",
            "secret",
            "ca-crl",
            "-n",
            "payments",
            "--ignore-not-found",
            "-o",
            r"jsonpath={.data.crl\.pem}",
        ]);
        use base64::Engine as _;
        let pem = base64::engine::general_purpose::STANDARD
            .decode(pem.trim())
            .map_err(|err| format!("crl.pem is not base64: {err}"))?;
        let (block, _) = certgate_pki::pem::decode(&pem).ok_or("no crl.pem yet")?;
        let crl = certgate_crl::Crl::from_der(block.der, &certgate_crl::Limits::default())
            .map_err(|err| format!("crl.pem does not parse: {err}"))?;
        Ok(crl.info().entries)
    };
    let published = wait_for("the CA Issuer's first CRL", crl_entries, context);
    assert_eq!(published, 0);
    let revoked =
        dev.certgate(&dev.kubeconfig, &["revoke", "certificate", "web", "-n", "payments"]);
    assert_eq!(revoked.0, 0, "{revoked:?}");
    assert!(revoked.1.contains("Revoked certificate serial"), "{revoked:?}");
    wait_for(
        "the CRL listing the revoked Certificate",
        || match crl_entries()? {
            1 => Ok(()),
            entries => Err(format!("{entries} entries")),
        },
        context,
    );
    // The event follows the write.
    wait_for(
        "the CRLPublished event of CRL number 2",
        || {
            let notes = dev.ok(&[
                "get",
                "events.v1.events.k8s.io",
                "-n",
                "payments",
                "-o",
                "jsonpath={range .items[*]}{.note}{\"\\n\"}{end}",
            ]);
            let published =
                "Published CRL number 2 with 1 revoked certificates to secret payments/ca-crl";
            if notes.lines().any(|n| n == published) { Ok(()) } else { Err(notes) }
        },
        context,
    );

    // /metrics: the Certificate's decision and the published CRL's gauges.
    let crl_series = r#"{issuer_kind="Issuer",issuer="ca",namespace="payments",secret="ca-crl"}"#;
    let expected = [
        r#"certgate_controller_decisions_total{controller="certificates",result="issued"} "#
            .to_owned(),
        format!("certgate_crl_entries{crl_series} 1\n"),
        format!("certgate_crl_next_update_timestamp_seconds{crl_series} "),
    ];
    wait_for(
        "the metrics of the Certificate and the CRL",
        || {
            let metrics = http_get(&listen, "/metrics").unwrap_or_default();
            match expected.iter().find(|line| !metrics.contains(line.as_str())) {
                None => Ok(()),
                Some(missing) => Err(format!("no {missing:?} in\n{metrics}")),
            }
        },
        context,
    );

    let log = controller.log();
    assert!(
        !log.to_lowercase().contains("forbidden"),
        "the API server refused the controller something:\n{log}"
    );
    let failure = context();
    let status = controller.terminate();
    assert!(status.success(), "certgate controller exited with {status}\n{failure}");
    let holder = dev.ok(&[
        "get",
        "lease",
        "certgate-controller",
        "-n",
        NAMESPACE,
        "-o",
        "jsonpath={.spec.holderIdentity}",
    ]);
    assert!(holder.is_empty(), "the Lease is still held by {holder:?}");
}
