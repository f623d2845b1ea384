//! What the chat route and the agent routes both do with a request: read
//! its body within `--max-body-bytes`, and build the parsers of its answer.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{header, HeaderMap};
use bytes::{Bytes, BytesMut};
use futures_util::StreamExt;
use serde_json::Value;
use toolcall_stream::{Format, Limits, Parser, ParserBuilder, Tools};

use super::config::Config;
use super::drain::drain;
use super::error::ProxyError;

/// The request body, refused past `limit` bytes (at once when its
/// `Content-Length` says so, else as soon as that many have arrived).
pub async fn read_body(headers: &HeaderMap, body: Body, limit: usize) -> Result<Bytes, ProxyError> {
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    let mut pieces = body.into_data_stream();
    if declared.is_some_and(|length| length > limit as u64) {
        // A client that waits for `100 Continue` has sent nothing yet:
        // nothing to drain.
        if !headers.contains_key(header::EXPECT) {
            drain(pieces, DRAIN_TIME, DRAIN_BYTES).await;
        }
        return Err(ProxyError::BodyTooLarge { limit });
    }
    let mut read = BytesMut::new();
    while let Some(piece) = pieces.next().await {
        let piece = piece.map_err(|e| ProxyError::BadRequestBody(e.to_string()))?;
        if read.len() + piece.len() > limit {
            drop(read);
            drain(pieces, DRAIN_TIME, DRAIN_BYTES).await;
            return Err(ProxyError::BodyTooLarge { limit });
        }
        read.extend_from_slice(&piece);
    }
    Ok(read.freeze())
}

/// How long, and how much, of a refused body is read and dropped: a
/// connection closed with the client's bytes unread is reset, and a reset
/// can destroy the 413 before the client reads it. (The 413 also says
/// `Connection: close`.)
const DRAIN_TIME: Duration = Duration::from_secs(5);
const DRAIN_BYTES: usize = 64 << 20;

/// The chat request's `tools`, read.
pub fn read_tools(tools: &Value) -> Result<Arc<Tools>, ProxyError> {
    Tools::from_value(tools)
        .map(Arc::new)
        .map_err(|e| ProxyError::InvalidTools(e.to_string()))
}

/// The parsers of one response in `format`, typing values by the chat
/// request's `tools`.
pub fn builder_for(config: &Config, format: Format, tools: Arc<Tools>) -> ParserBuilder {
    let mut limits = Limits::default();
    limits.max_held_call = config.max_held_call;
    Parser::builder()
        .format(format)
        .tools(tools)
        .ids(config.ids.clone())
        .limits(limits)
        .incomplete_calls_as_content(config.incomplete_calls_as_content)
        .strict(config.strict)
        .reasoning(config.reasoning)
        .calls_in_code_blocks(config.calls_in_code_blocks)
        .watch_foreign_formats(config.watch_foreign_formats)
        // The chunks need only the argument fragments.
        .retain_arguments(false)
}
