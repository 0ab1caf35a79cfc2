//! CEL types and the unification the checker uses to match calls against overloads.
//!
//! The rules follow the CEL checker specification as cel-go implements it: `dyn` (and
//! `*error*`, so one error does not cascade) agrees with every type in both directions;
//! a type parameter is bound the first time it meets a concrete type and must agree with
//! that binding afterwards, widening to the more general of the two; `null` agrees with
//! the types that are nullable in protobuf-based CEL (messages, timestamps, durations,
//! opaque values). List and map literal elements of different types join to `dyn`.

use std::collections::BTreeMap;
use std::fmt;

/// Name of the opaque type that holds optional values (`optional_type(T)`).
pub const OPTIONAL_TYPE_NAME: &str = "optional_type";

/// Deepest type the unifier walks.
///
/// Types are built from declarations and from the checked expression, whose nesting the
/// parser bounds far below this; the limit only guarantees the recursive walks below
/// terminate on a bounded stack whatever they are given. A type deeper than this never
/// unifies.
// Above the policy nesting limit (250): a list nested as deep as cel-go accepts keeps its
// element type instead of collapsing to `dyn` (which failed `wanted bool result type`).
pub const MAX_TYPE_DEPTH: usize = 256;

/// A CEL type as the checker sees it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    Bool,
    Int,
    Uint,
    Double,
    String,
    Bytes,
    /// The type of `null`, printed `null_type`.
    Null,
    /// `google.protobuf.Duration`.
    Duration,
    /// `google.protobuf.Timestamp`.
    Timestamp,
    List(Box<Type>),
    Map(Box<Type>, Box<Type>),
    /// The type of a type value: `type(int)` is the type of the value `int`.
    TypeOf(Box<Type>),
    /// Any type, checked at evaluation time.
    Dyn,
    /// The type of an expression that already failed to check, printed `*error*`.
    Error,
    /// An abstract type known by name, such as `optional_type(int)` or `net.IP`.
    Opaque {
        name: String,
        params: Vec<Type>,
    },
    /// A message (object) type known by its fully qualified name.
    Object(String),
    /// A type parameter of a declaration (`A`, `B`) or a fresh one of the checker.
    Param(String),
}

impl Type {
    pub fn list(elem: Type) -> Self {
        Self::List(Box::new(elem))
    }

    pub fn map(key: Type, value: Type) -> Self {
        Self::Map(Box::new(key), Box::new(value))
    }

    pub fn type_of(ty: Type) -> Self {
        Self::TypeOf(Box::new(ty))
    }

    pub fn opaque(name: impl Into<String>, params: Vec<Type>) -> Self {
        Self::Opaque { name: name.into(), params }
    }

    pub fn optional(value: Type) -> Self {
        Self::opaque(OPTIONAL_TYPE_NAME, vec![value])
    }

    pub fn object(name: impl Into<String>) -> Self {
        Self::Object(name.into())
    }

    pub fn param(name: impl Into<String>) -> Self {
        Self::Param(name.into())
    }

    /// Whether this is `dyn` or `*error*`, the types that agree with every other.
    pub fn is_dyn_or_error(&self) -> bool {
        matches!(self, Self::Dyn | Self::Error)
    }

    /// The type parameters of this type, in order of first appearance, each once.
    pub fn type_params(&self) -> Vec<String> {
        let mut names = Vec::new();
        self.collect_params(&mut names, 0);
        names
    }

    fn collect_params(&self, names: &mut Vec<String>, depth: usize) {
        if depth > MAX_TYPE_DEPTH {
            return;
        }
        match self {
            Self::Param(name) if !names.contains(name) => names.push(name.clone()),
            Self::List(elem) | Self::TypeOf(elem) => elem.collect_params(names, depth + 1),
            Self::Map(key, value) => {
                key.collect_params(names, depth + 1);
                value.collect_params(names, depth + 1);
            }
            Self::Opaque { params, .. } => {
                for param in params {
                    param.collect_params(names, depth + 1);
                }
            }
            _ => {}
        }
    }

