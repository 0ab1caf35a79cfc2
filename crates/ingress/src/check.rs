//! The offline check the `certgate` CLI runs over manifest files: every `HTTPProxy` gets the
//! status Contour would write, the Envoy downstream TLS context it would send, and warnings
//! from deeper CRL checks plugged in through [`CrlInspector`].

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::delegation::NamespacedName;
use crate::envoy::{TranslateOptions, downstream_tls_context, to_json};
use crate::types::{HttpProxy, HttpProxyStatus, Secret, TlsCertificateDelegation};
use crate::validate::{Objects, ProcessorConfig, ValidatedVhost, process_proxies};

/// What a CRL inspector is told about one accepted CRL Secret.
#[derive(Debug, Clone, Copy)]
pub struct CrlContext<'a> {
    pub proxy_namespace: &'a str,
    pub proxy_name: &'a str,
    pub fqdn: &'a str,
    pub crl_secret: &'a NamespacedName,
    /// Raw `crl.pem` exactly as Envoy will receive it.
    pub crl_pem: &'a [u8],
    /// `ca.crt` of the CA Secret, when one was attached.
    pub ca_secret: Option<&'a NamespacedName>,
    pub ca_bundle: Option<&'a [u8]>,
    /// `crlOnlyVerifyLeafCert` (Envoy `only_verify_leaf_cert_crl`).
    pub only_verify_leaf: bool,
    /// `skipClientCertValidation` (Envoy `ACCEPT_UNTRUSTED`: failures do not fail handshakes).
    pub skip_client_cert_validation: bool,
}

/// The seam for checks Contour does not do (CRL DER, signatures, expiry, coverage of every CA):
/// `certgate-crl` implements it and the CLI passes it to [`check`]. It runs only for CRLs that
/// Contour accepted and attached, and its findings are warnings: they never change the status.
pub trait CrlInspector {
    fn inspect(&self, context: &CrlContext<'_>) -> Vec<String>;
}

/// No deeper checks (the library default).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoCrlInspection;

impl CrlInspector for NoCrlInspection {
    fn inspect(&self, _context: &CrlContext<'_>) -> Vec<String> {
        Vec::new()
    }
}

impl<F> CrlInspector for F
where
    F: Fn(&CrlContext<'_>) -> Vec<String>,
{
    fn inspect(&self, context: &CrlContext<'_>) -> Vec<String> {
        self(context)
    }
}

/// Settings of a check run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CheckOptions {
    /// `lastTransitionTime` to write (RFC 3339, e.g. `2026-11-25T10:00:00Z`); `None` writes
    /// `null`, keeping output reproducible.
    pub transition_time: Option<String>,
    pub processor: ProcessorConfig,
    pub envoy: TranslateOptions,
}

/// The result for one `HTTPProxy`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckResult {
    pub namespace: String,
    pub name: String,
    pub valid: bool,
    pub status: HttpProxyStatus,
    pub warnings: Vec<String>,
    /// The `DownstreamTlsContext` (as `Any` JSON), or `null` when Contour would program none
    /// (no TLS, passthrough, or processing stopped at an error).
    pub envoy: Value,
}

/// All results, plus objects that could not be read.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckReport {
    pub results: Vec<CheckResult>,
    /// Objects of a known kind that failed to parse, with the reason; omitted when empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
}

#[derive(Default)]
struct Inputs {
    proxies: Vec<HttpProxy>,
    secrets: BTreeMap<NamespacedName, Secret>,
    delegations: Vec<TlsCertificateDelegation>,
    skipped: Vec<String>,
}

/// Items of a `List` (`kubectl get -o json` output) are read as if given one by one. Nesting is
/// bounded so hostile input cannot recurse deeply.
fn collect(value: &Value, inputs: &mut Inputs, depth: usize) {
    let Some(object) = value.as_object() else {
        return;
    };
    let kind = object.get("kind").and_then(Value::as_str).unwrap_or("");
    if kind.ends_with("List") {
        if depth < 4
            && let Some(items) = object.get("items").and_then(Value::as_array)
        {
            for item in items {
                collect(item, inputs, depth + 1);
            }
        }
        return;
    }
    let api_version = object.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    match (kind, api_version) {
        ("HTTPProxy", "projectcontour.io/v1") => match HttpProxy::from_value(value) {
            Ok(proxy) => inputs.proxies.push(proxy),
            Err(err) => inputs.skipped.push(err.to_string()),
        },
        ("TLSCertificateDelegation", "projectcontour.io/v1") => {
            match TlsCertificateDelegation::from_value(value) {
                Ok(delegation) => inputs.delegations.push(delegation),
                Err(err) => inputs.skipped.push(err.to_string()),
            }
        }
        ("Secret", "v1") => match Secret::from_value(value) {
            Ok(secret) => {
                inputs.secrets.insert(NamespacedName::new(&secret.namespace, &secret.name), secret);
            }
            Err(err) => inputs.skipped.push(err.to_string()),
        },
        _ => {}
    }
}

fn warnings_for(
    outcome_vhost: Option<&ValidatedVhost>,
    namespace: &str,
    name: &str,
    inspector: &dyn CrlInspector,
) -> Vec<String> {
    let Some(vhost) = outcome_vhost else {
        return Vec::new();
    };
    let Some(peer) = &vhost.peer_validation else {
        return Vec::new();
    };
    let Some((crl_secret, crl_pem)) = &peer.crl else {
        return Vec::new();
    };
    let context = CrlContext {
        proxy_namespace: namespace,
        proxy_name: name,
        fqdn: &vhost.fqdn,
        crl_secret,
        crl_pem,
        ca_secret: peer.ca.as_ref().map(|(n, _)| n),
        ca_bundle: peer.ca.as_ref().map(|(_, b)| b.as_slice()),
        only_verify_leaf: peer.only_verify_leaf_cert_crl,
        skip_client_cert_validation: peer.skip_client_cert_validation,
    };
    inspector.inspect(&context)
}

/// Checks manifest objects (any mix of kinds; unrelated kinds are ignored) the way Contour would
/// process them, returning one result per `HTTPProxy` in input order.
pub fn check(
    objects: &[Value],
    inspector: &dyn CrlInspector,
    options: &CheckOptions,
) -> CheckReport {
    let mut inputs = Inputs::default();
    for value in objects {
        collect(value, &mut inputs, 0);
    }
    let outcomes = process_proxies(
        Objects {
            proxies: &inputs.proxies,
            secrets: &inputs.secrets,
            delegations: &inputs.delegations,
        },
        &options.processor,
    );
    let results = outcomes
        .into_iter()
        .map(|outcome| {
            let mut warnings =
                warnings_for(outcome.vhost.as_ref(), &outcome.namespace, &outcome.name, inspector);
            // Rendering fails only if `translate` sets a field the JSON writer lacks (a bug):
            // report it rather than print a partial context.
            let envoy = match outcome
                .vhost
                .as_ref()
                .map(|vhost| to_json(&downstream_tls_context(vhost, &options.envoy)))
            {
                Some(Ok(json)) => json,
                Some(Err(err)) => {
                    warnings.push(err.to_string());
                    Value::Null
                }
                None => Value::Null,
            };
            CheckResult {
                valid: outcome.status.is_valid(),
                status: outcome
                    .status
                    .build(outcome.generation, options.transition_time.as_deref()),
                warnings,
                envoy,
                namespace: outcome.namespace,
                name: outcome.name,
            }
        })
        .collect();
    CheckReport { results, skipped: inputs.skipped }
}
