//! Bounds on the work of one policy admission check (issue #16): how many validation
//! rules a policy may carry and how many bytes they may total (checked before anything
//! is compiled), and a time budget and a cancellation flag checked between rules.
//!
//! CEL compilation is linear in a rule's length and a rule is at most
//! [`certgate_cel::MAX_RULE_BYTES`], so the byte total bounds the work of a review; the
//! time budget is the backstop for a starved machine, and the flag lets a caller whose
//! client went away stop a review nobody waits for.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use certgate_api::field::{BadValue, ErrorType, FieldError, Path};
use certgate_api::policy::{Allowed, ValidationRule};
use certgate_cel::PolicyCel;

/// Most validation rules one policy may carry, over all of its `spec.allowed` fields.
pub const MAX_RULES_PER_POLICY: usize = 128;

/// Most bytes the validation rules of one policy may total (eight rules of the 32 KiB
/// a single rule may have).
pub const MAX_RULE_BYTES_PER_POLICY: usize = 256 * 1024;

/// Time the admission webhook allows for compiling the rules of one policy: over ten times
/// the CPU time of the worst case within the limits above (about 0.4 s), and half the
/// 10 s after which the API server gives up on the policy webhook.
pub const DEFAULT_COMPILE_TIME: Duration = Duration::from_secs(5);

/// What bounds the compilation of one policy's rules besides the fixed limits.
#[derive(Clone, Debug, Default)]
pub struct CompileBudget {
    /// Set by the caller when nobody waits for the answer any more; checked before each
    /// rule is compiled.
    pub cancelled: Option<Arc<AtomicBool>>,
    /// Wall-clock time allowed for compiling all rules; checked before each rule.
    pub time: Option<Duration>,
}

impl CompileBudget {
    /// A budget of `time`, stopped early when `cancelled` is set.
    pub fn new(cancelled: Arc<AtomicBool>, time: Duration) -> Self {
        CompileBudget { cancelled: Some(cancelled), time: Some(time) }
    }
}

/// The review was cancelled (see [`CompileBudget::cancelled`]) before every rule was
/// compiled: there is no verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the policy review was cancelled with {left} validation rules not compiled")]
pub struct Cancelled {
    /// Rules left uncompiled.
    pub left: usize,
}

/// Compiles the rules of one policy within its budget.
pub(crate) struct Compiler<'a> {
    cel: &'a PolicyCel,
    cancelled: Option<&'a AtomicBool>,
    deadline: Option<(Instant, Duration)>,
    /// No rule is compiled: the policy is over a limit, or the budget ran out.
    stopped: bool,
    was_cancelled: bool,
    /// Rules not compiled because the review stopped.
    pub(crate) skipped: usize,
    /// Rules whose worst-case cost estimate is over the evaluation cost limit: admitted,
    /// as upstream admits them, with a warning.
    pub(crate) warnings: Vec<String>,
}

impl<'a> Compiler<'a> {
    pub(crate) fn new(cel: &'a PolicyCel, budget: &'a CompileBudget) -> Self {
        let deadline = budget.time.map(|time| (Instant::now() + time, time));
        Compiler {
            cel,
            cancelled: budget.cancelled.as_deref(),
            deadline,
            stopped: false,
            was_cancelled: false,
            skipped: 0,
            warnings: Vec::new(),
        }
    }

    pub(crate) fn cancelled(&self) -> bool {
        self.was_cancelled
    }

    /// `Invalid(<path>.validations[i], <rule>, <compile error>)` for each rule that does
    /// not compile (compiling also warms the shared cache for evaluation); once the
    /// budget is spent, one `Forbidden` at the first rule not compiled.
    pub(crate) fn compile_all(
        &mut self,
        path: &Path,
        rules: &[ValidationRule],
        errors: &mut Vec<FieldError>,
    ) {
        for (i, rule) in rules.iter().enumerate() {
            if self.stopped || self.out_of_budget(&path.child("validations").index(i), errors) {
                self.skipped += 1;
                continue;
            }
            match self.cel.compile(&rule.rule) {
                Err(err) => errors.push(FieldError::invalid(
                    path.child("validations").index(i),
                    BadValue::Str(rule.rule.clone()),
                    err.to_string(),
                )),
                Ok(program) => {
                    let (max, limit) =
                        (program.cost_estimate().max, certgate_cel::eval::DEFAULT_COST_LIMIT);
                    if max > limit {
                        self.warnings.push(format!(
                            "{}: estimated worst-case cost {max} exceeds the cost limit \
                             {limit}; requests that reach it are denied with \
                             'cost limit exceeded'",
                            path.child("validations").index(i)
                        ));
                    }
                }
            }
        }
    }

