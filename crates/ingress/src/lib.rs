//! Contour `HTTPProxy` client-certificate validation for certgate.
//!
//! This crate reproduces, offline and without I/O, what Contour does with
//! `spec.virtualhost.tls.clientValidation` (including `crlSecret`): the shallow Secret checks,
//! `TLSCertificateDelegation` rules, the processing order and the exact status it writes, and the
//! Envoy `DownstreamTlsContext` it would send. For a live edge, [`routing::process_snapshot`]
//! goes on with routes, includes, Services and TCP proxies, and [`envoy::build_resources`]
//! turns the result into the listeners, routes, clusters, endpoints and secrets Contour would
//! serve (docs/ingress-model.md). Deeper CRL checks (signatures, expiry, coverage)
//! belong to `certgate-crl`; they plug in through [`CrlInspector`] and surface as warnings.
#![forbid(unsafe_code)]

pub mod check;
pub mod crl_warnings;
pub mod delegation;
pub mod envoy;
pub mod error;
pub mod ingress_class;
pub mod routing;
pub mod secrets;
pub mod status;
pub mod triggers;
pub mod types;
pub mod validate;

/// Go `encoding/pem` walking exactly as Contour does it (`containsPEMHeader` plus `pem.Decode`,
/// quirks included). The walker lives in `certgate-crl`, shared with its `crl.pem`/`ca.crt`
/// checks; its functions are re-exported here under this crate's names.
pub mod pem {
    pub use certgate_crl::{contains_pem_header, decode_pem_block as decode};

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn header_quirk_and_basic_decode() {
            assert!(contains_pem_header(b"-----BEGIN X\n-----"));
            assert!(!contains_pem_header(b"no pem here"));
            assert!(!contains_pem_header(b"-----BEGIN X509 CRL\nxxxxxxxxxxxxxx-----"));
            let (block, rest) =
                decode(b"junk\n-----BEGIN A-----\nAAAA\n-----END A-----\ntail").unwrap();
            assert_eq!(block.label, "A");
            assert_eq!(block.der, vec![0, 0, 0]);
            assert_eq!(rest, b"tail");
            assert!(decode(b"-----BEGIN A-----\nAAA\n-----END A-----\n").is_none());
            let (empty, _) = decode(b"-----BEGIN E-----\n-----END E-----\n").unwrap();
            assert!(empty.der.is_empty());
        }
    }
}

pub use check::{
    CheckOptions, CheckReport, CheckResult, CrlContext, CrlInspector, NoCrlInspection, check,
};
pub use crl_warnings::{ServedCrl, crl_warnings};
pub use delegation::{NamespacedName, delegation_permitted};
pub use error::IngressError;
pub use routing::{Processed, Snapshot, process_snapshot};
pub use secrets::{SecretError, validate_ca_secret, validate_crl_secret, validate_tls_secret};
pub use status::StatusBuilder;
pub use types::{
    DetailedCondition, HttpProxy, HttpProxyStatus, Secret, SubCondition, TlsCertificateDelegation,
};
pub use validate::{ProcessOutcome, ProcessorConfig, ValidatedVhost, process_proxies};
