//! Idle keep-alive connections to the upstream, for the next request.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use tokio::net::TcpStream;

/// The most idle connections kept (each is an open file).
pub const MAX_IDLE: usize = 64;
/// How long a connection may stay idle here: under the 5 s keep-alive
/// timeout of uvicorn (vLLM, SGLang), so that the upstream rarely closes
/// one just as it is reused.
const MAX_IDLE_TIME: Duration = Duration::from_secs(4);

/// Connections that carried a whole response and may carry another.
#[derive(Default)]
pub struct Pool {
    idle: Mutex<Vec<(TcpStream, Instant)>>,
}

impl Pool {
    /// The most recently used idle connection that is still open, if any.
    pub fn take(&self) -> Option<TcpStream> {
        loop {
            let (stream, since) = self.idle.lock().ok()?.pop()?;
            if since.elapsed() < MAX_IDLE_TIME && is_open(&stream) {
                return Some(stream);
            }
        }
    }

    /// Keeps `stream` for a later request (or closes it, past `MAX_IDLE`).
    pub fn put(&self, stream: TcpStream) {
        let Ok(mut idle) = self.idle.lock() else {
            return;
        };
        let now = Instant::now();
        idle.retain(|(_, since)| now.duration_since(*since) < MAX_IDLE_TIME);
        if idle.len() < MAX_IDLE {
            idle.push((stream, now));
        }
    }
}

/// The upstream has not closed the connection (nor sent anything out of
/// turn, which would be read as the next response's start).
fn is_open(stream: &TcpStream) -> bool {
    let mut byte = [0; 1];
    matches!(
        stream.try_read(&mut byte),
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock
    )
}
