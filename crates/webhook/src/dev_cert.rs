//! `--dev-self-signed` certificates now live in `certgate-serving`, shared with the sandbox;
//! this module keeps the `crate::dev_cert` path the reload tests use.

#[cfg(test)]
pub use certgate_serving::DevCertificates;
