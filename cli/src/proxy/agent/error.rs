//! Errors on the agent routes, in each API's own shape: OpenAI's
//! `{"error": {"message", "type", "param", "code"}}` and Anthropic's
//! `{"type": "error", "error": {"type", "message"}}`.

use std::fmt;

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use serde_json::{json, Value};

use super::Api;
use crate::proxy::error::ProxyError;

/// What went wrong, in terms both APIs can say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The request cannot be read or translated.
    InvalidRequest,
    /// No such route or resource.
    NotFound,
    /// `previous_response_id` names no stored response (400, as OpenAI
    /// answers it).
    PreviousResponseNotFound,
    /// The request (or an answer) is larger than the proxy takes.
    TooLarge,
    /// The prompt does not fit the model's context.
    ContextLength,
    /// The upstream refused the credentials.
    Auth,
    /// The upstream limits the rate.
    RateLimit,
    /// The upstream is overloaded or not ready.
    Overloaded,
    /// The upstream did not answer in time.
    Timeout,
    /// The upstream failed, or answered something unreadable.
    Upstream,
    /// A store the proxy needs (`--response-store`) is not reachable.
    Unavailable,
}

impl ErrorKind {
    pub fn status(self) -> StatusCode {
        match self {
            ErrorKind::InvalidRequest
            | ErrorKind::ContextLength
            | ErrorKind::PreviousResponseNotFound => StatusCode::BAD_REQUEST,
            ErrorKind::NotFound => StatusCode::NOT_FOUND,
            ErrorKind::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ErrorKind::Auth => StatusCode::UNAUTHORIZED,
            ErrorKind::RateLimit => StatusCode::TOO_MANY_REQUESTS,
            ErrorKind::Overloaded | ErrorKind::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            ErrorKind::Timeout => StatusCode::GATEWAY_TIMEOUT,
            ErrorKind::Upstream => StatusCode::BAD_GATEWAY,
        }
    }

    /// OpenAI's error `type`.
    pub fn openai_type(self) -> &'static str {
        match self {
            ErrorKind::InvalidRequest
            | ErrorKind::NotFound
            | ErrorKind::PreviousResponseNotFound
            | ErrorKind::TooLarge
            | ErrorKind::ContextLength => "invalid_request_error",
            ErrorKind::Auth => "authentication_error",
            ErrorKind::RateLimit => "rate_limit_error",
            ErrorKind::Overloaded | ErrorKind::Unavailable | ErrorKind::Timeout => "server_error",
            ErrorKind::Upstream => "server_error",
        }
    }

    /// OpenAI's error `code` (what Codex reads to tell a full context or
    /// a rate limit from other failures).
    pub fn openai_code(self) -> &'static str {
        match self {
            ErrorKind::InvalidRequest => "invalid_request",
            ErrorKind::NotFound => "not_found",
            ErrorKind::PreviousResponseNotFound => "previous_response_not_found",
            ErrorKind::TooLarge => "request_too_large",
            ErrorKind::ContextLength => "context_length_exceeded",
            ErrorKind::Auth => "invalid_api_key",
            ErrorKind::RateLimit => "rate_limit_exceeded",
            ErrorKind::Overloaded | ErrorKind::Unavailable => "server_is_overloaded",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Upstream => "server_error",
        }
    }

    /// Anthropic's error `type`.
    pub fn anthropic_type(self) -> &'static str {
        match self {
            ErrorKind::InvalidRequest | ErrorKind::ContextLength => "invalid_request_error",
            ErrorKind::NotFound | ErrorKind::PreviousResponseNotFound => "not_found_error",
            ErrorKind::TooLarge => "request_too_large",
            ErrorKind::Auth => "authentication_error",
            ErrorKind::RateLimit => "rate_limit_error",
            ErrorKind::Overloaded | ErrorKind::Unavailable => "overloaded_error",
            ErrorKind::Timeout => "timeout_error",
            ErrorKind::Upstream => "api_error",
        }
    }

    /// The outcome in logs and metrics.
    pub fn outcome(self) -> &'static str {
        match self {
            ErrorKind::InvalidRequest => "invalid_request",
            ErrorKind::NotFound => "not_found",
            ErrorKind::PreviousResponseNotFound => "previous_response_not_found",
            ErrorKind::TooLarge => "too_large",
            ErrorKind::ContextLength => "context_length_exceeded",
            ErrorKind::Auth => "upstream_auth",
            ErrorKind::RateLimit => "upstream_rate_limit",
            ErrorKind::Overloaded => "upstream_overloaded",
            ErrorKind::Timeout => "upstream_timeout",
            ErrorKind::Upstream => "upstream_error",
            ErrorKind::Unavailable => "store_unavailable",
        }
    }
}

