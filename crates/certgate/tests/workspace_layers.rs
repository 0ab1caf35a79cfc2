//! The workspace's layering, checked over `cargo metadata` (issue #17): a crate depends only
//! on crates of its own layer or of layers below it; production crates never depend on the
//! development-only crates; the pure layers stay free of async runtimes, HTTP stacks and
//! Kubernetes clients; and the folder a crate lives in tells which kind it is.
//!
//! The layers, bottom to top (see `docs/decisions/0001-workspace-layout.md`):
//!
//! | layer | holds | may use |
//! |---|---|---|
//! | library | general-purpose reimplementations of Go libraries | library |
//! | domain | pure decisions over snapshots: no tokio, no kube client, no network | library, domain |
//! | serving | TLS and connection plumbing shared by every server, the sandbox's included | below |
//! | runtime | watches, queues, leases, metrics, the webhook server: production I/O | below |
//! | dev | the sandbox API server and its parts (`crates/dev/`) | library, domain, serving, dev |
//! | binary | `certgate`: arguments and wiring (its `dev` command runs the sandbox) | everything |
//!
//! A new crate fails this test until it is given a layer below.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Layer {
    Library,
    Domain,
    Serving,
    Runtime,
    Dev,
    Binary,
}

/// Every workspace crate and its layer. Keep in step with the ADR's table.
const LAYERS: &[(&str, Layer)] = &[
    ("certgate-gofmt", Layer::Library),
    ("certgate-goyaml", Layer::Library),
    ("certgate-gotemplate", Layer::Library),
    ("certgate-clock", Layer::Library),
    ("certgate-api", Layer::Domain),
    ("certgate-pki", Layer::Domain),
    ("certgate-cel", Layer::Domain),
    ("certgate-rbac", Layer::Domain),
    ("certgate-approval", Layer::Domain),
    ("certgate-admission", Layer::Domain),
    ("certgate-sprig", Layer::Domain),
    ("certgate-templates", Layer::Domain),
    ("certgate-crl", Layer::Domain),
    ("certgate-ingress", Layer::Domain),
    ("certgate-issuance", Layer::Domain),
    ("certgate-serving", Layer::Serving),
    ("certgate-cluster", Layer::Runtime),
    ("certgate-webhook", Layer::Runtime),
    ("certgate-runtime", Layer::Runtime),
    ("certgate-approver", Layer::Runtime),
    ("certgate-propagator", Layer::Runtime),
    ("certgate-edge", Layer::Runtime),
    ("certgate-issuer", Layer::Runtime),
    ("certgate-access", Layer::Dev),
    ("certgate-dispatch", Layer::Dev),
    ("certgate-kubeproto", Layer::Dev),
    ("certgate-oracles", Layer::Dev),
    ("certgate-patch", Layer::Dev),
    ("certgate-sandbox", Layer::Dev),
    ("certgate-schema", Layer::Dev),
    ("certgate-store", Layer::Dev),
    ("certgate", Layer::Binary),
];

/// Crates the pure layers must not use: async runtimes, HTTP stacks, network clients.
const IMPURE: &[&str] = &[
    "tokio",
    "axum",
    "axum-server",
    "hyper",
    "hyper-util",
    "tower",
    "reqwest",
    "tonic",
    "kube-client",
    "kube-runtime",
    "rustls",
    "tokio-rustls",
];

/// `kube` features that bring a client or a runtime (the `derive` feature is pure).
const IMPURE_KUBE_FEATURES: &[&str] =
    &["client", "runtime", "unstable-runtime", "rustls-tls", "ws"];

struct Package {
    name: String,
    dir: PathBuf,
    /// Normal and build dependencies (dev-dependencies only build tests).
    deps: Vec<(String, Vec<String>)>,
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn packages() -> Vec<Package> {
    let output = Command::new(env!("CARGO"))
        .args(["metadata", "--offline", "--no-deps", "--format-version", "1"])
        .current_dir(workspace_root())
        .output()
        .expect("run cargo metadata");
    assert!(output.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&output.stderr));
    let metadata: Value = serde_json::from_slice(&output.stdout).expect("cargo metadata JSON");
    metadata["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .map(|package| Package {
            name: package["name"].as_str().expect("name").to_owned(),
            dir: Path::new(package["manifest_path"].as_str().expect("manifest_path"))
                .parent()
                .expect("manifest folder")
                .to_path_buf(),
            deps: package["dependencies"]
                .as_array()
                .expect("dependencies")
                .iter()
                .filter(|dep| dep["kind"].as_str() != Some("dev"))
                .map(|dep| {
                    let features = dep["features"]
                        .as_array()
                        .map(|f| f.iter().filter_map(Value::as_str).map(str::to_owned).collect())
                        .unwrap_or_default();
                    (dep["name"].as_str().expect("dependency name").to_owned(), features)
                })
                .collect(),
        })
        .collect()
}

