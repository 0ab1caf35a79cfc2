//! `certgate dev --demo`: applies the examples (embedded in the binary) to the running
//! sandbox through its API — policies and RBAC as the admin, each CertificateRequest as the
//! identity it names, so certgate's webhook stamps and checks it as in a cluster — then waits
//! for certgate's policy-approver to review them and prints what admission said and the
//! decisions as the sandbox holds them.

use std::io::Write;
use std::sync::Arc;

use kube::api::{
    Api, ApiResource, DynamicObject, GroupVersionKind, Patch, PatchParams, PostParams,
};
use serde_json::Value;

use super::{DevError, client};
use crate::shared::manifests::documents::{Syntax, parse};
use crate::shared::offline::{EvaluateOptions, Loaded, evaluate, load_text};
use crate::shared::report::{OutputOptions, ReportFormat, output};

/// The examples, in the order a user would apply them.
const EXAMPLES: [(&str, &str); 6] = [
    ("examples/namespaces.yaml", include_str!("../../../../../examples/namespaces.yaml")),
    ("examples/rbac.yaml", include_str!("../../../../../examples/rbac.yaml")),
    ("examples/dns/policy.yaml", include_str!("../../../../../examples/dns/policy.yaml")),
    ("examples/spiffe/policy.yaml", include_str!("../../../../../examples/spiffe/policy.yaml")),
    ("examples/dns/requests.yaml", include_str!("../../../../../examples/dns/requests.yaml")),
    ("examples/spiffe/requests.yaml", include_str!("../../../../../examples/spiffe/requests.yaml")),
];

/// Demo scaffolding: in a cluster, who may create CertificateRequests is the operator's
/// choice; here every authenticated user may, so each example request is created by the
/// identity it names.
const REQUESTERS: &str = r#"{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
  "metadata": {"name": "certgate-demo-requester"},
  "rules": [{"apiGroups": ["cert-manager.io"], "resources": ["certificaterequests"], "verbs": ["create", "get"]}]}"#;
const REQUESTERS_BINDING: &str = r#"{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
  "metadata": {"name": "certgate-demo-requester"},
  "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "certgate-demo-requester"},
  "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "system:authenticated"}]}"#;

/// What the demo stores and then reads back to decide: (group, version, kind, plural).
const READ_BACK: [(&str, &str, &str, &str); 7] = [
    ("", "v1", "Namespace", "namespaces"),
    ("rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles"),
    ("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings"),
    ("rbac.authorization.k8s.io", "v1", "Role", "roles"),
    ("rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings"),
    (
        "policy.cert-manager.io",
        "v1alpha1",
        "CertificateRequestPolicy",
        "certificaterequestpolicies",
    ),
    ("cert-manager.io", "v1", "CertificateRequest", "certificaterequests"),
];

pub async fn run(
    kubeconfig: &str,
    approver_running: bool,
    out: &mut impl Write,
) -> Result<(), DevError> {
    let admin = client(kubeconfig, None).await?;
    let _ = writeln!(out, "Applying the examples (embedded in certgate) through the sandbox API:");
    for text in [REQUESTERS, REQUESTERS_BINDING] {
        let object: Value =
            serde_json::from_str(text).map_err(|e| DevError::Demo(e.to_string()))?;
        apply(&admin, &object).await?;
    }
    let _ = writeln!(out, "  every authenticated user may create CertificateRequests (demo RBAC)");
    for (name, text) in EXAMPLES {
        tracing::info!(file = name, "applying an example");
        let documents = parse(&Arc::from(name), text, Syntax::Yaml)
            .map_err(|e| DevError::Demo(format!("{name}: {e}")))?;
        for document in documents {
            let object = document.value;
            let line = if object["kind"] == "CertificateRequest" {
                create_as_requester(kubeconfig, &object).await?
            } else {
                apply(&admin, &object).await?;
                format!("{} {} applied", kind_of(&object), name_of(&object))
            };
            let _ = writeln!(out, "  {line}");
        }
    }
    if approver_running {
        let waited = wait_for_reviews(&admin).await?;
        let _ = writeln!(
            out,
            "\nDecisions certgate's policy-approver wrote in the sandbox (Approved and Denied are \
             conditions on the requests; Unprocessed ones have none, only an event){}:\n",
            if waited { "" } else { " — not every request was reviewed in time" }
        );
    } else {
        let _ = writeln!(
            out,
            "\nDecisions approver-policy would take on the requests as stored (the policy-approver \
             controller is not running):\n"
        );
    }
    let stored = read_back(&admin).await?;
    let mut loaded = Loaded::default();
    let mut errors = Vec::new();
    load_text("sandbox", &stored, &mut loaded, &mut errors);
    if let Some(error) = errors.first() {
        return Err(DevError::Demo(format!("cannot read back the stored objects: {error}")));
    }
    let report = evaluate(loaded.inputs, EvaluateOptions { explain: false });
    let options = OutputOptions { format: ReportFormat::Text, explain: false, colour: false };
    output::write(&report, options, out).map_err(|e| DevError::Demo(e.to_string()))?;
    Ok(())
}

/// How long the demo waits for the controller to review every request.
const REVIEW_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

