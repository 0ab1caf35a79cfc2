//! cert-manager's `Certificate`, `Issuer` and `ClusterIssuer` (`certgate_api::cert_manager`)
//! against upstream's CRDs in `shared/upstream-crds/`: the generated CRDs have upstream's API
//! surface and a schema that accepts what upstream's accepts (the issuer types certgate keeps
//! as written, `acme`, `vault` and `venafi`, accept any object), and objects setting every
//! property upstream's schema declares, hand-written upstream-shaped manifests and the
//! repository's own manifests decode into the types and encode back unchanged.

#[path = "support/instances.rs"]
mod instances;
#[path = "support/schema_compat.rs"]
mod schema_compat;

use instances::maximal;
use schema_compat::{surface, upstream};

use certgate_api::cert_manager::{
    Certificate, ClusterIssuer, Issuer, IssuerConfig, condition_type, defaults,
};
use certgate_api::crd;
use certgate_api::validation;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, CustomResourceDefinitionVersion, JSONSchemaProps,
};
use pretty_assertions::assert_eq;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

const CERTIFICATES: &str = "cert-manager.io_certificates.yaml";
const ISSUERS: &str = "cert-manager.io_issuers.yaml";
const CLUSTER_ISSUERS: &str = "cert-manager.io_clusterissuers.yaml";

/// The issuer types kept as written: objects of any shape in ours.
const OPAQUE_ISSUER_TYPES: [&str; 3] = [".spec.acme", ".spec.vault", ".spec.venafi"];

fn ours(name: &str) -> CustomResourceDefinition {
    crd::cert_manager()
        .into_iter()
        .find(|c| c.metadata.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("crd::cert_manager() has no {name}"))
}

fn ours_for(file: &str) -> CustomResourceDefinition {
    ours(upstream(file).metadata.name.as_deref().unwrap_or_default())
}

fn schema(version: &CustomResourceDefinitionVersion) -> JSONSchemaProps {
    version.schema.as_ref().and_then(|s| s.open_api_v3_schema.clone()).expect("a schema")
}

fn upstream_schema(file: &str) -> JSONSchemaProps {
    schema(&upstream(file).spec.versions[0])
}

fn ours_schema(file: &str) -> JSONSchemaProps {
    schema(&ours_for(file).spec.versions[0])
}

fn property<'a>(schema: &'a mut JSONSchemaProps, name: &str) -> &'a mut JSONSchemaProps {
    schema.properties.as_mut().and_then(|p| p.get_mut(name)).unwrap_or_else(|| panic!("{name}"))
}

// ---- CRDs ----

fn assert_compatible(file: &str, opaque: &[&str]) {
    let upstream = upstream(file);
    let name = upstream.metadata.name.clone().unwrap_or_default();
    let ours = ours(&name);

    assert_eq!(ours.spec.group, upstream.spec.group);
    assert_eq!(ours.spec.names, upstream.spec.names);
    assert_eq!(ours.spec.scope, upstream.spec.scope);
    assert_eq!(ours.spec.versions.len(), upstream.spec.versions.len());
    for (ours_v, upstream_v) in ours.spec.versions.iter().zip(&upstream.spec.versions) {
        assert_eq!(surface(ours_v), surface(upstream_v));
        let (ours_schema, upstream_schema) = (schema(ours_v), schema(upstream_v));
        let problems = schema_compat::compare_with_opaque(&ours_schema, &upstream_schema, opaque);
        assert!(problems.is_empty(), "{name} {} schema:\n{}", ours_v.name, problems.join("\n"));
        let extra = schema_compat::extra_properties("", &ours_schema, &upstream_schema);
        assert!(extra.is_empty(), "{name} {}: properties upstream lacks: {extra:?}", ours_v.name);
        let problems = schema_compat::structural_problems(&ours_schema);
        assert!(
            problems.is_empty(),
            "{name} {} not structural:\n{}",
            ours_v.name,
            problems.join("\n")
        );
    }
}

#[test]
fn certificate_crd_matches_upstream() {
    // Every field is typed: nothing is left out of the comparison.
    assert_compatible(CERTIFICATES, &[]);
}

#[test]
fn issuer_crd_matches_upstream() {
    assert_compatible(ISSUERS, &OPAQUE_ISSUER_TYPES);
}

#[test]
fn cluster_issuer_crd_matches_upstream() {
    assert_compatible(CLUSTER_ISSUERS, &OPAQUE_ISSUER_TYPES);
}

