//! Field tables for the kinds kubectl's typed clients send, one file per API group. Field
//! numbers and wire types come from each group's `generated.proto` (as mirrored by the `k8s-pb`
//! crate, 0.9.0), JSON names and `omitempty`/pointer choices from its Go `types.go`.

pub(crate) mod authentication;
pub(crate) mod authorization;
pub(crate) mod core;
pub(crate) mod meta;
pub(crate) mod rbac;
pub(crate) mod wire;
