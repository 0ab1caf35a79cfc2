//! No function panics, whatever it is given: every registered function is called with
//! combinations of awkward values (results and errors are both fine).
mod common;
use common::*;

use certgate_gotemplate::Value;

/// Slow by design (RSA generation, scrypt, bcrypt) or reaching the network; covered by their
/// own tests.
const SKIP: &[&str] = &[
    "genPrivateKey",
    "genCA",
    "genSelfSignedCert",
    "genSignedCert",
    "derivePassword",
    "bcrypt",
    "htpasswd",
    "getHostByName",
];

fn awkward() -> Vec<Value> {
    vec![
        nil(),
        b(true),
        i(0),
        i(-1),
        i(i64::MAX),
        i(i64::MIN),
        Value::Uint(u64::MAX),
        f(f64::NAN),
        f(-0.5),
        f(1e300),
        s(""),
        s("é"),
        s("a.b/c"),
        l(vec![]),
        l(vec![nil(), s("x")]),
        d(&[]),
        d(&[("a", d(&[("b", i(1))]))]),
    ]
}

#[test]
fn no_function_panics() {
    let funcs = certgate_sprig::functions();
    let all = awkward();
    let few: Vec<Value> = vec![nil(), i(-1), i(i64::MAX), s("é"), l(vec![]), d(&[])];
    let mut calls = 0usize;
    for name in funcs.names() {
        if SKIP.contains(&name) {
            continue;
        }
        let Some(f) = funcs.get(name) else { continue };
        let _ = f(&[]);
        for a in &all {
            let _ = f(std::slice::from_ref(a));
            for b2 in &all {
                let _ = f(&[a.clone(), b2.clone()]);
                calls += 1;
            }
        }
        for a in &few {
            for b2 in &few {
                for c in &few {
                    let _ = f(&[a.clone(), b2.clone(), c.clone()]);
                    let _ = f(&[a.clone(), b2.clone(), c.clone(), s("x")]);
                    let _ = f(&[s("x"), a.clone(), b2.clone(), c.clone(), i(1)]);
                    calls += 3;
                }
            }
        }
    }
    assert!(calls > 50_000, "{calls}");
}
