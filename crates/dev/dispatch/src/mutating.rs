//! The mutating dispatcher: matching webhooks one after the other, each seeing the object as
//! the previous ones patched it, and one reinvocation round for `reinvocationPolicy: IfNeeded`
//! webhooks when a later webhook changed the object (upstream's mutating `Dispatch` with its
//! reinvocation context).

use std::collections::BTreeSet;

use crate::attributes::AdmissionAttributes;
use crate::call::{HookError, Transports, call};
use crate::configurations::{Configurations, Hook, HookId};
use crate::matching::{is_exempt, should_call};
use crate::patch;
use crate::rejection::Rejection;
use crate::warnings::WarningRecorder;

/// Upstream's `webhookReinvokeContext`.
#[derive(Default)]
struct Reinvocation {
    /// IfNeeded webhooks called since the object last changed.
    previously_invoked: BTreeSet<HookId>,
    /// Webhooks to call again in the second round.
    reinvoke: BTreeSet<HookId>,
}

impl Reinvocation {
    /// The object changed: every IfNeeded webhook that ran before must see it again.
    fn object_changed(&mut self) {
        self.reinvoke.append(&mut self.previously_invoked);
    }
}

pub(crate) async fn mutate(
    transports: &Transports,
    configurations: &Configurations,
    attributes: &mut AdmissionAttributes,
) -> Result<Vec<String>, Rejection> {
    if is_exempt(attributes) {
        return Ok(Vec::new());
    }
    let mut warnings = WarningRecorder::default();
    let mut state = Reinvocation::default();
    let changed =
        run_round(transports, configurations, attributes, &mut state, &mut warnings, false).await?;
    // Upstream re-runs the admission chain once when any webhook changed the object; in
    // that round only webhooks due for reinvocation are called.
    if changed {
        run_round(transports, configurations, attributes, &mut state, &mut warnings, true).await?;
    }
    Ok(warnings.into_vec())
}

/// One pass over the mutating webhooks; returns whether any of them changed the object.
async fn run_round(
    transports: &Transports,
    configurations: &Configurations,
    attributes: &mut AdmissionAttributes,
    state: &mut Reinvocation,
    warnings: &mut WarningRecorder,
    reinvoking: bool,
) -> Result<bool, Rejection> {
    let mut any_changed = false;
    for hook in &configurations.mutating {
        if !should_call(hook, attributes).map_err(|r| (*r).with_warnings(warnings.snapshot()))? {
            continue;
        }
        // A webhook skipped in the first round is never called for the first time here.
        if reinvoking && !state.reinvoke.contains(&hook.id) {
            continue;
        }
        let result = invoke(transports, hook, attributes, warnings).await;
        if matches!(result, Ok(true)) {
            any_changed = true;
            state.object_changed();
        }
        if hook.reinvoke_if_needed {
            state.previously_invoked.insert(hook.id);
        }
        if let Err(error) = result
            && let Some(rejection) = error.into_rejection(hook)
        {
            return Err(rejection.with_warnings(warnings.snapshot()));
        }
    }
    Ok(any_changed)
}

/// Calls one webhook and applies its patch; returns whether the object changed.
async fn invoke(
    transports: &Transports,
    hook: &Hook,
    attributes: &mut AdmissionAttributes,
    warnings: &mut WarningRecorder,
) -> Result<bool, HookError> {
    let response = call(transports, hook, attributes, true).await?;
    // Warnings count even when the webhook denies.
    warnings.extend(&response.warnings);
    if !response.allowed {
        return Err(HookError::Rejected(Box::new(Rejection::denied(
            &hook.name,
            response.status.as_ref(),
        ))));
    }
    match patch::apply(&hook.name, &response, attributes)? {
        None => Ok(false),
        Some(patched) => {
            let changed = attributes.object.as_ref() != Some(&patched);
            attributes.object = Some(patched);
            Ok(changed)
        }
    }
}
