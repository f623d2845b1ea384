//! Responses sent back as the upstream sent them: status, headers (less
//! hop-by-hop ones) and body bytes, streamed as they arrive.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use futures_util::Stream;

use super::forward::{end_to_end, UpstreamResponse};
use super::idle::{BodyError, IdleBody};
use super::log::{outcome, RequestLog};
use super::metrics;

/// The upstream's response, unchanged; the log line is written when its
/// body ends or the client goes away. A body that fails or goes silent
/// past `idle` is cut (the client sees the connection end early).
pub fn respond(upstream: UpstreamResponse, idle: Duration, mut log: RequestLog) -> Response {
    let status = upstream.status;
    log.status(status.as_u16());
    if !status.is_success() {
        log.outcome(outcome::UPSTREAM_STATUS);
    }
    let headers = end_to_end(&upstream.headers);
    let body = LoggedBody {
        left: upstream.content_length(),
        body: IdleBody::new(upstream.body, idle),
        log,
        ended: false,
    };
    let mut response = Response::new(Body::from_stream(body));
    *response.status_mut() = status;
    *response.headers_mut() = headers;
    response
}

/// The upstream's body, and the log line, which learns how it ended.
struct LoggedBody {
    /// Bytes still to come, when the upstream said its length: the server
    /// stops reading at that length, without waiting for the end.
    left: Option<u64>,
    body: IdleBody,
    log: RequestLog,
    ended: bool,
}

impl Stream for LoggedBody {
    type Item = Result<Bytes, std::io::Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        match Pin::new(&mut this.body).poll_next(cx) {
            Poll::Ready(None) => {
                this.ended = true;
                Poll::Ready(None)
            }
            Poll::Ready(Some(Err(e))) => {
                match e {
                    BodyError::Idle(_) => metrics::upstream_timeout("idle"),
                    BodyError::Failed(_) => metrics::upstream_error("stream_error"),
                }
                this.log.outcome(outcome::UPSTREAM_STREAM_ERROR);
                this.log.note(e.to_string());
                this.ended = true;
                Poll::Ready(Some(Err(std::io::Error::other(e.to_string()))))
            }
            Poll::Ready(Some(Ok(piece))) => {
                if let Some(left) = &mut this.left {
                    *left = left.saturating_sub(piece.len() as u64);
                    this.ended |= *left == 0;
                }
                Poll::Ready(Some(Ok(piece)))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

impl Drop for LoggedBody {
    fn drop(&mut self) {
        if !self.ended {
            self.log.client_closed();
        }
    }
}
