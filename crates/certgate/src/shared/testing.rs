//! Test helper: parse one command's arguments on their own, so a command's tests need not
//! reach for `crate::cli` (commands sit below it).

use clap::{Args, Command, FromArgMatches};

/// Parses `args` as the arguments of `certgate <name>`: the flags, defaults, conflicts and
/// value parsers of `A`, exactly as the full command line applies them.
pub fn parse_args<A: Args + FromArgMatches>(
    name: &'static str,
    args: &[&str],
) -> Result<A, clap::Error> {
    let command = A::augment_args(Command::new(name));
    let matches =
        command.try_get_matches_from(std::iter::once(name).chain(args.iter().copied()))?;
    A::from_arg_matches(&matches)
}
