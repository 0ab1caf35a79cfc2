//! Contour's resource naming: `envoy.Secretname` and `Hashname`.

use ring::digest;

use crate::delegation::NamespacedName;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Contour's `Secretname`: `ns/name/<first 5 bytes of SHA-1(tls.crt) in hex>`, shortened by
/// [`hashname`] to fewer than 60 bytes. The hash is a change marker, not a security boundary.
pub fn secret_name(secret: &NamespacedName, tls_crt: &[u8]) -> String {
    let sha1 = digest::digest(&digest::SHA1_FOR_LEGACY_USE_ONLY, tls_crt);
    let short = hex(sha1.as_ref().get(..5).unwrap_or_default());
    hashname(60, &[&secret.namespace, &secret.name, &short])
}

/// The SDS secret holding a virtual host's client validation when it is delivered over SDS
/// (certgate's; Contour inlines it): `client-validation/<fqdn>`, shortened as [`hashname`] does.
/// It depends on the host name only, so a changed CA or CRL changes the secret, never the
/// listener that refers to it. Serving-certificate names have three parts, so none can clash.
pub fn validation_secret_name(fqdn: &str) -> String {
    hashname(60, &["client-validation", fqdn])
}

/// Contour's `Clustername` for the clusters certgate serves: `ns/service/port/<hash>`, where
/// the hash is the first 5 bytes of SHA-1 over the concatenated load-balancer policy, health
/// check, upstream validation, protocol, SNI, idle timeout and slow start settings. certgate
/// serves none of those (they are refused as unsupported), so the input is always empty and
/// the hash is SHA-1("")'s `da39a3ee5e`, exactly as Contour names a plain cluster.
pub fn cluster_name(namespace: &str, service: &str, port: i32) -> String {
    let sha1 = digest::digest(&digest::SHA1_FOR_LEGACY_USE_ONLY, b"");
    let short = hex(sha1.as_ref().get(..5).unwrap_or_default());
    hashname(60, &[namespace, service, &port.to_string(), &short])
}

/// Contour's `xds.ClusterLoadAssignmentName`: `ns/service/portName`, or `ns/service` for an
/// unnamed port. It is the EDS `service_name` of the cluster and the assignment's name.
pub fn load_assignment_name(namespace: &str, service: &str, port_name: &str) -> String {
    if port_name.is_empty() {
        format!("{namespace}/{service}")
    } else {
        format!("{namespace}/{service}/{port_name}")
    }
}

/// Contour's `AltStatName`: `ns_service_port`.
pub fn alt_stat_name(namespace: &str, service: &str, port: i32) -> String {
    format!("{namespace}_{service}_{port}")
}

/// Contour's `Hashname(l, s...)`: join with `/`; while the result is not shorter than `l`,
/// truncate elements from the last one, ending each with `-` and a short SHA-256 of the whole.
pub fn hashname(limit: usize, parts: &[&str]) -> String {
    const SHORT_HASH: usize = 6;
    let joined = parts.join("/");
    if limit > joined.len() {
        return joined;
    }
    let hash = hex(digest::digest(&digest::SHA256, joined.as_bytes()).as_ref());
    let short = &hash[..SHORT_HASH];
    let mut owned: Vec<String> = parts.iter().map(|p| p.to_string()).collect();
    let per_part = if parts.is_empty() { 0 } else { limit / parts.len() };
    for index in (0..owned.len()).rev() {
        owned[index] = truncate(per_part, &owned[index], short);
        let joined = owned.join("/");
        if limit > joined.len() {
            return joined;
        }
    }
    hash[..limit.min(hash.len())].to_string()
}

/// Go slices bytes; names are Kubernetes names (ASCII), but a byte-accurate cut that never
/// panics is kept for hostile input.
fn truncate(limit: usize, s: &str, suffix: &str) -> String {
    if limit >= s.len() {
        return s.to_string();
    }
    if limit <= suffix.len() {
        return suffix[..limit.min(suffix.len())].to_string();
    }
    let keep = limit - suffix.len() - 1;
    let head = String::from_utf8_lossy(&s.as_bytes()[..keep]);
    format!("{head}-{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_are_joined() {
        assert_eq!(hashname(60, &["default", "tls", "abcdef0123"]), "default/tls/abcdef0123");
    }

    #[test]
    fn plain_cluster_name_is_contours() {
        // internal/envoy/v3/cluster_test.go names a plain EDS cluster `default/kuard/443/da39a3ee5e`.
        assert_eq!(cluster_name("default", "kuard", 443), "default/kuard/443/da39a3ee5e");
        assert_eq!(load_assignment_name("default", "kuard", ""), "default/kuard");
        assert_eq!(load_assignment_name("default", "kuard", "https"), "default/kuard/https");
    }

    #[test]
    fn long_names_fit() {
        let long = "x".repeat(80);
        let name = hashname(60, &["ns", &long, "0123456789"]);
        assert!(name.len() < 60, "{name}");
    }
}
