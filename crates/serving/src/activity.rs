//! What one connection is doing: waiting for its first request, serving requests, or idle
//! between them. The I/O guard asks it when the connection is overdue; the request tracker
//! tells it when requests start and end.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::Waker;
use std::time::Duration;

use tokio::time::Instant;

use crate::policy::ConnectionPolicy;

/// The HTTP/2 connection preface: a connection starting with it speaks HTTP/2.
const HTTP2_PREFACE: &[u8] = b"PRI * HTTP/2.0";

/// Why a connection was closed, for the log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Overdue {
    /// The first request's headers did not arrive in time.
    FirstRequest,
    /// No request for the idle timeout after the last response.
    Idle,
    /// A later HTTP/1 request's headers started but did not complete in time.
    Headers,
}

impl Overdue {
    pub(crate) fn message(self) -> &'static str {
        match self {
            Overdue::FirstRequest => {
                "no complete request headers within the header read timeout of a new connection"
            }
            Overdue::Idle => "no request within the idle timeout after the last response",
            Overdue::Headers => "request headers not complete within the header read timeout",
        }
    }
}

#[derive(Debug)]
struct State {
    /// Requests whose response is not finished (a watch counts until it ends).
    in_flight: usize,
    /// Whether a request has been received: before it, the header read timeout runs from
    /// `since`; after it, the idle timeout.
    served: bool,
    /// When the connection was ready, or when its last request finished.
    since: Instant,
    /// When the first byte of the next HTTP/1 request arrived while idle.
    next_head: Option<Instant>,
    /// `None` until the first bytes tell.
    http2: Option<bool>,
    /// The task reading the connection, woken when the deadline moves.
    reader: Option<Waker>,
}

/// Shared between a connection's I/O guard and its request tracker.
#[derive(Debug)]
pub(crate) struct Activity {
    policy: ConnectionPolicy,
    state: Mutex<State>,
}

impl Activity {
    pub(crate) fn new(policy: ConnectionPolicy) -> Arc<Activity> {
        Arc::new(Activity {
            policy,
            state: Mutex::new(State {
                in_flight: 0,
                served: false,
                since: Instant::now(),
                next_head: None,
                http2: None,
                reader: None,
            }),
        })
    }

    // A panic elsewhere while holding the lock leaves plain counters behind: keep going.
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Bytes arrived from the client.
    pub(crate) fn received(&self, bytes: &[u8]) {
        let mut state = self.state();
        if state.http2.is_none() {
            let n = bytes.len().min(HTTP2_PREFACE.len());
            state.http2 = Some(bytes[..n] == HTTP2_PREFACE[..n]);
        }
        // HTTP/2 sends control frames (pings, window updates) while idle; only an HTTP/1
        // byte after a response is the start of a next request.
        if state.served
            && state.in_flight == 0
            && state.next_head.is_none()
            && state.http2 == Some(false)
        {
            state.next_head = Some(Instant::now());
        }
    }

    /// A request's headers are complete and it is being served.
    pub(crate) fn request_started(&self) {
        let mut state = self.state();
        state.in_flight += 1;
        state.served = true;
        state.next_head = None;
    }

    /// A request's response is finished (or abandoned).
    pub(crate) fn request_ended(&self) {
        let reader = {
            let mut state = self.state();
            state.in_flight = state.in_flight.saturating_sub(1);
            if state.in_flight > 0 {
                return;
            }
            state.since = Instant::now();
            state.reader.take()
        };
        // The reader may be parked with no deadline: let it arm the idle one (woken outside
        // the lock, which its poll takes).
        if let Some(reader) = reader {
            reader.wake();
        }
    }

    /// When the connection is overdue, if nothing happens before then; `None` while a
    /// request is in flight. Remembers `reader` to wake when that changes.
    pub(crate) fn deadline(&self, reader: &Waker) -> Option<(Instant, Overdue)> {
        let mut state = self.state();
        match &mut state.reader {
            Some(known) if known.will_wake(reader) => {}
            slot => *slot = Some(reader.clone()),
        }
        if state.in_flight > 0 {
            return None;
        }
        if !state.served {
            return Some((
                after(state.since, self.policy.header_read_timeout),
                Overdue::FirstRequest,
            ));
        }
        let idle = (after(state.since, self.policy.idle_timeout), Overdue::Idle);
        match state.next_head {
            Some(head) => {
                let headers = (after(head, self.policy.header_read_timeout), Overdue::Headers);
                Some(if headers.0 < idle.0 { headers } else { idle })
            }
            None => Some(idle),
        }
    }
}

/// `start + timeout`; a timeout too large for the clock means "in a year" (practically
/// never), not a panic.
fn after(start: Instant, timeout: Duration) -> Instant {
    const YEAR: Duration = Duration::from_secs(365 * 86_400);
    start.checked_add(timeout).or_else(|| start.checked_add(YEAR)).unwrap_or(start)
}
