//! `certgate edge bootstrap`: the Envoy bootstrap that points an Envoy at certgate's xDS
//! server, shaped as `contour bootstrap` writes it, so a Contour Envoy DaemonSet's init
//! container works with certgate by changing only the image and the command.
//!
//! What is the same as Contour's: the flags and their defaults; the `contour` xDS cluster (HTTP/2,
//! keepalive, circuit breakers, `STATIC` for an IP address and `STRICT_DNS` for a name); LDS and
//! CDS over per-type gRPC config sources naming that cluster (the resources served then name it
//! for RDS, EDS and SDS, as Contour's do); the admin interface on a Unix socket with an
//! `envoy-admin` cluster pointing at it; mutual TLS to the xDS server from three files, either
//! inline in the bootstrap or, with `--resources-dir`, through two file-based SDS resources that
//! Envoy reloads when the files change (certificate rotation without restarting Envoy).
//!
//! What is left out, and why: Contour's RTDS runtime layer (its `dynamic` layer blocks Envoy's
//! start until a runtime resource arrives, and certgate sets no runtime keys); the overload
//! manager flags (`--overload-max-heap`, `--overload-downstream-max-conn`) are accepted and
//! written as Contour writes them.

use std::net::IpAddr;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// The xDS cluster's name: Contour's, which the served resources' config sources name.
pub const XDS_CLUSTER: &str = "contour";
/// The SDS resource names of the xDS client certificate and validation context.
pub const SDS_CERTIFICATE: &str = "contour_xds_tls_certificate";
pub const SDS_VALIDATION: &str = "contour_xds_tls_validation_context";
const SDS_SUBDIRECTORY: &str = "sds";
const SDS_CERTIFICATE_FILE: &str = "xds-tls-certificate.json";
const SDS_VALIDATION_FILE: &str = "xds-validation-context.json";

/// What `certgate edge bootstrap` was asked for (Contour's flags).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BootstrapConfig {
    /// `--xds-address` (default 127.0.0.1).
    pub xds_address: String,
    /// `--xds-port` (default 8001).
    pub xds_port: u16,
    /// `--admin-address`: the admin interface's Unix socket (default /admin/admin.sock).
    pub admin_address: String,
    /// `--namespace` (default projectcontour): only in stat names.
    pub namespace: String,
    /// `--dns-lookup-family`: v4, v6, auto (default) or all.
    pub dns_lookup_family: String,
    /// `--envoy-cafile`, `--envoy-cert-file`, `--envoy-key-file`: all or none.
    pub ca_file: Option<PathBuf>,
    pub cert_file: Option<PathBuf>,
    pub key_file: Option<PathBuf>,
    /// `--resources-dir`: write the client certificate as SDS files there.
    pub resources_dir: Option<PathBuf>,
    /// The name the xDS server's certificate must carry (a DNS SAN): Contour's `contour`.
    pub xds_server_name: String,
    /// `--overload-max-heap` (bytes, 0: off) and `--overload-downstream-max-conn` (0: off).
    pub overload_max_heap: u64,
    pub overload_downstream_max_conn: i64,
}

impl Default for BootstrapConfig {
    fn default() -> Self {
        BootstrapConfig {
            xds_address: "127.0.0.1".to_owned(),
            xds_port: 8001,
            admin_address: "/admin/admin.sock".to_owned(),
            namespace: "projectcontour".to_owned(),
            dns_lookup_family: "auto".to_owned(),
            ca_file: None,
            cert_file: None,
            key_file: None,
            resources_dir: None,
            xds_server_name: XDS_CLUSTER.to_owned(),
            overload_max_heap: 0,
            overload_downstream_max_conn: 0,
        }
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum BootstrapError {
    /// Contour's text.
    #[error(
        "you must supply all TLS parameters - \"--envoy-cafile\", \"--envoy-cert-file\", \"--envoy-key-file\", or none of them"
    )]
    PartialTls,
    #[error("--dns-lookup-family: invalid value {}: use v4, v6, auto or all", certgate_gofmt::quote(.0))]
    DnsLookupFamily(String),
    #[error("--overload-downstream-max-conn: invalid value {0}, cannot be < 0")]
    NegativeConnectionLimit(i64),
    #[error("--xds-address: the address is empty")]
    EmptyAddress,
}

/// The files to write: the bootstrap (at the path asked for), and with `--resources-dir` the
/// two SDS resources as (path under that directory, JSON).
#[derive(Debug, Clone, PartialEq)]
pub struct BootstrapFiles {
    pub bootstrap: Value,
    pub sds: Vec<(PathBuf, Value)>,
}

