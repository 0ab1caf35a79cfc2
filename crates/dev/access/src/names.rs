//! ServiceAccount usernames (`system:serviceaccount:<namespace>:<name>`) and the name rules
//! kube-apiserver checks before treating a username as a ServiceAccount.

/// The prefix of every ServiceAccount username.
pub const SERVICE_ACCOUNT_PREFIX: &str = "system:serviceaccount:";

/// `serviceaccount.SplitUsername`: `(namespace, name)` when `username` is a ServiceAccount
/// username with a valid namespace (DNS-1123 label) and name (DNS-1123 subdomain).
pub fn split_service_account_username(username: &str) -> Option<(&str, &str)> {
    let rest = username.strip_prefix(SERVICE_ACCOUNT_PREFIX)?;
    let mut parts = rest.split(':');
    let (Some(namespace), Some(name), None) = (parts.next(), parts.next(), parts.next()) else {
        return None;
    };
    (is_dns1123_label(namespace) && is_dns1123_subdomain(name)).then_some((namespace, name))
}

/// Lower-case alphanumerics and `-`, starting and ending alphanumeric, at most 63 bytes.
pub(crate) fn is_dns1123_label(value: &str) -> bool {
    let bytes = value.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 63
        && bytes.iter().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
        && bytes.first().is_some_and(u8::is_ascii_alphanumeric)
        && bytes.last().is_some_and(u8::is_ascii_alphanumeric)
}

/// Dot-separated DNS-1123 labels (each at most 63 bytes), at most 253 bytes in all.
pub(crate) fn is_dns1123_subdomain(value: &str) -> bool {
    value.len() <= 253 && value.split('.').all(is_dns1123_label)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_only_valid_service_account_usernames() {
        let split = split_service_account_username;
        assert_eq!(split("system:serviceaccount:ns:sa"), Some(("ns", "sa")));
        assert_eq!(split("system:serviceaccount:ns:my.sa-1"), Some(("ns", "my.sa-1")));
        assert_eq!(split("system:serviceaccount:ns"), None);
        assert_eq!(split("system:serviceaccount:ns:sa:x"), None);
        assert_eq!(split("system:serviceaccount:NS:sa"), None);
        assert_eq!(split("system:serviceaccount:n.s:sa"), None);
        assert_eq!(split("system:serviceaccount::sa"), None);
        assert_eq!(split("system:serviceaccount:ns:-sa"), None);
        assert_eq!(split("alice"), None);
        let long = "a".repeat(64);
        assert_eq!(split(&format!("system:serviceaccount:{long}:sa")), None);
    }
}
