//! Certificate validation on CREATE and UPDATE, as cert-manager's webhook checks a
//! `Certificate`'s spec (upstream `internal/apis/certmanager/validation/certificate.go`),
//! with upstream's field paths and texts. UPDATE checks the new object alone, as upstream.
//!
//! Values are rendered as the apimachinery cert-manager builds with (0.36) prints them:
//! strings with `%q`, `int32`s and bools plain, everything else as its JSON (`time.Duration`s
//! as nanoseconds, named string types such as `PrivateKeyAlgorithm` quoted by JSON, internal
//! structs with Go's field names).
//!
//! Not checked here (documented in docs/webhook.md): whether `renewal.windows[].timezone`
//! names a known time zone (that needs the time zone database), and go-ldap's exact parse
//! errors for `literalSubject` (a malformed one is refused with certgate's own text).

use certgate_api::cert_manager::{
    CertificatePrivateKey, CertificateSpec, NameConstraintItem, NameConstraints, X509Subject,
};
use certgate_api::field::{BadValue, FieldError, Path};
use certgate_api::gofmt::{self, GoDuration};
use serde_json::Value;

use crate::{cron, email, issuer_ref, meta, usages};

/// cert-manager's `MinimumCertificateDuration`: one hour.
const MINIMUM_DURATION: GoDuration = GoDuration(3_600 * NANOS_PER_SECOND);
/// cert-manager's `MinimumRenewBefore`: five minutes.
const MINIMUM_RENEW_BEFORE: GoDuration = GoDuration(300 * NANOS_PER_SECOND);
/// cert-manager's `DefaultCertificateDuration`: 90 days.
const DEFAULT_DURATION: GoDuration = GoDuration(2_160 * 3_600 * NANOS_PER_SECOND);
const NANOS_PER_SECOND: i64 = 1_000_000_000;
/// pki's `MinRSAKeySize` and `MaxRSAKeySize`.
const RSA_SIZES: (i64, i64) = (2048, 8192);
/// The longest common name upstream accepts, in bytes.
const MAX_COMMON_NAME: usize = 64;
/// `NameIsDNSSubdomain`'s length bound.
const MAX_SUBDOMAIN: usize = 253;
const SUBDOMAIN_MESSAGE: &str = "a lowercase RFC 1123 subdomain must consist of lower case \
    alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character \
    (e.g. 'example.com', regex used for validation is \
    '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/// The signature algorithms each key algorithm allows, in upstream's order.
fn allowed_signature_algorithms(key_algorithm: &str) -> Option<&'static [&'static str]> {
    Some(match key_algorithm {
        "RSA" => &["SHA256WithRSA", "SHA384WithRSA", "SHA512WithRSA"],
        "ECDSA" => &["ECDSAWithSHA256", "ECDSAWithSHA384", "ECDSAWithSHA512"],
        "Ed25519" => &["PureEd25519"],
        _ => return None,
    })
}