#[test]
fn cert_manager_lists_each_crd_once_in_a_stable_order_apart_from_all_and_ocm() {
    let names: Vec<_> = crd::cert_manager().into_iter().filter_map(|c| c.metadata.name).collect();
    assert_eq!(
        names,
        [
            "certificates.cert-manager.io",
            "issuers.cert-manager.io",
            "clusterissuers.cert-manager.io"
        ]
    );
    // `certgate crds` prints certgate's own CRDs only; clusters with cert-manager bring
    // upstream's.
    for other in crd::all().into_iter().chain(crd::ocm()) {
        assert!(!names.contains(&other.metadata.name.unwrap_or_default()));
    }
}

#[test]
fn roots_require_spec_as_upstream_and_no_defaults_are_declared() {
    // Upstream lets a Certificate omit `spec` at the schema level; an issuer must have one.
    assert_eq!(ours_schema(CERTIFICATES).required, None);
    for file in [ISSUERS, CLUSTER_ISSUERS] {
        assert_eq!(ours_schema(file).required.as_deref(), Some(&["spec".to_owned()][..]));
    }
    // Upstream's only defaults are inside the ACME issuer, which ours keeps as written.
    for crd in crd::cert_manager() {
        let text = serde_json::to_string(&crd).unwrap();
        assert!(!text.contains("\"default\""), "{:?} declares a default", crd.metadata.name);
    }
}

#[test]
fn comparison_reports_divergence_outside_and_at_the_opaque_issuer_types() {
    // The opaque paths must hide nothing else, and must themselves be objects kept as
    // written, or the issuer tests above prove nothing.
    let upstream = upstream_schema(ISSUERS);
    let mut schema = ours_schema(ISSUERS);
    let spec = property(&mut schema, "spec");
    property(spec, "ca").required = None;
    property(spec, "vault").x_kubernetes_preserve_unknown_fields = None;
    let self_signed = property(spec, "selfSigned");
    property(self_signed, "crlDistributionPoints").x_kubernetes_list_type = None;
    let mut problems = schema_compat::compare_with_opaque(&schema, &upstream, &OPAQUE_ISSUER_TYPES);
    problems.sort();
    assert_eq!(
        problems,
        [
            ".spec.ca: does not require \"secretName\", upstream does",
            ".spec.selfSigned.crlDistributionPoints: x-kubernetes-list-type: ours None, upstream Some(\"atomic\")",
            ".spec.vault: not an object kept as written: {\"type\":\"object\"}",
        ]
    );
    // Without the exception, the opaque types are reported like any other difference.
    let problems = schema_compat::compare(&ours_schema(ISSUERS), &upstream);
    for path in OPAQUE_ISSUER_TYPES {
        let preserved =
            format!("{path}: x-kubernetes-preserve-unknown-fields where upstream has none");
        assert!(problems.contains(&preserved), "{problems:?}");
    }
    // And a path that is an object in neither is no exception.
    let problems =
        schema_compat::compare_with_opaque(&ours_schema(ISSUERS), &upstream, &[".spec.nothing"]);
    assert!(problems.contains(&".spec.nothing: missing in ours".to_owned()), "{problems:?}");
}

// ---- round trips ----

fn round_trip<T: Serialize + DeserializeOwned>(object: &Value) -> T {
    let typed: T = serde_json::from_value(object.clone())
        .unwrap_or_else(|e| panic!("does not decode: {e}\n{object:#}"));
    let back = serde_json::to_value(&typed).expect("encodes");
    assert_eq!(&back, object);
    typed
}

/// `object` is valid for upstream's schema of `file` and ours alike, both leave it the same,
/// and it is unchanged through `T`.
fn accepted_round_trip<T: Serialize + DeserializeOwned>(file: &str, object: &Value) -> T {
    let (mut by_upstream, mut by_ours) = (object.clone(), object.clone());
    let upstream_errors = validation::validate_against(&upstream_schema(file), &mut by_upstream);
    assert!(upstream_errors.is_empty(), "upstream rejects the object: {upstream_errors:?}");
    assert_eq!(validation::validate_against(&ours_schema(file), &mut by_ours), upstream_errors);
    assert_eq!(by_ours, by_upstream, "the schemas prune differently");
    round_trip(object)
}

