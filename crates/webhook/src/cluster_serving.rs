//! `certgate webhook --dynamic-serving-ca-secret-name`: the Kubernetes side of dynamic serving
//! certificates (the decisions are in `crate::dynamic_serving`).
//!
//! One loop per replica. Each pass reads the CA Secret and, as planned, creates it (a lost
//! creation race reads the winner's), replaces its CA or tidies its bundle with an update on
//! the read resourceVersion (a conflict re-reads); then writes the bundle into the webhook
//! configurations named by `--inject-ca-bundle`; then, if due, signs a new leaf in memory and
//! hands it to the server. Injection comes before a new leaf is served, so the API server
//! trusts a new CA before any replica serves a certificate signed by it. Passes run every
//! [`RESYNC_INTERVAL`] (this is how a rotation by another replica is picked up: plain GETs,
//! so the service account needs no list or watch on Secrets), sooner when a leaf or the CA
//! is due, and after a failure with a backoff from one second.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::dynamic_serving::inject::{holds_newer_ca, set_ca_bundle};
use crate::dynamic_serving::{
    Authority, CA_CRT, CaPlan, CaSecretContents, CaSecretData, CertificatePublisher, GenerateError,
    InjectError, Leaf, SECRET_TYPE, ServingNames, TLS_CRT, TLS_KEY, WriteReason, leaf_due,
    next_pass, plan_ca, sign_leaf,
};
use certgate_clock::{Clock, rfc3339};
use k8s_openapi::ByteString;
use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
};
use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::{Api, ApiResource, DynamicObject, PostParams};

/// How often the Secret is re-read and the webhook configurations checked when nothing is due
/// sooner: the longest a replica takes to notice a CA rotated by another one (it keeps
/// serving a valid leaf of the previous CA meanwhile, which the bundle still trusts).
pub const RESYNC_INTERVAL: Duration = Duration::from_secs(60);

/// How many times in a row a Secret write may lose to another writer within one pass.
const WRITE_ATTEMPTS: usize = 5;

/// The validated settings of the mode.
#[derive(Debug, Clone)]
pub struct DynamicServing {
    pub secret_name: String,
    pub namespace: String,
    pub names: ServingNames,
    pub leaf_duration: Duration,
    pub ca_duration: Duration,
    /// Webhook configurations (either kind) to write the CA bundle into.
    pub inject: Vec<String>,
}

/// Why one pass failed; the loop logs it and retries.
#[derive(Debug, thiserror::Error)]
pub enum ServingError {
    #[error("cannot read Secret {namespace}/{name}: {reason}; certgate needs `get` on this Secret")]
    ReadSecret { namespace: String, name: String, reason: String },
    #[error(
        "cannot create Secret {namespace}/{name}: {reason}; certgate needs `create` on secrets in namespace {namespace}, which must exist"
    )]
    CreateSecret { namespace: String, name: String, reason: String },
    #[error(
        "cannot update Secret {namespace}/{name}: {reason}; certgate needs `update` on this Secret (delete an immutable Secret so certgate can recreate it)"
    )]
    UpdateSecret { namespace: String, name: String, reason: String },
    #[error(
        "Secret {namespace}/{name} changed under certgate {attempts} times in a row while it wrote it; retrying"
    )]
    Contended { namespace: String, name: String, attempts: usize },
    #[error("cannot make certificates with the CA of Secret {namespace}/{name}: {source}")]
    Generate {
        namespace: String,
        name: String,
        #[source]
        source: GenerateError,
    },
    #[error("cannot read {kind} {name}: {reason}; certgate needs `get` on {resource} named {name}")]
    ReadConfiguration { kind: &'static str, resource: &'static str, name: String, reason: String },
    #[error("cannot set the CA bundle of {kind} {name}: {source}; fix the object's webhooks")]
    MalformedConfiguration {
        kind: &'static str,
        name: String,
        #[source]
        source: InjectError,
    },
    #[error(
        "cannot update {kind} {name}: {reason}; certgate needs `update` on {resource} named {name}"
    )]
    UpdateConfiguration { kind: &'static str, resource: &'static str, name: String, reason: String },
    #[error(
        "{kind} {name} trusts a CA newer than any in Secret {secret} as last read (another replica rotated it?); re-reading the Secret before writing the bundle"
    )]
    NewerBundle { kind: &'static str, name: String, secret: String },
    #[error(
        "no MutatingWebhookConfiguration or ValidatingWebhookConfiguration named {name} exists (--inject-ca-bundle); certgate injects the CA bundle once it is created"
    )]
    NoConfiguration { name: String },
}

