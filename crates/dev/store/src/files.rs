//! Files that hold secrets (the sandbox's store, kubeconfigs with the admin token, signing
//! keys): created readable by their owner only, replaced atomically, never through a
//! symbolic link. Every part of certgate that writes such a file uses these functions; they
//! live in this low crate so that the sandbox and the `certgate` binary can both reach them.

use std::fs::{self, DirBuilder, OpenOptions, Permissions};
use std::io::{self, Write as _};
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Owner read and write only.
pub const SECRET_FILE_MODE: u32 = 0o600;
/// Owner only.
pub const PRIVATE_DIR_MODE: u32 = 0o700;

#[derive(Debug, thiserror::Error)]
pub enum SecretFileError {
    #[error(
        "{} is a symbolic link; certgate writes secrets only to a regular file that it replaces itself: remove the link or choose another path",
        path.display()
    )]
    Symlink { path: PathBuf },
    #[error("{} exists and is not a regular file; choose another path", path.display())]
    NotAFile { path: PathBuf },
    #[error("{} exists and is not a directory; choose another path", path.display())]
    NotADirectory { path: PathBuf },
    #[error("cannot {action} {}: {source}", path.display())]
    Io { action: &'static str, path: PathBuf, source: io::Error },
}

fn io_error(action: &'static str, path: &Path) -> impl FnOnce(io::Error) -> SecretFileError {
    let path = path.to_owned();
    move |source| SecretFileError::Io { action, path, source }
}

/// Writes `contents` to `path` readable by its owner only (0600), replacing what was there
/// atomically: the bytes go to a new 0600 file in the same directory, are synced, and that
/// file is renamed over `path`. Readers see the old file or the new one, never a mix, and a
/// file that was 0644 before does not keep its mode (an in-place truncate would). A symbolic
/// link at `path` is refused rather than followed or replaced: it may point anywhere.
pub fn write_secret(path: &Path, contents: &[u8]) -> Result<(), SecretFileError> {
    match fs::symlink_metadata(path) {
        Ok(metadata) if metadata.file_type().is_symlink() => {
            return Err(SecretFileError::Symlink { path: path.to_owned() });
        }
        Ok(metadata) if !metadata.is_file() => {
            return Err(SecretFileError::NotAFile { path: path.to_owned() });
        }
        Ok(_) => {}
        Err(err) if err.kind() == io::ErrorKind::NotFound => {}
        Err(err) => return Err(io_error("inspect", path)(err)),
    }
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let temporary = directory.join(temporary_name(path));
    let written = write_new(&temporary, contents)
        .and_then(|()| fs::rename(&temporary, path).map_err(io_error("replace", path)));
    if written.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    written?;
    // The rename is durable once the directory is synced; failing that only risks the old
    // file after a power loss, so it is not reported.
    if let Ok(directory) = fs::File::open(directory) {
        let _ = directory.sync_all();
    }
    Ok(())
}

/// A name next to `path` that no other writer uses: this process's id and a counter.
fn temporary_name(path: &Path) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    format!(".{name}.{}.{}.tmp", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}

fn write_new(path: &Path, contents: &[u8]) -> Result<(), SecretFileError> {
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(SECRET_FILE_MODE)
        .open(path)
        .map_err(io_error("create", path))?;
    file.write_all(contents).map_err(io_error("write", path))?;
    file.sync_all().map_err(io_error("sync", path))
}

/// Creates `dir` (and missing parents) owner-only (0700), or makes an existing one
/// owner-only: it holds secrets, and a directory that others can list or enter leaks
/// them by name and, with a careless mode on one file, by content. Tightening rather than
/// refusing keeps a directory made by hand (`mkdir data`) usable.
pub fn private_dir(dir: &Path) -> Result<(), SecretFileError> {
    match fs::metadata(dir) {
        Ok(metadata) if !metadata.is_dir() => {
            Err(SecretFileError::NotADirectory { path: dir.to_owned() })
        }
        Ok(metadata) => tighten(dir, metadata.permissions().mode(), PRIVATE_DIR_MODE),
        Err(err) if err.kind() == io::ErrorKind::NotFound => DirBuilder::new()
            .recursive(true)
            .mode(PRIVATE_DIR_MODE)
            .create(dir)
            .map_err(io_error("create the directory", dir)),
        Err(err) => Err(io_error("inspect", dir)(err)),
    }
}

/// Makes an existing file owner-only (0600) when group or others have any access.
pub fn private_file(path: &Path) -> Result<(), SecretFileError> {
    let metadata = fs::metadata(path).map_err(io_error("inspect", path))?;
    tighten(path, metadata.permissions().mode(), SECRET_FILE_MODE)
}

fn tighten(path: &Path, mode: u32, private: u32) -> Result<(), SecretFileError> {
    if mode & 0o077 == 0 {
        return Ok(());
    }
    fs::set_permissions(path, Permissions::from_mode(private))
        .map_err(io_error("make owner-only (chmod) the permissions of", path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(path: &Path) -> u32 {
        fs::symlink_metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn an_existing_world_readable_file_is_replaced_by_an_owner_only_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kubeconfig");
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&path, Permissions::from_mode(0o644)).unwrap();
        write_secret(&path, b"new").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(mode(&path), 0o600);
        // No temporary file is left behind.
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_symbolic_link_is_refused_and_its_target_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        fs::write(&target, "keep").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let error = write_secret(&link, b"secret").unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "{} is a symbolic link; certgate writes secrets only to a regular file that it replaces itself: remove the link or choose another path",
                link.display()
            )
        );
        assert_eq!(fs::read_to_string(&target).unwrap(), "keep");
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    }

    #[test]
    fn directories_are_created_owner_only_and_wider_ones_tightened() {
        let dir = tempfile::tempdir().unwrap();
        let nested = dir.path().join("a").join("b");
        private_dir(&nested).unwrap();
        assert_eq!(mode(&nested), 0o700);
        let wide = dir.path().join("wide");
        fs::create_dir(&wide).unwrap();
        fs::set_permissions(&wide, Permissions::from_mode(0o755)).unwrap();
        private_dir(&wide).unwrap();
        assert_eq!(mode(&wide), 0o700);
    }
}
