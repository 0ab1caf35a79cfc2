//! The `envoy.extensions.transport_sockets.tls.v3` messages (`tls.proto`, `common.proto`,
//! `secret.proto`), fields in declaration order; the generated struct puts oneofs last, the
//! `.proto` (and so `protojson`) puts `validation_context_type` before `alpn_protocols`.

use std::mem::take;

use super::ProtoJson;
use super::object::{Object, Unsupported};
use crate::envoy::types::{
    CertificateValidationContext, CommonTlsContext, DownstreamTlsContext, SdsSecretConfig,
    TlsParameters, TlsProtocol, TrustChainVerification, ValidationContextType,
};

impl ProtoJson for DownstreamTlsContext {
    fn take_fields(&mut self, out: &mut Object) -> Result<(), Unsupported> {
        out.message("commonTlsContext", self.common_tls_context.take())?;
        out.bool_value("requireClientCertificate", self.require_client_certificate.take());
        Ok(())
    }
}

impl ProtoJson for CommonTlsContext {
    fn take_fields(&mut self, out: &mut Object) -> Result<(), Unsupported> {
        out.message("tlsParams", self.tls_params.take())?;
        out.messages(
            "tlsCertificateSdsSecretConfigs",
            take(&mut self.tls_certificate_sds_secret_configs),
        )?;
        match self.validation_context_type.take() {
            Some(ValidationContextType::ValidationContext(context)) => {
                out.message("validationContext", Some(context))?;
            }
            // Another oneof case: left in place, so rendering reports it.
            other => self.validation_context_type = other,
        }
        out.strings("alpnProtocols", take(&mut self.alpn_protocols));
        Ok(())
    }
}

fn tls_protocol_name(value: i32) -> Option<&'static str> {
    TlsProtocol::try_from(value).ok().map(|protocol| protocol.as_str_name())
}

impl ProtoJson for TlsParameters {
    fn take_fields(&mut self, out: &mut Object) -> Result<(), Unsupported> {
        out.enumeration(
            "tlsMinimumProtocolVersion",
            take(&mut self.tls_minimum_protocol_version),
            tls_protocol_name,
        );
        out.enumeration(
            "tlsMaximumProtocolVersion",
            take(&mut self.tls_maximum_protocol_version),
            tls_protocol_name,
        );
        out.strings("cipherSuites", take(&mut self.cipher_suites));
        Ok(())
    }
}

impl ProtoJson for SdsSecretConfig {
    fn take_fields(&mut self, out: &mut Object) -> Result<(), Unsupported> {
        out.string("name", take(&mut self.name));
        out.message("sdsConfig", self.sds_config.take())
    }
}

impl ProtoJson for CertificateValidationContext {
    fn take_fields(&mut self, out: &mut Object) -> Result<(), Unsupported> {
        out.message("trustedCa", self.trusted_ca.take())?;
        out.message("crl", self.crl.take())?;
        out.enumeration(
            "trustChainVerification",
            take(&mut self.trust_chain_verification),
            |value| TrustChainVerification::try_from(value).ok().map(|v| v.as_str_name()),
        );
        out.flag("onlyVerifyLeafCertCrl", take(&mut self.only_verify_leaf_cert_crl));
        Ok(())
    }
}
