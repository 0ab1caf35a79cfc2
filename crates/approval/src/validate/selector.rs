//! `spec.selector` admission checks: at least one selector, and `matchLabels` that
//! Kubernetes can turn into a label selector.

use certgate_api::field::{BadValue, FieldError, Path};
use certgate_api::policy::Selector;

use crate::labels::match_labels_error;

pub(crate) fn validate(selector: &Selector, errors: &mut Vec<FieldError>) {
    let path = Path::new("spec").child("selector");
    if selector.issuer_ref.is_none() && selector.namespace.is_none() {
        errors.push(FieldError::required(
            path.clone(),
            "one of issuerRef or namespace must be defined, hint: `{}` on either matches everything",
        ));
    }
    let match_labels = selector.namespace.as_ref().and_then(|n| n.match_labels.as_ref());
    if let Some(labels) = match_labels.filter(|labels| !labels.is_empty())
        && let Some(err) = match_labels_error(labels)
    {
        errors.push(FieldError::invalid(
            path.child("namespace").child("matchLabels"),
            BadValue::Json(serde_json::json!(labels)),
            err,
        ));
    }
}
