//! What an evaluator found: the field errors that make up its Denied message and, when a
//! trace is requested, one [`CheckTrace`] per attribute checked.

use certgate_api::field::{FieldError, aggregate};

use crate::trace::CheckTrace;

/// An evaluator's answer for one policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    NotDenied,
    /// Denied, with the message shown in the review's policy block.
    Denied(String),
}

/// An evaluator that could not finish; aborts the review (upstream returns it unchanged).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct EvaluatorError(pub String);

/// Collects field errors, and per-attribute traces only when asked to (so a review without
/// `--explain` pays nothing for them).
pub(crate) struct Findings {
    errors: Vec<FieldError>,
    checks: Option<Vec<CheckTrace>>,
}

impl Findings {
    pub(crate) fn new(explain: bool) -> Self {
        Findings { errors: Vec::new(), checks: explain.then(Vec::new) }
    }

    /// Runs one attribute check, which appends its errors to the list it is given.
    pub(crate) fn check(
        &mut self,
        attribute: impl FnOnce() -> String,
        values: impl FnOnce() -> Vec<String>,
        run: impl FnOnce(&mut Vec<FieldError>),
    ) {
        let start = self.errors.len();
        run(&mut self.errors);
        if let Some(checks) = &mut self.checks {
            let errors: Vec<String> = self
                .errors
                .get(start..)
                .unwrap_or_default()
                .iter()
                .map(ToString::to_string)
                .collect();
            checks.push(CheckTrace {
                attribute: attribute(),
                values: values(),
                passed: errors.is_empty(),
                errors,
            });
        }
    }

    /// Denied with the aggregate of all errors, or NotDenied; plus the traces.
    pub(crate) fn finish(self) -> (Verdict, Vec<CheckTrace>) {
        let verdict = aggregate(&self.errors).map_or(Verdict::NotDenied, Verdict::Denied);
        (verdict, self.checks.unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use certgate_api::field::{BadValue, Path};

    fn invalid(detail: &str) -> FieldError {
        FieldError::invalid(Path::new("spec"), BadValue::Str("v".into()), detail)
    }

    #[test]
    fn without_explain_no_traces_are_built() {
        let mut findings = Findings::new(false);
        findings.check(
            || unreachable!("attribute name is only built for traces"),
            || unreachable!("values are only built for traces"),
            |errors| errors.push(invalid("bad")),
        );
        let (verdict, checks) = findings.finish();
        assert_eq!(verdict, Verdict::Denied(r#"spec: Invalid value: "v": bad"#.into()));
        assert!(checks.is_empty());
    }

    #[test]
    fn traces_record_each_check_and_only_its_own_errors() {
        let mut findings = Findings::new(true);
        findings.check(|| "first".into(), || vec!["a".into()], |errors| errors.push(invalid("x")));
        findings.check(|| "second".into(), Vec::new, |_| {});
        let (verdict, checks) = findings.finish();
        assert!(matches!(verdict, Verdict::Denied(_)));
        assert_eq!(
            checks,
            vec![
                CheckTrace {
                    attribute: "first".into(),
                    values: vec!["a".into()],
                    passed: false,
                    errors: vec![r#"spec: Invalid value: "v": x"#.into()],
                },
                CheckTrace {
                    attribute: "second".into(),
                    values: vec![],
                    passed: true,
                    errors: vec![]
                },
            ]
        );
    }

    #[test]
    fn no_errors_is_not_denied() {
        let findings = Findings::new(false);
        assert_eq!(findings.finish().0, Verdict::NotDenied);
    }
}
