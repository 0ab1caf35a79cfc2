//! The singleton xDS services: `StreamListeners`, `StreamRoutes`, `StreamClusters`,
//! `StreamEndpoints` and `StreamSecrets`, one resource type per gRPC stream.
//!
//! Why they exist beside ADS: `contour bootstrap` (and so certgate's bootstrap, which follows
//! it) points Envoy's LDS and CDS at per-type gRPC config sources, not at ADS, and Contour
//! serves both. Each stream is the very same state machine as an ADS stream
//! ([`crate::ads`]), restricted to its type: requests may leave `type_url` empty (it is implicit
//! in the service), and requests of another type are ignored. Without ADS's single stream,
//! Envoy gives no ordering across types; that is the protocol's known trade-off of these
//! services, not something the server can repair.
//!
//! The unary `Fetch*` methods (the REST-style API) and the `Delta*` methods answer
//! `UNIMPLEMENTED`.

use envoy_types::pb::envoy::service::cluster::v3::cluster_discovery_service_server::ClusterDiscoveryService;
use envoy_types::pb::envoy::service::discovery::v3::{
    DeltaDiscoveryRequest, DeltaDiscoveryResponse, DiscoveryRequest, DiscoveryResponse,
};
use envoy_types::pb::envoy::service::endpoint::v3::endpoint_discovery_service_server::EndpointDiscoveryService;
use envoy_types::pb::envoy::service::listener::v3::listener_discovery_service_server::ListenerDiscoveryService;
use envoy_types::pb::envoy::service::route::v3::route_discovery_service_server::RouteDiscoveryService;
use envoy_types::pb::envoy::service::secret::v3::secret_discovery_service_server::SecretDiscoveryService;
use tonic::{Request, Response, Status, Streaming};

use crate::ads::{AdsService, ResponseStream};
use crate::snapshot::TypeUrl;

/// The text of the `UNIMPLEMENTED` status of the unary `Fetch*` methods.
pub const FETCH_UNIMPLEMENTED: &str =
    "certgate serves xDS over gRPC streams only: set api_type GRPC in the config source";

/// The text of the `UNIMPLEMENTED` status of the singleton services' `Delta*` methods.
pub const DELTA_UNIMPLEMENTED: &str = "certgate serves delta xDS over ADS only: use api_type GRPC \
     here, or DELTA_GRPC in the bootstrap's ads_config";

type DeltaStream = futures_util::stream::Empty<Result<DeltaDiscoveryResponse, Status>>;

/// Implements one generated singleton service trait on [`AdsService`]: the five traits differ
/// only in their method and associated type names and in the type they serve.
macro_rules! singleton_service {
    ($service:ident, $type_url:expr, $stream_type:ident, $stream:ident, $delta_type:ident, $delta:ident, $fetch:ident) => {
        #[tonic::async_trait]
        impl $service for AdsService {
            type $stream_type = ResponseStream;

            async fn $stream(
                &self,
                request: Request<Streaming<DiscoveryRequest>>,
            ) -> Result<Response<ResponseStream>, Status> {
                let peer = request.remote_addr();
                Ok(Response::new(self.open(request.into_inner(), peer, Some($type_url))))
            }

            type $delta_type = DeltaStream;

            async fn $delta(
                &self,
                _request: Request<Streaming<DeltaDiscoveryRequest>>,
            ) -> Result<Response<DeltaStream>, Status> {
                Err(Status::unimplemented(DELTA_UNIMPLEMENTED))
            }

            async fn $fetch(
                &self,
                _request: Request<DiscoveryRequest>,
            ) -> Result<Response<DiscoveryResponse>, Status> {
                Err(Status::unimplemented(FETCH_UNIMPLEMENTED))
            }
        }
    };
}

singleton_service!(
    ListenerDiscoveryService,
    TypeUrl::Listener,
    StreamListenersStream,
    stream_listeners,
    DeltaListenersStream,
    delta_listeners,
    fetch_listeners
);
singleton_service!(
    RouteDiscoveryService,
    TypeUrl::RouteConfiguration,
    StreamRoutesStream,
    stream_routes,
    DeltaRoutesStream,
    delta_routes,
    fetch_routes
);
singleton_service!(
    ClusterDiscoveryService,
    TypeUrl::Cluster,
    StreamClustersStream,
    stream_clusters,
    DeltaClustersStream,
    delta_clusters,
    fetch_clusters
);
singleton_service!(
    EndpointDiscoveryService,
    TypeUrl::ClusterLoadAssignment,
    StreamEndpointsStream,
    stream_endpoints,
    DeltaEndpointsStream,
    delta_endpoints,
    fetch_endpoints
);
singleton_service!(
    SecretDiscoveryService,
    TypeUrl::Secret,
    StreamSecretsStream,
    stream_secrets,
    DeltaSecretsStream,
    delta_secrets,
    fetch_secrets
);
