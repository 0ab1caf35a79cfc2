//! `certgate crds`: the CustomResourceDefinitions certgate serves, as YAML or a JSON List.

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

Examples:
  certgate crds | kubectl apply --server-side -f -
  certgate crds -o json > crds.json";

/// Arguments of `certgate crds`.
#[derive(Debug, Args)]
pub struct CrdsArgs {
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = CrdsFormat::Yaml)]
    pub output: CrdsFormat,
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

/// The manifests in `format`, ending with a newline.
pub fn render(format: CrdsFormat) -> Result<String, CrdsError> {
    let crds = crd::all();
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
