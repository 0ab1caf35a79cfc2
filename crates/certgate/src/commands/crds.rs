//! `certgate crds`: the CustomResourceDefinitions certgate serves, as YAML or a JSON List, and
//! on request those of the upstream kinds it works with (for clusters without cert-manager or
//! OCM).

use certgate_api::crd;
use clap::{Args, ValueEnum};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde::Serialize;

/// The long help of `certgate crds` (`--help`).
pub const CRDS_LONG_ABOUT: &str = "\
Print the CustomResourceDefinitions certgate serves.

The manifests are generated from certgate's own types, so they always match what the webhook and
controllers accept. The default output is a multi-document YAML stream; `-o json` prints a v1
List.

By default only the CRD certgate owns is printed: approver-policy's CertificateRequestPolicy
(policy.cert-manager.io). It can be applied next to a cert-manager install. cert-manager's own
CRDs (CertificateRequest, Certificate, Issuer, ClusterIssuer) belong to cert-manager: on a cluster
with cert-manager, keep cert-manager's. `--include cert-manager` adds certgate's equivalent CRDs
for clusters without cert-manager (certgate then runs its own issuers); `--include ocm` adds the
Open Cluster Management kinds the policy-propagator reads and writes, for a hub without OCM.

Examples:
  certgate crds | kubectl apply --server-side -f -
  certgate crds --include cert-manager | kubectl apply --server-side -f -
  certgate crds -o json > crds.json";

/// Arguments of `certgate crds`.
#[derive(Debug, Args)]
pub struct CrdsArgs {
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = CrdsFormat::Yaml)]
    pub output: CrdsFormat,

    /// Also print the CRDs of these upstream kinds, for clusters that do not have them
    /// (repeatable or comma-separated). Never apply cert-manager's next to a cert-manager
    /// install: it owns them.
    #[arg(long, value_enum, value_name = "SET", value_delimiter = ',')]
    pub include: Vec<CrdSet>,
}

/// Upstream CRD sets `certgate crds --include` adds to certgate's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CrdSet {
    /// cert-manager.io: CertificateRequest, Certificate, Issuer, ClusterIssuer.
    CertManager,
    /// Open Cluster Management: Policy, PlacementBinding, PolicySet, Placement,
    /// PlacementDecision, ManagedCluster, ClusterClaim.
    Ocm,
}

/// Output formats of `certgate crds`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CrdsFormat {
    /// A multi-document YAML stream, one CRD per document.
    Yaml,
    /// A v1 `List` holding the CRDs.
    Json,
}

#[derive(Debug, thiserror::Error)]
pub enum CrdsError {
    #[error("cannot serialize CustomResourceDefinition {} as YAML: {source}", certgate_gofmt::quote(.name))]
    Yaml {
        name: String,
        #[source]
        source: serde_saphyr::SerializeError,
    },
    #[error("cannot serialize the CustomResourceDefinitions as JSON: {0}")]
    Json(#[source] serde_json::Error),
    #[error("cannot write the CustomResourceDefinitions: {0}")]
    Io(#[source] std::io::Error),
}

/// The CRDs `certgate crds --include <include>` prints, in a stable order: certgate's own, then
/// cert-manager's, then OCM's.
pub fn selected(include: &[CrdSet]) -> Vec<CustomResourceDefinition> {
    let (owned, cert_manager): (Vec<_>, Vec<_>) =
        crd::all().into_iter().partition(|crd| crd.spec.group != CERT_MANAGER_GROUP);
    let mut crds = owned;
    if include.contains(&CrdSet::CertManager) {
        crds.extend(cert_manager);
        crds.extend(crd::cert_manager());
    }
    if include.contains(&CrdSet::Ocm) {
        crds.extend(crd::ocm());
    }
    crds
}

/// The API group cert-manager owns; its CRDs are printed only on request.
const CERT_MANAGER_GROUP: &str = "cert-manager.io";

/// The manifests in `format`, ending with a newline.
pub fn render(format: CrdsFormat, include: &[CrdSet]) -> Result<String, CrdsError> {
    let crds = selected(include);
    match format {
        CrdsFormat::Yaml => yaml_stream(&crds),
        CrdsFormat::Json => json_list(&crds),
    }
}

/// One document per CRD, each introduced by `---` so the stream can be concatenated with
/// other manifests.
fn yaml_stream(crds: &[CustomResourceDefinition]) -> Result<String, CrdsError> {
    let mut out = String::new();
    for crd in crds {
        let text = serde_saphyr::to_string(crd).map_err(|source| CrdsError::Yaml {
            name: crd.metadata.name.clone().unwrap_or_default(),
            source,
        })?;
        out.push_str("---\n");
        out.push_str(&text);
        if !text.ends_with('\n') {
            out.push('\n');
        }
    }
    Ok(out)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct List<'a> {
    api_version: &'static str,
    kind: &'static str,
    items: &'a [CustomResourceDefinition],
}

fn json_list(crds: &[CustomResourceDefinition]) -> Result<String, CrdsError> {
    let list = List { api_version: "v1", kind: "List", items: crds };
    let mut text = serde_json::to_string_pretty(&list).map_err(CrdsError::Json)?;
    text.push('\n');
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(include: &[CrdSet]) -> Vec<String> {
        selected(include).into_iter().filter_map(|crd| crd.metadata.name).collect()
    }

    #[test]
    fn by_default_only_the_crd_certgate_owns_is_printed() {
        // Applied next to cert-manager, nothing of cert-manager.io may be replaced.
        assert_eq!(names(&[]), ["certificaterequestpolicies.policy.cert-manager.io"]);
    }

    #[test]
    fn a_set_named_twice_is_printed_once() {
        // The kinds it adds are listed in tests/crds.rs, against the command's output.
        let once = names(&[CrdSet::CertManager]);
        assert_eq!(once.len(), 5, "{once:?}");
        assert_eq!(names(&[CrdSet::CertManager, CrdSet::CertManager]), once);
    }

    #[test]
    fn ocm_adds_the_ocm_kinds_after_cert_managers() {
        let all = names(&[CrdSet::Ocm, CrdSet::CertManager]);
        assert_eq!(all.len(), 5 + crd::ocm().len());
        assert_eq!(all[5], "policies.policy.open-cluster-management.io");
        let mut unique = all.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), all.len(), "{all:?}");
    }
}
