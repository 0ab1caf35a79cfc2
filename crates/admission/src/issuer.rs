//! Issuer and ClusterIssuer validation on CREATE and UPDATE, as cert-manager's webhook
//! checks their spec (upstream `internal/apis/certmanager/validation/issuer.go`): exactly one
//! issuer type, then that type's own checks, with upstream's field paths and texts. Both
//! kinds share the rules; UPDATE checks the new object alone, as upstream.
//!
//! `ca` and `selfSigned` are checked in full. `acme`, `vault` and `venafi`, which certgate
//! keeps as written and does not act on, get upstream's checks of their top-level fields
//! (ACME: `server`, `privateKeySecretRef.name`, `caBundle`/`skipTLSVerify`,
//! `externalAccountBinding`, and each solver's type, HTTP01 ingress or Gateway settings,
//! DNS01 CNAME strategy and provider count; Vault: `server`, `path`, the CA bundle and client
//! certificate pairs, which `auth` method; Venafi: `zone` and which of `tpp`, `cloud`,
//! `ngts`). Not checked: the DNS01 providers' own fields (but `webhook.solverName`) and
//! `nameservers`, and whether CA bundles hold certificates.

use certgate_api::cert_manager::{CaIssuer, IssuerConfig};
use certgate_api::field::{BadValue, FieldError, Path};
use certgate_api::gofmt::GoDuration;
use serde_json::Value;

const MORE_THAN_ONE: &str = "may not specify more than one issuer type";

/// Every error upstream's `ValidateIssuerConfig` reports for an Issuer's or ClusterIssuer's
/// spec, in its order.
pub fn validate(config: &IssuerConfig) -> Vec<FieldError> {
    let path = Path::new("spec");
    let mut el = Vec::new();
    let mut configured = 0;
    let mut one = |name: &str, set: bool, el: &mut Vec<FieldError>| -> bool {
        if !set {
            return false;
        }
        if configured > 0 {
            el.push(FieldError::forbidden(path.child(name), MORE_THAN_ONE));
            return false;
        }
        configured += 1;
        true
    };
    if one("acme", config.acme.is_some(), &mut el) {
        validate_acme(config.acme.as_ref().unwrap_or(&Value::Null), &path.child("acme"), &mut el);
    }
    if one("ca", config.ca.is_some(), &mut el)
        && let Some(ca) = &config.ca
    {
        validate_ca(ca, &path.child("ca"), &mut el);
    }
    // selfSigned has no checks of its own.
    one("selfSigned", config.self_signed.is_some(), &mut el);
    if one("vault", config.vault.is_some(), &mut el) {
        let vault = config.vault.as_ref().unwrap_or(&Value::Null);
        validate_vault(vault, &path.child("vault"), &mut el);
    }
    if one("venafi", config.venafi.is_some(), &mut el) {
        let venafi = config.venafi.as_ref().unwrap_or(&Value::Null);
        validate_venafi(venafi, &path.child("venafi"), &mut el);
    }
    if configured == 0 {
        el.push(FieldError::required(path, "at least one issuer must be configured"));
    }
    el
}

/// upstream's warning for an ACME issuer whose external account binding sets the deprecated
/// `keyAlgorithm`.
pub const DEPRECATED_EAB_KEY_ALGORITHM: &str = "ACME issuer spec field \
    'externalAccount.keyAlgorithm' is deprecated. The value of this field will be ignored.";

/// The warnings upstream's webhook returns with its answer (allowed or denied) for an
/// Issuer's or ClusterIssuer's spec.
pub fn warnings(config: &IssuerConfig) -> Vec<String> {
    let key_algorithm = config
        .acme
        .as_ref()
        .map_or("", |acme| text(acme, &["externalAccountBinding", "keyAlgorithm"]));
    if key_algorithm.is_empty() {
        Vec::new()
    } else {
        vec![DEPRECATED_EAB_KEY_ALGORITHM.to_owned()]
    }
}

