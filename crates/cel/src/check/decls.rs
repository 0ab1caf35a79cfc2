//! Declarations of variables and function overloads, and overload resolution.
//!
//! A [`Declarations`] registry is what an environment hands the checker: it answers
//! "what is `x`" and "which overloads of `f` accept these argument types, and what do
//! they return". Overload ids are the ones cel-go uses, so checked references, cost
//! tables and error messages line up with upstream.

use std::collections::{BTreeMap, BTreeSet};

use super::types::{Substitution, Type};

/// Whether an overload is called as `f(x, y)` or as `x.f(y)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CallStyle {
    Global,
    /// The first parameter is the receiver.
    Receiver,
}

/// A static hint for the cost estimator: what one call of the overload costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CostHint {
    /// The same cost whatever the arguments.
    Constant(u64),
    /// `1 + ceil(size(arg) * tenths_per_unit / 10)`: the call walks argument `arg`
    /// (counting the receiver as argument 0), e.g. 1 tenth per byte for a string scan,
    /// 10 tenths per element for a list scan, as Kubernetes' cost model charges.
    Linear { arg: usize, tenths_per_unit: u32 },
}

/// One overload of a function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Overload {
    /// The overload id, as cel-go names it (`add_int64`, `string_ends_with`...).
    pub id: String,
    pub style: CallStyle,
    /// Parameter types; for [`CallStyle::Receiver`] the first is the receiver.
    pub params: Vec<Type>,
    pub result: Type,
    /// The type parameters the signature uses, in order of first appearance.
    pub type_params: Vec<String>,
    pub cost: CostHint,
}

impl Overload {
    /// A global overload costing 1 per call.
    pub fn global(id: impl Into<String>, params: Vec<Type>, result: Type) -> Self {
        Self::new(id.into(), CallStyle::Global, params, result)
    }

    /// A receiver-style overload costing 1 per call; `params[0]` is the receiver.
    pub fn receiver(id: impl Into<String>, params: Vec<Type>, result: Type) -> Self {
        Self::new(id.into(), CallStyle::Receiver, params, result)
    }

    fn new(id: String, style: CallStyle, params: Vec<Type>, result: Type) -> Self {
        let mut type_params = Vec::new();
        for ty in params.iter().chain(std::iter::once(&result)) {
            for name in ty.type_params() {
                if !type_params.contains(&name) {
                    type_params.push(name);
                }
            }
        }
        Self { id, style, params, result, type_params, cost: CostHint::Constant(1) }
    }

    /// This overload with another cost hint.
    pub fn with_cost(mut self, cost: CostHint) -> Self {
        self.cost = cost;
        self
    }

    /// Parameters and result with every type parameter replaced by a fresh one, so two
    /// uses of the same declaration (or two declarations both using `A`) never share
    /// bindings.
    fn instantiate(&self, subst: &mut Substitution) -> (Vec<Type>, Type) {
        if self.type_params.is_empty() {
            return (self.params.clone(), self.result.clone());
        }
        let renames: BTreeMap<String, Type> =
            self.type_params.iter().map(|name| (name.clone(), subst.fresh_param())).collect();
        let params = self.params.iter().map(|p| p.rename_params(&renames)).collect();
        (params, self.result.rename_params(&renames))
    }
}

/// A function and its overloads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionDecl {
    pub name: String,
    pub overloads: Vec<Overload>,
}

/// A declared variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariableDecl {
    pub name: String,
    pub ty: Type,
}

/// The overloads a call resolved to and the type it has.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolution {
    /// Ids of every overload the argument types agree with, in declaration order; more
    /// than one when an argument is `dyn` and the choice is left to evaluation.
    pub overload_ids: Vec<String>,
    /// The result type, with the call's type parameters substituted (still-unbound ones
    /// stay parameters); `dyn` when candidates disagree on it.
    pub result: Type,
}

