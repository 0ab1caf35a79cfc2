//! `certgate crl` against golden files (`UPDATE_GOLDEN=1` rewrites them; see `support`).
//! Fixtures in tests/fixtures/crl are generated once by the ignored `generate_fixtures` test
//! and kept as PEM/YAML text, so the goldens stay byte-stable; every run fixes the time with
//! `--at`.

mod revocation_lists;
mod support;

use support::{certgate, crate_dir, golden, workspace_dir};

const DIR: &str = "tests/fixtures/crl";
/// The time of every run: after the expired CRL's nextUpdate, before the future CRL's
/// thisUpdate, inside every certificate's validity except client-expired's.
const AT: &str = "2026-06-01T00:00:00Z";

fn f(name: &str) -> String {
    format!("{DIR}/{name}")
}

fn verify(name: &str, crls: &[&str], extra: &[&str], client: &str) -> support::Run {
    let ca = f("ca.crt");
    let client = f(client);
    let crl_paths: Vec<String> = crls.iter().map(|c| f(c)).collect();
    let mut args = vec!["crl", "verify", "--ca", &ca, "--at", AT];
    for path in &crl_paths {
        args.extend(["--crl", path.as_str()]);
    }
    args.extend(extra);
    args.push(&client);
    golden(name, &args)
}

#[test]
fn verify_accepts_an_unrevoked_client_with_a_crl_for_every_ca() {
    assert_eq!(verify("crl-verify-accepted", &["crl.pem"], &[], "client-good.crt").code, 0);
}

#[test]
fn verify_reports_a_revoked_client() {
    assert_eq!(verify("crl-verify-revoked", &["crl.pem"], &[], "client-revoked.crt").code, 1);
}

#[test]
fn verify_full_chain_without_the_roots_crl_is_unknown_ca_and_says_rustls_differs() {
    let run = verify("crl-verify-unknown-ca", &["intermediate.crl"], &[], "client-good.crt");
    assert_eq!(run.code, 1);
    assert!(run.stdout.starts_with("unknown-ca\n"), "{}", run.stdout);
    assert!(run.stdout.contains("rustls differs"), "{}", run.stdout);
}

#[test]
fn verify_leaf_only_needs_only_the_issuers_crl() {
    let run =
        verify("crl-verify-leaf-only", &["intermediate.crl"], &["--leaf-only"], "client-good.crt");
    assert_eq!(run.code, 0);
}

#[test]
fn verify_an_expired_crl_fails_every_client() {
    let crls = ["root.crl", "intermediate-expired.crl"];
    assert_eq!(verify("crl-verify-crl-expired", &crls, &[], "client-good.crt").code, 1);
}

#[test]
fn verify_a_crl_from_the_future_is_not_yet_valid() {
    let crls = ["root.crl", "intermediate-future.crl"];
    assert_eq!(verify("crl-verify-crl-not-yet-valid", &crls, &[], "client-good.crt").code, 1);
}

#[test]
fn verify_a_crl_signed_by_the_wrong_key_is_a_bad_signature() {
    let crls = ["root.crl", "intermediate-wrong-key.crl"];
    assert_eq!(verify("crl-verify-bad-crl-signature", &crls, &[], "client-good.crt").code, 1);
}

#[test]
fn verify_an_expired_client_certificate_is_rejected() {
    assert_eq!(verify("crl-verify-rejected", &["crl.pem"], &[], "client-expired.crt").code, 1);
}

#[test]
fn verify_a_client_of_another_ca_is_unknown_ca() {
    let run = certgate(
        &crate_dir(),
        &[
            "crl",
            "verify",
            "--ca",
            &f("ca.crt"),
            "--crl",
            &f("crl.pem"),
            "--at",
            AT,
            &f("other-client.crt"),
        ],
        None,
    );
    assert_eq!(run.code, 1);
    assert!(run.stdout.starts_with("unknown-ca\n"), "{}", run.stdout);
}

