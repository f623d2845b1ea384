//! Responses sent back as the upstream sent them: status, headers (less
//! hop-by-hop ones) and body bytes, streamed as they arrive.

use axum::body::Body;
use axum::response::Response;
use futures_util::StreamExt;

use super::forward::{end_to_end, error_chain};
use super::log::RequestLog;

/// The upstream's response, unchanged; the log line is written when its
/// body ends or the client goes away.
pub fn respond(upstream: reqwest::Response, mut log: RequestLog) -> Response {
    let status = upstream.status();
    log.status(status.as_u16());
    let headers = end_to_end(upstream.headers());
    let body = upstream.bytes_stream().map(move |piece| {
        if let Err(e) = &piece {
            log.note(format!("upstream body failed: {}", error_chain(e)));
        }
        piece
    });
    let mut response = Response::new(Body::from_stream(body));
    *response.status_mut() = status;
    *response.headers_mut() = headers;
    response
}
