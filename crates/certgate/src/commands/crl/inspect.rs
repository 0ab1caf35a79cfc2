//! `certgate crl inspect`: what is in each CRL file, whether its signatures verify against a
//! CA bundle, and certgate-crl's warnings for the bundle.

use std::io::Write;
use std::path::Path;

use certgate_crl::{
    CaBundle, CheckOptions, Crl, CrlBundle, CrlItem, Limits, ListedEntry, OtherBlock,
    RevocationMode, SignatureStatus, Timestamp, Warning, check_bundle, verify_crl,
};
use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::Value;

use super::Outcome;
use super::error::{CrlError, InputError};
use super::input::{PemInputs, now_or, read_pem};
use super::output::{Format, expiry, not_yet_valid, write_document};
use super::verify::load_cas;
use super::{InspectArgs, RevokedListing};

#[derive(Serialize)]
struct Report<'a> {
    files: Vec<FileReport<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FileReport<'a> {
    file: String,
    crls: Vec<CrlReport<'a>>,
    /// PEM blocks that are not CRLs (Contour and Envoy skip most of them).
    other_blocks: Vec<OtherBlock>,
    warnings: Vec<WarningReport>,
}

#[derive(Serialize)]
struct CrlReport<'a> {
    number: usize,
    offset: usize,
    #[serde(flatten)]
    detail: Detail<'a>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum Detail<'a> {
    Parsed(Box<Parsed<'a>>),
    Unparsable { error: String },
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Parsed<'a> {
    issuer: String,
    version: u8,
    #[serde(serialize_with = "as_text")]
    this_update: Timestamp,
    #[serde(serialize_with = "opt_as_text")]
    next_update: Option<Timestamp>,
    expired: bool,
    /// `nextUpdate - now` in seconds (negative once expired), `null` without nextUpdate.
    seconds_to_next_update: Option<i64>,
    not_yet_valid: bool,
    entries: usize,
    crl_number: Option<String>,
    signature_algorithm: String,
    /// Against `--ca`; `null` when no CA bundle was given.
    signature: Option<SignatureStatus>,
    /// Every revoked entry, in the CRL's order, serialized as it is decoded.
    #[serde(serialize_with = "revoked_json")]
    revoked: &'a Crl,
}

/// A warning as JSON: certgate-crl's kind (for scripts) and its message (for people).
#[derive(Serialize)]
struct WarningReport {
    kind: String,
    message: String,
}

impl From<&Warning> for WarningReport {
    fn from(warning: &Warning) -> Self {
        let kind = serde_json::to_value(warning)
            .ok()
            .and_then(|v| v.get("kind").and_then(Value::as_str).map(str::to_owned))
            .unwrap_or_default();
        WarningReport { kind, message: warning.to_string() }
    }
}

/// Runs `inspect`; returns 0 without warnings, 1 with any.
pub fn run(
    args: &InspectArgs,
    inputs: &mut PemInputs<'_>,
    stdout: &mut dyn Write,
) -> Result<Outcome, CrlError> {
    let limits = Limits::default();
    let now = now_or(args.at);
    let mut errors = Vec::new();
    let cas = match &args.ca {
        None => None,
        Some(path) => {
            load_cas(inputs, std::slice::from_ref(path), &limits).map_err(|e| errors.extend(e)).ok()
        }
    };
    let mut bundles = Vec::new();
    for path in &args.files {
        match read_pem(inputs, path, &limits).and_then(|bytes| {
            CrlBundle::parse(&bytes, &limits)
                .map_err(|source| InputError::Bundle { path: path.clone(), source })
        }) {
            Ok(bundle) => bundles.push((path, bundle)),
            Err(err) => errors.push(err),
        }
    }
    if !errors.is_empty() {
        return Ok(Err(errors));
    }
    let mode = RevocationMode::from_only_verify_leaf_cert_crl(args.leaf_only);
    let options = CheckOptions { mode, ..CheckOptions::new(now) };
    let files: Vec<FileReport> = bundles
        .iter()
        .map(|(path, bundle)| file_report(path, bundle, cas.as_ref(), &options))
        .collect();
    let any_warning = files.iter().any(|f| !f.warnings.is_empty());
    match args.output {
        Format::Json | Format::Yaml => write_document(stdout, args.output, &Report { files })?,
        Format::Text => write_text(stdout, &files, now, args.revoked)?,
    }
    Ok(Ok(u8::from(any_warning)))
}

fn file_report<'a>(
    path: &Path,
    bundle: &'a CrlBundle,
    cas: Option<&CaBundle>,
    options: &CheckOptions,
) -> FileReport<'a> {
    let empty = CaBundle::default();
    let warnings = check_bundle(bundle, cas.unwrap_or(&empty), options)
        .iter()
        // Without --ca every CRL would lack its issuer; that says nothing about the file.
        .filter(|w| cas.is_some() || !matches!(w, Warning::IssuerNotInBundle { .. }))
        .map(WarningReport::from)
        .collect();
    FileReport {
        file: path.display().to_string(),
        crls: bundle.items.iter().map(|item| crl_report(item, cas, options.now)).collect(),
        other_blocks: bundle.other_blocks.clone(),
        warnings,
    }
}