    /// This type with every type parameter found in `renames` replaced.
    pub(crate) fn rename_params(&self, renames: &BTreeMap<String, Type>) -> Type {
        self.map_params(0, &|name| renames.get(name).cloned())
    }

    /// Rebuilds the type, replacing each parameter for which `replace` returns a type.
    /// Parts deeper than [`MAX_TYPE_DEPTH`] become `dyn`: gradual typing then defers
    /// them to evaluation, which is always sound.
    fn map_params(&self, depth: usize, replace: &dyn Fn(&str) -> Option<Type>) -> Type {
        if depth > MAX_TYPE_DEPTH {
            return Type::Dyn;
        }
        match self {
            Self::Param(name) => replace(name).unwrap_or_else(|| self.clone()),
            Self::List(elem) => Type::list(elem.map_params(depth + 1, replace)),
            Self::TypeOf(ty) => Type::type_of(ty.map_params(depth + 1, replace)),
            Self::Map(key, value) => {
                Type::map(key.map_params(depth + 1, replace), value.map_params(depth + 1, replace))
            }
            Self::Opaque { name, params } => Type::Opaque {
                name: name.clone(),
                params: params.iter().map(|param| param.map_params(depth + 1, replace)).collect(),
            },
            _ => self.clone(),
        }
    }
}

impl fmt::Display for Type {
    /// Prints the type the way cel-go does in its messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Bool => f.write_str("bool"),
            Self::Int => f.write_str("int"),
            Self::Uint => f.write_str("uint"),
            Self::Double => f.write_str("double"),
            Self::String => f.write_str("string"),
            Self::Bytes => f.write_str("bytes"),
            Self::Null => f.write_str("null_type"),
            Self::Duration => f.write_str("google.protobuf.Duration"),
            Self::Timestamp => f.write_str("google.protobuf.Timestamp"),
            Self::List(elem) => write!(f, "list({elem})"),
            Self::Map(key, value) => write!(f, "map({key}, {value})"),
            Self::TypeOf(ty) => write!(f, "type({ty})"),
            Self::Dyn => f.write_str("dyn"),
            Self::Error => f.write_str("*error*"),
            Self::Opaque { name, params } => {
                f.write_str(name)?;
                if !params.is_empty() {
                    f.write_str("(")?;
                    for (i, param) in params.iter().enumerate() {
                        if i > 0 {
                            f.write_str(", ")?;
                        }
                        write!(f, "{param}")?;
                    }
                    f.write_str(")")?;
                }
                Ok(())
            }
            Self::Object(name) | Self::Param(name) => f.write_str(name),
        }
    }
}

/// Bindings of type parameters made while checking one expression.
///
/// One substitution is threaded through the whole check of an expression so that a
/// parameter bound in one call (the element type of an empty list, say) is seen by
/// later calls; fresh parameters are numbered by it so they never clash.
///
/// A failed candidate is undone from a trail of the bindings it changed rather than by
/// restoring a copy of every binding: an expression with n calls binds O(n)
/// parameters, and copying them for each of its O(n) overload candidates made
/// checking quadratic in the rule's length (issue #16).
#[derive(Clone, Debug, Default)]
pub struct Substitution {
    bindings: BTreeMap<String, Type>,
    /// Each binding changed since the substitution was made, with its previous value
    /// (`None`: it was unbound). Only kept while a candidate is being tried.
    trail: Vec<(String, Option<Type>)>,
    /// How many candidates are being tried (nested attempts share the trail).
    attempts: usize,
    next_fresh: u64,
}

impl Substitution {
    pub fn new() -> Self {
        Self::default()
    }

    /// The type a parameter is currently bound to.
    pub fn binding(&self, param: &str) -> Option<&Type> {
        self.bindings.get(param)
    }

    /// A type parameter never used before in this substitution (`_var0`, `_var1`, ...,
    /// the names cel-go gives them).
    pub fn fresh_param(&mut self) -> Type {
        let name = format!("_var{}", self.next_fresh);
        self.next_fresh = self.next_fresh.saturating_add(1);
        Type::Param(name)
    }