fn validate_ca(ca: &CaIssuer, path: &Path, el: &mut Vec<FieldError>) {
    if ca.secret_name.is_empty() {
        el.push(FieldError::required(path.child("secretName"), ""));
    }
    // Upstream names the field `ocspServer` (sic) in this path.
    for (i, url) in ca.ocsp_servers.iter().flatten().enumerate() {
        if url.is_empty() {
            el.push(FieldError::invalid(
                path.child("ocspServer").index(i),
                BadValue::Str(String::new()),
                "must be a valid URL, e.g., http://ocsp.int-x3.letsencrypt.org",
            ));
        }
    }
    for (i, url) in ca.issuing_certificate_urls.iter().flatten().enumerate() {
        if url.is_empty() {
            el.push(FieldError::invalid(
                path.child("issuingCertificateURLs").index(i),
                BadValue::Str(String::new()),
                "must be a valid URL",
            ));
        }
    }
}

/// The string at `keys` under `value`, `""` when absent or not a string (Go's zero value).
fn text<'a>(value: &'a Value, keys: &[&str]) -> &'a str {
    keys.iter().try_fold(value, |v, k| v.get(k)).and_then(Value::as_str).unwrap_or_default()
}

/// Whether `keys` under `value` is set to something other than `null`.
fn set(value: &Value, keys: &[&str]) -> bool {
    keys.iter().try_fold(value, |v, k| v.get(k)).is_some_and(|v| !v.is_null())
}

fn contains_dot_dot_segment(path: &str) -> bool {
    path.split('/').any(|segment| segment == "..")
}

fn validate_acme(acme: &Value, path: &Path, el: &mut Vec<FieldError>) {
    let ca_bundle = !text(acme, &["caBundle"]).is_empty();
    let skip_tls_verify = acme.get("skipTLSVerify").and_then(Value::as_bool).unwrap_or(false);
    if ca_bundle && skip_tls_verify {
        let detail = "caBundle and skipTLSVerify are mutually exclusive and cannot both be set";
        el.push(FieldError::invalid(path.child("caBundle"), BadValue::Str(String::new()), detail));
        el.push(FieldError::invalid(path.child("skipTLSVerify"), BadValue::Bool(true), detail));
    }
    if text(acme, &["privateKeySecretRef", "name"]).is_empty() {
        el.push(FieldError::required(
            path.child("privateKeySecretRef").child("name"),
            "private key secret name is a required field",
        ));
    }
    if text(acme, &["server"]).is_empty() {
        el.push(FieldError::required(path.child("server"), "acme server URL is a required field"));
    }
    if let Some(eab) = acme.get("externalAccountBinding").filter(|v| !v.is_null()) {
        let at = path.child("externalAccountBinding");
        if text(eab, &["keyID"]).is_empty() {
            el.push(FieldError::required(
                at.child("keyID"),
                "the keyID field is required when using externalAccountBinding",
            ));
        }
        if text(eab, &["keySecretRef", "name"]).is_empty() {
            el.push(FieldError::required(
                at.child("keySecretRef").child("name"),
                "secret name is required",
            ));
        }
        if text(eab, &["keySecretRef", "key"]).is_empty() {
            el.push(FieldError::required(
                at.child("keySecretRef").child("key"),
                "secret key is required",
            ));
        }
    }
    validate_solvers(acme, path, el);
}

