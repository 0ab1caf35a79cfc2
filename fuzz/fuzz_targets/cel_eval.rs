//! Arbitrary text through certgate's whole CEL pipeline: parse, type-check, compile and
//! evaluate with a bounded budget, both as a policy rule and unchecked (so every library
//! function meets arguments of every kind). Nothing may panic, overflow the stack or run
//! past the budget.
#![no_main]

use std::sync::OnceLock;

use certgate_cel::check::Type;
use certgate_cel::eval::Environment;
use certgate_cel::value::Value;
use certgate_cel::{CrVariable, PolicyCel};
use libfuzzer_sys::fuzz_target;

/// Small enough that generated loops end fast, large enough to reach every function.
const BUDGET: u64 = 100_000;

fn policy() -> &'static PolicyCel {
    static CEL: OnceLock<PolicyCel> = OnceLock::new();
    CEL.get_or_init(|| PolicyCel::new(16))
}

fn unchecked() -> &'static Environment {
    static ENV: OnceLock<Environment> = OnceLock::new();
    ENV.get_or_init(|| {
        let vars = ["self", "cr"].map(|name| (name.to_owned(), Type::Dyn));
        Environment::with_full_library(vars).expect("the library declares")
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let cr = CrVariable {
        name: "web".to_owned(),
        namespace: "sandbox".to_owned(),
        username: "system:serviceaccount:sandbox:app".to_owned(),
        groups: vec!["system:authenticated".to_owned()],
    };
    if let Ok(program) = policy().compile(text) {
        let _ = program.eval("app.sandbox.svc", &cr);
    }
    let env = unchecked();
    if let Ok(program) = env.compile_unchecked(text) {
        let mut values = vec![Value::Null; env.slots().len()];
        if let Some(slot) = env.slot("self") {
            values[slot] = Value::string("10.0.0.1");
        }
        if let Some(slot) = env.slot("cr") {
            values[slot] = Value::list(vec![Value::Int(1), Value::string("a")]);
        }
        let _ = program.eval_with_limit(&values, BUDGET);
    }
});
