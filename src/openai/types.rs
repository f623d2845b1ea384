//! The wire types of OpenAI's chat completions, read and written.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::ids;

/// The `object` of a [`ChatCompletion`].
pub const CHAT_COMPLETION: &str = "chat.completion";
/// The `object` of a [`ChatCompletionChunk`].
pub const CHAT_COMPLETION_CHUNK: &str = "chat.completion.chunk";
/// Letters and digits after `chatcmpl-` in a response id, as OpenAI's.
const COMPLETION_ID_CHARS: usize = 29;

/// A whole (non-streaming) chat completion response.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChatCompletion {
    /// The response's id (`chatcmpl-…`).
    pub id: String,
    /// Always [`CHAT_COMPLETION`].
    pub object: String,
    /// Unix time, in seconds, when the response was made.
    pub created: u64,
    /// The model's name.
    pub model: String,
    /// The backend configuration the model ran with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_fingerprint: Option<String>,
    /// The completions; this crate writes one.
    pub choices: Vec<Choice>,
    /// Token counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Fields this crate does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One completion of a [`ChatCompletion`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    /// Its position among the choices.
    pub index: usize,
    /// The message.
    pub message: ResponseMessage,
    /// Why the model stopped (written as `null` when `None`).
    #[serde(default)]
    pub finish_reason: Option<FinishReason>,
    /// Log probabilities, when asked for (written as `null` when `None`).
    #[serde(default)]
    pub logprobs: Option<Value>,
    /// Fields this crate does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The assistant's message of a [`Choice`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResponseMessage {
    /// Always `assistant` here.
    pub role: String,
    /// The text, `null` when there is none.
    #[serde(default)]
    pub content: Option<String>,
    /// A refusal message, `null` when there is none.
    #[serde(default)]
    pub refusal: Option<String>,
    /// The tool calls, left out when there are none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Vec<ToolCall>>,
    /// A reasoning model's thinking, as vLLM sends it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_content: Option<String>,
    /// Fields this crate does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A whole tool call of a [`ResponseMessage`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The call's id.
    pub id: String,
    /// Always `function`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The function and its arguments.
    pub function: FunctionCall,
    /// Fields this crate does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The function of a [`ToolCall`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FunctionCall {
    /// The function's name.
    pub name: String,
    /// The arguments, as JSON text.
    pub arguments: String,
    /// Fields this crate does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Token counts of a response.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens in the prompt.
    pub prompt_tokens: u64,
    /// Tokens the model wrote.
    pub completion_tokens: u64,
    /// Both.
    pub total_tokens: u64,
    /// Fields this crate does not know (such as the token details), kept as
    /// they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One chunk of a streaming chat completion response.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChatCompletionChunk {
    /// The response's id (`chatcmpl-…`), the same in every chunk.
    pub id: String,
    /// Always [`CHAT_COMPLETION_CHUNK`].
    pub object: String,
    /// Unix time, in seconds, when the response began.
    pub created: u64,
    /// The model's name.
    pub model: String,
    /// The backend configuration the model ran with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_fingerprint: Option<String>,
    /// What changed; this crate writes one choice.
    pub choices: Vec<ChunkChoice>,
    /// Token counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Fields this crate does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One choice of a [`ChatCompletionChunk`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChunkChoice {
    /// Its position among the choices.
    pub index: usize,
    /// What the choice's message gained.
    pub delta: Delta,
    /// Why the model stopped, in the last chunk; written as `null` before.
    #[serde(default)]
    pub finish_reason: Option<FinishReason>,
    /// Log probabilities, when asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logprobs: Option<Value>,
    /// Fields this crate does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What a message gained in one chunk. Text fields are appended to what
/// came before; tool calls are matched by their `index`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Delta {
    /// `assistant`, in the first chunk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// More text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// More of a reasoning model's thinking, as vLLM sends it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_content: Option<String>,
    /// New calls and more of their arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Vec<ToolCallDelta>>,
    /// Fields this crate does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A tool call's part of a [`Delta`]: its first carries the id, type and
/// name; later ones more of the arguments.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolCallDelta {
    /// The call's position among the message's calls.
    pub index: usize,
    /// The call's id, in its first delta.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// `function`, in its first delta.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The name and more of the arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<FunctionDelta>,
    /// Fields this crate does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The function's part of a [`ToolCallDelta`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FunctionDelta {
    /// The function's name, in the call's first delta.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// More of the arguments' JSON text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<String>,
    /// Fields this crate does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Why the model stopped.
