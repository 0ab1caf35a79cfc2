//! The HTTPS server: TLS with a generated CA on loopback, the API routes, shutdown.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Weak};
use std::time::Duration;

use axum::Router;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use certgate_store::{Store, StoreOptions};
use certgate_webhook::{DevCertificates, server_config};
use serde_json::Value;

use crate::registry::Registry;
use crate::status::ApiError;
use crate::validation::Schemas;
use crate::{discovery, openapi, version};

/// Everything the handlers share.
pub struct Sandbox {
    pub registry: Registry,
    pub store: Store,
    pub schemas: Schemas,
    /// The address clients reach the server at (for `/api`'s serverAddressByClientCIDRs).
    pub address: SocketAddr,
    pub bookmark_interval: Duration,
    /// For background work (namespace termination) that outlives a request.
    pub(crate) this: Weak<Sandbox>,
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
}

impl Default for SandboxOptions {
    /// A free loopback port, state in memory, a bookmark every 10 s.
    fn default() -> SandboxOptions {
        SandboxOptions {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            data_dir: None,
            bookmark_interval: Duration::from_secs(10),
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
    let store = Store::open(StoreOptions {
        data_dir: options.data_dir.clone(),
        ..StoreOptions::default()
    })?;
    let sandbox = Arc::new_cyclic(|this| Sandbox {
        registry: Registry::default(),
        store,
        schemas: Schemas::default(),
        address,
        bookmark_interval: options.bookmark_interval,
        this: this.clone(),
    });
    crate::bootstrap::run(&sandbox).await.map_err(|err| StartError::Bootstrap(err.message))?;
    let handle = axum_server::Handle::new();
    let server = axum_server::from_tcp_rustls(
        listener,
        axum_server::tls_rustls::RustlsConfig::from_config(tls),
    )
    .map_err(|source| StartError::Listen { addr: options.listen, source })?
    .handle(handle.clone());
    tokio::spawn(server.serve(router(sandbox).into_make_service()));
    Ok(RunningSandbox { address, ca_pem: certificates.ca_pem, token: new_token(), handle })
}

fn new_token() -> String {
    use std::collections::hash_map::RandomState;
    use std::hash::BuildHasher;
    let part = || format!("{:016x}", RandomState::new().hash_one(()));
    format!("sandbox-{}{}", part(), part())
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
        // Every other path: a resource URL, or 404 from the resolver.
        .fallback(crate::api::handle)
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
