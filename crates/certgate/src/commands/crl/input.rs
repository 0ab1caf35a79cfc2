//! Reading inputs: PEM files (bounded, as bytes: PEM is ASCII but a wrong file should fail on
//! size, not on encoding), manifest files through the shared manifest loader, and `--at`.

use std::io::Read;
use std::path::{Path, PathBuf};

use certgate_crl::{Limits, Timestamp};
use serde_json::Value;

use super::error::InputError;
use crate::shared::unknown_fields::{UnknownFields, load_values_checked};

/// Where PEM inputs come from: files, and `-` for standard input. Standard input is read
/// once, however often `-` is named (`verify` reads each CRL input twice), and every read of
/// `-` gets the same bytes.
pub struct PemInputs<'a> {
    stdin: Option<Box<dyn Read + 'a>>,
    stdin_bytes: Option<Vec<u8>>,
}

impl<'a> PemInputs<'a> {
    /// Inputs whose `-` is `stdin`.
    pub fn new(stdin: impl Read + 'a) -> Self {
        PemInputs { stdin: Some(Box::new(stdin)), stdin_bytes: None }
    }

    fn stdin(&mut self, path: &Path, limits: &Limits) -> Result<Vec<u8>, InputError> {
        if let Some(bytes) = &self.stdin_bytes {
            return Ok(bytes.clone());
        }
        let Some(stdin) = self.stdin.take() else {
            // Only after a failed read, which was reported then.
            let source = std::io::Error::other("standard input could not be read before");
            return Err(InputError::Read { path: path.to_path_buf(), source });
        };
        let bytes = read_bounded(stdin, path, limits)?;
        self.stdin_bytes = Some(bytes.clone());
        Ok(bytes)
    }
}

/// Reads a PEM file (`-`: standard input), refusing anything above certgate-crl's bundle
/// limit (reads at most one byte past it, so special files without a size are bounded too).
pub fn read_pem(
    inputs: &mut PemInputs<'_>,
    path: &Path,
    limits: &Limits,
) -> Result<Vec<u8>, InputError> {
    if path == Path::new("-") {
        return inputs.stdin(path, limits);
    }
    let file = std::fs::File::open(path)
        .map_err(|source| InputError::Read { path: path.to_path_buf(), source })?;
    read_bounded(file, path, limits)
}

fn read_bounded(reader: impl Read, path: &Path, limits: &Limits) -> Result<Vec<u8>, InputError> {
    let limit = limits.max_bundle_bytes;
    let mut bytes = Vec::new();
    let take = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    reader
        .take(take)
        .read_to_end(&mut bytes)
        .map_err(|source| InputError::Read { path: path.to_path_buf(), source })?;
    if bytes.len() > limit {
        return Err(InputError::TooLarge { path: path.to_path_buf(), limit });
    }
    Ok(bytes)
}

/// Reads several PEM files as one bundle, in order, as Envoy receives concatenated Secret
/// data. A newline is put between files so a file without a final newline cannot glue its END
/// line to the next BEGIN line. Every unreadable file is reported.
pub fn read_pems(
    inputs: &mut PemInputs<'_>,
    paths: &[PathBuf],
    limits: &Limits,
) -> Result<Vec<u8>, Vec<InputError>> {
    let mut all = Vec::new();
    let mut errors = Vec::new();
    for path in paths {
        match read_pem(inputs, path, limits) {
            Ok(bytes) => {
                all.extend_from_slice(&bytes);
                if !bytes.ends_with(b"\n") {
                    all.push(b'\n');
                }
            }
            Err(err) => errors.push(err),
        }
    }
    if errors.is_empty() { Ok(all) } else { Err(errors) }
}

/// Every object of every `-f` input, in input order, with `certgate check`'s rules (directories
/// walked in name order, `-` for stdin, bounded UTF-8 reads, all errors collected). `List`s are
/// left whole: certgate-ingress flattens them itself. Fields the objects' schemas do not know
/// come back too, to be warned about.
pub fn load_manifests(
    args: &[PathBuf],
    stdin: impl Read,
) -> Result<(Vec<Value>, UnknownFields), InputError> {
    load_values_checked(args, stdin).map_err(InputError::Load)
}

/// clap value parser of `--at`.
pub fn parse_at(text: &str) -> Result<Timestamp, String> {
    chrono::DateTime::parse_from_rfc3339(text)
        .map(|t| Timestamp::from_unix(t.timestamp()))
        .map_err(|e| format!("{e}; write an RFC 3339 time such as 2026-06-01T00:00:00Z"))
}

/// `--at`, or the clock.
pub fn now_or(at: Option<Timestamp>) -> Timestamp {
    at.unwrap_or_else(|| Timestamp::from_system_time(std::time::SystemTime::now()))
}