/// The API server's message for `err`, without kube's debug dump.
fn reason(err: &kube::Error) -> String {
    match err {
        kube::Error::Api(status) if !status.message.is_empty() => {
            format!("{} (HTTP {})", status.message, status.code)
        }
        other => other.to_string(),
    }
}

fn is_api(err: &kube::Error, check: impl Fn(&kube::core::Status) -> bool) -> bool {
    matches!(err, kube::Error::Api(status) if check(status))
}

/// A webhook configuration kind certgate may write the bundle into.
struct ConfigurationKind {
    kind: &'static str,
    resource: &'static str,
    api: Api<DynamicObject>,
}

/// The loop's state: what it last read, injected and served.
struct Provider {
    config: DynamicServing,
    secrets: Api<Secret>,
    kinds: [ConfigurationKind; 2],
    authority: Option<Authority>,
    /// The resourceVersion of the Secret `authority` came from.
    secret_version: Option<String>,
    /// Per configuration, the Secret resourceVersion at which a write was held back because
    /// the configuration trusted a newer CA; a second time at the same version, the Secret
    /// wins (it was restored on purpose).
    held_back: BTreeMap<String, Option<String>>,
    leaf: Option<Leaf>,
}

/// Runs the loop until the task is aborted, publishing each new leaf to `publisher`.
pub async fn run(
    client: kube::Client,
    config: DynamicServing,
    publisher: CertificatePublisher,
    clock: impl Clock,
) {
    let kind = |kind, resource, api_resource: ApiResource| ConfigurationKind {
        kind,
        resource,
        api: Api::all_with(client.clone(), &api_resource),
    };
    let mut provider = Provider {
        secrets: Api::namespaced(client.clone(), &config.namespace),
        kinds: [
            kind(
                "MutatingWebhookConfiguration",
                "mutatingwebhookconfigurations",
                ApiResource::erase::<MutatingWebhookConfiguration>(&()),
            ),
            kind(
                "ValidatingWebhookConfiguration",
                "validatingwebhookconfigurations",
                ApiResource::erase::<ValidatingWebhookConfiguration>(&()),
            ),
        ],
        config,
        authority: None,
        secret_version: None,
        held_back: BTreeMap::new(),
        leaf: None,
    };
    tracing::info!(
        secret = %format!("{}/{}", provider.config.namespace, provider.config.secret_name),
        names = ?provider.config.names.as_slice(),
        inject = ?provider.config.inject,
        "dynamic serving certificates: starting"
    );
    let mut failures: u32 = 0;
    loop {
        let ok = provider.pass(&publisher, &clock).await;
        failures = if ok { 0 } else { failures.saturating_add(1) };
        let due = provider
            .leaf
            .iter()
            .map(|leaf| leaf.validity.renew_at())
            .chain(provider.authority.iter().map(|a| a.validity().renew_at()));
        tokio::time::sleep(next_pass(clock.now(), due, RESYNC_INTERVAL, failures)).await;
    }
}