    /// Whether `t2` agrees with `t1`, binding type parameters on either side as needed.
    ///
    /// Bindings are only kept when the answer is `true`, so a failed overload candidate
    /// leaves no trace.
    pub fn is_assignable(&mut self, t1: &Type, t2: &Type) -> bool {
        self.attempt(|s| s.assignable(t1, t2, 0))
    }

    /// [`Self::is_assignable`] pairwise over two lists of the same length.
    pub fn is_assignable_all(&mut self, t1s: &[Type], t2s: &[Type]) -> bool {
        if t1s.len() != t2s.len() {
            return false;
        }
        self.attempt(|s| t1s.iter().zip(t2s).all(|(t1, t2)| s.assignable(t1, t2, 0)))
    }

    /// Runs `unify`, undoing the bindings it made when it answers `false`.
    fn attempt(&mut self, unify: impl FnOnce(&mut Self) -> bool) -> bool {
        let mark = self.trail.len();
        self.attempts += 1;
        let ok = unify(self);
        self.attempts -= 1;
        if !ok {
            for (param, previous) in self.trail.drain(mark..).rev() {
                match previous {
                    Some(ty) => self.bindings.insert(param, ty),
                    None => self.bindings.remove(&param),
                };
            }
        }
        if self.attempts == 0 {
            // Nothing left to undo: the trail never outlives the outermost attempt.
            self.trail.clear();
        }
        ok
    }

    /// Binds `param` to `ty`, remembering the previous binding for [`Self::attempt`].
    fn bind(&mut self, param: &str, ty: Type) {
        let previous = self.bindings.insert(param.to_owned(), ty);
        if self.attempts > 0 {
            self.trail.push((param.to_owned(), previous));
        }
    }

    /// `ty` with bound parameters replaced by their bindings; unbound ones become `dyn`
    /// when `unbound_to_dyn` (the final type of a checked expression) or stay as they
    /// are (an intermediate type that later calls may still bind).
    pub fn substitute(&self, ty: &Type, unbound_to_dyn: bool) -> Type {
        self.substitute_at(ty, unbound_to_dyn, 0)
    }

    fn substitute_at(&self, ty: &Type, unbound_to_dyn: bool, depth: usize) -> Type {
        ty.map_params(depth, &|name| match self.bindings.get(name) {
            Some(bound) => Some(self.substitute_at(bound, unbound_to_dyn, depth + 1)),
            None if unbound_to_dyn => Some(Type::Dyn),
            None => None,
        })
    }

    /// The element type of a list (or the key or value type of a map) literal whose
    /// elements so far had type `previous` and whose next element has type `current`:
    /// the more general of the two when they agree, `dyn` when they do not (CEL
    /// literals may mix types).
    pub fn join(&mut self, previous: &Type, current: &Type) -> Type {
        if self.is_assignable(previous, current) {
            most_general(previous, current)
        } else {
            Type::Dyn
        }
    }

    fn assignable(&mut self, t1: &Type, t2: &Type, depth: usize) -> bool {
        if depth > MAX_TYPE_DEPTH {
            return false;
        }
        if t1 == t2 {
            return true;
        }
        if let Type::Param(p2) = t2 {
            match self.bind_param(p2, t2, t1, depth) {
                Substituted::Valid => return true,
                Substituted::Conflicts => return false,
                // `t2` is unbound but cannot take `t1` (`t1` is bound to `t2`, say):
                // try the other direction, as cel-go does.
                Substituted::Unbound => {}
            }
        }
        if let Type::Param(p1) = t1 {
            return self.bind_param(p1, t1, t2, depth) == Substituted::Valid;
        }
        if t1.is_dyn_or_error() || t2.is_dyn_or_error() {
            return true;
        }
        if *t1 == Type::Null {
            return is_nullable(t2);
        }
        if *t2 == Type::Null {
            return is_nullable(t1);
        }
        match (t1, t2) {
            (Type::List(e1), Type::List(e2)) => self.assignable(e1, e2, depth + 1),
            (Type::Map(k1, v1), Type::Map(k2, v2)) => {
                self.assignable(k1, k2, depth + 1) && self.assignable(v1, v2, depth + 1)
            }
            // Type values are checked by kind only, as cel-go does.
            (Type::TypeOf(_), Type::TypeOf(_)) => true,
            (Type::Opaque { name: n1, params: p1 }, Type::Opaque { name: n2, params: p2 }) => {
                n1 == n2
                    && p1.len() == p2.len()
                    && p1.iter().zip(p2).all(|(a, b)| self.assignable(a, b, depth + 1))
            }
            _ => false,
        }
    }

