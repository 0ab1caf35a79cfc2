//! CRL and CA bundles: the PEM data of `crl.pem` and `ca.crt` turned into parsed items, each
//! keeping its 1-based position so messages can point at it.

use serde::Serialize;

use crate::Limits;
use crate::cert::Cert;
use crate::error::{BundleError, CertParseError, CrlParseError};
use crate::parse::Crl;
use crate::pem::{CERTIFICATE_LABEL, CRL_LABEL, parse_pem_bundle};

/// A PEM block that is neither the bundle's expected type; Envoy ignores most of these, but
/// decodes certificates and keys (a broken one fails the whole load).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OtherBlock {
    pub label: String,
    pub offset: usize,
}

/// One `X509 CRL` block.
#[derive(Debug, Clone)]
pub struct CrlItem {
    /// 1-based position among the bundle's `X509 CRL` blocks ("CRL #n" in messages).
    pub number: usize,
    /// Byte offset of its `-----BEGIN` line.
    pub offset: usize,
    pub crl: Result<Crl, CrlParseError>,
}

/// The CRLs of a `crl.pem`.
#[derive(Debug, Clone, Default)]
pub struct CrlBundle {
    pub items: Vec<CrlItem>,
    pub other_blocks: Vec<OtherBlock>,
    /// Offsets of malformed PEM blocks (skipped by Contour's Go decoder, fatal for Envoy).
    pub malformed_offsets: Vec<usize>,
}

impl CrlBundle {
    /// Parses every `X509 CRL` block of `pem`.
    pub fn parse(pem: &[u8], limits: &Limits) -> Result<CrlBundle, BundleError> {
        let blocks = parse_pem_bundle(pem, limits)?;
        let mut bundle =
            CrlBundle { malformed_offsets: blocks.malformed_offsets, ..CrlBundle::default() };
        for block in blocks.blocks {
            if block.label == CRL_LABEL {
                let number = bundle.items.len() + 1;
                bundle.items.push(CrlItem {
                    number,
                    offset: block.offset,
                    crl: Crl::from_der(block.der, limits),
                });
            } else {
                bundle.other_blocks.push(OtherBlock { label: block.label, offset: block.offset });
            }
        }
        Ok(bundle)
    }

    /// Builds a bundle from already parsed CRLs (numbered in order).
    pub fn from_crls(crls: Vec<Crl>) -> CrlBundle {
        let items = crls
            .into_iter()
            .enumerate()
            .map(|(i, crl)| CrlItem { number: i + 1, offset: 0, crl: Ok(crl) })
            .collect();
        CrlBundle { items, ..CrlBundle::default() }
    }

    /// The CRLs that parsed, with their numbers.
    pub fn parsed(&self) -> impl Iterator<Item = (usize, &Crl)> {
        self.items.iter().filter_map(|i| i.crl.as_ref().ok().map(|c| (i.number, c)))
    }
}

/// One `CERTIFICATE` block of a CA bundle.
#[derive(Debug, Clone)]
pub struct CaItem {
    /// 1-based position among the bundle's `CERTIFICATE` blocks.
    pub number: usize,
    pub offset: usize,
    pub cert: Result<Cert, CertParseError>,
}

/// The certificates of a `ca.crt` (all of them are trust anchors for Envoy, which sets
/// `X509_V_FLAG_PARTIAL_CHAIN`).
#[derive(Debug, Clone, Default)]
pub struct CaBundle {
    pub items: Vec<CaItem>,
    pub other_blocks: Vec<OtherBlock>,
}

impl CaBundle {
    /// Parses every `CERTIFICATE` block of `pem`.
    pub fn parse(pem: &[u8], limits: &Limits) -> Result<CaBundle, BundleError> {
        let blocks = parse_pem_bundle(pem, limits)?;
        let mut bundle = CaBundle::default();
        for block in blocks.blocks {
            if block.label == CERTIFICATE_LABEL {
                let number = bundle.items.len() + 1;
                bundle.items.push(CaItem {
                    number,
                    offset: block.offset,
                    cert: Cert::from_der(block.der),
                });
            } else {
                bundle.other_blocks.push(OtherBlock { label: block.label, offset: block.offset });
            }
        }
        Ok(bundle)
    }

    /// The certificates that parsed, with their numbers.
    pub fn parsed(&self) -> impl Iterator<Item = (usize, &Cert)> {
        self.items.iter().filter_map(|i| i.cert.as_ref().ok().map(|c| (i.number, c)))
    }
}

/// Parses a PEM chain (leaf first, then intermediates) as a client would present it.
pub fn parse_chain_pem(
    pem: &[u8],
    limits: &Limits,
) -> Result<Vec<Result<Cert, CertParseError>>, BundleError> {
    Ok(CaBundle::parse(pem, limits)?.items.into_iter().map(|i| i.cert).collect())
}