/// The ACME solvers' checks: one solver type each, HTTP01's ingress or Gateway settings,
/// DNS01's CNAME strategy and one provider (the providers' own fields are not checked).
fn validate_solvers(acme: &Value, path: &Path, el: &mut Vec<FieldError>) {
    let Some(solvers) = acme.get("solvers").and_then(Value::as_array) else { return };
    for (i, solver) in solvers.iter().enumerate() {
        let at = path.child("solvers").index(i);
        let mut types = 0;
        if set(solver, &["http01"]) {
            types += 1;
            validate_http01(&solver["http01"], &at.child("http01"), el);
        }
        if set(solver, &["dns01"]) {
            if types > 0 {
                el.push(FieldError::forbidden(
                    at.clone(),
                    "may not specify more than one solver type in a single solver",
                ));
            } else {
                types += 1;
                validate_dns01(&solver["dns01"], &at.child("dns01"), el);
            }
        }
        if types == 0 {
            el.push(FieldError::required(at.clone(), "no solver type configured"));
        }
        let wait = text(solver, &["waitInsteadOfSelfCheck"]);
        if let Ok(duration) = GoDuration::parse(wait)
            && duration.0 < 0
        {
            el.push(FieldError::invalid(
                at.child("waitInsteadOfSelfCheck"),
                BadValue::Json(Value::from(duration.0)),
                "waitInsteadOfSelfCheck must not be negative",
            ));
        }
    }
}

/// A Service type an HTTP01 solver may create, as upstream checks it.
fn validate_service_type(solver: &Value, path: &Path, el: &mut Vec<FieldError>) {
    let service_type = text(solver, &["serviceType"]);
    if !matches!(service_type, "" | "ClusterIP" | "NodePort") {
        el.push(FieldError::invalid(
            path.child("serviceType"),
            BadValue::Json(Value::from(service_type)),
            "must be empty, \"ClusterIP\" or \"NodePort\"",
        ));
    }
}

fn validate_http01(http01: &Value, path: &Path, el: &mut Vec<FieldError>) {
    let mut defined = 0;
    if set(http01, &["ingress"]) {
        defined += 1;
        let ingress = &http01["ingress"];
        let at = path.child("ingress");
        let class_name = ingress.get("ingressClassName").and_then(Value::as_str);
        let named =
            [set(ingress, &["class"]), class_name.is_some(), !text(ingress, &["name"]).is_empty()];
        if named.iter().filter(|n| **n).count() > 1 {
            el.push(FieldError::forbidden(
                at.clone(),
                "only one of 'ingressClassName', 'name' or 'class' should be specified",
            ));
        }
        if let Some(class_name) = class_name {
            let errors = crate::certificate::dns1123_subdomain_errors(class_name);
            if !errors.is_empty() {
                el.push(FieldError::invalid(
                    at.child("ingressClassName"),
                    BadValue::Str(class_name.to_owned()),
                    format!("must be a valid IngressClass name: {}", errors.join(", ")),
                ));
            }
        }
        validate_service_type(ingress, &at, el);
    }
    if set(http01, &["gatewayHTTPRoute"]) {
        defined += 1;
        // Upstream's path says `gateway`, not `gatewayHTTPRoute`.
        let at = path.child("gateway");
        let gateway = &http01["gatewayHTTPRoute"];
        validate_service_type(gateway, &at, el);
        let parents = gateway.get("parentRefs").and_then(Value::as_array);
        for (i, parent) in parents.into_iter().flatten().enumerate() {
            let name = text(parent, &["name"]);
            let kind = set(parent, &["kind"]);
            let at = at.child("parentRefs").index(i);
            if kind && name.is_empty() {
                el.push(FieldError::required(
                    at.child("name"),
                    "name is required when kind is specified",
                ));
                break;
            }
            if !name.is_empty() && !kind {
                el.push(FieldError::required(
                    at.child("kind"),
                    "kind is required when name is specified",
                ));
                break;
            }
        }
    }
    match defined {
        0 => el.push(FieldError::required(path.clone(), "no HTTP01 solver type configured")),
        1 => {}
        _ => el.push(FieldError::required(
            path.clone(),
            "only 1 HTTP01 solver type may be configured",
        )),
    }
}

/// The DNS01 providers in upstream's order, and whether upstream checks that no provider
/// came before (it does not for `akamai`, the first, and `acmeDNS`).
const DNS01_PROVIDERS: [(&str, bool); 9] = [
    ("akamai", false),
    ("azureDNS", true),
    ("cloudDNS", true),
    ("cloudflare", true),
    ("route53", true),
    ("acmeDNS", false),
    ("digitalocean", true),
    ("rfc2136", true),
    ("webhook", true),
];

