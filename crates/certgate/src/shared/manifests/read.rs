//! Reads one input into memory, bounded in size and checked to be UTF-8.

use std::io::Read;
use std::path::Path;

use super::error::LoadError;

/// Largest manifest file accepted. Generous for hand-written or dumped manifests, small enough
/// that a wrong path (a disk image, a log) fails at once instead of exhausting memory.
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Reads a file; `name` is how messages refer to it.
pub fn read_file(path: &Path, name: &str) -> Result<String, LoadError> {
    let io = |source| LoadError::Io { path: path.to_path_buf(), source };
    let file = std::fs::File::open(path).map_err(io)?;
    let bytes = read_bounded(file, name).map_err(|e| match e {
        Bounded::Io(source) => io(source),
        Bounded::Limit(err) => err,
    })?;
    into_text(bytes, name)
}

/// Reads standard input, with the same limits as a file.
pub fn read_stdin(stdin: impl Read, name: &str) -> Result<String, LoadError> {
    let bytes = read_bounded(stdin, name).map_err(|e| match e {
        Bounded::Io(source) => LoadError::Stdin(source),
        Bounded::Limit(err) => err,
    })?;
    into_text(bytes, name)
}

enum Bounded {
    Io(std::io::Error),
    Limit(LoadError),
}

/// Reads at most one byte past the limit, so the size check does not trust metadata (pipes
/// and special files have none) and never buffers more than the limit.
fn read_bounded(reader: impl Read, name: &str) -> Result<Vec<u8>, Bounded> {
    let mut bytes = Vec::new();
    reader.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes).map_err(Bounded::Io)?;
    if u64::try_from(bytes.len()).map_or(true, |size| size > MAX_FILE_BYTES) {
        return Err(Bounded::Limit(LoadError::TooLarge {
            file: name.to_owned(),
            limit: MAX_FILE_BYTES,
        }));
    }
    Ok(bytes)
}

/// UTF-8 text without a leading byte-order mark (editors on Windows add one; neither parser
/// accepts it).
fn into_text(bytes: Vec<u8>, name: &str) -> Result<String, LoadError> {
    let mut text = String::from_utf8(bytes).map_err(|e| LoadError::NotUtf8 {
        file: name.to_owned(),
        offset: e.utf8_error().valid_up_to(),
    })?;
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_a_byte_order_mark() {
        let text = read_stdin("\u{feff}kind: x\n".as_bytes(), "<stdin>").unwrap();
        assert_eq!(text, "kind: x\n");
    }

    #[test]
    fn rejects_invalid_utf8_with_the_offset() {
        let err = read_stdin(&b"ab\xffcd"[..], "<stdin>").unwrap_err();
        assert_eq!(
            err.to_string(),
            "<stdin>: not valid UTF-8 (at byte 2); manifests must be UTF-8 text"
        );
    }

    #[test]
    fn rejects_input_over_the_limit_without_reading_it_all() {
        let endless = std::io::repeat(b'a');
        let err = read_stdin(endless, "<stdin>").unwrap_err();
        assert_eq!(
            err.to_string(),
            "<stdin>: larger than the 16777216 byte limit; split it into several files"
        );
    }

    #[test]
    fn reports_the_size_limit_for_files_too() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.yaml");
        let file = std::fs::File::create(&path).unwrap();
        file.set_len(MAX_FILE_BYTES + 10).unwrap();
        let err = read_file(&path, "big.yaml").unwrap_err();
        assert!(matches!(err, LoadError::TooLarge { limit: MAX_FILE_BYTES, .. }));
    }

    #[test]
    fn accepts_a_file_at_exactly_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("edge.yaml");
        let file = std::fs::File::create(&path).unwrap();
        file.set_len(MAX_FILE_BYTES).unwrap();
        // NUL bytes are valid UTF-8, so the size check alone decides.
        assert_eq!(read_file(&path, "edge.yaml").unwrap().len() as u64, MAX_FILE_BYTES);
    }
}
