//! Who is asking and how: what every write needs beyond its target and body.

use std::sync::{Arc, Mutex, PoisonError};

use certgate_rbac::UserInfo;

/// The authenticated (possibly impersonated) user and the request's options.
#[derive(Clone, Debug, Default)]
pub struct Requester {
    pub user: UserInfo,
    /// `dryRun=All`: every step but the store.
    pub dry_run: bool,
    /// `fieldManager`, passed to admission webhooks in the request options.
    pub field_manager: Option<String>,
    /// `fieldValidation` and patch type, for unknown fields (`crate::unknown_fields`).
    pub decoding: crate::options::Decoding,
    /// Warnings for the client (admission webhooks'), sent as `Warning` headers.
    warnings: Arc<Mutex<Vec<String>>>,
}

impl Requester {
    pub fn new(user: UserInfo, dry_run: bool, field_manager: Option<String>) -> Requester {
        Requester {
            user,
            dry_run,
            field_manager,
            decoding: crate::options::Decoding::default(),
            warnings: Arc::default(),
        }
    }

    /// The sandbox acting on its own behalf (installing built-in objects, terminating
    /// namespaces), as the API server's loopback client and controllers do.
    pub fn system(username: &str) -> Requester {
        let user = UserInfo {
            username: username.to_owned(),
            groups: vec![
                certgate_rbac::SYSTEM_MASTERS.to_owned(),
                "system:authenticated".to_owned(),
            ],
            ..UserInfo::default()
        };
        Requester::new(user, false, None)
    }

    pub fn warn(&self, warnings: Vec<String>) {
        if !warnings.is_empty() {
            self.warnings.lock().unwrap_or_else(PoisonError::into_inner).extend(warnings);
        }
    }

    pub fn warnings(&self) -> Vec<String> {
        self.warnings.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}
