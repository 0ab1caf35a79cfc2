//! Contour's `HTTPProxyProcessor` for what decides client-certificate validation (spec §4):
//! fqdn uniqueness, the early virtual-host checks, the general TLS checks, the serving Secret,
//! the TLS versions, fallback incompatibilities, then the CA and CRL Secrets, in Contour's
//! order and with its messages. What comes after (authorization, JWT, routes and services) is
//! not evaluated: services cannot be resolved offline.

use std::collections::{BTreeMap, BTreeSet};

use certgate_gofmt::quote;

use crate::delegation::{NamespacedName, delegation_permitted};
use crate::secrets::{
    SecretError, TLS_CERT_KEY, validate_ca_secret, validate_crl_secret, validate_tls_secret,
};
use crate::status::{ORPHANED_ERROR, StatusBuilder, TLS_ERROR, VIRTUAL_HOST_ERROR};
use crate::types::{ClientCertificateDetails, HttpProxy, Secret, TlsCertificateDelegation};

/// Settings Contour takes from its configuration rather than from the objects.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProcessorConfig {
    /// `--root-namespaces`; empty means root proxies are allowed everywhere.
    pub root_namespaces: Vec<String>,
    /// The configured fallback certificate Secret, if any.
    pub fallback_certificate: Option<NamespacedName>,
}

/// What processing concluded for one proxy.
#[derive(Debug, Clone, PartialEq)]
pub struct ProcessOutcome {
    pub namespace: String,
    pub name: String,
    pub generation: Option<i64>,
    pub status: StatusBuilder,
    /// The secure virtual host Contour would program, when processing got that far.
    pub vhost: Option<ValidatedVhost>,
}

/// A TLS-terminating virtual host that made it through the client-validation steps.
#[derive(Debug, Clone, PartialEq)]
pub struct ValidatedVhost {
    pub fqdn: String,
    pub serving_secret: NamespacedName,
    /// `tls.crt` of the serving Secret: Contour names the SDS secret after its hash.
    pub serving_certificate: Vec<u8>,
    /// `tls.key` of the serving Secret, for the SDS Secret resource.
    pub serving_private_key: Vec<u8>,
    /// `"1.2"` or `"1.3"`, after Contour's defaulting.
    pub min_tls_version: String,
    pub max_tls_version: String,
    pub peer_validation: Option<PeerValidation>,
}

/// Contour's `PeerValidationContext` for downstream (client) certificates.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PeerValidation {
    pub skip_client_cert_validation: bool,
    pub optional_client_certificate: bool,
    pub forward_client_certificate: Option<ClientCertificateDetails>,
    /// The CA Secret and its `ca.crt`.
    pub ca: Option<(NamespacedName, Vec<u8>)>,
    /// The CRL Secret and its raw `crl.pem`.
    pub crl: Option<(NamespacedName, Vec<u8>)>,
    pub only_verify_leaf_cert_crl: bool,
}

/// The objects Contour's cache would hold.
#[derive(Debug, Clone, Copy)]
pub struct Objects<'a> {
    pub proxies: &'a [HttpProxy],
    pub secrets: &'a BTreeMap<NamespacedName, Secret>,
    pub delegations: &'a [TlsCertificateDelegation],
}

enum Lookup<'a> {
    Found(&'a Secret),
    DelegationNotPermitted,
    Invalid(String),
}

impl<'a> Objects<'a> {
    /// Contour's `Lookup*Secret`: delegation first (so a missing Secret in another namespace
    /// reports delegation), then existence, then the role's validator.
    fn lookup(
        &self,
        name: &NamespacedName,
        target_namespace: &str,
        validate: fn(&Secret) -> Result<(), SecretError>,
    ) -> Lookup<'a> {
        if !delegation_permitted(name, target_namespace, self.delegations) {
            return Lookup::DelegationNotPermitted;
        }
        let Some(secret) = self.secrets.get(name) else {
            return Lookup::Invalid("Secret not found".to_string());
        };
        match validate(secret) {
            Ok(()) => Lookup::Found(secret),
            Err(err) => Lookup::Invalid(err.to_string()),
        }
    }
}

