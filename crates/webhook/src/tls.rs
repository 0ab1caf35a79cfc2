//! The serving certificate's rustls settings now live in `certgate-serving`, shared with the
//! sandbox; this module keeps the `crate::tls` paths the server and the dynamic serving
//! provider use.

pub use certgate_serving::{PemPair, server_config};
