//! cert-manager's issuance decisions as pure functions: no tokio, no Kubernetes client, no
//! clock (`now` is always an argument). Every text users see is upstream's, byte for byte;
//! each module names the Go file it mirrors, and the crate's README lists them.
//!
//! One job per module:
//! - [`condition`]: conditions as the decisions read them (a borrowed [`Condition`] per
//!   status entry), the condition vocabulary, and the writes decisions return
//!   ([`ConditionUpdate`], [`Event`]);
//! - [`signing`]: the CertificateRequest controllers' sync (spec §6.1): [`signing_gate`]
//!   (group, Denied, InvalidRequest, Approved, finished), [`issuer_gate`], [`after_signing`];
//! - [`report`]: what those controllers write (`Ready`, events, `failureTime`);
//! - [`issuing`]: the issuing controller (spec §6.2): [`request_outcome`] (Denied before
//!   `Ready=Issued`, then InvalidRequest), [`check_issued`], [`record_failure`] (the
//!   `Issuing=False` retry message, `lastFailureTime`, `failedIssuanceAttempts + 1`) and
//!   [`record_success`] (both cleared);
//! - [`backoff`](mod@backoff): the retry backoff (spec §6.3): [`BackoffConfig`] with upstream's defaults
//!   and validation, [`backoff()`] returning when the next issuance may happen;
//! - [`renewal`]: [`renewal_time`], cert-manager's `RenewalTime` with Go's duration arithmetic;
//! - [`trigger`](mod@trigger): the trigger and readiness policy chains with upstream's reasons and
//!   messages, and the trigger controller's decision around them.
#![forbid(unsafe_code)]

pub mod backoff;
pub mod condition;
mod gotime;
pub mod issuing;
pub mod renewal;
pub mod report;
pub mod signing;
pub mod trigger;

pub use backoff::{Backoff, BackoffConfig, FailureRecord, NextRequest, NoBackoff, backoff};
pub use certgate_gofmt::GoDuration;
pub use condition::{Condition, ConditionUpdate, Event};
pub use issuing::{check_issued, record_failure, record_success, request_outcome};
pub use renewal::{RenewalSpec, renewal_time};
pub use report::Report;
pub use signing::{after_signing, issuer_gate, signing_gate};
pub use trigger::{TriggerDecision, trigger};
