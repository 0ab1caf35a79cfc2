//! Every controller this build runs, registered once: `certgate controller` and
//! `certgate dev` both select from [`REGISTRY`], and `--help` and the errors for unknown
//! names list it. A new system adds its specs here and nowhere else.

use certgate_runtime::Registry;

/// In start order.
pub const REGISTRY: Registry = Registry(&[
    certgate_approver::policy_approver::SPEC,
    certgate_approver::readiness::SPEC,
    certgate_approver::builtin::SPEC,
    certgate_propagator::SPEC,
    certgate_issuer::certificates::CERTIFICATES,
    certgate_issuer::issuers::ISSUERS,
    certgate_issuer::issuers::CLUSTER_ISSUERS,
    certgate_issuer::requests::CA,
    certgate_issuer::requests::SELF_SIGNED,
    certgate_issuer::crl::SPEC,
]);

/// The long help of a `--controllers` flag: the selection syntax and every registered
/// controller (what each does is in `certgate controller --help`).
pub fn selection_help(purpose: &str) -> String {
    format!(
        "certgate's controllers {purpose}, comma-separated, as cert-manager's --controllers: \
         `*` the ones on by default, `name` adds one, `-name` removes one (`-*` none). \
         Available: {} (`certgate controller --help` says what each does)",
        REGISTRY.available()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(text: &str) -> Vec<String> {
        text.split(',').map(str::to_owned).collect()
    }

    fn names(text: &str) -> Result<Vec<&'static str>, String> {
        REGISTRY
            .select(&list(text))
            .map(|specs| specs.iter().map(|spec| spec.name).collect())
            .map_err(|err| err.to_string())
    }

    #[test]
    fn the_registry_selects_with_cert_managers_syntax() {
        assert_eq!(names("*"), Ok(vec!["policy-approver", "policy-readiness"]));
        assert_eq!(
            names("*,builtin-approver"),
            Ok(vec!["policy-approver", "policy-readiness", "builtin-approver"])
        );
        assert_eq!(
            names("*,nope"),
            Err(r#"unknown controller "nope"; available: policy-approver, policy-readiness, builtin-approver (off by default), policy-propagator (off by default), certificates (off by default), issuers (off by default), clusterissuers (off by default), certificaterequests-issuer-ca (off by default), certificaterequests-issuer-selfsigned (off by default), issuers-crl (off by default)"#.to_owned())
        );
    }

    #[test]
    fn the_flag_help_names_every_registered_controller() {
        let help = selection_help("to run");
        for spec in REGISTRY.0 {
            assert!(help.contains(spec.name), "{} missing:\n{help}", spec.name);
        }
    }

    #[test]
    fn controller_help_lists_every_registered_controller() {
        let help = REGISTRY.help();
        assert!(
            crate::commands::controller::CONTROLLER_LONG_ABOUT.contains(&help),
            "`certgate controller --help` must list the registry:\n{help}"
        );
    }
}
