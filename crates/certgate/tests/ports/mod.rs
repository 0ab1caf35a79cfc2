//! Loopback ports for the processes the tests start (etcd, kube-apiserver, webhooks, Envoy,
//! `certgate edge`), picked in one place.
//!
//! A port is free only when asked; the process binds it later (Envoy only once configured,
//! seconds later). A port from Linux's ephemeral range (32768–60999) can meanwhile be taken by
//! any outgoing connection of the machine (a kubectl, an API server's etcd client), which made
//! etcd fail with `bind: address already in use`. Below that range only another test picking
//! the same port can collide: each port handed out stays reserved by a UDP socket on the same
//! number for the life of the test process, so it is never handed out twice, even by the
//! second copy of this module that a test binary gets when two harness modules include it.
#![allow(dead_code)]

use std::net::{TcpListener, UdpSocket};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

const LOW: u64 = 20000;
const SPAN: u64 = 32768 - LOW;

/// A port free on 127.0.0.1 right now, in 20000–32767, not handed out before in this process.
pub fn free_port() -> u16 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    // The kernel, not this module's statics, records what was handed out: a TCP bind of the
    // port by the process under test is not hindered by a UDP socket on the same number.
    static RESERVED: Mutex<Vec<UdpSocket>> = Mutex::new(Vec::new());
    let start = u64::from(std::process::id()) * 7919 % SPAN;
    for _ in 0..SPAN {
        // 13 is prime to the span, so the walk visits every port once before repeating.
        let offset = (start + NEXT.fetch_add(1, Ordering::Relaxed) * 13) % SPAN;
        let port = (LOW + offset) as u16;
        if TcpListener::bind(("127.0.0.1", port)).is_err() {
            continue;
        }
        if let Ok(reservation) = UdpSocket::bind(("127.0.0.1", port)) {
            RESERVED.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push(reservation);
            return port;
        }
    }
    panic!("no free port on 127.0.0.1 in {LOW}-{}", LOW + SPAN - 1)
}

/// `N` distinct free ports ([`free_port`] never repeats within a process).
pub fn free_ports<const N: usize>() -> [u16; N] {
    std::array::from_fn(|_| free_port())
}