/// Waits until every request is decided or has an `Unprocessed` event; `false` on timeout.
async fn wait_for_reviews(admin: &kube::Client) -> Result<bool, DevError> {
    use certgate_api::CertificateRequest;
    use certgate_api::certificate_request::manual::decided;
    use k8s_openapi::api::events::v1::Event;

    let requests: Api<CertificateRequest> = Api::all(admin.clone());
    let events: Api<Event> = Api::all(admin.clone());
    let deadline = tokio::time::Instant::now() + REVIEW_TIMEOUT;
    loop {
        let listed = requests
            .list(&Default::default())
            .await
            .map_err(|e| DevError::Demo(format!("list certificaterequests: {e}")))?;
        let unprocessed: Vec<(String, String)> = events
            .list(&Default::default())
            .await
            .map_err(|e| DevError::Demo(format!("list events: {e}")))?
            .items
            .into_iter()
            .filter(|event| event.reason.as_deref() == Some("Unprocessed"))
            .filter_map(|event| event.regarding)
            .map(|regarding| {
                (regarding.namespace.unwrap_or_default(), regarding.name.unwrap_or_default())
            })
            .collect();
        let reviewed = |cr: &CertificateRequest| {
            decided(cr.status.as_ref()).is_some()
                || unprocessed.iter().any(|(namespace, name)| {
                    Some(namespace) == cr.metadata.namespace.as_ref()
                        && Some(name) == cr.metadata.name.as_ref()
                })
        };
        if listed.items.iter().all(reviewed) {
            return Ok(true);
        }
        if tokio::time::Instant::now() >= deadline {
            return Ok(false);
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}

/// Creates a request as the user and groups it names (`spec.username`, `spec.groups`), the
/// way the requester would, and says what admission did.
async fn create_as_requester(kubeconfig: &str, object: &Value) -> Result<String, DevError> {
    let username = object.pointer("/spec/username").and_then(Value::as_str).unwrap_or_default();
    let groups: Vec<String> = object
        .pointer("/spec/groups")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        // The API server adds it to every authenticated user.
        .filter(|g| *g != "system:authenticated")
        .map(str::to_owned)
        .collect();
    let client = client(kubeconfig, Some((username, groups))).await?;
    let namespace =
        object.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or("default");
    let api: Api<DynamicObject> = Api::namespaced_with(client, namespace, &resource(object)?);
    let request: DynamicObject =
        serde_json::from_value(object.clone()).map_err(|e| DevError::Demo(e.to_string()))?;
    let what = format!("CertificateRequest {namespace}/{}", name_of(object));
    Ok(match api.create(&PostParams::default(), &request).await {
        Ok(created) => {
            let stamped =
                created.data.pointer("/spec/username").and_then(Value::as_str).unwrap_or_default();
            format!(
                "{what} created by {username}; webhook.cert-manager.io stamped username {stamped}"
            )
        }
        Err(kube::Error::Api(status)) => format!("{what} refused: {}", status.message),
        Err(err) => return Err(DevError::Demo(format!("{what}: {err}"))),
    })
}

async fn apply(client: &kube::Client, object: &Value) -> Result<(), DevError> {
    let resource = resource(object)?;
    let api: Api<DynamicObject> =
        match object.pointer("/metadata/namespace").and_then(Value::as_str) {
            Some(namespace) => Api::namespaced_with(client.clone(), namespace, &resource),
            None => Api::all_with(client.clone(), &resource),
        };
    api.patch(
        &name_of(object),
        &PatchParams::apply("certgate-demo").force(),
        &Patch::Apply(object),
    )
    .await
    .map_err(|e| DevError::Demo(format!("{} {}: {e}", kind_of(object), name_of(object))))?;
    let namespace = object.pointer("/metadata/namespace").and_then(Value::as_str);
    tracing::info!(
        kind = %kind_of(object),
        namespace = namespace.unwrap_or_default(),
        name = %name_of(object),
        "applied"
    );
    Ok(())
}

/// Every object the decisions depend on, as stored, one JSON document per line.
async fn read_back(client: &kube::Client) -> Result<String, DevError> {
    let mut documents = String::new();
    for (group, version, kind, plural) in READ_BACK {
        let resource =
            ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk(group, version, kind), plural);
        let api: Api<DynamicObject> = Api::all_with(client.clone(), &resource);
        let listed = api
            .list(&Default::default())
            .await
            .map_err(|e| DevError::Demo(format!("list {plural}: {e}")))?;
        for item in listed.items {
            let mut object =
                serde_json::to_value(&item).map_err(|e| DevError::Demo(e.to_string()))?;
            object["apiVersion"] = Value::String(resource.api_version.clone());
            object["kind"] = Value::String(kind.to_owned());
            documents.push_str("---\n");
            documents.push_str(&object.to_string());
            documents.push('\n');
        }
    }
    Ok(documents)
}

/// The API resource of one of the examples' objects, from [`READ_BACK`] (every kind the
/// examples hold is there).
fn resource(object: &Value) -> Result<ApiResource, DevError> {
    let kind = kind_of(object);
    READ_BACK
        .iter()
        .find(|(_, _, known, _)| *known == kind)
        .map(|(group, version, kind, plural)| {
            ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk(group, version, kind), plural)
        })
        .ok_or_else(|| {
            let kind = certgate_gofmt::quote(kind);
            DevError::Demo(format!("the examples hold a {kind}, which the demo does not apply"))
        })
}

fn kind_of(object: &Value) -> &str {
    object["kind"].as_str().unwrap_or_default()
}

fn name_of(object: &Value) -> String {
    object.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default().to_owned()
}