fn crl_report<'a>(item: &'a CrlItem, cas: Option<&CaBundle>, now: Timestamp) -> CrlReport<'a> {
    let detail = match &item.crl {
        Err(err) => Detail::Unparsable { error: err.to_string() },
        Ok(crl) => {
            let info = crl.info();
            Detail::Parsed(Box::new(Parsed {
                issuer: info.issuer.clone(),
                version: info.version,
                this_update: info.this_update,
                next_update: info.next_update,
                expired: info.next_update.is_some_and(|n| n <= now),
                seconds_to_next_update: info
                    .next_update
                    .map(|n| n.unix().saturating_sub(now.unix())),
                not_yet_valid: info.this_update > now,
                entries: info.entries,
                crl_number: info.crl_number.as_ref().map(ToString::to_string),
                signature_algorithm: info.signature_algorithm.to_string(),
                signature: cas.map(|cas| verify_crl(crl, cas)),
                revoked: crl,
            }))
        }
    };
    CrlReport { number: item.number, offset: item.offset, detail }
}

fn write_text(
    out: &mut dyn Write,
    files: &[FileReport<'_>],
    now: Timestamp,
    revoked: Option<RevokedListing>,
) -> std::io::Result<()> {
    for file in files {
        writeln!(out, "{}:", file.file)?;
        if file.crls.is_empty() {
            writeln!(out, "  no X509 CRL block")?;
        }
        for crl in &file.crls {
            writeln!(out, "  CRL #{} (at byte {})", crl.number, crl.offset)?;
            match &crl.detail {
                Detail::Unparsable { error } => writeln!(out, "    unparsable:  {error}")?,
                Detail::Parsed(p) => {
                    write_parsed(out, p, now)?;
                    if let Some(listing) = revoked {
                        write_revoked(out, p, listing)?;
                    }
                }
            }
        }
        for block in &file.other_blocks {
            writeln!(
                out,
                "  other PEM block {} at byte {} (not a CRL)",
                certgate_gofmt::quote(&block.label),
                block.offset
            )?;
        }
        if file.warnings.is_empty() {
            writeln!(out, "  no warnings")?;
        } else {
            writeln!(out, "  warnings:")?;
            for warning in &file.warnings {
                writeln!(out, "    - {}", warning.message)?;
            }
        }
    }
    Ok(())
}

fn write_parsed(out: &mut dyn Write, p: &Parsed<'_>, now: Timestamp) -> std::io::Result<()> {
    writeln!(out, "    issuer:      {}", p.issuer)?;
    match not_yet_valid(p.this_update, now) {
        Some(words) => writeln!(out, "    thisUpdate:  {} ({words})", p.this_update)?,
        None => writeln!(out, "    thisUpdate:  {}", p.this_update)?,
    }
    match p.next_update {
        Some(next) => writeln!(out, "    nextUpdate:  {next} ({})", expiry(Some(next), now))?,
        None => writeln!(out, "    nextUpdate:  none ({})", expiry(None, now))?,
    }
    writeln!(out, "    entries:     {}", p.entries)?;
    writeln!(out, "    CRL number:  {}", p.crl_number.as_deref().unwrap_or("none"))?;
    writeln!(out, "    algorithm:   {} (v{} CRL)", p.signature_algorithm, p.version)?;
    let signature = match &p.signature {
        Some(SignatureStatus::Verified { ca, subject }) => {
            format!("verified by CA #{ca} ({subject})")
        }
        Some(SignatureStatus::NoIssuerInBundle { issuer }) => {
            format!("no issuer in bundle: no CA of --ca has the subject {issuer}")
        }
        Some(SignatureStatus::Failed { attempts, .. }) => {
            let why: Vec<String> =
                attempts.iter().map(|(ca, why)| format!("CA #{ca}: {why}")).collect();
            format!("bad signature ({})", why.join("; "))
        }
        None => "not checked (give --ca with the CA bundle)".to_owned(),
    };
    writeln!(out, "    signature:   {signature}")
}

/// The revoked entries of one CRL in text, bounded by `listing` (a count of the rest after).
fn write_revoked(
    out: &mut dyn Write,
    p: &Parsed<'_>,
    listing: RevokedListing,
) -> std::io::Result<()> {
    if p.entries == 0 {
        return writeln!(out, "    revoked:     none");
    }
    let shown = match listing {
        RevokedListing::All => p.entries,
        RevokedListing::First(n) => n.min(p.entries),
    };
    if shown < p.entries {
        writeln!(out, "    revoked:     first {shown} of {}, in the CRL's order", p.entries)?;
    } else {
        writeln!(out, "    revoked:     in the CRL's order")?;
    }
    // Serials are padded to the widest shown, so dates and reasons line up (a second pass over
    // the same entries: no serial is kept).
    let width = p
        .revoked
        .revoked_entries()
        .take(shown)
        .map(|e| e.openssl_serial().len())
        .max()
        .unwrap_or(0);
    for entry in p.revoked.revoked_entries().take(shown) {
        let serial = entry.openssl_serial();
        let date = entry.revocation_date.map_or_else(|| "unreadable".to_owned(), |d| d.to_string());
        match reason_text(&entry) {
            Some(reason) => writeln!(out, "      {serial:<width$}  {date}  {reason}")?,
            None => writeln!(out, "      {serial:<width$}  {date}")?,
        }
    }
    let rest = p.entries - shown;
    if rest > 0 {
        let noun = if rest == 1 { "entry" } else { "entries" };
        writeln!(out, "      ... {rest} more {noun} (--revoked=all or -o json lists them)")?;
    }
    Ok(())
}

/// The reason's RFC 5280 name, or its code when it has none.
fn reason_text(entry: &ListedEntry<'_>) -> Option<String> {
    let code = entry.reason_code?;
    Some(entry.reason_name().map_or_else(|| format!("reason code {code}"), str::to_owned))
}

/// `[{"serial","revocationDate","reason"}]`, one entry decoded at a time.
fn revoked_json<S: serde::Serializer>(crl: &&Crl, s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(crl.revoked_entries().map(JsonEntry))
}

struct JsonEntry<'a>(ListedEntry<'a>);

impl Serialize for JsonEntry<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let entry = &self.0;
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("serial", &entry.openssl_serial())?;
        map.serialize_entry("revocationDate", &entry.revocation_date.map(|d| d.to_string()))?;
        if let Some(reason) = reason_text(entry) {
            map.serialize_entry("reason", &reason)?;
        }
        map.end()
    }
}

/// Times are RFC 3339 text in JSON, like Kubernetes writes them.
fn as_text<S: serde::Serializer>(t: &Timestamp, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(t)
}

fn opt_as_text<S: serde::Serializer>(t: &Option<Timestamp>, s: S) -> Result<S::Ok, S::Error> {
    match t {
        Some(t) => s.collect_str(t),
        None => s.serialize_none(),
    }
}
