//! OpenAI's error object: what a server answers a bad request with, and the
//! last event of a stream that failed.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

/// An OpenAI error response: `{"error": {"message", "type", "param",
/// "code"}}`, `param` and `code` written as `null` when absent, as OpenAI
/// does. It is the body of an error status, and the `data:` of the error
/// event that ends a stream which failed midway (before `data: [DONE]`).
///
/// ```
/// use toolcall_stream::openai::{write_sse, ErrorResponse};
///
/// let error = ErrorResponse::invalid_request("`tools` must be an array").with_param("tools");
/// assert_eq!(serde_json::to_string(&error).unwrap(),
///     r#"{"error":{"message":"`tools` must be an array","type":"invalid_request_error","param":"tools","code":null}}"#);
///
/// let mut body = String::new();
/// write_sse(&ErrorResponse::server_error("the model stopped"), &mut body).unwrap();
/// assert!(body.starts_with(r#"data: {"error":{"message":"the model stopped","type":"server_error""#));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorResponse {
    /// The error.
    pub error: ErrorObject,
}

/// The `error` of an [`ErrorResponse`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    /// What went wrong, for a person.
    pub message: String,
    /// Its kind: `invalid_request_error`, `server_error`, …
    #[serde(rename = "type")]
    pub kind: String,
    /// The request field at fault, if any (written as `null` when `None`).
    #[serde(default)]
    pub param: Option<String>,
    /// A code for programs, if any (written as `null` when `None`). A
    /// number read (vLLM sends the HTTP status) is kept as its digits.
    #[serde(default, deserialize_with = "string_or_number")]
    pub code: Option<String>,
    /// Fields this crate does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ErrorResponse {
    /// An error of type `kind`.
    pub fn new(kind: impl Into<String>, message: impl Into<String>) -> ErrorResponse {
        ErrorResponse {
            error: ErrorObject {
                message: message.into(),
                kind: kind.into(),
                param: None,
                code: None,
                extra: Map::new(),
            },
        }
    }

    /// The client's request is wrong (`invalid_request_error`, status 400).
    pub fn invalid_request(message: impl Into<String>) -> ErrorResponse {
        ErrorResponse::new("invalid_request_error", message)
    }

    /// The server failed (`server_error`, status 500; also the error event
    /// of a stream cut midway).
    pub fn server_error(message: impl Into<String>) -> ErrorResponse {
        ErrorResponse::new("server_error", message)
    }

    /// This error, naming the request field at fault.
    pub fn with_param(mut self, param: impl Into<String>) -> ErrorResponse {
        self.error.param = Some(param.into());
        self
    }

    /// This error, with a code.
    pub fn with_code(mut self, code: impl Into<String>) -> ErrorResponse {
        self.error.code = Some(code.into());
        self
    }
}

fn string_or_number<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<String>, D::Error> {
    Ok(match Value::deserialize(deserializer)? {
        Value::String(code) => Some(code),
        Value::Number(code) => Some(code.to_string()),
        // Anything else says nothing a client can use.
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn absent_param_and_code_are_null() {
        let error = ErrorResponse::new("upstream_stream_error", "cut");
        assert_eq!(
            serde_json::to_value(&error).unwrap(),
            json!({"error": {"message": "cut", "type": "upstream_stream_error", "param": null, "code": null}})
        );
        let coded = ErrorResponse::server_error("x").with_code("overloaded");
        assert_eq!(
            serde_json::to_value(&coded).unwrap()["error"]["code"],
            "overloaded"
        );
    }

    #[test]
    fn an_upstream_error_reads_and_round_trips() {
        let body = json!({"error": {"message": "m", "type": "BadRequestError", "param": null,
                                    "code": "invalid", "object": "error"}});
        let error: ErrorResponse = serde_json::from_value(body.clone()).unwrap();
        assert_eq!(error.error.kind, "BadRequestError");
        assert_eq!(serde_json::to_value(&error).unwrap(), body);
        // vLLM's numeric code, and a missing param.
        let vllm: ErrorResponse = serde_json::from_value(
            json!({"error": {"message": "m", "type": "BadRequestError", "code": 400}}),
        )
        .unwrap();
        assert_eq!(vllm.error.code.as_deref(), Some("400"));
        assert_eq!(vllm.error.param, None);
    }
}