/// Every error upstream's `ValidateCertificateSpec` reports for `spec`, in its order.
pub fn validate(spec: &CertificateSpec) -> Vec<FieldError> {
    let path = Path::new("spec");
    let mut el = Vec::new();

    let secret_path = path.child("secretName");
    if spec.secret_name.is_empty() {
        el.push(FieldError::required(secret_path, "must be specified"));
    } else {
        for message in dns1123_subdomain_errors(&spec.secret_name) {
            el.push(FieldError::invalid(
                secret_path.clone(),
                BadValue::Str(spec.secret_name.clone()),
                message,
            ));
        }
    }

    el.extend(issuer_ref::validate(&spec.issuer_ref, &path));

    let mut common_name = spec.common_name.clone().unwrap_or_default();
    if let Some(literal) = spec.literal_subject.as_deref().filter(|l| !l.is_empty()) {
        validate_literal_subject(spec, literal, &path, &mut common_name, &mut el);
    }

    let none = |list: &Option<Vec<_>>| list.as_ref().is_none_or(Vec::is_empty);
    if common_name.is_empty()
        && none(&spec.dns_names)
        && none(&spec.uris)
        && none(&spec.email_addresses)
        && none(&spec.ip_addresses)
        && spec.other_names.as_ref().is_none_or(Vec::is_empty)
    {
        el.push(FieldError::invalid(
            path.clone(),
            BadValue::Str(String::new()),
            "at least one of commonName (from the commonName field or from a literalSubject), \
             dnsNames, emailSANs, ipAddresses, otherNames, or uriSANs must be set",
        ));
    }
    if common_name.len() > MAX_COMMON_NAME {
        el.push(FieldError::too_long(path.child("commonName"), Some(MAX_COMMON_NAME)));
    }

    for (i, ip) in spec.ip_addresses.iter().flatten().enumerate() {
        if ip.parse::<std::net::IpAddr>().is_err() {
            let at = path.child("ipAddresses").index(i);
            el.push(FieldError::invalid(at, BadValue::Str(ip.clone()), "invalid IP address"));
        }
    }
    for (i, address) in spec.email_addresses.iter().flatten().enumerate() {
        if let Some(reason) = email::check(address) {
            let at = path.child("emailAddresses").index(i);
            let detail = format!("invalid email address: {reason}");
            el.push(FieldError::invalid(at, BadValue::Str(address.clone()), detail));
        }
    }
    for (i, other) in spec.other_names.iter().flatten().enumerate() {
        let at = path.child("otherNames").index(i);
        let oid = other.oid.as_deref().unwrap_or_default();
        if oid.is_empty() {
            el.push(FieldError::required(at.child("oid"), "must be specified"));
        }
        if !is_object_identifier(oid) {
            let value = BadValue::Str(oid.to_owned());
            el.push(FieldError::invalid(at.child("oid"), value, "invalid oid syntax"));
        }
        // A Rust string is always valid UTF-8; only emptiness can fail.
        if other.utf8_value.as_deref().unwrap_or_default().is_empty() {
            el.push(FieldError::required(
                at.child("utf8Value"),
                "must be set to a valid non-empty UTF8 string",
            ));
        }
    }

    if let Some(key) = &spec.private_key {
        validate_private_key(key, &path, &mut el);
    }

    if let Some(signature) = spec.signature_algorithm.as_deref().filter(|s| !s.is_empty()) {
        let key_algorithm = spec
            .private_key
            .as_ref()
            .and_then(|k| k.algorithm.as_deref())
            .filter(|a| !a.is_empty())
            .unwrap_or("RSA");
        if let Some(allowed) = allowed_signature_algorithms(key_algorithm)
            && !allowed.contains(&signature)
        {
            el.push(FieldError::invalid(
                path.child("signatureAlgorithm"),
                named(signature),
                format!(
                    "for key algorithm {key_algorithm} the allowed signature algorithms are [{}]",
                    allowed.join(" ")
                ),
            ));
        }
    }

    if spec.duration.is_some() || spec.renew_before.is_some() {
        validate_durations(spec, &path, &mut el);
    }

    for (i, usage) in spec.usages.iter().flatten().enumerate() {
        if usages::requested(std::slice::from_ref(usage), false).is_err() {
            let at = path.child("usages").index(i);
            el.push(FieldError::invalid(at, named(usage), "unknown keyusage"));
        }
    }

    if let Some(limit) = spec.revision_history_limit
        && limit < 1
    {
        el.push(FieldError::invalid(
            path.child("revisionHistoryLimit"),
            BadValue::Int(i64::from(limit)),
            "must not be less than 1",
        ));
    }

    if let Some(template) = &spec.secret_template {
        let at = path.child("secretTemplate");
        if let Some(labels) = template.labels.as_ref() {
            el.extend(meta::validate_labels(labels, &at.child("labels")));
        }
        if let Some(annotations) = template.annotations.as_ref().filter(|a| !a.is_empty()) {
            let at = at.child("annotations");
            for key in annotations.keys() {
                if key.starts_with("cert-manager.io/")
                    && key != "cert-manager.io/allow-direct-injection"
                {
                    el.push(FieldError::invalid(
                        at.clone(),
                        BadValue::Str(key.clone()),
                        "cert-manager.io/* annotations are not allowed",
                    ));
                }
            }
            el.extend(meta::validate_annotations(annotations, &at));
        }
    }

    if let Some(constraints) = &spec.name_constraints {
        let at = path.child("nameConstraints");
        let value = || BadValue::GoSyntax(go_name_constraints(constraints));
        if !spec.is_ca() {
            el.push(FieldError::invalid(
                at.clone(),
                value(),
                "isCA should be true when nameConstraints is set",
            ));
        }
        if constraints.permitted.is_none() && constraints.excluded.is_none() {
            el.push(FieldError::invalid(
                at.clone(),
                value(),
                "either permitted or excluded must be set",
            ));
        }
        validate_ip_ranges(constraints.permitted.as_ref(), &at.child("permitted"), &mut el);
        validate_ip_ranges(constraints.excluded.as_ref(), &at.child("excluded"), &mut el);
    }

    let mut formats = std::collections::HashSet::new();
    for format in spec.additional_output_formats.iter().flatten() {
        if !formats.insert(format.type_.as_str()) {
            el.push(FieldError::duplicate(
                path.child("additionalOutputFormats").key("type"),
                BadValue::Str(format.type_.clone()),
            ));
        }
    }

    if let Some(keystores) = &spec.keystores {
        let at = path.child("keystores");
        if let Some(jks) = &keystores.jks {
            let secret = jks.password_secret_ref.as_ref().is_some_and(|r| !r.name.is_empty());
            validate_keystore(jks.password.as_deref(), secret, "JKS", &at.child("jks"), &mut el);
        }
        if let Some(p12) = &keystores.pkcs12 {
            let secret = p12.password_secret_ref.as_ref().is_some_and(|r| !r.name.is_empty());
            let password = p12.password.as_deref();
            validate_keystore(password, secret, "PKCS#12", &at.child("pkcs12"), &mut el);
        }
    }

    if let Some(renewal) = &spec.renewal {
        let at = path.child("renewal");
        let windows = renewal.windows.as_deref().unwrap_or_default();
        let policy = renewal.policy.as_deref().unwrap_or_default();
        match policy {
            "RenewBefore" => {}
            "Disabled" => {
                if !windows.is_empty() {
                    el.push(FieldError::forbidden(
                        at.child("windows"),
                        "windows cannot be set when `renewal.policy` is set to Disabled",
                    ));
                }
            }
            other => el.push(FieldError::not_supported(
                at.child("policy"),
                named(other),
                &["Disabled", "RenewBefore"],
            )),
        }
        // Upstream checks the windows unless the policy is `Disabled`. A window's
        // `windowDuration` is required by the schema; its `timezone` is not looked up.
        if policy != "Disabled" {
            for (i, window) in windows.iter().enumerate() {
                let timezone = window.timezone.as_deref().unwrap_or_default();
                if let Some(detail) = cron::check(&window.cron, timezone) {
                    el.push(FieldError::invalid(
                        at.child("windows").index(i).child("cron"),
                        BadValue::Str(window.cron.clone()),
                        detail,
                    ));
                }
            }
        }
    }

    el
}

