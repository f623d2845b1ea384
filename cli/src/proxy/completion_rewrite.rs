//! `stream: false`: the upstream's whole `chat.completion`, its content
//! parsed into tool calls.

use std::time::Duration;

use axum::body::Body;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use bytes::{Bytes, BytesMut};
use futures_util::StreamExt;
use toolcall_stream::openai::{rewrite_completion_with, ChatCompletion};
use toolcall_stream::ParserBuilder;

use super::error::ProxyError;
use super::forward::{end_to_end, UpstreamResponse};
use super::idle::{BodyError, IdleBody};
use super::log::RequestLog;
use super::metrics;

/// How the upstream's answer is read.
pub struct Reading {
    /// `--max-response-bytes`.
    pub limit: usize,
    /// `--idle-timeout`.
    pub idle: Duration,
}

pub async fn respond(
    upstream: UpstreamResponse,
    builder: &ParserBuilder,
    reading: Reading,
    log: &mut RequestLog,
) -> Response {
    let status = upstream.status;
    let mut headers = end_to_end(&upstream.headers);
    // The body is a new one: its length and encoding are the proxy's.
    headers.remove(header::CONTENT_LENGTH);
    headers.remove(header::CONTENT_ENCODING);
    let body = match read_whole(upstream, &reading).await {
        Ok(body) => body,
        Err(error) => {
            log.error(&error);
            return error.into_response();
        }
    };
    let completion: ChatCompletion = match serde_json::from_slice(&body) {
        Ok(completion) => completion,
        Err(e) => {
            let error = ProxyError::UpstreamInvalid(format!("not a chat.completion: {e}"));
            metrics::upstream_error("invalid_response");
            log.error(&error);
            return error.into_response();
        }
    };
    drop(body);
    let (completion, calls) = rewrite_completion_with(builder, completion, |kind| {
        metrics::diagnostic(kind.as_str())
    });
    log.calls(calls);
    log.status(status.as_u16());
    let body = match serde_json::to_vec(&completion) {
        Ok(body) => body,
        Err(e) => {
            let error = ProxyError::UpstreamInvalid(format!("cannot write it back: {e}"));
            log.error(&error);
            return error.into_response();
        }
    };
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    *response.headers_mut() = headers;
    response
}

/// The body, refused as soon as it passes the limit (at once when its
/// `Content-Length` says it will), so no more than the limit is held.
pub(super) async fn read_whole(
    upstream: UpstreamResponse,
    reading: &Reading,
) -> Result<Bytes, ProxyError> {
    let too_large = || {
        metrics::upstream_error("too_large");
        ProxyError::UpstreamTooLarge {
            limit: reading.limit,
        }
    };
    if upstream
        .content_length()
        .is_some_and(|length| length > reading.limit as u64)
    {
        return Err(too_large());
    }
    let mut pieces = IdleBody::new(upstream.body, reading.idle);
    let mut body = BytesMut::new();
    while let Some(piece) = pieces.next().await {
        let piece = match piece {
            Ok(piece) => piece,
            Err(BodyError::Idle(_)) => {
                metrics::upstream_timeout("idle");
                return Err(ProxyError::UpstreamTimeout(
                    "the answer stopped coming (--idle-timeout)",
                ));
            }
            Err(e @ BodyError::Failed(_)) => {
                metrics::upstream_error("invalid_response");
                return Err(ProxyError::UpstreamInvalid(e.to_string()));
            }
        };
        if body.len() + piece.len() > reading.limit {
            return Err(too_large());
        }
        body.extend_from_slice(&piece);
    }
    Ok(body.freeze())
}