/// An error answered on an agent route.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentError {
    pub kind: ErrorKind,
    pub message: String,
    /// The request field at fault, where there is one.
    pub param: Option<String>,
}

impl AgentError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> AgentError {
        AgentError {
            kind,
            message: message.into(),
            param: None,
        }
    }

    /// A request that cannot be read: `param` names the field.
    pub fn invalid(param: &str, message: impl Into<String>) -> AgentError {
        AgentError {
            kind: ErrorKind::InvalidRequest,
            message: message.into(),
            param: Some(param.to_owned()),
        }
    }

    /// The same error, of another kind.
    pub fn with_kind(mut self, kind: ErrorKind) -> AgentError {
        self.kind = kind;
        self
    }

    /// The body in `api`'s shape.
    pub fn body(&self, api: Api) -> Value {
        match api {
            Api::Responses => json!({"error": {
                "message": self.message,
                "type": self.kind.openai_type(),
                "param": self.param,
                "code": self.kind.openai_code(),
            }}),
            Api::Messages => json!({"type": "error", "error": {
                "type": self.kind.anthropic_type(),
                "message": self.anthropic_message(),
            }}),
        }
    }

    /// Claude Code compacts the conversation when an error says "prompt is
    /// too long"; other wording would end its session instead.
    fn anthropic_message(&self) -> String {
        if self.kind == ErrorKind::ContextLength
            && !self
                .message
                .to_ascii_lowercase()
                .contains("prompt is too long")
        {
            format!("prompt is too long: {}", self.message)
        } else {
            self.message.clone()
        }
    }

    /// The HTTP answer in `api`'s shape.
    pub fn response(&self, api: Api) -> Response {
        let mut response = Response::new(axum::body::Body::from(self.body(api).to_string()));
        *response.status_mut() = self.kind.status();
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        response
    }

    /// The upstream's error answer (status and body) as the client's API
    /// says it: its message kept, its kind read from the status and the
    /// message (a context-length error is told apart by its words, since
    /// servers send it as a plain 400).
    pub fn from_upstream(status: StatusCode, body: &[u8]) -> AgentError {
        let message =
            upstream_message(body).unwrap_or_else(|| format!("upstream answered {status}"));
        let lower = message.to_ascii_lowercase();
        let kind = if is_context_length(&lower) {
            ErrorKind::ContextLength
        } else {
            match status.as_u16() {
                401 | 403 => ErrorKind::Auth,
                404 => ErrorKind::NotFound,
                413 => ErrorKind::TooLarge,
                429 => ErrorKind::RateLimit,
                503 | 529 => ErrorKind::Overloaded,
                504 => ErrorKind::Timeout,
                400..=499 => ErrorKind::InvalidRequest,
                _ => ErrorKind::Upstream,
            }
        };
        AgentError::new(kind, format!("upstream: {message}"))
    }
}

impl fmt::Display for AgentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for AgentError {}