impl Provider {
    /// One pass; false when anything failed (it was logged).
    async fn pass(&mut self, publisher: &CertificatePublisher, clock: &impl Clock) -> bool {
        let mut ok = true;
        match self.reconcile_secret(clock).await {
            Ok((authority, version)) => {
                self.authority = Some(authority);
                self.secret_version = version;
            }
            Err(err) => {
                ok = false;
                let keeping = if self.authority.is_some() {
                    "keeping the CA read before"
                } else {
                    "no serving certificate yet"
                };
                tracing::error!(error = %err, "cannot bring the CA Secret up to date; {keeping}");
            }
        }
        let Some(authority) = self.authority.clone() else {
            return false;
        };
        for name in self.config.inject.clone() {
            if let Err(err) = self.inject(&name, &authority).await {
                ok = false;
                match err {
                    ServingError::NewerBundle { .. } => tracing::info!("{err}"),
                    _ => tracing::warn!(error = %err, "CA bundle not injected; retrying"),
                }
            }
        }
        let now = clock.now();
        if authority.validity().expired(now) {
            // Only when the Secret could not be read for a third of the CA's lifetime.
            tracing::error!(
                ca_serial = %authority.serial(),
                ca_not_after = %rfc3339(authority.validity().not_after),
                "the CA expired and no new one could be read or written; still serving the previous certificate"
            );
            return false;
        }
        if let Some(why) = leaf_due(self.leaf.as_ref(), &authority, now) {
            match sign_leaf(&authority, &self.config.names, now, self.config.leaf_duration) {
                Ok(leaf) => {
                    tracing::info!(
                        serial = %leaf.serial,
                        not_after = %rfc3339(leaf.validity.not_after),
                        renew_at = %rfc3339(leaf.validity.renew_at()),
                        ca_serial = %authority.serial(),
                        reason = why.as_str(),
                        "signed a new serving certificate"
                    );
                    publisher.publish(leaf.pair.clone());
                    self.leaf = Some(leaf);
                }
                Err(source) => {
                    ok = false;
                    let err = ServingError::Generate {
                        namespace: self.config.namespace.clone(),
                        name: self.config.secret_name.clone(),
                        source,
                    };
                    tracing::error!(error = %err, "still serving the previous certificate, if any");
                }
            }
        }
        ok
    }

    /// Reads the Secret and brings it to the plan; returns the CA to use and the Secret's
    /// resourceVersion.
    async fn reconcile_secret(
        &self,
        clock: &impl Clock,
    ) -> Result<(Authority, Option<String>), ServingError> {
        let (namespace, name) = (&self.config.namespace, &self.config.secret_name);
        for _ in 0..WRITE_ATTEMPTS {
            let existing =
                self.secrets.get_opt(name).await.map_err(|err| ServingError::ReadSecret {
                    namespace: namespace.clone(),
                    name: name.clone(),
                    reason: reason(&err),
                })?;
            let data = existing.as_ref().map(secret_data);
            let plan =
                plan_ca(data.as_ref(), clock.now(), self.config.ca_duration).map_err(|source| {
                    ServingError::Generate {
                        namespace: namespace.clone(),
                        name: name.clone(),
                        source,
                    }
                })?;
            let (authority, why) = match plan {
                CaPlan::Use(authority) => {
                    let version = existing.and_then(|s| s.metadata.resource_version);
                    return Ok((authority, version));
                }
                CaPlan::Write { authority, reason } => (authority, reason),
            };
            let contents = authority.contents();
            let written = match existing {
                None => match self
                    .secrets
                    .create(&PostParams::default(), &self.new_secret(&contents))
                    .await
                {
                    Ok(secret) => secret,
                    Err(err) if is_api(&err, kube::core::Status::is_already_exists) => {
                        tracing::info!(
                            secret = %format!("{namespace}/{name}"),
                            "another replica created the CA Secret first; using its CA"
                        );
                        continue;
                    }
                    Err(err) => {
                        return Err(ServingError::CreateSecret {
                            namespace: namespace.clone(),
                            name: name.clone(),
                            reason: reason(&err),
                        });
                    }
                },
                Some(mut secret) => {
                    let data = secret.data.get_or_insert_with(BTreeMap::new);
                    for (key, value) in secret_entries(&contents) {
                        data.insert(key.to_owned(), value);
                    }
                    secret.string_data = None;
                    match self.secrets.replace(name, &PostParams::default(), &secret).await {
                        Ok(secret) => secret,
                        Err(err) if is_api(&err, kube::core::Status::is_conflict) => {
                            tracing::info!(
                                secret = %format!("{namespace}/{name}"),
                                "the CA Secret changed since it was read (another replica?); re-reading it"
                            );
                            continue;
                        }
                        Err(err) => {
                            return Err(ServingError::UpdateSecret {
                                namespace: namespace.clone(),
                                name: name.clone(),
                                reason: reason(&err),
                            });
                        }
                    }
                }
            };
            log_write(&why, namespace, name, &authority);
            return Ok((authority, written.metadata.resource_version));
        }
        Err(ServingError::Contended {
            namespace: namespace.clone(),
            name: name.clone(),
            attempts: WRITE_ATTEMPTS,
        })
    }

