//! The connection policy against slow and idle clients, over plain HTTP/1 and HTTP/2:
//! tiny timeouts, and the only time bound is a generous guard that fails a test whose
//! connection stays open (instead of hanging).

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::routing::get;
use certgate_serving::{ConnectionPolicy, serve_plain};
use hyper::body::{Bytes, Frame};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;
use tokio::sync::mpsc;

/// How long a test waits for the server to close a connection before failing: far above
/// the policy's timeouts, far below the defaults the old code would have used.
const GUARD: Duration = Duration::from_secs(5);

fn policy() -> ConnectionPolicy {
    ConnectionPolicy {
        header_read_timeout: Duration::from_millis(200),
        idle_timeout: Duration::from_millis(300),
        http1_max_headers: 10,
        max_header_bytes: 8 * 1024,
        ..ConnectionPolicy::DEFAULT
    }
}

/// A response body fed by the test, one chunk per message: a stand-in for a watch.
struct Fed(mpsc::Receiver<Bytes>);

impl hyper::body::Body for Fed {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        self.0.poll_recv(cx).map(|chunk| chunk.map(|chunk| Ok(Frame::data(chunk))))
    }
}

type Feed = Arc<Mutex<Option<mpsc::Receiver<Bytes>>>>;

async fn stream(State(feed): State<Feed>) -> Body {
    match feed.lock().unwrap().take() {
        Some(receiver) => Body::new(Fed(receiver)),
        None => Body::from("no feed"),
    }
}

/// Serves `/` ("ok") and `/stream` (chunks sent to the returned sender) on a free port.
async fn start() -> (std::net::SocketAddr, mpsc::Sender<Bytes>) {
    let (sender, receiver) = mpsc::channel(4);
    let feed: Feed = Arc::new(Mutex::new(Some(receiver)));
    let router = Router::new()
        .route("/", get(|| async { "ok" }))
        .route("/stream", get(stream))
        .with_state(feed);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        serve_plain(listener, router, &policy(), std::future::pending()).await.unwrap();
    });
    (address, sender)
}

/// Reads until the server closes the connection (EOF or reset); panics if it stays open
/// for [`GUARD`]. Returns what was read before.
async fn closed(stream: &mut TcpStream) -> Vec<u8> {
    let mut received = Vec::new();
    let mut buffer = [0u8; 4096];
    let outcome = tokio::time::timeout(GUARD, async {
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => return,
                Ok(n) => received.extend_from_slice(&buffer[..n]),
            }
        }
    })
    .await;
    assert!(outcome.is_ok(), "the connection is still open after {GUARD:?}");
    received
}

/// Reads one response's head and its `Content-Length` body.
async fn response(stream: &mut TcpStream) -> String {
    let mut received = Vec::new();
    let mut byte = [0u8; 1];
    tokio::time::timeout(GUARD, async {
        while !received.ends_with(b"\r\n\r\n") {
            assert_eq!(stream.read(&mut byte).await.unwrap(), 1, "closed mid-response");
            received.push(byte[0]);
        }
        let head = String::from_utf8_lossy(&received).to_ascii_lowercase();
        let length = head
            .lines()
            .find_map(|line| line.strip_prefix("content-length: "))
            .map_or(0, |n| n.trim().parse::<usize>().unwrap());
        let mut body = vec![0u8; length];
        stream.read_exact(&mut body).await.unwrap();
        received.extend_from_slice(&body);
    })
    .await
    .expect("no response");
    String::from_utf8(received).unwrap()
}

