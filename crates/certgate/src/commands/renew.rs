//! `certgate renew`: mark Certificates for manual re-issuance, as `cmctl renew` does — same
//! arguments, flags, checks, messages, output and exit codes, so cmctl scripts work
//! unchanged. Each chosen Certificate gets `Issuing=True` with reason `ManuallyTriggered`
//! through a full update of its `status` subresource; the issuing controllers take it from
//! there (the trigger controller's backoff does not apply to it).
//!
//! A Certificate that is already `Issuing=True` is updated the same way as cmctl updates it:
//! its reason and message become the manual ones and its `lastTransitionTime` is kept, since
//! the status did not change.

use std::io::Write;
use std::process::ExitCode;

use certgate_api::cert_manager::{Certificate, Condition, condition_type};
use certgate_issuance::trigger::{MANUALLY_TRIGGERED_MESSAGE, reasons};
use clap::Args;
use k8s_openapi::api::core::v1::Namespace;
use kube::Resource as _;
use kube::api::{Api, ApiResource, DynamicObject, ListParams, PostParams};

use crate::shared::cmctl::CmctlLogArgs;
use crate::shared::kubeconfig::KubeconfigArgs;
use certgate_clock::{Clock as _, SystemClock};

/// The long help of `certgate renew` (`--help`).
pub const RENEW_LONG_ABOUT: &str = "\
Mark cert-manager Certificates for manual renewal, as `cmctl renew` does: same arguments,
flags, checks, messages, output and exit codes, so scripts written for cmctl work unchanged.

Each Certificate gets the condition Issuing=True, reason ManuallyTriggered, message
\"Certificate re-issuance manually triggered\", written with a full update of its status
subresource (you need `update` on `certificates/status`). The issuing controllers then request
a new certificate at once, whatever the retry backoff says. A Certificate that is already
Issuing keeps its condition's lastTransitionTime; its reason and message become the manual ones.

Choose Certificates by name, with --all, or with a label selector (exactly one of the three).
--all-namespaces works with --all and --selector, not with names (it lists Namespaces, so it
also needs `list` on namespaces).

Examples:
  # Renew the Certificates named 'my-app' and 'vault' in the current context's namespace.
  certgate renew my-app vault

  # Renew all Certificates in the 'kube-system' namespace.
  certgate renew --namespace kube-system --all

  # Renew all Certificates in all namespaces that have the label 'app=my-service'.
  certgate renew --all-namespaces -l app=my-service

Prints `Manually triggered issuance of Certificate <namespace>/<name>` for each one; when none
matches, `No Certificates found in <namespace> namespace.` on standard error (exit 0). Errors
are printed on standard output as kubectl prints them and exit with status 1.";

#[derive(Debug, Args)]
pub struct RenewArgs {
    /// The Certificates' names
    #[arg(value_name = "NAME")]
    pub names: Vec<String>,

    /// Namespace of the Certificates [default: the kubeconfig context's namespace, else
    /// "default"]
    #[arg(short = 'n', long, value_name = "NAMESPACE")]
    pub namespace: Option<String>,

    /// Renew all Certificates in the given Namespace, or all namespaces with --all-namespaces
    /// enabled.
    #[arg(long, value_name = "BOOL", action = clap::ArgAction::Set, default_value_t = false, num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub all: bool,

    /// If present, mark Certificates across namespaces for manual renewal. Namespace in
    /// current context is ignored even if specified with --namespace.
    #[arg(short = 'A', long, value_name = "BOOL", action = clap::ArgAction::Set, default_value_t = false, num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub all_namespaces: bool,

    /// Selector (label query) to filter on, supports '=', '==', and '!='. (e.g. -l
    /// key1=value1,key2=value2)
    #[arg(
        short = 'l',
        long,
        value_name = "SELECTOR",
        default_value = "",
        hide_default_value = true
    )]
    pub selector: String,

    #[command(flatten)]
    pub cluster: KubeconfigArgs,

    #[command(flatten)]
    pub log: CmctlLogArgs,
}