fn validate_dns01(dns01: &Value, path: &Path, el: &mut Vec<FieldError>) {
    let strategy = text(dns01, &["cnameStrategy"]);
    if !matches!(strategy, "" | "None" | "Follow") {
        el.push(FieldError::invalid(
            path.child("cnameStrategy"),
            BadValue::Json(Value::from(strategy)),
            "must be one of \"None\" or \"Follow\"",
        ));
    }
    let mut providers = 0;
    for (name, exclusive) in DNS01_PROVIDERS {
        if !set(dns01, &[name]) {
            continue;
        }
        if exclusive && providers > 0 {
            el.push(FieldError::forbidden(
                path.child(name),
                "may not specify more than one provider type",
            ));
            continue;
        }
        providers += 1;
        if name == "webhook" && text(dns01, &["webhook", "solverName"]).is_empty() {
            el.push(FieldError::required(
                path.child("webhook").child("solverName"),
                "solver name must be specified",
            ));
        }
    }
    if providers == 0 {
        el.push(FieldError::required(path.clone(), "no DNS01 provider configured"));
    }
}

fn validate_vault(vault: &Value, path: &Path, el: &mut Vec<FieldError>) {
    if text(vault, &["server"]).is_empty() {
        el.push(FieldError::required(path.child("server"), ""));
    }
    let vault_path = text(vault, &["path"]);
    if vault_path.is_empty() {
        el.push(FieldError::required(path.child("path"), ""));
    } else if contains_dot_dot_segment(vault_path) {
        el.push(FieldError::invalid(
            path.child("path"),
            BadValue::Str(vault_path.to_owned()),
            "must not contain '..' path segments",
        ));
    }
    let snip = || BadValue::Str("<snip>".to_owned());
    if !text(vault, &["caBundle"]).is_empty() && set(vault, &["caBundleSecretRef"]) {
        el.push(FieldError::invalid(
            path.child("caBundle"),
            snip(),
            "specified caBundle and caBundleSecretRef cannot be used together",
        ));
        el.push(FieldError::invalid(
            path.child("caBundleSecretRef"),
            BadValue::Str(text(vault, &["caBundleSecretRef", "name"]).to_owned()),
            "specified caBundleSecretRef and caBundle cannot be used together",
        ));
    }
    match (set(vault, &["clientCertSecretRef"]), set(vault, &["clientKeySecretRef"])) {
        (true, false) => el.push(FieldError::invalid(
            path.child("clientKeySecretRef"),
            snip(),
            "clientKeySecretRef must be provided when defining the clientCertSecretRef",
        )),
        (false, true) => el.push(FieldError::invalid(
            path.child("clientCertSecretRef"),
            snip(),
            "clientCertSecretRef must be provided when defining the clientKeySecretRef",
        )),
        _ => {}
    }

    let auth = vault.get("auth").unwrap_or(&Value::Null);
    let at = path.child("auth");
    let dot_dot = |json: &[&str], field: Path, el: &mut Vec<FieldError>| {
        let value = text(auth, json);
        if contains_dot_dot_segment(value) {
            el.push(FieldError::invalid(
                field,
                BadValue::Str(value.to_owned()),
                "must not contain '..' path segments",
            ));
        }
    };
    let mut methods = 0;
    if set(auth, &["tokenSecretRef"]) {
        methods += 1;
    }
    if set(auth, &["appRole"]) {
        let app_role = at.child("appRole");
        if text(auth, &["appRole", "roleId"]).is_empty() {
            el.push(FieldError::required(app_role.child("roleId"), ""));
        }
        if text(auth, &["appRole", "secretRef", "name"]).is_empty() {
            el.push(FieldError::required(app_role.child("secretRef").child("name"), ""));
        }
        dot_dot(&["appRole", "path"], app_role.child("path"), el);
        methods += 1;
    }
    // Upstream's paths name the internal field `path`; the JSON field is `mountPath`.
    if set(auth, &["clientCertificate"]) {
        dot_dot(
            &["clientCertificate", "mountPath"],
            at.child("clientCertificate").child("path"),
            el,
        );
        methods += 1;
    }
    if set(auth, &["kubernetes"]) {
        methods += 1;
        let kubernetes = at.child("kubernetes");
        if text(auth, &["kubernetes", "role"]).is_empty() {
            el.push(FieldError::required(kubernetes.child("role"), ""));
        }
        dot_dot(&["kubernetes", "mountPath"], kubernetes.child("path"), el);
        let mut references = 0;
        if !text(auth, &["kubernetes", "secretRef", "name"]).is_empty() {
            references += 1;
        }
        if set(auth, &["kubernetes", "serviceAccountRef"]) {
            references += 1;
            if text(auth, &["kubernetes", "serviceAccountRef", "name"]).is_empty() {
                el.push(FieldError::required(
                    kubernetes.child("serviceAccountRef").child("name"),
                    "",
                ));
            }
        }
        let one_of = "please supply one of: secretRef, serviceAccountRef";
        match references {
            0 => el.push(FieldError::required(kubernetes, one_of)),
            1 => {}
            _ => el.push(FieldError::forbidden(kubernetes, one_of)),
        }
    }
    if set(auth, &["aws"]) {
        methods += 1;
        let aws = at.child("aws");
        if text(auth, &["aws", "role"]).is_empty() {
            el.push(FieldError::required(aws.child("role"), ""));
        }
        dot_dot(&["aws", "mountPath"], aws.child("mountPath"), el);
        if set(auth, &["aws", "serviceAccountRef"]) {
            if text(auth, &["aws", "serviceAccountRef", "name"]).is_empty() {
                el.push(FieldError::required(aws.child("serviceAccountRef").child("name"), ""));
            }
            if text(auth, &["aws", "iamRoleArn"]).is_empty() {
                el.push(FieldError::required(
                    aws.child("iamRoleArn"),
                    "iamRoleArn is required when using serviceAccountRef for IRSA",
                ));
            }
        }
    }
    if methods == 0 {
        el.push(FieldError::required(
            at,
            "please supply one of: appRole, kubernetes, tokenSecretRef, clientCertificate, aws",
        ));
    }
}

