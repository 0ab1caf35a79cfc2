//! The kubeconfig that points `kubectl` and kube-rs at a running sandbox.

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::path::Path;

pub use certgate_store::files::SecretFileError;

/// The cluster, user and context name written into the kubeconfig.
pub const CONTEXT: &str = "certgate-sandbox";

/// A kubeconfig (YAML) for the sandbox at `addr`, trusting `ca_pem`, authenticating with
/// `token`.
pub fn render(addr: SocketAddr, ca_pem: &str, token: &str) -> String {
    let ca = base64_encode(ca_pem.as_bytes());
    let mut out = String::new();
    // Written by hand: every value is generated here and needs no quoting beyond what is shown.
    let _ = write!(
        out,
        "apiVersion: v1\n\
         kind: Config\n\
         clusters:\n\
         - name: {CONTEXT}\n  \
           cluster:\n    \
             server: https://{addr}\n    \
             certificate-authority-data: {ca}\n\
         users:\n\
         - name: {CONTEXT}-admin\n  \
           user:\n    \
             token: {token}\n\
         contexts:\n\
         - name: {CONTEXT}\n  \
           context:\n    \
             cluster: {CONTEXT}\n    \
             user: {CONTEXT}-admin\n    \
             namespace: default\n\
         current-context: {CONTEXT}\n"
    );
    out
}

/// Writes a kubeconfig to `path`: it holds the admin token, so it is written owner-only
/// (0600) and replaces any file there atomically (an existing 0644 file does not keep its
/// mode); a symbolic link at `path` is refused. See [`certgate_store::files::write_secret`].
pub fn write(path: &Path, kubeconfig: &str) -> Result<(), SecretFileError> {
    certgate_store::files::write_secret(path, kubeconfig.as_bytes())
}

fn base64_encode(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}