/// The maximal instance of `file`'s upstream schema, through `T`.
fn maximal_round_trip<T: Serialize + DeserializeOwned>(file: &str, kind: &str) -> (Value, T) {
    let crd = upstream(file);
    let schema = serde_json::to_value(upstream_schema(file)).unwrap();
    let mut instance = maximal(&schema, "", 0);
    instance["apiVersion"] = json!(format!("{}/{}", crd.spec.group, crd.spec.versions[0].name));
    instance["kind"] = json!(kind);
    let typed = accepted_round_trip(file, &instance);
    (instance, typed)
}

#[test]
fn certificate_maximal_instance_round_trips() {
    let (_, certificate) = maximal_round_trip::<Certificate>(CERTIFICATES, "Certificate");
    let spec = &certificate.spec;
    assert_eq!((spec.secret_name.as_str(), spec.issuer_ref.name.as_str()), ("x", "x"));
    assert_eq!(spec.usages.as_deref(), Some(&["signing".to_owned()][..]));
    let key = spec.private_key.as_ref().expect("privateKey");
    assert_eq!((key.algorithm.as_deref(), key.size), (Some("RSA"), Some(1)));
    let keystores = spec.keystores.as_ref().expect("keystores");
    assert_eq!(keystores.pkcs12.as_ref().unwrap().profile.as_deref(), Some("LegacyRC2"));
    assert!(keystores.jks.as_ref().unwrap().create);
    let constraints = spec.name_constraints.as_ref().expect("nameConstraints");
    assert_eq!(constraints.permitted.as_ref().unwrap().ip_ranges.as_deref().unwrap(), ["x"]);
    assert_eq!(spec.other_names.as_ref().unwrap()[0].utf8_value.as_deref(), Some("x"));
    assert_eq!(spec.additional_output_formats.as_ref().unwrap()[0].type_, "DER");
    let status = certificate.status.expect("status");
    assert_eq!((status.revision, status.failed_issuance_attempts), (Some(1), Some(1)));
    assert_eq!(status.conditions.as_ref().unwrap()[0].observed_generation, Some(1));
    let ari = status.acme.and_then(|acme| acme.ari).expect("status.acme.ari");
    assert_eq!(ari.suggested_window.unwrap().end, "2026-01-02T03:04:05Z");
}

#[test]
fn issuer_maximal_instance_round_trips_with_every_issuer_type() {
    let (instance, issuer) = maximal_round_trip::<Issuer>(ISSUERS, "Issuer");
    let config: &IssuerConfig = &issuer.spec.config;
    assert_eq!(config.ca.as_ref().unwrap().secret_name, "x");
    let self_signed = config.self_signed.as_ref().unwrap();
    assert_eq!(self_signed.crl_distribution_points.as_deref().unwrap(), ["x"]);
    // The opaque types hold upstream's whole object, as written.
    assert_eq!(config.acme.as_ref(), Some(&instance["spec"]["acme"]));
    assert_eq!(config.vault.as_ref(), Some(&instance["spec"]["vault"]));
    assert_eq!(config.venafi.as_ref(), Some(&instance["spec"]["venafi"]));
    assert!(config.acme.as_ref().unwrap()["solvers"][0]["http01"].is_object());
    let status = issuer.status.expect("status");
    assert_eq!(status.acme.unwrap().last_registered_email.as_deref(), Some("x"));
}

#[test]
fn cluster_issuer_maximal_instance_round_trips() {
    let (_, issuer) = maximal_round_trip::<ClusterIssuer>(CLUSTER_ISSUERS, "ClusterIssuer");
    assert_eq!(issuer.spec.config.issuer_type(), Some("acme"));
    assert_eq!(issuer.status.unwrap().conditions.unwrap()[0].status, "True");
}

// ---- upstream-shaped manifests ----

fn yaml(text: &str) -> Value {
    serde_saphyr::from_str(text).unwrap_or_else(|e| panic!("parse: {e}\n{text}"))
}

/// An ACME issuer as cert-manager's documentation writes one, with fields certgate does not
/// know (of the ACME type, and newer ones) that must survive unchanged.
const ACME_CLUSTER_ISSUER: &str = r#"
apiVersion: cert-manager.io/v1
kind: ClusterIssuer
metadata:
  name: letsencrypt-staging
spec:
  acme:
    email: ops@example.com
    server: https://acme-staging-v02.api.letsencrypt.org/directory
    profile: tlsserver
    privateKeySecretRef:
      name: letsencrypt-staging-account
    solvers:
    - selector:
        dnsZones: [example.com]
      dns01:
        route53:
          region: eu-west-1
          role: arn:aws:iam::123456789012:role/cert-manager
    - http01:
        gatewayHTTPRoute:
          parentRefs:
          - name: edge
            namespace: gateways
            kind: Gateway
    someFutureField: {nested: [1, 2.5, true, null, "x"]}
