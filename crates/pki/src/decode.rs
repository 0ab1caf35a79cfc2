//! Decoding pipeline: input → envelope → key → (signature) → subject → requested extensions.

use crate::csr::{CsrError, DecodedCsr, SanEntries};
use crate::extensions::{self, Extension};
use crate::{input, key, request, san, signature, subject, usages};

const SUBJECT_ALT_NAME: &str = "2.5.29.17";
const KEY_USAGE: &str = "2.5.29.15";
const EXT_KEY_USAGE: &str = "2.5.29.37";
const BASIC_CONSTRAINTS: &str = "2.5.29.19";

/// Decodes `input`; verifies the self-signature when `verify` is set, before any content is
/// decoded, so a tampered request is reported as such.
pub(crate) fn decode(input: &[u8], verify: bool) -> Result<DecodedCsr, CsrError> {
    let der = input::der_bytes(input)?;
    let request = request::parse(&der)?;
    let public_key =
        key::parse_spki(request.spki).map_err(|reason| CsrError::PublicKey { reason })?;
    if verify {
        signature::verify_request(
            &request.signature_algorithm,
            &public_key,
            request.signed,
            request.signature,
        )?;
    }
    let subject =
        subject::decode(request.subject).map_err(|reason| CsrError::Subject { reason })?;
    let extensions =
        extensions::requested(request.attributes).map_err(|reason| CsrError::Der { reason })?;

    let mut decoded = DecodedCsr {
        subject,
        san: SanEntries::default(),
        san_extension_count: 0,
        san_decode_error: None,
        public_key: public_key.info(),
        basic_constraints_ca: None,
        key_usages: Vec::new(),
        ext_key_usages: Vec::new(),
        usage_extensions_present: false,
    };
    for extension in &extensions {
        apply(&mut decoded, extension)?;
    }
    Ok(decoded)
}

/// Folds one requested extension into `decoded`. A bad SAN is recorded for policy to deny
/// with; a bad usage or basicConstraints extension fails the request, as cert-manager's
/// validation would.
fn apply(decoded: &mut DecodedCsr, extension: &Extension<'_>) -> Result<(), CsrError> {
    let failed = |name: &str| {
        let extension = name.to_string();
        move |reason| CsrError::Extension { extension, reason }
    };
    match extension.oid.as_str() {
        SUBJECT_ALT_NAME => {
            decoded.san_extension_count += 1;
            match san::decode(extension.value) {
                Ok(entries) => san::merge(&mut decoded.san, entries),
                Err(reason) => {
                    decoded.san_decode_error.get_or_insert(reason);
                }
            }
        }
        KEY_USAGE => {
            decoded.usage_extensions_present = true;
            decoded
                .key_usages
                .extend(usages::key_usages(extension.value).map_err(failed("keyUsage"))?);
        }
        EXT_KEY_USAGE => {
            decoded.usage_extensions_present = true;
            decoded
                .ext_key_usages
                .extend(usages::ext_key_usages(extension.value).map_err(failed("extKeyUsage"))?);
        }
        BASIC_CONSTRAINTS => {
            let ca = usages::basic_constraints_ca(extension.value)
                .map_err(failed("basicConstraints"))?;
            decoded.basic_constraints_ca = Some(ca);
        }
        _ => {}
    }
    Ok(())
}
