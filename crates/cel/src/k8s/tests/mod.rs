//! Table tests for the Kubernetes CEL libraries. Expected messages are kube-apiserver's
//! (Go `net/netip` and `net/url` texts included), examples are those of the Kubernetes
//! library documentation and of the cel-spec `network_ext` conformance file.

mod cel_spec_network;
mod cidr;
mod ip;
mod lists;
mod sets;
mod url;
