//! Where a connection's phase is seen (see `shed.rs`): its socket, for a
//! read that finds no whole head and for the flush that hands a whole
//! answer to the system, and its answer's body, for the answer's end.

use std::io::IoSlice;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::Arc;
use std::task::{ready, Context, Poll};

use axum::body::Body;
use bytes::Bytes;
use http_body::{Frame, SizeHint};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

use super::shed::Slot;

/// A connection's slot and what it has done so far. Its flags are only
/// touched from the connection's own task.
pub struct Watch {
    pub slot: Slot,
    /// A request head is being served, from the service's call to the
    /// flush after the answer's end.
    serving: AtomicBool,
    /// Bytes were read while no request was served.
    got_bytes: AtomicBool,
    /// What the slot was last told by [`Slot::read_dry`]: [`NOT_TOLD`],
    /// [`TOLD_SILENT`] or [`TOLD_PART_HEAD`]; each is told once.
    told: AtomicU8,
    /// The last answer's body ended; it is out once the next flush is.
    answered: AtomicBool,
}

impl Watch {
    pub fn new(slot: Slot) -> Arc<Watch> {
        Arc::new(Watch {
            slot,
            serving: AtomicBool::new(false),
            got_bytes: AtomicBool::new(false),
            told: AtomicU8::new(NOT_TOLD),
            answered: AtomicBool::new(false),
        })
    }

    /// A whole request head came: `false` if the connection was shed.
    pub fn serving(&self) -> bool {
        self.serving.store(true, Ordering::Relaxed);
        self.slot.serving()
    }
}

const NOT_TOLD: u8 = 0;
const TOLD_SILENT: u8 = 1;
const TOLD_PART_HEAD: u8 = 2;

/// The client's socket, as hyper reads and writes it.
pub struct Watched {
    stream: TcpStream,
    watch: Arc<Watch>,
}

impl Watched {
    pub fn new(stream: TcpStream, watch: Arc<Watch>) -> Watched {
        Watched { stream, watch }
    }
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let read = Pin::new(&mut self.stream).poll_read(cx, buf);
        let watch = &self.watch;
        if !watch.serving.load(Ordering::Relaxed) {
            match read {
                Poll::Ready(Ok(())) if buf.filled().len() > before => {
                    watch.got_bytes.store(true, Ordering::Relaxed);
                }
                // hyper reads on only while it has no whole head: nothing
                // more to read is a head begun and not finished, or none
                // begun. A head that comes whole is served before.
                Poll::Pending => {
                    let bytes = watch.got_bytes.load(Ordering::Relaxed);
                    let tell = if bytes { TOLD_PART_HEAD } else { TOLD_SILENT };
                    if watch.told.fetch_max(tell, Ordering::Relaxed) < tell {
                        watch.slot.read_dry(bytes);
                    }
                }
                _ => {}
            }
        }
        read
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    /// hyper flushes the socket once its own buffer is written out: after
    /// an answer's end, that is the whole answer out, and the connection
    /// waits for its next request.
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let flushed = ready!(Pin::new(&mut self.stream).poll_flush(cx));
        let watch = &self.watch;
        if flushed.is_ok() && watch.answered.swap(false, Ordering::Relaxed) {
            watch.serving.store(false, Ordering::Relaxed);
            watch.slot.answered();
        }
        Poll::Ready(flushed)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// An answer's body; hyper drops it at its end (or when the connection
/// goes).
pub struct Answer {
    body: Body,
    watch: Arc<Watch>,
}

impl Answer {
    pub fn new(body: Body, watch: Arc<Watch>) -> Answer {
        Answer { body, watch }
    }
}

impl Drop for Answer {
    fn drop(&mut self) {
        self.watch.answered.store(true, Ordering::Relaxed);
    }
}

impl http_body::Body for Answer {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
