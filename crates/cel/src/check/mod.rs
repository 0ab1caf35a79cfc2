//! Building blocks of the CEL type checker (issue #3): the type model with its
//! unification rules, function and variable declarations with overload resolution,
//! and the declaration tables of the standard library and the extensions certgate
//! offers. The checker walk over parsed expressions builds on these.

pub mod checker;
mod decls;
mod ext;
mod kubernetes;
mod stdlib;
mod types;

#[cfg(test)]
mod decls_tests;
#[cfg(test)]
mod library_tests;
#[cfg(test)]
mod types_tests;

pub use checker::{CheckErrors, CheckedAst, check, expect_bool};
pub use decls::{
    CallStyle, CostHint, DeclError, Declarations, FunctionDecl, ObjectDecl, Overload, Resolution,
    ResolveError, VariableDecl,
};
pub use ext::{add_optionals, add_strings_extension};
pub use kubernetes::{
    CIDR_TYPE_NAME, IP_TYPE_NAME, URL_TYPE_NAME, add_cidr, add_ip, add_kubernetes_libraries,
    add_lists, add_regex, add_sets, add_urls,
};
pub use stdlib::add_standard_library;
pub use types::{MAX_TYPE_DEPTH, OPTIONAL_TYPE_NAME, Substitution, Type, most_general};

/// Declarations of everything certgate's CEL offers: the standard library, the
/// strings extension, optionals and the Kubernetes libraries. Environments add their
/// variables (and functions of their own) to the result.
pub fn full_library() -> Result<Declarations, DeclError> {
    let mut decls = Declarations::new();
    add_standard_library(&mut decls)?;
    add_strings_extension(&mut decls)?;
    add_optionals(&mut decls)?;
    add_kubernetes_libraries(&mut decls)?;
    Ok(decls)
}