/// The TLS files, when all three are given.
fn tls_files(config: &BootstrapConfig) -> Result<Option<[&Path; 3]>, BootstrapError> {
    match (&config.ca_file, &config.cert_file, &config.key_file) {
        (None, None, None) => Ok(None),
        (Some(ca), Some(cert), Some(key)) => Ok(Some([ca, cert, key])),
        _ => Err(BootstrapError::PartialTls),
    }
}

/// The bootstrap and SDS files for `config`.
pub fn render(config: &BootstrapConfig) -> Result<BootstrapFiles, BootstrapError> {
    if config.xds_address.is_empty() {
        return Err(BootstrapError::EmptyAddress);
    }
    if config.overload_downstream_max_conn < 0 {
        return Err(BootstrapError::NegativeConnectionLimit(config.overload_downstream_max_conn));
    }
    let dns_lookup_family = match config.dns_lookup_family.as_str() {
        "v4" => "V4_ONLY",
        "v6" => "V6_ONLY",
        "all" => "ALL",
        "auto" | "" => "AUTO",
        other => return Err(BootstrapError::DnsLookupFamily(other.to_owned())),
    };
    let mut bootstrap = json!({
        "dynamicResources": {
            "ldsConfig": config_source(),
            "cdsConfig": config_source(),
        },
        "staticResources": {
            "clusters": [xds_cluster(config, dns_lookup_family), admin_cluster(config)],
        },
        "defaultRegexEngine": {
            "name": "envoy.regex_engines.google_re2",
            "typedConfig": {"@type": "type.googleapis.com/envoy.extensions.regex_engines.v3.GoogleRE2"},
        },
        "admin": {
            "accessLog": [{
                "name": "envoy.access_loggers.file",
                "typedConfig": {
                    "@type": "type.googleapis.com/envoy.extensions.access_loggers.file.v3.FileAccessLog",
                    "path": "/dev/null",
                },
            }],
            "address": pipe(&config.admin_address),
        },
    });
    if let Some(overload) = overload_manager(config) {
        bootstrap["overloadManager"] = overload;
    }
    let mut sds = Vec::new();
    if let Some([ca, cert, key]) = tls_files(config)? {
        let mut tls = match &config.resources_dir {
            None => json!({
                "commonTlsContext": {
                    "tlsParams": {"tlsMaximumProtocolVersion": "TLSv1_3"},
                    "tlsCertificates": [certificate(cert, key)],
                    "validationContext": validation(ca, &config.xds_server_name),
                },
            }),
            Some(dir) => {
                let certificate_path = dir.join(SDS_SUBDIRECTORY).join(SDS_CERTIFICATE_FILE);
                let validation_path = dir.join(SDS_SUBDIRECTORY).join(SDS_VALIDATION_FILE);
                sds.push((
                    certificate_path.clone(),
                    sds_file(json!({
                        "@type": "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret",
                        "name": SDS_CERTIFICATE,
                        "tlsCertificate": certificate(cert, key),
                    })),
                ));
                sds.push((
                    validation_path.clone(),
                    sds_file(json!({
                        "@type": "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret",
                        "name": SDS_VALIDATION,
                        "validationContext": validation(ca, &config.xds_server_name),
                    })),
                ));
                json!({
                    "commonTlsContext": {
                        "tlsParams": {"tlsMaximumProtocolVersion": "TLSv1_3"},
                        "tlsCertificateSdsSecretConfigs": [path_sds(SDS_CERTIFICATE, &certificate_path)],
                        "validationContextSdsSecretConfig": path_sds(SDS_VALIDATION, &validation_path),
                    },
                })
            }
        };
        tls["@type"] = json!(
            "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext"
        );
        bootstrap["staticResources"]["clusters"][0]["transportSocket"] =
            json!({"name": "envoy.transport_sockets.tls", "typedConfig": tls});
    }
    Ok(BootstrapFiles { bootstrap, sds })
}

/// LDS and CDS (and, in the resources served, RDS, EDS and SDS) over gRPC to the xDS cluster.
pub fn config_source() -> Value {
    json!({
        "apiConfigSource": {
            "apiType": "GRPC",
            "transportApiVersion": "V3",
            "grpcServices": [{"envoyGrpc": {"clusterName": XDS_CLUSTER, "authority": XDS_CLUSTER}}],
        },
        "resourceApiVersion": "V3",
    })
}