#[test]
fn verify_input_errors_are_all_reported_with_exit_2() {
    let run = golden(
        "crl-verify-input-errors",
        &[
            "crl",
            "verify",
            "--ca",
            &f("missing.crt"),
            "--crl",
            &f("ca.crt"),
            "--at",
            AT,
            &f("root.crl"),
        ],
    );
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
}

#[test]
fn verify_rejects_a_malformed_time() {
    let run = certgate(
        &crate_dir(),
        &[
            "crl",
            "verify",
            "--ca",
            &f("ca.crt"),
            "--crl",
            &f("crl.pem"),
            "--at",
            "yesterday",
            &f("client-good.crt"),
        ],
        None,
    );
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("RFC 3339"), "{}", run.stderr);
}

#[test]
fn inspect_text_shows_each_crl_its_signature_and_the_warnings() {
    let run = golden(
        "crl-inspect-text",
        &[
            "crl",
            "inspect",
            &f("crl.pem"),
            &f("intermediate-wrong-key.crl"),
            &f("other.crl"),
            "--ca",
            &f("ca.crt"),
            "--at",
            AT,
        ],
    );
    assert_eq!(run.code, 1, "warnings give exit status 1");
}

#[test]
fn inspect_json_reports_an_expired_crl() {
    let run = golden(
        "crl-inspect-json",
        &[
            "crl",
            "inspect",
            &f("intermediate-expired.crl"),
            "--ca",
            &f("ca.crt"),
            "--at",
            AT,
            "-o",
            "json",
        ],
    );
    assert_eq!(run.code, 1);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(json["files"][0]["crls"][0]["expired"], true);
}

#[test]
fn yaml_is_the_json_document_for_every_crl_command() {
    let ca = f("ca.crt");
    let (crl, client, manifests) =
        (f("intermediate-expired.crl"), f("client-good.crt"), f("manifests"));
    let commands: [&[&str]; 3] = [
        &["crl", "inspect", &crl, "--ca", &ca, "--at", AT],
        &["crl", "verify", "--ca", &ca, "--crl", &crl, "--at", AT, &client],
        &["crl", "check", "-f", &manifests, "--at", AT],
    ];
    for args in commands {
        let run = |format: &str| {
            let mut all = args.to_vec();
            all.extend(["-o", format]);
            certgate(&crate_dir(), &all, None)
        };
        let (json, yaml) = (run("json"), run("yaml"));
        assert_eq!(yaml.code, json.code, "{args:?}: {}", yaml.stderr);
        let json: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
        let yaml = certgate_goyaml::from_yaml(&yaml.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: not YAML ({e}):\n{}", yaml.stdout));
        assert_eq!(yaml, json, "{args:?}");
    }
}

#[test]
fn inspect_without_ca_and_without_problems_exits_0() {
    let run = golden("crl-inspect-no-ca", &["crl", "inspect", &f("crl.pem"), "--at", AT]);
    assert_eq!(run.code, 0);
}

#[test]
fn inspect_a_missing_file_exits_2() {
    let run = certgate(&crate_dir(), &["crl", "inspect", &f("missing.crl")], None);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.starts_with(&format!("error: cannot read {}: ", f("missing.crl"))),
        "{}",
        run.stderr
    );
}

#[test]
fn check_text_shows_valid_invalid_and_warned_proxies() {
    let run = golden("crl-check-text", &["crl", "check", "-f", &f("manifests"), "--at", AT]);
    assert_eq!(run.code, 1, "an invalid HTTPProxy gives exit status 1");
    assert!(run.stdout.contains(
        "Spec.VirtualHost.TLS client validation is invalid: invalid CRL Secret \"default/not-a-crl\": failed to locate CRL"
    ));
}

#[test]
fn check_json_has_the_documented_shape() {
    let run = golden(
        "crl-check-json",
        &["crl", "check", "-f", &f("manifests"), "--at", AT, "-o", "json"],
    );
    assert_eq!(run.code, 1);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let keys: Vec<&String> = json.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["results"]);
    let first = json["results"][0].as_object().unwrap();
    let keys: Vec<&String> = first.keys().collect();
    assert_eq!(keys, ["namespace", "name", "valid", "status", "warnings", "envoy"]);
}

