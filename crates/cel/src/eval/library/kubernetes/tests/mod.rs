//! The Kubernetes libraries through the function table: every declared overload is
//! bound, the cel-spec `network_ext` cases hold (with Kubernetes' error texts, see
//! `crate::k8s::tests::cel_spec_network` for where cel-spec differs), and list, set and
//! URL functions work on engine values.

mod lists;
mod network;
mod url;

use crate::eval::Functions;
use crate::value::{Value, ValueError};

pub(super) fn call(id: &str, args: &[Value]) -> Result<Value, ValueError> {
    let implementation =
        Functions::full_library().get(id).unwrap_or_else(|| panic!("no implementation of {id}"));
    implementation.call(args)
}

pub(super) fn ok(id: &str, args: &[Value]) -> Value {
    call(id, args).unwrap_or_else(|e| panic!("{id}{args:?}: {e}"))
}

pub(super) fn err(id: &str, args: &[Value]) -> String {
    match call(id, args) {
        Ok(v) => panic!("{id}{args:?} = {v:?}, want an error"),
        Err(e) => e.to_string(),
    }
}

pub(super) fn s(text: &str) -> Value {
    Value::string(text)
}

pub(super) fn b(v: bool) -> Value {
    Value::Bool(v)
}

pub(super) fn ip(text: &str) -> Value {
    ok("string_to_ip", &[s(text)])
}

pub(super) fn cidr(text: &str) -> Value {
    ok("string_to_cidr", &[s(text)])
}

pub(super) fn url(text: &str) -> Value {
    ok("string_to_url", &[s(text)])
}

pub(super) fn ints(items: &[i64]) -> Value {
    Value::list(items.iter().map(|i| Value::Int(*i)).collect())
}

#[test]
fn every_declared_overload_is_implemented_with_its_arity() {
    let checked = crate::eval::library::coverage::implemented_overloads(
        crate::check::add_kubernetes_libraries,
        &[],
    );
    // regex 3, url 8, ip 10, cidr 10, lists 8 + 4 + 16 + 2, sets 3
    assert_eq!(checked, 64);
}
