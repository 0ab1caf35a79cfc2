//! certgate's controllers against an API server, selected as cert-manager selects its
//! controllers (`--controllers=*,-name`). `certgate dev` runs them against its sandbox; the
//! standalone `certgate controller` command (leader election, metrics, health) comes with
//! issue #7.
//!
//! Built so far: `policy-readiness`. `policy-approver` and `builtin-approver` are tracked in
//! issue #7 and refused by name until they exist.

pub mod readiness;

/// Every controller this build knows, and whether `*` includes it.
const CONTROLLERS: [(&str, bool); 1] = [(readiness::NAME, true)];
/// Controllers of the design that are not built yet.
const PLANNED: [&str; 2] = ["policy-approver", "builtin-approver"];

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
        } else if PLANNED.contains(&name) {
            return Err(format!(
                "controller {name:?} is not built yet (issue #7); available: {}",
                available()
            ));
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
    CONTROLLERS.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
}

/// Runs the selected controllers with `client` until `shutdown` completes.
pub async fn run(
    client: kube::Client,
    controllers: Vec<&'static str>,
    shutdown: impl Future<Output = ()> + Send + Sync + Clone + 'static,
) {
    let mut running = Vec::new();
    for controller in controllers {
        if controller == readiness::NAME {
            running.push(tokio::spawn(readiness::run(client.clone(), shutdown.clone())));
        }
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
        assert_eq!(selected(&list("*")), Ok(vec!["policy-readiness"]));
        assert_eq!(selected(&list("*,-policy-readiness")), Ok(vec![]));
        assert_eq!(selected(&list("policy-readiness")), Ok(vec!["policy-readiness"]));
        assert_eq!(
            selected(&list("*,nope")),
            Err(r#"unknown controller "nope"; available: policy-readiness"#.to_owned())
        );
        assert_eq!(
            selected(&list("policy-approver")),
            Err(r#"controller "policy-approver" is not built yet (issue #7); available: policy-readiness"#.to_owned())
        );
    }
}