///
/// This crate writes `stop`, `tool_calls` and `length`; any other name read
/// (`content_filter`, the legacy `function_call`, a server's own) is kept
/// in [`Other`](FinishReason::Other) and written back as it came.
///
/// ```
/// use toolcall_stream::openai::FinishReason;
/// let reason: FinishReason = serde_json::from_str(r#""content_filter""#).unwrap();
/// assert_eq!(reason, FinishReason::Other("content_filter".into()));
/// assert_eq!(serde_json::to_string(&reason).unwrap(), r#""content_filter""#);
/// assert_eq!(FinishReason::from("tool_calls"), FinishReason::ToolCalls);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FinishReason {
    /// The model ended its output: no call to run.
    Stop,
    /// The model was cut off by a token limit.
    Length,
    /// The model ended its output with calls to run.
    ToolCalls,
    /// Any other reason, as named on the wire (never one of the names
    /// above: those read as their variants).
    Other(String),
}

impl FinishReason {
    /// The reason's name on the wire.
    pub fn as_str(&self) -> &str {
        match self {
            FinishReason::Stop => "stop",
            FinishReason::Length => "length",
            FinishReason::ToolCalls => "tool_calls",
            FinishReason::Other(name) => name,
        }
    }

    /// The rule both outputs follow: `length` when the caller says the
    /// model was cut off, `tool_calls` when a call ended complete, `stop`
    /// otherwise.
    pub(crate) fn of(cut_off: bool, complete_call: bool) -> FinishReason {
        if cut_off {
            FinishReason::Length
        } else if complete_call {
            FinishReason::ToolCalls
        } else {
            FinishReason::Stop
        }
    }
}

impl From<&str> for FinishReason {
    fn from(name: &str) -> FinishReason {
        match name {
            "stop" => FinishReason::Stop,
            "length" => FinishReason::Length,
            "tool_calls" => FinishReason::ToolCalls,
            other => FinishReason::Other(other.to_owned()),
        }
    }
}

impl From<String> for FinishReason {
    fn from(name: String) -> FinishReason {
        match FinishReason::from(name.as_str()) {
            FinishReason::Other(_) => FinishReason::Other(name),
            known => known,
        }
    }
}

impl fmt::Display for FinishReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for FinishReason {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for FinishReason {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<FinishReason, D::Error> {
        String::deserialize(deserializer).map(FinishReason::from)
    }
}

/// What every chunk and completion of one response carries: its id, model,
/// creation time and fingerprint.
///
/// ```
/// use toolcall_stream::openai::CompletionMeta;
/// let meta = CompletionMeta::new("qwen3-coder");
/// assert!(meta.id.starts_with("chatcmpl-") && meta.id.len() == 38);
///
/// // Reproducible output: an id from a seed, a fixed time.
/// let meta = CompletionMeta::seeded("qwen3-coder", 7).with_created(1_700_000_000);
/// assert_eq!(meta.id, CompletionMeta::seeded("qwen3-coder", 7).id);
/// assert_eq!(meta.created, 1_700_000_000);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CompletionMeta {
    /// The response id.
    pub id: String,
    /// The model's name.
    pub model: String,
    /// Unix time, in seconds.
    pub created: u64,
    /// Written when `Some`.
    pub system_fingerprint: Option<String>,
}

/// Unix time in seconds. A clock before 1970 is a broken clock, not a
/// reason to fail; WebAssembly without an OS has no clock (its `SystemTime`
/// panics), so there the time is 0 and the binding sets it
/// ([`with_created`](CompletionMeta::with_created)).
fn now() -> u64 {
    #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
    return 0;
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    return std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs());
}

impl CompletionMeta {
    /// A random id like OpenAI's (`chatcmpl-` and 29 letters and digits),
    /// created now.
    pub fn new(model: impl Into<String>) -> CompletionMeta {
        let mut id = String::with_capacity("chatcmpl-".len() + COMPLETION_ID_CHARS);
        id.push_str("chatcmpl-");
        ids::random_alphanumeric(COMPLETION_ID_CHARS, &mut id);
        CompletionMeta::with_parts(id, model.into())
    }

    /// An id of the same form made from `seed` (the same on every run),
    /// created now.
    pub fn seeded(model: impl Into<String>, seed: u64) -> CompletionMeta {
        let mut id = String::with_capacity("chatcmpl-".len() + COMPLETION_ID_CHARS);
        id.push_str("chatcmpl-");
        ids::seeded_alphanumeric(seed, COMPLETION_ID_CHARS, &mut id);
        CompletionMeta::with_parts(id, model.into())
    }

