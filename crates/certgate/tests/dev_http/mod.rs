//! Plain HTTP access to a running `certgate dev` with curl, for tests that need what kubectl
//! does not give: the exact response of one write, or a watch that is never read.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use base64::Engine as _;
use serde_json::Value;

/// How to reach one running sandbox.
pub struct Endpoint {
    pub server: String,
    pub token: String,
    pub ca: PathBuf,
}

impl Endpoint {
    /// From an admin kubeconfig: `server:`, `token:` and the CA, as
    /// `certificate-authority-data:` (`certgate dev` writes it so) or as a
    /// `certificate-authority:` path (the real-cluster harness); the CA goes to `dir/ca.pem`.
    pub fn from_kubeconfig(kubeconfig: &Path, dir: &Path) -> Endpoint {
        let text = std::fs::read_to_string(kubeconfig).unwrap();
        let field = |name: &str| {
            text.lines()
                .find_map(|line| line.trim().strip_prefix(name))
                .map(|v| v.trim().to_owned())
        };
        let required =
            |name: &str| field(name).unwrap_or_else(|| panic!("no {name} in the kubeconfig"));
        let ca = dir.join("ca.pem");
        match field("certificate-authority-data:") {
            Some(data) => {
                let pem = base64::engine::general_purpose::STANDARD.decode(data).unwrap();
                std::fs::write(&ca, pem).unwrap();
            }
            None => {
                std::fs::copy(required("certificate-authority:"), &ca).unwrap();
            }
        }
        Endpoint { server: required("server:"), token: required("token:"), ca }
    }

    fn command(&self, method: &str, path: &str) -> Command {
        let mut command = Command::new("curl");
        command
            .args(["--silent", "--cacert"])
            .arg(&self.ca)
            .args(["-H", &format!("Authorization: Bearer {}", self.token)])
            .args(["-H", "Content-Type: application/json", "-X", method])
            .arg(format!("{}{path}", self.server));
        command
    }

    /// One request; `None` when no complete JSON response arrived (the server died).
    pub fn request(&self, method: &str, path: &str, body: Option<&str>) -> Option<Value> {
        let mut command = self.command(method, path);
        command.args(["--max-time", "60"]);
        if body.is_some() {
            command.args(["--data-binary", "@-"]);
            command.stdin(Stdio::piped());
        }
        command.stdout(Stdio::piped()).stderr(Stdio::null());
        let mut child = command.spawn().expect("curl is part of this machine image");
        if let Some(body) = body {
            use std::io::Write as _;
            let mut stdin = child.stdin.take().unwrap();
            let _ = stdin.write_all(body.as_bytes());
        }
        let output = child.wait_with_output().unwrap();
        if !output.status.success() {
            return None;
        }
        serde_json::from_slice(&output.stdout).ok()
    }

    /// A watch whose output nobody reads: curl stops reading the connection once the pipe
    /// to this process is full, as a stuck client would.
    pub fn unread_watch(&self, path: &str) -> Child {
        let mut command = self.command("GET", path);
        command.arg("--no-buffer").stdout(Stdio::piped()).stderr(Stdio::null());
        command.spawn().expect("curl is part of this machine image")
    }
}