impl From<&ProxyError> for AgentError {
    fn from(error: &ProxyError) -> AgentError {
        let kind = match error {
            ProxyError::BodyTooLarge { .. } | ProxyError::UpstreamTooLarge { .. } => {
                ErrorKind::TooLarge
            }
            ProxyError::BadRequestBody(_)
            | ProxyError::InvalidTools(_)
            | ProxyError::InvalidStream
            | ProxyError::InvalidToolChoice(_)
            | ProxyError::InvalidPath(_)
            | ProxyError::MethodNotAllowed(_) => ErrorKind::InvalidRequest,
            ProxyError::UpstreamUnreachable(_) | ProxyError::UpstreamInvalid(_) => {
                ErrorKind::Upstream
            }
            ProxyError::UpstreamTimeout(_) => ErrorKind::Timeout,
        };
        AgentError::new(kind, error.to_string())
    }
}

/// Whether an upstream's error message (lowercased) says the prompt did
/// not fit: vLLM ("maximum context length"), SGLang, llama.cpp ("exceeds
/// the available context size"), Ollama, OpenAI's own code.
pub fn is_context_length(lower: &str) -> bool {
    const WORDS: [&str; 7] = [
        "context length",
        "context_length",
        "context window",
        "context size",
        "maximum context",
        "prompt is too long",
        "too many tokens",
    ];
    WORDS.iter().any(|w| lower.contains(w))
}

/// The message in an upstream's error body: OpenAI's `error.message`, a
/// bare `message`, FastAPI's `detail`, a string `error`, else the text
/// itself (cut to 1,000 characters).
fn upstream_message(body: &[u8]) -> Option<String> {
    if let Ok(value) = serde_json::from_slice::<Value>(body) {
        let found = value
            .pointer("/error/message")
            .or_else(|| value.get("message"))
            .or_else(|| value.get("detail"))
            .or_else(|| value.get("error"));
        match found {
            Some(Value::String(text)) => return Some(text.clone()),
            Some(other) if !other.is_null() => return Some(other.to_string()),
            _ => {}
        }
    }
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    (!text.is_empty()).then(|| text.chars().take(1000).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_api_has_its_shape() {
        let error = AgentError::invalid("input", "input: expected a string or a list");
        assert_eq!(
            error.body(Api::Responses),
            json!({"error": {"message": "input: expected a string or a list",
                "type": "invalid_request_error", "param": "input", "code": "invalid_request"}})
        );
        assert_eq!(
            error.body(Api::Messages),
            json!({"type": "error", "error": {"type": "invalid_request_error",
                "message": "input: expected a string or a list"}})
        );
        assert_eq!(error.response(Api::Messages).status(), 400);
    }

    #[test]
    fn a_context_length_error_is_told_by_its_words() {
        let body = br#"{"object":"error","message":"This model's maximum context length is 32768 tokens. However, you requested 40000 tokens.","type":"BadRequestError","code":400}"#;
        let error = AgentError::from_upstream(StatusCode::BAD_REQUEST, body);
        assert_eq!(error.kind, ErrorKind::ContextLength);
        assert_eq!(
            error.body(Api::Responses)["error"]["code"],
            "context_length_exceeded"
        );
        let anthropic = error.body(Api::Messages);
        assert!(anthropic["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("prompt is too long: upstream: This model's maximum context length"));
        let llama = br#"{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}"#;
        assert_eq!(
            AgentError::from_upstream(StatusCode::BAD_REQUEST, llama).kind,
            ErrorKind::ContextLength
        );
    }

    #[test]
    fn upstream_statuses_map_to_kinds() {
        let kind = |status: u16, body: &[u8]| {
            AgentError::from_upstream(StatusCode::from_u16(status).unwrap(), body).kind
        };
        assert_eq!(kind(429, b"slow down"), ErrorKind::RateLimit);
        assert_eq!(kind(401, b""), ErrorKind::Auth);
        assert_eq!(kind(503, b"{}"), ErrorKind::Overloaded);
        assert_eq!(kind(500, b"boom"), ErrorKind::Upstream);
        assert_eq!(kind(404, br#"{"detail":"Not Found"}"#), ErrorKind::NotFound);
        let error = AgentError::from_upstream(StatusCode::INTERNAL_SERVER_ERROR, b"");
        assert_eq!(
            error.message,
            "upstream: upstream answered 500 Internal Server Error"
        );
    }
}
