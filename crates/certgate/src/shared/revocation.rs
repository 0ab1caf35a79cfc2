//! Recording a certificate's revocation: the certificate of a Certificate's Secret or a
//! CertificateRequest's status, its CA issuer (which must publish a CRL: annotated
//! `certgate.io/crl-secret-name`), and the entry added to `revocations.json` of that CRL
//! Secret, where the `issuers-crl` controller picks it up. The list is updated with the
//! Secret's resourceVersion, so two revocations at once both land; revoking a serial twice
//! changes nothing. Used by `certgate revoke` and `certgate dev --demo-issuance`.

use base64::Engine as _;
use certgate_api::CertificateRequest;
use certgate_api::cert_manager::{Certificate, ClusterIssuer, Issuer, IssuerConfig};
use certgate_api::certificate_request::IssuerReference;
use certgate_clock::{Clock as _, SystemClock};
use certgate_crl::Timestamp;
use certgate_crl::build::{
    Added, REVOCATIONS_KEY, Revocation, RevocationLimits, add_revocation, parse_revocations,
    reason_name, revocations_to_json,
};
use certgate_issuer::crl::decide::CRL_SECRET_ANNOTATION;
use certgate_issuer::crl::effects::{describe_error, is_conflict, secret_data, with_key};
use certgate_issuer::generic::IssuerApi;
use k8s_openapi::api::core::v1::Secret;
use kube::api::{Api, PostParams};

/// What went wrong; printed after `error: `.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct RevokeError(pub String);

/// Which object names the certificate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Certificate,
    CertificateRequest,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Certificate => "Certificate",
            Kind::CertificateRequest => "CertificateRequest",
        }
    }
}

/// The certificate to revoke, read from the cluster.
#[derive(Debug)]
struct Leaf {
    serial: Vec<u8>,
    not_after: Timestamp,
}

/// The first certificate of a PEM text.
fn leaf(pem: &[u8], source: &str) -> Result<Leaf, RevokeError> {
    let mut rest = pem;
    while let Some((block, after)) = certgate_pki::pem::decode(rest) {
        if block.label == b"CERTIFICATE" {
            let cert = certgate_crl::Cert::from_der(block.der).map_err(|e| {
                RevokeError(format!(
                    "{source} holds a certificate that does not parse: {}",
                    e.detail
                ))
            })?;
            // The list stores the magnitude: DER's sign octet dropped.
            let serial = cert.serial_bytes().iter().skip_while(|b| **b == 0).copied().collect();
            return Ok(Leaf { serial, not_after: cert.not_after });
        }
        rest = after;
    }
    Err(RevokeError(format!("{source} holds no PEM certificate")))
}

/// The issuer a reference names, as `Issuer 'ns/name'` or `ClusterIssuer 'name'`, its
/// configuration, annotations and resource namespace.
struct ResolvedIssuer {
    label: String,
    config: IssuerConfig,
    crl_secret: Option<String>,
    resource_namespace: String,
}

async fn resolve_issuer(
    client: &kube::Client,
    reference: &IssuerReference,
    namespace: &str,
    cluster_resource_namespace: &str,
) -> Result<ResolvedIssuer, RevokeError> {
    let group = reference.group.as_deref().unwrap_or_default();
    let kind = reference.kind.as_deref().filter(|k| !k.is_empty()).unwrap_or("Issuer");
    if !group.is_empty() && group != "cert-manager.io" {
        return Err(RevokeError(format!(
            "the issuer {kind} {} of group {} is not a cert-manager CA issuer: only CA Issuers and ClusterIssuers publish CRLs",
            certgate_gofmt::quote(&reference.name),
            certgate_gofmt::quote(group)
        )));
    }
    match kind {
        "Issuer" => {
            let label = format!("Issuer '{namespace}/{}'", reference.name);
            fetch_issuer::<Issuer>(client, Some(namespace), &reference.name, label, namespace).await
        }
        "ClusterIssuer" => {
            let label = format!("ClusterIssuer '{}'", reference.name);
            fetch_issuer::<ClusterIssuer>(
                client,
                None,
                &reference.name,
                label,
                cluster_resource_namespace,
            )
            .await
        }
        other => Err(RevokeError(format!(
            "the issuer kind {} is not Issuer or ClusterIssuer: only CA Issuers and ClusterIssuers publish CRLs",
            certgate_gofmt::quote(other)
        ))),
    }
}

