//! The controllers a build knows, and which of them a `--controllers` list selects.
//!
//! Each system (the policy approver today; OCM propagation, the edge and issuance next)
//! describes its controllers as [`ControllerSpec`]s; the binary lists every spec once, in
//! one [`Registry`], and both `certgate controller` and `certgate dev` run what it selects.
//! A new controller therefore joins both commands, their `--help` and their error
//! messages by adding one entry.

use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt as _;
use futures_util::future::{BoxFuture, Shared};

use crate::metrics::ControllerMetrics;
use certgate_clock::Clock;

/// Completes when the controllers must stop; every controller holds a clone.
pub type Shutdown = Shared<BoxFuture<'static, ()>>;

/// Wraps a shutdown signal so every controller can await it.
pub fn shutdown_on(signal: impl Future<Output = ()> + Send + 'static) -> Shutdown {
    signal.boxed().shared()
}

/// How controllers answer "may this user do that?".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AccessMode {
    /// Ask the API server with SubjectAccessReviews (every authorizer of the cluster takes
    /// part); answers are cached for [`Settings::sar_cache_ttl`].
    #[default]
    SubjectAccessReview,
    /// Evaluate the watched RBAC objects in memory: no round trip, RBAC only.
    LocalRbac,
}

/// How the controllers run, shared by all of them.
#[derive(Clone, Debug)]
pub struct Settings {
    pub access: AccessMode,
    /// How long SubjectAccessReview answers are reused; forgotten anyway on RBAC changes.
    pub sar_cache_ttl: Duration,
    /// Objects reconciled at once by each controller.
    pub concurrency: u16,
    /// The events' reporting instance (the pod name); the host name when unset.
    pub instance: Option<String>,
    /// Expiry of the ServiceAccount tokens controllers request to act as another identity
    /// (the policy propagator's hub templates; upstream's 2 h).
    pub service_account_token_ttl: Duration,
    /// How long a policy encryption key is used before it is rotated (upstream's
    /// `--encryption-key-rotation`, 30 days).
    pub encryption_key_rotation: Duration,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            access: AccessMode::SubjectAccessReview,
            sar_cache_ttl: Duration::from_secs(10),
            concurrency: 8,
            instance: None,
            service_account_token_ttl: Duration::from_secs(7200),
            encryption_key_rotation: Duration::from_secs(30 * 86_400),
        }
    }
}

/// What a controller is started with.
#[derive(Clone)]
pub struct Launch {
    pub client: kube::Client,
    /// The configuration `client` was built from (cluster URL, CA, TLS server name), for
    /// controllers that build clients acting as other identities; `None` when unknown.
    pub config: Option<kube::Config>,
    pub settings: Settings,
    pub metrics: Arc<ControllerMetrics>,
    /// Where condition and event times come from.
    pub clock: Arc<dyn Clock>,
    pub shutdown: Shutdown,
}

/// One controller: its name on the command line, whether `*` includes it, a line for
/// `--help`, the results it counts, and how to run it until [`Launch::shutdown`] completes.
#[derive(Clone, Copy)]
pub struct ControllerSpec {
    pub name: &'static str,
    pub on_by_default: bool,
    pub summary: &'static str,
    /// The `result` labels of its `certgate_controller_decisions_total`, declared at 0 when it
    /// starts so dashboards and rate() alerts have series before the first decision.
    pub results: &'static [&'static str],
    pub run: fn(Launch) -> BoxFuture<'static, ()>,
}

impl std::fmt::Debug for ControllerSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ControllerSpec")
            .field("name", &self.name)
            .field("on_by_default", &self.on_by_default)
            .finish_non_exhaustive()
    }
}

/// Why a `--controllers` list cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown controller {}; available: {available}", certgate_gofmt::quote(.name))]
pub struct UnknownController {
    pub name: String,
    pub available: String,
}

