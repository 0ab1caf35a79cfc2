//! `certgate edge serve`'s refusals before it touches a cluster.

use std::process::Command;

/// Runs `certgate edge serve ARGS` without Contour's TLS environment; (exit code, stderr).
fn serve(args: &[&str]) -> (Option<i32>, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_certgate"))
        .args(["edge", "serve"])
        .args(args)
        .env_remove("CONTOUR_CERT_FILE")
        .env_remove("CONTOUR_KEY_FILE")
        .env_remove("CONTOUR_CAFILE")
        .output()
        .unwrap();
    (output.status.code(), String::from_utf8_lossy(&output.stderr).into_owned())
}

// The status every certgate command exits with on an error is 2 (`CheckStatus::Failed`); the
// texts are Contour's `verifyTLSFlags`.

#[test]
fn plain_xds_needs_insecure_as_with_contour() {
    assert_eq!(
        serve(&[]),
        (
            Some(2),
            "error: no TLS parameters and --insecure not supplied. You must supply one or the other\n"
                .to_owned()
        )
    );
}

#[test]
fn partial_xds_tls_flags_are_refused_in_either_spelling() {
    let expected = (
        Some(2),
        "error: you must supply all three TLS parameters - --contour-cafile, --contour-cert-file, --contour-key-file, or none of them\n"
            .to_owned(),
    );
    assert_eq!(serve(&["--xds-tls-cert-file", "/nonexistent/tls.crt"]), expected);
    assert_eq!(serve(&["--contour-cafile", "/a", "--contour-key-file", "/b"]), expected);
}