#[test]
fn check_with_only_valid_proxies_exits_0_even_with_warnings() {
    let run = certgate(
        &crate_dir(),
        &[
            "crl",
            "check",
            "-f",
            &f("manifests/secrets.yaml"),
            "-f",
            &f("manifests/valid.yaml"),
            "--at",
            AT,
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("expired"), "{}", run.stdout);
}

#[test]
fn check_reads_stdin() {
    let text = std::fs::read_to_string(crate_dir().join(f("manifests/secrets.yaml"))).unwrap()
        + "---\n"
        + &std::fs::read_to_string(crate_dir().join(f("manifests/valid.yaml"))).unwrap();
    let run = certgate(&crate_dir(), &["crl", "check", "-f", "-", "--at", AT], Some(&text));
    assert_eq!(run.code, 0, "{}", run.stderr);
}

#[test]
fn check_input_errors_exit_2() {
    let run = golden(
        "crl-check-input-errors",
        &["crl", "check", "-f", &f("broken.yaml"), "-f", &f("manifests")],
    );
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
}

#[test]
fn check_a_missing_path_exits_2_naming_it() {
    let run = certgate(&crate_dir(), &["crl", "check", "-f", &f("missing.yaml")], None);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.starts_with(&format!("error: cannot read {}: ", f("missing.yaml"))),
        "{}",
        run.stderr
    );
}

#[test]
fn check_an_undecodable_secret_is_an_input_error() {
    let text = "apiVersion: v1\nkind: Secret\nmetadata: {namespace: default, name: bad}\ndata: {crl.pem: '%%%'}\n";
    let run = certgate(&crate_dir(), &["crl", "check", "-f", "-"], Some(text));
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("not valid base64"), "{}", run.stderr);
}

#[test]
fn check_without_any_httpproxy_exits_2() {
    let run = certgate(&crate_dir(), &["crl", "check", "-f", &f("manifests/secrets.yaml")], None);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("no HTTPProxy"), "{}", run.stderr);
}

