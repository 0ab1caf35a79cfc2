//! `certgate completion SHELL`: a shell completion script for every command and flag,
//! generated from the command line's own definition (clap_complete), so it never drifts.

use clap::Args;
use clap_complete::Shell;

pub const COMPLETION_LONG_ABOUT: &str = "\
Print a shell completion script for certgate's commands and flags.

  bash:  source <(certgate completion bash)
         (or save it as /etc/bash_completion.d/certgate)
  zsh:   certgate completion zsh > \"${fpath[1]}/_certgate\"   (then start a new shell)
  fish:  certgate completion fish > ~/.config/fish/completions/certgate.fish";

/// `certgate completion` arguments.
#[derive(Clone, Debug, Args)]
pub struct CompletionArgs {
    /// The shell to complete in.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: Shell,
}

/// The completion script for `shell` of `command` (the whole `certgate` command line), under
/// the binary name `certgate`.
pub fn render(shell: Shell, command: &mut clap::Command) -> Vec<u8> {
    // Generated into memory: clap_complete panics when its writer fails, and standard output
    // may be a closed pipe.
    let mut script = Vec::new();
    clap_complete::generate(shell, command, "certgate", &mut script);
    script
}