/// Runs Contour's processing over every proxy and returns one outcome per proxy, in input order.
pub fn process_proxies(objects: Objects<'_>, config: &ProcessorConfig) -> Vec<ProcessOutcome> {
    let mut outcomes: Vec<ProcessOutcome> = objects
        .proxies
        .iter()
        .map(|p| ProcessOutcome {
            namespace: p.namespace().to_string(),
            name: p.name().to_string(),
            generation: p.metadata.generation,
            status: StatusBuilder::new(),
            vhost: None,
        })
        .collect();

    let duplicates = duplicate_fqdns(objects.proxies);
    let mut reached: BTreeSet<(String, String)> = BTreeSet::new();
    for (index, proxy) in objects.proxies.iter().enumerate() {
        let Some(vhost) = proxy.spec.virtualhost.as_ref() else {
            continue;
        };
        let outcome = &mut outcomes[index];
        let fqdn = vhost.fqdn.to_lowercase();
        if let Some(message) = duplicates.get(&fqdn) {
            outcome.status.add_error(VIRTUAL_HOST_ERROR, "DuplicateVhost", message);
            continue;
        }
        match process_root(proxy, objects, config, &mut outcome.status) {
            Flow::Stopped => {}
            Flow::Continued(vhost) => {
                outcome.vhost = vhost.map(|v| *v);
                follow_includes(proxy, objects.proxies, &mut reached);
            }
        }
    }

    // Non-root proxies that no processed root reaches are orphans.
    for (index, proxy) in objects.proxies.iter().enumerate() {
        let key = (proxy.namespace().to_string(), proxy.name().to_string());
        if proxy.spec.virtualhost.is_none() && !reached.contains(&key) {
            outcomes[index].status.add_error(
                ORPHANED_ERROR,
                "Orphaned",
                "this HTTPProxy is not part of a delegation chain from a root HTTPProxy",
            );
        }
    }
    outcomes
}

/// Contour's `validHTTPProxies`: an fqdn (compared lowercased) used by several root proxies
/// invalidates all of them.
pub(crate) fn duplicate_fqdns(proxies: &[HttpProxy]) -> BTreeMap<String, String> {
    let mut by_fqdn: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for proxy in proxies {
        if let Some(vhost) = &proxy.spec.virtualhost {
            by_fqdn.entry(vhost.fqdn.to_lowercase()).or_default().push(format!(
                "{}/{}",
                proxy.namespace(),
                proxy.name()
            ));
        }
    }
    by_fqdn
        .into_iter()
        .filter(|(_, users)| users.len() > 1)
        .map(|(fqdn, mut users)| {
            users.sort();
            let message = format!(
                "fqdn {} is used in multiple HTTPProxies: {}",
                quote(&fqdn),
                users.join(", ")
            );
            (fqdn, message)
        })
        .collect()
}

/// Marks every proxy reachable through `includes` and `tcpproxy.include` as part of a chain.
fn follow_includes(
    root: &HttpProxy,
    proxies: &[HttpProxy],
    reached: &mut BTreeSet<(String, String)>,
) {
    let mut stack = vec![root];
    let mut seen: BTreeSet<(String, String)> = BTreeSet::new();
    while let Some(proxy) = stack.pop() {
        if !seen.insert((proxy.namespace().to_string(), proxy.name().to_string())) {
            continue;
        }
        let ns = proxy.namespace();
        let tcp =
            proxy.spec.tcpproxy.iter().flat_map(|t| t.include.iter().chain(t.includes.iter()));
        for include in proxy.spec.includes.iter().flatten().chain(tcp) {
            let target_ns = include.namespace.as_deref().filter(|n| !n.is_empty()).unwrap_or(ns);
            let key = (target_ns.to_string(), include.name.clone());
            if let Some(child) =
                proxies.iter().find(|p| p.namespace() == key.0 && p.name() == key.1)
            {
                reached.insert(key);
                stack.push(child);
            }
        }
    }
}

pub(crate) enum Flow {
    /// A check returned early: Contour builds no listener for this vhost.
    Stopped,
    /// Processing went on; for TLS-terminating vhosts, the secure vhost to program.
    Continued(Option<Box<ValidatedVhost>>),
}

