//! The HTTPS server: TLS with a generated CA on loopback, the API routes, shutdown.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Weak};
use std::time::Duration;

use axum::Router;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use certgate_serving::{ConnectionPolicy, DevCertificates, server_config};
use certgate_store::{Store, StoreOptions};
use serde_json::Value;

use certgate_access::{Authenticator, StaticUsers, TokenSigner};
use certgate_dispatch::{Configurations, Dispatcher};
use certgate_rbac::RbacAuthorizer;

use crate::derived::Derived;
use crate::registry::Registry;
use crate::status::ApiError;
use crate::validation::Schemas;
use crate::{discovery, openapi, version};

/// Everything the handlers share.
pub struct Sandbox {
    pub registry: Registry,
    pub store: Store,
    pub schemas: Schemas,
    /// RBAC over the stored Roles and bindings, rebuilt after they change.
    pub(crate) rbac: Derived<RbacAuthorizer>,
    /// The registered admission webhooks, rebuilt after their configurations change.
    pub(crate) webhook_configurations: Derived<Configurations>,
    pub(crate) dispatcher: Dispatcher,
    /// Admin token, static users, service-account tokens.
    pub(crate) authenticator: Authenticator,
    /// The address clients reach the server at (for `/api`'s serverAddressByClientCIDRs).
    pub address: SocketAddr,
    pub bookmark_interval: Duration,
    /// For background work (namespace termination) that outlives a request.
    pub(crate) this: Weak<Sandbox>,
}

impl Sandbox {
    /// The authorizer for the RBAC objects stored now.
    pub(crate) fn authorizer(&self) -> Arc<RbacAuthorizer> {
        self.rbac.get(|| crate::rbac::build(self))
    }

    /// The webhook configurations stored now.
    pub(crate) fn webhooks(&self) -> Arc<Configurations> {
        self.webhook_configurations.get(|| crate::admission::build(self))
    }

    /// After a write or delete of an object of `target`'s kind: drop what it derives.
    pub(crate) fn changed(&self, target: &crate::target::Target) {
        if crate::rbac::is_rbac(target) {
            self.rbac.invalidate();
        }
        if crate::admission::is_webhook_configuration(target) {
            self.webhook_configurations.invalidate();
        }
    }
}

/// How to start the sandbox.
#[derive(Clone, Debug)]
pub struct SandboxOptions {
    /// Must be a loopback address: the sandbox is for one machine.
    pub listen: SocketAddr,
    /// `None`: state in memory only. `Some(dir)`: every write is durable there before it is
    /// acknowledged, and a restart with the same directory keeps every object.
    pub data_dir: Option<PathBuf>,
    /// How often a watch that allows bookmarks gets one.
    pub bookmark_interval: Duration,
    /// Static users (`--users FILE`) besides the admin of the written kubeconfig.
    pub users: StaticUsers,
    /// Timeouts and limits for client connections (slow or idle clients are closed; a
    /// watch in progress is not).
    pub connections: ConnectionPolicy,
}

