//! Errors the proxy answers itself, as OpenAI error objects.
//!
//! Messages are written for the client and for the operator's log alike,
//! so they never name the upstream's address nor carry a query string.

use std::fmt;

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use toolcall_stream::openai::ErrorResponse;

/// A request the proxy answers without (or instead of) the upstream.
#[derive(Debug)]
pub enum ProxyError {
    /// The request body is larger than `--max-body-bytes`.
    BodyTooLarge { limit: usize },
    /// The client's body could not be read.
    BadRequestBody(String),
    /// The request's `tools` cannot be read as OpenAI tools.
    InvalidTools(String),
    /// The request's `stream` is not a boolean.
    InvalidStream,
    /// The request's `tool_choice` names a function its tools do not
    /// declare (found when `--constrain` makes the grammar).
    InvalidToolChoice(String),
    /// No connection to the upstream, or it failed before any response.
    UpstreamUnreachable(String),
    /// The upstream answered 2xx with something that is not what OpenAI's
    /// API says it sends.
    UpstreamInvalid(String),
    /// The upstream's whole answer is larger than `--max-response-bytes`.
    UpstreamTooLarge { limit: usize },
    /// The upstream did not answer in time (`--first-byte-timeout`,
    /// `--idle-timeout`).
    UpstreamTimeout(&'static str),
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
            | ProxyError::InvalidStream
            | ProxyError::InvalidToolChoice(_)
            | ProxyError::InvalidPath(_) => StatusCode::BAD_REQUEST,
            ProxyError::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            ProxyError::UpstreamUnreachable(_)
            | ProxyError::UpstreamInvalid(_)
            | ProxyError::UpstreamTooLarge { .. } => StatusCode::BAD_GATEWAY,
            ProxyError::UpstreamTimeout(_) => StatusCode::GATEWAY_TIMEOUT,
        }
    }

    /// OpenAI's `type` for this error; also the outcome in logs and metrics.
    pub fn kind(&self) -> &'static str {
        match self {
            ProxyError::BodyTooLarge { .. }
            | ProxyError::BadRequestBody(_)
            | ProxyError::InvalidTools(_)
            | ProxyError::InvalidStream
            | ProxyError::InvalidToolChoice(_)
            | ProxyError::InvalidPath(_)
            | ProxyError::MethodNotAllowed(_) => "invalid_request_error",
            ProxyError::UpstreamUnreachable(_) => "upstream_unreachable",
            ProxyError::UpstreamInvalid(_) => "upstream_invalid_response",
            ProxyError::UpstreamTooLarge { .. } => "upstream_response_too_large",
            ProxyError::UpstreamTimeout(_) => "upstream_timeout",
        }
    }

    fn param(&self) -> Option<&'static str> {
        match self {
            ProxyError::InvalidTools(_) => Some("tools"),
            ProxyError::InvalidStream => Some("stream"),
            ProxyError::InvalidToolChoice(_) => Some("tool_choice"),
            _ => None,
        }
    }

    /// `{"error": {"message", "type", "param", "code"}}`, as OpenAI's API
    /// writes errors (also the payload of an error event in a stream).
    pub fn body(&self) -> Value {
        error_object(&self.to_string(), self.kind(), self.param())
    }
}

impl fmt::Display for ProxyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProxyError::BodyTooLarge { limit } => {
                write!(
                    f,
                    "request body larger than {limit} bytes (--max-body-bytes)"
                )
            }
            ProxyError::BadRequestBody(e) => write!(f, "cannot read the request body: {e}"),
            ProxyError::InvalidTools(e) => write!(f, "invalid tools: {e}"),
            ProxyError::InvalidStream => {
                write!(f, "invalid stream: expected a boolean (true or false)")
            }
            ProxyError::InvalidToolChoice(e) => write!(f, "invalid tool_choice: {e}"),
            ProxyError::UpstreamUnreachable(e) => write!(f, "upstream unreachable: {e}"),
            ProxyError::UpstreamInvalid(e) => write!(f, "upstream sent an invalid response: {e}"),
            ProxyError::UpstreamTooLarge { limit } => write!(
                f,
                "upstream response larger than {limit} bytes (--max-response-bytes)"
            ),
            ProxyError::UpstreamTimeout(what) => write!(f, "upstream timed out: {what}"),
            ProxyError::InvalidPath(e) => write!(f, "invalid request path: {e}"),
            ProxyError::MethodNotAllowed(method) => {
                write!(f, "method {method} is not forwarded by this proxy")
            }
        }
    }
}

/// The library's OpenAI error object, as the proxy writes it.
pub fn error_object(message: &str, kind: &str, param: Option<&str>) -> Value {
    let mut error = ErrorResponse::new(kind, message);
    if let Some(param) = param {
        error = error.with_param(param);
    }
    // Strings only: it always serializes.
    serde_json::to_value(error).unwrap_or(Value::Null)
}

impl IntoResponse for ProxyError {
    fn into_response(self) -> Response {
        let mut response = (self.status(), self.body().to_string()).into_response();
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        if matches!(self, ProxyError::BodyTooLarge { .. }) {
            // The rest of the body may be left unread: the connection
            // cannot carry another request.
            response
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        response
    }
}

/// A reqwest error as the operator and client may read it: its causes
/// (reqwest's own message alone, "error sending request", does not say
/// what went wrong), without the URL, which names the internal upstream
/// and may carry the client's query string.
pub fn upstream_cause(error: reqwest::Error) -> String {
    let error = error.without_url();
    if error.is_connect() {
        // The root cause alone (`Connection refused (os error 111)`), as the
        // rewrites' own client says it: one spelling whichever client failed.
        if error.is_timeout() {
            return cannot_connect("timed out");
        }
        let mut root: &dyn std::error::Error = &error;
        while let Some(cause) = root.source() {
            root = cause;
        }
        return cannot_connect(root);
    }
    let mut message = if error.is_timeout() {
        "timed out".to_owned()
    } else if error.is_body() || error.is_decode() {
        "body failed".to_owned()
    } else {
        "request failed".to_owned()
    };
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    message
}

/// No connection to the upstream, and why: every client of the proxy's
/// spells it this way (`cannot connect: Connection refused (os error 111)`).
pub fn cannot_connect(cause: impl fmt::Display) -> String {
    format!("cannot connect: {cause}")
}
