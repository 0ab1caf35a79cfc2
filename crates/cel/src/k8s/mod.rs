//! Kubernetes CEL library semantics as plain Rust functions.
//!
//! These mirror the libraries kube-apiserver registers for CEL (`ip`, `cidr`, `url`,
//! `lists`, `sets`) including their error texts, so that rules written for Kubernetes
//! behave the same under certgate. The engine binds them to CEL functions; nothing
//! here depends on the engine's value type.
//!
//! Go's `net/netip` and `net/url` parsers are re-implemented (in [`netip`] and in
//! `certgate_gofmt::url`) because Kubernetes' accept/reject decisions and messages come
//! from them, and Rust's `std::net` and the `url` crate follow different rules.

pub mod cidr;
pub mod ip;
pub mod lists;
pub mod netip;
pub mod sets;
pub mod url;

pub use cidr::{Cidr, CidrError, is_cidr};
pub use ip::{Ip, IpError, is_canonical, is_ip};
pub use lists::{ListError, Summable, index_of, is_sorted, last_index_of, max, min, sum};
pub use netip::NetipError;
pub use sets::{contains, equivalent, intersects};
pub use url::{Url, UrlError, is_url};

#[cfg(test)]
mod tests;
