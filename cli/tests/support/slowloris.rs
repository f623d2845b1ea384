//! Slow-header (slowloris) clients against the proxy: each keeps one
//! connection open, writing a request head one byte every `pace` and never
//! finishing it; when the proxy closes it, it connects again after `pace`.
//! They run on a thread and runtime of their own, so that the clients
//! under test do not queue behind them.

#![allow(dead_code)] // each test binary uses a different part

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::oneshot;

/// The head they write, then `a` forever.
const HEAD: &[u8] = b"POST /v1/chat/completions HTTP/1.1\r\nHost: proxy\r\nX-Slow: ";

#[derive(Default)]
pub struct Counts {
    /// Connections opened.
    pub connected: AtomicU64,
    /// Connections the proxy closed (or reset).
    pub closed: AtomicU64,
    /// Connections the proxy answered: it never should.
    pub answered: AtomicU64,
}

pub struct Slowloris {
    pub counts: Arc<Counts>,
    stop: Option<oneshot::Sender<()>>,
}

impl Slowloris {
    /// `clients` slow clients against `addr` (`HOST:PORT`).
    pub fn start(addr: &str, clients: usize, pace: Duration) -> Slowloris {
        let counts = Arc::new(Counts::default());
        let (stop, stopped) = oneshot::channel();
        std::thread::spawn({
            let (addr, counts) = (addr.to_owned(), counts.clone());
            move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap();
                runtime.block_on(async move {
                    for _ in 0..clients {
                        tokio::spawn(client(addr.clone(), pace, counts.clone()));
                    }
                    let _ = stopped.await;
                });
                // Dropping the runtime ends every client and closes its socket.
            }
        });
        Slowloris {
            counts,
            stop: Some(stop),
        }
    }

    pub fn connected(&self) -> u64 {
        self.counts.connected.load(Ordering::Relaxed)
    }

    pub fn closed(&self) -> u64 {
        self.counts.closed.load(Ordering::Relaxed)
    }

    pub fn answered(&self) -> u64 {
        self.counts.answered.load(Ordering::Relaxed)
    }

    /// Ends every client and closes their connections (on their thread,
    /// a moment later).
    pub fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

impl Drop for Slowloris {
    fn drop(&mut self) {
        self.stop();
    }
}

async fn client(addr: String, pace: Duration, counts: Arc<Counts>) {
    loop {
        if let Ok(stream) = TcpStream::connect(&addr).await {
            counts.connected.fetch_add(1, Ordering::Relaxed);
            let answered = dribble(stream, pace).await;
            let count = if answered {
                &counts.answered
            } else {
                &counts.closed
            };
            count.fetch_add(1, Ordering::Relaxed);
        }
        tokio::time::sleep(pace).await;
    }
}

/// Writes the head a byte at a time until the proxy closes the
/// connection; whether it sent anything first.
async fn dribble(stream: TcpStream, pace: Duration) -> bool {
    let (mut read, mut write) = stream.into_split();
    let mut bytes = HEAD.iter().chain(std::iter::repeat(&b'a'));
    let mut answer = [0u8; 64];
    let mut tick = tokio::time::interval(pace);
    loop {
        tokio::select! {
            read = read.read(&mut answer) => return matches!(read, Ok(n) if n > 0),
            _ = tick.tick() => {
                let byte = bytes.next().copied().unwrap_or(b'a');
                if write.write_all(&[byte]).await.is_err() {
                    return false;
                }
            }
        }
    }
}
