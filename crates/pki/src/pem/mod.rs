//! The workspace's one PEM implementation: decoding with Go's `encoding/pem.Decode` rules and
//! encoding as Go's `pem.Encode` writes (64-column base64 lines).
//!
//! Go's rules are the point: cert-manager and approver-policy read `spec.request` with
//! `pem.Decode`, Contour reads `ca.crt`, `crl.pem` and `tls.crt` with it, and sprig's
//! certificate functions call it. So text before and after a block is ignored, RFC 1421
//! headers are skipped, and a candidate block whose framing or base64 is broken is skipped in
//! favour of a later valid one. Callers that must treat such a candidate differently (a CSR
//! explains its base64 error, `certgate crl` warns because BoringSSL fails on it, the webhook
//! stops trusting a CA bundle there) learn about it through the `skipped` callback of
//! [`next_block`] instead of through a second decoder.
//!
//! Bodies are decoded in bounded chunks, and [`Body::Check`] validates base64 without
//! allocating, so a 50 MB CRL bundle is neither copied twice nor held twice.

mod base64;
mod decode;
mod encode;

pub use decode::{Block, Body, Skipped, decode, has_begin_marker, next_block};
pub use encode::encode;
