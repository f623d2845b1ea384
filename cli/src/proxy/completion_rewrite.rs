//! `stream: false`: the upstream's whole `chat.completion`, its content
//! parsed into tool calls.

use axum::body::Body;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use toolcall_stream::openai::{rewrite_completion, ChatCompletion};
use toolcall_stream::ParserBuilder;

use super::error::ProxyError;
use super::forward::{end_to_end, error_chain};
use super::log::RequestLog;

pub async fn respond(
    upstream: reqwest::Response,
    builder: &ParserBuilder,
    log: &mut RequestLog,
) -> Response {
    let status = upstream.status();
    let mut headers = end_to_end(upstream.headers());
    // The body is a new one: its length and encoding are the proxy's.
    headers.remove(header::CONTENT_LENGTH);
    headers.remove(header::CONTENT_ENCODING);
    let body = match upstream.bytes().await {
        Ok(body) => body,
        Err(e) => {
            let error = ProxyError::UpstreamInvalid(format!("body cut off: {}", error_chain(&e)));
            log.status(error.status().as_u16());
            log.note("upstream body failed");
            return error.into_response();
        }
    };
    let completion: ChatCompletion = match serde_json::from_slice(&body) {
        Ok(completion) => completion,
        Err(e) => {
            let error = ProxyError::UpstreamInvalid(format!("not a chat.completion: {e}"));
            log.status(error.status().as_u16());
            return error.into_response();
        }
    };
    let (completion, calls) = rewrite_completion(builder, completion);
    log.calls(calls);
    log.status(status.as_u16());
    let body = match serde_json::to_vec(&completion) {
        Ok(body) => body,
        Err(e) => {
            let error = ProxyError::UpstreamInvalid(format!("cannot write it back: {e}"));
            log.status(error.status().as_u16());
            return error.into_response();
        }
    };
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    *response.headers_mut() = headers;
    response
}
