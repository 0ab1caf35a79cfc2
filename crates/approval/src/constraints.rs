//! The `constraints` evaluator (spec §5): requested duration within `min/maxDuration`, key
//! algorithm and size within `privateKey`. The key is looked at only when `privateKey` is
//! set, so a policy without it never needs the CSR.

use certgate_api::field::{BadValue, FieldError, Path};
use certgate_api::gofmt::GoDuration;
use certgate_api::policy::{Constraints, PrivateKeyAlgorithm};
use certgate_pki::{CsrError, DecodedCsr, KeyAlgorithm};

use crate::findings::{EvaluatorError, Findings, Verdict};
use crate::trace::CheckTrace;

/// DSA is the one key type Go parses that cert-manager does not support.
const OID_DSA: &str = "1.2.840.10040.4.1";

pub(crate) fn evaluate(
    constraints: Option<&Constraints>,
    requested_duration: Option<&str>,
    csr: Result<&DecodedCsr, &CsrError>,
    explain: bool,
) -> Result<(Verdict, Vec<CheckTrace>), EvaluatorError> {
    let Some(constraints) = constraints else {
        return Ok((Verdict::NotDenied, Vec::new()));
    };
    let mut findings = Findings::new(explain);
    let bounded = constraints.max_duration.is_some() || constraints.min_duration.is_some();
    let requested = requested_duration
        .filter(|_| bounded)
        .map(|d| parse_duration(d, "the CertificateRequest's spec.duration"))
        .transpose()?;
    let shown = || requested.map_or_else(|| "nil".to_owned(), |d| d.to_string());

    if let Some(max) = &constraints.max_duration {
        let max = parse_duration(max, "the policy's spec.constraints.maxDuration")?;
        findings.check(
            || "spec.constraints.maxDuration".into(),
            || vec![shown()],
            |errors| {
                if requested.is_none_or(|requested| requested > max) {
                    errors.push(invalid("maxDuration", shown(), max.to_string()));
                }
            },
        );
    }
    if let Some(min) = &constraints.min_duration {
        let min = parse_duration(min, "the policy's spec.constraints.minDuration")?;
        findings.check(
            || "spec.constraints.minDuration".into(),
            || vec![shown()],
            |errors| {
                if requested.is_none_or(|requested| requested < min) {
                    errors.push(invalid("minDuration", shown(), min.to_string()));
                }
            },
        );
    }
    if let Some(key) = &constraints.private_key {
        let csr = csr.map_err(|err| EvaluatorError(err.to_string()))?;
        let algorithm = algorithm_name(&csr.public_key.algorithm)?;
        let size = csr.public_key.size;
        findings.check(
            || "spec.constraints.privateKey".into(),
            || vec![format!("{algorithm} {size}")],
            |errors| {
                if let Some(wanted) = key.algorithm
                    && policy_algorithm_name(wanted) != algorithm
                {
                    errors.push(invalid(
                        "privateKey.algorithm",
                        algorithm.to_owned(),
                        policy_algorithm_name(wanted),
                    ));
                }
                if let Some(max) = key.max_size
                    && max < size
                {
                    errors.push(invalid("privateKey.maxSize", size.to_string(), max.to_string()));
                }
                if let Some(min) = key.min_size
                    && min > size
                {
                    errors.push(invalid("privateKey.minSize", size.to_string(), min.to_string()));
                }
            },
        );
    }
    Ok(findings.finish())
}

/// `Invalid(spec.constraints.<field>, "<value>", detail)`; `field` may be dotted.
fn invalid(field: &str, value: String, detail: impl Into<String>) -> FieldError {
    let path = field.split('.').fold(Path::new("spec").child("constraints"), |p, f| p.child(f));
    FieldError::invalid(path, BadValue::Str(value), detail)
}

/// The Kubernetes API server only stores parseable durations; one that is not (e.g. in a
/// file checked offline) cannot be compared, so the review stops with an error naming it.
fn parse_duration(text: &str, what: &str) -> Result<GoDuration, EvaluatorError> {
    GoDuration::parse(text).map_err(|err| EvaluatorError(format!("cannot compare {what}: {err}")))
}

/// cert-manager's name of the request's key algorithm, or upstream's error for key types
/// it does not know (`%T` of Go's parsed key: `<nil>` when Go could not parse it at all).
fn algorithm_name(algorithm: &KeyAlgorithm) -> Result<&'static str, EvaluatorError> {
    match algorithm {
        KeyAlgorithm::Rsa => Ok("RSA"),
        KeyAlgorithm::Ecdsa => Ok("ECDSA"),
        KeyAlgorithm::Ed25519 => Ok("Ed25519"),
        KeyAlgorithm::Other(oid) => {
            let go_type = if oid == OID_DSA { "*dsa.PublicKey" } else { "<nil>" };
            Err(EvaluatorError(format!("unrecognised public key type {go_type}")))
        }
    }
}

fn policy_algorithm_name(algorithm: PrivateKeyAlgorithm) -> &'static str {
    match algorithm {
        PrivateKeyAlgorithm::Rsa => "RSA",
        PrivateKeyAlgorithm::Ecdsa => "ECDSA",
        PrivateKeyAlgorithm::Ed25519 => "Ed25519",
    }
}

#[cfg(test)]
mod tests;