status:
  acme:
    uri: https://acme-staging-v02.api.letsencrypt.org/acme/acct/123
    lastRegisteredEmail: ops@example.com
    lastPrivateKeyHash: 7kq+Y2VydGdhdGU=
  conditions:
  - type: Ready
    status: "True"
    reason: ACMEAccountRegistered
    message: The ACME account was registered with the ACME server
    lastTransitionTime: "2026-03-01T10:00:00Z"
    observedGeneration: 2
"#;

const VAULT_ISSUER: &str = r#"
apiVersion: cert-manager.io/v1
kind: Issuer
metadata:
  name: vault
  namespace: payments
spec:
  vault:
    server: https://vault.internal:8200
    path: pki_int/sign/payments
    caBundle: Y2VydGdhdGU=
    auth:
      kubernetes:
        role: cert-manager
        mountPath: /v1/auth/kubernetes
        serviceAccountRef:
          name: vault-issuer
"#;

const VENAFI_ISSUER: &str = r#"
apiVersion: cert-manager.io/v1
kind: Issuer
metadata:
  name: venafi
  namespace: payments
spec:
  venafi:
    zone: DevOps\payments
    cloud:
      apiTokenSecretRef:
        name: venafi-cloud
        key: apikey
"#;

const CA_ISSUER: &str = r#"
apiVersion: cert-manager.io/v1
kind: ClusterIssuer
metadata:
  name: internal-ca
