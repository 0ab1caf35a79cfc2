//! The parsed expression tree.
//!
//! Operators are calls with cel-go's canonical function names (see [`operators`]), so
//! a checker resolves `a + b` and `add(a, b)` through the same overload tables.
//! Macros are already expanded: `has()` is a test-only [`ExprKind::Select`] and the
//! comprehension macros are [`ExprKind::Comprehension`] nodes.

/// Byte range `start..end` of the source an expression or token came from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: u32, end: u32) -> Self {
        Span { start, end }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }
}

/// Identifies a node within one parsed expression; ids are unique and start at 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

/// A parsed expression: the root node and how many nodes were allocated.
#[derive(Clone, Debug, PartialEq)]
pub struct Ast {
    pub root: Expr,
    /// Every [`NodeId`] in the tree is in `1..=node_count` (macro expansion may
    /// leave some unused), so side tables can be vectors indexed by id.
    pub node_count: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub id: NodeId,
    pub span: Span,
    pub kind: ExprKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Literal(Literal),
    /// A simple name; a leading dot (`.a`, root-scope resolution) is kept in the name.
    Ident(String),
    /// `operand.field`; `test_only` for `has(operand.field)`, `optional` for `operand.?field`.
    Select {
        operand: Box<Expr>,
        field: String,
        test_only: bool,
        optional: bool,
    },
    /// `function(args)` when `target` is `None`, else `target.function(args)`.
    Call {
        target: Option<Box<Expr>>,
        function: String,
        args: Vec<Expr>,
    },
    /// `operand[index]`, or `operand[?index]` when `optional`.
    Index {
        operand: Box<Expr>,
        index: Box<Expr>,
        optional: bool,
    },
    /// `condition ? then : otherwise`.
    Conditional {
        condition: Box<Expr>,
        then: Box<Expr>,
        otherwise: Box<Expr>,
    },
    List(Vec<ListElement>),
    Map(Vec<MapEntry>),
    /// `a.b.C{field: value, ?other: optional_value}`.
    Struct {
        type_name: String,
        fields: Vec<FieldInit>,
    },
    Comprehension(Box<Comprehension>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    String(String),
    Bytes(Vec<u8>),
}

/// A list element; `optional` for `[?x]`, which is left out when `x` is an empty optional.
#[derive(Clone, Debug, PartialEq)]
pub struct ListElement {
    pub value: Expr,
    pub optional: bool,
}

/// A map entry; `optional` for `{?k: v}`, left out when `v` is an empty optional.
#[derive(Clone, Debug, PartialEq)]
pub struct MapEntry {
    pub id: NodeId,
    pub key: Expr,
    pub value: Expr,
    pub optional: bool,
}

/// A struct field initializer; `optional` for `?field: v`.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldInit {
    pub id: NodeId,
    pub span: Span,
    pub field: String,
    pub value: Expr,
    pub optional: bool,
}

/// A fold over `iter_range`, the target of every comprehension macro.
///
/// Evaluation: `accu_var = accu_init`; for each element (list: `iter_var` = element,
/// or with two variables `iter_var` = index and `iter_var2` = element; map: `iter_var` =
/// key, `iter_var2` = value) while `loop_condition` holds, `accu_var = loop_step`;
/// finally the value is `result`.
#[derive(Clone, Debug, PartialEq)]
pub struct Comprehension {
    pub iter_var: String,
    pub iter_var2: Option<String>,
    pub iter_range: Expr,
    pub accu_var: String,
    pub accu_init: Expr,
    pub loop_condition: Expr,
    pub loop_step: Expr,
    pub result: Expr,
}

/// Canonical function names of the operators, as cel-go and the CEL spec name them.
pub mod operators {
    pub const LOGICAL_AND: &str = "_&&_";
    pub const LOGICAL_OR: &str = "_||_";
    pub const LOGICAL_NOT: &str = "!_";
    pub const EQUALS: &str = "_==_";
    pub const NOT_EQUALS: &str = "_!=_";
    pub const LESS: &str = "_<_";
    pub const LESS_EQUALS: &str = "_<=_";
    pub const GREATER: &str = "_>_";
    pub const GREATER_EQUALS: &str = "_>=_";
    pub const IN: &str = "@in";
    pub const ADD: &str = "_+_";
    pub const SUBTRACT: &str = "_-_";
    pub const MULTIPLY: &str = "_*_";
    pub const DIVIDE: &str = "_/_";
    pub const MODULO: &str = "_%_";
    pub const NEGATE: &str = "-_";
    /// Internal: stops `exists` and `all` loops early (not callable from source).
    pub const NOT_STRICTLY_FALSE: &str = "@not_strictly_false";
}