/// `literalSubject` excludes `commonName` and `subject`, must parse, and names only known
/// attribute types; its CN, if any, is the common name the later checks use.
fn validate_literal_subject(
    spec: &CertificateSpec,
    literal: &str,
    path: &Path,
    common_name: &mut String,
    el: &mut Vec<FieldError>,
) {
    if !common_name.is_empty() {
        el.push(FieldError::invalid(
            path.child("commonName"),
            BadValue::Str(common_name.clone()),
            "When providing a `LiteralSubject` no `commonName` may be provided.",
        ));
    }
    if let Some(subject) = spec.subject.as_ref().filter(|s| has_subject_fields(s)) {
        el.push(FieldError::invalid(
            path.child("subject"),
            BadValue::GoSyntax(go_subject(subject)),
            "When providing a `LiteralSubject` no `Subject` properties may be provided.",
        ));
    }
    let at = path.child("literalSubject");
    // certgate's bound: each error about the subject repeats it whole.
    if literal.len() > MAX_LITERAL_SUBJECT_BYTES {
        el.push(FieldError::too_long(at, Some(MAX_LITERAL_SUBJECT_BYTES)));
        return;
    }
    let attributes = match parse_dn(literal) {
        Ok(attributes) => attributes,
        Err(reason) => {
            el.push(FieldError::invalid(at, BadValue::Str(literal.to_owned()), reason));
            return;
        }
    };
    // Upstream walks the RDNs last to first (the string is written in reverse order).
    for (kind, value) in attributes.iter().rev() {
        if kind == "CN" {
            common_name.clone_from(value);
        }
    }
    for (kind, value) in attributes.iter().rev() {
        if !KNOWN_ATTRIBUTE_TYPES.contains(&kind.as_str()) && !is_object_identifier(kind) {
            el.push(FieldError::invalid(
                at.clone(),
                BadValue::Str(literal.to_owned()),
                format!("Literal subject contains unrecognized key with value [{value}]"),
            ));
        }
    }
}

/// The attribute type names cert-manager maps to OIDs (others must be dotted OIDs).
const KNOWN_ATTRIBUTE_TYPES: [&str; 10] =
    ["C", "O", "OU", "CN", "SERIALNUMBER", "L", "ST", "STREET", "DC", "UID"];

