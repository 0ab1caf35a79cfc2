//! `certgate dev --demo-issuance`: issue #22's loop in the running sandbox, with certgate's
//! own controllers — a CA Issuer that publishes a CRL, a CertificateRequestPolicy with a CEL
//! rule, a Certificate the policy approves (issued into its Secret), one it denies (never
//! issued, retried after the backoff), then `certgate revoke` and the CRL republished —
//! printing each step as the sandbox holds it, and how the edge enforces the CRL.

use std::io::Write;
use std::time::Duration;

use certgate_api::CertificateRequest;
use certgate_api::cert_manager::Certificate;
use k8s_openapi::api::core::v1::Secret;
use kube::api::{Api, Patch, PatchParams};
use serde_json::{Value, json};

use super::DevError;
use crate::shared::revocation::{Kind, RevokeObject, revoke_with};

/// The demo's namespace.
pub const NAMESPACE: &str = "demo";
/// The controllers the demo needs besides the policy approver (on by default).
pub const CONTROLLERS: [&str; 4] =
    ["certificates", "issuers", "certificaterequests-issuer-ca", "issuers-crl"];
/// How long each step may take before the demo gives up.
const STEP_TIMEOUT: Duration = Duration::from_secs(60);

fn demo_error(what: &str) -> impl Fn(kube::Error) -> DevError + '_ {
    move |e| DevError::Demo(format!("{what}: {e}"))
}

/// A fresh P-256 CA for the demo: certificate and key PEM.
fn ca() -> Result<(String, String), DevError> {
    let failed = |e: rcgen::Error| DevError::Demo(format!("cannot make the demo CA: {e}"));
    let key = rcgen::KeyPair::generate().map_err(failed)?;
    let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).map_err(failed)?;
    params.distinguished_name.push(rcgen::DnType::CommonName, "certgate demo CA");
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    params.key_usages = vec![rcgen::KeyUsagePurpose::KeyCertSign, rcgen::KeyUsagePurpose::CrlSign];
    let certificate = params.self_signed(&key).map_err(failed)?;
    Ok((certificate.pem(), key.serialize_pem()))
}

/// The objects the demo applies, in order.
fn objects(ca_pem: &str, ca_key: &str) -> Vec<Value> {
    let certificate = |name: &str, dns: &str| {
        json!({"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
               "metadata": {"name": name, "namespace": NAMESPACE},
               "spec": {"secretName": format!("{name}-tls"), "dnsNames": [dns], "duration": "24h",
                        "usages": ["digital signature", "key encipherment", "server auth", "client auth"],
                        "privateKey": {"algorithm": "ECDSA"},
                        "issuerRef": {"name": "ca", "kind": "Issuer"}}})
    };
    vec![
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}),
        json!({"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/tls",
               "metadata": {"name": "ca-key-pair", "namespace": NAMESPACE},
               "stringData": {"tls.crt": ca_pem, "tls.key": ca_key}}),
        json!({"apiVersion": "cert-manager.io/v1", "kind": "Issuer",
               "metadata": {"name": "ca", "namespace": NAMESPACE,
                            "annotations": {"certgate.io/crl-secret-name": "ca-crl"}},
               "spec": {"ca": {"secretName": "ca-key-pair"}}}),
        json!({"apiVersion": "policy.cert-manager.io/v1alpha1", "kind": "CertificateRequestPolicy",
               "metadata": {"name": "demo-services"},
               "spec": {"allowed": {
                            "dnsNames": {"required": true, "validations": [{
                                "rule": "self.endsWith('.' + cr.namespace + '.svc')",
                                "message": "DNS names must be services of the request's own namespace"}]},
                            "usages": ["digital signature", "key encipherment", "server auth", "client auth"]},
                        "selector": {"issuerRef": {"name": "ca", "kind": "Issuer"}}}}),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
               "metadata": {"name": "certgate-demo-issuance"},
               "rules": [{"apiGroups": ["policy.cert-manager.io"], "resources": ["certificaterequestpolicies"],
                          "verbs": ["use"], "resourceNames": ["demo-services"]}]}),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
               "metadata": {"name": "certgate-demo-issuance"},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "certgate-demo-issuance"},
               "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "system:authenticated"}]}),
        certificate("web", "web.demo.svc"),
        certificate("intruder", "db.payments.svc"),
    ]
}