/// Every controller of this build, in the order they start and are listed.
#[derive(Clone, Copy, Debug)]
pub struct Registry(pub &'static [ControllerSpec]);

impl Registry {
    /// The controllers `list` selects, with cert-manager's `--controllers` syntax: `*` the
    /// ones on by default, `name` adds one, `-name` removes one; later items win.
    pub fn select(&self, list: &[String]) -> Result<Vec<ControllerSpec>, UnknownController> {
        let mut enabled: Vec<ControllerSpec> = Vec::new();
        for item in list.iter().map(|i| i.trim()).filter(|i| !i.is_empty()) {
            let (remove, name) = match item.strip_prefix('-') {
                Some(name) => (true, name),
                None => (false, item),
            };
            let named: Vec<ControllerSpec> = if name == "*" {
                self.0.iter().filter(|spec| spec.on_by_default).copied().collect()
            } else if let Some(spec) = self.0.iter().find(|spec| spec.name == name) {
                vec![*spec]
            } else {
                return Err(UnknownController {
                    name: name.to_owned(),
                    available: self.available(),
                });
            };
            for spec in named {
                enabled.retain(|e| e.name != spec.name);
                if !remove {
                    enabled.push(spec);
                }
            }
        }
        Ok(enabled)
    }

    /// The names, comma-separated, those off by default marked so.
    pub fn available(&self) -> String {
        self.0
            .iter()
            .map(|spec| {
                if spec.on_by_default {
                    spec.name.to_owned()
                } else {
                    format!("{} (off by default)", spec.name)
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The controllers for `--help`, as kubectl lists commands: each name on its own line,
    /// its summary below, indented. (A name column as wide as the longest name,
    /// `certificaterequests-issuer-selfsigned`, would push the summaries past the terminal.)
    pub fn help(&self) -> String {
        let mut text = String::new();
        for spec in self.0 {
            text.push_str(&format!("  {}\n", spec.name));
            for line in spec.summary.lines() {
                text.push_str(&format!("      {line}\n"));
            }
        }
        text
    }

    /// Runs `controllers` until `launch.shutdown` completes and each has returned.
    pub async fn run(controllers: &[ControllerSpec], launch: Launch) {
        for spec in controllers {
            launch.metrics.declare(spec.name, spec.results);
        }
        let running: Vec<_> =
            controllers.iter().map(|spec| tokio::spawn((spec.run)(launch.clone()))).collect();
        for task in running {
            let _ = task.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idle(_: Launch) -> BoxFuture<'static, ()> {
        async {}.boxed()
    }

    const SPECS: &[ControllerSpec] = &[
        ControllerSpec {
            name: "policy-approver",
            on_by_default: true,
            summary: "a",
            results: &["approved"],
            run: idle,
        },
        ControllerSpec {
            name: "policy-readiness",
            on_by_default: true,
            summary: "b",
            results: &[],
            run: idle,
        },
        ControllerSpec {
            name: "builtin-approver",
            on_by_default: false,
            summary: "c\nd",
            results: &[],
            run: idle,
        },
    ];

    fn names(text: &str) -> Result<Vec<&'static str>, String> {
        let list: Vec<String> = text.split(',').map(str::to_owned).collect();
        Registry(SPECS)
            .select(&list)
            .map(|specs| specs.iter().map(|spec| spec.name).collect())
            .map_err(|err| err.to_string())
    }

    #[test]
    fn selection_follows_cert_managers_syntax() {
        assert_eq!(names("*"), Ok(vec!["policy-approver", "policy-readiness"]));
        assert_eq!(names("*,-policy-readiness"), Ok(vec!["policy-approver"]));
        assert_eq!(
            names("*,builtin-approver"),
            Ok(vec!["policy-approver", "policy-readiness", "builtin-approver"])
        );
        assert_eq!(names("policy-readiness"), Ok(vec!["policy-readiness"]));
        assert_eq!(names("-policy-approver,*"), Ok(vec!["policy-approver", "policy-readiness"]));
        assert_eq!(names(" , "), Ok(vec![]));
        assert_eq!(
            names("*,nope"),
            Err(r#"unknown controller "nope"; available: policy-approver, policy-readiness, builtin-approver (off by default)"#.to_owned())
        );
    }

    #[test]
    fn help_lists_every_controller_with_its_summary_below() {
        assert_eq!(
            Registry(SPECS).help(),
            "  policy-approver\n      a\n  policy-readiness\n      b\n  builtin-approver\n      c\n      d\n"
        );
    }
}
