//! Size and nesting bounds of policy rules.

/// Longest rule accepted, in bytes.
pub const MAX_RULE_BYTES: usize = 32 * 1024;

/// Deepest nesting accepted by the parser (brackets, operators, member accesses).
///
/// Policy rules in practice nest fewer than ten levels. cel-go allows 250; certgate
/// keeps the margin small because every stage (parse, check, compile, evaluate) walks
/// the tree recursively and admission runs on async worker threads with 2 MiB stacks.
pub const MAX_NESTING_DEPTH: usize = 32;
