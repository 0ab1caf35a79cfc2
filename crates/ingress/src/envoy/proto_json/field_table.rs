//! Every JSON name the writer emits, checked against the generated prost code.
//!
//! Each table row sets one field on a typed value (so the Rust field or oneof variant must exist
//! in `envoy-types`, or this does not compile), then checks that
//! - the JSON name is the proto3 lowerCamelCase of the proto field name,
//! - the writer renders exactly that one key for it,
//! - prost encodes it under the field number the row states (the number in Envoy's `.proto`).
//!
//! A walk over translated contexts then checks that every key the writer emits, per message,
//! is in this table.

use prost::{Message, Name};
use serde_json::{Map, Value};

use super::{ProtoJson, to_object};
use crate::delegation::NamespacedName;
use crate::envoy::types::*;
use crate::envoy::{TranslateOptions, downstream_tls_context};
use crate::validate::{PeerValidation, ValidatedVhost};

struct Row {
    message: &'static str,
    json: &'static str,
    proto: &'static str,
    tag: u64,
    /// Rust name of the oneof variant, for oneof members.
    variant: Option<&'static str>,
    /// Message type of the field's value, for sub-messages.
    child: Option<&'static str>,
    rendered: Result<Map<String, Value>, super::Unsupported>,
    encoded: Vec<u8>,
}

fn row<M: ProtoJson + Message + Clone>(
    (proto, json, tag): (&'static str, &'static str, u64),
    variant: Option<&'static str>,
    child: Option<&'static str>,
    value: M,
) -> Row {
    Row {
        message: M::NAME,
        json,
        proto,
        tag,
        variant,
        child,
        rendered: to_object(value.clone()),
        encoded: value.encode_to_vec(),
    }
}

/// A plain field: `field!(Message.rust_field = value, tag, "jsonName" [, ChildMessage])`.
macro_rules! field {
    ($message:ident . $field:ident = $value:expr, $tag:literal, $json:literal $(, $child:ident)?) => {
        row(
            (stringify!($field), $json, $tag),
            None,
            // `Some("Child")` when a child message type is given, else `None`.
            None $(.or(Some(stringify!($child))))?,
            $message { $field: $value, ..$message::default() },
        )
    };
}

/// A oneof member: `oneof!(Message.oneof = Enum::Variant(value), "proto_name", tag, "jsonName")`.
macro_rules! oneof {
    ($message:ident . $oneof:ident = $enum:ident :: $variant:ident ($value:expr), $proto:literal,
     $tag:literal, $json:literal $(, $child:ident)?) => {
        row(
            ($proto, $json, $tag),
            Some(stringify!($variant)),
            None $(.or(Some(stringify!($child))))?,
            $message { $oneof: Some($enum::$variant($value)), ..$message::default() },
        )
    };
}

fn table() -> Vec<Row> {
    let bool_value = Some(BoolValue { value: false });
    vec![
        field!(
            DownstreamTlsContext.common_tls_context = Some(Default::default()),
            1,
            "commonTlsContext",
            CommonTlsContext
        ),
        field!(
            DownstreamTlsContext.require_client_certificate = bool_value,
            2,
            "requireClientCertificate"
        ),
        field!(
            CommonTlsContext.tls_params = Some(Default::default()),
            1,
            "tlsParams",
            TlsParameters
        ),
        field!(
            CommonTlsContext.tls_certificate_sds_secret_configs = vec![Default::default()],
            6,
            "tlsCertificateSdsSecretConfigs",
            SdsSecretConfig
        ),
        oneof!(
            CommonTlsContext.validation_context_type =
                ValidationContextType::ValidationContext(Default::default()),
            "validation_context",
            3,
            "validationContext",
            CertificateValidationContext
        ),
        field!(CommonTlsContext.alpn_protocols = vec!["h2".into()], 4, "alpnProtocols"),
        field!(
            TlsParameters.tls_minimum_protocol_version = TlsProtocol::TlSv12.into(),
            1,
            "tlsMinimumProtocolVersion"
        ),
        field!(
            TlsParameters.tls_maximum_protocol_version = TlsProtocol::TlSv13.into(),
            2,
            "tlsMaximumProtocolVersion"
        ),
        field!(TlsParameters.cipher_suites = vec!["x".into()], 3, "cipherSuites"),
        field!(SdsSecretConfig.name = "x".into(), 1, "name"),
        field!(SdsSecretConfig.sds_config = Some(Default::default()), 2, "sdsConfig", ConfigSource),
        field!(
            CertificateValidationContext.trusted_ca = Some(Default::default()),
            1,
            "trustedCa",
            DataSource
        ),
        field!(CertificateValidationContext.crl = Some(Default::default()), 7, "crl", DataSource),
        field!(
            CertificateValidationContext.trust_chain_verification =
                TrustChainVerification::AcceptUntrusted.into(),
            10,
            "trustChainVerification"
        ),
        field!(
            CertificateValidationContext.only_verify_leaf_cert_crl = true,
            14,
            "onlyVerifyLeafCertCrl"
        ),
        oneof!(
            DataSource.specifier = DataSourceSpecifier::InlineBytes(b"x".to_vec()),
            "inline_bytes",
            2,
            "inlineBytes"
        ),
        oneof!(
            ConfigSource.config_source_specifier =
                ConfigSourceSpecifier::ApiConfigSource(Default::default()),
            "api_config_source",
            2,
            "apiConfigSource",
            ApiConfigSource
        ),
        field!(ConfigSource.resource_api_version = ApiVersion::V3.into(), 6, "resourceApiVersion"),
        field!(ApiConfigSource.api_type = ApiType::Grpc.into(), 1, "apiType"),
        field!(
            ApiConfigSource.transport_api_version = ApiVersion::V3.into(),
            8,
            "transportApiVersion"
        ),
        field!(
            ApiConfigSource.grpc_services = vec![Default::default()],
            4,
            "grpcServices",
            GrpcService
        ),
        oneof!(
            GrpcService.target_specifier = TargetSpecifier::EnvoyGrpc(Default::default()),
            "envoy_grpc",
            1,
            "envoyGrpc",
            EnvoyGrpc
        ),
        field!(EnvoyGrpc.cluster_name = "x".into(), 1, "clusterName"),
        field!(EnvoyGrpc.authority = "x".into(), 2, "authority"),
    ]
}