    fn with_parts(id: String, model: String) -> CompletionMeta {
        CompletionMeta {
            id,
            model,
            created: now(),
            system_fingerprint: None,
        }
    }
    /// This meta with another id.
    pub fn with_id(mut self, id: impl Into<String>) -> CompletionMeta {
        self.id = id.into();
        self
    }

    /// This meta with another creation time (Unix seconds).
    pub fn with_created(mut self, created: u64) -> CompletionMeta {
        self.created = created;
        self
    }

    /// This meta with a system fingerprint.
    pub fn with_system_fingerprint(mut self, fingerprint: impl Into<String>) -> CompletionMeta {
        self.system_fingerprint = Some(fingerprint.into());
        self
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn to_json(value: &impl Serialize) -> Value {
        serde_json::to_value(value).unwrap()
    }

    #[test]
    fn an_upstream_chunk_keeps_unknown_fields_through_a_round_trip() {
        let upstream = json!({
            "id": "chatcmpl-up", "object": "chat.completion.chunk", "created": 1,
            "model": "m", "service_tier": "default", "obfuscation": "x9",
            "choices": [{
                "index": 0,
                "delta": {"content": "hi", "refusal": null, "annotations": [],
                          "tool_calls": [{"index": 0, "id": "call_9", "type": "function",
                                          "function": {"name": "f", "arguments": "", "strict": true},
                                          "vendor": 1}]},
                "finish_reason": "content_filter", "logprobs": {"content": []},
                "stop_reason": 151645
            }],
            "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4,
                      "prompt_tokens_details": {"cached_tokens": 0}}
        });
        let chunk: ChatCompletionChunk = serde_json::from_value(upstream.clone()).unwrap();
        assert_eq!(chunk.extra["service_tier"], "default");
        let choice = &chunk.choices[0];
        assert_eq!(
            choice.finish_reason,
            Some(FinishReason::Other("content_filter".into()))
        );
        assert_eq!(choice.extra["stop_reason"], 151645);
        assert_eq!(choice.delta.extra["annotations"], json!([]));
        let call = &choice.delta.tool_calls.as_ref().unwrap()[0];
        assert_eq!(call.extra["vendor"], 1);
        assert_eq!(call.function.as_ref().unwrap().extra["strict"], true);
        assert_eq!(to_json(&chunk), upstream);
        let again: ChatCompletionChunk = serde_json::from_value(to_json(&chunk)).unwrap();
        assert_eq!(again, chunk);
    }

    #[test]
    fn an_upstream_completion_keeps_unknown_fields_through_a_round_trip() {
        let upstream = json!({
            "id": "chatcmpl-up", "object": "chat.completion", "created": 1, "model": "m",
            "system_fingerprint": "fp", "prompt_logprobs": null,
            "choices": [{"index": 0, "finish_reason": "function_call", "logprobs": null,
                         "message": {"role": "assistant", "content": null, "refusal": null,
                                     "reasoning_content": "think",
                                     "tool_calls": [{"id": "c", "type": "function",
                                                     "function": {"name": "f", "arguments": "{}"}}]}}]
        });
        let completion: ChatCompletion = serde_json::from_value(upstream.clone()).unwrap();
        assert_eq!(
            completion.choices[0].message.reasoning_content.as_deref(),
            Some("think")
        );
        assert_eq!(completion.extra["prompt_logprobs"], Value::Null);
        assert_eq!(to_json(&completion), upstream);
    }

    #[test]
    fn finish_reason_names_round_trip() {
        for name in ["stop", "length", "tool_calls", "content_filter", "x"] {
            let reason = FinishReason::from(name.to_owned());
            assert_eq!(reason.as_str(), name);
            assert_eq!(reason, FinishReason::from(name));
            let json = serde_json::to_string(&reason).unwrap();
            assert_eq!(serde_json::from_str::<FinishReason>(&json).unwrap(), reason);
        }
        assert_eq!(FinishReason::from("stop".to_owned()), FinishReason::Stop);
    }

    #[test]
    fn response_ids_look_like_openai_ones() {
        for meta in [CompletionMeta::new("m"), CompletionMeta::seeded("m", 1)] {
            assert_eq!(meta.id.len(), "chatcmpl-".len() + COMPLETION_ID_CHARS);
            assert!(meta.id["chatcmpl-".len()..]
                .bytes()
                .all(|b| b.is_ascii_alphanumeric()));
        }
        assert_ne!(CompletionMeta::new("m").id, CompletionMeta::new("m").id);
        assert_eq!(
            CompletionMeta::seeded("m", 1).id,
            CompletionMeta::seeded("n", 1).id
        );
        assert_ne!(
            CompletionMeta::seeded("m", 1).id,
            CompletionMeta::seeded("m", 2).id
        );
    }
}