#[test]
fn inspect_lists_revoked_entries_in_text_as_openssl_orders_them() {
    let run = golden(
        "crl-inspect-revoked",
        &[
            "crl",
            "inspect",
            &f("several.crl"),
            "--ca",
            &f("several-ca.crt"),
            "--revoked",
            "--at",
            AT,
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let line = run.stdout.lines().find(|l| l.trim_start().starts_with("0A ")).unwrap();
    assert!(line.ends_with("  2026-03-01T12:00:00Z  keyCompromise"), "{line}");
}

#[test]
fn inspect_bounds_the_revoked_listing_and_counts_the_rest() {
    let run = golden(
        "crl-inspect-revoked-first",
        &["crl", "inspect", &f("several.crl"), "--revoked=2", "--at", AT],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("first 2 of 5"), "{}", run.stdout);
    assert!(run.stdout.contains("... 3 more entries"), "{}", run.stdout);
    let all = certgate(
        &crate_dir(),
        &["crl", "inspect", &f("several.crl"), "--revoked=all", "--at", AT],
        None,
    );
    assert_eq!(
        all.stdout.lines().filter(|l| l.contains("  2026-03-0")).count(),
        5,
        "{}",
        all.stdout
    );
    assert!(!all.stdout.contains("more entr"), "{}", all.stdout);
    // Without --revoked the text lists no entry.
    let plain = certgate(&crate_dir(), &["crl", "inspect", &f("several.crl"), "--at", AT], None);
    assert!(!plain.stdout.contains("revoked:"), "{}", plain.stdout);
}

#[test]
fn inspect_refuses_a_revoked_count_that_is_not_a_number() {
    let run =
        certgate(&crate_dir(), &["crl", "inspect", &f("several.crl"), "--revoked=some"], None);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("use e.g. --revoked=20 or --revoked=all"), "{}", run.stderr);
}

/// `openssl crl -text` on the same CRL: (serial, "Mon DD HH:MM:SS YYYY GMT", reason words).
fn openssl_revoked(path: &str) -> Vec<(String, String, Option<String>)> {
    let output = std::process::Command::new("openssl")
        .args(["crl", "-noout", "-text", "-in", path])
        .current_dir(crate_dir())
        .output()
        .expect("openssl is installed (the test needs it as the reference)");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8(output.stdout).unwrap();
    let mut entries: Vec<(String, String, Option<String>)> = Vec::new();
    let mut lines = text.lines().map(str::trim);
    while let Some(line) = lines.next() {
        if let Some(serial) = line.strip_prefix("Serial Number: ") {
            let date = lines.next().and_then(|l| l.strip_prefix("Revocation Date: ")).unwrap();
            entries.push((serial.to_owned(), date.to_owned(), None));
        } else if line == "X509v3 CRL Reason Code:" {
            entries.last_mut().unwrap().2 = lines.next().map(str::to_owned);
        }
    }
    entries
}

#[test]
fn inspect_json_lists_the_serials_openssl_lists() {
    let run = certgate(
        &crate_dir(),
        &["crl", "inspect", &f("several.crl"), "-o", "json", "--at", AT],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let listed = json["files"][0]["crls"][0]["revoked"].as_array().unwrap();
    let expected = openssl_revoked(&f("several.crl"));
    assert_eq!(expected.len(), 5, "the fixture has several entries");
    assert_eq!(listed.len(), expected.len());
    let openssl_reason = |rfc: &str| match rfc {
        "keyCompromise" => "Key Compromise",
        "superseded" => "Superseded",
        "cessationOfOperation" => "Cessation Of Operation",
        "certificateHold" => "Certificate Hold",
        other => panic!("unexpected reason {other}"),
    };
    for (ours, (serial, date, reason)) in listed.iter().zip(&expected) {
        assert_eq!(ours["serial"], serial.as_str());
        // openssl: "Mar  1 12:00:00 2026 GMT"; ours: RFC 3339.
        let ours_date =
            chrono::DateTime::parse_from_rfc3339(ours["revocationDate"].as_str().unwrap())
                .unwrap()
                .format("%b %e %H:%M:%S %Y GMT")
                .to_string();
        assert_eq!(&ours_date, date);
        assert_eq!(ours["reason"].as_str().map(openssl_reason), reason.as_deref());
    }
}

#[test]
fn check_strict_exits_3_on_warnings_with_the_same_output() {
    let args = [
        "crl",
        "check",
        "-f",
        &f("manifests/secrets.yaml"),
        "-f",
        &f("manifests/valid.yaml"),
        "--at",
        AT,
    ];
    let plain = certgate(&crate_dir(), &args, None);
    assert_eq!(plain.code, 0, "{}", plain.stderr);
    for flag in ["--strict", "--fail-on-warning"] {
        let strict = certgate(&crate_dir(), &[&args[..], &[flag]].concat(), None);
        assert_eq!(strict.code, 3, "{flag}: {}", strict.stderr);
        assert_eq!(strict.stdout, plain.stdout, "{flag} does not change the output");
    }
    // An invalid HTTPProxy still gives 1, which says more than a warning.
    let invalid = certgate(
        &crate_dir(),
        &["crl", "check", "-f", &f("manifests"), "--at", AT, "--strict"],
        None,
    );
    assert_eq!(invalid.code, 1, "{}", invalid.stderr);
}

#[test]
fn check_strict_without_warnings_exits_0() {
    let valid = std::fs::read_to_string(crate_dir().join(f("manifests/valid.yaml"))).unwrap();
    let full_chain = valid
        .split("\n---")
        .find(|doc| doc.contains("name: full-chain"))
        .expect("valid.yaml has the full-chain HTTPProxy");
    let secrets = std::fs::read_to_string(crate_dir().join(f("manifests/secrets.yaml"))).unwrap();
    let input = format!("{secrets}\n---\n{full_chain}\n");
    let run =
        certgate(&crate_dir(), &["crl", "check", "-f", "-", "--at", AT, "--strict"], Some(&input));
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("1 HTTPProxies: 1 valid, 0 invalid, 0 with warnings"),
        "{}",
        run.stdout
    );
}

#[test]
fn every_subcommand_explains_itself() {
    for sub in ["inspect", "verify", "check"] {
        let run = certgate(&crate_dir(), &["crl", sub, "--help"], None);
        assert_eq!(run.code, 0);
        assert!(run.stdout.contains("Exit status"), "{sub}: {}", run.stdout);
        assert!(run.stdout.contains("certgate crl "), "{sub} has examples");
    }
}

#[test]
fn the_docs_describe_every_verdict_word() {
    let docs = std::fs::read_to_string(workspace_dir().join("docs/crl.md")).unwrap();
    for word in [
        "accepted",
        "revoked",
        "unknown-ca",
        "crl-expired",
        "crl-not-yet-valid",
        "bad-crl-signature",
        "rejected",
    ] {
        assert!(docs.contains(&format!("`{word}`")), "docs/crl.md explains `{word}`");
    }
}

/// Regenerates the fixtures (run on purpose with `--ignored`, then `UPDATE_GOLDEN=1`).
#[test]
#[ignore = "writes fixtures; run on purpose"]
fn generate_fixtures() {
    fixtures::generate(&crate_dir().join(DIR));
}

mod fixtures {
    use std::path::Path;

    use base64::Engine as _;
    use rcgen::{
        BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer,
        KeyPair, KeyUsagePurpose, SerialNumber, date_time_ymd,
    };

    use crate::revocation_lists::crl;

    struct Ca {
        params: CertificateParams,
        key: KeyPair,
        pem: String,
    }

    impl Ca {
        fn issuer(&self) -> Issuer<'_, &KeyPair> {
            Issuer::from_params(&self.params, &self.key)
        }
    }

    fn ca_params(cn: &str, serial: u64) -> CertificateParams {
        let mut p = CertificateParams::new(Vec::<String>::new()).unwrap();
        p.distinguished_name.push(DnType::CommonName, cn);
        p.distinguished_name.push(DnType::OrganizationName, "certgate fixtures");
        p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        p.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        p.not_before = date_time_ymd(2025, 1, 1);
        p.not_after = date_time_ymd(2125, 1, 1);
        p.serial_number = Some(SerialNumber::from(serial));
        p
    }

    fn self_signed_ca(cn: &str) -> Ca {
        let params = ca_params(cn, 1);
        let key = KeyPair::generate().unwrap();
        let pem = params.self_signed(&key).unwrap().pem();
        Ca { params, key, pem }
    }

    fn client(cn: &str, serial: u64, parent: &Ca, until: (i32, u8, u8)) -> String {
        let mut p = CertificateParams::new(Vec::<String>::new()).unwrap();
        p.distinguished_name.push(DnType::CommonName, cn);
        p.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        p.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        p.not_before = date_time_ymd(2025, 1, 1);
        p.not_after = date_time_ymd(until.0, until.1, until.2);
        p.serial_number = Some(SerialNumber::from(serial));
        let key = KeyPair::generate().unwrap();
        p.signed_by(&key, &parent.issuer()).unwrap().pem()
    }

    fn b64(text: &str) -> String {
        base64::engine::general_purpose::STANDARD.encode(text)
    }

    fn secret(ns: &str, name: &str, type_: &str, data: &[(&str, &str)]) -> String {
        let mut out = format!(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  namespace: {ns}\n  name: {name}\ntype: {type_}\ndata:\n"
        );
        for (key, value) in data {
            out.push_str(&format!("  {key}: {}\n", b64(value)));
        }
        out
    }

    fn proxy(name: &str, validation: &str) -> String {
        format!(
            "apiVersion: projectcontour.io/v1\nkind: HTTPProxy\nmetadata:\n  namespace: default\n  name: {name}\n  generation: 1\nspec:\n  virtualhost:\n    fqdn: {name}.example.com\n    tls:\n      secretName: server\n      clientValidation:\n{validation}  routes:\n    - services:\n        - name: app\n          port: 80\n"
        )
    }

    pub fn generate(dir: &Path) {
        const LONG: (i32, u8, u8) = (2125, 1, 1);
        const START: (i32, u8, u8) = (2025, 1, 1);
        let root = self_signed_ca("certgate fixture root");
        let inter_params = ca_params("certgate fixture intermediate", 2);
        let inter_key = KeyPair::generate().unwrap();
        let inter_pem = inter_params.signed_by(&inter_key, &root.issuer()).unwrap().pem();
        let inter = Ca { params: inter_params, key: inter_key, pem: inter_pem };
        let other = self_signed_ca("certgate fixture other CA");
        let root_kid = root.params.key_identifier(&root.key);
        let inter_kid = inter.params.key_identifier(&inter.key);
        let other_kid = other.params.key_identifier(&other.key);

        let root_crl = crl(&root.issuer(), root_kid, &[], START, LONG, 1);
        let inter_crl = crl(&inter.issuer(), inter_kid.clone(), &[0x1002], START, LONG, 2);
        let expired = crl(&inter.issuer(), inter_kid.clone(), &[0x1002], (2024, 1, 1), START, 1);
        let future = crl(&inter.issuer(), inter_kid.clone(), &[0x1002], (2100, 1, 1), LONG, 3);
        // The intermediate's name and key identifier, but another key: BoringSSL picks it for
        // the intermediate's clients and fails its signature.
        let wrong_key = KeyPair::generate().unwrap();
        let impostor = Issuer::from_params(&inter.params, &wrong_key);
        let wrong = crl(&impostor, inter_kid, &[], START, LONG, 2);
        let other_crl = crl(&other.issuer(), other_kid, &[], START, LONG, 1);

        let ca_bundle = format!("{}{}", root.pem, inter.pem);
        let crl_bundle = format!("{root_crl}{inter_crl}");
        let files = [
            ("root.crt", root.pem.clone()),
            ("intermediate.crt", inter.pem.clone()),
            ("ca.crt", ca_bundle.clone()),
            ("client-good.crt", client("client good", 0x1001, &inter, LONG)),
            ("client-revoked.crt", client("client revoked", 0x1002, &inter, LONG)),
            ("client-expired.crt", client("client expired", 0x1003, &inter, (2025, 6, 1))),
            ("other-client.crt", client("client of other CA", 0x2001, &other, LONG)),
            ("root.crl", root_crl.clone()),
            ("intermediate.crl", inter_crl.clone()),
            ("crl.pem", crl_bundle.clone()),
            ("intermediate-expired.crl", expired.clone()),
            ("intermediate-future.crl", future),
            ("intermediate-wrong-key.crl", wrong),
            ("other.crl", other_crl),
            ("broken.yaml", "apiVersion: v1\nkind: [Secret\n".to_owned()),
        ];
        std::fs::create_dir_all(dir.join("manifests")).unwrap();
        for (name, text) in &files {
            std::fs::write(dir.join(name), text).unwrap();
        }

        let server_key = KeyPair::generate().unwrap();
        let mut server = CertificateParams::new(vec!["example.com".to_owned()]).unwrap();
        server.distinguished_name.push(DnType::CommonName, "example.com");
        server.not_before = date_time_ymd(2025, 1, 1);
        server.not_after = date_time_ymd(2125, 1, 1);
        let server_pem = server.self_signed(&server_key).unwrap().pem();
        let secrets = [
            secret(
                "default",
                "server",
                "kubernetes.io/tls",
                &[("tls.crt", &server_pem), ("tls.key", &server_key.serialize_pem())],
            ),
            secret("default", "client-ca", "Opaque", &[("ca.crt", &ca_bundle)]),
            secret("default", "crl", "Opaque", &[("crl.pem", &crl_bundle)]),
            secret("default", "crl-intermediate-only", "Opaque", &[("crl.pem", &inter_crl)]),
            secret(
                "default",
                "crl-expired",
                "Opaque",
                &[("crl.pem", &format!("{root_crl}{expired}"))],
            ),
            secret("default", "not-a-crl", "Opaque", &[("crl.pem", &root.pem)]),
            secret("certs", "shared-crl", "Opaque", &[("crl.pem", &crl_bundle)]),
        ];
        std::fs::write(dir.join("manifests/secrets.yaml"), secrets.join("---\n")).unwrap();
        let ca_and = |crl: &str, extra: &str| {
            format!("        caSecret: client-ca\n        crlSecret: {crl}\n{extra}")
        };
        let valid = [
            proxy("full-chain", &ca_and("crl", "")),
            proxy(
                "leaf-only",
                &ca_and("crl-intermediate-only", "        crlOnlyVerifyLeafCert: true\n"),
            ),
            proxy("root-not-covered", &ca_and("crl-intermediate-only", "")),
            proxy("expired-crl", &ca_and("crl-expired", "")),
        ];
        std::fs::write(dir.join("manifests/valid.yaml"), valid.join("---\n")).unwrap();
        let invalid = [
            proxy("not-a-crl", &ca_and("not-a-crl", "")),
            proxy("missing-crl", &ca_and("missing", "")),
            proxy("not-delegated", &ca_and("certs/shared-crl", "")),
        ];
        std::fs::write(dir.join("manifests/invalid.yaml"), invalid.join("---\n")).unwrap();
    }
}

