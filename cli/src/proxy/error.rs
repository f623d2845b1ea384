//! Errors the proxy answers itself, as OpenAI error objects.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

/// A request the proxy answers without (or instead of) the upstream.
#[derive(Debug)]
pub enum ProxyError {
    /// The request body is larger than `--max-body-bytes`.
    BodyTooLarge { limit: usize },
    /// The client's body could not be read.
    BadRequestBody(String),
    /// The request's `tools` cannot be read as OpenAI tools.
    InvalidTools(String),
    /// No connection to the upstream, or it failed before any response.
    UpstreamUnreachable(String),
    /// The upstream answered 2xx with something that is not what OpenAI's
    /// API says it sends.
    UpstreamInvalid(String),
    /// A path that could leave the upstream's base path (`..` in any
    /// encoding, …), or a request target that is not a path (`OPTIONS *`).
    InvalidPath(String),
    /// A method the proxy never forwards (`CONNECT`).
    MethodNotAllowed(String),
}

impl ProxyError {
    pub fn status(&self) -> StatusCode {
        match self {
            ProxyError::BodyTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            ProxyError::BadRequestBody(_)
            | ProxyError::InvalidTools(_)
            | ProxyError::InvalidPath(_) => StatusCode::BAD_REQUEST,
            ProxyError::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            ProxyError::UpstreamUnreachable(_) | ProxyError::UpstreamInvalid(_) => {
                StatusCode::BAD_GATEWAY
            }
        }
    }

    /// OpenAI's `type` for this error.
    fn kind(&self) -> &'static str {
        match self {
            ProxyError::BodyTooLarge { .. } | ProxyError::BadRequestBody(_) => {
                "invalid_request_error"
            }
            ProxyError::InvalidTools(_)
            | ProxyError::InvalidPath(_)
            | ProxyError::MethodNotAllowed(_) => "invalid_request_error",
            ProxyError::UpstreamUnreachable(_) => "upstream_unreachable",
            ProxyError::UpstreamInvalid(_) => "upstream_invalid_response",
        }
    }

    fn param(&self) -> Option<&'static str> {
        matches!(self, ProxyError::InvalidTools(_)).then_some("tools")
    }

    fn message(&self) -> String {
        match self {
            ProxyError::BodyTooLarge { limit } => {
                format!("request body larger than {limit} bytes (--max-body-bytes)")
            }
            ProxyError::BadRequestBody(e) => format!("cannot read the request body: {e}"),
            ProxyError::InvalidTools(e) => format!("invalid tools: {e}"),
            ProxyError::UpstreamUnreachable(e) => format!("upstream unreachable: {e}"),
            ProxyError::UpstreamInvalid(e) => format!("upstream sent an invalid response: {e}"),
            ProxyError::InvalidPath(e) => format!("invalid request path: {e}"),
            ProxyError::MethodNotAllowed(method) => {
                format!("method {method} is not forwarded by this proxy")
            }
        }
    }

    /// `{"error": {"message", "type", "param", "code"}}`, as OpenAI's API
    /// writes errors (also the payload of an error event in a stream).
    pub fn body(&self) -> Value {
        error_object(&self.message(), self.kind(), self.param())
    }
}

pub fn error_object(message: &str, kind: &str, param: Option<&str>) -> Value {
    json!({"error": {"message": message, "type": kind, "param": param, "code": null}})
}

impl IntoResponse for ProxyError {
    fn into_response(self) -> Response {
        let mut response = (self.status(), self.body().to_string()).into_response();
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        response
    }
}
