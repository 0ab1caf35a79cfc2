//! Mutual TLS on the xDS server (`serve_tls`): a real Envoy 1.40 started from the bootstrap
//! `certgate edge bootstrap` writes (client certificate, CA, server name `contour`) connects
//! and acknowledges what it is served; TLS clients without a certificate, or with one from
//! another CA, are refused; rotated server certificate files are served to the next client
//! without a restart, and a half-written rotation is not.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use certgate_edge::bootstrap::{BootstrapConfig, render};
use certgate_edge::state::Limits;
use certgate_edge::tls::{ReloadingTls, XdsTlsFiles};
use certgate_edge::{EdgeMetrics, Snapshot, SnapshotCache, TypeUrl, serve_tls};
use envoy_types::pb::envoy::config::cluster::v3::Cluster;
use envoy_types::pb::envoy::config::cluster::v3::cluster::{ClusterDiscoveryType, DiscoveryType};
use envoy_types::pb::google::protobuf::{Any, Duration as ProtoDuration};
use prost::{Message, Name};
use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use support::envoy_binary;
use tokio::io::AsyncWriteExt;

/// Bounds every wait (Envoy's start, its reconnects); nothing is measured.
const HANG_GUARD: Duration = Duration::from_secs(90);

struct Ca {
    params: CertificateParams,
    key: KeyPair,
    pem: String,
}

impl Ca {
    fn new(name: &str) -> Ca {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        let key = KeyPair::generate().unwrap();
        let pem = params.self_signed(&key).unwrap().pem();
        Ca { params, key, pem }
    }

    /// A leaf for `dns` (server) or a client certificate, as (certificate PEM, key PEM).
    fn issue(&self, dns: &str, server: bool, common_name: &str) -> (String, String) {
        let mut params = CertificateParams::new(vec![dns.to_owned()]).unwrap();
        params.distinguished_name.push(DnType::CommonName, common_name);
        params.extended_key_usages = vec![if server {
            ExtendedKeyUsagePurpose::ServerAuth
        } else {
            ExtendedKeyUsagePurpose::ClientAuth
        }];
        let key = KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &Issuer::from_params(&self.params, &self.key)).unwrap();
        (cert.pem(), key.serialize_pem())
    }
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// One cluster Envoy accepts (static, no endpoints), so a CDS ACK shows a working stream.
fn snapshot() -> Snapshot {
    let cluster = Cluster {
        name: "backend".into(),
        cluster_discovery_type: Some(ClusterDiscoveryType::Type(DiscoveryType::Static as i32)),
        connect_timeout: Some(ProtoDuration { seconds: 1, nanos: 0 }),
        ..Cluster::default()
    };
    let mut builder = Snapshot::builder();
    let any = Any { type_url: Cluster::type_url(), value: cluster.encode_to_vec() };
    builder.add(TypeUrl::Cluster, "backend", any).unwrap();
    builder.build()
}

struct Pki {
    dir: tempfile::TempDir,
    ca: Ca,
    files: XdsTlsFiles,
    client: (PathBuf, PathBuf),
}

fn pki() -> Pki {
    let dir = tempfile::tempdir().unwrap();
    let ca = Ca::new("certgate xDS test CA");
    let (server_cert, server_key) = ca.issue("contour", true, "xds server 1");
    let (client_cert, client_key) = ca.issue("envoy", false, "envoy");
    let files = XdsTlsFiles {
        cert: write(dir.path(), "server.crt", &server_cert),
        key: write(dir.path(), "server.key", &server_key),
        client_ca: write(dir.path(), "ca.crt", &ca.pem),
    };
    let client = (
        write(dir.path(), "client.crt", &client_cert),
        write(dir.path(), "client.key", &client_key),
    );
    Pki { dir, ca, files, client }
}

struct Running {
    port: u16,
    metrics: EdgeMetrics,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

async fn start(files: &XdsTlsFiles) -> Running {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let cache = SnapshotCache::new();
    cache.set(snapshot());
    let metrics = EdgeMetrics::default();
    let tls = Arc::new(ReloadingTls::load(files.clone()).expect("usable TLS files"));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(serve_tls(listener, tls, cache, metrics.clone(), Limits::default(), async {
        let _ = stopped.await;
    }));
    Running { port, metrics, stop: Some(stop) }
}

/// A TLS client of the xDS server trusting `ca`, presenting `client` if given: the server's
/// certificate on success, the error otherwise (TLS 1.3 reports a refused client certificate
/// at the first read after the handshake, so one is attempted).
async fn connect(
    port: u16,
    ca: &str,
    client: Option<(&str, &str)>,
) -> Result<CertificateDer<'static>, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut roots = rustls::RootCertStore::empty();
    for cert in rustls::pki_types::pem::PemObject::pem_slice_iter(ca.as_bytes()) {
        roots.add(cert.unwrap()).unwrap();
    }
    let builder = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots);
    let mut config = match client {
        None => builder.with_no_client_auth(),
        Some((cert, key)) => {
            let chain: Vec<CertificateDer<'static>> =
                rustls::pki_types::pem::PemObject::pem_slice_iter(cert.as_bytes())
                    .map(Result::unwrap)
                    .collect();
            let key: PrivateKeyDer<'static> =
                rustls::pki_types::pem::PemObject::from_pem_slice(key.as_bytes()).unwrap();
            builder.with_client_auth_cert(chain, key).unwrap()
        }
    };
    config.alpn_protocols = vec![b"h2".to_vec()];
    let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
    let tcp =
        tokio::net::TcpStream::connect(("127.0.0.1", port)).await.map_err(|e| e.to_string())?;
    let name = ServerName::try_from("contour").unwrap();
    let mut tls = connector.connect(name, tcp).await.map_err(|e| e.to_string())?;
    // The HTTP/2 preface, then a read: a refused client certificate shows here in TLS 1.3.
    tls.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n").await.map_err(|e| e.to_string())?;
    let mut buf = [0u8; 9];
    tokio::io::AsyncReadExt::read_exact(&mut tls, &mut buf).await.map_err(|e| e.to_string())?;
    let (_, session) = tls.get_ref();
    session
        .peer_certificates()
        .and_then(|chain| chain.first().cloned())
        .ok_or_else(|| "no server certificate".to_owned())
}