/// Reads an Issuer or ClusterIssuer (through the issuer crate's `IssuerApi`, as its
/// controllers do): its configuration, CRL Secret annotation and resource namespace.
async fn fetch_issuer<I: IssuerApi>(
    client: &kube::Client,
    namespace: Option<&str>,
    name: &str,
    label: String,
    cluster_resource_namespace: &str,
) -> Result<ResolvedIssuer, RevokeError> {
    let issuer = I::api(client.clone(), namespace)
        .get_opt(name)
        .await
        .map_err(|e| server(&e, &format!("cannot read {label}")))?
        .ok_or_else(|| RevokeError(format!("{label} not found")))?;
    Ok(ResolvedIssuer {
        label,
        crl_secret: issuer
            .meta()
            .annotations
            .as_ref()
            .and_then(|a| a.get(CRL_SECRET_ANNOTATION))
            .cloned(),
        config: issuer.config().clone(),
        resource_namespace: issuer.resource_namespace(cluster_resource_namespace).to_owned(),
    })
}

/// Where a resolved issuer publishes its CRL, or why it does not.
fn crl_secret_of(issuer: &ResolvedIssuer) -> Result<&str, RevokeError> {
    if certgate_issuer::setup::ca_secret(&issuer.config).is_none() {
        return Err(RevokeError(format!(
            "{} is not a CA issuer (spec.ca): only CA issuers publish CRLs",
            issuer.label
        )));
    }
    issuer.crl_secret.as_deref().ok_or_else(|| {
        RevokeError(format!(
            "{} does not publish a CRL: add the annotation {CRL_SECRET_ANNOTATION}: <secret name> to it (and run the issuers-crl controller)",
            issuer.label
        ))
    })
}

fn server(error: &kube::Error, doing: &str) -> RevokeError {
    RevokeError(format!("{doing}: {}", describe_error(error)))
}

/// What [`revoke_with`] revokes.
#[derive(Clone, Copy, Debug)]
pub struct RevokeObject<'a> {
    pub kind: Kind,
    pub namespace: &'a str,
    pub name: &'a str,
    /// Where ClusterIssuers' Secrets live.
    pub cluster_resource_namespace: &'a str,
}

