//! Reading inputs: PEM files (bounded, as bytes: PEM is ASCII but a wrong file should fail on
//! size, not on encoding), manifest files through the shared manifest loader, and `--at`.

use std::io::Read;
use std::path::{Path, PathBuf};

use certgate_crl::{Limits, Timestamp};
use serde_json::Value;

use super::error::InputError;
use crate::shared::manifests::load_values;

/// Reads a PEM file, refusing anything above certgate-crl's bundle limit (reads at most one
/// byte past it, so special files without a size are bounded too).
pub fn read_pem(path: &Path, limits: &Limits) -> Result<Vec<u8>, InputError> {
    let io = |source| InputError::Read { path: path.to_path_buf(), source };
    let file = std::fs::File::open(path).map_err(io)?;
    let limit = limits.max_bundle_bytes;
    let mut bytes = Vec::new();
    let take = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    file.take(take).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() > limit {
        return Err(InputError::TooLarge { path: path.to_path_buf(), limit });
    }
    Ok(bytes)
}

/// Reads several PEM files as one bundle, in order, as Envoy receives concatenated Secret
/// data. A newline is put between files so a file without a final newline cannot glue its END
/// line to the next BEGIN line. Every unreadable file is reported.
pub fn read_pems(paths: &[PathBuf], limits: &Limits) -> Result<Vec<u8>, Vec<InputError>> {
    let mut all = Vec::new();
    let mut errors = Vec::new();
    for path in paths {
        match read_pem(path, limits) {
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
/// left whole: certgate-ingress flattens them itself.
pub fn load_manifests(args: &[PathBuf], stdin: impl Read) -> Result<Vec<Value>, InputError> {
    load_values(args, stdin).map_err(InputError::Load)
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