fn common_name(cert: &CertificateDer<'_>) -> String {
    let (_, parsed) = x509_parser::parse_x509_certificate(cert.as_ref()).unwrap();
    parsed.subject().iter_common_name().next().unwrap().as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_need_a_certificate_of_the_ca() {
    let pki = pki();
    let server = start(&pki.files).await;
    let (cert, key) = (
        std::fs::read_to_string(&pki.client.0).unwrap(),
        std::fs::read_to_string(&pki.client.1).unwrap(),
    );
    let served = connect(server.port, &pki.ca.pem, Some((&cert, &key))).await;
    assert_eq!(served.map(|c| common_name(&c)), Ok("xds server 1".to_owned()));

    let without = connect(server.port, &pki.ca.pem, None).await;
    assert!(without.is_err(), "a client without a certificate was served");

    let other = Ca::new("another CA");
    let (other_cert, other_key) = other.issue("envoy", false, "impostor");
    let impostor = connect(server.port, &pki.ca.pem, Some((&other_cert, &other_key))).await;
    assert!(impostor.is_err(), "a client certificate of another CA was accepted");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rotated_files_are_served_to_the_next_client_and_a_half_written_rotation_is_not() {
    let pki = pki();
    let server = start(&pki.files).await;
    let client = (
        std::fs::read_to_string(&pki.client.0).unwrap(),
        std::fs::read_to_string(&pki.client.1).unwrap(),
    );
    let client = Some((client.0.as_str(), client.1.as_str()));

    // A new certificate whose key is not written yet: refused, the old pair still served.
    let (rotated_cert, rotated_key) = pki.ca.issue("contour", true, "xds server 2");
    // Another length guarantees the change is seen even within one mtime tick.
    write(pki.dir.path(), "server.crt", &format!("{rotated_cert}\n"));
    let served = connect(server.port, &pki.ca.pem, client).await.map(|c| common_name(&c));
    assert_eq!(served, Ok("xds server 1".to_owned()));

    write(pki.dir.path(), "server.key", &format!("{rotated_key}\n"));
    let served = connect(server.port, &pki.ca.pem, client).await.map(|c| common_name(&c));
    assert_eq!(served, Ok("xds server 2".to_owned()));
}

/// The Envoy of one test, killed when dropped.
struct Envoy {
    child: Child,
    log: PathBuf,
}

impl Drop for Envoy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_envoy_bootstrapped_with_tls_is_served() {
    let pki = pki();
    let server = start(&pki.files).await;
    let config = BootstrapConfig {
        xds_port: server.port,
        admin_address: pki.dir.path().join("admin.sock").display().to_string(),
        ca_file: Some(pki.files.client_ca.clone()),
        cert_file: Some(pki.client.0.clone()),
        key_file: Some(pki.client.1.clone()),
        ..BootstrapConfig::default()
    };
    let files = render(&config).unwrap();
    let bootstrap = write(pki.dir.path(), "envoy.json", &files.bootstrap.to_string());
    let log = pki.dir.path().join("envoy.log");
    let child = Command::new(envoy_binary())
        .args(["--disable-hot-restart", "--concurrency", "1", "--log-level", "info"])
        .args(["--service-node", "envoy-0", "--service-cluster", "certgate"])
        .args(["--base-id", &(std::process::id() % 60_000 + 3_000).to_string()])
        .arg("--log-path")
        .arg(&log)
        .arg("-c")
        .arg(&bootstrap)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("envoy starts");
    let envoy = Envoy { child, log };
    let acked = tokio::time::timeout(HANG_GUARD, async {
        while server.metrics.acks(TypeUrl::Cluster) == 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    assert!(
        acked.is_ok(),
        "Envoy never acknowledged the clusters over mutual TLS; its log:\n{}",
        std::fs::read_to_string(&envoy.log).unwrap_or_default()
    );
    assert_eq!(server.metrics.nacks(TypeUrl::Cluster), 0);
}