/// Sends `bytes` one at a time, ~50 ms apart, until they are all sent or the server closes.
fn trickle(mut writer: tokio::net::tcp::OwnedWriteHalf, bytes: Vec<u8>) {
    tokio::spawn(async move {
        for byte in bytes {
            if writer.write_all(&[byte]).await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
}

/// A request head that never ends: 2,000 bytes at 20 per second take 100 s.
fn endless_head() -> Vec<u8> {
    let mut head = b"GET / HTTP/1.1\r\nhost: x\r\nx-slow: ".to_vec();
    head.extend(std::iter::repeat_n(b'a', 2_000));
    head
}

#[tokio::test]
async fn a_connection_that_sends_nothing_is_closed() {
    let (address, _feed) = start().await;
    let mut stream = TcpStream::connect(address).await.unwrap();
    assert_eq!(closed(&mut stream).await, b"");
}

#[tokio::test]
async fn headers_trickled_past_the_header_timeout_are_cut() {
    let (address, _feed) = start().await;
    let (mut reader, writer) = TcpStream::connect(address).await.unwrap().into_split();
    trickle(writer, endless_head());
    let mut rest = Vec::new();
    let read = tokio::time::timeout(GUARD, reader.read_to_end(&mut rest)).await;
    assert!(read.is_ok(), "the trickling connection is still open after {GUARD:?}");
    assert_eq!(rest, b"", "no response is owed to an incomplete request");
}

#[tokio::test]
async fn a_request_is_served_and_the_idle_connection_then_closed() {
    let (address, _feed) = start().await;
    let mut stream = TcpStream::connect(address).await.unwrap();
    stream.write_all(b"GET / HTTP/1.1\r\nhost: x\r\n\r\n").await.unwrap();
    let answer = response(&mut stream).await;
    assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
    assert!(answer.ends_with("\r\n\r\nok"), "{answer}");
    // Keep-alive: a second request on the same connection, then silence.
    stream.write_all(b"GET / HTTP/1.1\r\nhost: x\r\n\r\n").await.unwrap();
    assert!(response(&mut stream).await.ends_with("\r\n\r\nok"));
    assert_eq!(closed(&mut stream).await, b"");
}

#[tokio::test]
async fn a_next_request_trickled_on_a_kept_alive_connection_is_cut() {
    let (address, _feed) = start().await;
    let mut stream = TcpStream::connect(address).await.unwrap();
    stream.write_all(b"GET / HTTP/1.1\r\nhost: x\r\n\r\n").await.unwrap();
    assert!(response(&mut stream).await.ends_with("ok"));
    let (mut reader, writer) = stream.into_split();
    trickle(writer, endless_head());
    let mut rest = Vec::new();
    let read = tokio::time::timeout(GUARD, reader.read_to_end(&mut rest)).await;
    assert!(read.is_ok(), "the trickling connection is still open after {GUARD:?}");
    assert_eq!(rest, b"");
}

#[tokio::test]
async fn a_long_response_outlives_every_timeout() {
    let (address, feed) = start().await;
    let mut stream = TcpStream::connect(address).await.unwrap();
    stream.write_all(b"GET /stream HTTP/1.1\r\nhost: x\r\n\r\n").await.unwrap();
    feed.send(Bytes::from_static(b"first-event")).await.unwrap();
    let mut seen = Vec::new();
    let mut buffer = [0u8; 1024];
    while !String::from_utf8_lossy(&seen).contains("first-event") {
        let n = tokio::time::timeout(GUARD, stream.read(&mut buffer)).await.unwrap().unwrap();
        assert_ne!(n, 0, "closed: {}", String::from_utf8_lossy(&seen));
        seen.extend_from_slice(&buffer[..n]);
    }
    // Well past both the header read (200 ms) and the idle (300 ms) timeouts.
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    feed.send(Bytes::from_static(b"late-event")).await.unwrap();
    let mut late = Vec::new();
    while !String::from_utf8_lossy(&late).contains("late-event") {
        let n = tokio::time::timeout(GUARD, stream.read(&mut buffer)).await.unwrap().unwrap();
        assert_ne!(n, 0, "the stream was cut: {}", String::from_utf8_lossy(&late));
        late.extend_from_slice(&buffer[..n]);
    }
    // The response ends; the connection is then idle and closed.
    drop(feed);
    closed(&mut stream).await;
}

#[tokio::test]
async fn too_many_or_too_large_headers_are_answered_431() {
    let (address, _feed) = start().await;
    let mut many = b"GET / HTTP/1.1\r\nhost: x\r\n".to_vec();
    for i in 0..20 {
        many.extend_from_slice(format!("x-h{i}: v\r\n").as_bytes());
    }
    many.extend_from_slice(b"\r\n");
    let mut large = b"GET / HTTP/1.1\r\nhost: x\r\nx-large: ".to_vec();
    large.extend(std::iter::repeat_n(b'a', 16 * 1024));
    large.extend_from_slice(b"\r\n\r\n");
    for request in [many, large] {
        let mut stream = TcpStream::connect(address).await.unwrap();
        // The server may answer and close before reading everything.
        let _ = stream.write_all(&request).await;
        let answer = String::from_utf8_lossy(&closed(&mut stream).await).into_owned();
        assert!(answer.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n"), "{answer}");
    }
}

#[tokio::test]
async fn an_idle_http2_connection_is_closed() {
    let (address, _feed) = start().await;
    let mut stream = TcpStream::connect(address).await.unwrap();
    // The preface and an empty SETTINGS frame, then nothing: no request ever comes.
    stream.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\x04\0\0\0\0\0").await.unwrap();
    closed(&mut stream).await;
}

#[tokio::test]
async fn http2_requests_are_served_and_the_idle_connection_then_closed() {
    use http_body_util::{BodyExt as _, Empty};
    use hyper_util::rt::{TokioExecutor, TokioIo};

    let (address, _feed) = start().await;
    let tcp = TcpStream::connect(address).await.unwrap();
    let (mut sender, connection) =
        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(tcp))
            .await
            .unwrap();
    let connection = tokio::spawn(connection);
    for _ in 0..2 {
        let request =
            http::Request::get(format!("http://{address}/")).body(Empty::<Bytes>::new()).unwrap();
        let response = sender.send_request(request).await.unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(response.into_body().collect().await.unwrap().to_bytes(), "ok");
    }
    // No more requests: the server ends the connection after the idle timeout.
    let ended = tokio::time::timeout(GUARD, connection).await;
    assert!(ended.is_ok(), "the idle HTTP/2 connection is still open after {GUARD:?}");
}
