//! Go's `fmt` for template values: what `print`, `printf`, `println` return and how an
//! action (`{{.f}}`) prints its value. gotmpl's own printing is Rust's (a float64 in plain
//! decimal, no element-wise verbs, other type names), so the engine routes all of it here.

use certgate_gofmt::Arg;

use crate::Value;

/// A template value as Go's `fmt` sees it: the `interface{}` it holds.
pub fn to_arg(value: &Value) -> Arg<'_> {
    match value {
        Value::Nil => Arg::Nil,
        Value::Bool(b) => Arg::Bool(*b),
        Value::Int(i) => Arg::Int(*i),
        Value::Uint(u) => Arg::Uint(*u),
        Value::Float(f) => Arg::Float(*f),
        Value::String(s) => Arg::Str(s),
        Value::List(items) => Arg::List(items.iter().map(to_arg).collect()),
        Value::Map(map) => Arg::Map(map.iter().map(|(k, v)| (&**k, to_arg(v))).collect()),
        // Templates cannot make function values; gotmpl's text stands in for Go's address.
        Value::Function(_) => Arg::Str("<func>"),
    }
}

fn args(values: &[Value]) -> Vec<Arg<'_>> {
    values.iter().map(to_arg).collect()
}

/// Go's `fmt.Sprint` of template values (the `print` builtin).
pub fn sprint(values: &[Value]) -> String {
    certgate_gofmt::sprint(&args(values))
}

/// Go's `fmt.Sprintln` of template values (the `println` builtin).
pub fn sprintln(values: &[Value]) -> String {
    certgate_gofmt::sprintln(&args(values))
}

/// Go's `fmt.Sprintf` of template values (the `printf` builtin).
pub fn sprintf(format: &str, values: &[Value]) -> String {
    certgate_gofmt::sprintf(format, &args(values))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use super::*;

    /// Outputs recorded from Go 1.26 (text/template's `printf`/`print` over typed JSON data).
    #[test]
    fn prints_template_values_like_go() {
        let list = Value::List(
            vec![Value::Int(1), Value::String(Arc::from("a")), Value::Nil, Value::Float(1.5)]
                .into(),
        );
        assert_eq!(
            sprintf("%#v", std::slice::from_ref(&list)),
            r#"[]interface {}{1, "a", interface {}(nil), 1.5}"#
        );
        let map: BTreeMap<Arc<str>, Value> = [
            (Arc::from("b"), Value::List(vec![Value::Int(1)].into())),
            (Arc::from("a"), Value::Nil),
        ]
        .into_iter()
        .collect();
        let map = Value::Map(Arc::new(map));
        assert_eq!(
            sprintf("%d", std::slice::from_ref(&map)),
            "map[%!d(string=a):<nil> %!d(string=b):[1]]"
        );
        assert_eq!(
            sprint(&[Value::Float(123_456_789.0), Value::Uint(u64::MAX)]),
            "1.23456789e+08 18446744073709551615"
        );
        assert_eq!(sprintln(&[Value::Nil, list]), "<nil> [1 a <nil> 1.5]\n");
    }
}