fn resource(object: &Value) -> kube::discovery::ApiResource {
    let (group, version) = match object["apiVersion"].as_str().unwrap_or_default().split_once('/') {
        Some((group, version)) => (group.to_owned(), version.to_owned()),
        None => (String::new(), object["apiVersion"].as_str().unwrap_or_default().to_owned()),
    };
    let kind = object["kind"].as_str().unwrap_or_default();
    let plural = match kind {
        "CertificateRequestPolicy" => "certificaterequestpolicies".to_owned(),
        other => format!("{}s", other.to_lowercase()),
    };
    kube::discovery::ApiResource::from_gvk_with_plural(
        &kube::api::GroupVersionKind::gvk(&group, &version, kind),
        &plural,
    )
}

async fn apply(client: &kube::Client, object: &Value) -> Result<String, DevError> {
    let resource = resource(object);
    let name = object["metadata"]["name"].as_str().unwrap_or_default();
    let api: Api<kube::api::DynamicObject> = match object["metadata"]["namespace"].as_str() {
        Some(namespace) => Api::namespaced_with(client.clone(), namespace, &resource),
        None => Api::all_with(client.clone(), &resource),
    };
    let what = format!("{} {name}", resource.kind);
    api.patch(name, &PatchParams::apply("certgate-demo").force(), &Patch::Apply(object))
        .await
        .map_err(demo_error(&what))?;
    tracing::info!(
        kind = %resource.kind,
        namespace = object["metadata"]["namespace"].as_str().unwrap_or_default(),
        name,
        "applied"
    );
    Ok(what)
}

