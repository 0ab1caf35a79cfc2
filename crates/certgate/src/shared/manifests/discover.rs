//! Expands `-f` arguments into the list of manifest files to read, deterministically.

use std::path::{Path, PathBuf};

use super::error::LoadError;

/// One input to read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputFile {
    Path(PathBuf),
    Stdin,
}

/// Whether a file found inside a directory is a manifest (named files are read whatever
/// their extension, as `kubectl -f` does).
fn is_manifest(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| ["yaml", "yml", "json"].iter().any(|m| e.eq_ignore_ascii_case(m)))
}

/// Expands the arguments in the order given. Directories are walked recursively, following
/// symbolic links, with entries sorted by file name so results do not depend on the file
/// system; a symbolic link loop is an error rather than being skipped silently.
pub fn expand(args: &[PathBuf]) -> Result<Vec<InputFile>, Vec<LoadError>> {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    let mut stdin_seen = false;
    for arg in args {
        if arg.as_os_str() == "-" {
            if stdin_seen {
                errors.push(LoadError::StdinTwice);
            } else {
                stdin_seen = true;
                files.push(InputFile::Stdin);
            }
            continue;
        }
        match std::fs::metadata(arg) {
            Ok(meta) if meta.is_dir() => walk(arg, &mut files, &mut errors),
            Ok(_) => files.push(InputFile::Path(arg.clone())),
            Err(source) => errors.push(LoadError::Io { path: arg.clone(), source }),
        }
    }
    if errors.is_empty() { Ok(files) } else { Err(errors) }
}

fn walk(root: &Path, files: &mut Vec<InputFile>, errors: &mut Vec<LoadError>) {
    let before = files.len();
    let walker = walkdir::WalkDir::new(root).follow_links(true).sort_by_file_name();
    for entry in walker {
        match entry {
            Ok(entry) => {
                if entry.file_type().is_file() && is_manifest(entry.path()) {
                    files.push(InputFile::Path(entry.into_path()));
                }
            }
            Err(err) => errors.push(walk_error(root, err)),
        }
    }
    if files.len() == before && errors.is_empty() {
        errors.push(LoadError::EmptyDirectory { path: root.to_path_buf() });
    }
}

fn walk_error(root: &Path, err: walkdir::Error) -> LoadError {
    let path = err.path().unwrap_or(root).to_path_buf();
    if let Some(ancestor) = err.loop_ancestor() {
        return LoadError::SymlinkLoop {
            root: root.to_path_buf(),
            path,
            ancestor: ancestor.to_path_buf(),
        };
    }
    let source =
        err.into_io_error().unwrap_or_else(|| std::io::Error::other("unreadable directory entry"));
    LoadError::Io { path, source }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    fn names(files: &[InputFile], root: &Path) -> Vec<String> {
        files
            .iter()
            .map(|f| match f {
                InputFile::Path(p) => {
                    p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/")
                }
                InputFile::Stdin => "-".to_owned(),
            })
            .collect()
    }

    #[test]
    fn walks_directories_recursively_in_name_order_keeping_only_manifests() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("b/nested")).unwrap();
        fs::create_dir_all(root.join("a")).unwrap();
        for f in ["z.yaml", "b/nested/x.JSON", "b/y.yml", "a/c.yaml", "README.md", "a/key.pem"] {
            fs::write(root.join(f), "").unwrap();
        }
        let files = expand(&[root.to_path_buf()]).unwrap();
        assert_eq!(names(&files, root), ["a/c.yaml", "b/nested/x.JSON", "b/y.yml", "z.yaml"]);
    }

    #[test]
    fn named_files_are_kept_in_argument_order_whatever_their_extension() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("b.txt"), "").unwrap();
        fs::write(root.join("a.yaml"), "").unwrap();
        let files = expand(&[root.join("b.txt"), PathBuf::from("-"), root.join("a.yaml")]).unwrap();
        assert_eq!(names(&files, root), ["b.txt", "-", "a.yaml"]);
    }

    #[test]
    fn missing_path_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope.yaml");
        let errors = expand(std::slice::from_ref(&missing)).unwrap_err();
        assert_eq!(errors.len(), 1);
        let text = errors[0].to_string();
        assert!(text.starts_with(&format!("cannot read {}: ", missing.display())), "{text}");
    }

    #[test]
    fn directory_without_manifests_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("notes.txt"), "").unwrap();
        let errors = expand(&[dir.path().to_path_buf()]).unwrap_err();
        assert_eq!(
            errors[0].to_string(),
            format!("no *.yaml, *.yml or *.json files found under {}", dir.path().display())
        );
    }

    #[test]
    fn stdin_may_be_given_once() {
        let errors = expand(&[PathBuf::from("-"), PathBuf::from("-")]).unwrap_err();
        assert!(matches!(errors[..], [LoadError::StdinTwice]));
    }

    #[cfg(unix)]
    #[test]
    fn symlink_loop_is_an_error_naming_the_loop() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        fs::create_dir_all(root.join("sub")).unwrap();
        fs::write(root.join("sub/a.yaml"), "").unwrap();
        std::os::unix::fs::symlink(&root, root.join("sub/back")).unwrap();
        let errors = expand(std::slice::from_ref(&root)).unwrap_err();
        assert_eq!(errors.len(), 1);
        assert_eq!(
            errors[0].to_string(),
            format!(
                "cannot walk {}: symbolic link loop: {} points back to its ancestor {}",
                root.display(),
                root.join("sub/back").display(),
                root.display()
            )
        );
    }
}
