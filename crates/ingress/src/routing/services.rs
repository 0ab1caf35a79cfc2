//! Contour's Service lookup (`KubernetesCache.LookupService` and `DAG.EnsureService`): find the
//! Service in the proxy's namespace, then the first port whose number or name matches, which
//! must be TCP; `ExternalName` Services are refused (Contour's default configuration). The
//! error texts are Contour's, because they end up in the status after a fixed prefix.

use std::collections::BTreeMap;

use certgate_gofmt::quote;

use crate::delegation::NamespacedName;
use crate::types::KubeService;

/// Why a service reference did not resolve; `Display` is Contour's error text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LookupError {
    #[error("service {} not found", quote(&.0.to_string()))]
    NotFound(NamespacedName),
    #[error("unsupported service protocol {}", quote(.0))]
    UnsupportedProtocol(String),
    #[error("port {} on service {} not matched", quote(&.0.to_string()), quote(&.1.to_string()))]
    PortNotMatched(i64, NamespacedName),
    #[error(
        "{0} is an ExternalName service, these are not currently enabled. See the config.enableExternalNameService config file setting"
    )]
    ExternalNameDisabled(NamespacedName),
}

/// A resolved upstream: the Service, its matched port, and the protocol Contour derives from
/// the port's `appProtocol` or the Service's upstream-protocol annotations.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ResolvedService {
    pub service: NamespacedName,
    pub port: i32,
    pub port_name: String,
    pub protocol: String,
}

/// Services by namespace and name, built once per snapshot.
#[derive(Debug, Default)]
pub struct ServiceIndex<'a> {
    by_name: BTreeMap<(&'a str, &'a str), &'a KubeService>,
}

impl<'a> ServiceIndex<'a> {
    pub fn new(services: &'a [KubeService]) -> Self {
        let by_name =
            services.iter().map(|s| ((s.namespace.as_str(), s.name.as_str()), s)).collect();
        ServiceIndex { by_name }
    }

    /// Contour's `EnsureService` for `namespace/name:port` (no health port: health checks
    /// are not served).
    pub fn resolve(
        &self,
        namespace: &str,
        name: &str,
        port: i64,
    ) -> Result<ResolvedService, LookupError> {
        let meta = NamespacedName::new(namespace, name);
        let Some(svc) = self.by_name.get(&(namespace, name)) else {
            return Err(LookupError::NotFound(meta));
        };
        let wanted = port.to_string();
        let Some(matched) =
            svc.ports.iter().find(|p| i64::from(p.port) == port || p.name == wanted)
        else {
            return Err(LookupError::PortNotMatched(port, meta));
        };
        if !(matched.protocol.is_empty() || matched.protocol == "TCP") {
            return Err(LookupError::UnsupportedProtocol(matched.protocol.clone()));
        }
        if svc.type_ == "ExternalName" && !svc.external_name.is_empty() {
            return Err(LookupError::ExternalNameDisabled(meta));
        }
        Ok(ResolvedService {
            service: meta,
            port: matched.port,
            port_name: matched.name.clone(),
            protocol: upstream_protocol(
                svc,
                &matched.name,
                matched.port,
                matched.app_protocol.as_deref(),
            ),
        })
    }
}

/// Contour's `upstreamProtocol`: `appProtocol` alone when set (unknown values give `""`),
/// else the `projectcontour.io/upstream-protocol.{h2,h2c,tls}` annotations by port name, then
/// by port number (a later protocol in that list wins for a port named twice).
fn upstream_protocol(
    svc: &KubeService,
    port_name: &str,
    port: i32,
    app_protocol: Option<&str>,
) -> String {
    if let Some(app) = app_protocol {
        return match app {
            "kubernetes.io/h2c" => "h2c",
            "https" => "tls",
            _ => "",
        }
        .to_string();
    }
    let mut by_port: BTreeMap<&str, &str> = BTreeMap::new();
    for protocol in ["h2", "h2c", "tls"] {
        let key = format!("projectcontour.io/upstream-protocol.{protocol}");
        for entry in svc.annotations.get(&key).map(String::as_str).unwrap_or("").split(',') {
            let entry = entry.trim();
            if !entry.is_empty() {
                by_port.insert(entry, protocol);
            }
        }
    }
    let number = port.to_string();
    by_port
        .get(port_name)
        .filter(|p| !p.is_empty())
        .or_else(|| by_port.get(number.as_str()))
        .map(|p| p.to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::ServicePort;

    fn svc() -> KubeService {
        KubeService {
            namespace: "ns".into(),
            name: "app".into(),
            ports: vec![
                ServicePort { name: "http".into(), port: 80, ..ServicePort::default() },
                ServicePort {
                    name: "dns".into(),
                    port: 53,
                    protocol: "UDP".into(),
                    ..ServicePort::default()
                },
                ServicePort { name: "9000".into(), port: 9443, ..ServicePort::default() },
            ],
            annotations: [(
                "projectcontour.io/upstream-protocol.tls".to_string(),
                "9443, x".to_string(),
            )]
            .into_iter()
            .collect(),
            ..KubeService::default()
        }
    }

    /// Error texts of Contour's internal/dag/cache.go (`LookupService`) and
    /// internal/dag/accessors.go (`validateExternalName`).
    #[test]
    fn lookup_messages() {
        let services = [svc()];
        let index = ServiceIndex::new(&services);
        let cases: [(&str, i64, &str); 3] = [
            ("missing", 80, r#"service "ns/missing" not found"#),
            ("app", 81, r#"port "81" on service "ns/app" not matched"#),
            ("app", 53, r#"unsupported service protocol "UDP""#),
        ];
        for (name, port, message) in cases {
            assert_eq!(index.resolve("ns", name, port).unwrap_err().to_string(), message);
        }
        let external = [KubeService {
            type_: "ExternalName".into(),
            external_name: "example.org".into(),
            ..svc()
        }];
        assert_eq!(
            ServiceIndex::new(&external).resolve("ns", "app", 80).unwrap_err().to_string(),
            "ns/app is an ExternalName service, these are not currently enabled. See the config.enableExternalNameService config file setting"
        );
    }

    #[test]
    fn resolves_by_number_or_name_with_protocol() {
        let services = [svc()];
        let index = ServiceIndex::new(&services);
        let http = index.resolve("ns", "app", 80).unwrap();
        assert_eq!((http.port, http.port_name.as_str(), http.protocol.as_str()), (80, "http", ""));
        let by_name = index.resolve("ns", "app", 9000).unwrap();
        assert_eq!((by_name.port, by_name.protocol.as_str()), (9443, "tls"));
    }
}