/// Polls `probe` every 200 ms until it gives `Some`, for at most [`STEP_TIMEOUT`].
async fn until<T, F>(what: &str, mut probe: impl FnMut() -> F) -> Result<T, DevError>
where
    F: Future<Output = Result<Option<T>, DevError>>,
{
    let deadline = tokio::time::Instant::now() + STEP_TIMEOUT;
    loop {
        if let Some(value) = probe().await? {
            return Ok(value);
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(DevError::Demo(format!("timed out waiting for {what}")));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// `<status> <reason>: <message>` of a condition.
fn condition(
    conditions: Option<&[certgate_api::cert_manager::Condition]>,
    type_: &str,
) -> Option<String> {
    conditions?.iter().find(|c| c.type_ == type_).map(|c| {
        format!(
            "{} {}: {}",
            c.status,
            c.reason.as_deref().unwrap_or_default(),
            c.message.as_deref().unwrap_or_default()
        )
    })
}

fn request_decision(request: &CertificateRequest) -> String {
    request
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .into_iter()
        .flatten()
        .filter(|c| c.type_ == "Approved" || c.type_ == "Denied")
        .map(|c| {
            format!(
                "{} ({}): {}",
                c.type_,
                c.reason.as_deref().unwrap_or_default(),
                c.message.as_deref().unwrap_or_default()
            )
        })
        .next()
        .unwrap_or_else(|| "not decided".to_owned())
}

fn data<'s>(secret: &'s Secret, key: &str) -> Option<&'s [u8]> {
    secret.data.as_ref()?.get(key).map(|v| v.0.as_slice())
}

/// The CRL number and entry count of the Secret's `crl.pem`, when it holds one CRL.
fn crl_summary(secret: &Secret) -> Option<(String, usize)> {
    let bundle =
        certgate_crl::CrlBundle::parse(data(secret, "crl.pem")?, &certgate_crl::Limits::default())
            .ok()?;
    let crl = bundle.items.first()?.crl.as_ref().ok()?;
    let info = crl.info();
    Some((info.crl_number.as_ref().map(ToString::to_string).unwrap_or_default(), info.entries))
}

pub async fn run(kubeconfig: &str, out: &mut impl Write) -> Result<(), DevError> {
    let admin = super::client(kubeconfig, None).await?;
    let (ca_pem, ca_key) = ca()?;
    let _ = writeln!(
        out,
        "The issuance loop in namespace {NAMESPACE} (certgate's controllers: policy-approver, {}):",
        CONTROLLERS.join(", ")
    );
    for object in objects(&ca_pem, &ca_key) {
        let applied = apply(&admin, &object).await?;
        let _ = writeln!(out, "  applied {applied}");
    }
    let certificates: Api<Certificate> = Api::namespaced(admin.clone(), NAMESPACE);
    let requests: Api<CertificateRequest> = Api::namespaced(admin.clone(), NAMESPACE);
    let secrets: Api<Secret> = Api::namespaced(admin.clone(), NAMESPACE);

    // Approved by the policy, signed by the CA, stored in the Secret.
    let started = tokio::time::Instant::now();
    let web = until("Certificate demo/web to be Ready", || async {
        let web = certificates.get("web").await.map_err(demo_error("read Certificate web"))?;
        let ready = condition(web.status.as_ref().and_then(|s| s.conditions.as_deref()), "Ready");
        Ok(ready.filter(|r| r.starts_with("True")).map(|_| web))
    })
    .await?;
    let request =
        requests.get("web-1").await.map_err(demo_error("read CertificateRequest web-1"))?;
    let secret = secrets.get("web-tls").await.map_err(demo_error("read Secret web-tls"))?;
    let _ = writeln!(
        out,
        "\nCertificate {NAMESPACE}/web (web.demo.svc): Ready after {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let _ = writeln!(out, "  CertificateRequest web-1: {}", request_decision(&request));
    let status = web.status.clone().unwrap_or_default();
    let keys: Vec<&String> = secret.data.as_ref().map(|d| d.keys().collect()).unwrap_or_default();
    let _ = writeln!(
        out,
        "  Secret web-tls: {} (valid {} to {}, renewed at {})",
        keys.iter().map(|k| k.as_str()).collect::<Vec<_>>().join(", "),
        status.not_before.unwrap_or_default(),
        status.not_after.unwrap_or_default(),
        status.renewal_time.unwrap_or_default()
    );

    // Denied by the policy: never issued, retried after the backoff.
    let intruder = until("Certificate demo/intruder's issuance to fail", || async {
        let intruder =
            certificates.get("intruder").await.map_err(demo_error("read Certificate intruder"))?;
        let failed = intruder.status.as_ref().and_then(|s| s.last_failure_time.clone()).is_some();
        Ok(failed.then_some(intruder))
    })
    .await?;
    let request = requests
        .get("intruder-1")
        .await
        .map_err(demo_error("read CertificateRequest intruder-1"))?;
    let status = intruder.status.clone().unwrap_or_default();
    let conditions = status.conditions.as_deref();
    let backoff =
        certgate_issuance::BackoffConfig::default().delay(status.failed_issuance_attempts);
    let _ = writeln!(out, "\nCertificate {NAMESPACE}/intruder (db.payments.svc): not issued");
    let _ = writeln!(out, "  CertificateRequest intruder-1: {}", request_decision(&request));
    let _ = writeln!(out, "  Issuing: {}", condition(conditions, "Issuing").unwrap_or_default());
    let _ = writeln!(
        out,
        "  failed attempts: {}, last at {}; the next waits {backoff} (1h doubling up to 32h)",
        status.failed_issuance_attempts.unwrap_or_default(),
        status.last_failure_time.unwrap_or_default()
    );
    let _ = writeln!(
        out,
        "  Secret intruder-tls: {}",
        match secrets.get_opt("intruder-tls").await {
            Ok(None) => "does not exist".to_owned(),
            Ok(Some(_)) => "exists (unexpected)".to_owned(),
            Err(e) => format!("cannot be read: {e}"),
        }
    );

    // Revoked: the CA issuer republishes its CRL.
    let first = until("the first CRL in Secret demo/ca-crl", || async {
        let secret = secrets.get_opt("ca-crl").await.map_err(demo_error("read Secret ca-crl"))?;
        Ok(secret.as_ref().and_then(crl_summary))
    })
    .await?;
    let target = RevokeObject {
        kind: Kind::Certificate,
        namespace: NAMESPACE,
        name: "web",
        cluster_resource_namespace: certgate_issuer::cluster_resource_namespace(),
    };
    let said = revoke_with(&admin, target, Some(certgate_crl::build::Reason::KeyCompromise))
        .await
        .map_err(|e| DevError::Demo(format!("certgate revoke certificate web: {e}")))?;
    let _ = writeln!(
        out,
        "\nSecret {NAMESPACE}/ca-crl: crl.pem CRL number {}, {} revoked",
        first.0, first.1
    );
    let _ = writeln!(
        out,
        "certgate revoke certificate web -n {NAMESPACE} --reason keyCompromise:\n  {said}"
    );
    let after = until("the CRL revoking web", || async {
        let secret = secrets.get_opt("ca-crl").await.map_err(demo_error("read Secret ca-crl"))?;
        Ok(secret.as_ref().and_then(crl_summary).filter(|(number, _)| *number != first.0))
    })
    .await?;
    let _ = writeln!(
        out,
        "Secret {NAMESPACE}/ca-crl: crl.pem CRL number {}, {} revoked",
        after.0, after.1
    );
    let _ = writeln!(
        out,
        "\nAt the edge: an HTTPProxy in namespace {NAMESPACE} with\n\
         \x20 spec.virtualhost.tls.clientValidation: {{caSecret: web-tls, crlSecret: ca-crl}}\n\
         trusts this CA (web-tls's ca.crt) and, once certgate edge serve hands the CRL to Envoy,\n\
         refuses web's certificate (docs/edge.md; tests/revocation_loop.rs runs it with a real Envoy)."
    );
    Ok(())
}
