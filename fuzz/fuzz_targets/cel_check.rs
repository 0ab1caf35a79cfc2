//! Arbitrary text through certgate's CEL front end: parsing and type-checking against the
//! whole declared library must never panic or overflow the stack, whatever a tenant writes.
#![no_main]

use std::sync::OnceLock;

use certgate_cel::check::{Declarations, Type, check, full_library};
use libfuzzer_sys::fuzz_target;

fn declarations() -> &'static Declarations {
    static DECLS: OnceLock<Declarations> = OnceLock::new();
    DECLS.get_or_init(|| {
        let mut decls = full_library().expect("the library declares");
        decls.add_variable("self", Type::String).expect("self declares");
        decls
            .add_variable("cr", Type::Map(Box::new(Type::String), Box::new(Type::Dyn)))
            .expect("cr declares");
        decls
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(ast) = certgate_cel::syntax::parse(text) {
        let _ = check(&ast, declarations());
    }
});
