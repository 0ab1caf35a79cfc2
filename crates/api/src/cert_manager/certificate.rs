//! `cert-manager.io/v1` `Certificate`: a certificate and private key to keep current in a
//! Secret, requested from an issuer through CertificateRequests.

use std::collections::BTreeMap;

use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::condition::{self, Condition};
use super::{
    ADDITIONAL_OUTPUT_FORMATS, KEY_USAGES, PKCS12_PROFILES, PRIVATE_KEY_ALGORITHMS,
    PRIVATE_KEY_ENCODINGS, RENEWAL_POLICIES, ROTATION_POLICIES, SIGNATURE_ALGORITHMS, defaults,
};
use crate::IssuerReference;

/// Spec of a `Certificate`.
#[allow(
    clippy::duplicated_attributes,
    reason = "each `printcolumn(...)` repeats `type_`, which clippy mistakes for a duplicate"
)]
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "cert-manager.io",
    version = "v1",
    kind = "Certificate",
    plural = "certificates",
    namespaced,
    shortname = "cert",
    shortname = "certs",
    category = "cert-manager",
    status = "CertificateStatus",
    derive = "Default",
    derive = "PartialEq",
    doc = "A certificate and its private key, kept current in a Secret by requesting them \
           from an issuer.",
    printcolumn(
        name = "Ready",
        type_ = "string",
        json_path = r#".status.conditions[?(@.type == "Ready")].status"#
    ),
    printcolumn(name = "Secret", type_ = "string", json_path = ".spec.secretName"),
    printcolumn(
        name = "Issuer",
        type_ = "string",
        priority = 1,
        json_path = ".spec.issuerRef.name"
    ),
    printcolumn(
        name = "Status",
        type_ = "string",
        priority = 1,
        json_path = r#".status.conditions[?(@.type == "Ready")].message"#
    ),
    printcolumn(
        name = "Expiration",
        type_ = "string",
        priority = 1,
        json_path = ".status.notAfter"
    ),
    printcolumn(
        name = "Age",
        type_ = "date",
        description = "Time since the object was created.",
        json_path = ".metadata.creationTimestamp"
    ),
    selectable = ".spec.issuerRef.group",
    selectable = ".spec.issuerRef.kind",
    selectable = ".spec.issuerRef.name"
)]
#[serde(rename_all = "camelCase")]
#[schemars(transform = crate::crd::certificate_spec_required)]
pub struct CertificateSpec {
    /// The Secret, in the Certificate's namespace, that receives the private key and the
    /// certificate. Required by the CRD; absent decodes as empty (Go's zero value).
    #[serde(default)]
    pub secret_name: String,
    /// The issuer that signs the certificate. Required by the CRD; absent decodes as the
    /// empty reference (Go's zero value).
    #[serde(default)]
    pub issuer_ref: IssuerReference,
    /// The subject's common name; deprecated upstream in favour of the SANs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub common_name: Option<String>,
    /// DNS subject alternative names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub dns_names: Option<Vec<String>>,
    /// IP address subject alternative names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub ip_addresses: Option<Vec<String>>,
    /// URI subject alternative names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub uris: Option<Vec<String>>,
    /// Email subject alternative names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub email_addresses: Option<Vec<String>>,
    /// `otherName` subject alternative names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub other_names: Option<Vec<OtherName>>,
    /// The subject's other attributes (organizations, countries, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<X509Subject>,
    /// The whole subject as an RFC 4514 string; excludes `commonName` and `subject`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub literal_subject: Option<String>,
    /// Requested lifetime as a Go duration; unset: [`defaults::DURATION`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<String>,
    /// How long before expiry to renew, as a Go duration; unset (and no
    /// `renewBeforePercentage`): a third of the issued certificate's lifetime.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renew_before: Option<String>,
    /// `renewBefore` as a percentage of the lifetime (1 to 99); excludes `renewBefore`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renew_before_percentage: Option<i32>,
    /// When renewals may happen (the policy and cron windows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renewal: Option<CertificateRenewal>,
    /// Key usages and extended key usages, each one of [`KEY_USAGES`]; unset:
    /// [`defaults::USAGES`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend(
        "x-kubernetes-list-type" = "atomic",
        "items" = { "type": "string", "enum": KEY_USAGES }
    ))]
    pub usages: Option<Vec<String>>,
    /// Whether the certificate is a CA (`cert sign` is then implied).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "isCA")]
    pub is_ca: Option<bool>,
    /// Whether the usages are written into the CSR; unset: yes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encode_usages_in_request: Option<bool>,
    /// One of [`SIGNATURE_ALGORITHMS`]; unset: the issuer's choice for the key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = SIGNATURE_ALGORITHMS))]
    pub signature_algorithm: Option<String>,
    /// The private key's algorithm, size, encoding and rotation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private_key: Option<CertificatePrivateKey>,
    /// Labels and annotations copied to the Secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_template: Option<CertificateSecretTemplate>,
    /// How many CertificateRequests (revisions) are kept; unset:
    /// [`defaults::REVISION_HISTORY_LIMIT`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision_history_limit: Option<i32>,
    /// JKS and PKCS#12 keystores written into the Secret besides the PEM files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keystores: Option<CertificateKeystores>,
    /// Name constraints of a CA certificate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name_constraints: Option<NameConstraints>,
    /// Further encodings written into the Secret (`DER`, `CombinedPEM`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub additional_output_formats: Option<Vec<AdditionalOutputFormat>>,
}