/// The most attributes a literal subject may hold before it is refused unread.
const MAX_DN_ATTRIBUTES: usize = 256;
/// The longest literal subject read (certgate's bound; X.509 subjects are far shorter).
pub(crate) const MAX_LITERAL_SUBJECT_BYTES: usize = 16 * 1024;

/// An RFC 4514 string's `type=value` pairs in written order, values unescaped.
fn parse_dn(dn: &str) -> Result<Vec<(String, String)>, String> {
    let mut attributes = Vec::new();
    let mut chars = dn.chars().peekable();
    loop {
        let mut kind = String::new();
        loop {
            match chars.next() {
                Some('=') => break,
                Some(c) if c == ',' || c == '+' => {
                    return Err(format!("incomplete type, value pair in {dn:?}"));
                }
                Some(c) => kind.push(c),
                None if kind.trim().is_empty() && attributes.is_empty() => {
                    return Err("DN is empty".into());
                }
                None => return Err("DN ended with incomplete type, value pair".into()),
            }
        }
        let kind = kind.trim().to_owned();
        if kind.is_empty() {
            return Err(format!("incomplete type, value pair in {dn:?}"));
        }
        let mut value = String::new();
        let mut more = false;
        loop {
            match chars.next() {
                None => break,
                Some(',' | '+' | ';') => {
                    more = true;
                    break;
                }
                Some('\\') => match chars.next() {
                    Some(c) if c.is_ascii_hexdigit() => match chars.next() {
                        Some(d) if d.is_ascii_hexdigit() => {
                            let byte = u8::from_str_radix(&format!("{c}{d}"), 16).unwrap_or(0);
                            value.push(char::from(byte));
                        }
                        _ => return Err("failed to decode escaped character".into()),
                    },
                    Some(c) => value.push(c),
                    None => return Err("got corrupted escaped character".into()),
                },
                Some(c) => value.push(c),
            }
        }
        attributes.push((kind, value.trim().to_owned()));
        if attributes.len() > MAX_DN_ATTRIBUTES {
            return Err(format!("more than {MAX_DN_ATTRIBUTES} attributes"));
        }
        if !more {
            return Ok(attributes);
        }
    }
}

fn has_subject_fields(s: &X509Subject) -> bool {
    let any = |l: &Option<Vec<String>>| l.as_ref().is_some_and(|l| !l.is_empty());
    any(&s.organizations)
        || any(&s.countries)
        || any(&s.organizational_units)
        || any(&s.localities)
        || any(&s.provinces)
        || any(&s.street_addresses)
        || any(&s.postal_codes)
        || s.serial_number.as_deref().is_some_and(|n| !n.is_empty())
}

/// A value of one of upstream's named string types (`PrivateKeyAlgorithm`, `KeyUsage`, ...):
/// apimachinery prints those as JSON, not with `%q`.
fn named(value: &str) -> BadValue {
    BadValue::Json(Value::String(value.to_owned()))
}

/// A Go `[]string` as `encoding/json` writes it: `null` when nil.
fn go_list(list: Option<&Vec<String>>) -> Value {
    list.map_or(Value::Null, |items| Value::from(items.clone()))
}

/// A Go struct as `encoding/json` writes it: its fields in declaration order (a JSON object
/// value would be written with sorted keys, as Go writes maps).
fn go_struct(fields: &[(&str, Value)]) -> String {
    let fields: Vec<String> =
        fields.iter().map(|(name, value)| format!("\"{name}\":{}", gofmt::json(value))).collect();
    format!("{{{}}}", fields.join(","))
}

/// The subject as apimachinery prints cert-manager's internal `X509Subject`: its JSON,
/// which has Go's field names (the internal type has no JSON tags).
fn go_subject(s: &X509Subject) -> String {
    go_struct(&[
        ("Organizations", go_list(s.organizations.as_ref())),
        ("Countries", go_list(s.countries.as_ref())),
        ("OrganizationalUnits", go_list(s.organizational_units.as_ref())),
        ("Localities", go_list(s.localities.as_ref())),
        ("Provinces", go_list(s.provinces.as_ref())),
        ("StreetAddresses", go_list(s.street_addresses.as_ref())),
        ("PostalCodes", go_list(s.postal_codes.as_ref())),
        ("SerialNumber", Value::from(s.serial_number.as_deref().unwrap_or_default())),
    ])
}

