//! CREATE validation of what the CSR encodes against `spec.usages` / `spec.isCA`.

mod common;

use certgate_admission::certificate_request::validate_create;
use common::{Csr, cr, render, shown, strings, valid_spec};
use pretty_assertions::assert_eq;
use rcgen::{CustomExtension, ExtendedKeyUsagePurpose as Eku, KeyUsagePurpose as Ku};

const CA_KU: [Ku; 3] = [Ku::DigitalSignature, Ku::KeyEncipherment, Ku::KeyCertSign];

struct Case {
    name: &'static str,
    csr: Csr,
    usages: Option<&'static [&'static str]>,
    is_ca: Option<bool>,
    /// The detail of the `spec.request` error, if any.
    want: Option<&'static str>,
}

fn case(name: &'static str, csr: Csr) -> Case {
    Case { name, csr, usages: None, is_ca: None, want: None }
}

impl Case {
    fn usages(mut self, usages: &'static [&'static str]) -> Self {
        self.usages = Some(usages);
        self
    }
    fn spec_ca(mut self) -> Self {
        self.is_ca = Some(true);
        self
    }
    fn fails(mut self, detail: &'static str) -> Self {
        self.want = Some(detail);
        self
    }
}

fn default_csr() -> Csr {
    Csr::cert_manager_default()
}

#[test]
fn csr_must_match_usages_and_is_ca() {
    let ms_kernel_code_signing = Eku::Other(vec![1, 3, 6, 1, 4, 1, 311, 61, 1, 1]);
    let cases = vec![
        case("defaults on both sides", default_csr()),
        case("spec lists the defaults in another order", default_csr())
            .usages(&["key encipherment", "digital signature"]),
        case("signing is digital signature", default_csr())
            .usages(&["signing", "key encipherment"]),
        case("both names of digital signature", default_csr()).usages(&[
            "signing",
            "digital signature",
            "key encipherment",
        ]),
        case("no usage extensions in the CSR: nothing to compare", default_csr().key_usages(&[]))
            .usages(&["server auth", "crl sign"]),
        case(
            "extended key usage only in the CSR",
            default_csr().ext_key_usages(&[Eku::ServerAuth]),
        )
        .fails(
            "encoded CSR error: the ExtKeyUsages [ 'server auth' ] do not match the expected \
                 ExtKeyUsages []",
        ),
        case(
            "spec asks for more extended key usages",
            default_csr().ext_key_usages(&[Eku::ServerAuth]),
        )
        .usages(&["signing", "key encipherment", "server auth", "client auth"])
        .fails(
            "encoded CSR error: the ExtKeyUsages [ 'server auth' ] do not match the expected \
                 ExtKeyUsages [ 'server auth', 'client auth' ]",
        ),
        case(
            "spec asks for fewer extended key usages",
            default_csr().ext_key_usages(&[Eku::ServerAuth, Eku::ClientAuth]),
        )
        .usages(&["signing", "key encipherment"])
        .fails(
            "encoded CSR error: the ExtKeyUsages [ 'server auth', 'client auth' ] do not match \
                 the expected ExtKeyUsages []",
        ),
        case(
            "same usages, key usages listed anywhere",
            default_csr().ext_key_usages(&[Eku::ServerAuth, Eku::ClientAuth]),
        )
        .usages(&["server auth", "client auth", "key encipherment", "digital signature"]),
        case(
            "extended key usages compare in order",
            default_csr().ext_key_usages(&[Eku::ClientAuth, Eku::ServerAuth]),
        )
        .usages(&["digital signature", "key encipherment", "server auth", "client auth"])
        .fails(
            "encoded CSR error: the ExtKeyUsages [ 'client auth', 'server auth' ] do not match \
                 the expected ExtKeyUsages [ 'server auth', 'client auth' ]",
        ),
        case("missing key encipherment", default_csr().key_usages(&[Ku::DigitalSignature])).fails(
            "encoded CSR error: the KeyUsages [ 'digital signature' ] do not match the expected \
             KeyUsages [ 'digital signature', 'key encipherment' ]",
        ),
        case(
            "key usages print in bit order",
            default_csr().key_usages(&[Ku::CrlSign, Ku::ContentCommitment, Ku::DecipherOnly]),
        )
        .usages(&["key agreement"])
        .fails(
            "encoded CSR error: the KeyUsages [ 'content commitment', 'crl sign', 'decipher \
                 only' ] do not match the expected KeyUsages [ 'key agreement' ]",
        ),
        case(
            "extKeyUsage without keyUsage, spec defaults",
            default_csr().key_usages(&[]).ext_key_usages(&[Eku::ServerAuth]),
        )
        .fails(
            "encoded CSR error: the KeyUsages [] do not match the expected KeyUsages [ 'digital \
                 signature', 'key encipherment' ]",
        ),
        case(
            "extKeyUsage without keyUsage, spec has no key usages",
            default_csr().key_usages(&[]).ext_key_usages(&[Eku::ServerAuth]),
        )
        .usages(&["server auth"]),
        case("CA implies cert sign", default_csr().key_usages(&CA_KU).ca()).spec_ca(),
        case(
            "CA with cert sign listed too",
            default_csr().key_usages(&CA_KU).ext_key_usages(&[Eku::Any]).ca(),
        )
        .spec_ca()
        .usages(&["any", "digital signature", "key encipherment", "cert sign"]),
        case("CA CSR without cert sign", default_csr().ca()).spec_ca().fails(
            "encoded CSR error: the KeyUsages [ 'digital signature', 'key encipherment' ] do not \
             match the expected KeyUsages [ 'digital signature', 'key encipherment', 'cert sign' ]",
        ),
        case(
            "CSR is a CA, spec is not (checked before usages)",
            default_csr().key_usages(&CA_KU).ca(),
        )
        .fails("encoded CSR error: IsCA true does not match expected value false"),
        case("CSR says not a CA, spec is a CA", default_csr().key_usages(&CA_KU).explicit_not_ca())
            .spec_ca()
            .fails("encoded CSR error: IsCA false does not match expected value true"),
        case("CSR says not a CA, spec agrees", default_csr().explicit_not_ca()),
        case("no basic constraints in the CSR, spec is a CA", default_csr().key_usages(&CA_KU))
            .spec_ca(),
        case(
            "OIDs Go does not know are ignored",
            default_csr().ext_key_usages(&[Eku::Other(vec![1, 2, 3, 4])]),
        ),
        case(
            "Go-known OID without a cert-manager name",
            default_csr().ext_key_usages(&[Eku::ServerAuth, ms_kernel_code_signing]),
        )
        .usages(&["digital signature", "key encipherment", "server auth"])
        .fails(
            "encoded CSR error: the ExtKeyUsages [ 'server auth', 'unknown' ] do not match the \
                 expected ExtKeyUsages [ 'server auth' ]",
        ),
    ];

    for c in cases {
        let mut spec = valid_spec();
        spec.request = c.csr.pem();
        spec.usages = c.usages.map(strings);
        spec.is_ca = c.is_ca;
        let want = c.want.map(|detail| {
            format!("spec.request: Invalid value: {}: {detail}", shown(&spec.request))
        });
        assert_eq!(render(&validate_create(&cr(spec))), want, "case: {}", c.name);
    }
}