/// Revokes the certificate of `target` through `client`; the line to print on success. For
/// callers that already hold a client (`certgate dev --demo-issuance`).
pub async fn revoke_with(
    client: &kube::Client,
    target: RevokeObject<'_>,
    reason: Option<certgate_crl::build::Reason>,
) -> Result<String, RevokeError> {
    let (kind, namespace) = (target.kind, target.namespace.to_owned());
    let client = client.clone();
    let object = format!("{} '{namespace}/{}'", kind.name(), target.name);
    let (leaf, issuer_ref) = match kind {
        Kind::Certificate => {
            let certificate = Api::<Certificate>::namespaced(client.clone(), &namespace)
                .get_opt(target.name)
                .await
                .map_err(|e| server(&e, &format!("cannot read {object}")))?
                .ok_or_else(|| RevokeError(format!("{object} not found")))?;
            let secret_name = &certificate.spec.secret_name;
            let source = format!("tls.crt of secret '{namespace}/{secret_name}'");
            let secret = Api::<Secret>::namespaced(client.clone(), &namespace)
                .get_opt(secret_name)
                .await
                .map_err(|e| server(&e, &format!("cannot read the secret of {object}")))?
                .ok_or_else(|| {
                    RevokeError(format!(
                        "the secret '{namespace}/{secret_name}' of {object} does not exist: nothing was issued to revoke"
                    ))
                })?;
            let data = secret_data(&secret);
            let pem = data
                .get("tls.crt")
                .ok_or_else(|| RevokeError(format!("{source} is missing: nothing to revoke")))?;
            (leaf(pem, &source)?, certificate.spec.issuer_ref.clone())
        }
        Kind::CertificateRequest => {
            let request = Api::<CertificateRequest>::namespaced(client.clone(), &namespace)
                .get_opt(target.name)
                .await
                .map_err(|e| server(&e, &format!("cannot read {object}")))?
                .ok_or_else(|| RevokeError(format!("{object} not found")))?;
            let encoded = request
                .status
                .as_ref()
                .and_then(|s| s.certificate.as_deref())
                .filter(|c| !c.is_empty())
                .ok_or_else(|| {
                    RevokeError(format!(
                        "{object} has no status.certificate: nothing was issued to revoke"
                    ))
                })?;
            let pem = base64::engine::general_purpose::STANDARD.decode(encoded).map_err(|e| {
                RevokeError(format!("status.certificate of {object} is not base64: {e}"))
            })?;
            let source = format!("status.certificate of {object}");
            (leaf(&pem, &source)?, request.spec.issuer_ref.clone())
        }
    };
    let issuer =
        resolve_issuer(&client, &issuer_ref, &namespace, target.cluster_resource_namespace).await?;
    let crl_secret = crl_secret_of(&issuer)?;
    let secret_label = format!("'{}/{crl_secret}'", issuer.resource_namespace);
    let entry = Revocation {
        serial: leaf.serial,
        revoked_at: Timestamp::from_system_time(SystemClock.now()),
        reason,
        not_after: leaf.not_after,
        certificate: Some(format!("{namespace}/{}", target.name)),
    };
    let secrets = Api::<Secret>::namespaced(client.clone(), &issuer.resource_namespace);
    for _ in 0..5 {
        let existing = secrets
            .get_opt(crl_secret)
            .await
            .map_err(|e| server(&e, &format!("cannot read the CRL secret {secret_label}")))?;
        let data = existing.as_ref().map(secret_data).unwrap_or_default();
        let limits = RevocationLimits::default();
        let mut list = match data.get(REVOCATIONS_KEY) {
            Some(text) => parse_revocations(text, &limits)
                .map_err(|e| RevokeError(format!("secret {secret_label}: {e}")))?,
            None => Vec::new(),
        };
        match add_revocation(&mut list, entry.clone(), &limits)
            .map_err(|e| RevokeError(format!("secret {secret_label}: {e}")))?
        {
            Added::AlreadyRevoked(previous) => {
                return Ok(format!(
                    "Certificate serial {} of {object} is already revoked (since {}, reason {}); issuer {} publishes it in secret {secret_label}",
                    previous.serial_hex(),
                    previous.revoked_at,
                    reason_name(previous.reason),
                    issuer.label
                ));
            }
            Added::Added => {}
        }
        let updated = with_key(
            existing.as_ref(),
            &issuer.resource_namespace,
            crl_secret,
            REVOCATIONS_KEY,
            revocations_to_json(&list).into_bytes(),
        );
        let written = match &existing {
            Some(_) => secrets.replace(crl_secret, &PostParams::default(), &updated).await,
            None => secrets.create(&PostParams::default(), &updated).await,
        };
        match written {
            Ok(_) => {
                return Ok(format!(
                    "Revoked certificate serial {} of {object}; issuer {} publishes it in secret {secret_label}",
                    entry.serial_hex(),
                    issuer.label
                ));
            }
            Err(e) if is_conflict(&e) => continue,
            Err(e) => {
                return Err(server(&e, &format!("cannot write the CRL secret {secret_label}")));
            }
        }
    }
    Err(RevokeError(format!(
        "the CRL secret {secret_label} changed during 5 writes in a row; run the command again"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolved(config: IssuerConfig, crl_secret: Option<&str>) -> ResolvedIssuer {
        ResolvedIssuer {
            label: "Issuer 'payments/ca'".into(),
            config,
            crl_secret: crl_secret.map(str::to_owned),
            resource_namespace: "payments".into(),
        }
    }

    #[test]
    fn only_annotated_ca_issuers_take_revocations() {
        let ca = IssuerConfig {
            ca: Some(certgate_api::cert_manager::CaIssuer {
                secret_name: "ca-key-pair".into(),
                ..Default::default()
            }),
            ..IssuerConfig::default()
        };
        assert_eq!(crl_secret_of(&resolved(ca.clone(), Some("ca-crl"))).unwrap(), "ca-crl");
        assert_eq!(
            crl_secret_of(&resolved(ca, None)).unwrap_err().to_string(),
            "Issuer 'payments/ca' does not publish a CRL: add the annotation certgate.io/crl-secret-name: <secret name> to it (and run the issuers-crl controller)"
        );
        let self_signed =
            IssuerConfig { self_signed: Some(Default::default()), ..IssuerConfig::default() };
        assert_eq!(
            crl_secret_of(&resolved(self_signed, Some("x"))).unwrap_err().to_string(),
            "Issuer 'payments/ca' is not a CA issuer (spec.ca): only CA issuers publish CRLs"
        );
    }

    #[test]
    fn the_leaf_is_the_first_certificate_of_the_pem() {
        let key = rcgen::KeyPair::generate().unwrap();
        let mut params = rcgen::CertificateParams::new(vec!["a.example".into()]).unwrap();
        params.serial_number = Some(rcgen::SerialNumber::from_slice(&[0x00, 0x9f, 0x01]));
        let cert = params.self_signed(&key).unwrap();
        let pem = format!("junk\n{}", cert.pem());
        let found = leaf(pem.as_bytes(), "tls.crt").unwrap();
        assert_eq!(found.serial, [0x9f, 0x01]);
        assert_eq!(found.not_after.unix(), params.not_after.unix_timestamp());
        assert_eq!(
            leaf(b"-----BEGIN X-----\nAA==\n-----END X-----\n", "tls.crt of secret 'a/b'")
                .unwrap_err()
                .to_string(),
            "tls.crt of secret 'a/b' holds no PEM certificate"
        );
    }
}