/// Which Certificates to renew.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selection {
    /// These names, read one by one (`NAME...`).
    Names(Vec<String>),
    /// Every Certificate matching the label selector; empty for `--all`.
    Labels(String),
}

/// What went wrong, worded as cmctl (through kubectl's error handler) words it.
#[derive(Debug, thiserror::Error)]
pub enum RenewError {
    /// A usage or client error: `error: <message>`.
    #[error("error: {0}")]
    Usage(String),
    /// The API server refused: `Error from server (<Reason>): <message>`; or could not be
    /// reached (the message of [`crate::shared::unreachable`]).
    #[error("{0}")]
    Server(String),
}

/// Checks the arguments before any API call, in cmctl's order and with its messages.
pub fn validate(args: &RenewArgs) -> Result<Selection, RenewError> {
    let mut given = Vec::new();
    if !args.names.is_empty() {
        given.push(format!("the Certificate resource names {}", go_quoted_list(&args.names)));
    }
    if args.all {
        given.push("the --all flag".to_owned());
    }
    if !args.selector.is_empty() {
        given.push("a label selector".to_owned());
    }
    match given.as_slice() {
        [] => {
            return Err(RenewError::Usage(
                "please either supply one or more Certificate resource names, label selectors, \
                 or use the --all flag to renew all Certificate resources"
                    .to_owned(),
            ));
        }
        [_] => {}
        [first, rest @ ..] => {
            return Err(RenewError::Usage(format!(
                "cannot specify {first} in conjunction with {}",
                rest.join(" and ")
            )));
        }
    }
    if args.all_namespaces && !args.names.is_empty() {
        return Err(RenewError::Usage(
            "cannot specify Certificate names in conjunction with --all-namespaces flag".to_owned(),
        ));
    }
    Ok(if args.names.is_empty() {
        Selection::Labels(args.selector.clone())
    } else {
        Selection::Names(args.names.clone())
    })
}

/// Go's `%q` of a `[]string`: `["a" "b"]`.
fn go_quoted_list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| certgate_api::gofmt::quote(s)).collect();
    format!("[{}]", quoted.join(" "))
}

/// Sets `Issuing=True` (reason `ManuallyTriggered`) among `conditions` as cert-manager's
/// `SetCertificateCondition` does: an existing `Issuing` condition is replaced in place and
/// keeps its `lastTransitionTime` when its status was already `True`; otherwise the time is
/// `now`. `observedGeneration` is the Certificate's `metadata.generation`.
pub fn set_manually_triggered(conditions: &mut Vec<Condition>, generation: Option<i64>, now: &str) {
    let mut condition = Condition {
        type_: condition_type::ISSUING.to_owned(),
        status: "True".to_owned(),
        last_transition_time: Some(now.to_owned()),
        reason: Some(reasons::MANUALLY_TRIGGERED.to_owned()),
        message: Some(MANUALLY_TRIGGERED_MESSAGE.to_owned()),
        observed_generation: generation.filter(|g| *g != 0),
    };
    match conditions.iter_mut().find(|c| c.type_ == condition_type::ISSUING) {
        Some(existing) => {
            if existing.status == condition.status {
                condition.last_transition_time = existing.last_transition_time.take();
            }
            *existing = condition;
        }
        None => conditions.push(condition),
    }
}

/// The line printed for each renewed Certificate.
pub fn triggered_line(namespace: &str, name: &str) -> String {
    format!("Manually triggered issuance of Certificate {namespace}/{name}")
}

/// What is printed on standard error when nothing matched.
pub fn none_found(all_namespaces: bool, namespace: &str) -> String {
    if all_namespaces {
        "No Certificates found".to_owned()
    } else {
        format!("No Certificates found in {namespace} namespace.")
    }
}