impl CertificateSpec {
    /// `duration`, or the default lifetime (a Go duration).
    pub fn duration_or_default(&self) -> &str {
        self.duration.as_deref().unwrap_or(defaults::DURATION)
    }

    /// `usages`, or the default ones.
    pub fn usages_or_default(&self) -> Vec<&str> {
        match &self.usages {
            Some(usages) => usages.iter().map(String::as_str).collect(),
            None => defaults::USAGES.to_vec(),
        }
    }

    /// `revisionHistoryLimit`, or the default.
    pub fn revision_history_limit_or_default(&self) -> i32 {
        self.revision_history_limit.unwrap_or(defaults::REVISION_HISTORY_LIMIT)
    }

    /// `encodeUsagesInRequest`, or the default.
    pub fn encode_usages_in_request_or_default(&self) -> bool {
        self.encode_usages_in_request.unwrap_or(defaults::ENCODE_USAGES_IN_REQUEST)
    }

    /// `isCA`, unset meaning `false`.
    pub fn is_ca(&self) -> bool {
        self.is_ca.unwrap_or(false)
    }

    /// `privateKey` with every field at its effective value (see
    /// [`CertificatePrivateKey::or_defaults`]).
    pub fn private_key_or_default(&self) -> CertificatePrivateKey {
        self.private_key.clone().unwrap_or_default().or_defaults()
    }
}

/// `spec.otherNames[]`: an `otherName` SAN with a UTF-8 string value.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OtherName {
    /// The type OID (`1.3.6.1.4.1.311.20.2.3` for a UPN).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oid: Option<String>,
    /// The value, encoded as an ASN.1 UTF8String.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub utf8_value: Option<String>,
}

/// `spec.subject`: X.509 subject attributes besides the common name.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct X509Subject {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub organizations: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub countries: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub organizational_units: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub localities: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub provinces: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub street_addresses: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub postal_codes: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serial_number: Option<String>,
}

/// `spec.renewal`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CertificateRenewal {
    /// One of [`RENEWAL_POLICIES`]: `RenewBefore` honours `renewBefore` and
    /// `renewBeforePercentage`; `Disabled` never renews.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = RENEWAL_POLICIES))]
    pub policy: Option<String>,
    /// When a renewal may start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub windows: Option<Vec<RenewalWindow>>,
}

/// `spec.renewal.windows[]`: a cron schedule and how long each window stays open.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RenewalWindow {
    /// A five-field cron expression for the window's start.
    #[schemars(length(min = 1))]
    pub cron: String,
    /// The cron expression's IANA time zone; unset: UTC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub timezone: Option<String>,
    /// How long the window stays open, as a Go duration.
    #[schemars(regex(pattern = r"^([0-9]+(\.[0-9]+)?(s|m|h))+$"))]
    pub window_duration: String,
}

/// `spec.privateKey`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CertificatePrivateKey {
    /// One of [`ROTATION_POLICIES`]: `Always` generates a new key for every issuance,
    /// `Never` keeps the Secret's key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ROTATION_POLICIES))]
    pub rotation_policy: Option<String>,
    /// One of [`PRIVATE_KEY_ENCODINGS`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = PRIVATE_KEY_ENCODINGS))]
    pub encoding: Option<String>,
    /// One of [`PRIVATE_KEY_ALGORITHMS`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = PRIVATE_KEY_ALGORITHMS))]
    pub algorithm: Option<String>,
    /// Key size in bits: 2048, 4096 or 8192 for RSA; 256, 384 or 521 for ECDSA; ignored for
    /// Ed25519.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(transform = crate::crd::go_int)]
    pub size: Option<i64>,
}

impl CertificatePrivateKey {
    /// The key with every unset field at its documented effective value: algorithm RSA,
    /// size 2048 for RSA and 256 for ECDSA (none for Ed25519, or an algorithm this version
    /// does not know), encoding PKCS1, rotation policy `Always`.
    pub fn or_defaults(self) -> CertificatePrivateKey {
        let algorithm = self.algorithm.unwrap_or_else(|| defaults::PRIVATE_KEY_ALGORITHM.into());
        let size = self.size.or(match algorithm.as_str() {
            "RSA" => Some(defaults::RSA_KEY_SIZE),
            "ECDSA" => Some(defaults::ECDSA_KEY_SIZE),
            _ => None,
        });
        CertificatePrivateKey {
            rotation_policy: Some(
                self.rotation_policy.unwrap_or_else(|| defaults::ROTATION_POLICY.into()),
            ),
            encoding: Some(self.encoding.unwrap_or_else(|| defaults::PRIVATE_KEY_ENCODING.into())),
            algorithm: Some(algorithm),
            size,
        }
    }
}

