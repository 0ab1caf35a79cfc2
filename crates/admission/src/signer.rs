//! The signer permission check (cert-manager-requests spec §4): whoever adds an `Approved`
//! or `Denied` condition must be allowed to `approve` the issuer as a `signers` resource.

use std::fmt;

use certgate_api::IssuerReference;
use certgate_api::certificate_request::GROUP;
use certgate_api::field::{FieldError, Path};
use certgate_api::gofmt::quote;
use certgate_rbac::{
    AccessChecker, AccessReview, DiscoveryError, KindResolver, ResourceAttributes, UserInfo,
};

const DEFAULT_KIND: &str = "Issuer";

/// The issuer reference as Go's `%v` prints the struct: `{name kind group}`, fields as
/// written in the request (unset ones empty, defaults not applied).
struct GoRef<'a>(&'a IssuerReference);

impl fmt::Display for GoRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self.0;
        let kind = r.kind.as_deref().unwrap_or_default();
        let group = r.group.as_deref().unwrap_or_default();
        write!(f, "{{{} {kind} {group}}}", r.name)
    }
}

/// Checks that `user` may approve for `issuer_ref` of a request in `namespace`. `Ok(None)`
/// when allowed; a field error when the issuer's kind does not exist or nothing allowed
/// the user; `Err` when discovery failed (returned unchanged, as upstream).
pub(crate) async fn check<A: AccessChecker, K: KindResolver>(
    access: &A,
    kinds: &K,
    issuer_ref: &IssuerReference,
    namespace: &str,
    user: &UserInfo,
) -> Result<Option<FieldError>, DiscoveryError> {
    let group = issuer_ref.group.as_deref().filter(|g| !g.is_empty()).unwrap_or(GROUP);
    let kind = issuer_ref.kind.as_deref().filter(|k| !k.is_empty()).unwrap_or(DEFAULT_KIND);
    let Some(resolved) = kinds.resolve(group, kind).await? else {
        let detail = format!("referenced signer resource does not exist: {}", GoRef(issuer_ref));
        return Ok(Some(FieldError::forbidden(Path::new("spec").child("issuerRef"), detail)));
    };

    let signer = format!("{}.{group}", resolved.plural);
    let specific = if resolved.namespaced {
        format!("{signer}/{namespace}.{}", issuer_ref.name)
    } else {
        format!("{signer}/{}", issuer_ref.name)
    };
    for name in [format!("{signer}/*"), specific] {
        let review = approve_review(user, name);
        match access.check(&review).await {
            Ok(decision) if decision.allowed => return Ok(None),
            Ok(_) => {}
            // An authorizer that cannot answer denies at once: the next name is not tried.
            Err(_) => break,
        }
    }
    let detail = format!(
        "user {} does not have permissions to set approved/denied conditions for issuer {}",
        quote(&user.username),
        GoRef(issuer_ref)
    );
    Ok(Some(FieldError::forbidden(Path::new("status").child("conditions"), detail)))
}

/// `approve` on the cluster-scoped `signers` resource `name` in `cert-manager.io`.
fn approve_review(user: &UserInfo, name: String) -> AccessReview {
    AccessReview {
        user: user.clone(),
        resource: ResourceAttributes {
            verb: "approve".to_owned(),
            group: GROUP.to_owned(),
            version: "*".to_owned(),
            resource: "signers".to_owned(),
            name,
            ..Default::default()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_print_like_go_structs() {
        let full = IssuerReference {
            name: "ca".to_owned(),
            kind: Some("ClusterIssuer".to_owned()),
            group: Some("example.io".to_owned()),
        };
        assert_eq!(GoRef(&full).to_string(), "{ca ClusterIssuer example.io}");
        let bare = IssuerReference { name: "my-issuer".to_owned(), ..Default::default() };
        assert_eq!(GoRef(&bare).to_string(), "{my-issuer  }");
    }
}