    fn new_secret(&self, contents: &CaSecretContents) -> Secret {
        Secret {
            metadata: ObjectMeta {
                name: Some(self.config.secret_name.clone()),
                namespace: Some(self.config.namespace.clone()),
                labels: Some(BTreeMap::from([(
                    "app.kubernetes.io/managed-by".to_owned(),
                    "certgate".to_owned(),
                )])),
                ..ObjectMeta::default()
            },
            type_: Some(SECRET_TYPE.to_owned()),
            data: Some(
                secret_entries(contents).into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
            ),
            ..Secret::default()
        }
    }

    /// Writes the bundle into the Mutating- and/or ValidatingWebhookConfiguration `name`.
    async fn inject(&mut self, name: &str, authority: &Authority) -> Result<(), ServingError> {
        let bundle_pem = authority.bundle().pem();
        let mut found = false;
        let mut denied = None;
        for index in 0..self.kinds.len() {
            let (kind, resource) = (self.kinds[index].kind, self.kinds[index].resource);
            let mut object = match self.kinds[index].api.get_opt(name).await {
                Ok(Some(object)) => object,
                Ok(None) => continue,
                Err(err) => {
                    let failure = ServingError::ReadConfiguration {
                        kind,
                        resource,
                        name: name.to_owned(),
                        reason: reason(&err),
                    };
                    // Permission for only the kind in use is enough.
                    if is_api(&err, kube::core::Status::is_forbidden) {
                        denied.get_or_insert(failure);
                        continue;
                    }
                    return Err(failure);
                }
            };
            found = true;
            let key = format!("{kind}/{name}");
            if holds_newer_ca(&object.data, authority.bundle())
                && self.held_back.get(&key) != Some(&self.secret_version)
            {
                self.held_back.insert(key, self.secret_version.clone());
                return Err(ServingError::NewerBundle {
                    kind,
                    name: name.to_owned(),
                    secret: format!("{}/{}", self.config.namespace, self.config.secret_name),
                });
            }
            let injection = set_ca_bundle(&mut object.data, &bundle_pem).map_err(|source| {
                ServingError::MalformedConfiguration { kind, name: name.to_owned(), source }
            })?;
            if injection.changed == 0 {
                continue;
            }
            // The object keeps the resourceVersion it was read at: a concurrent change makes
            // this a 409, retried at the next pass with what is then stored.
            self.kinds[index].api.replace(name, &PostParams::default(), &object).await.map_err(
                |err| ServingError::UpdateConfiguration {
                    kind,
                    resource,
                    name: name.to_owned(),
                    reason: reason(&err),
                },
            )?;
            tracing::info!(
                kind,
                name,
                webhooks = injection.changed,
                ca_certificates = authority.bundle().certificates().len(),
                "injected the CA bundle"
            );
        }
        match (found, denied) {
            (true, _) => Ok(()),
            (false, Some(denied)) => Err(denied),
            (false, None) => Err(ServingError::NoConfiguration { name: name.to_owned() }),
        }
    }
}

fn secret_data(secret: &Secret) -> CaSecretData<'_> {
    let get = |key: &str| {
        secret.data.as_ref().and_then(|data| data.get(key)).map(|value| value.0.as_slice())
    };
    CaSecretData { tls_crt: get(TLS_CRT), tls_key: get(TLS_KEY), ca_crt: get(CA_CRT) }
}

fn secret_entries(contents: &CaSecretContents) -> [(&'static str, ByteString); 3] {
    [
        (TLS_CRT, ByteString(contents.tls_crt.clone().into_bytes())),
        (TLS_KEY, ByteString(contents.tls_key.clone().into_bytes())),
        (CA_CRT, ByteString(contents.ca_crt.clone().into_bytes())),
    ]
}

fn log_write(why: &WriteReason, namespace: &str, name: &str, authority: &Authority) {
    let secret = format!("{namespace}/{name}");
    let serial = authority.serial();
    let not_after = rfc3339(authority.validity().not_after);
    let bundle = authority.bundle().certificates().len();
    match why {
        WriteReason::Invalid(_) => tracing::warn!(
            %secret, ca_serial = %serial, ca_not_after = %not_after, ca_certificates = bundle,
            "{why}"
        ),
        _ => tracing::info!(
            %secret, ca_serial = %serial, ca_not_after = %not_after, ca_certificates = bundle,
            "{why}"
        ),
    }
}
