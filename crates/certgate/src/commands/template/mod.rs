//! `certgate template`: OCM hub templates offline.

mod inputs;
mod keys;
mod locate;
mod resolve;

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

pub use resolve::{ResolveError, run_resolve};

#[derive(Debug, Args)]
pub struct TemplateArgs {
    #[command(subcommand)]
    pub command: TemplateCommand,
}

#[derive(Debug, Subcommand)]
pub enum TemplateCommand {
    /// Print the replicated policies the OCM propagator would create for one managed cluster.
    #[command(long_about = RESOLVE_LONG_ABOUT)]
    Resolve(ResolveArgs),
}

const RESOLVE_LONG_ABOUT: &str = "\
Print the replicated policies the OCM governance propagator would create for one managed
cluster, with their hub templates ({{hub ... hub}}) resolved, from manifest files alone.

The inputs hold the root Policies (in their own namespaces) and everything their templates may
read: ConfigMaps, Secrets, ManagedClusters, ClusterClaims, Nodes, ServiceAccounts, PolicySets
and the RBAC objects (Roles, ClusterRoles and their bindings) that decide what a policy's
spec.hubTemplateOptions.serviceAccountName may read. Each root Policy becomes a replica named
<root namespace>.<root name> in the namespace named by --cluster, labelled and annotated as the
propagator does. Without a ServiceAccount, templates may read only the root policy's namespace
and the cluster's own ManagedCluster; with one, exactly what RBAC grants it (list and watch).

A template that fails leaves the first failing policy template unresolved with upstream's text
in its policy.open-cluster-management.io/hub-templates-error annotation; later templates stay
unresolved, as upstream. Errors are also printed on standard error.

Values encrypted with protect, fromSecret or copySecretData use the key of the Secret
<cluster>/policy-encryption-key (data.key) when the inputs hold it, otherwise a throw-away key
(said on standard error), and the IV of an existing replica in the inputs when there is one.

A failed template is also traced back to the field and the file:line:column where it was
written (Go's text names a line of the propagator's re-rendering). When the inputs hold
ManagedClusters or PlacementDecisions, --cluster must be one they name (unless --cluster-label
describes it). Fields the objects' schemas do not know are warned about on standard error.

Exit status: 0 every template resolved, 1 a template failed, 2 the inputs could not be read
(or --cluster is unknown).

  certgate template resolve -f policy.yaml -f configmaps.yaml --cluster cluster1
  certgate template resolve -f hub/ --cluster cluster1 --cluster-label env=prod -o json";

#[derive(Debug, Args)]
pub struct ResolveArgs {
    /// A manifest file, or a directory searched recursively for *.yaml, *.yml and *.json files
    /// (in name order). `-` reads standard input. Repeat to give several.
    #[arg(short = 'f', long = "filename", value_name = "PATH", required = true)]
    pub files: Vec<PathBuf>,

    /// The managed cluster to resolve for (its namespace on the hub).
    #[arg(long, value_name = "NAME")]
    pub cluster: String,

    /// A label of the cluster's ManagedCluster (`.ManagedClusterLabels`), added to (or
    /// replacing those of) a ManagedCluster of that name in the inputs. Repeat for several.
    #[arg(long = "cluster-label", value_name = "KEY=VALUE", value_parser = parse_label)]
    pub cluster_labels: Vec<(String, String)>,

    /// Template functions to deny, comma-separated (the propagator's
    /// --template-function-denylist); env and expandenv are always denied.
    #[arg(long = "template-function-denylist", value_name = "NAMES", value_delimiter = ',')]
    pub denylist: Vec<String>,

    /// Also print, on standard error, every object each policy's templates read (what a
    /// controller would watch).
    #[arg(long, value_name = "BOOL", action = clap::ArgAction::Set, default_value_t = false, num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub show_reads: bool,

    #[arg(short = 'o', long = "output", value_enum, default_value_t = ResolveFormat::Yaml)]
    pub output: ResolveFormat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ResolveFormat {
    /// The replicas as YAML documents separated by `---`.
    Yaml,
    /// One replica as a JSON object, several as a `List`.
    Json,
}

fn parse_label(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.to_owned(), value.to_owned())),
        _ => Err(format!("expected KEY=VALUE, found {}", certgate_gofmt::quote(text))),
    }
}
