//! `certgate man DIR`: a man page for every command (`certgate.1`, `certgate-check.1`,
//! `certgate-crl-inspect.1`, ...), generated from the command line's own definition
//! (clap_mangen), so the pages say what `--help` says.

use std::path::{Path, PathBuf};

use clap::Args;

pub const MAN_LONG_ABOUT: &str = "\
Write a man page (section 1) for certgate and each of its commands into DIR: certgate.1,
certgate-check.1, certgate-crl-inspect.1, ... DIR is created when missing; existing pages are
replaced.

  certgate man /usr/local/share/man/man1 && man certgate-check";

/// `certgate man` arguments.
#[derive(Clone, Debug, Args)]
pub struct ManArgs {
    /// The directory to write the pages into (e.g. /usr/local/share/man/man1).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

/// The directory or a page that could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ManError {
    #[error("cannot create the directory {}: {source}; give a directory you may write to", path.display())]
    Dir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write the man page {}: {source}; give a directory you may write to", path.display())]
    Page {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Writes the page of `command` (the whole `certgate` command line) and of every subcommand
/// into `dir`; returns the files written, parents before their subcommands.
pub fn write_pages(command: clap::Command, dir: &Path) -> Result<Vec<PathBuf>, ManError> {
    std::fs::create_dir_all(dir)
        .map_err(|source| ManError::Dir { path: dir.to_path_buf(), source })?;
    // Built, every subcommand has its display name (`certgate-crl-inspect`), the page's name.
    let mut command = command.disable_help_subcommand(true);
    command.build();
    let mut written = Vec::new();
    write_page(&command, dir, &mut written)?;
    Ok(written)
}

fn write_page(
    command: &clap::Command,
    dir: &Path,
    written: &mut Vec<PathBuf>,
) -> Result<(), ManError> {
    let man = clap_mangen::Man::new(command.clone());
    let path = dir.join(man.get_filename());
    let mut page = Vec::new();
    man.render(&mut page)
        .and_then(|()| std::fs::write(&path, page))
        .map_err(|source| ManError::Page { path: path.clone(), source })?;
    written.push(path);
    for sub in command.get_subcommands().filter(|sub| !sub.is_hide_set()) {
        write_page(sub, dir, written)?;
    }
    Ok(())
}