#[test]
fn check_warns_about_a_misspelt_nested_field_and_strict_fails_on_it() {
    let proxy = "apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {namespace: default, name: typo}
spec:
  virtualhost:
    fqdn: typo.example.com
    tls:
      secretName: server
      clientValidation:
        caSecret: client-ca
        crlSecrte: crl
  routes:
    - services: [{name: app, port: 80, wieght: 1}]
";
    let secrets = std::fs::read_to_string(crate_dir().join(f("manifests/secrets.yaml"))).unwrap();
    let text = format!("{proxy}---\n{secrets}");
    let run = certgate(&crate_dir(), &["crl", "check", "-f", "-", "--at", AT], Some(&text));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        "warning: <stdin>:11:9: HTTPProxy \"default/typo\": unknown field \
         \"spec.virtualhost.tls.clientValidation.crlSecrte\", did you mean \"crlSecret\"?\n\
         warning: <stdin>:13:40: HTTPProxy \"default/typo\": unknown field \
         \"spec.routes[0].services[0].wieght\", did you mean \"weight\"?\n"
    );
    let strict = ["crl", "check", "-f", "-", "--at", AT, "--strict"];
    let run = certgate(&crate_dir(), &strict, Some(&text));
    assert_eq!(run.code, 3, "unknown fields are warnings for --strict: {}", run.stderr);
    // Without the misspellings the same input passes --strict.
    let fixed = text.replace("        crlSecrte: crl\n", "").replace("wieght", "weight");
    let run = certgate(&crate_dir(), &strict, Some(&fixed));
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
}

#[test]
fn check_json_carries_an_httpproxys_unknown_fields_in_its_warnings() {
    let proxy = "apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {namespace: default, name: typo}
spec:
  virtualhost: {fqdn: typo.example.com, tls: {secretName: server}}
  ingresClassName: contour
  routes: [{services: [{name: app, port: 80}]}]
";
    let secrets = std::fs::read_to_string(crate_dir().join(f("manifests/secrets.yaml"))).unwrap();
    let text = format!("{proxy}---\n{secrets}");
    let args = ["crl", "check", "-f", "-", "--at", AT, "-o", "json"];
    let run = certgate(&crate_dir(), &args, Some(&text));
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        report["results"][0]["warnings"],
        serde_json::json!(["<stdin>:6:3: unknown field \"spec.ingresClassName\", did you mean \
             \"ingressClassName\"?"])
    );
    assert!(run.stderr.contains("unknown field \"spec.ingresClassName\""), "{}", run.stderr);
}
