//! Denied functions: they still parse (so the error names the function) but fail when run.

use certgate_gotemplate::{FuncError, FuncMap, Value};

/// Functions that read the propagator's environment: always denied.
pub const ALWAYS_DENIED: [&str; 2] = ["env", "expandenv"];

fn denied_message(name: &str) -> String {
    if ALWAYS_DENIED.contains(&name) {
        format!(
            "use of denylisted template function: function '{name}' is considered a security risk"
        )
    } else {
        format!("use of denylisted template function: function '{name}' is not allowed")
    }
}

/// Replaces every listed function (and `env`, `expandenv`) with a stub that accepts any
/// arguments and fails.
pub(super) fn register(map: &mut FuncMap, denylist: &[String]) {
    let names = denylist.iter().map(String::as_str).chain(ALWAYS_DENIED);
    for name in names {
        let message = denied_message(name);
        map.insert(name, move |_: &[Value]| Err(FuncError::call(message.clone())));
    }
}
