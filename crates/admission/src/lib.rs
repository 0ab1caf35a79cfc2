//! What cert-manager's webhook decides about CertificateRequests, as pure functions over
//! the objects and the requester. The webhook server (later) and `certgate check` share it.
#![forbid(unsafe_code)]

pub mod certificate_request;
