//! `certgate crl verify`: the answer Envoy (BoringSSL) gives one client chain, given the
//! `trusted_ca` and `crl` Contour would program, at a chosen time.

use std::io::Write;
use std::path::{Path, PathBuf};

use certgate_crl::{
    CaBundle, Cert, CrlBundle, Limits, RevocationMode, Verdict, evaluate, parse_chain_pem,
};

use super::error::{CrlError, InputError};
use super::input::{PemInputs, now_or, read_pems};
use super::output::{Format, write_document};
use super::{Outcome, VerifyArgs};

/// Runs `verify`: prints the verdict word, the reason, and a line when rustls would answer
/// differently; returns 0 only for `accepted`.
pub fn run(
    args: &VerifyArgs,
    inputs: &mut PemInputs<'_>,
    stdout: &mut dyn Write,
) -> Result<Outcome, CrlError> {
    let limits = Limits::default();
    let mut errors = Vec::new();
    let cas = load_cas(inputs, &args.ca, &limits).map_err(|e| errors.extend(e)).ok();
    let crls = load_crls(inputs, &args.crl, &limits).map_err(|e| errors.extend(e)).ok();
    let chain =
        load_chain(inputs, &args.cert, &args.chain, &limits).map_err(|e| errors.extend(e)).ok();
    let (Some(cas), Some(crls), Some(chain)) = (cas, crls, chain) else {
        return Ok(Err(errors));
    };
    let mode = RevocationMode::from_only_verify_leaf_cert_crl(args.leaf_only);
    let evaluation = evaluate(&chain, &cas, &crls, mode, now_or(args.at));
    match args.output {
        Format::Json | Format::Yaml => write_document(stdout, args.output, &evaluation)?,
        Format::Text => {
            writeln!(stdout, "{}", evaluation.envoy.verdict)?;
            writeln!(stdout, "{}", evaluation.envoy.reason)?;
            if evaluation.rustls.verdict != evaluation.envoy.verdict {
                writeln!(
                    stdout,
                    "rustls differs: certgate's rustls/webpki stack would answer {} ({})",
                    evaluation.rustls.verdict, evaluation.rustls.reason
                )?;
            }
        }
    }
    Ok(Ok(if evaluation.envoy.verdict == Verdict::Accepted { 0 } else { 1 }))
}

/// The `--ca` files as one `trusted_ca` (Contour concatenates the CA Secrets' `ca.crt`). A
/// certificate that does not parse would make Envoy refuse the whole context, so it is an
/// input error here rather than a verdict.
pub(super) fn load_cas(
    inputs: &mut PemInputs<'_>,
    paths: &[PathBuf],
    limits: &Limits,
) -> Result<CaBundle, Vec<InputError>> {
    let mut errors = Vec::new();
    let mut all = CaBundle::default();
    for path in paths {
        let parsed = read_pems(inputs, std::slice::from_ref(path), limits).and_then(|bytes| {
            CaBundle::parse(&bytes, limits)
                .map_err(|source| vec![InputError::Bundle { path: path.clone(), source }])
        });
        let bundle = match parsed {
            Ok(bundle) => bundle,
            Err(e) => {
                errors.extend(e);
                continue;
            }
        };
        if bundle.items.is_empty() {
            errors.push(InputError::NoCertificate { path: path.clone(), what: "--ca" });
        }
        for mut item in bundle.items {
            if let Err(source) = &item.cert {
                errors.push(InputError::BadCertificate {
                    what: format!("--ca {}", path.display()),
                    number: item.number,
                    source: source.clone(),
                });
            }
            // Numbered across files, as Envoy sees the concatenated bundle.
            item.number = all.items.len() + 1;
            all.items.push(item);
        }
        all.other_blocks.extend(bundle.other_blocks);
    }
    if errors.is_empty() { Ok(all) } else { Err(errors) }
}

/// The `--crl` files as one `crl` data source. CRLs whose DER does not parse stay in the
/// bundle: Envoy's reaction to them (refusing the context) is part of the verdict.
fn load_crls(
    inputs: &mut PemInputs<'_>,
    paths: &[PathBuf],
    limits: &Limits,
) -> Result<CrlBundle, Vec<InputError>> {
    let mut errors = Vec::new();
    // Each file on its own first: one without any CRL block is a wrong path, and a size
    // problem should name its file.
    for path in paths {
        let parsed = read_pems(inputs, std::slice::from_ref(path), limits).and_then(|bytes| {
            CrlBundle::parse(&bytes, limits)
                .map_err(|source| vec![InputError::Bundle { path: path.clone(), source }])
        });
        match parsed {
            Ok(bundle) if bundle.items.is_empty() => {
                errors.push(InputError::NoCrl { path: path.clone() })
            }
            Ok(_) => {}
            Err(e) => errors.extend(e),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let bytes = read_pems(inputs, paths, limits)?;
    CrlBundle::parse(&bytes, limits).map_err(|source| {
        vec![InputError::Bundle { path: paths.first().cloned().unwrap_or_default(), source }]
    })
}

/// The client certificate first, then the intermediates it sends (from CERT itself after its
/// first certificate, then from each CHAIN file).
fn load_chain(
    inputs: &mut PemInputs<'_>,
    cert: &Path,
    chain: &[PathBuf],
    limits: &Limits,
) -> Result<Vec<Cert>, Vec<InputError>> {
    let mut errors = Vec::new();
    let mut certs = Vec::new();
    for (index, path) in std::iter::once(cert).chain(chain.iter().map(PathBuf::as_path)).enumerate()
    {
        let what = if index == 0 { "CERT" } else { "CHAIN" };
        let parsed = read_pems(inputs, &[path.to_path_buf()], limits).and_then(|bytes| {
            parse_chain_pem(&bytes, limits)
                .map_err(|source| vec![InputError::Bundle { path: path.to_path_buf(), source }])
        });
        let items = match parsed {
            Ok(items) => items,
            Err(e) => {
                errors.extend(e);
                continue;
            }
        };
        if items.is_empty() {
            errors.push(InputError::NoCertificate { path: path.to_path_buf(), what });
        }
        for (number, item) in items.into_iter().enumerate() {
            match item {
                Ok(c) => certs.push(c),
                Err(source) => errors.push(InputError::BadCertificate {
                    what: format!("{what} {}", path.display()),
                    number: number + 1,
                    source,
                }),
            }
        }
    }
    if errors.is_empty() { Ok(certs) } else { Err(errors) }
}