fn xds_cluster(config: &BootstrapConfig, dns_lookup_family: &str) -> Value {
    // An IP address needs no resolution; a name is resolved and re-resolved (a Service).
    let kind = if config.xds_address.parse::<IpAddr>().is_ok() { "STATIC" } else { "STRICT_DNS" };
    let thresholds = |priority: &str| {
        json!({
            "priority": priority,
            "maxConnections": 100000,
            "maxPendingRequests": 100000,
            "maxRequests": 60000000,
            "maxRetries": 50,
            "trackRemaining": true,
        })
    };
    json!({
        "name": XDS_CLUSTER,
        "altStatName": format!("{}_contour_{}", config.namespace, config.xds_port),
        "type": kind,
        "connectTimeout": "5s",
        "lbPolicy": "ROUND_ROBIN",
        "loadAssignment": {
            "clusterName": XDS_CLUSTER,
            "endpoints": [{"lbEndpoints": [{"endpoint": {"address": {"socketAddress": {
                "address": config.xds_address,
                "portValue": config.xds_port,
            }}}}]}],
        },
        "circuitBreakers": {"thresholds": [thresholds("HIGH"), thresholds("DEFAULT")]},
        "typedExtensionProtocolOptions": {
            "envoy.extensions.upstreams.http.v3.HttpProtocolOptions": {
                "@type": "type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions",
                "explicitHttpConfig": {"http2ProtocolOptions": {}},
            },
        },
        "dnsLookupFamily": dns_lookup_family,
        "upstreamConnectionOptions": {
            "tcpKeepalive": {"keepaliveProbes": 3, "keepaliveTime": 30, "keepaliveInterval": 5},
        },
    })
}

fn admin_cluster(config: &BootstrapConfig) -> Value {
    json!({
        "name": "envoy-admin",
        "altStatName": format!("{}_envoy-admin_9001", config.namespace),
        "type": "STATIC",
        "connectTimeout": "0.250s",
        "lbPolicy": "ROUND_ROBIN",
        "loadAssignment": {
            "clusterName": "envoy-admin",
            "endpoints": [{"lbEndpoints": [{"endpoint": {"address": pipe(&config.admin_address)}}]}],
        },
    })
}

fn pipe(path: &str) -> Value {
    json!({"pipe": {"path": path}})
}

fn file(path: &Path) -> Value {
    json!({"filename": path.to_string_lossy()})
}

fn certificate(cert: &Path, key: &Path) -> Value {
    json!({"certificateChain": file(cert), "privateKey": file(key)})
}

fn validation(ca: &Path, server_name: &str) -> Value {
    json!({
        "trustedCa": file(ca),
        "matchTypedSubjectAltNames": [{"sanType": "DNS", "matcher": {"exact": server_name}}],
    })
}

fn path_sds(name: &str, path: &Path) -> Value {
    json!({
        "name": name,
        "sdsConfig": {"pathConfigSource": {"path": path.to_string_lossy()}, "resourceApiVersion": "V3"},
    })
}

/// A file-based SDS resource is a DiscoveryResponse holding the secret.
fn sds_file(secret: Value) -> Value {
    json!({"resources": [secret]})
}

