//! Who is asking and how: what every write needs beyond its target and body.

use certgate_rbac::UserInfo;

/// The authenticated (possibly impersonated) user and the request's options.
#[derive(Clone, Debug)]
pub struct Requester {
    pub user: UserInfo,
    /// `dryRun=All`: every step but the store.
    pub dry_run: bool,
}

impl Requester {
    /// The sandbox acting on its own behalf (installing built-in objects, terminating
    /// namespaces), as the API server's loopback client and controllers do.
    pub fn system(username: &str) -> Requester {
        Requester {
            user: UserInfo {
                username: username.to_owned(),
                groups: vec![
                    certgate_rbac::SYSTEM_MASTERS.to_owned(),
                    "system:authenticated".to_owned(),
                ],
                ..UserInfo::default()
            },
            dry_run: false,
        }
    }
}
