//! `certgate edge`: the Contour edge (issue #21). `bootstrap` writes the Envoy bootstrap that
//! points an Envoy at certgate's xDS server, as `contour bootstrap` does; `serve` runs the edge
//! controller and the xDS server, as `contour serve` does.

mod bootstrap;
mod serve;

use clap::{Args, Subcommand};

pub use bootstrap::{BootstrapArgs, run_bootstrap};
pub use serve::{ServeArgs, run_serve};

pub const EDGE_LONG_ABOUT: &str = "\
The Contour edge: Envoy configuration for HTTPProxies with client-certificate validation and
CRLs, served over xDS.

  serve      watch HTTPProxies and what they reference, write their status as Contour does,
             and serve Envoy over xDS, with the flags of `contour serve`
  bootstrap  write the Envoy bootstrap that points an Envoy at certgate's xDS server, with the
             flags of `contour bootstrap`

See docs/edge.md.";

#[derive(Debug, Args)]
pub struct EdgeArgs {
    #[command(subcommand)]
    pub command: EdgeCommand,
}

#[derive(Debug, Subcommand)]
pub enum EdgeCommand {
    /// Write the Envoy bootstrap that points an Envoy at certgate's xDS server.
    #[command(long_about = bootstrap::BOOTSTRAP_LONG_ABOUT)]
    Bootstrap(BootstrapArgs),
    /// Watch HTTPProxies, write their status and serve Envoy over xDS.
    #[command(long_about = serve::SERVE_LONG_ABOUT)]
    Serve(ServeArgs),
}
