//! Decoding each supported kind from bodies built field by field, the errors for malformed
//! bodies, a golden `kubectl create token` body, and arbitrary bytes never panicking.

mod authentication_v1;
mod authorization_v1;
mod core_v1;
mod errors;
mod golden;
mod meta_v1;
mod never_panics;
mod rbac_v1;
mod support;
