//! The request a chat completions server reads.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use crate::tools::{Tools, ToolsError};

/// A `POST /v1/chat/completions` request body, as a server reads it.
///
/// The fields a server built on this crate acts on are typed; everything
/// else (`max_tokens`, `temperature`, `tool_choice`, …) is kept in `extra`
/// and written back, so that a server can forward the request. `stream`
/// defaults to `false`, as in OpenAI's API: a request that does not ask
/// for a stream gets a whole `chat.completion`. A `stream` that is not a
/// boolean (`"true"`, `1`) is an error that names it; `null` reads as
/// `false`, as OpenAI takes it.
///
/// ```
/// use toolcall_stream::openai::ChatCompletionRequest;
///
/// let request: ChatCompletionRequest = serde_json::from_str(r#"{
///     "model": "qwen3-coder", "messages": [{"role": "user", "content": "Weather in Paris?"}],
///     "tools": [{"type": "function", "function": {"name": "get_weather",
///         "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}],
///     "stream": true, "stream_options": {"include_usage": true}, "max_tokens": 256
/// }"#).unwrap();
/// assert!(request.stream && request.include_usage());
/// assert_eq!(request.extra["max_tokens"], 256);
/// let tools = request.tools().unwrap().expect("the request has tools");
/// assert!(tools.contains("get_weather"));
///
/// // Not asked for: no stream.
/// let plain: ChatCompletionRequest =
///     serde_json::from_str(r#"{"model": "m", "messages": []}"#).unwrap();
/// assert!(!plain.stream && plain.tools().unwrap().is_none());
///
/// let error = serde_json::from_str::<ChatCompletionRequest>(
///     r#"{"model": "m", "messages": [], "stream": "true"}"#).unwrap_err();
/// assert!(error.to_string().contains("`stream`"), "{error}");
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChatCompletionRequest {
    /// The model asked for.
    pub model: String,
    /// The conversation, as it came (this crate does not read messages).
    pub messages: Vec<Value>,
    /// The tools the model may call, as JSON: see [`tools`](Self::tools).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Value>,
    /// Whether the response is streamed (server-sent events); `false` when
    /// absent.
    #[serde(default, deserialize_with = "bool_named_stream")]
    pub stream: bool,
    /// Options of a streamed response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_options: Option<StreamOptions>,
    /// Every other field, kept as it came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ChatCompletionRequest {
    /// The request's tools, to type the values of calls
    /// ([`ParserBuilder::tools`](crate::ParserBuilder::tools)): `None`
    /// when it has none (or `null`), an error when they are not a valid
    /// `tools` array (answer it with a 400,
    /// [`ErrorResponse::invalid_request`](super::ErrorResponse::invalid_request)
    /// with param `tools`).
    pub fn tools(&self) -> Result<Option<Tools>, ToolsError> {
        match &self.tools {
            None | Some(Value::Null) => Ok(None),
            Some(tools) => Tools::from_value(tools).map(Some),
        }
    }

    /// Whether a streamed response ends with a usage chunk
    /// (`stream_options.include_usage`).
    pub fn include_usage(&self) -> bool {
        self.stream
            && self
                .stream_options
                .as_ref()
                .is_some_and(|o| o.include_usage)
    }
}

/// `stream_options` of a [`ChatCompletionRequest`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StreamOptions {
    /// Send a last chunk with `usage` and no choices.
    #[serde(default)]
    pub include_usage: bool,
    /// Every other field, kept as it came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `stream` is a boolean or `null`; anything else is the client's mistake,
/// which the error must name (serde's own does not say which field).
fn bool_named_stream<'de, D: Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    match Value::deserialize(deserializer)? {
        Value::Bool(stream) => Ok(stream),
        Value::Null => Ok(false),
        other => Err(D::Error::custom(format_args!(
            "invalid `stream`: expected a boolean, found {other}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_request_round_trips_with_its_unknown_fields() {
        let body = json!({
            "model": "m", "messages": [{"role": "user", "content": "hi"}],
            "stream": true, "stream_options": {"include_usage": false, "continuous_usage_stats": true},
            "max_tokens": 5, "temperature": 0.5, "tool_choice": "auto"
        });
        let request: ChatCompletionRequest = serde_json::from_value(body.clone()).unwrap();
        assert!(request.stream && !request.include_usage());
        assert_eq!(request.extra.len(), 3);
        assert_eq!(serde_json::to_value(&request).unwrap(), body);
    }

    #[test]
    fn stream_is_a_boolean_false_by_default() {
        let read = |body: Value| serde_json::from_value::<ChatCompletionRequest>(body);
        let base = json!({"model": "m", "messages": []});
        assert!(!read(base.clone()).unwrap().stream);
        let with = |stream: Value| {
            let mut body = base.clone();
            body["stream"] = stream;
            read(body)
        };
        assert!(with(json!(true)).unwrap().stream);
        assert!(!with(Value::Null).unwrap().stream);
        for bad in [json!("true"), json!(1), json!({})] {
            let error = with(bad.clone()).unwrap_err().to_string();
            assert!(error.contains("`stream`"), "{bad}: {error}");
        }
        // Usage only in a stream.
        let mut body = base.clone();
        body["stream_options"] = json!({"include_usage": true});
        assert!(!read(body).unwrap().include_usage());
    }

    #[test]
    fn bad_tools_are_an_error_and_null_tools_none() {
        let mut request: ChatCompletionRequest =
            serde_json::from_value(json!({"model": "m", "messages": [], "tools": null})).unwrap();
        assert!(request.tools().unwrap().is_none());
        request.tools = Some(json!({"not": "an array"}));
        assert!(request.tools().is_err());
        // A request missing what OpenAI requires does not read.
        assert!(serde_json::from_value::<ChatCompletionRequest>(json!({"messages": []})).is_err());
    }
}
