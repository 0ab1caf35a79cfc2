//! The hub template function library (go-template-utils v7, §7.5).

mod args;
mod convert;
mod denylist;
pub(crate) mod encoding;
mod k8s;
mod protect;

use certgate_gotemplate::FuncMap;

pub use denylist::ALWAYS_DENIED;

/// How the library is configured for one resolver.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionConfig {
    /// Added to every `indent` (the propagator uses 8: templates sit in an
    /// `objectDefinition` that many levels deep).
    pub additional_indentation: usize,
    /// `--template-function-denylist`; `env` and `expandenv` are always denied.
    pub denylist: Vec<String>,
    /// Whether `protect` is available (otherwise a stub that explains itself).
    pub encryption_enabled: bool,
}

impl Default for FunctionConfig {
    fn default() -> Self {
        FunctionConfig {
            additional_indentation: 8,
            denylist: Vec::new(),
            encryption_enabled: false,
        }
    }
}

/// sprig's JSON functions under the upper-case names go-template-utils adds.
const JSON_ALIASES: [(&str, &str); 6] = [
    ("fromJSON", "fromJson"),
    ("mustFromJSON", "mustFromJson"),
    ("toJSON", "toJson"),
    ("mustToJSON", "mustToJson"),
    ("toRawJSON", "toRawJson"),
    ("mustToRawJSON", "mustToRawJson"),
];

/// The function map, built in upstream's order (§7.2 step 4): custom functions, every sprig
/// function not defined yet, `protect`, then the denylist stubs.
pub fn hub_functions(config: &FunctionConfig) -> FuncMap {
    let sprig = certgate_sprig::functions();
    let mut map = FuncMap::new();
    k8s::register(&mut map);
    encoding::register(&mut map);
    convert::register(&mut map, config.additional_indentation);
    for (alias, name) in JSON_ALIASES {
        if let Some(func) = sprig.get(name) {
            map.insert_shared(alias, func.clone());
        }
    }
    map.extend_missing(&sprig);
    protect::register(&mut map, config.encryption_enabled);
    denylist::register(&mut map, &config.denylist);
    map
}
