//! End to end: real CSRs (rcgen) decoded by certgate-pki, policies written in YAML as users
//! write them, reviewed by the approver. Messages are upstream's exact texts.

mod common;

use certgate_approval::Decision;
use common::{Csr, Key, denial, directory_name, dns_name, policy, registered_id, request, review};
use rcgen::{DnType, DnValue};

const UPN: &[u64] = &[1, 3, 6, 1, 4, 1, 311, 20, 2, 3];

fn approved(name: &str) -> Result<Decision, certgate_approval::ReviewError> {
    Ok(Decision::Approved(format!("Approved by CertificateRequestPolicy: \"{name}\"")))
}

#[test]
fn every_key_type_against_private_key_constraints() {
    let ecdsa_384 = policy(
        r#"
metadata: {name: ecdsa-384}
spec:
  selector: {issuerRef: {}}
  constraints:
    privateKey: {algorithm: ECDSA, minSize: 384}
"#,
    );
    let expected = [
        (Key::EcdsaP256, Some(r#"spec.constraints.privateKey.minSize: Invalid value: "256": 384"#)),
        (Key::EcdsaP384, None),
        (
            Key::Ed25519,
            Some(
                r#"[spec.constraints.privateKey.algorithm: Invalid value: "Ed25519": ECDSA, spec.constraints.privateKey.minSize: Invalid value: "-1": 384]"#,
            ),
        ),
        (
            Key::Rsa2048,
            Some(r#"spec.constraints.privateKey.algorithm: Invalid value: "RSA": ECDSA"#),
        ),
        (
            Key::Rsa3072,
            Some(r#"spec.constraints.privateKey.algorithm: Invalid value: "RSA": ECDSA"#),
        ),
    ];
    assert_eq!(expected.len(), Key::ALL.len());
    for (key, denied) in expected {
        let csr = Csr::new(key);
        let outcome = review(&request(&csr.pem()), &csr.decode(), &[&ecdsa_384]);
        match denied {
            None => assert_eq!(outcome, approved("ecdsa-384"), "{key:?}"),
            Some(message) => assert_eq!(
                denial(outcome),
                format!("No policy approved this request: [ecdsa-384: {message}]"),
                "{key:?}"
            ),
        }
    }

    let rsa = policy(
        r#"
metadata: {name: rsa}
spec:
  selector: {issuerRef: {}}
  constraints:
    privateKey: {algorithm: RSA, minSize: 2048, maxSize: 2048}
"#,
    );
    let csr = Csr::new(Key::Rsa3072);
    assert_eq!(
        denial(review(&request(&csr.pem()), &csr.decode(), &[&rsa])),
        r#"No policy approved this request: [rsa: spec.constraints.privateKey.maxSize: Invalid value: "3072": 2048]"#
    );
    let csr = Csr::new(Key::Rsa2048);
    assert_eq!(review(&request(&csr.pem()), &csr.decode(), &[&rsa]), approved("rsa"));
}

#[test]
fn every_san_kind_is_rendered_like_go_and_checked() {
    let csr = Csr::new(Key::EcdsaP256)
        .dns("web.team-a.svc")
        .ip("10.0.0.1")
        .ip("2001:db8:0:0:0:0:0:1")
        .uri("spiffe://cluster.local/ns/team-a/sa/web")
        .email("web@example.com")
        .other_name(UPN, "web@corp.example");
    let decoded = csr.decode();
    let cr = request(&csr.pem());
    let nothing = policy("metadata: {name: nothing}\nspec: {selector: {issuerRef: {}}}\n");
    assert_eq!(
        denial(review(&cr, &decoded, &[&nothing])),
        r#"No policy approved this request: [nothing: [spec.allowed.dnsNames: Invalid value: ["web.team-a.svc"]: no allowed values, spec.allowed.ipAddresses: Invalid value: ["10.0.0.1","2001:db8::1"]: no allowed values, spec.allowed.uris: Invalid value: ["spiffe://cluster.local/ns/team-a/sa/web"]: no allowed values, spec.allowed.emailAddresses: Invalid value: ["web@example.com"]: no allowed values, spec.allowed.otherNames[1.3.6.1.4.1.311.20.2.3]: Invalid value: ["web@corp.example"]: no allowed values]]"#
    );

    let everything = policy(
        r#"
metadata: {name: everything}
spec:
  selector: {issuerRef: {name: "c*"}}
  allowed:
    dnsNames: {values: ["*.team-a.svc"]}
    ipAddresses: {values: ["10.0.0.*", "2001:db8::*"]}
    uris: {values: ["spiffe://cluster.local/ns/team-a/*"]}
    emailAddresses: {values: ["*@example.com"], required: true}
    otherNames:
      - {oid: 1.3.6.1.4.1.311.20.2.3, values: ["*@corp.example"]}
"#,
    );
    assert_eq!(review(&cr, &decoded, &[&nothing, &everything]), approved("everything"));
}

#[test]
fn cel_validations_on_a_real_request() {
    let svc = policy(
        r#"
metadata: {name: namespace-services}
spec:
  selector: {issuerRef: {}}
  allowed:
    commonName:
      validations:
        - rule: self == cr.username
          message: CN must be the requester
    dnsNames:
      values: ["*.svc", "*.svc.cluster.local"]
      validations:
        - rule: self.endsWith(cr.namespace + '.svc') || self.endsWith(cr.namespace + '.svc.cluster.local')
          message: only dnsNames in the local namespace service domain are allowed.
        - rule: self.size() <= 64
"#,
    );
    let good = Csr::new(Key::Ed25519)
        .subject(DnType::CommonName, "alice")
        .dns("web.team-a.svc")
        .dns("web.team-a.svc.cluster.local");
    assert_eq!(
        review(&request(&good.pem()), &good.decode(), &[&svc]),
        approved("namespace-services")
    );

    let bad = Csr::new(Key::Ed25519).subject(DnType::CommonName, "bob").dns("web.team-b.svc");
    assert_eq!(
        denial(review(&request(&bad.pem()), &bad.decode(), &[&svc])),
        r#"No policy approved this request: [namespace-services: [spec.allowed.commonName.validations[0]: Invalid value: "bob": CN must be the requester, spec.allowed.dnsNames.validations[0]: Invalid value: "web.team-b.svc": only dnsNames in the local namespace service domain are allowed.]]"#
    );
}

#[test]
fn subject_attributes_from_a_real_request() {
    const STREET: &[u64] = &[2, 5, 4, 9];
    const POSTAL: &[u64] = &[2, 5, 4, 17];
    const SERIAL: &[u64] = &[2, 5, 4, 5];
    const DC: &[u64] = &[0, 9, 2342, 19200300, 100, 1, 25];
    let csr = Csr::new(Key::EcdsaP384)
        .subject(DnType::CommonName, "web")
        .subject(DnType::OrganizationName, "Example")
        .subject(DnType::CountryName, DnValue::PrintableString("GB".try_into().expect("printable")))
        .subject(DnType::OrganizationalUnitName, "Platform")
        .subject(DnType::LocalityName, "London")
        .subject(DnType::StateOrProvinceName, "England")
        .subject_oid(STREET, "1 Street")
        .subject_oid(POSTAL, "N1")
        .subject_oid(SERIAL, "42")
        .subject_oid(DC, "example");
    let decoded = csr.decode();
    let cr = request(&csr.pem());
    let strict = policy(
        r#"
metadata: {name: strict}
spec:
  selector: {issuerRef: {}}
  allowed:
    commonName: {value: "web"}
    subject:
      organizations: {values: ["Example"]}
      countries: {values: ["GB"]}
      organizationalUnits: {values: ["Platform"]}
      localities: {values: ["London"]}
      provinces: {values: ["England"]}
      streetAddresses: {values: ["1 Street"]}
      postalCodes: {values: ["N1"]}
      serialNumber: {value: "4*"}
"#,
    );
    assert_eq!(
        denial(review(&cr, &decoded, &[&strict])),
        r#"No policy approved this request: [strict: spec.allowed.subject.otherAttributes[0.9.2342.19200300.100.1.25]: Invalid value: ["example"]: no allowed values]"#
    );
    let with_dc = policy(
        r#"
metadata: {name: with-dc}
spec:
  selector: {issuerRef: {}}
  allowed:
    commonName: {value: "*"}
    subject:
      organizations: {values: ["*"]}
      countries: {values: ["*"]}
      organizationalUnits: {values: ["*"]}
      localities: {values: ["*"]}
      provinces: {values: ["*"]}
      streetAddresses: {values: ["*"]}
      postalCodes: {values: ["*"]}
      serialNumber: {value: "*"}
      otherAttributes:
        - {oid: 0.9.2342.19200300.100.1.25, values: ["example"], required: true}
"#,
    );
    assert_eq!(review(&cr, &decoded, &[&strict, &with_dc]), approved("with-dc"));
}

#[test]
fn non_string_subject_values_are_denied() {
    let csr = Csr::new(Key::EcdsaP256).subject(
        DnType::OrganizationName,
        DnValue::UniversalString("Example".try_into().expect("universal")),
    );
    let anything = policy(
        r#"
metadata: {name: anything}
spec:
  selector: {issuerRef: {}}
  allowed:
    subject: {organizations: {values: ["*"]}}
"#,
    );
    assert_eq!(
        denial(review(&request(&csr.pem()), &csr.decode(), &[&anything])),
        r#"No policy approved this request: [anything: spec.allowed.subject.organizations: Invalid value: "<non-string value>": subject attribute uses an unsupported ASN.1 type or string encoding; re-issue the certificate with a UTF8String or PrintableString subject]"#
    );
}

#[test]
fn non_standard_and_smuggled_sans_are_denied() {
    let open = policy(
        r#"
metadata: {name: open}
spec:
  selector: {issuerRef: {}}
  allowed:
    dnsNames: {values: ["*"]}
"#,
    );
    let mut names = directory_name();
    names.extend(registered_id());
    names.extend(dns_name("a.example.com"));
    let csr = Csr::new(Key::EcdsaP256).raw_san(&names);
    assert_eq!(
        denial(review(&request(&csr.pem()), &csr.decode(), &[&open])),
        r#"No policy approved this request: [open: [spec.allowed.subjectAltName.directoryName: Invalid value: "directoryName": directoryName SAN entries are not permitted, spec.allowed.subjectAltName.registeredID: Invalid value: "registeredID": registeredID SAN entries are not permitted]]"#
    );

    let two = Csr::new(Key::EcdsaP256).dns("a.example.com").raw_san(&dns_name("b.example.com"));
    assert_eq!(
        denial(review(&request(&two.pem()), &two.decode(), &[&open])),
        "No policy approved this request: [open: CSR contains multiple SAN extensions; at most one is permitted]"
    );

    let garbage = Csr::new(Key::EcdsaP256).garbage_san();
    let message = denial(review(&request(&garbage.pem()), &garbage.decode(), &[&open]));
    assert!(
        message.starts_with("No policy approved this request: [open: subjectAltName (SAN) extension could not be decoded: "),
        "{message}"
    );
}

#[test]
fn policies_written_in_yaml_pass_admission() {
    let approver =
        certgate_approval::Approver::new(std::sync::Arc::new(certgate_cel::PolicyCel::default()));
    let good = policy(
        r#"
metadata: {name: good}
spec:
  selector:
    issuerRef: {name: "*", kind: ClusterIssuer, group: cert-manager.io}
    namespace: {matchNames: ["team-*"], matchLabels: {env: prod}}
  allowed:
    dnsNames:
      required: true
      validations:
        - rule: self.endsWith(cr.namespace + '.svc')
    usages: ["server auth", "digital signature"]
  constraints: {maxDuration: 2160h, privateKey: {algorithm: ECDSA, maxSize: 384}}
"#,
    );
    assert_eq!(approver.validate_policy(&good).message(), None);
    let bad = policy(
        r#"
metadata: {name: bad}
spec:
  selector: {}
  plugins: {cel: {values: {}}}
  allowed:
    dnsNames:
      validations:
        - rule: self
"#,
    );
    assert_eq!(
        approver.validate_policy(&bad).message().as_deref(),
        Some(
            r#"[spec.plugins: Unsupported value: "cel", spec.selector: Required value: one of issuerRef or namespace must be defined, hint: `{}` on either matches everything, spec.allowed.dnsNames.validations[0]: Invalid value: "self": got string, wanted bool result type]"#
        )
    );
}