/// A declaration that cannot be added.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DeclError {
    #[error(
        "overload id '{id}' declared for function '{function}' is already used by function \
         '{existing_function}'; give every overload a unique id"
    )]
    DuplicateOverloadId { id: String, function: String, existing_function: String },
    #[error(
        "overload '{id}' of function '{function}' overlaps with overload '{existing}': both \
         accept the same arguments; make their parameter types distinct"
    )]
    OverlappingOverload { id: String, function: String, existing: String },
    #[error(
        "receiver-style overload '{id}' of function '{function}' has no parameters; its \
         first parameter must be the receiver type"
    )]
    ReceiverWithoutParams { id: String, function: String },
    #[error("variable '{name}' is already declared; declare each variable once")]
    DuplicateVariable { name: String },
    #[error("object type '{name}' is already declared; declare each type once")]
    DuplicateObjectType { name: String },
}

/// A call the declarations cannot type.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    /// The message is the one cel-go reports (the checker has no containers).
    #[error("undeclared reference to '{name}' (in container '')")]
    UnknownFunction { name: String },
    /// `signature` is formatted as cel-go does: `(int, string)`, or `string.(int)` for a
    /// receiver call.
    #[error("found no matching overload for '{name}' applied to '{signature}'")]
    NoMatchingOverload { name: String, signature: String },
}

/// Variables and functions of an environment, looked up by the checker.
#[derive(Clone, Debug, Default)]
pub struct Declarations {
    functions: BTreeMap<String, FunctionDecl>,
    variables: BTreeMap<String, VariableDecl>,
    /// Overload id → function name, to keep ids unique and look them up.
    overload_ids: BTreeMap<String, String>,
    /// Object (message) types by fully qualified name.
    objects: BTreeMap<String, ObjectDecl>,
}

/// An object type with named, typed fields (in declaration order), such as the
/// approver-policy `CertificateRequest` of the `cr` variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectDecl {
    pub name: String,
    pub fields: Vec<(String, Type)>,
}

impl ObjectDecl {
    pub fn field(&self, name: &str) -> Option<&Type> {
        self.fields.iter().find(|(n, _)| n == name).map(|(_, t)| t)
    }
}

impl Declarations {
    pub fn new() -> Self {
        Self::default()
    }

    /// Declares a variable; a second declaration of the same name is an error.
    pub fn add_variable(&mut self, name: impl Into<String>, ty: Type) -> Result<(), DeclError> {
        let name = name.into();
        if self.variables.contains_key(&name) {
            return Err(DeclError::DuplicateVariable { name });
        }
        self.variables.insert(name.clone(), VariableDecl { name, ty });
        Ok(())
    }

    /// Declares an object type; its values are `Type::Object(name)`. A second
    /// declaration of the same name is an error.
    pub fn add_object_type(
        &mut self,
        name: impl Into<String>,
        fields: Vec<(String, Type)>,
    ) -> Result<(), DeclError> {
        let name = name.into();
        if self.objects.contains_key(&name) {
            return Err(DeclError::DuplicateObjectType { name });
        }
        self.objects.insert(name.clone(), ObjectDecl { name, fields });
        Ok(())
    }

    pub fn object_type(&self, name: &str) -> Option<&ObjectDecl> {
        self.objects.get(name)
    }

    /// Adds overloads to function `name` (declaring it if new). Nothing is added when
    /// any of them is rejected.
    pub fn add_function(
        &mut self,
        name: impl Into<String>,
        overloads: impl IntoIterator<Item = Overload>,
    ) -> Result<(), DeclError> {
        let name = name.into();
        let mut staged = self.functions.get(&name).map_or_else(Vec::new, |f| f.overloads.clone());
        let existing = staged.len();
        let mut new_ids = BTreeSet::new();
        for overload in overloads {
            self.validate(&name, &overload, &staged, &new_ids)?;
            new_ids.insert(overload.id.clone());
            staged.push(overload);
        }
        for overload in staged.iter().skip(existing) {
            self.overload_ids.insert(overload.id.clone(), name.clone());
        }
        self.functions.insert(name.clone(), FunctionDecl { name, overloads: staged });
        Ok(())
    }