#[test]
fn default_key_usages_apply_to_an_empty_usages_list() {
    let mut spec = valid_spec();
    spec.usages = Some(Vec::new());
    assert_eq!(render(&validate_create(&cr(spec))), None);
}

#[test]
fn unrelated_extensions_do_not_trigger_usage_checks() {
    // An extension that is neither keyUsage nor extKeyUsage (subjectKeyIdentifier).
    let mut csr = default_csr().key_usages(&[]);
    csr.custom = vec![CustomExtension::from_oid_content(&[2, 5, 29, 14], vec![0x04, 0x01, 0x2a])];
    let mut spec = valid_spec();
    spec.request = csr.pem();
    spec.usages = Some(strings(&["client auth"]));
    assert_eq!(render(&validate_create(&cr(spec))), None);
}

#[test]
fn an_empty_key_usage_extension_is_still_compared() {
    // keyUsage present but naming no bit (BIT STRING with zero bits): upstream compares it.
    let mut csr = default_csr().key_usages(&[]);
    csr.custom = vec![CustomExtension::from_oid_content(&[2, 5, 29, 15], vec![0x03, 0x01, 0x00])];
    let mut spec = valid_spec();
    spec.request = csr.pem();
    let rendered = render(&validate_create(&cr(spec))).expect("an empty keyUsage is a mismatch");
    assert!(
        rendered.ends_with(": encoded CSR error: the KeyUsages [] do not match the expected KeyUsages [ 'digital signature', 'key encipherment' ]"),
        "{rendered}"
    );
}
