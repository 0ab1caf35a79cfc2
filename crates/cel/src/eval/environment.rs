//! An environment: what expressions may refer to (declarations), what the functions
//! do (implementations), and how variables are bound at evaluation time (slots).

use std::collections::HashMap;
use std::sync::Arc;

use super::compiler::Compiler;
use super::{Functions, Program};
use crate::CompileError;
use crate::check::{self, DeclError, Declarations, Type};
use crate::cost::{self, CostEstimate, SizeBounds};
use crate::syntax::{self, ParserOptions};
use crate::value::Value;

/// Declarations and implementations that programs are compiled against.
///
/// Every declared variable gets a slot, in name order; [`Program::eval`] takes the
/// values by slot, so binding a request's variables is filling a small array rather
/// than building a map. Variables of type `type(T)` are the type identifiers (`int`,
/// `string`, ...) and are constants, not slots.
#[derive(Clone, Debug)]
pub struct Environment {
    decls: Declarations,
    functions: Functions,
    slots: Vec<Arc<str>>,
    slot_of: HashMap<String, usize>,
    constants: HashMap<String, Value>,
    parser: ParserOptions,
}

impl Environment {
    /// An environment over `decls`, implemented by `functions`.
    pub fn new(decls: Declarations, functions: Functions) -> Self {
        let mut slots = Vec::new();
        let mut slot_of = HashMap::new();
        let mut constants = HashMap::new();
        for var in decls.variables() {
            match &var.ty {
                Type::TypeOf(t) if !t.is_dyn_or_error() => {
                    constants.insert(var.name.clone(), Value::Type((**t).clone()));
                }
                _ => {
                    slot_of.insert(var.name.clone(), slots.len());
                    slots.push(Arc::from(var.name.as_str()));
                }
            }
        }
        Self { decls, functions, slots, slot_of, constants, parser: ParserOptions::default() }
    }

    /// Every library certgate offers ([`check::full_library`] and
    /// [`Functions::full_library`]) plus `variables`.
    pub fn with_full_library(
        variables: impl IntoIterator<Item = (String, Type)>,
    ) -> Result<Self, DeclError> {
        let mut decls = check::full_library()?;
        for (name, ty) in variables {
            decls.add_variable(name, ty)?;
        }
        Ok(Self::new(decls, Functions::full_library()))
    }

    /// The same environment parsing with other options (nesting depth, size).
    pub fn with_parser_options(mut self, options: ParserOptions) -> Self {
        self.parser = options;
        self
    }

    pub fn declarations(&self) -> &Declarations {
        &self.decls
    }

    pub fn functions(&self) -> &Functions {
        &self.functions
    }

    /// The slot variable `name` is bound at, if it is a declared variable.
    pub fn slot(&self, name: &str) -> Option<usize> {
        self.slot_of.get(name).copied()
    }

    /// Names of the variables by slot.
    pub fn slots(&self) -> &[Arc<str>] {
        &self.slots
    }

    pub(crate) fn constant(&self, name: &str) -> Option<&Value> {
        self.constants.get(name)
    }

    /// Parses, type-checks and compiles `source`. Errors are rendered as cel-go renders
    /// them: `ERROR: <input>:line:column: message`, the line and a caret.
    pub fn compile(&self, source: &str) -> Result<Program, CompileError> {
        let ast = syntax::parse_with(source, &self.parser)
            .map_err(|e| CompileError::new(e.to_string()))?;
        let checked =
            check::check(&ast, &self.decls).map_err(|e| CompileError::new(e.render(source)))?;
        Compiler::new(self, Some(&checked)).program(&ast, source, checked.root_type().clone())
    }

    /// [`Environment::compile`], and the static cost estimate of the result given the
    /// size bounds of the inputs (see [`crate::cost`]).
    pub fn compile_estimated(
        &self,
        source: &str,
        bounds: &SizeBounds,
    ) -> Result<(Program, CostEstimate), CompileError> {
        let ast = syntax::parse_with(source, &self.parser)
            .map_err(|e| CompileError::new(e.to_string()))?;
        let checked =
            check::check(&ast, &self.decls).map_err(|e| CompileError::new(e.render(source)))?;
        let estimate = cost::estimate(&ast, &checked, &self.decls, bounds);
        let program = Compiler::new(self, Some(&checked)).program(
            &ast,
            source,
            checked.root_type().clone(),
        )?;
        Ok((program, estimate))
    }

    /// Parses and compiles `source` without type-checking it: calls dispatch on the
    /// argument kinds met at evaluation time. For tests of the evaluator on
    /// deliberately ill-typed expressions; policies are always checked.
    pub fn compile_unchecked(&self, source: &str) -> Result<Program, CompileError> {
        let ast = syntax::parse_with(source, &self.parser)
            .map_err(|e| CompileError::new(e.to_string()))?;
        Compiler::new(self, None).program(&ast, source, Type::Dyn)
    }
}
