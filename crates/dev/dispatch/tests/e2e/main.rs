//! End-to-end tests: the dispatcher against real HTTPS webhooks served in-process on
//! 127.0.0.1.

mod failures;
mod match_conditions;
mod mutating;
mod request;
mod support;
mod validating;