fn overload_manager(config: &BootstrapConfig) -> Option<Value> {
    let mut monitors = Vec::new();
    let mut actions = Vec::new();
    if config.overload_max_heap > 0 {
        monitors.push(json!({
            "name": "envoy.resource_monitors.fixed_heap",
            "typedConfig": {
                "@type": "type.googleapis.com/envoy.extensions.resource_monitors.fixed_heap.v3.FixedHeapConfig",
                // uint64 is a string in proto3 JSON.
                "maxHeapSizeBytes": config.overload_max_heap.to_string(),
            },
        }));
        for (action, value) in [
            ("envoy.overload_actions.shrink_heap", 0.95),
            ("envoy.overload_actions.stop_accepting_requests", 0.98),
        ] {
            actions.push(json!({
                "name": action,
                "triggers": [{"name": "envoy.resource_monitors.fixed_heap", "threshold": {"value": value}}],
            }));
        }
    }
    if config.overload_downstream_max_conn > 0 {
        monitors.push(json!({
            "name": "envoy.resource_monitors.global_downstream_max_connections",
            "typedConfig": {
                "@type": "type.googleapis.com/envoy.extensions.resource_monitors.downstream_connections.v3.DownstreamConnectionsConfig",
                "maxActiveDownstreamConnections": config.overload_downstream_max_conn.to_string(),
            },
        }));
    }
    (!monitors.is_empty()).then(
        || json!({"refreshInterval": "0.250s", "resourceMonitors": monitors, "actions": actions}),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_tls(resources_dir: Option<&str>) -> BootstrapConfig {
        BootstrapConfig {
            ca_file: Some("/certs/ca.crt".into()),
            cert_file: Some("/certs/tls.crt".into()),
            key_file: Some("/certs/tls.key".into()),
            resources_dir: resources_dir.map(PathBuf::from),
            ..BootstrapConfig::default()
        }
    }

    #[test]
    fn defaults_are_contours() {
        let files = render(&BootstrapConfig::default()).unwrap();
        let cluster = &files.bootstrap["staticResources"]["clusters"][0];
        assert_eq!(cluster["name"], "contour");
        assert_eq!(cluster["type"], "STATIC");
        assert_eq!(cluster["altStatName"], "projectcontour_contour_8001");
        assert_eq!(
            cluster["loadAssignment"]["endpoints"][0]["lbEndpoints"][0]["endpoint"]["address"]["socketAddress"],
            json!({"address": "127.0.0.1", "portValue": 8001})
        );
        assert_eq!(cluster["dnsLookupFamily"], "AUTO");
        assert!(cluster.get("transportSocket").is_none(), "no TLS without the three files");
        assert_eq!(files.bootstrap["admin"]["address"], pipe("/admin/admin.sock"));
        assert_eq!(files.bootstrap["dynamicResources"]["ldsConfig"], config_source());
        assert!(files.bootstrap.get("overloadManager").is_none());
        assert!(files.sds.is_empty());
    }

    #[test]
    fn a_name_is_resolved_and_the_family_follows_the_flag() {
        let config = BootstrapConfig {
            xds_address: "certgate.certgate-system".to_owned(),
            dns_lookup_family: "v6".to_owned(),
            ..BootstrapConfig::default()
        };
        let cluster = &render(&config).unwrap().bootstrap["staticResources"]["clusters"][0];
        assert_eq!(cluster["type"], "STRICT_DNS");
        assert_eq!(cluster["dnsLookupFamily"], "V6_ONLY");
        let bad = BootstrapConfig { dns_lookup_family: "v5".to_owned(), ..config };
        assert_eq!(render(&bad), Err(BootstrapError::DnsLookupFamily("v5".to_owned())));
    }

    #[test]
    fn tls_needs_all_three_files_with_contours_message() {
        let partial = BootstrapConfig { key_file: None, ..with_tls(None) };
        let error = render(&partial).unwrap_err();
        assert_eq!(
            error.to_string(),
            "you must supply all TLS parameters - \"--envoy-cafile\", \"--envoy-cert-file\", \"--envoy-key-file\", or none of them"
        );
    }

    #[test]
    fn inline_tls_names_the_files_and_the_servers_name() {
        let files = render(&with_tls(None)).unwrap();
        let socket = &files.bootstrap["staticResources"]["clusters"][0]["transportSocket"];
        let common = &socket["typedConfig"]["commonTlsContext"];
        assert_eq!(common["tlsCertificates"][0]["certificateChain"]["filename"], "/certs/tls.crt");
        assert_eq!(common["tlsCertificates"][0]["privateKey"]["filename"], "/certs/tls.key");
        assert_eq!(common["validationContext"]["trustedCa"]["filename"], "/certs/ca.crt");
        assert_eq!(
            common["validationContext"]["matchTypedSubjectAltNames"][0]["matcher"]["exact"],
            "contour"
        );
        assert!(files.sds.is_empty());
    }

    #[test]
    fn a_resources_dir_moves_the_certificates_into_sds_files() {
        let files = render(&with_tls(Some("/config/resources"))).unwrap();
        let paths: Vec<_> = files.sds.iter().map(|(p, _)| p.clone()).collect();
        assert_eq!(
            paths,
            [
                PathBuf::from("/config/resources/sds/xds-tls-certificate.json"),
                PathBuf::from("/config/resources/sds/xds-validation-context.json"),
            ]
        );
        assert_eq!(files.sds[0].1["resources"][0]["name"], SDS_CERTIFICATE);
        let common = &files.bootstrap["staticResources"]["clusters"][0]["transportSocket"]["typedConfig"]
            ["commonTlsContext"];
        assert_eq!(
            common["tlsCertificateSdsSecretConfigs"][0]["sdsConfig"]["pathConfigSource"]["path"],
            "/config/resources/sds/xds-tls-certificate.json"
        );
        assert!(common.get("tlsCertificates").is_none());
    }

    #[test]
    fn overload_limits_are_written_when_set_and_refused_when_negative() {
        let config = BootstrapConfig {
            overload_max_heap: 1 << 30,
            overload_downstream_max_conn: 5000,
            ..BootstrapConfig::default()
        };
        let overload = render(&config).unwrap().bootstrap["overloadManager"].clone();
        assert_eq!(overload["resourceMonitors"].as_array().unwrap().len(), 2);
        assert_eq!(overload["actions"].as_array().unwrap().len(), 2);
        let negative = BootstrapConfig { overload_downstream_max_conn: -1, ..config };
        assert_eq!(
            render(&negative).unwrap_err().to_string(),
            "--overload-downstream-max-conn: invalid value -1, cannot be < 0"
        );
    }
}