/// Contour's root checks and TLS processing for one root proxy (the part of `computeHTTPProxy`
/// before JWT providers, TCP proxy and routes), shared with `routing`, which goes on from there.
pub(crate) fn process_root(
    proxy: &HttpProxy,
    objects: Objects<'_>,
    config: &ProcessorConfig,
    status: &mut StatusBuilder,
) -> Flow {
    RootProcessing { proxy, objects, config, status }.run()
}

struct RootProcessing<'a, 'b> {
    proxy: &'a HttpProxy,
    objects: Objects<'a>,
    config: &'b ProcessorConfig,
    status: &'b mut StatusBuilder,
}

impl RootProcessing<'_, '_> {
    fn error(&mut self, error_type: &str, reason: &str, message: &str) {
        self.status.add_error(error_type, reason, message);
    }

    fn run(&mut self) -> Flow {
        let proxy = self.proxy;
        let Some(vhost) = proxy.spec.virtualhost.as_ref() else {
            return Flow::Stopped;
        };
        let ns = proxy.namespace();
        if vhost.fqdn.trim().is_empty() {
            self.error(
                VIRTUAL_HOST_ERROR,
                "FQDNNotSpecified",
                "Spec.VirtualHost.Fqdn must be specified",
            );
            return Flow::Stopped;
        }
        if !self.config.root_namespaces.is_empty()
            && !self.config.root_namespaces.iter().any(|r| r == ns)
        {
            self.error(
                "RootNamespaceError",
                "RootProxyNotAllowedInNamespace",
                "root HTTPProxy cannot be defined in this namespace",
            );
            return Flow::Stopped;
        }
        let spec = &proxy.spec;
        if spec.routes.as_ref().is_none_or(Vec::is_empty)
            && spec.includes.as_ref().is_none_or(Vec::is_empty)
            && spec.tcpproxy.is_none()
        {
            self.error(
                "SpecError",
                "NothingDefined",
                "HTTPProxy.Spec must have at least one Route, Include, or a TCPProxy",
            );
            return Flow::Stopped;
        }
        if vhost.jwt_providers.as_ref().is_some_and(|p| !p.is_empty())
            && vhost.tls.as_ref().is_none_or(|tls| tls.secret_name().is_empty())
        {
            self.error(
                "JWTVerificationError",
                "JWTVerificationNotPermitted",
                "Spec.VirtualHost.JWTProviders can only be defined for root HTTPProxies that terminate TLS",
            );
            return Flow::Stopped;
        }
        let has_ext_auth = vhost
            .authorization
            .as_ref()
            .and_then(|a| a.extension_ref.as_ref())
            .and_then(|r| r.name.as_deref())
            .is_some_and(|n| !n.is_empty());
        if vhost.tls.is_none() && has_ext_auth {
            self.error(
                "AuthError",
                "AuthNotPermitted",
                "Spec.VirtualHost.Authorization.ExtensionServiceRef can only be defined for root HTTPProxies that terminate TLS",
            );
            return Flow::Stopped;
        }
        if vhost.ip_allow_policy.as_ref().is_some_and(|p| !p.is_empty())
            && vhost.ip_deny_policy.as_ref().is_some_and(|p| !p.is_empty())
        {
            // Contour's message carries the "IPDepnyFilterPolicy" typo; kept for compatibility.
            self.error(
                "IPFilterError",
                "IncompatibleIPAddressFilters",
                "Spec.VirtualHost.IPAllowFilterPolicy and Spec.VirtualHost.IPDepnyFilterPolicy cannot both be defined.",
            );
            return Flow::Stopped;
        }
        match vhost.tls.as_ref() {
            None => Flow::Continued(None),
            Some(_) => self.tls(),
        }
    }