/// The proto3 JSON name of a proto field: lowerCamelCase, underscores dropped.
fn lower_camel(proto: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in proto.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Field number of the first key of a protobuf encoding (a varint `number << 3 | wire type`).
fn first_field_number(encoded: &[u8]) -> Option<u64> {
    let mut key = 0u64;
    for (i, byte) in encoded.iter().take(10).enumerate() {
        key |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Some(key >> 3);
        }
    }
    None
}

#[test]
fn every_row_matches_the_generated_code() {
    for row in table() {
        let at = format!("{}.{}", row.message, row.proto);
        assert_eq!(row.json, lower_camel(row.proto), "{at}: JSON name");
        if let Some(variant) = row.variant {
            let upper = lower_camel(row.proto);
            let expected = upper[..1].to_uppercase() + &upper[1..];
            assert_eq!(variant, expected, "{at}: prost names oneof variants in UpperCamelCase");
        }
        let rendered = row.rendered.unwrap_or_else(|err| panic!("{at}: {err}"));
        let keys: Vec<&String> = rendered.keys().collect();
        assert_eq!(keys, [row.json], "{at}: rendered keys");
        assert_eq!(first_field_number(&row.encoded), Some(row.tag), "{at}: field number");
    }
}

fn vhost(peer: Option<PeerValidation>) -> ValidatedVhost {
    ValidatedVhost {
        fqdn: "example.com".into(),
        serving_secret: NamespacedName::new("default", "server"),
        serving_certificate: b"certificate".to_vec(),
        serving_private_key: Vec::new(),
        min_tls_version: "1.2".into(),
        max_tls_version: "1.3".into(),
        peer_validation: peer,
    }
}

fn check_keys(table: &[Row], message: &str, value: &Value, seen: &mut Vec<(String, String)>) {
    let Value::Object(object) = value else { panic!("{message}: not an object: {value}") };
    for (key, field) in object {
        let Some(row) = table.iter().find(|row| row.message == message && row.json == key) else {
            panic!("{message}.{key} is emitted but not in the field table");
        };
        seen.push((message.to_string(), key.clone()));
        if let Some(child) = row.child {
            match field {
                Value::Array(items) => {
                    items.iter().for_each(|item| check_keys(table, child, item, seen));
                }
                _ => check_keys(table, child, field, seen),
            }
        }
    }
}

#[test]
fn every_emitted_key_is_in_the_table() {
    let table = table();
    let peers = [
        None,
        Some(PeerValidation {
            ca: Some((NamespacedName::new("default", "ca"), b"ca".to_vec())),
            crl: Some((NamespacedName::new("default", "crl"), b"crl".to_vec())),
            only_verify_leaf_cert_crl: true,
            optional_client_certificate: true,
            skip_client_cert_validation: true,
            forward_client_certificate: None,
        }),
    ];
    let mut seen = Vec::new();
    for peer in peers {
        let context = downstream_tls_context(&vhost(peer), &TranslateOptions::default());
        let json = Value::Object(to_object(context).unwrap_or_else(|err| panic!("{err}")));
        check_keys(&table, DownstreamTlsContext::NAME, &json, &mut seen);
    }
    // And the table has no rows the translation never uses.
    for row in &table {
        assert!(
            seen.iter().any(|(m, k)| m == row.message && k == row.json),
            "{}.{} is in the table but never emitted",
            row.message,
            row.json
        );
    }
}
