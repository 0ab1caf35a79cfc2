//! Output helpers shared by the subcommands: the format switch, JSON writing and the wording
//! of times relative to `now`.

use std::io::Write;

use certgate_crl::Timestamp;
use clap::ValueEnum;
use serde::Serialize;

use super::error::CrlError;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Readable text.
    Text,
    /// One JSON document.
    Json,
    /// The JSON document as YAML.
    Yaml,
}

/// `value` as `format` asks, for the structured formats (`json`, `yaml`): pretty JSON followed
/// by a newline, or the same document as YAML (as Go's yaml.v3 writes it). Buffered: a
/// listing of a huge CRL is many small writes.
pub fn write_document(
    out: &mut dyn Write,
    format: Format,
    value: &impl Serialize,
) -> Result<(), CrlError> {
    let mut out = std::io::BufWriter::new(out);
    if format == Format::Yaml {
        let document = serde_json::to_value(value)?;
        out.write_all(certgate_goyaml::to_yaml(&document).as_bytes())?;
    } else {
        serde_json::to_writer_pretty(&mut out, value)?;
        writeln!(out)?;
    }
    out.flush()?;
    Ok(())
}

/// `expires in 3 days`, `expired 2 hours ago`; whole units, rounded down, so golden output
/// with a fixed `--at` is stable.
pub fn expiry(next_update: Option<Timestamp>, now: Timestamp) -> String {
    let Some(next) = next_update else {
        return "no nextUpdate: never expires for Envoy, refused by rustls".to_owned();
    };
    let delta = next.unix().saturating_sub(now.unix());
    if delta > 0 {
        format!("expires in {}", span(delta))
    } else {
        format!("expired {} ago", span(delta.saturating_neg()))
    }
}

/// `not yet valid for another 5 days` when `thisUpdate` is after `now`.
pub fn not_yet_valid(this_update: Timestamp, now: Timestamp) -> Option<String> {
    let delta = this_update.unix().saturating_sub(now.unix());
    (delta > 0).then(|| format!("not yet valid for another {}", span(delta)))
}

fn span(secs: i64) -> String {
    let (n, unit) = if secs >= 86_400 {
        (secs / 86_400, "day")
    } else if secs >= 3_600 {
        (secs / 3_600, "hour")
    } else if secs >= 60 {
        (secs / 60, "minute")
    } else {
        (secs, "second")
    };
    format!("{n} {unit}{}", if n == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expiry_words() {
        let now = Timestamp::from_unix(1_000_000);
        assert_eq!(
            expiry(Some(Timestamp::from_unix(1_000_000 + 86_400 * 2 + 5)), now),
            "expires in 2 days"
        );
        assert_eq!(
            expiry(Some(Timestamp::from_unix(1_000_000 - 3_600)), now),
            "expired 1 hour ago"
        );
        assert_eq!(expiry(Some(now), now), "expired 0 seconds ago");
        assert_eq!(
            not_yet_valid(Timestamp::from_unix(1_000_060), now).as_deref(),
            Some("not yet valid for another 1 minute")
        );
        assert_eq!(not_yet_valid(now, now), None);
    }
}
