//! The typed context against prost itself: every message `translate` produces survives a
//! protobuf encode/decode unchanged (so it is a well-formed value of Envoy's schema, not just
//! JSON that looks right), the `Any` wrapper round-trips by its type URL, and the JSON writer
//! refuses fields it does not render instead of dropping them.

use certgate_ingress::NamespacedName;
use certgate_ingress::envoy::types::*;
use certgate_ingress::envoy::{TranslateOptions, downstream_tls_context, to_json, to_yaml};
use certgate_ingress::validate::{PeerValidation, ValidatedVhost};
use prost::{Message, Name};
use serde_json::json;

fn vhost(min: &str, peer: Option<PeerValidation>) -> ValidatedVhost {
    ValidatedVhost {
        fqdn: "example.com".into(),
        serving_secret: NamespacedName::new("default", "server"),
        serving_certificate: b"serving certificate".to_vec(),
        serving_private_key: Vec::new(),
        min_tls_version: min.into(),
        max_tls_version: "1.3".into(),
        peer_validation: peer,
    }
}

fn peer(ca: bool, crl: bool, flags: bool) -> PeerValidation {
    PeerValidation {
        ca: ca.then(|| (NamespacedName::new("default", "ca"), b"ca bytes".to_vec())),
        crl: crl.then(|| (NamespacedName::new("default", "crl"), b"\x00\xffcrl".to_vec())),
        only_verify_leaf_cert_crl: flags,
        optional_client_certificate: flags,
        skip_client_cert_validation: flags,
        ..PeerValidation::default()
    }
}

/// Contexts covering every field `translate` sets, with and without client validation.
fn contexts() -> Vec<DownstreamTlsContext> {
    let options = TranslateOptions { xds_cluster_name: "ns/contour".into(), ..Default::default() };
    [
        vhost("1.2", None),
        vhost("1.3", Some(peer(true, false, false))),
        vhost("1.2", Some(peer(true, true, false))),
        vhost("1.2", Some(peer(false, true, true))),
    ]
    .iter()
    .map(|vhost| downstream_tls_context(vhost, &options))
    .collect()
}

fn round_trip<M: Message + Default + PartialEq + std::fmt::Debug>(message: &M) {
    let bytes = message.encode_to_vec();
    let back = M::decode(bytes.as_slice()).expect("decodes");
    assert_eq!(&back, message);
}

#[test]
fn every_produced_message_round_trips_through_protobuf() {
    for context in contexts() {
        round_trip(&context);
        let common = context.common_tls_context.as_ref().expect("always set");
        round_trip(common);
        round_trip(common.tls_params.as_ref().expect("always set"));
        for sds in &common.tls_certificate_sds_secret_configs {
            round_trip(sds);
            let source = sds.sds_config.as_ref().expect("always set");
            round_trip(source);
            let Some(ConfigSourceSpecifier::ApiConfigSource(api)) = &source.config_source_specifier
            else {
                panic!("xDS over gRPC expected");
            };
            round_trip(api);
            for grpc in &api.grpc_services {
                round_trip(grpc);
                let Some(TargetSpecifier::EnvoyGrpc(envoy_grpc)) = &grpc.target_specifier else {
                    panic!("envoy_grpc expected");
                };
                round_trip(envoy_grpc);
            }
        }
        if let Some(ValidationContextType::ValidationContext(vc)) = &common.validation_context_type
        {
            round_trip(vc);
            vc.trusted_ca.iter().chain(&vc.crl).for_each(round_trip);
        }
        if let Some(required) = &context.require_client_certificate {
            round_trip(required);
        }
    }
}

#[test]
fn any_wrapper_round_trips_by_type_url() {
    for context in contexts() {
        let any =
            Any { type_url: DownstreamTlsContext::type_url(), value: context.encode_to_vec() };
        let back = Any::decode(any.encode_to_vec().as_slice()).expect("Any decodes");
        assert_eq!(back.type_url, to_json(&context).unwrap()["@type"]);
        let inner = DownstreamTlsContext::decode(back.value.as_slice()).expect("context decodes");
        assert_eq!(inner, context);
    }
}

#[test]
fn json_bytes_are_the_typed_bytes() {
    let context = &contexts()[2];
    let json = to_json(context).unwrap();
    let vc = &json["commonTlsContext"]["validationContext"];
    assert_eq!(vc["trustedCa"]["inlineBytes"], "Y2EgYnl0ZXM=");
    assert_eq!(vc["crl"]["inlineBytes"], "AP9jcmw=");
    assert_eq!(json["requireClientCertificate"], true);
    // Authority is the cluster name with `/` as `.` (Contour's GetConfigSource).
    let grpc = &json["commonTlsContext"]["tlsCertificateSdsSecretConfigs"][0]["sdsConfig"]["apiConfigSource"]
        ["grpcServices"][0]["envoyGrpc"];
    assert_eq!(grpc, &json!({"clusterName": "ns/contour", "authority": "ns.contour"}));
}

#[test]
fn fields_the_writer_does_not_render_are_errors() {
    let base = contexts().remove(0);
    let mut with_sni = base.clone();
    with_sni.require_sni = Some(BoolValue { value: true });
    let err = to_json(&with_sni).unwrap_err().to_string();
    assert!(
        err.contains("envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext"),
        "{err}"
    );
    assert!(to_yaml(&with_sni).is_err());

    // A nested field and a oneof case the writer does not cover.
    let mut nested = base.clone();
    let common = nested.common_tls_context.as_mut().unwrap();
    common.tls_params.as_mut().unwrap().ecdh_curves = vec!["X25519".into()];
    let err = to_json(&nested).unwrap_err().to_string();
    assert!(err.contains("TlsParameters"), "{err}");
    let mut sds_validation = base;
    sds_validation.common_tls_context.as_mut().unwrap().validation_context_type =
        Some(ValidationContextType::ValidationContextSdsSecretConfig(SdsSecretConfig::default()));
    let err = to_json(&sds_validation).unwrap_err().to_string();
    assert!(err.contains("CommonTlsContext"), "{err}");
}

#[test]
fn unknown_enum_numbers_are_written_as_numbers() {
    let mut context = contexts().remove(0);
    let params = context.common_tls_context.as_mut().unwrap().tls_params.as_mut().unwrap();
    params.tls_maximum_protocol_version = 99;
    let json = to_json(&context).unwrap();
    assert_eq!(json["commonTlsContext"]["tlsParams"]["tlsMaximumProtocolVersion"], 99);
}