fn validate_venafi(venafi: &Value, path: &Path, el: &mut Vec<FieldError>) {
    if text(venafi, &["zone"]).is_empty() {
        el.push(FieldError::required(path.child("zone"), ""));
    }
    let mut kinds = 0;
    if set(venafi, &["tpp"]) {
        kinds += 1;
        let at = path.child("tpp");
        if text(venafi, &["tpp", "url"]).is_empty() {
            el.push(FieldError::required(at.child("url"), ""));
        }
        if !text(venafi, &["tpp", "caBundle"]).is_empty()
            && set(venafi, &["tpp", "caBundleSecretRef"])
        {
            el.push(FieldError::forbidden(
                at,
                "may not specify more than one of caBundle/caBundleSecretRef as TPP CA Bundle",
            ));
        }
    }
    if set(venafi, &["cloud"]) {
        kinds += 1;
    }
    if set(venafi, &["ngts"]) {
        kinds += 1;
        let at = path.child("ngts");
        if text(venafi, &["ngts", "tsgID"]).is_empty() {
            el.push(FieldError::required(at.child("tsgID"), ""));
        }
        if text(venafi, &["ngts", "credentialsRef", "name"]).is_empty() {
            el.push(FieldError::required(at.child("credentialsRef").child("name"), ""));
        }
    }
    match kinds {
        0 => el.push(FieldError::required(path.clone(), "please supply one of: tpp, cloud, ngts")),
        1 => {}
        _ => el.push(FieldError::forbidden(path.clone(), "please supply one of: tpp, cloud, ngts")),
    }
}

#[cfg(test)]
#[path = "issuer_tests.rs"]
mod tests;
