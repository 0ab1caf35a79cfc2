//! `certgate edge bootstrap PATH`: Contour's `contour bootstrap`, for certgate's xDS server.

use std::io::Write;
use std::path::{Path, PathBuf};

use certgate_edge::bootstrap::{BootstrapConfig, render};
use clap::Args;

pub const BOOTSTRAP_LONG_ABOUT: &str = "\
Write the Envoy bootstrap that points an Envoy at certgate's xDS server, as `contour bootstrap`
writes it: the same flags, defaults and environment variables, so an Envoy DaemonSet written for
Contour needs only its image and command changed.

The bootstrap defines the xDS cluster `contour` (HTTP/2; STATIC for an IP address, STRICT_DNS for
a name), takes listeners and clusters from it over gRPC, and puts Envoy's admin interface on the
Unix socket --admin-address. With --envoy-cafile, --envoy-cert-file and --envoy-key-file (all
three or none) Envoy speaks mutual TLS to the xDS server, which must present a certificate for
the DNS name --xds-server-name. With --resources-dir the client certificate is referenced through
two file-based SDS resources written under DIR/sds/, so Envoy reloads a rotated certificate
without a restart.

PATH '-' writes the bootstrap to standard output (then --resources-dir cannot be used).

The bootstrap names no node: start Envoy with --service-node (the pod's name) and
--service-cluster, as Contour's Envoy DaemonSet does.

  certgate edge bootstrap /config/envoy.json --xds-address=certgate --xds-port=8001 \\
    --envoy-cafile=/certs/ca.crt --envoy-cert-file=/certs/tls.crt --envoy-key-file=/certs/tls.key";

/// Arguments of `certgate edge bootstrap` (Contour's names).
#[derive(Debug, Args)]
pub struct BootstrapArgs {
    /// Configuration file ('-' for standard output).
    pub path: PathBuf,
    /// xDS gRPC API address.
    #[arg(long, default_value = "127.0.0.1")]
    pub xds_address: String,
    /// xDS gRPC API port.
    #[arg(long, default_value_t = 8001)]
    pub xds_port: u16,
    /// Path to Envoy admin unix domain socket.
    #[arg(long, default_value = "/admin/admin.sock")]
    pub admin_address: String,
    /// DEPRECATED in Contour and unused: Envoy admin interface port.
    #[arg(long, hide = true)]
    pub admin_port: Option<u16>,
    /// DNS resolution policy for the xDS cluster's name: v4, v6, auto or all.
    #[arg(long, default_value = "auto")]
    pub dns_lookup_family: String,
    /// CA filename for Envoy secure xDS gRPC communication.
    #[arg(long, env = "ENVOY_CAFILE")]
    pub envoy_cafile: Option<PathBuf>,
    /// Client certificate filename for Envoy secure xDS gRPC communication.
    #[arg(long, env = "ENVOY_CERT_FILE")]
    pub envoy_cert_file: Option<PathBuf>,
    /// Client key filename for Envoy secure xDS gRPC communication.
    #[arg(long, env = "ENVOY_KEY_FILE")]
    pub envoy_key_file: Option<PathBuf>,
    /// The namespace the Envoy container will run in (used in stat names).
    #[arg(long, env = "CONTOUR_NAMESPACE", default_value = "projectcontour")]
    pub namespace: String,
    /// Directory where the SDS configuration files for the client certificate are written.
    #[arg(long, value_name = "DIR")]
    pub resources_dir: Option<PathBuf>,
    /// The DNS name the xDS server's certificate must carry.
    #[arg(long, default_value = "contour")]
    pub xds_server_name: String,
    /// Maximum heap size in bytes until the overload manager stops accepting new connections.
    #[arg(long, default_value_t = 0)]
    pub overload_max_heap: u64,
    /// Envoy's global downstream connection limit.
    #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
    pub overload_downstream_max_conn: i64,
}

#[derive(Debug, thiserror::Error)]
pub enum BootstrapCommandError {
    #[error("{0}")]
    Config(#[from] certgate_edge::bootstrap::BootstrapError),
    /// Contour checks the files exist and are not empty before writing anything.
    #[error("{flag} {path}: {problem}")]
    TlsFile { flag: &'static str, path: String, problem: String },
    #[error("--resources-dir cannot be used when the bootstrap goes to standard output ('-')")]
    ResourcesWithStdout,
    #[error("cannot write {path}: {source}")]
    Write {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

/// Checks the TLS files, renders, and writes the files (SDS files first, so the bootstrap
/// never names a file that is not there yet).
pub fn run_bootstrap(
    args: &BootstrapArgs,
    stdout: &mut impl Write,
) -> Result<(), BootstrapCommandError> {
    let to_stdout = args.path == Path::new("-");
    if to_stdout && args.resources_dir.is_some() {
        return Err(BootstrapCommandError::ResourcesWithStdout);
    }
    let config = BootstrapConfig {
        xds_address: args.xds_address.clone(),
        xds_port: args.xds_port,
        admin_address: args.admin_address.clone(),
        namespace: args.namespace.clone(),
        dns_lookup_family: args.dns_lookup_family.clone(),
        ca_file: args.envoy_cafile.clone(),
        cert_file: args.envoy_cert_file.clone(),
        key_file: args.envoy_key_file.clone(),
        resources_dir: args.resources_dir.clone(),
        xds_server_name: args.xds_server_name.clone(),
        overload_max_heap: args.overload_max_heap,
        overload_downstream_max_conn: args.overload_downstream_max_conn,
    };
    let files = render(&config)?;
    for (flag, file) in [
        ("--envoy-cafile", &args.envoy_cafile),
        ("--envoy-cert-file", &args.envoy_cert_file),
        ("--envoy-key-file", &args.envoy_key_file),
    ] {
        if let Some(path) = file {
            check_file(flag, path)?;
        }
    }
    for (path, content) in &files.sds {
        write_file(path, content)?;
    }
    let text = pretty(&files.bootstrap);
    if to_stdout {
        stdout
            .write_all(text.as_bytes())
            .map_err(|source| BootstrapCommandError::Write { path: "-".to_owned(), source })
    } else {
        write_file(&args.path, &files.bootstrap)
    }
}

fn check_file(flag: &'static str, path: &Path) -> Result<(), BootstrapCommandError> {
    let problem = match std::fs::metadata(path) {
        Ok(meta) if meta.len() == 0 => "the file is empty".to_owned(),
        Ok(_) => return Ok(()),
        Err(error) => error.to_string(),
    };
    Err(BootstrapCommandError::TlsFile { flag, path: path.display().to_string(), problem })
}

fn pretty(value: &serde_json::Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

/// Written whole or not at all: a half-written bootstrap would crash Envoy at start.
fn write_file(path: &Path, value: &serde_json::Value) -> Result<(), BootstrapCommandError> {
    let failed = |source| BootstrapCommandError::Write { path: path.display().to_string(), source };
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(failed)?;
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(failed)?;
    // Envoy may run as another user than the init container that writes it (no secret here:
    // the files hold paths, not keys).
    use std::os::unix::fs::PermissionsExt as _;
    file.as_file().set_permissions(std::fs::Permissions::from_mode(0o644)).map_err(failed)?;
    file.write_all(pretty(value).as_bytes()).map_err(failed)?;
    file.persist(path).map_err(|e| failed(e.error))?;
    Ok(())
}