/// `nameConstraints` as apimachinery prints the internal `NameConstraints` (see
/// [`go_subject`]).
fn go_name_constraints(c: &NameConstraints) -> String {
    let item = |i: Option<&NameConstraintItem>| {
        i.map_or_else(
            || "null".to_owned(),
            |i| {
                go_struct(&[
                    ("DNSDomains", go_list(i.dns_domains.as_ref())),
                    ("IPRanges", go_list(i.ip_ranges.as_ref())),
                    ("EmailAddresses", go_list(i.email_addresses.as_ref())),
                    ("URIDomains", go_list(i.uri_domains.as_ref())),
                ])
            },
        )
    };
    format!(
        "{{\"Critical\":{},\"Permitted\":{},\"Excluded\":{}}}",
        c.critical.unwrap_or(false),
        item(c.permitted.as_ref()),
        item(c.excluded.as_ref())
    )
}

/// cert-manager's `ParseObjectIdentifier`: dot-separated `strconv.Atoi` integers.
fn is_object_identifier(oid: &str) -> bool {
    !oid.is_empty() && oid.split('.').all(|part| part.parse::<i64>().is_ok())
}

fn validate_private_key(key: &CertificatePrivateKey, path: &Path, el: &mut Vec<FieldError>) {
    let size = key.size.unwrap_or(0);
    let at = path.child("privateKey");
    match key.algorithm.as_deref().unwrap_or_default() {
        "" | "RSA" => {
            if size > 0 && (size < RSA_SIZES.0 || size > RSA_SIZES.1) {
                el.push(FieldError::invalid(
                    at.child("size"),
                    BadValue::Int(size),
                    format!(
                        "must be between {} and {} for rsa keyAlgorithm",
                        RSA_SIZES.0, RSA_SIZES.1
                    ),
                ));
            }
        }
        "ECDSA" => {
            if size > 0 && ![256, 384, 521].contains(&size) {
                el.push(FieldError::not_supported(
                    at.child("size"),
                    BadValue::Int(size),
                    &["256", "384", "521"],
                ));
            }
        }
        "Ed25519" => {}
        other => el.push(FieldError::invalid(
            at.child("algorithm"),
            named(other),
            "must be either empty or one of rsa, ecdsa or ed25519",
        )),
    }
}

/// A Go duration field, or the error saying it does not parse (upstream cannot decode such
/// an object; certgate names the field).
fn parse_duration(
    text: Option<&str>,
    at: impl FnOnce() -> Path,
    el: &mut Vec<FieldError>,
) -> Result<Option<GoDuration>, ()> {
    match text.map(GoDuration::parse).transpose() {
        Ok(duration) => Ok(duration),
        Err(err) => {
            let value = BadValue::Str(text.unwrap_or_default().to_owned());
            el.push(FieldError::invalid(at(), value, err.to_string()));
            Err(())
        }
    }
}

/// Upstream's `ValidateDuration`: called when `duration` or `renewBefore` is set.
fn validate_durations(spec: &CertificateSpec, path: &Path, el: &mut Vec<FieldError>) {
    let duration = parse_duration(spec.duration.as_deref(), || path.child("duration"), el);
    let renew_before =
        parse_duration(spec.renew_before.as_deref(), || path.child("renewBefore"), el);
    let (Ok(duration), Ok(renew_before)) = (duration, renew_before) else { return };
    let duration = duration.unwrap_or(DEFAULT_DURATION);
    // A `time.Duration` value prints as its JSON: nanoseconds. Details print it with `%s`.
    let shown = |d: GoDuration| BadValue::Json(Value::from(d.0));

    if duration < MINIMUM_DURATION {
        el.push(FieldError::invalid(
            path.child("duration"),
            shown(duration),
            format!("certificate duration must be greater than {MINIMUM_DURATION}"),
        ));
    }
    let percentage = spec.renew_before_percentage;
    if let (Some(before), Some(pct)) = (renew_before, percentage) {
        let detail = "renewBefore and renewBeforePercentage are mutually exclusive and cannot \
                      both be set";
        el.push(FieldError::invalid(path.child("renewBefore"), shown(before), detail));
        el.push(FieldError::invalid(
            path.child("renewBeforePercentage"),
            BadValue::Int(i64::from(pct)),
            detail,
        ));
    }
    if let Some(before) = renew_before {
        if before < MINIMUM_RENEW_BEFORE {
            el.push(FieldError::invalid(
                path.child("renewBefore"),
                shown(before),
                format!("certificate renewBefore must be greater than {MINIMUM_RENEW_BEFORE}"),
            ));
        }
        if before >= duration {
            el.push(FieldError::invalid(
                path.child("renewBefore"),
                shown(before),
                format!(
                    "certificate duration {duration} must be greater than renewBefore {before}"
                ),
            ));
        }
    }
    if let Some(pct) = percentage {
        let before = percentage_renew_before(duration, pct);
        let value = || BadValue::Int(i64::from(pct));
        if before < MINIMUM_RENEW_BEFORE {
            el.push(FieldError::invalid(
                path.child("renewBeforePercentage"),
                value(),
                format!(
                    "certificate renewBeforePercentage must result in a renewBefore greater \
                     than {MINIMUM_RENEW_BEFORE}"
                ),
            ));
        }
        if before >= duration {
            el.push(FieldError::invalid(
                path.child("renewBeforePercentage"),
                value(),
                "certificate renewBeforePercentage must result in a renewBefore less than duration",
            ));
        }
    }
}

