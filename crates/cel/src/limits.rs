//! Size and nesting bounds of policy rules.

/// Longest rule accepted in the Kubernetes environments, in bytes.
pub const MAX_RULE_BYTES: usize = 32 * 1024;

/// Longest approver-policy rule accepted, in Unicode code points: cel-go's default
/// (`expression code point size exceeds limit`), which approver-policy keeps, and the CRD
/// sets no `maxLength` on `rule`. Every stage is linear in the rule's length.
pub const MAX_POLICY_RULE_CODE_POINTS: usize = 100_000;

/// Deepest nesting accepted by the parser (brackets, operators, member accesses).
///
/// Policy rules in practice nest fewer than ten levels. cel-go allows 250; certgate
/// keeps the margin small because every stage (parse, check, compile, evaluate) walks
/// the tree recursively and admission runs on async worker threads with 2 MiB stacks.
pub const MAX_NESTING_DEPTH: usize = 32;

/// Deepest nesting accepted in approver-policy rules: cel-go's parser recursion limit,
/// which approver-policy leaves at its default, so that every rule upstream admits is
/// admitted here (issue: a stricter limit refused rules upstream accepts). The parser
/// counts it per construct as cel-go does (see `syntax::parser`). Runaway rules are
/// stopped by the evaluation cost limit instead, as upstream does. Every stage of the
/// deepest accepted rules fits a 2 MiB worker stack in a debug build (`tests/bounds.rs`).
pub const MAX_POLICY_NESTING_DEPTH: usize = 250;
