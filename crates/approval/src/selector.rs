//! The selector predicates (spec §3 steps 2.1 and 2.2): `spec.selector.issuerRef` against
//! the request's issuer, and `spec.selector.namespace` against the request's namespace and
//! that Namespace's labels. A mismatch says which field failed on what value, for the
//! `--explain` trace.

use std::collections::BTreeMap;

use certgate_api::CertificateRequest;
use certgate_api::gofmt::{json, quote};
use certgate_api::policy::Selector;

use crate::NamespaceLookup;
use crate::labels::match_labels_error;
use crate::review::PredicateError;
use crate::trace::SelectorMismatch;
use crate::wildcard;

/// cert-manager's defaults for an issuerRef that leaves kind or group empty.
const DEFAULT_ISSUER_KIND: &str = "Issuer";
const DEFAULT_ISSUER_GROUP: &str = "cert-manager.io";

/// The request's issuerRef with cert-manager's defaults applied.
pub(crate) struct RequestIssuer<'a> {
    pub name: &'a str,
    pub kind: &'a str,
    pub group: &'a str,
    kind_defaulted: bool,
    group_defaulted: bool,
}

impl<'a> RequestIssuer<'a> {
    pub(crate) fn of(cr: &'a CertificateRequest) -> Self {
        let issuer = &cr.spec.issuer_ref;
        let kind = issuer.kind.as_deref().filter(|k| !k.is_empty());
        let group = issuer.group.as_deref().filter(|g| !g.is_empty());
        RequestIssuer {
            name: &issuer.name,
            kind: kind.unwrap_or(DEFAULT_ISSUER_KIND),
            group: group.unwrap_or(DEFAULT_ISSUER_GROUP),
            kind_defaulted: kind.is_none(),
            group_defaulted: group.is_none(),
        }
    }
}

/// `spec.selector.issuerRef`: every set field must wildcard-match; unset fields match.
pub(crate) fn issuer_ref(
    selector: &Selector,
    issuer: &RequestIssuer<'_>,
) -> Result<(), SelectorMismatch> {
    let Some(wanted) = &selector.issuer_ref else {
        return Ok(());
    };
    let fields = [
        ("name", &wanted.name, issuer.name, false),
        ("kind", &wanted.kind, issuer.kind, issuer.kind_defaulted),
        ("group", &wanted.group, issuer.group, issuer.group_defaulted),
    ];
    for (field, pattern, value, defaulted) in fields {
        let Some(pattern) = pattern else { continue };
        if wildcard::matches(pattern, value) {
            continue;
        }
        let field = format!("spec.selector.issuerRef.{field}");
        let default_note = if defaulted {
            " (the request leaves it empty, which cert-manager reads as this default)"
        } else {
            ""
        };
        let message =
            format!("{field}: {} does not match {}{default_note}", quote(pattern), quote(value));
        return Err(SelectorMismatch { field, message });
    }
    Ok(())
}

/// The request Namespace's labels, read at most once per review and only when a policy
/// that got this far has `matchLabels`.
pub(crate) struct NamespaceLabels<'a> {
    lookup: &'a dyn NamespaceLookup,
    namespace: &'a str,
    labels: Option<BTreeMap<String, String>>,
}

impl<'a> NamespaceLabels<'a> {
    pub(crate) fn new(lookup: &'a dyn NamespaceLookup, namespace: &'a str) -> Self {
        NamespaceLabels { lookup, namespace, labels: None }
    }

    fn get(&mut self) -> Result<&BTreeMap<String, String>, PredicateError> {
        if self.labels.is_none() {
            let labels = self.lookup.labels(self.namespace).map_err(|err| {
                PredicateError(format!(
                    "failed to get request's namespace to determine namespace selector: {err}"
                ))
            })?;
            self.labels = Some(labels);
        }
        Ok(self.labels.get_or_insert_default())
    }
}

/// `spec.selector.namespace`: `matchNames` (any pattern) then `matchLabels` (all labels).
pub(crate) fn namespace(
    selector: &Selector,
    namespace: &str,
    labels: &mut NamespaceLabels<'_>,
) -> Result<Result<(), SelectorMismatch>, PredicateError> {
    let Some(wanted) = &selector.namespace else {
        return Ok(Ok(()));
    };
    let names = wanted.match_names.as_deref().unwrap_or_default();
    if !names.is_empty() && !names.iter().any(|pattern| wildcard::matches(pattern, namespace)) {
        let field = "spec.selector.namespace.matchNames".to_owned();
        let message = format!(
            "{field}: none of {} matches {}",
            json(&serde_json::json!(names)),
            quote(namespace)
        );
        return Ok(Err(SelectorMismatch { field, message }));
    }
    let Some(match_labels) = &wanted.match_labels else {
        return Ok(Ok(()));
    };
    // Only a policy the policy webhook refuses can get here with an invalid `matchLabels`
    // (a cluster without the webhook, or `check` files). Upstream would read the Namespace
    // and then fail the whole review with `failed to parse namespace label selector`, over
    // and over, blocking requests other policies would decide. But no Namespace can carry
    // an invalid label (the API server validates them), so such a selector selects no
    // Namespace: the policy is not selected, and the Namespace is not even read for it.
    if let Some(err) = match_labels_error(match_labels) {
        let field = "spec.selector.namespace.matchLabels".to_owned();
        let message = format!(
            "{field}: {} is not a valid label selector, so it selects no Namespace (the policy webhook refuses it): {err}",
            json(&serde_json::json!(match_labels)),
        );
        return Ok(Err(SelectorMismatch { field, message }));
    }
    let have = labels.get()?;
    if match_labels.iter().all(|(key, value)| have.get(key) == Some(value)) {
        return Ok(Ok(()));
    }
    let field = "spec.selector.namespace.matchLabels".to_owned();
    let message = format!(
        "{field}: {} does not match the labels {} of Namespace {}",
        json(&serde_json::json!(match_labels)),
        json(&serde_json::json!(have)),
        quote(namespace)
    );
    Ok(Err(SelectorMismatch { field, message }))
}

#[cfg(test)]
mod tests;