    fn tls(&mut self) -> Flow {
        let proxy = self.proxy;
        let ns = proxy.namespace();
        let Some(vhost) = proxy.spec.virtualhost.as_ref() else {
            return Flow::Stopped;
        };
        let Some(tls) = vhost.tls.as_ref() else {
            return Flow::Continued(None);
        };
        let secret_blank = tls.secret_name().trim().is_empty();
        if tls.passthrough() && tls.enable_fallback_certificate() {
            // Not a stop: Contour records it and carries on with the next checks.
            self.error(
                TLS_ERROR,
                "TLSIncompatibleFeatures",
                "Spec.VirtualHost.TLS: both Passthrough and enableFallbackCertificate were specified",
            );
        }
        if !secret_blank && tls.passthrough() {
            self.error(
                TLS_ERROR,
                "TLSConfigNotValid",
                "Spec.VirtualHost.TLS: both Passthrough and SecretName were specified",
            );
            return Flow::Stopped;
        }
        if secret_blank && !tls.passthrough() {
            self.error(
                TLS_ERROR,
                "TLSConfigNotValid",
                "Spec.VirtualHost.TLS: neither Passthrough nor SecretName were specified",
            );
            return Flow::Stopped;
        }
        if tls.passthrough() && tls.client_validation.is_some() {
            self.error(
                TLS_ERROR,
                "TLSIncompatibleFeatures",
                "Spec.VirtualHost.TLS passthrough cannot be combined with tls.clientValidation",
            );
            return Flow::Stopped;
        }
        if tls.passthrough() {
            // TLS is forwarded untouched: no downstream TLS context is generated.
            return Flow::Continued(None);
        }

        let serving_name = NamespacedName::from_reference(tls.secret_name(), ns);
        let serving = match self.objects.lookup(&serving_name, ns, validate_tls_secret) {
            Lookup::Found(secret) => secret,
            Lookup::DelegationNotPermitted => {
                let message = format!(
                    "Spec.VirtualHost.TLS Secret {} certificate delegation not permitted",
                    quote(tls.secret_name())
                );
                self.error(TLS_ERROR, "DelegationNotPermitted", &message);
                return Flow::Stopped;
            }
            Lookup::Invalid(err) => {
                let message = format!(
                    "Spec.VirtualHost.TLS Secret {} is invalid: {err}",
                    quote(tls.secret_name())
                );
                self.error(TLS_ERROR, "SecretNotValid", &message);
                return Flow::Stopped;
            }
        };

        // The HTTPS listener lookup cannot fail offline: certgate assumes Contour's default
        // listeners.
        let min = tls_version(tls.minimum_protocol_version.as_deref(), "1.2");
        let max = tls_version(tls.maximum_protocol_version.as_deref(), "1.3");
        if max < min {
            self.error(
                TLS_ERROR,
                "TLSConfigNotValid",
                "Spec.Virtualhost.TLS the minimum protocol version is greater than the maximum protocol version",
            );
            return Flow::Stopped;
        }
        let mut built = ValidatedVhost {
            fqdn: vhost.fqdn.clone(),
            serving_secret: serving_name,
            serving_certificate: serving.data.get(TLS_CERT_KEY).cloned().unwrap_or_default(),
            serving_private_key: serving
                .data
                .get(crate::secrets::TLS_PRIVATE_KEY_KEY)
                .cloned()
                .unwrap_or_default(),
            min_tls_version: min.to_string(),
            max_tls_version: max.to_string(),
            peer_validation: None,
        };

        if tls.enable_fallback_certificate() && tls.client_validation.is_some() {
            self.error(
                TLS_ERROR,
                "TLSIncompatibleFeatures",
                "Spec.Virtualhost.TLS fallback & client validation are incompatible",
            );
            return Flow::Stopped;
        }
        if tls.enable_fallback_certificate() && vhost.authorization.is_some() {
            self.error(
                TLS_ERROR,
                "TLSIncompatibleFeatures",
                "Spec.Virtualhost.TLS fallback & client authorization are incompatible",
            );
            return Flow::Stopped;
        }
        if tls.enable_fallback_certificate() && !self.fallback_certificate_ok() {
            return Flow::Stopped;
        }

        if let Some(cv) = tls.client_validation.as_ref() {
            let mut peer = PeerValidation {
                skip_client_cert_validation: cv.skip_client_cert_validation(),
                optional_client_certificate: cv.optional_client_certificate(),
                forward_client_certificate: cv.forward_client_certificate.clone(),
                ..PeerValidation::default()
            };
            if !cv.ca_secret().is_empty() {
                let name = NamespacedName::from_reference(cv.ca_secret(), ns);
                match self.objects.lookup(&name, ns, validate_ca_secret) {
                    Lookup::Found(secret) => {
                        let ca = secret
                            .data
                            .get(crate::secrets::CA_CERTIFICATE_KEY)
                            .cloned()
                            .unwrap_or_default();
                        peer.ca = Some((name, ca));
                    }
                    Lookup::DelegationNotPermitted => {
                        let message = format!(
                            "Spec.VirtualHost.TLS CA Secret {} is invalid: certificate delegation not permitted",
                            quote(cv.ca_secret())
                        );
                        self.error(TLS_ERROR, "DelegationNotPermitted", &message);
                        return Flow::Stopped;
                    }
                    Lookup::Invalid(err) => {
                        let message = format!(
                            "Spec.VirtualHost.TLS client validation is invalid: invalid CA Secret {}: {err}",
                            quote(&name.to_string())
                        );
                        self.error(TLS_ERROR, "ClientValidationInvalid", &message);
                        return Flow::Stopped;
                    }
                }
            } else if !cv.skip_client_cert_validation() {
                // Recorded, but Contour carries on: the CRL is still checked and attached.
                self.error(
                    TLS_ERROR,
                    "ClientValidationInvalid",
                    "Spec.VirtualHost.TLS client validation is invalid: CA Secret must be specified",
                );
            }
            if !cv.crl_secret().is_empty() {
                let name = NamespacedName::from_reference(cv.crl_secret(), ns);
                match self.objects.lookup(&name, ns, validate_crl_secret) {
                    Lookup::Found(secret) => {
                        let crl =
                            secret.data.get(crate::secrets::CRL_KEY).cloned().unwrap_or_default();
                        peer.crl = Some((name, crl));
                        peer.only_verify_leaf_cert_crl = cv.crl_only_verify_leaf_cert();
                    }
                    Lookup::DelegationNotPermitted => {
                        let message = format!(
                            "Spec.VirtualHost.TLS CRL Secret {} is invalid: certificate delegation not permitted",
                            quote(cv.crl_secret())
                        );
                        self.error(TLS_ERROR, "DelegationNotPermitted", &message);
                        return Flow::Stopped;
                    }
                    Lookup::Invalid(err) => {
                        let message = format!(
                            "Spec.VirtualHost.TLS client validation is invalid: invalid CRL Secret {}: {err}",
                            quote(&name.to_string())
                        );
                        self.error(TLS_ERROR, "ClientValidationInvalid", &message);
                        return Flow::Stopped;
                    }
                }
            }
            built.peer_validation = Some(peer);
        }
        Flow::Continued(Some(Box::new(built)))
    }