    fn validate(
        &self,
        function: &str,
        overload: &Overload,
        siblings: &[Overload],
        new_ids: &BTreeSet<String>,
    ) -> Result<(), DeclError> {
        let id = &overload.id;
        let duplicate_of = if new_ids.contains(id) {
            Some(function.to_owned())
        } else {
            self.overload_ids.get(id).cloned()
        };
        if let Some(existing_function) = duplicate_of {
            return Err(DeclError::DuplicateOverloadId {
                id: id.clone(),
                function: function.to_owned(),
                existing_function,
            });
        }
        if overload.style == CallStyle::Receiver && overload.params.is_empty() {
            return Err(DeclError::ReceiverWithoutParams {
                id: id.clone(),
                function: function.to_owned(),
            });
        }
        if let Some(other) = siblings.iter().find(|other| overlaps(overload, other)) {
            return Err(DeclError::OverlappingOverload {
                id: id.clone(),
                function: function.to_owned(),
                existing: other.id.clone(),
            });
        }
        Ok(())
    }

    pub fn variable(&self, name: &str) -> Option<&VariableDecl> {
        self.variables.get(name)
    }

    pub fn function(&self, name: &str) -> Option<&FunctionDecl> {
        self.functions.get(name)
    }

    pub fn functions(&self) -> impl Iterator<Item = &FunctionDecl> {
        self.functions.values()
    }

    pub fn variables(&self) -> impl Iterator<Item = &VariableDecl> {
        self.variables.values()
    }

    /// The function declaring overload `id`, and the overload.
    pub fn overload(&self, id: &str) -> Option<(&FunctionDecl, &Overload)> {
        let function = self.functions.get(self.overload_ids.get(id)?)?;
        let overload = function.overloads.iter().find(|o| o.id == id)?;
        Some((function, overload))
    }

    /// Overloads of `name` callable in `style` with `arity` arguments (the receiver
    /// counted).
    pub fn candidates<'a>(
        &'a self,
        name: &str,
        style: CallStyle,
        arity: usize,
    ) -> impl Iterator<Item = &'a Overload> + 'a {
        self.functions
            .get(name)
            .into_iter()
            .flat_map(|f| f.overloads.iter())
            .filter(move |o| o.style == style && o.params.len() == arity)
    }

    /// Resolves a call of `name` with argument types `args` (the receiver first for a
    /// receiver call), binding type parameters in `subst` as cel-go's checker does:
    /// every agreeing overload is kept, the first fixes the result type.
    pub fn resolve(
        &self,
        name: &str,
        style: CallStyle,
        args: &[Type],
        subst: &mut Substitution,
    ) -> Result<Resolution, ResolveError> {
        if !self.functions.contains_key(name) {
            return Err(ResolveError::UnknownFunction { name: name.to_owned() });
        }
        let mut overload_ids = Vec::new();
        let mut result: Option<Type> = None;
        for overload in self.candidates(name, style, args.len()) {
            let (params, declared_result) = overload.instantiate(subst);
            if !subst.is_assignable_all(args, &params) {
                continue;
            }
            overload_ids.push(overload.id.clone());
            let candidate = subst.substitute(&declared_result, false);
            result = Some(match result {
                None => candidate,
                Some(previous) if previous == Type::Dyn || previous == candidate => previous,
                Some(_) => Type::Dyn,
            });
        }
        match result {
            Some(result) => Ok(Resolution { overload_ids, result }),
            None => Err(ResolveError::NoMatchingOverload {
                name: name.to_owned(),
                signature: format_signature(style, args),
            }),
        }
    }
}

/// Whether some argument list would match both overloads, which would make the
/// choice between them ambiguous.
fn overlaps(a: &Overload, b: &Overload) -> bool {
    if a.style != b.style || a.params.len() != b.params.len() {
        return false;
    }
    let mut subst = Substitution::new();
    let (a_params, _) = a.instantiate(&mut subst);
    let (b_params, _) = b.instantiate(&mut subst);
    subst.is_assignable_all(&a_params, &b_params)
}

/// A type as cel-go's checker prints it in overload errors, where the null type is `null`
/// (elsewhere, and at run time, it is `null_type`).
fn checker_name(ty: &Type) -> String {
    ty.to_string().replace("null_type", "null")
}

fn format_signature(style: CallStyle, args: &[Type]) -> String {
    let (receiver, rest) = match (style, args.split_first()) {
        (CallStyle::Receiver, Some((receiver, rest))) => (Some(receiver), rest),
        _ => (None, args),
    };
    let list = rest.iter().map(checker_name).collect::<Vec<_>>().join(", ");
    match receiver {
        Some(receiver) => format!("{}.({list})", checker_name(receiver)),
        None => format!("({list})"),
    }
}
