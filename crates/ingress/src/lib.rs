//! Contour `HTTPProxy` client-certificate validation for certgate.
//!
//! This crate reproduces, offline and without I/O, what Contour does with
//! `spec.virtualhost.tls.clientValidation` (including `crlSecret`): the shallow Secret checks,
//! `TLSCertificateDelegation` rules, the processing order and the exact status it writes, and the
//! Envoy `DownstreamTlsContext` it would send. Deeper CRL checks (signatures, expiry, coverage)
//! belong to `certgate-crl`; they plug in through [`CrlInspector`] and surface as warnings.
#![forbid(unsafe_code)]

pub mod check;
pub mod delegation;
pub mod envoy;
pub mod error;
pub mod pem;
pub mod secrets;
pub mod status;
pub mod triggers;
pub mod types;
pub mod validate;

pub use check::{
    CheckOptions, CheckReport, CheckResult, CrlContext, CrlInspector, NoCrlInspection, check,
};
pub use delegation::{NamespacedName, delegation_permitted};
pub use error::IngressError;
pub use secrets::{SecretError, validate_ca_secret, validate_crl_secret, validate_tls_secret};
pub use status::StatusBuilder;
pub use types::{
    DetailedCondition, HttpProxy, HttpProxyStatus, Secret, SubCondition, TlsCertificateDelegation,
};
pub use validate::{ProcessOutcome, ValidatedVhost, process_proxies};
