//! `certgate crl inspect`: what is in each CRL file, whether its signatures verify against a
//! CA bundle, and certgate-crl's warnings for the bundle.

use std::io::Write;
use std::path::Path;

use certgate_crl::{
    CaBundle, CheckOptions, CrlBundle, CrlItem, Limits, OtherBlock, RevocationMode,
    SignatureStatus, Timestamp, Warning, check_bundle, verify_crl,
};
use serde::Serialize;
use serde_json::Value;

use super::InspectArgs;
use super::Outcome;
use super::error::{CrlError, InputError};
use super::input::{now_or, read_pem};
use super::output::{Format, expiry, not_yet_valid, write_json};
use super::verify::load_cas;

#[derive(Serialize)]
struct Report {
    files: Vec<FileReport>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FileReport {
    file: String,
    crls: Vec<CrlReport>,
    /// PEM blocks that are not CRLs (Contour and Envoy skip most of them).
    other_blocks: Vec<OtherBlock>,
    warnings: Vec<WarningReport>,
}

#[derive(Serialize)]
struct CrlReport {
    number: usize,
    offset: usize,
    #[serde(flatten)]
    detail: Detail,
}

#[derive(Serialize)]
#[serde(untagged)]
enum Detail {
    Parsed(Box<Parsed>),
    Unparsable { error: String },
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Parsed {
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
pub fn run(args: &InspectArgs, stdout: &mut dyn Write) -> Result<Outcome, CrlError> {
    let limits = Limits::default();
    let now = now_or(args.at);
    let mut errors = Vec::new();
    let cas = match &args.ca {
        None => None,
        Some(path) => {
            load_cas(std::slice::from_ref(path), &limits).map_err(|e| errors.extend(e)).ok()
        }
    };
    let mut bundles = Vec::new();
    for path in &args.files {
        match read_pem(path, &limits).and_then(|bytes| {
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
        Format::Json => write_json(stdout, &Report { files })?,
        Format::Text => write_text(stdout, &files, now)?,
    }
    Ok(Ok(u8::from(any_warning)))
}

fn file_report(
    path: &Path,
    bundle: &CrlBundle,
    cas: Option<&CaBundle>,
    options: &CheckOptions,
) -> FileReport {
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

fn crl_report(item: &CrlItem, cas: Option<&CaBundle>, now: Timestamp) -> CrlReport {
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
            }))
        }
    };
    CrlReport { number: item.number, offset: item.offset, detail }
}

fn write_text(out: &mut dyn Write, files: &[FileReport], now: Timestamp) -> std::io::Result<()> {
    for file in files {
        writeln!(out, "{}:", file.file)?;
        if file.crls.is_empty() {
            writeln!(out, "  no X509 CRL block")?;
        }
        for crl in &file.crls {
            writeln!(out, "  CRL #{} (at byte {})", crl.number, crl.offset)?;
            match &crl.detail {
                Detail::Unparsable { error } => writeln!(out, "    unparsable:  {error}")?,
                Detail::Parsed(p) => write_parsed(out, p, now)?,
            }
        }
        for block in &file.other_blocks {
            writeln!(
                out,
                "  other PEM block {:?} at byte {} (not a CRL)",
                block.label, block.offset
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

fn write_parsed(out: &mut dyn Write, p: &Parsed, now: Timestamp) -> std::io::Result<()> {
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