impl Default for SandboxOptions {
    /// A free loopback port, state in memory, a bookmark every 10 s, the default
    /// connection policy.
    fn default() -> SandboxOptions {
        SandboxOptions {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            data_dir: None,
            bookmark_interval: Duration::from_secs(10),
            users: StaticUsers::empty(),
            connections: ConnectionPolicy::default(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("the sandbox listens on loopback only; {0} is not a loopback address")]
    NotLoopback(SocketAddr),
    #[error("cannot listen on {addr}: {source}")]
    Listen { addr: SocketAddr, source: std::io::Error },
    #[error("cannot create the sandbox's certificates: {0}")]
    Certificates(String),
    #[error("cannot open the sandbox's storage: {0}")]
    Storage(#[from] certgate_store::StoreError),
    #[error("cannot install the built-in objects: {0}")]
    Bootstrap(String),
    #[error("the operating system's random number generator failed; cannot make an admin token")]
    Random,
    #[error("cannot use the static users: {0}")]
    Users(String),
    #[error("cannot load or create the service-account signing key {path}: {message}")]
    SigningKey { path: PathBuf, message: String },
}

/// A running sandbox.
pub struct RunningSandbox {
    pub address: SocketAddr,
    /// The CA that signed the serving certificate (PEM): what clients must trust.
    pub ca_pem: String,
    /// The bearer token the written kubeconfig uses.
    pub token: String,
    handle: axum_server::Handle<SocketAddr>,
}

impl RunningSandbox {
    /// A kubeconfig for this sandbox.
    pub fn kubeconfig(&self) -> String {
        crate::kubeconfig::render(self.address, &self.ca_pem, &self.token)
    }

    /// Stops accepting connections and closes the open ones.
    pub fn shutdown(&self) {
        self.handle.shutdown();
    }
}

/// Starts the sandbox on `options.listen` (port 0 picks a free port).
pub async fn start(options: SandboxOptions) -> Result<RunningSandbox, StartError> {
    if !options.listen.ip().is_loopback() {
        return Err(StartError::NotLoopback(options.listen));
    }
    let certificates =
        DevCertificates::generate(&[]).map_err(|e| StartError::Certificates(e.to_string()))?;
    let tls = server_config(&certificates.serving)
        .map_err(|e| StartError::Certificates(e.to_string()))?;
    let listener = std::net::TcpListener::bind(options.listen)
        .map_err(|source| StartError::Listen { addr: options.listen, source })?;
    listener
        .set_nonblocking(true)
        .map_err(|source| StartError::Listen { addr: options.listen, source })?;
    let address = listener
        .local_addr()
        .map_err(|source| StartError::Listen { addr: options.listen, source })?;
    let token = new_token()?;
    let signer = signing_key(options.data_dir.as_deref())?;
    let authenticator = Authenticator::new(&token, options.users.clone(), signer)
        .map_err(|err| StartError::Users(err.to_string()))?;
    let store = Store::open(StoreOptions {
        data_dir: options.data_dir.clone(),
        ..StoreOptions::default()
    })?;
    let sandbox = Arc::new_cyclic(|this| Sandbox {
        registry: Registry::default(),
        store,
        schemas: Schemas::default(),
        rbac: Derived::default(),
        webhook_configurations: Derived::default(),
        dispatcher: Dispatcher::new(),
        authenticator,
        address,
        bookmark_interval: options.bookmark_interval,
        this: this.clone(),
    });
    crate::bootstrap::run(&sandbox).await.map_err(|err| StartError::Bootstrap(err.message))?;
    let handle = axum_server::Handle::new();
    let server = certgate_serving::tls_server(
        listener,
        axum_server::tls_rustls::RustlsConfig::from_config(tls),
        &options.connections,
    )
    .map_err(|source| StartError::Listen { addr: options.listen, source })?
    .handle(handle.clone());
    tokio::spawn(server.serve(router(sandbox).into_make_service()));
    Ok(RunningSandbox { address, ca_pem: certificates.ca_pem, token, handle })
}

/// The file in `--data-dir` holding the service-account token signing key (PKCS#8, 0600),
/// so tokens stay valid across restarts.
pub const SERVICE_ACCOUNT_KEY_FILE: &str = "service-account-key.pk8";

/// The service-account token signing key: kept in the data directory, or new each start.
fn signing_key(data_dir: Option<&std::path::Path>) -> Result<TokenSigner, StartError> {
    let Some(dir) = data_dir else {
        return TokenSigner::generate().map_err(|err| StartError::SigningKey {
            path: PathBuf::new(),
            message: err.to_string(),
        });
    };
    let path = dir.join(SERVICE_ACCOUNT_KEY_FILE);
    let failed = |message: String| StartError::SigningKey { path: path.clone(), message };
    match std::fs::read(&path) {
        Ok(key) => TokenSigner::from_pkcs8(&key).map_err(|err| failed(err.to_string())),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            let signer = TokenSigner::generate().map_err(|err| failed(err.to_string()))?;
            certgate_store::files::private_dir(dir).map_err(|err| failed(err.to_string()))?;
            certgate_store::files::write_secret(&path, signer.pkcs8())
                .map_err(|err| failed(err.to_string()))?;
            Ok(signer)
        }
        Err(err) => Err(failed(err.to_string())),
    }
}

/// The admin token: 256 bits from the operating system's CSPRNG (it grants
/// `system:masters`).
fn new_token() -> Result<String, StartError> {
    use ring::rand::SecureRandom as _;
    let mut bytes = [0u8; 32];
    ring::rand::SystemRandom::new().fill(&mut bytes).map_err(|_| StartError::Random)?;
    Ok(format!("sandbox-{}", bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()))
}

fn router(sandbox: Arc<Sandbox>) -> Router {
    Router::new()
        .route("/version", get(|| async { json(version::document()) }))
        .route("/api", get(core_versions))
        .route("/api/{version}", get(core_resources))
        .route("/apis", get(groups))
        .route("/apis/{group}", get(group))
        .route("/apis/{group}/{version}", get(group_resources))
        .route("/openapi/v3", get(openapi_index))
        .route("/openapi/v3/api/{version}", get(openapi_core))
        .route("/openapi/v3/apis/{group}/{version}", get(openapi_group))
        .route("/healthz", get(|| async { "ok" }))
        .route("/livez", get(|| async { "ok" }))
        .route("/readyz", get(|| async { "ok" }))
        // Every other path: a resource URL, or 404 from the resolver.
        .fallback(crate::api::handle)
        // Authentication, impersonation and authorization before any handler.
        .layer(axum::middleware::from_fn_with_state(Arc::clone(&sandbox), crate::gate::filter))
        // The handlers enforce the API server's 3 MiB limit with its error; axum's own
        // (2 MiB) would answer first.
        .layer(axum::extract::DefaultBodyLimit::max(crate::api::MAX_BODY_BYTES + 1))
        .with_state(sandbox)
}

fn json(value: Value) -> Response {
    axum::Json(value).into_response()
}

fn found(value: Option<Value>) -> Response {
    value.map(json).unwrap_or_else(|| ApiError::no_route().into_response())
}

async fn core_versions(State(s): State<Arc<Sandbox>>) -> Response {
    json(discovery::core_versions(&s.address.to_string()))
}

async fn core_resources(State(s): State<Arc<Sandbox>>, Path(version): Path<String>) -> Response {
    found(discovery::resource_list(&s.registry, "", &version))
}

async fn groups(State(s): State<Arc<Sandbox>>) -> Response {
    json(discovery::group_list(&s.registry))
}

async fn group(State(s): State<Arc<Sandbox>>, Path(group): Path<String>) -> Response {
    found(discovery::group(&s.registry, &group))
}

async fn group_resources(
    State(s): State<Arc<Sandbox>>,
    Path((group, version)): Path<(String, String)>,
) -> Response {
    found(discovery::resource_list(&s.registry, &group, &version))
}

async fn openapi_index(State(s): State<Arc<Sandbox>>) -> Response {
    json(openapi::index(&s.registry))
}

async fn openapi_core(State(s): State<Arc<Sandbox>>, Path(version): Path<String>) -> Response {
    found(openapi::group_version(&s.registry, "", &version))
}

async fn openapi_group(
    State(s): State<Arc<Sandbox>>,
    Path((group, version)): Path<(String, String)>,
) -> Response {
    found(openapi::group_version(&s.registry, &group, &version))
}
