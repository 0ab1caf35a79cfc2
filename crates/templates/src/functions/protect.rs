//! `protect`: encrypts a value with the replica's key and IV (§8).

use certgate_gotemplate::{FuncError, FuncMap, Value};

use super::args::{expect_count, string_arg};
use super::k8s::protect_with_session;
use crate::session::current;

const NOT_ENABLED: &str = "the protect template function is not enabled in this mode";

/// With encryption off, a stub that explains itself; with it on, the real function, which
/// still needs the session to carry keys (the template uses encryption).
pub(super) fn register(map: &mut FuncMap, encryption_enabled: bool) {
    map.insert("protect", move |args: &[Value]| {
        expect_count("protect", args, 1)?;
        let value = string_arg(&args[0])?;
        if !encryption_enabled {
            return Err(FuncError::call(NOT_ENABLED));
        }
        let frame = current("protect")?;
        if frame.session().encryption.is_none() {
            return Err(FuncError::call(NOT_ENABLED));
        }
        Ok(Value::from(protect_with_session(&frame, value)))
    });
}