spec:
  ca:
    secretName: internal-ca
    crlDistributionPoints: [http://crl.example.com/internal-ca.crl]
    ocspServers: [http://ocsp.example.com]
    issuingCertificateURLs: [http://pki.example.com/internal-ca.crt]
"#;

/// A Certificate of the CA issuer, issued once and failing its renewal.
const CERTIFICATE: &str = r#"
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: payments-tls
  namespace: payments
  generation: 3
spec:
  secretName: payments-tls
  issuerRef:
    name: internal-ca
    kind: ClusterIssuer
    group: cert-manager.io
  commonName: payments.example.com
  dnsNames: [payments.example.com, payments.payments.svc]
  ipAddresses: [10.0.0.7, "fd00::7"]
  uris: [spiffe://example.com/ns/payments/sa/api]
  emailAddresses: [payments@example.com]
  otherNames:
  - oid: 1.3.6.1.4.1.311.20.2.3
    utf8Value: payments@example.com
  subject:
    organizations: [Example]
    countries: [DE]
    serialNumber: "42"
  duration: 720h
  renewBeforePercentage: 25
  usages: [digital signature, key encipherment, server auth, client auth]
  isCA: false
  privateKey:
    algorithm: ECDSA
    size: 384
    encoding: PKCS8
    rotationPolicy: Always
  secretTemplate:
    labels: {team: payments}
    annotations: {example.com/owner: payments}
  revisionHistoryLimit: 3
  keystores:
    pkcs12:
      create: true
      profile: Modern2023
      passwordSecretRef: {name: payments-keystore, key: password}
  additionalOutputFormats: [{type: CombinedPEM}, {type: DER}]
status:
  conditions:
  - type: Ready
    status: "True"
    reason: Ready
    message: Certificate is up to date and has not expired
    lastTransitionTime: "2026-03-01T10:00:00Z"
    observedGeneration: 3
  - type: Issuing
    status: "False"
    reason: Failed
    message: "The certificate request has failed to complete and will be retried: boom"
    lastTransitionTime: "2026-03-21T10:00:00Z"
    observedGeneration: 3
  lastFailureTime: "2026-03-21T10:00:00Z"
  failedIssuanceAttempts: 2
  notBefore: "2026-03-01T10:00:00Z"
  notAfter: "2026-03-31T10:00:00Z"
  renewalTime: "2026-03-24T04:00:00Z"
  revision: 1
  nextPrivateKeySecretName: payments-tls-7x2kq
"#;

#[test]
fn issuers_of_the_types_kept_as_written_keep_every_field() {
    let issuer: ClusterIssuer = accepted_round_trip(CLUSTER_ISSUERS, &yaml(ACME_CLUSTER_ISSUER));
    let acme = issuer.spec.config.acme.as_ref().expect("acme");
    assert_eq!(acme["someFutureField"]["nested"][1], 2.5);
    assert_eq!(acme["solvers"][1]["http01"]["gatewayHTTPRoute"]["parentRefs"][0]["name"], "edge");
    assert_eq!(issuer.spec.config.issuer_type(), Some("acme"));
    let status = issuer.status.as_ref().expect("status");
    assert!(status.is_ready());
    assert_eq!(status.condition(condition_type::READY).unwrap().observed_generation, Some(2));
    let acme_status = status.acme.as_ref().expect("status.acme");
    assert_eq!(acme_status.last_registered_email.as_deref(), Some("ops@example.com"));

    for (text, kind) in [(VAULT_ISSUER, "vault"), (VENAFI_ISSUER, "venafi")] {
        let issuer: Issuer = accepted_round_trip(ISSUERS, &yaml(text));
        assert_eq!(issuer.spec.config.issuer_type(), Some(kind));
        assert!(issuer.status.is_none());
    }
}

#[test]
fn a_ca_issuer_is_typed() {
    let issuer: ClusterIssuer = accepted_round_trip(CLUSTER_ISSUERS, &yaml(CA_ISSUER));
    let ca = issuer.spec.config.ca.as_ref().expect("ca");
    assert_eq!(ca.secret_name, "internal-ca");
    assert_eq!(ca.ocsp_servers.as_deref().unwrap(), ["http://ocsp.example.com"]);
    assert_eq!(
        ca.issuing_certificate_urls.as_deref().unwrap(),
        ["http://pki.example.com/internal-ca.crt"]
    );
    // The same configuration is an Issuer's too.
    let mut namespaced = yaml(CA_ISSUER);
    namespaced["kind"] = json!("Issuer");
    namespaced["metadata"]["namespace"] = json!("payments");
    let issuer: Issuer = accepted_round_trip(ISSUERS, &namespaced);
    assert_eq!(issuer.spec.config.ca.as_ref(), Some(ca));
}

#[test]
fn a_certificate_is_typed() {
    let certificate: Certificate = accepted_round_trip(CERTIFICATES, &yaml(CERTIFICATE));
    let spec = &certificate.spec;
    assert_eq!(spec.issuer_ref.kind.as_deref(), Some("ClusterIssuer"));
    assert_eq!(spec.ip_addresses.as_deref().unwrap(), ["10.0.0.7", "fd00::7"]);
    assert_eq!(spec.renew_before_percentage, Some(25));
    assert_eq!(spec.subject.as_ref().unwrap().serial_number.as_deref(), Some("42"));
    let key = spec.private_key_or_default();
    assert_eq!(
        (key.algorithm.as_deref(), key.size, key.encoding.as_deref()),
        (Some("ECDSA"), Some(384), Some("PKCS8"))
    );
    let pkcs12 = spec.keystores.as_ref().unwrap().pkcs12.as_ref().unwrap();
    assert_eq!(pkcs12.password_secret_ref.as_ref().unwrap().key.as_deref(), Some("password"));
    let status = certificate.status.as_ref().expect("status");
    assert!(status.is_ready());
    let issuing = status.condition(condition_type::ISSUING).expect("Issuing");
    assert_eq!((issuing.status.as_str(), issuing.observed_generation), ("False", Some(3)));
    assert_eq!(status.failed_issuance_attempts, Some(2));
    assert_eq!(status.next_private_key_secret_name.as_deref(), Some("payments-tls-7x2kq"));
}

#[test]
fn a_minimal_certificate_decodes_with_everything_else_unset_and_documented_defaults() {
    let object = yaml(
        "apiVersion: cert-manager.io/v1\nkind: Certificate\n\
         metadata: {name: web, namespace: web}\n\
         spec: {secretName: web-tls, issuerRef: {name: ca}}\n",
    );
    let certificate: Certificate = accepted_round_trip(CERTIFICATES, &object);
    let spec = &certificate.spec;
    assert_eq!((spec.issuer_ref.kind.as_ref(), spec.issuer_ref.group.as_ref()), (None, None));
    assert_eq!(spec.duration_or_default(), defaults::DURATION);
    assert_eq!(spec.usages_or_default(), ["digital signature", "key encipherment"]);
    assert_eq!(spec.revision_history_limit_or_default(), 1);
    assert!(spec.encode_usages_in_request_or_default());
    assert!(!spec.is_ca());
    let key = spec.private_key_or_default();
    assert_eq!(
        (
            key.algorithm.as_deref(),
            key.size,
            key.encoding.as_deref(),
            key.rotation_policy.as_deref()
        ),
        (Some("RSA"), Some(2048), Some("PKCS1"), Some("Always"))
    );
    assert!(certificate.status.is_none());
}

#[test]
fn required_fields_are_refused_missing_as_upstream_refuses_them() {
    let cases = [
        (CERTIFICATES, "kind: Certificate\nspec: {issuerRef: {name: ca}}"),
        (CERTIFICATES, "kind: Certificate\nspec: {secretName: s, issuerRef: {kind: Issuer}}"),
        (
            CERTIFICATES,
            "kind: Certificate\nspec: {secretName: s, issuerRef: {name: ca}, keystores: {jks: {alias: a}}}",
        ),
        (
            CERTIFICATES,
            "kind: Certificate\nspec: {secretName: s, issuerRef: {name: ca}, privateKey: {algorithm: DSA}}",
        ),
        (ISSUERS, "kind: Issuer"),
        (ISSUERS, "kind: Issuer\nspec: {ca: {}}"),
        (CLUSTER_ISSUERS, "kind: ClusterIssuer\nspec: {acme: 1}"),
    ];
    for (file, text) in cases {
        let object =
            yaml(&format!("apiVersion: cert-manager.io/v1\nmetadata: {{name: web}}\n{text}"));
        let upstream_errors =
            validation::validate_against(&upstream_schema(file), &mut object.clone());
        assert!(!upstream_errors.is_empty(), "upstream accepts {text}");
        let ours_errors = validation::validate_against(&ours_schema(file), &mut object.clone());
        assert_eq!(ours_errors, upstream_errors, "{text}");
    }
}

#[test]
fn a_certificate_without_spec_passes_both_schemas_and_decodes_as_gos_zero_spec() {
    let mut object =
        yaml("apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: {name: web}\n");
    assert!(
        validation::validate_against(&upstream_schema(CERTIFICATES), &mut object.clone())
            .is_empty()
    );
    assert!(
        validation::validate_against(&ours_schema(CERTIFICATES), &mut object.clone()).is_empty()
    );
    validation::zero_spec(&mut object);
    let certificate: Certificate = serde_json::from_value(object).expect("decodes");
    assert_eq!(
        (certificate.spec.secret_name.as_str(), certificate.spec.issuer_ref.name.as_str()),
        ("", "")
    );
}

// ---- the repository's manifests ----

const WORKSPACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// The YAML and JSON files under `dir`, recursively, in name order.
fn manifest_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            manifest_files(&path, out);
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| ["yaml", "yml", "json"].contains(&e))
        {
            out.push(path);
        }
    }
}

#[test]
fn every_certificate_and_issuer_of_the_repository_is_judged_alike_and_decodes() {
    let mut files = Vec::new();
    for dir in ["examples", "deploy", "crates/certgate/tests/fixtures", "crates/api/tests/fixtures"]
    {
        manifest_files(&std::path::Path::new(WORKSPACE).join(dir), &mut files);
    }
    let mut accepted = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        // Files that are not plain YAML (templates, broken fixtures) hold nothing to check.
        let documents: Vec<Value> = serde_saphyr::from_multiple(&text).unwrap_or_default();
        for object in documents {
            if object["apiVersion"] != "cert-manager.io/v1" {
                continue;
            }
            let file = match object["kind"].as_str() {
                Some("Certificate") => CERTIFICATES,
                Some("Issuer") => ISSUERS,
                Some("ClusterIssuer") => CLUSTER_ISSUERS,
                _ => continue,
            };
            let at = format!("{} {}", path.display(), object["metadata"]["name"]);
            let upstream_errors =
                validation::validate_against(&upstream_schema(file), &mut object.clone());
            let mut ours = object.clone();
            let ours_errors = validation::validate_against(&ours_schema(file), &mut ours);
            assert_eq!(ours_errors, upstream_errors, "{at}: judged unlike upstream");
            if !upstream_errors.is_empty() {
                continue;
            }
            let decoded = match file {
                CERTIFICATES => serde_json::from_value::<Certificate>(ours).map(drop),
                ISSUERS => serde_json::from_value::<Issuer>(ours).map(drop),
                _ => serde_json::from_value::<ClusterIssuer>(ours).map(drop),
            };
            decoded.unwrap_or_else(|err| panic!("{at}: accepted but does not decode: {err}"));
            accepted.push(at);
        }
    }
    // At least deploy/components/cert-manager-ca's self-signed Issuer and Certificate.
    assert!(accepted.len() >= 2, "{accepted:?}");
}
