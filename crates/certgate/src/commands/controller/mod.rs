//! certgate's controllers against an API server, selected as cert-manager selects its
//! controllers (`--controllers=*,-name`): the standalone `certgate controller` command
//! ([`command`]) runs them with leader election, metrics and health endpoints, and
//! `certgate dev` runs them against its sandbox.
//!
//! - `policy-approver` ([`approver`]): approver-policy's review of pending requests;
//! - `policy-readiness` ([`readiness`]): the policies' `Ready` condition;
//! - `builtin-approver` ([`builtin`], off by default): cert-manager's approve-everything
//!   controller.

use std::sync::Arc;
use std::time::Duration;

use clap::ValueEnum;

pub mod approver;
pub mod builtin;
pub mod command;
pub mod http;
mod leader;
pub mod metrics;
pub mod outcome;
pub mod readiness;
pub mod world;

use metrics::ControllerMetrics;

/// Every controller this build knows, and whether `*` includes it.
const CONTROLLERS: [(&str, bool); 3] =
    [(approver::NAME, true), (readiness::NAME, true), (builtin::NAME, false)];

/// How the policy approver answers "may the requester `use` this policy?".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum AuthorizerMode {
    /// Ask the API server with SubjectAccessReviews, as approver-policy does (every
    /// authorizer of the cluster takes part); answers are cached for --sar-cache-ttl.
    #[default]
    Sar,
    /// Evaluate the watched RBAC objects in memory: no API round trip, but only RBAC
    /// counts (and system:masters), not webhook or Node authorizers.
    Local,
}

/// How the controllers run.
#[derive(Clone, Debug)]
pub struct Settings {
    pub authorizer: AuthorizerMode,
    /// How long SubjectAccessReview answers are reused; forgotten anyway on RBAC changes.
    pub sar_cache_ttl: Duration,
    /// Requests reconciled at once by each controller.
    pub concurrency: u16,
    /// The events' reporting instance (the pod name); the host name when unset.
    pub instance: Option<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            authorizer: AuthorizerMode::Sar,
            sar_cache_ttl: Duration::from_secs(10),
            concurrency: 8,
            instance: None,
        }
    }
}

/// The controllers a `--controllers` list selects, or why it is wrong.
pub fn selected(list: &[String]) -> Result<Vec<&'static str>, String> {
    let mut enabled: Vec<&'static str> = Vec::new();
    for item in list.iter().map(|i| i.trim()).filter(|i| !i.is_empty()) {
        let (remove, name) = match item.strip_prefix('-') {
            Some(name) => (true, name),
            None => (false, item),
        };
        let names: Vec<&'static str> = if name == "*" {
            CONTROLLERS.iter().filter(|(_, default)| *default).map(|(n, _)| *n).collect()
        } else if let Some((known, _)) = CONTROLLERS.iter().find(|(n, _)| *n == name) {
            vec![*known]
        } else {
            return Err(format!("unknown controller {name:?}; available: {}", available()));
        };
        for name in names {
            enabled.retain(|n| *n != name);
            if !remove {
                enabled.push(name);
            }
        }
    }
    Ok(enabled)
}

fn available() -> String {
    CONTROLLERS
        .iter()
        .map(
            |(n, default)| if *default { (*n).to_owned() } else { format!("{n} (off by default)") },
        )
        .collect::<Vec<_>>()
        .join(", ")
}

/// Runs the selected controllers with `client` until `shutdown` completes.
pub async fn run(
    client: kube::Client,
    controllers: Vec<&'static str>,
    settings: Settings,
    metrics: Arc<ControllerMetrics>,
    shutdown: impl Future<Output = ()> + Send + Sync + Clone + 'static,
) {
    let mut running = Vec::new();
    for controller in controllers {
        let (client, settings, metrics, shutdown) =
            (client.clone(), settings.clone(), Arc::clone(&metrics), shutdown.clone());
        running.push(match controller {
            approver::NAME => tokio::spawn(approver::run(client, settings, metrics, shutdown)),
            builtin::NAME => tokio::spawn(builtin::run(client, settings, metrics, shutdown)),
            _ => tokio::spawn(readiness::run(client, shutdown)),
        });
    }
    for task in running {
        let _ = task.await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(text: &str) -> Vec<String> {
        text.split(',').map(str::to_owned).collect()
    }

    #[test]
    fn selection_follows_cert_managers_syntax() {
        assert_eq!(selected(&list("*")), Ok(vec!["policy-approver", "policy-readiness"]));
        assert_eq!(selected(&list("*,-policy-readiness")), Ok(vec!["policy-approver"]));
        assert_eq!(
            selected(&list("*,builtin-approver")),
            Ok(vec!["policy-approver", "policy-readiness", "builtin-approver"])
        );
        assert_eq!(selected(&list("policy-readiness")), Ok(vec!["policy-readiness"]));
        assert_eq!(
            selected(&list("-policy-approver,*")),
            Ok(vec!["policy-approver", "policy-readiness"])
        );
        assert_eq!(
            selected(&list("*,nope")),
            Err(r#"unknown controller "nope"; available: policy-approver, policy-readiness, builtin-approver (off by default)"#.to_owned())
        );
    }
}
