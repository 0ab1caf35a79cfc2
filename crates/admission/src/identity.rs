//! The requester identity of a CertificateRequest (`spec.uid`, `spec.username`,
//! `spec.groups`, `spec.extra`), checked on CREATE and UPDATE (cert-manager-requests spec
//! §2.2, §2.3); `stamp` writes it on CREATE.

use std::collections::BTreeMap;

use certgate_api::CertificateRequest;
use certgate_api::field::{FieldError, Path};

use crate::wire::UserInfoIn;

fn identity_path(field: &str) -> Path {
    Path::new("spec").child(field)
}

/// The same strings, in any order (as multisets).
fn same_ignoring_order(a: &[String], b: &[String]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut a: Vec<&String> = a.iter().collect();
    let mut b: Vec<&String> = b.iter().collect();
    a.sort_unstable();
    b.sort_unstable();
    a == b
}

/// CREATE: every identity field must be the requester's (§2.2), in the order uid,
/// username, groups, extra.
pub(crate) fn validate_create(cr: &CertificateRequest, user: &UserInfoIn) -> Vec<FieldError> {
    let spec = &cr.spec;
    let mut errors = Vec::new();
    let mut check = |same: bool, field: &str| {
        if !same {
            let detail = format!("{field} identity must be that of the requester");
            errors.push(FieldError::forbidden(identity_path(field), detail));
        }
    };
    check(spec.uid.as_deref().unwrap_or_default() == user.uid, "uid");
    check(spec.username.as_deref().unwrap_or_default() == user.username, "username");
    check(same_ignoring_order(spec.groups.as_deref().unwrap_or_default(), &user.groups), "groups");
    check(extra_matches_requester(spec.extra.as_ref(), &user.extra), "extra");
    errors
}

/// Same number of keys, and each key of the request present in the requester's extras
/// with the same values in any order.
fn extra_matches_requester(
    cr: Option<&BTreeMap<String, Vec<String>>>,
    user: &BTreeMap<String, crate::wire::NullableList>,
) -> bool {
    let empty = BTreeMap::new();
    let cr = cr.unwrap_or(&empty);
    cr.len() == user.len()
        && cr.iter().all(|(key, values)| {
            user.get(key).is_some_and(|theirs| same_ignoring_order(values, &theirs.0))
        })
}

/// UPDATE: no identity field may change (§2.3). Groups compare ignoring order, extra
/// exactly (value order included, unset differing from `{}` as in Go's deep equality).
pub(crate) fn validate_update(
    old: &CertificateRequest,
    new: &CertificateRequest,
) -> Vec<FieldError> {
    let (old, new) = (&old.spec, &new.spec);
    let mut errors = Vec::new();
    let mut check = |same: bool, field: &str| {
        if !same {
            let detail = format!("{field} identity cannot be changed once set");
            errors.push(FieldError::forbidden(identity_path(field), detail));
        }
    };
    check(old.uid.as_deref().unwrap_or_default() == new.uid.as_deref().unwrap_or_default(), "uid");
    check(
        old.username.as_deref().unwrap_or_default() == new.username.as_deref().unwrap_or_default(),
        "username",
    );
    check(
        same_ignoring_order(
            old.groups.as_deref().unwrap_or_default(),
            new.groups.as_deref().unwrap_or_default(),
        ),
        "groups",
    );
    check(old.extra == new.extra, "extra");
    errors
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn multisets_compare_counts_not_just_members() {
        assert!(same_ignoring_order(&strings(&["a", "b"]), &strings(&["b", "a"])));
        assert!(!same_ignoring_order(&strings(&["a", "a", "b"]), &strings(&["a", "b", "b"])));
        assert!(!same_ignoring_order(&strings(&["a"]), &strings(&["a", "a"])));
    }
}
