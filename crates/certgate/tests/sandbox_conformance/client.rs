//! Raw HTTPS to one API server with curl (HTTP/1.1, so the status line and headers are read
//! as the server wrote them): one request, or a watch read until it has N events.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

/// At most this many watch events are read from one stream.
pub const MAX_WATCH_EVENTS: usize = 50;
/// curl's limit for one request (a watch step also bounds itself with `timeoutSeconds`).
const MAX_SECONDS: &str = "30";

/// Who sends a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum User {
    /// The kubeconfig's admin (system:masters).
    #[default]
    Admin,
    /// The static user `bob` (`bob-token`, group `approvers`).
    Bob,
    /// No credentials at all.
    Anonymous,
    /// A bearer token no server knows.
    Stranger,
}

/// How to reach one API server: from the admin kubeconfig the harness wrote.
pub struct Endpoint {
    pub server: String,
    pub admin_token: String,
    pub ca: PathBuf,
}

impl Endpoint {
    /// Reads the admin kubeconfig the harness wrote (see [`crate::dev_http::Endpoint`]); a
    /// copy of the CA goes to `dir/ca.pem`.
    pub fn from_kubeconfig(kubeconfig: &Path, dir: &Path) -> Endpoint {
        let admin = crate::dev_http::Endpoint::from_kubeconfig(kubeconfig, dir);
        Endpoint { server: admin.server, admin_token: admin.token, ca: admin.ca }
    }

    fn command(
        &self,
        user: User,
        method: &str,
        path: &str,
        headers: &[(String, String)],
    ) -> Command {
        let mut command = Command::new("curl");
        command
            .args(["--silent", "--show-error", "--http1.1", "--include", "--max-time", MAX_SECONDS])
            .arg("--cacert")
            .arg(&self.ca)
            .args(["-X", method, "-H", "Accept: application/json"]);
        let token = match user {
            User::Admin => Some(self.admin_token.as_str()),
            User::Bob => Some("bob-token"),
            User::Stranger => Some("no-such-token"),
            User::Anonymous => None,
        };
        if let Some(token) = token {
            command.args(["-H", &format!("Authorization: Bearer {token}")]);
        }
        for (name, value) in headers {
            command.args(["-H", &format!("{name}: {value}")]);
        }
        command.arg(format!("{}{path}", self.server));
        command
    }

    /// One request; the response as the server sent it.
    pub fn request(
        &self,
        user: User,
        method: &str,
        path: &str,
        headers: &[(String, String)],
        body: Option<&str>,
    ) -> Response {
        let mut command = self.command(user, method, path, headers);
        if body.is_some() {
            command.args(["--data-binary", "@-"]).stdin(Stdio::piped());
        }
        command.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = command.spawn().expect("curl is part of this machine image");
        if let Some(body) = body {
            child.stdin.take().unwrap().write_all(body.as_bytes()).unwrap();
        }
        let output = child.wait_with_output().unwrap();
        assert!(
            output.status.success(),
            "curl {method} {path} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        let mut response = Response::from_head(head);
        response.body =
            serde_json::from_str(body).unwrap_or_else(|_| Value::String(body.to_owned()));
        response
    }

    /// A watch: the response head and up to `events` events (fewer when the server ends
    /// the stream first, e.g. at its `timeoutSeconds`).
    pub fn watch(
        &self,
        user: User,
        path: &str,
        headers: &[(String, String)],
        events: usize,
    ) -> Response {
        let mut command = self.command(user, "GET", path, headers);
        command.arg("--no-buffer").stdout(Stdio::piped()).stderr(Stdio::null());
        let mut child = command.spawn().expect("curl is part of this machine image");
        let mut reader = BufReader::new(child.stdout.take().unwrap());
        let mut head = String::new();
        let mut line = String::new();
        while reader.read_line(&mut line).unwrap_or(0) > 0 && line != "\r\n" {
            head.push_str(&line);
            line.clear();
        }
        let mut response = Response::from_head(head.trim_end());
        if response.status != 200 {
            // An error answered before the watch began: one (pretty-printed) Status.
            let mut text = String::new();
            let _ = reader.read_to_string(&mut text);
            let _ = child.wait();
            response.body = serde_json::from_str(&text).unwrap_or(Value::String(text));
            return response;
        }
        let mut received = Vec::new();
        let mut rest = String::new();
        for line in reader.by_ref().lines() {
            let Ok(line) = line else { break };
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<Value>(&line) {
                Ok(event) => received.push(event),
                Err(_) => rest.push_str(&line),
            }
            if received.len() >= events.min(MAX_WATCH_EVENTS) {
                break;
            }
        }
        let _ = child.kill();
        let _ = child.wait();
        if !rest.is_empty() {
            // Kept, so that a line that is no event makes the step differ visibly.
            received.push(Value::String(rest));
        }
        response.body = Value::Array(received);
        response
    }
}

/// What a server answered: the parts that are compared.
#[derive(Debug, Default)]
pub struct Response {
    pub status: u16,
    pub content_type: String,
    /// `Warning` headers, in order.
    pub warnings: Vec<String>,
    pub body: Value,
}

impl Response {
    fn from_head(head: &str) -> Response {
        let mut lines = head.lines();
        let status = lines
            .next()
            .and_then(|line| line.split_whitespace().nth(1))
            .and_then(|code| code.parse().ok())
            .unwrap_or(0);
        let mut response = Response { status, ..Response::default() };
        for line in lines {
            let Some((name, value)) = line.split_once(':') else { continue };
            let value = value.trim().to_owned();
            match name.trim().to_ascii_lowercase().as_str() {
                "content-type" => response.content_type = value,
                "warning" => response.warnings.push(value),
                _ => {}
            }
        }
        response
    }
}