/// `spec.secretTemplate`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CertificateSecretTemplate {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<BTreeMap<String, String>>,
}

/// `spec.keystores`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CertificateKeystores {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jks: Option<JksKeystore>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pkcs12: Option<Pkcs12Keystore>,
}

/// `spec.keystores.jks`: `keystore.jks` and `truststore.jks` in the Secret.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JksKeystore {
    /// Whether the keystore is written.
    pub create: bool,
    /// The key's alias; unset: [`defaults::JKS_ALIAS`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alias: Option<String>,
    /// The password, literally; excludes `passwordSecretRef`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<String>,
    /// The Secret key holding the password.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password_secret_ref: Option<SecretKeySelector>,
}

/// `spec.keystores.pkcs12`: `keystore.p12` and `truststore.p12` in the Secret.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Pkcs12Keystore {
    /// Whether the keystore is written.
    pub create: bool,
    /// The password, literally; excludes `passwordSecretRef`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<String>,
    /// The Secret key holding the password.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password_secret_ref: Option<SecretKeySelector>,
    /// One of [`PKCS12_PROFILES`]; unset: [`defaults::PKCS12_PROFILE`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = PKCS12_PROFILES))]
    pub profile: Option<String>,
}

/// A key of a Secret in the Certificate's namespace.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SecretKeySelector {
    /// The Secret's name.
    pub name: String,
    /// The key in the Secret's data; some uses have a default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

/// `spec.nameConstraints`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NameConstraints {
    /// Whether the extension is marked critical.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub critical: Option<bool>,
    /// Names certificates below the CA may have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permitted: Option<NameConstraintItem>,
    /// Names certificates below the CA may not have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excluded: Option<NameConstraintItem>,
}

/// `spec.nameConstraints.permitted` and `.excluded`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NameConstraintItem {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub dns_domains: Option<Vec<String>>,
    /// CIDRs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub ip_ranges: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub email_addresses: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub uri_domains: Option<Vec<String>>,
}

/// `spec.additionalOutputFormats[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdditionalOutputFormat {
    /// One of [`ADDITIONAL_OUTPUT_FORMATS`]: `DER` (`key.der`) or `CombinedPEM`
    /// (`tls-combined.pem`).
    #[serde(rename = "type")]
    #[schemars(extend("enum" = ADDITIONAL_OUTPUT_FORMATS))]
    pub type_: String,
}

/// `status` of a `Certificate`, written by cert-manager's controllers.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CertificateStatus {
    /// `Ready` and `Issuing`, at most one condition per type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["type"]))]
    pub conditions: Option<Vec<Condition>>,
    /// When the last issuance failed (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "date-time"))]
    pub last_failure_time: Option<String>,
    /// Consecutive failed issuances, for the back-off; reset by a success.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(transform = crate::crd::go_int)]
    pub failed_issuance_attempts: Option<i64>,
    /// The current certificate's `notBefore` (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "date-time"))]
    pub not_before: Option<String>,
    /// The current certificate's `notAfter` (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "date-time"))]
    pub not_after: Option<String>,
    /// When the certificate is to be renewed (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "date-time"))]
    pub renewal_time: Option<String>,
    /// The revision of the current certificate: its CertificateRequest's
    /// `cert-manager.io/certificate-revision`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(transform = crate::crd::go_int)]
    pub revision: Option<i64>,
    /// The Secret holding the private key of the issuance in progress.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_private_key_secret_name: Option<String>,
    /// What the ACME server said about renewal (ARI).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acme: Option<AcmeCertificateStatus>,
}

impl CertificateStatus {
    /// The condition of `type_`, if set.
    pub fn condition(&self, type_: &str) -> Option<&Condition> {
        condition::find(self.conditions.as_deref(), type_)
    }

    /// Whether the `Ready` condition is `True`.
    pub fn is_ready(&self) -> bool {
        self.condition(condition::condition_type::READY).is_some_and(Condition::is_true)
    }
}

/// `status.acme`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AcmeCertificateStatus {
    /// ACME Renewal Information for the current certificate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ari: Option<AriStatus>,
}

/// `status.acme.ari`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AriStatus {
    /// The window the ACME server suggests renewing in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggested_window: Option<SuggestedWindow>,
    /// The server's explanation of the window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "explanationURL")]
    pub explanation_url: Option<String>,
    /// When the renewal information was last fetched (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "date-time"))]
    pub last_checked: Option<String>,
    /// When it is to be fetched next (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "date-time"))]
    pub next_check: Option<String>,
    /// Why the last fetch failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
}

/// `status.acme.ari.suggestedWindow`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SuggestedWindow {
    /// RFC 3339.
    #[schemars(extend("format" = "date-time"))]
    pub start: String,
    /// RFC 3339.
    #[schemars(extend("format" = "date-time"))]
    pub end: String,
}
