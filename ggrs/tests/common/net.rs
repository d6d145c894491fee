//! A GGRS socket over UDP on the loopback interface that loses and delays
//! packets on purpose, with a seeded generator, so that a test on one machine
//! sees what a real network does: lost inputs, late inputs, reordering.

use super::SplitMix;
use schemecs_ggrs::ggrs::{Message, NonBlockingSocket};
use std::io::ErrorKind;
use std::net::{SocketAddr, UdpSocket};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// What a socket did to the packets it was given.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    pub sent: u64,
    pub dropped: u64,
    pub delayed: u64,
    pub received: u64,
}

/// A socket's [`Traffic`], readable after a session took the socket.
#[derive(Clone, Debug, Default)]
pub struct TrafficCounts(Arc<Mutex<Traffic>>);

impl TrafficCounts {
    pub fn get(&self) -> Traffic {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn update(&self, update: impl FnOnce(&mut Traffic)) {
        update(&mut self.0.lock().unwrap_or_else(PoisonError::into_inner));
    }
}

/// A non-blocking UDP socket bound to `127.0.0.1`. Of the packets sent,
/// `loss_per_mille` in a thousand are dropped, and half of the others are
/// held back for up to `max_delay` (so later ones overtake them).
pub struct LossySocket {
    socket: UdpSocket,
    rng: SplitMix,
    loss_per_mille: u32,
    max_delay: Duration,
    /// Packets held back: when each is due, where it goes, its bytes.
    held: Vec<(Instant, SocketAddr, Vec<u8>)>,
    buffer: Vec<u8>,
    traffic: TrafficCounts,
}

impl LossySocket {
    /// A socket on `127.0.0.1:port` (0: a port the system picks).
    pub fn bind(port: u16, seed: u64, loss_per_mille: u32, max_delay: Duration) -> Self {
        let socket = UdpSocket::bind(("127.0.0.1", port)).expect("bind a loopback UDP socket");
        socket.set_nonblocking(true).expect("a non-blocking socket");
        LossySocket {
            socket,
            rng: SplitMix(seed),
            loss_per_mille,
            max_delay,
            held: Vec::new(),
            buffer: vec![0; 4096],
            traffic: TrafficCounts::default(),
        }
    }

    /// A socket that neither drops nor delays.
    pub fn reliable(port: u16) -> Self {
        Self::bind(port, 0, 0, Duration::ZERO)
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.socket
            .local_addr()
            .expect("a bound socket has an address")
    }

    /// Sends the held packets that are due.
    fn release(&mut self) {
        let now = Instant::now();
        let socket = &self.socket;
        self.held.retain(|(due, to, bytes)| {
            if *due > now {
                return true;
            }
            // UDP: a packet the system cannot take now is lost, as on a
            // network.
            let _ = socket.send_to(bytes, to);
            false
        });
    }

    /// The socket's counts, shared: a session takes the socket.
    pub fn traffic(&self) -> TrafficCounts {
        self.traffic.clone()
    }

    fn count(&self, update: impl FnOnce(&mut Traffic)) {
        self.traffic.update(update);
    }
}

impl NonBlockingSocket<SocketAddr> for LossySocket {
    fn send_to(&mut self, msg: &Message, addr: &SocketAddr) {
        self.release();
        self.count(|traffic| traffic.sent += 1);
        if self.rng.below(1000) < self.loss_per_mille {
            self.count(|traffic| traffic.dropped += 1);
            return;
        }
        let bytes = bincode::serialize(msg).expect("a GGRS message encodes");
        if !self.max_delay.is_zero() && self.rng.below(2) == 0 {
            let delay = self
                .max_delay
                .mul_f64(f64::from(self.rng.below(1000)) / 1000.0);
            self.held.push((Instant::now() + delay, *addr, bytes));
            self.count(|traffic| traffic.delayed += 1);
        } else {
            let _ = self.socket.send_to(&bytes, addr);
        }
    }

    fn receive_all_messages(&mut self) -> Vec<(SocketAddr, Message)> {
        self.release();
        let mut messages = Vec::new();
        loop {
            match self.socket.recv_from(&mut self.buffer) {
                Ok((len, from)) => {
                    if let Ok(msg) = bincode::deserialize(&self.buffer[..len]) {
                        self.count(|traffic| traffic.received += 1);
                        messages.push((from, msg));
                    }
                }
                Err(error) if error.kind() == ErrorKind::Interrupted => continue,
                // WouldBlock: nothing more for now. Anything else (a port
                // that refused an earlier packet, as Windows reports):
                // try again at the next poll.
                Err(_) => break,
            }
        }
        messages
    }
}