/// Runs the command: progress on `out`, "none found" on `err`, and any error on `out` (as
/// cmctl prints it). Returns the exit status.
pub fn run(args: &RenewArgs, out: &mut dyn Write, err: &mut dyn Write) -> ExitCode {
    let result = validate(args).and_then(|selection| {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| RenewError::Usage(format!("cannot start the async runtime: {e}")))?;
        runtime.block_on(renew(args, &selection, out, err))
    });
    let code = match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            let _ = writeln!(out, "{error}");
            ExitCode::FAILURE
        }
    };
    let _ = out.flush().and_then(|()| err.flush());
    code
}

async fn renew(
    args: &RenewArgs,
    selection: &Selection,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), RenewError> {
    let connection = args.cluster.connect().await.map_err(|e| RenewError::Usage(e.to_string()))?;
    let namespace = args.namespace.clone().unwrap_or(connection.default_namespace);
    let client = connection.client;
    let server = connection.server.as_str();
    let kubectl_error = |err| kubectl_error(server, err);
    let namespaces = if args.all_namespaces {
        let api: Api<Namespace> = Api::all(client.clone());
        let list = api.list(&ListParams::default()).await.map_err(kubectl_error)?;
        list.items.into_iter().filter_map(|ns| ns.metadata.name).collect()
    } else {
        vec![namespace.clone()]
    };
    let resource = ApiResource::erase::<Certificate>(&());
    let mut certificates = Vec::new();
    for ns in &namespaces {
        let api: Api<DynamicObject> = Api::namespaced_with(client.clone(), ns, &resource);
        match selection {
            Selection::Labels(selector) => {
                let mut params = ListParams::default();
                if !selector.is_empty() {
                    params = params.labels(selector);
                }
                certificates.extend(api.list(&params).await.map_err(kubectl_error)?.items);
            }
            Selection::Names(names) => {
                for name in names {
                    certificates.push(api.get(name).await.map_err(kubectl_error)?);
                }
            }
        }
    }
    if certificates.is_empty() {
        let _ = writeln!(err, "{}", none_found(args.all_namespaces, &namespace));
        return Ok(());
    }
    for mut certificate in certificates {
        let ns = certificate.metadata.namespace.clone().unwrap_or_default();
        let name = certificate.metadata.name.clone().unwrap_or_default();
        let failed = |detail: String| {
            RenewError::Usage(format!(
                "failed to trigger issuance of Certificate {ns}/{name}: {detail}"
            ))
        };
        mark(&mut certificate, &SystemClock.now_rfc3339()).map_err(|e| failed(e.to_string()))?;
        let api: Api<DynamicObject> = Api::namespaced_with(client.clone(), &ns, &resource);
        api.replace_status(&name, &PostParams::default(), &certificate).await.map_err(|e| {
            match crate::shared::unreachable::message(server, &e) {
                Some(message) => RenewError::Server(message),
                None => failed(error_text(e)),
            }
        })?;
        let _ = writeln!(out, "{}", triggered_line(&ns, &name));
    }
    Ok(())
}

/// Sets the condition in the object's `status.conditions`, leaving every other field as read
/// (the object is not narrowed to certgate's types, so nothing the server holds is dropped).
fn mark(certificate: &mut DynamicObject, now: &str) -> Result<(), serde_json::Error> {
    let generation = certificate.meta().generation;
    if !certificate.data.get("status").is_some_and(serde_json::Value::is_object) {
        certificate.data["status"] = serde_json::json!({});
    }
    let status = &mut certificate.data["status"];
    let mut conditions: Vec<Condition> = match status.get("conditions") {
        Some(serde_json::Value::Null) | None => Vec::new(),
        Some(value) => serde_json::from_value(value.clone())?,
    };
    set_manually_triggered(&mut conditions, generation, now);
    status["conditions"] = serde_json::to_value(conditions)?;
    Ok(())
}

