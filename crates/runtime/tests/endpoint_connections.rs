//! The controller's plain-HTTP /metrics, /healthz and /readyz server against slow and idle
//! clients (issue 16): tiny timeouts, and a generous guard that fails a test whose
//! connection stays open instead of hanging.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use certgate_runtime::ControllerMetrics;
use certgate_runtime::endpoint::{controller_readiness, serve_health};
use certgate_serving::ConnectionPolicy;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

/// How long a test waits for the server to close a connection: far above the policy's
/// timeouts; before them, an idle connection stayed open for good.
const GUARD: Duration = Duration::from_secs(5);

async fn endpoints() -> SocketAddr {
    let policy = ConnectionPolicy {
        header_read_timeout: Duration::from_millis(200),
        idle_timeout: Duration::from_millis(300),
        ..ConnectionPolicy::DEFAULT
    };
    let readiness = controller_readiness();
    readiness.set(true);
    let (address, serving) = serve_health(
        "127.0.0.1:0".parse().unwrap(),
        readiness,
        Arc::new(ControllerMetrics::default()),
        policy,
        std::future::pending(),
    )
    .await
    .unwrap();
    tokio::spawn(serving);
    address
}

/// Reads until the server closes (EOF or reset) and returns what came before; panics if
/// the connection stays open for [`GUARD`].
async fn closed(stream: &mut TcpStream) -> String {
    let mut received = Vec::new();
    let mut buffer = [0u8; 4096];
    let outcome = tokio::time::timeout(GUARD, async {
        while let Ok(n) = stream.read(&mut buffer).await {
            if n == 0 {
                return;
            }
            received.extend_from_slice(&buffer[..n]);
        }
    })
    .await;
    assert!(outcome.is_ok(), "the connection is still open after {GUARD:?}");
    String::from_utf8_lossy(&received).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_that_sends_nothing_is_closed() {
    let address = endpoints().await;
    let mut stream = TcpStream::connect(address).await.unwrap();
    assert_eq!(closed(&mut stream).await, "");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn headers_trickled_past_the_header_timeout_are_cut() {
    let address = endpoints().await;
    let (mut reader, mut writer) = TcpStream::connect(address).await.unwrap().into_split();
    // 2,000 header bytes at one per 50 ms would take 100 s.
    let mut head = b"GET /metrics HTTP/1.1\r\nhost: x\r\nx-slow: ".to_vec();
    head.extend(std::iter::repeat_n(b'a', 2_000));
    tokio::spawn(async move {
        for byte in head {
            if writer.write_all(&[byte]).await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
    let mut rest = Vec::new();
    let read = tokio::time::timeout(GUARD, reader.read_to_end(&mut rest)).await;
    assert!(read.is_ok(), "the trickling connection is still open after {GUARD:?}");
    assert_eq!(rest, b"", "no response is owed to an incomplete request");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scrapes_are_answered_and_the_idle_connection_then_closed() {
    let address = endpoints().await;
    let mut stream = TcpStream::connect(address).await.unwrap();
    stream.write_all(b"GET /readyz HTTP/1.1\r\nhost: x\r\n\r\n").await.unwrap();
    // Kept alive until the idle timeout, then closed: the whole answer comes before.
    let answer = closed(&mut stream).await;
    assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
    assert!(answer.ends_with("\r\n\r\nok"), "{answer}");
}
