use certgate_rbac::AccessDecision;

use super::*;

fn parse(headers: &[(&str, &str)]) -> Result<Option<Impersonation>, ImpersonationError> {
    Impersonation::from_headers(headers.iter().map(|(n, v)| (*n, v.as_bytes())))
}

fn impersonation(headers: &[(&str, &str)]) -> Impersonation {
    parse(headers).expect("valid headers").expect("impersonation requested")
}

fn check(
    group: &str,
    resource: &str,
    sub: &str,
    namespace: &str,
    name: &str,
) -> ResourceAttributes {
    ResourceAttributes {
        namespace: namespace.into(),
        verb: "impersonate".into(),
        group: group.into(),
        version: if group.is_empty() { String::new() } else { "v1".into() },
        resource: resource.into(),
        subresource: sub.into(),
        name: name.into(),
    }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn no_headers_no_impersonation() {
    assert_eq!(parse(&[("authorization", "Bearer x"), ("impersonate-user", "")]), Ok(None));
}

#[test]
fn user_with_groups_extras_and_uid() {
    let imp = impersonation(&[
        ("Impersonate-User", "bob"),
        ("impersonate-group", "devs"),
        ("IMPERSONATE-GROUP", "ops"),
        ("impersonate-extra-scopes", "read"),
        ("Impersonate-Extra-Scopes", "write"),
        ("impersonate-extra-example.com%2Fteam", "a"),
        ("impersonate-uid", "42"),
        ("impersonate-user", "ignored second value"),
    ]);
    assert_eq!(
        imp.checks(),
        vec![
            check("", "users", "", "", "bob"),
            check("", "groups", "", "", "devs"),
            check("", "groups", "", "", "ops"),
            check("authentication.k8s.io", "userextras", "example.com/team", "", "a"),
            check("authentication.k8s.io", "userextras", "scopes", "", "read"),
            check("authentication.k8s.io", "userextras", "scopes", "", "write"),
            check("authentication.k8s.io", "uids", "", "", "42"),
        ]
    );
    let user = imp.user_info();
    assert_eq!(user.username, "bob");
    assert_eq!(user.uid, "42");
    assert_eq!(user.groups, strings(&["devs", "ops", "system:authenticated"]));
    assert_eq!(user.extra["scopes"], strings(&["read", "write"]));
    assert_eq!(user.extra["example.com/team"], strings(&["a"]));
}

#[test]
fn service_accounts() {
    let imp = impersonation(&[("impersonate-user", "system:serviceaccount:ns:builder")]);
    assert_eq!(imp.checks(), vec![check("", "serviceaccounts", "", "ns", "builder")]);
    let user = imp.user_info();
    assert_eq!(user.username, "system:serviceaccount:ns:builder");
    assert_eq!(
        user.groups,
        strings(&["system:serviceaccounts", "system:serviceaccounts:ns", "system:authenticated"])
    );
    // Groups given are the groups, even for a ServiceAccount.
    let with_group = impersonation(&[
        ("impersonate-user", "system:serviceaccount:ns:builder"),
        ("impersonate-group", "g"),
    ]);
    assert_eq!(with_group.user_info().groups, strings(&["g", "system:authenticated"]));
    // An invalid ServiceAccount name is just a user name.
    let odd = impersonation(&[("impersonate-user", "system:serviceaccount:NS:builder")]);
    assert_eq!(odd.checks(), vec![check("", "users", "", "", "system:serviceaccount:NS:builder")]);
}

#[test]
fn authenticated_and_unauthenticated_groups() {
    let groups = |headers: &[(&str, &str)]| impersonation(headers).user_info().groups;
    assert_eq!(
        groups(&[("impersonate-user", "bob"), ("impersonate-group", "system:unauthenticated")]),
        strings(&["system:unauthenticated"])
    );
    assert_eq!(
        groups(&[("impersonate-user", "bob"), ("impersonate-group", "system:authenticated")]),
        strings(&["system:authenticated"])
    );
    assert_eq!(
        groups(&[("impersonate-user", "system:anonymous")]),
        strings(&["system:unauthenticated"])
    );
    assert_eq!(
        groups(&[("impersonate-user", "system:anonymous"), ("impersonate-group", "g")]),
        strings(&["g", "system:unauthenticated"])
    );
}

#[test]
fn groups_extras_or_uid_need_a_user() {
    let error = parse(&[
        ("impersonate-group", "system:masters"),
        ("impersonate-extra-scopes", "read"),
        ("impersonate-uid", "42"),
    ])
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "requested [{Group  system:masters    } {UserExtra  read  authentication.k8s.io/v1  scopes} {UID  42  authentication.k8s.io/v1  }] without impersonating a user"
    );
    assert_eq!(
        error.plain_text_body("/api/v1/namespaces"),
        "Internal Server Error: \"/api/v1/namespaces\": requested [{Group  system:masters    } {UserExtra  read  authentication.k8s.io/v1  scopes} {UID  42  authentication.k8s.io/v1  }] without impersonating a user\n"
    );
    assert!(parse(&[("impersonate-user", ""), ("impersonate-group", "g")]).is_err());
}

struct AllowOnly(&'static str);

impl RequestAuthorizer for AllowOnly {
    fn authorize(&self, _user: &UserInfo, attributes: &RequestAttributes) -> AccessDecision {
        let RequestAttributes::Resource(a) = attributes else {
            unreachable!("resource checks only")
        };
        AccessDecision { allowed: a.resource == self.0, reason: String::new() }
    }
}

#[test]
fn denied_checks_are_forbidden_like_kube_apiserver() {
    let alice = UserInfo { username: "alice".into(), ..UserInfo::default() };
    let imp = impersonation(&[("impersonate-user", "bob"), ("impersonate-group", "devs")]);
    let status = imp.authorize(&alice, &AllowOnly("nothing")).unwrap_err();
    assert_eq!((status.code, status.reason), (403, "Forbidden"));
    assert_eq!(
        status.message,
        r#"users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope"#
    );
    let status = imp.authorize(&alice, &AllowOnly("users")).unwrap_err();
    assert_eq!(
        status.message,
        r#"groups "devs" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope"#
    );
    let sa = impersonation(&[("impersonate-user", "system:serviceaccount:ns:sa")]);
    assert_eq!(
        sa.authorize(&alice, &AllowOnly("users")).unwrap_err().message,
        r#"serviceaccounts "sa" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns""#
    );
    let extra = impersonation(&[("impersonate-user", "bob"), ("impersonate-extra-scopes", "read")]);
    assert_eq!(
        extra.authorize(&alice, &AllowOnly("users")).unwrap_err().message,
        r#"userextras.authentication.k8s.io "read" is forbidden: User "alice" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope"#
    );
    let allowed = imp.authorize(&alice, &AllowEverything).expect("allowed");
    assert_eq!(allowed.username, "bob");
}

struct AllowEverything;

impl RequestAuthorizer for AllowEverything {
    fn authorize(&self, _user: &UserInfo, _attributes: &RequestAttributes) -> AccessDecision {
        AccessDecision { allowed: true, reason: String::new() }
    }
}