    /// The fallback certificate must be configured and usable from the proxy's namespace.
    fn fallback_certificate_ok(&mut self) -> bool {
        let ns = self.proxy.namespace();
        let Some(fallback) = self.config.fallback_certificate.clone() else {
            self.error(
                TLS_ERROR,
                "FallbackNotPresent",
                "Spec.Virtualhost.TLS enabled fallback but the fallback Certificate Secret is not configured in Contour configuration file",
            );
            return false;
        };
        match self.objects.lookup(&fallback, ns, validate_tls_secret) {
            Lookup::Found(_) => true,
            Lookup::DelegationNotPermitted => {
                let message = format!(
                    "Spec.VirtualHost.TLS Secret {} is not configured for certificate delegation",
                    quote(&fallback.to_string())
                );
                self.error(TLS_ERROR, "FallbackNotDelegated", &message);
                false
            }
            Lookup::Invalid(err) => {
                let message = format!(
                    "Spec.Virtualhost.TLS Secret {} fallback certificate is invalid: {err}",
                    quote(&fallback.to_string())
                );
                self.error(TLS_ERROR, "FallbackNotValid", &message);
                false
            }
        }
    }
}

/// Contour's `annotation.TLSVersion`: only `1.2` and `1.3` are recognised, anything else
/// (including an empty field) falls back to the default.
fn tls_version<'v>(value: Option<&'v str>, default: &'v str) -> &'v str {
    match value {
        Some(v @ ("1.2" | "1.3")) => v,
        _ => default,
    }
}
