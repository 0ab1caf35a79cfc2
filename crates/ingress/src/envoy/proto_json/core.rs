//! The `envoy.config.core.v3` messages (`base.proto`, `config_source.proto`,
//! `grpc_service.proto`), fields in declaration order, oneof members where the `.proto` has them.

use std::mem::take;

use super::ProtoJson;
use super::object::{Object, Unsupported};
use crate::envoy::types::{
    ApiConfigSource, ApiType, ApiVersion, ConfigSource, ConfigSourceSpecifier, DataSource,
    DataSourceSpecifier, EnvoyGrpc, GrpcService, TargetSpecifier,
};

fn api_version_name(value: i32) -> Option<&'static str> {
    ApiVersion::try_from(value).ok().map(|version| version.as_str_name())
}

impl ProtoJson for DataSource {
    fn take_fields(&mut self, out: &mut Object) -> Result<(), Unsupported> {
        match self.specifier.take() {
            Some(DataSourceSpecifier::InlineBytes(bytes)) => out.oneof_bytes("inlineBytes", &bytes),
            other => self.specifier = other,
        }
        Ok(())
    }
}

impl ProtoJson for ConfigSource {
    fn take_fields(&mut self, out: &mut Object) -> Result<(), Unsupported> {
        match self.config_source_specifier.take() {
            Some(ConfigSourceSpecifier::ApiConfigSource(source)) => {
                out.message("apiConfigSource", Some(source))?;
            }
            other => self.config_source_specifier = other,
        }
        out.enumeration(
            "resourceApiVersion",
            take(&mut self.resource_api_version),
            api_version_name,
        );
        Ok(())
    }
}

impl ProtoJson for ApiConfigSource {
    fn take_fields(&mut self, out: &mut Object) -> Result<(), Unsupported> {
        out.enumeration("apiType", take(&mut self.api_type), |value| {
            ApiType::try_from(value).ok().map(|api_type| api_type.as_str_name())
        });
        out.enumeration(
            "transportApiVersion",
            take(&mut self.transport_api_version),
            api_version_name,
        );
        out.messages("grpcServices", take(&mut self.grpc_services))
    }
}

impl ProtoJson for GrpcService {
    fn take_fields(&mut self, out: &mut Object) -> Result<(), Unsupported> {
        match self.target_specifier.take() {
            Some(TargetSpecifier::EnvoyGrpc(grpc)) => out.message("envoyGrpc", Some(grpc))?,
            other => self.target_specifier = other,
        }
        Ok(())
    }
}

impl ProtoJson for EnvoyGrpc {
    fn take_fields(&mut self, out: &mut Object) -> Result<(), Unsupported> {
        out.string("clusterName", take(&mut self.cluster_name));
        out.string("authority", take(&mut self.authority));
        Ok(())
    }
}
