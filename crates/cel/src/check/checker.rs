//! The type-checking walk over a parsed expression (issue #3, item 2).
//!
//! [`check`] gives every node of an [`Ast`] a [`Type`], resolves every call against the
//! [`Declarations`] of an environment and records which overloads it may dispatch to, so
//! a rule with an undeclared name or ill-typed call is rejected when the policy is
//! applied rather than when a request arrives. Errors are collected, not stopped at, so
//! one compile reports every problem of a rule.

mod errors;
mod walk;

pub(crate) use walk::qualified_name;

#[cfg(test)]
mod robustness_tests;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

pub use errors::{CheckError, CheckErrorKind, CheckErrors, MAX_CHECK_ERRORS};

use super::{Declarations, Type};
use crate::syntax::{Ast, NodeId, Span};

/// What a name or a call of a checked expression refers to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reference {
    /// An identifier (or a dot-qualified name) naming a declared or comprehension variable.
    Variable(String),
    /// A call of `function`, with every overload its argument types agree with; more
    /// than one when arguments are `dyn` and the choice is left to evaluation.
    Call { function: String, overload_ids: Vec<String> },
}

/// A type-checked expression: the type of every node and what names and calls refer to.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckedAst {
    types: BTreeMap<NodeId, Type>,
    references: BTreeMap<NodeId, Reference>,
    root: NodeId,
    root_span: Span,
    root_anchor: errors::Anchor,
}

impl CheckedAst {
    /// The type of node `id`, with unresolved type parameters reported as `dyn`.
    pub fn type_of(&self, id: NodeId) -> Option<&Type> {
        self.types.get(&id)
    }

    /// The type of the whole expression.
    pub fn root_type(&self) -> &Type {
        self.types.get(&self.root).unwrap_or(&Type::Dyn)
    }

    /// What the identifier, select or call node `id` refers to.
    pub fn reference(&self, id: NodeId) -> Option<&Reference> {
        self.references.get(&id)
    }

    /// Every node's reference, by node id.
    pub fn references(&self) -> impl Iterator<Item = (NodeId, &Reference)> {
        self.references.iter().map(|(id, r)| (*id, r))
    }
}

/// Type-checks `ast` against the variables and functions of `decls`.
pub fn check(ast: &Ast, decls: &Declarations) -> Result<CheckedAst, CheckErrors> {
    walk::Checker::new(decls).run(ast)
}

/// Requires the expression to produce a `bool` (or `dyn`, checked when evaluated), as a
/// policy rule must.
pub fn expect_bool(checked: &CheckedAst) -> Result<(), CheckErrors> {
    match checked.root_type() {
        Type::Bool | Type::Dyn => Ok(()),
        other => Err(CheckErrors::single(CheckError {
            kind: CheckErrorKind::NotBool { got: other.clone() },
            span: checked.root_span,
            anchor: checked.root_anchor,
        })),
    }
}
