//! Go `text/template` for certgate.
//!
//! The template language is executed by the `gotmpl` crate (see
//! docs/decisions/0006-go-templates.md); this crate is the only place that names it. Callers
//! register functions in a [`FuncMap`], parse once with [`Engine::parse`] and execute the
//! [`Parsed`] template many times. Errors render as Go's `text/template` renders them, because
//! users script against those texts (OCM writes them into annotations).
//!
//! Functions run synchronously on the thread that calls [`Parsed::execute`]; callers that need
//! per-execution state (an object reader, the set of objects read) can keep it in a
//! thread-local for the duration of the call.
//!
//! # Errors as Go prints them
//!
//! - Parse errors: `template: <name>:<line>: <message>` ([`TemplateError::Parse`]), including
//!   Go's parse-time checks gotmpl does not make: `function "x" not defined`,
//!   `undefined variable "$x"`, `unexpected EOF` (missing `{{end}}`), `unexpected {{end}}`,
//!   `unexpected {{else}}`, `expected end; found {{else}}`,
//!   `unexpected {{else}} in define clause`. gotmpl's texts confirmed against Go's lexer and
//!   parser and mapped: `unclosed action`, `unclosed comment`,
//!   `comment ends before closing delimiter`, `unterminated quoted string`,
//!   `unterminated raw quoted string`, `unterminated character constant`,
//!   `unclosed left paren`, `unexpected right paren`,
//!   `missing value for command`.
//! - Errors of [`FuncMap`] functions: `template: <name>:<line>:<col>: executing "<template>" at
//!   <<command>>: <message>` ([`TemplateError::Exec`]) with Go's placement: the command for
//!   the function's own error (`error calling <fn>: <msg>`), the function's name for
//!   [`FuncError::arg_count`], the argument for [`FuncError::arg_type`] with
//!   [`FuncError::at_argument`]. A panicking function is reported as its call's error.
//! - Bounds: [`TemplateError::Limit`] (see [`Limits`]), or, when a function call (builtins
//!   included) reached the execution budget, a placed error like a function's own:
//!   `... at <print $s $s>: error calling print: the values produced exceed the limit of N
//!   bytes`.
//!
//! # The execution budget
//!
//! Every execution carries a budget ([`budget`]): bytes of values produced (each function
//! result by its [`budget::weight`]), their nesting depth, steps (function calls,
//! `{{template}}` calls, `range` iterations) and a deadline; see [`Limits`]. Functions that
//! build large values check it first with [`budget::check_alloc`] / [`budget::check_values`].
//!
//! # Known differences from Go
//!
//! - Errors of `{{template}}` calls, and the few builtin failures whose Go text prints reflect
//!   internals, carry no position: [`TemplateError::ExecUnplaced`] with gotmpl's message
//!   (`template "x" not defined` and `wrong number of args for <fn>: ...` use Go's words).
//!   Field chains, `range`, builtins (`eq`/`lt`/..., `len`, `index`, `slice`) and argument
//!   conversions fail with Go's position, node and words (`engine/tracking.rs`,
//!   `engine/builtin_errors.rs`, `engine/arg_messages.rs`).
//! - gotmpl evaluates all of a call's arguments before the call; Go converts each one before
//!   evaluating the next. When a later argument fails to evaluate and an earlier one would not
//!   convert, Go reports the earlier one.
//! - The data has one nil: Go tells a missing key (no value) from a stored `null` (a nil
//!   `interface {}`: `got interface {}`, `len of nil pointer`); certgate words both as the
//!   former, except in a field chain, where a step through a null stored in a map fails as in
//!   Go (`nil pointer evaluating interface {}.y`); a null list element reached by `range` is
//!   still the former. Values have one signed integer and one list type, so Go's `int64`,
//!   `[]string` and `[]int` results of sprig functions are named `int` and `[]interface {}`;
//!   the byte `index` of a string yields is a `Uint` up to 255, named `uint8` ([`type_name`]),
//!   though `printf "%T"` still prints it `uint64`.
//! - Lexical errors and stray characters follow Go's lexer (engine/parse_lex): `bad character
//!   U+0027 '''`, `unexpected "\\" in command` (or `in operand`, `in if`, ...),
//!   `unrecognized character in action: U+20AC '€'`, `bad number syntax: "1a"`,
//!   `malformed character constant: 'ab'`, with `in action started at <name>:<line>` for an
//!   action over several lines, and Go's earlier parser error when one comes first. Where the
//!   check cannot tell that Go gets that far (a number Go's parser refuses, such as `0x` or
//!   `089`; tokens after `end`, `break` or `continue`; a `define` name that is not a string),
//!   gotmpl's text passes through (`invalid number`, `invalid hex number`,
//!   `unexpected character: '}'`, `expected ..., got ...`), as does
//!   `template nesting depth exceeded 100` (no Go equivalent).
//! - The execution nesting bound is gotmpl's 200 and counts `if`/`with`/`range` as well as
//!   `template` calls (Go: 100,000 `template` calls).
//! - Assigning an undeclared variable (`{{$x = 1}}`) is not an error (Go:
//!   `undefined variable: $x` at execution).
//! - A `{{define}}` nested inside another block is accepted (Go rejects it).
//! - `%p` of a list or map prints `0x0` (Go: the address of its data).
//!
//! # Printing
//!
//! `print`, `println`, `printf` and the printing of an action's value (`{{.f}}`) are Go's
//! `fmt` ([`mod@print`], from certgate-gofmt), not gotmpl's: a float64 prints as Go's `%v`
//! (`1.23456789e+08`), verbs apply to each element of lists and maps, `%T`/`%#v` use Go's
//! type names. Measured by the differential test `crates/dev/oracles/tests/gotemplate.rs`.

#![forbid(unsafe_code)]

pub mod budget;
mod engine;
mod func;
pub mod print;
mod value;

pub use engine::{Engine, EngineConfigError, Limits, Parsed, TemplateError};
pub use func::{Func, FuncError, FuncMap};
pub use value::{from_value, to_value, type_name};

/// A template value: what functions receive and return. Go's `interface{}` of the template
/// data (`nil`, bool, int, uint, float, string, list, map with string keys).
pub use gotmpl::Value;