    /// Unifies the parameter `param` (the type `param_ty`) with `other`: agrees with its
    /// binding if it has one (widening the binding), otherwise binds it, unless that
    /// would make a type contain itself.
    fn bind_param(
        &mut self,
        param: &str,
        param_ty: &Type,
        other: &Type,
        depth: usize,
    ) -> Substituted {
        if let Some(bound) = self.bindings.get(param).cloned() {
            if *other == bound {
                return Substituted::Valid;
            }
            if !self.assignable(other, &bound, depth + 1) {
                return Substituted::Conflicts;
            }
            let widened = most_general(other, &bound);
            if self.not_referenced_in(param_ty, &widened, 0) {
                self.bind(param, widened);
            }
            return Substituted::Valid;
        }
        if !self.not_referenced_in(param_ty, other, 0) {
            return Substituted::Unbound;
        }
        self.bind(param, other.clone());
        Substituted::Valid
    }

    /// The occurs check: whether `param` does not occur in `within`, following bindings.
    fn not_referenced_in(&self, param: &Type, within: &Type, depth: usize) -> bool {
        if depth > MAX_TYPE_DEPTH || param == within {
            return false;
        }
        match within {
            Type::Param(name) => self
                .bindings
                .get(name)
                .is_none_or(|bound| self.not_referenced_in(param, bound, depth + 1)),
            Type::List(elem) | Type::TypeOf(elem) => self.not_referenced_in(param, elem, depth + 1),
            Type::Map(key, value) => {
                self.not_referenced_in(param, key, depth + 1)
                    && self.not_referenced_in(param, value, depth + 1)
            }
            Type::Opaque { params, .. } => {
                params.iter().all(|p| self.not_referenced_in(param, p, depth + 1))
            }
            _ => true,
        }
    }
}

/// How unifying a type parameter with another type went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Substituted {
    /// They agree; the parameter is (now) bound accordingly.
    Valid,
    /// The parameter's binding disagrees with the other type.
    Conflicts,
    /// The parameter is unbound and cannot be bound to the other type without
    /// containing itself (the other type may still be bound to the parameter).
    Unbound,
}

/// The more general of two agreeing types: `dyn` and parameters over concrete types,
/// part by part inside lists, maps, type values and opaque types.
pub fn most_general(t1: &Type, t2: &Type) -> Type {
    if is_equal_or_less_specific(t1, t2, 0) { t1.clone() } else { t2.clone() }
}

fn is_equal_or_less_specific(t1: &Type, t2: &Type, depth: usize) -> bool {
    if depth > MAX_TYPE_DEPTH {
        return false;
    }
    if matches!(t1, Type::Dyn | Type::Param(_)) {
        return true;
    }
    if matches!(t2, Type::Dyn | Type::Param(_)) {
        return false;
    }
    match (t1, t2) {
        (Type::List(e1), Type::List(e2)) | (Type::TypeOf(e1), Type::TypeOf(e2)) => {
            is_equal_or_less_specific(e1, e2, depth + 1)
        }
        (Type::Map(k1, v1), Type::Map(k2, v2)) => {
            is_equal_or_less_specific(k1, k2, depth + 1)
                && is_equal_or_less_specific(v1, v2, depth + 1)
        }
        (Type::Opaque { name: n1, params: p1 }, Type::Opaque { name: n2, params: p2 }) => {
            n1 == n2
                && p1.len() == p2.len()
                && p1.iter().zip(p2).all(|(a, b)| is_equal_or_less_specific(a, b, depth + 1))
        }
        _ => t1 == t2,
    }
}

/// Types that `null` may stand for: the ones protobuf can leave unset.
fn is_nullable(ty: &Type) -> bool {
    matches!(ty, Type::Object(_) | Type::Opaque { .. } | Type::Duration | Type::Timestamp)
}