fn layers() -> BTreeMap<&'static str, Layer> {
    LAYERS.iter().copied().collect()
}

fn layer_of(layers: &BTreeMap<&str, Layer>, name: &str) -> Layer {
    *layers.get(name).unwrap_or_else(|| {
        panic!("crate {name} has no layer: add it to LAYERS in {} and to ADR 0001", file!())
    })
}

/// Whether a crate of layer `from` may depend on one of layer `to`.
fn may_use(from: Layer, to: Layer) -> bool {
    match (from, to) {
        (Layer::Binary, _) => true,
        // The sandbox is not production: it may share the serving plumbing but nothing the
        // production runtime holds, and the runtime never reaches into it.
        (Layer::Dev, to) => to != Layer::Runtime && to != Layer::Binary,
        (_, Layer::Dev) => false,
        (from, to) => to <= from,
    }
}

#[test]
fn every_dependency_points_down_the_layers() {
    let layers = layers();
    let mut violations = Vec::new();
    for package in packages() {
        let from = layer_of(&layers, &package.name);
        for (dep, _) in package.deps.iter().filter(|(dep, _)| dep.starts_with("certgate")) {
            let to = layer_of(&layers, dep);
            if !may_use(from, to) {
                violations.push(format!("{} ({from:?}) depends on {dep} ({to:?})", package.name));
            }
        }
    }
    assert!(violations.is_empty(), "layering violations:\n{}", violations.join("\n"));
}

#[test]
fn pure_layers_use_no_runtime_network_or_client() {
    let layers = layers();
    let mut violations = Vec::new();
    for package in packages() {
        if layer_of(&layers, &package.name) > Layer::Domain {
            continue;
        }
        for (dep, features) in &package.deps {
            if IMPURE.contains(&dep.as_str()) {
                violations.push(format!("{} depends on {dep}", package.name));
            }
            if dep == "kube" {
                for feature in
                    features.iter().filter(|f| IMPURE_KUBE_FEATURES.contains(&f.as_str()))
                {
                    violations.push(format!("{} uses kube's {feature:?} feature", package.name));
                }
            }
        }
    }
    assert!(violations.is_empty(), "pure crates with I/O dependencies:\n{}", violations.join("\n"));
}

#[test]
fn folders_tell_which_crates_are_development_only() {
    let layers = layers();
    let dev_folder = workspace_root().join("crates/dev").canonicalize().expect("crates/dev");
    for package in packages() {
        let in_dev = package.dir.canonicalize().expect("crate folder").starts_with(&dev_folder);
        let is_dev = layer_of(&layers, &package.name) == Layer::Dev;
        assert_eq!(
            in_dev,
            is_dev,
            "{} lives in {} but its layer is {:?}: development-only crates live under crates/dev/, \
             and only they",
            package.name,
            package.dir.display(),
            layer_of(&layers, &package.name)
        );
    }
}

#[test]
fn every_crate_folder_is_a_workspace_member_with_a_layer() {
    let layers = layers();
    let members: Vec<PathBuf> =
        packages().iter().map(|p| p.dir.canonicalize().expect("crate folder")).collect();
    let root = workspace_root();
    for folder in [root.join("crates"), root.join("crates/dev")] {
        for entry in std::fs::read_dir(&folder).expect("read crates folder") {
            let dir = entry.expect("entry").path();
            if dir.join("Cargo.toml").is_file() {
                let dir = dir.canonicalize().expect("crate folder");
                assert!(members.contains(&dir), "{} is not a workspace member", dir.display());
            }
        }
    }
    let names: Vec<String> = packages().into_iter().map(|p| p.name).collect();
    for name in &names {
        layer_of(&layers, name);
    }
    for (name, _) in LAYERS {
        assert!(
            names.iter().any(|n| n == name),
            "LAYERS names {name}, which is no workspace crate"
        );
    }
}

#[test]
fn the_layer_rule_refuses_what_the_issue_forbids() {
    // The rule itself, on the edges issue #17 removed: a test that could not fail would
    // prove nothing.
    assert!(!may_use(Layer::Runtime, Layer::Dev), "runtime must not use the sandbox's crates");
    assert!(!may_use(Layer::Domain, Layer::Dev), "domain must not use the sandbox's crates");
    assert!(!may_use(Layer::Dev, Layer::Runtime), "the sandbox must not use the webhook crate");
    assert!(!may_use(Layer::Domain, Layer::Runtime), "domain must not use runtime crates");
    assert!(!may_use(Layer::Library, Layer::Domain));
    assert!(may_use(Layer::Dev, Layer::Serving));
    assert!(may_use(Layer::Binary, Layer::Dev));
}