    /// Whether to stop before the rule at `path`; the first time the time budget is
    /// found spent, says so at that rule.
    fn out_of_budget(&mut self, path: &Path, errors: &mut Vec<FieldError>) -> bool {
        if self.cancelled.is_some_and(|flag| flag.load(Ordering::Acquire)) {
            self.stopped = true;
            self.was_cancelled = true;
            return true;
        }
        if let Some((deadline, time)) = self.deadline
            && Instant::now() >= deadline
        {
            self.stopped = true;
            errors.push(FieldError::forbidden(
                path.clone(),
                format!(
                    "compiling the validation rules of this policy took more than the {} \
                     allowed per review; this and the following rules were not compiled, \
                     use fewer or shorter rules",
                    seconds(time)
                ),
            ));
            return true;
        }
        false
    }

    /// Refuses to compile anything: the policy is over a limit.
    pub(crate) fn stop(&mut self) {
        self.stopped = true;
    }
}

/// `2s`, `1.5s`, `250ms`: the budget as an operator would write it.
fn seconds(time: Duration) -> String {
    if time.subsec_millis() == 0 && time.as_secs() > 0 {
        format!("{}s", time.as_secs())
    } else if time.as_secs() == 0 {
        format!("{}ms", time.as_millis())
    } else {
        format!("{}s", time.as_secs_f64())
    }
}

/// Every validation rule of `allowed`.
fn all_rules(allowed: &Allowed) -> impl Iterator<Item = &ValidationRule> {
    let subject = allowed.subject.as_ref();
    let slices = [
        allowed.dns_names.as_ref(),
        allowed.ip_addresses.as_ref(),
        allowed.uris.as_ref(),
        allowed.email_addresses.as_ref(),
        subject.and_then(|s| s.organizations.as_ref()),
        subject.and_then(|s| s.countries.as_ref()),
        subject.and_then(|s| s.organizational_units.as_ref()),
        subject.and_then(|s| s.localities.as_ref()),
        subject.and_then(|s| s.provinces.as_ref()),
        subject.and_then(|s| s.street_addresses.as_ref()),
        subject.and_then(|s| s.postal_codes.as_ref()),
    ];
    let strings = [allowed.common_name.as_ref(), subject.and_then(|s| s.serial_number.as_ref())];
    let entries = allowed
        .other_names
        .iter()
        .flatten()
        .chain(subject.and_then(|s| s.other_attributes.as_ref()).into_iter().flatten());
    slices
        .into_iter()
        .flatten()
        .filter_map(|s| s.validations.as_ref())
        .chain(strings.into_iter().flatten().filter_map(|s| s.validations.as_ref()))
        .chain(entries.filter_map(|e| e.validations.as_ref()))
        .flatten()
}

/// The limit errors of `allowed`, at `spec.allowed`: too many rules, too many bytes.
pub(crate) fn check_limits(allowed: &Allowed) -> Vec<FieldError> {
    let (count, bytes) = all_rules(allowed)
        .fold((0usize, 0usize), |(n, b), r| (n + 1, b.saturating_add(r.rule.len())));
    let path = Path::new("spec").child("allowed");
    let mut errors = Vec::new();
    if count > MAX_RULES_PER_POLICY {
        errors.push(FieldError::too_many(path.clone(), count, MAX_RULES_PER_POLICY).with_detail(
            format!(
                "must have at most {MAX_RULES_PER_POLICY} validation rules in one policy; \
                 split the policy"
            ),
        ));
    }
    if bytes > MAX_RULE_BYTES_PER_POLICY {
        // `field.TooLong`: the value (all the rules) is not repeated.
        errors.push(FieldError {
            kind: ErrorType::TooLong,
            path,
            value: None,
            detail: format!(
                "may not be more than {MAX_RULE_BYTES_PER_POLICY} bytes of validation rules \
                 in one policy (these total {bytes}); shorten the rules or split the policy"
            ),
        });
    }
    errors
}
