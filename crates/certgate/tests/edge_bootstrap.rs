//! `certgate edge bootstrap` against a real Envoy (issue #21): the bootstrap it writes, with
//! mutual TLS to the xDS server inline or through file-based SDS, is accepted by Envoy 1.40
//! (`envoy --mode validate`, which loads every static resource, the certificate files
//! included); and its refusals use Contour's texts.

mod real_tools;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
use serde_json::Value;

fn certgate(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_certgate"))
        .args(args)
        .env_remove("ENVOY_CAFILE")
        .env_remove("ENVOY_CERT_FILE")
        .env_remove("ENVOY_KEY_FILE")
        .env_remove("CONTOUR_NAMESPACE")
        .output()
        .expect("run certgate")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A CA and a client certificate signed by it, as PEM files in `dir`: (ca, cert, key).
fn client_files(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = ca_params.self_signed(&ca_key).unwrap();
    let issuer = Issuer::from_params(&ca_params, &ca_key);
    let key = KeyPair::generate().unwrap();
    let cert =
        CertificateParams::new(vec!["envoy".to_owned()]).unwrap().signed_by(&key, &issuer).unwrap();
    let paths = (dir.join("ca.crt"), dir.join("tls.crt"), dir.join("tls.key"));
    std::fs::write(&paths.0, ca.pem()).unwrap();
    std::fs::write(&paths.1, cert.pem()).unwrap();
    std::fs::write(&paths.2, key.serialize_pem()).unwrap();
    paths
}

/// `envoy --mode validate` on `config`: loads and checks it without serving. The node's
/// identity comes from the command line, as in Contour's Envoy DaemonSet.
fn envoy_validates(config: &Path) {
    let output = Command::new(real_tools::envoy())
        .args(["--mode", "validate", "--service-node", "envoy-0", "--service-cluster", "certgate"])
        .arg("-c")
        .arg(config)
        .args(["-l", "warning"])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", real_tools::envoy().display()));
    assert!(
        output.status.success(),
        "Envoy refused {}:\n{}{}\n{}",
        config.display(),
        text(&output.stdout),
        text(&output.stderr),
        std::fs::read_to_string(config).unwrap_or_default()
    );
}

#[test]
fn envoy_accepts_the_bootstrap_without_tls() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("envoy.json");
    let admin = dir.path().join("admin.sock");
    let output = certgate(&[
        "edge",
        "bootstrap",
        config.to_str().unwrap(),
        "--xds-address=127.0.0.1",
        "--xds-port=18001",
        &format!("--admin-address={}", admin.display()),
    ]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    envoy_validates(&config);
}

#[test]
fn envoy_accepts_the_bootstrap_with_inline_tls_and_with_sds_files() {
    let dir = tempfile::tempdir().unwrap();
    let (ca, cert, key) = client_files(dir.path());
    let admin = dir.path().join("admin.sock");
    let tls = [
        format!("--envoy-cafile={}", ca.display()),
        format!("--envoy-cert-file={}", cert.display()),
        format!("--envoy-key-file={}", key.display()),
        format!("--admin-address={}", admin.display()),
    ];
    let inline = dir.path().join("inline.json");
    let mut args = vec!["edge", "bootstrap", inline.to_str().unwrap(), "--xds-address=localhost"];
    args.extend(tls.iter().map(String::as_str));
    let output = certgate(&args);
    assert!(output.status.success(), "{}", text(&output.stderr));
    envoy_validates(&inline);

    let resources = dir.path().join("resources");
    let with_sds = dir.path().join("sds.json");
    let resources_flag = format!("--resources-dir={}", resources.display());
    let mut args = vec!["edge", "bootstrap", with_sds.to_str().unwrap(), &resources_flag];
    args.extend(tls.iter().map(String::as_str));
    let output = certgate(&args);
    assert!(output.status.success(), "{}", text(&output.stderr));
    for file in ["xds-tls-certificate.json", "xds-validation-context.json"] {
        let path = resources.join("sds").join(file);
        let sds: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(sds["resources"].as_array().map(Vec::len), Some(1), "{}", path.display());
    }
    envoy_validates(&with_sds);
}

#[test]
fn refusals_use_contours_texts_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (ca, cert, _) = client_files(dir.path());
    let config = dir.path().join("envoy.json");
    let output = certgate(&[
        "edge",
        "bootstrap",
        config.to_str().unwrap(),
        &format!("--envoy-cafile={}", ca.display()),
        &format!("--envoy-cert-file={}", cert.display()),
    ]);
    assert!(!output.status.success());
    assert_eq!(
        text(&output.stderr).trim_end(),
        "error: you must supply all TLS parameters - \"--envoy-cafile\", \"--envoy-cert-file\", \"--envoy-key-file\", or none of them"
    );
    assert!(!config.exists());

    let empty = dir.path().join("empty.key");
    std::fs::write(&empty, "").unwrap();
    let output = certgate(&[
        "edge",
        "bootstrap",
        config.to_str().unwrap(),
        &format!("--envoy-cafile={}", ca.display()),
        &format!("--envoy-cert-file={}", cert.display()),
        &format!("--envoy-key-file={}", empty.display()),
    ]);
    assert!(!output.status.success());
    assert_eq!(
        text(&output.stderr).trim_end(),
        format!("error: --envoy-key-file {}: the file is empty", empty.display())
    );
    assert!(!config.exists());
}

#[test]
fn a_dash_writes_the_bootstrap_to_standard_output() {
    let output = certgate(&["edge", "bootstrap", "-", "--xds-port=9443"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let bootstrap: Value = serde_json::from_slice(&output.stdout).expect("JSON on stdout");
    assert_eq!(
        bootstrap.pointer(
            "/staticResources/clusters/0/loadAssignment/endpoints/0/lbEndpoints/0/endpoint/address/socketAddress/portValue"
        ),
        Some(&Value::from(9443))
    );
    let refused = certgate(&["edge", "bootstrap", "-", "--resources-dir=/tmp/x"]);
    assert!(!refused.status.success());
    assert!(text(&refused.stderr).contains("--resources-dir cannot be used"));
}