/// kubectl's wording of an error returned as is (`cmdutil.CheckErr`), and the one
/// unreachable-server message.
fn kubectl_error(server: &str, err: kube::Error) -> RenewError {
    if let Some(message) = crate::shared::unreachable::message(server, &err) {
        return RenewError::Server(message);
    }
    match err {
        kube::Error::Api(status) if status.reason == "Unauthorized" => {
            RenewError::Usage(format!("You must be logged in to the server ({})", status.message))
        }
        kube::Error::Api(status) if !status.reason.is_empty() => {
            RenewError::Server(format!("Error from server ({}): {}", status.reason, status.message))
        }
        kube::Error::Api(status) => {
            RenewError::Server(format!("Error from server: {}", status.message))
        }
        other => RenewError::Usage(other.to_string()),
    }
}

/// An error's own text (Go's `%v` of a `StatusError` is its message).
fn error_text(err: kube::Error) -> String {
    match err {
        kube::Error::Api(status) => status.message,
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(names: &[&str], all: bool, all_namespaces: bool, selector: &str) -> RenewArgs {
        RenewArgs {
            names: names.iter().map(|n| (*n).to_owned()).collect(),
            namespace: None,
            all,
            all_namespaces,
            selector: selector.to_owned(),
            cluster: KubeconfigArgs::default(),
            log: CmctlLogArgs::default(),
        }
    }

    fn message(args: &RenewArgs) -> String {
        validate(args).unwrap_err().to_string()
    }

    #[test]
    fn exactly_one_way_of_choosing_with_cmctls_messages() {
        assert_eq!(
            message(&args(&[], false, false, "")),
            "error: please either supply one or more Certificate resource names, label \
             selectors, or use the --all flag to renew all Certificate resources"
        );
        assert_eq!(
            message(&args(&["abc"], false, false, "foo=bar")),
            r#"error: cannot specify the Certificate resource names ["abc"] in conjunction with a label selector"#
        );
        assert_eq!(
            message(&args(&["a", "b\"c"], true, false, "x")),
            r#"error: cannot specify the Certificate resource names ["a" "b\"c"] in conjunction with the --all flag and a label selector"#
        );
        assert_eq!(
            message(&args(&[], true, true, "foo=bar")),
            "error: cannot specify the --all flag in conjunction with a label selector"
        );
        assert_eq!(
            message(&args(&["abc"], false, true, "")),
            "error: cannot specify Certificate names in conjunction with --all-namespaces flag"
        );
        // --all-namespaces alone is not a way of choosing.
        assert!(message(&args(&[], false, true, "")).starts_with("error: please either"));
    }

    #[test]
    fn the_accepted_combinations_select_as_cmctl_does() {
        let cases = [
            (args(&[], true, true, ""), Selection::Labels(String::new())),
            (args(&[], true, false, ""), Selection::Labels(String::new())),
            (args(&[], false, true, "foo=bar"), Selection::Labels("foo=bar".to_owned())),
            (args(&[], false, false, "foo=bar"), Selection::Labels("foo=bar".to_owned())),
            (args(&["bar"], false, false, ""), Selection::Names(vec!["bar".to_owned()])),
            (
                args(&["bar", "abc"], false, false, ""),
                Selection::Names(vec!["bar".to_owned(), "abc".to_owned()]),
            ),
        ];
        for (args, expected) in cases {
            assert_eq!(validate(&args).unwrap(), expected, "{args:?}");
        }
    }

    fn condition(type_: &str, status: &str, time: &str, reason: &str) -> Condition {
        Condition {
            type_: type_.to_owned(),
            status: status.to_owned(),
            last_transition_time: Some(time.to_owned()),
            reason: Some(reason.to_owned()),
            message: Some(format!("{reason} message")),
            observed_generation: Some(1),
        }
    }

    #[test]
    fn issuing_is_added_with_the_manual_reason_and_now() {
        let mut conditions = vec![condition("Ready", "True", "2026-01-01T00:00:00Z", "Ready")];
        set_manually_triggered(&mut conditions, Some(3), "2026-11-29T10:00:00Z");
        assert_eq!(conditions.len(), 2);
        assert_eq!(conditions[0], condition("Ready", "True", "2026-01-01T00:00:00Z", "Ready"));
        assert_eq!(
            conditions[1],
            Condition {
                type_: "Issuing".to_owned(),
                status: "True".to_owned(),
                last_transition_time: Some("2026-11-29T10:00:00Z".to_owned()),
                reason: Some("ManuallyTriggered".to_owned()),
                message: Some("Certificate re-issuance manually triggered".to_owned()),
                observed_generation: Some(3),
            }
        );
    }

    #[test]
    fn an_issuing_certificate_keeps_its_transition_time_and_gets_the_manual_reason() {
        let mut conditions = vec![
            condition("Issuing", "True", "2026-01-01T00:00:00Z", "DoesNotExist"),
            condition("Ready", "False", "2026-01-01T00:00:00Z", "DoesNotExist"),
        ];
        set_manually_triggered(&mut conditions, Some(2), "2026-11-29T10:00:00Z");
        assert_eq!(conditions.len(), 2);
        assert_eq!(conditions[0].last_transition_time.as_deref(), Some("2026-01-01T00:00:00Z"));
        assert_eq!(conditions[0].reason.as_deref(), Some("ManuallyTriggered"));
        assert_eq!(
            conditions[0].message.as_deref(),
            Some("Certificate re-issuance manually triggered")
        );
        assert_eq!(conditions[0].observed_generation, Some(2));
        assert_eq!(conditions[1].reason.as_deref(), Some("DoesNotExist"));
    }

    #[test]
    fn a_failed_issuance_flips_to_true_at_now() {
        let mut conditions = vec![condition("Issuing", "False", "2026-01-01T00:00:00Z", "Failed")];
        set_manually_triggered(&mut conditions, None, "2026-11-29T10:00:00Z");
        assert_eq!(conditions[0].status, "True");
        assert_eq!(conditions[0].last_transition_time.as_deref(), Some("2026-11-29T10:00:00Z"));
        assert_eq!(conditions[0].observed_generation, None);
    }

    #[test]
    fn marking_keeps_fields_certgate_does_not_know() {
        let mut object: DynamicObject = serde_json::from_value(serde_json::json!({
            "apiVersion": "cert-manager.io/v1", "kind": "Certificate",
            "metadata": {"name": "a", "namespace": "b", "generation": 4},
            "spec": {"secretName": "s", "futureField": 1},
            "status": {"revision": 2, "futureStatus": "kept"}
        }))
        .unwrap();
        mark(&mut object, "2026-11-29T10:00:00Z").unwrap();
        assert_eq!(object.data["status"]["futureStatus"], "kept");
        assert_eq!(object.data["status"]["revision"], 2);
        assert_eq!(object.data["spec"]["futureField"], 1);
        assert_eq!(
            object.data["status"]["conditions"],
            serde_json::json!([{
                "type": "Issuing", "status": "True", "lastTransitionTime": "2026-11-29T10:00:00Z",
                "reason": "ManuallyTriggered",
                "message": "Certificate re-issuance manually triggered", "observedGeneration": 4
            }])
        );
        let mut bare: DynamicObject = serde_json::from_value(serde_json::json!({
            "apiVersion": "cert-manager.io/v1", "kind": "Certificate",
            "metadata": {"name": "a", "namespace": "b"}, "spec": {}
        }))
        .unwrap();
        mark(&mut bare, "2026-11-29T10:00:00Z").unwrap();
        assert_eq!(bare.data["status"]["conditions"][0]["reason"], "ManuallyTriggered");
    }

    #[test]
    fn messages_are_cmctls() {
        assert_eq!(
            triggered_line("ns", "web"),
            "Manually triggered issuance of Certificate ns/web"
        );
        assert_eq!(none_found(true, "ignored"), "No Certificates found");
        assert_eq!(none_found(false, "team-a"), "No Certificates found in team-a namespace.");
    }
}
