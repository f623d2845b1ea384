//! An upstream body that may not stay silent longer than `--idle-timeout`.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use futures_util::Stream;
use tokio::time::{Instant, Sleep};

use super::forward::BodyStream;

/// Why an upstream body stopped early.
#[derive(Debug)]
pub enum BodyError {
    /// The connection failed or was cut.
    Failed(String),
    /// Nothing arrived for the idle timeout.
    Idle(Duration),
}

impl std::fmt::Display for BodyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BodyError::Failed(cause) => write!(f, "upstream body cut off: {cause}"),
            BodyError::Idle(idle) => write!(
                f,
                "upstream sent nothing for {} s (--idle-timeout)",
                idle.as_secs_f64()
            ),
        }
    }
}

/// The body's pieces; an error once it fails or stays silent too long,
/// then nothing.
///
/// One timer for the whole body, moved only when it fires: each piece
/// just notes the time it came, so the silence check costs a clock read
/// per piece, not a timer-wheel update.
pub struct IdleBody {
    body: BodyStream,
    idle: Duration,
    timer: Pin<Box<Sleep>>,
    last: Instant,
    done: bool,
}

impl IdleBody {
    pub fn new(body: BodyStream, idle: Duration) -> IdleBody {
        let now = Instant::now();
        IdleBody {
            body,
            idle,
            timer: Box::pin(tokio::time::sleep_until(now + idle)),
            last: now,
            done: false,
        }
    }
}

impl Stream for IdleBody {
    type Item = Result<Bytes, BodyError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if this.done {
            return Poll::Ready(None);
        }
        match this.body.as_mut().poll_next(cx) {
            Poll::Ready(Some(Ok(piece))) => {
                this.last = Instant::now();
                return Poll::Ready(Some(Ok(piece)));
            }
            Poll::Ready(Some(Err(e))) => {
                this.done = true;
                return Poll::Ready(Some(Err(BodyError::Failed(e))));
            }
            Poll::Ready(None) => {
                this.done = true;
                return Poll::Ready(None);
            }
            Poll::Pending => {}
        }
        loop {
            if this.timer.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
            let deadline = this.last + this.idle;
            if Instant::now() >= deadline {
                this.done = true;
                return Poll::Ready(Some(Err(BodyError::Idle(this.idle))));
            }
            // Pieces came since the timer was set: wait the rest.
            this.timer.as_mut().reset(deadline);
        }
    }
}