/// Upstream's `time.Duration(float64(duration) * float64(100-pct) / 100)`. A result out of
/// `int64`'s range (only from a negative percentage) is `math.MinInt64`, what Go's conversion
/// gives on amd64; either way such a percentage is refused.
fn percentage_renew_before(duration: GoDuration, pct: i32) -> GoDuration {
    // Go computes `100-pct` in int32, wrapping.
    let factor = f64::from(100_i32.wrapping_sub(pct));
    #[allow(clippy::cast_precision_loss, reason = "upstream computes in float64")]
    let nanos = duration.0 as f64 * factor / 100.0;
    // 2^63: the first float64 out of int64's range.
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    #[allow(clippy::cast_possible_truncation, reason = "the range is checked first")]
    let nanos =
        if nanos.is_finite() && (-LIMIT..LIMIT).contains(&nanos) { nanos as i64 } else { i64::MIN };
    GoDuration(nanos)
}

fn validate_ip_ranges(item: Option<&NameConstraintItem>, path: &Path, el: &mut Vec<FieldError>) {
    let Some(item) = item else { return };
    for (i, cidr) in item.ip_ranges.iter().flatten().enumerate() {
        if !is_cidr(cidr) {
            let at = path.child("ipRanges").index(i);
            el.push(FieldError::invalid(at, BadValue::Str(cidr.clone()), "invalid CIDR address"));
        }
    }
}

/// Go's `net.ParseCIDR`: an IP address, `/`, and a decimal prefix length within its bits.
fn is_cidr(cidr: &str) -> bool {
    let Some((ip, prefix)) = cidr.split_once('/') else { return false };
    let Ok(ip) = ip.parse::<std::net::IpAddr>() else { return false };
    let bits = if ip.is_ipv4() { 32 } else { 128 };
    !prefix.is_empty()
        && prefix.len() <= 3
        && prefix.bytes().all(|b| b.is_ascii_digit())
        && prefix.parse::<u32>().is_ok_and(|p| p <= bits)
}

fn validate_keystore(
    password: Option<&str>,
    secret_ref: bool,
    kind: &str,
    path: &Path,
    el: &mut Vec<FieldError>,
) {
    if password.is_some() && secret_ref {
        el.push(FieldError::forbidden(
            path.clone(),
            format!(
                "exactly one of passwordSecretRef and password must be provided for {kind} \
                 keystores; cannot set both"
            ),
        ));
    }
    if password.is_none() && !secret_ref {
        el.push(FieldError::forbidden(
            path.clone(),
            format!(
                "must set exactly one of passwordSecretRef and password must for {kind} keystores"
            ),
        ));
    }
    if password == Some("") {
        el.push(FieldError::forbidden(
            path.child("password"),
            format!("literal password cannot be empty if set on {kind} keystores"),
        ));
    }
}

/// apimachinery's `IsDNS1123Subdomain` messages for `name`.
pub(crate) fn dns1123_subdomain_errors(name: &str) -> Vec<&'static str> {
    let mut errors = Vec::new();
    if name.len() > MAX_SUBDOMAIN {
        errors.push("must be no more than 253 characters");
    }
    let label_ok = |label: &str| {
        let bytes = label.as_bytes();
        let alnum = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
        bytes.first().is_some_and(alnum)
            && bytes.last().is_some_and(alnum)
            && bytes.iter().all(|b| alnum(b) || *b == b'-')
    };
    if !name.split('.').all(label_ok) {
        errors.push(SUBDOMAIN_MESSAGE);
    }
    errors
}

#[cfg(test)]
#[path = "certificate_tests.rs"]
mod tests;
