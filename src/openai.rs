//! OpenAI wire output: `chat.completion` and `chat.completion.chunk`.
//!
//! [`ChunkEncoder`] turns the parser's [events](crate::Event) into the
//! chunks of an OpenAI streaming response, sans-IO: push events, take a
//! chunk when the caller wants to send one (after each piece of model
//! output fed), [`finish`](ChunkEncoder::finish) with the last one.
//! [`Message::to_chat_completion`] makes the non-streaming response.
//! [`write_sse`] and [`SSE_DONE`] frame them as server-sent events.
//!
//! The types read as well as write, so that a proxy can take an upstream's
//! chunks apart with them: every struct keeps the fields it does not know
//! in `extra` and writes them back, and [`FinishReason`] keeps reasons it
//! does not know. A field OpenAI's specification requires is always
//! written (`null` when there is none, as OpenAI does); an optional one is
//! left out when `None`. A `null` read from an upstream for an optional
//! field is therefore left out when written again, which means the same to
//! OpenAI's clients.
//!
//! Why our own types: the crates that have them (`async-openai` with only
//! its `chat-completion-types` feature, for one) do not keep unknown fields,
//! fail on a finish reason they do not list, have no `reasoning_content`
//! (vLLM's field for reasoning models), and change their types with nearly
//! every release; a few small structs here cost less than any of that.

pub use crate::rewrite::{rewrite_completion, Rewriter};
use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::event::Event;
use crate::ids;
use crate::message::Message;

/// The `object` of a [`ChatCompletion`].
pub const CHAT_COMPLETION: &str = "chat.completion";
/// The `object` of a [`ChatCompletionChunk`].
pub const CHAT_COMPLETION_CHUNK: &str = "chat.completion.chunk";
/// The last event of an OpenAI stream.
pub const SSE_DONE: &str = "data: [DONE]\n\n";

/// The role of every message this crate writes.
const ASSISTANT: &str = "assistant";
/// The `type` of every tool call.
const FUNCTION: &str = "function";
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
    fn of(cut_off: bool, complete_call: bool) -> FinishReason {
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
        // A clock before 1970 is a broken clock, not a reason to fail.
        let created = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| since.as_secs());
        CompletionMeta {
            id,
            model,
            created,
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

impl Message {
    /// The message as an OpenAI `chat.completion`: one choice, `content`
    /// and `tool_calls` as they are, and `finish_reason` `length` when
    /// `cut_off` (the model hit its token limit), else `tool_calls` when a
    /// call is complete, else `stop`: the same as
    /// [`ChunkEncoder::finish`] for the same events. Diagnostics are not
    /// part of OpenAI's format and are left out.
    ///
    /// ```
    /// use toolcall_stream::openai::{CompletionMeta, FinishReason};
    /// use toolcall_stream::{parse, Format};
    ///
    /// let message = parse(Format::Qwen3Coder,
    ///     "<tool_call><function=ls><parameter=path>/</parameter></function></tool_call>");
    /// let completion = message.to_chat_completion(&CompletionMeta::new("qwen3"), false);
    /// let choice = &completion.choices[0];
    /// assert_eq!(choice.finish_reason, Some(FinishReason::ToolCalls));
    /// assert_eq!(choice.message.content, None);
    /// let call = &choice.message.tool_calls.as_ref().unwrap()[0];
    /// assert_eq!((call.function.name.as_str(), call.function.arguments.as_str()),
    ///            ("ls", r#"{"path": "/"}"#));
    /// ```
    pub fn to_chat_completion(&self, meta: &CompletionMeta, cut_off: bool) -> ChatCompletion {
        let tool_calls: Vec<ToolCall> = self
            .tool_calls
            .iter()
            .map(|call| ToolCall {
                id: call.id.clone(),
                kind: FUNCTION.to_owned(),
                function: FunctionCall {
                    name: call.name.clone(),
                    arguments: call.arguments.clone(),
                    extra: Map::new(),
                },
                extra: Map::new(),
            })
            .collect();
        let complete_call = self.tool_calls.iter().any(|call| call.complete);
        ChatCompletion {
            id: meta.id.clone(),
            object: CHAT_COMPLETION.to_owned(),
            created: meta.created,
            model: meta.model.clone(),
            system_fingerprint: meta.system_fingerprint.clone(),
            choices: vec![Choice {
                index: 0,
                message: ResponseMessage {
                    role: ASSISTANT.to_owned(),
                    content: self.content.clone(),
                    refusal: None,
                    tool_calls: (!tool_calls.is_empty()).then_some(tool_calls),
                    reasoning_content: None,
                    extra: Map::new(),
                },
                finish_reason: Some(FinishReason::of(cut_off, complete_call)),
                logprobs: None,
                extra: Map::new(),
            }],
            usage: None,
            extra: Map::new(),
        }
    }
}

/// Turns [events](crate::Event) into the chunks of an OpenAI streaming
/// response.
///
/// [`push`](ChunkEncoder::push) each event; [`take_chunk`](ChunkEncoder::take_chunk)
/// after each piece of model output fed gives one chunk with what those
/// events added, or `None` when they added nothing;
/// [`finish`](ChunkEncoder::finish) gives the last chunk, with the
/// `finish_reason`. The first chunk carries `"role": "assistant"`.
///
/// * `content` events become `delta.content`, joined within a chunk.
/// * A call's first delta (its `tool_call_start`) carries its `index`, `id`,
///   `"type": "function"`, `function.name` and `function.arguments: ""`;
///   later deltas its `index` and more `function.arguments`. Fragments of
///   one call within a chunk are joined into one string, also into the
///   first delta when the call began in that chunk (as vLLM does).
/// * Parameter events and diagnostics have no place in OpenAI's format and
///   are ignored.
/// * Whitespace before the first other text is held until it is known to
///   be content: a message that is only whitespace around calls has
///   `content: null`, as [`Message`] has, so the chunks joined are the
///   [`chat.completion`](Message::to_chat_completion) of the same events.
///   At most [`MAX_LEADING_BLANK`] bytes are held; past that the
///   whitespace is sent as content (where a [`Message`] would still say
///   `null`).
///
/// # Example
/// ```
/// use toolcall_stream::openai::{write_sse, ChunkEncoder, CompletionMeta, SSE_DONE};
/// use toolcall_stream::{Format, Ids, Parser};
///
/// let mut parser = Parser::builder().format(Format::Qwen3Coder).ids(Ids::OpenAi).build();
/// let mut encoder = ChunkEncoder::new(CompletionMeta::new("qwen3-coder"));
/// let mut body = String::new();
/// for piece in ["Looking.<tool_call>\n<function=get_weather>\n<param",
///               "eter=city>\nParis\n</parameter>\n</function>\n</tool_call>"] {
///     parser.feed_with(piece, |event| encoder.push(&event));
///     if let Some(chunk) = encoder.take_chunk() {
///         write_sse(&chunk, &mut body).unwrap();
///     }
/// }
/// parser.finish_with(|event| encoder.push(&event));
/// write_sse(&encoder.finish(false), &mut body).unwrap();
/// body.push_str(SSE_DONE);
///
/// let frames: Vec<&str> = body.split_terminator("\n\n").collect();
/// assert_eq!(frames.len(), 4);
/// assert!(frames[0].contains(r#""delta":{"role":"assistant","content":"Looking.","tool_calls":[{"index":0,"id":"call_"#));
/// assert!(frames[0].contains(r#""type":"function","function":{"name":"get_weather","arguments":""}}]}"#));
/// assert!(frames[1].contains(r#""delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\": \"Paris\"}"}}]}"#));
/// assert!(frames[2].contains(r#""delta":{},"finish_reason":"tool_calls""#));
/// assert_eq!(frames[3], "data: [DONE]");
/// ```
#[derive(Clone, Debug)]
pub struct ChunkEncoder {
    meta: CompletionMeta,
    role_sent: bool,
    /// Content since the last chunk.
    content: String,
    /// Tool-call deltas since the last chunk.
    tool_calls: Vec<ToolCallDelta>,
    /// Whitespace that came before any other content: content only if
    /// other text follows, or if no call comes at all.
    leading_blank: String,
    text_seen: bool,
    call_seen: bool,
    complete_call: bool,
}

impl ChunkEncoder {
    /// An encoder for one response.
    pub fn new(meta: CompletionMeta) -> ChunkEncoder {
        ChunkEncoder {
            meta,
            role_sent: false,
            content: String::new(),
            tool_calls: Vec::new(),
            leading_blank: String::new(),
            text_seen: false,
            call_seen: false,
            complete_call: false,
        }
    }

    /// The response's id, model, time and fingerprint.
    pub fn meta(&self) -> &CompletionMeta {
        &self.meta
    }

    /// Adds one event to the next chunk.
    pub fn push(&mut self, event: &Event<'_>) {
        match *event {
            Event::Content { text } => self.push_content(text),
            Event::ToolCallStart { index, id, name } => {
                self.call_seen = true;
                self.tool_calls.push(ToolCallDelta {
                    index,
                    id: Some(id.to_owned()),
                    kind: Some(FUNCTION.to_owned()),
                    function: Some(FunctionDelta {
                        name: Some(name.to_owned()),
                        arguments: Some(String::new()),
                        extra: Map::new(),
                    }),
                    extra: Map::new(),
                });
            }
            Event::ArgumentsDelta { index, delta } => self.push_arguments(index, delta),
            Event::ToolCallEnd { complete, .. } => self.complete_call |= complete,
            Event::ParameterStart { .. }
            | Event::ParameterDelta { .. }
            | Event::ParameterEnd { .. }
            | Event::Diagnostic { .. } => {}
        }
    }

    fn push_content(&mut self, text: &str) {
        if self.text_seen {
            self.content.push_str(text);
        } else if text.trim().is_empty()
            && self.leading_blank.len() + text.len() <= MAX_LEADING_BLANK
        {
            self.leading_blank.push_str(text);
        } else {
            self.text_seen = true;
            self.content.push_str(&self.leading_blank);
            self.leading_blank = String::new();
            self.content.push_str(text);
        }
    }

    fn push_arguments(&mut self, index: usize, delta: &str) {
        if delta.is_empty() {
            return;
        }
        if let Some(last) = self.tool_calls.last_mut().filter(|c| c.index == index) {
            let function = last.function.get_or_insert_with(FunctionDelta::default);
            function
                .arguments
                .get_or_insert_with(String::new)
                .push_str(delta);
            return;
        }
        self.tool_calls.push(ToolCallDelta {
            index,
            function: Some(FunctionDelta {
                arguments: Some(delta.to_owned()),
                ..FunctionDelta::default()
            }),
            ..ToolCallDelta::default()
        });
    }

    /// A chunk with what the events since the last chunk added, or `None`
    /// when they added nothing to send.
    pub fn take_chunk(&mut self) -> Option<ChatCompletionChunk> {
        if self.content.is_empty() && self.tool_calls.is_empty() {
            return None;
        }
        Some(self.chunk(None))
    }

    /// The last chunk: what is left, and the `finish_reason`: `length` when
    /// `cut_off` (the model hit its token limit), else `tool_calls` when a
    /// call ended complete, else `stop`.
    ///
    /// A call the stream cut off was closed by the parser with what arrived
    /// (its arguments are valid JSON) and its deltas were sent like any
    /// other's: OpenAI's format cannot take them back nor mark a call
    /// incomplete. With `cut_off`, the reason `length` tells a client not
    /// to trust the calls; without it, an incomplete call alone gives
    /// `stop`, but next to a complete one `tool_calls`: a consumer that must
    /// not run incomplete calls reads `tool_call_end`'s `complete` (or the
    /// `truncated` and `limit_exceeded` diagnostics) from the events.
    pub fn finish(mut self, cut_off: bool) -> ChatCompletionChunk {
        if !self.call_seen {
            // Only whitespace, and no call: that whitespace is the content.
            let blank = std::mem::take(&mut self.leading_blank);
            self.content.push_str(&blank);
        }
        let reason = FinishReason::of(cut_off, self.complete_call);
        self.chunk(Some(reason))
    }

    fn chunk(&mut self, finish_reason: Option<FinishReason>) -> ChatCompletionChunk {
        let role = (!self.role_sent).then(|| ASSISTANT.to_owned());
        self.role_sent = true;
        let content = (!self.content.is_empty()).then(|| std::mem::take(&mut self.content));
        let tool_calls =
            (!self.tool_calls.is_empty()).then(|| std::mem::take(&mut self.tool_calls));
        ChatCompletionChunk {
            id: self.meta.id.clone(),
            object: CHAT_COMPLETION_CHUNK.to_owned(),
            created: self.meta.created,
            model: self.meta.model.clone(),
            system_fingerprint: self.meta.system_fingerprint.clone(),
            choices: vec![ChunkChoice {
                index: 0,
                delta: Delta {
                    role,
                    content,
                    reasoning_content: None,
                    tool_calls,
                    extra: Map::new(),
                },
                finish_reason,
                logprobs: None,
                extra: Map::new(),
            }],
            usage: None,
            extra: Map::new(),
        }
    }
}

/// Pushes each event, as [`ChunkEncoder::push`]: `encoder.extend(parser.feed(piece))`.
impl<'a> Extend<Event<'a>> for ChunkEncoder {
    fn extend<I: IntoIterator<Item = Event<'a>>>(&mut self, events: I) {
        for event in events {
            self.push(&event);
        }
    }
}

/// The most leading whitespace a [`ChunkEncoder`] holds before it sends it
/// as content: holding is for the usual newline or two around calls, and
/// must stay bounded whatever the model writes.
pub const MAX_LEADING_BLANK: usize = 4096;

/// Appends `value` as one server-sent event: `data: {json}` and a blank
/// line. On an error (a value JSON cannot hold) nothing is appended.
///
/// ```
/// use toolcall_stream::openai::write_sse;
/// let mut body = String::new();
/// write_sse(&serde_json::json!({"a": 1}), &mut body).unwrap();
/// assert_eq!(body, "data: {\"a\":1}\n\n");
/// ```
pub fn write_sse(value: &impl Serialize, out: &mut String) -> serde_json::Result<()> {
    let json = serde_json::to_string(value)?;
    out.reserve("data: ".len() + json.len() + 2);
    out.push_str("data: ");
    out.push_str(&json);
    out.push_str("\n\n");
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::{Format, Ids, Parser};

    fn meta() -> CompletionMeta {
        CompletionMeta::new("qwen3-coder")
            .with_id("chatcmpl-abc")
            .with_created(1_700_000_000)
    }

    fn to_json(value: &impl Serialize) -> Value {
        serde_json::to_value(value).unwrap()
    }

    fn start<'a>(index: usize, id: &'a str, name: &'a str) -> Event<'a> {
        Event::ToolCallStart { index, id, name }
    }

    fn args(index: usize, delta: &str) -> Event<'_> {
        Event::ArgumentsDelta { index, delta }
    }

    fn end(index: usize, complete: bool) -> Event<'static> {
        Event::ToolCallEnd {
            index,
            arguments: None,
            complete,
        }
    }

    #[test]
    fn first_chunk_has_openai_exact_shape() {
        let mut encoder = ChunkEncoder::new(meta().with_system_fingerprint("fp_1"));
        encoder.push(&Event::Content { text: "Hi" });
        encoder.push(&start(0, "call_1", "get_weather"));
        let chunk = encoder.take_chunk().unwrap();
        assert_eq!(
            serde_json::to_string(&chunk).unwrap(),
            r#"{"id":"chatcmpl-abc","object":"chat.completion.chunk","created":1700000000,"model":"qwen3-coder","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]}"#
        );
    }

    #[test]
    fn fragments_of_a_call_within_a_chunk_are_joined() {
        let mut encoder = ChunkEncoder::new(meta());
        encoder.push(&start(0, "c0", "f"));
        encoder.take_chunk().unwrap();
        for piece in ["{\"a\"", ": ", "", "\"1\"}"] {
            encoder.push(&args(0, piece));
        }
        encoder.push(&Event::ParameterDelta {
            index: 0,
            text: "1",
        });
        encoder.push(&end(0, true));
        let chunk = encoder.take_chunk().unwrap();
        assert_eq!(
            to_json(&chunk.choices[0].delta),
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"a\": \"1\"}"}}]})
        );
        let last = encoder.finish(false);
        assert_eq!(
            to_json(&last.choices[0]),
            json!({"index": 0, "delta": {}, "finish_reason": "tool_calls"})
        );
    }

    #[test]
    fn a_call_begun_and_ended_in_one_chunk_is_one_delta() {
        let mut encoder = ChunkEncoder::new(meta());
        for event in [
            start(0, "c0", "f"),
            args(0, "{}"),
            end(0, true),
            start(1, "c1", "g"),
            args(1, "{"),
        ] {
            encoder.push(&event);
        }
        let chunk = encoder.take_chunk().unwrap();
        assert_eq!(
            to_json(&chunk.choices[0].delta)["tool_calls"],
            json!([
                {"index": 0, "id": "c0", "type": "function", "function": {"name": "f", "arguments": "{}"}},
                {"index": 1, "id": "c1", "type": "function", "function": {"name": "g", "arguments": "{"}}
            ])
        );
    }

    #[test]
    fn nothing_new_is_no_chunk_and_role_comes_once() {
        let mut encoder = ChunkEncoder::new(meta());
        assert!(encoder.take_chunk().is_none());
        encoder.push(&Event::Diagnostic {
            index: None,
            kind: crate::DiagnosticKind::StrayText,
            message: "m",
        });
        encoder.push(&Event::Content { text: "" });
        assert!(encoder.take_chunk().is_none());
        encoder.push(&Event::Content { text: "a" });
        let first = encoder.take_chunk().unwrap();
        assert_eq!(first.choices[0].delta.role.as_deref(), Some("assistant"));
        encoder.push(&Event::Content { text: "b" });
        let second = encoder.take_chunk().unwrap();
        assert_eq!(second.choices[0].delta.role, None);
        assert_eq!(second.choices[0].delta.content.as_deref(), Some("b"));
    }

    #[test]
    fn an_empty_stream_finishes_with_role_and_stop() {
        let last = ChunkEncoder::new(meta()).finish(false);
        assert_eq!(
            to_json(&last.choices[0]),
            json!({"index": 0, "delta": {"role": "assistant"}, "finish_reason": "stop"})
        );
    }

    #[test]
    fn leading_whitespace_waits_until_it_is_known_to_be_content() {
        // Whitespace then text: all of it is content, in order.
        let mut encoder = ChunkEncoder::new(meta());
        encoder.push(&Event::Content { text: "\n " });
        assert!(encoder.take_chunk().is_none());
        encoder.push(&Event::Content { text: "x\n" });
        let chunk = encoder.take_chunk().unwrap();
        assert_eq!(chunk.choices[0].delta.content.as_deref(), Some("\n x\n"));

        // Whitespace around a call: no content, as `Message`.
        let mut encoder = ChunkEncoder::new(meta());
        encoder.push(&Event::Content { text: "\n" });
        encoder.push(&start(0, "c0", "f"));
        encoder.push(&end(0, true));
        encoder.push(&Event::Content { text: "\n\n" });
        let chunk = encoder.take_chunk().unwrap();
        assert_eq!(chunk.choices[0].delta.content, None);
        assert_eq!(encoder.finish(false).choices[0].delta.content, None);

        // Only whitespace and no call: the whitespace is the content.
        let mut encoder = ChunkEncoder::new(meta());
        encoder.push(&Event::Content { text: " \n" });
        let last = encoder.finish(false);
        assert_eq!(last.choices[0].delta.content.as_deref(), Some(" \n"));
    }

    #[test]
    fn finish_reason_follows_complete_calls_and_cut_off() {
        let reason = |events: &[Event<'_>], cut_off: bool| {
            let mut encoder = ChunkEncoder::new(meta());
            for event in events {
                encoder.push(event);
            }
            encoder.finish(cut_off).choices[0].finish_reason.clone()
        };
        let content = Event::Content { text: "t" };
        assert_eq!(reason(&[content], false), Some(FinishReason::Stop));
        assert_eq!(reason(&[content], true), Some(FinishReason::Length));
        let complete = [start(0, "c", "f"), end(0, true)];
        assert_eq!(reason(&complete, false), Some(FinishReason::ToolCalls));
        assert_eq!(reason(&complete, true), Some(FinishReason::Length));
        let incomplete = [start(0, "c", "f"), end(0, false)];
        assert_eq!(reason(&incomplete, false), Some(FinishReason::Stop));
    }

    #[test]
    fn message_and_chunks_agree_on_finish_reason() {
        let mut parser = Parser::builder().ids(Ids::sequential("c")).build();
        for (input, expected) in [
            ("hello", FinishReason::Stop),
            (
                "<tool_call><function=f></function></tool_call>",
                FinishReason::ToolCalls,
            ),
            ("<tool_call><function=f><parameter=a>1", FinishReason::Stop),
        ] {
            let message = parser.parse(input);
            let completion = message.to_chat_completion(&meta(), false);
            assert_eq!(completion.choices[0].finish_reason, Some(expected.clone()));
            let mut encoder = ChunkEncoder::new(meta());
            parser.reset();
            parser.feed_with(input, |event| encoder.push(&event));
            parser.finish_with(|event| encoder.push(&event));
            assert_eq!(
                encoder.finish(false).choices[0].finish_reason,
                Some(expected)
            );
        }
    }

    #[test]
    fn extend_is_push_for_each_event() {
        let mut parser = Parser::builder().ids(Ids::sequential("c")).build();
        let input = "Hi<tool_call><function=f><parameter=a>1</parameter></function></tool_call>";
        let mut pushed = ChunkEncoder::new(meta());
        parser.feed_with(input, |event| pushed.push(&event));
        parser.reset();
        let mut extended = ChunkEncoder::new(meta());
        extended.extend(parser.feed(input));
        let chunk = extended.take_chunk().unwrap();
        assert_eq!(
            to_json(&chunk.choices[0].delta)["tool_calls"][0]["function"],
            json!({"name": "f", "arguments": "{\"a\": \"1\"}"})
        );
        assert_eq!(Some(chunk), pushed.take_chunk());
        assert_eq!(extended.finish(false), pushed.finish(false));
    }

    #[test]
    fn completion_has_openai_exact_shape() {
        let mut parser = Parser::builder()
            .format(Format::Qwen3Coder)
            .ids(Ids::sequential("call_"))
            .build();
        let message = parser.parse(
            "Let me check.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n\
             </parameter>\n</function>\n</tool_call>",
        );
        let completion = message.to_chat_completion(&meta(), false);
        assert_eq!(
            serde_json::to_string(&completion).unwrap(),
            r#"{"id":"chatcmpl-abc","object":"chat.completion","created":1700000000,"model":"qwen3-coder","choices":[{"index":0,"message":{"role":"assistant","content":"Let me check.\n","refusal":null,"tool_calls":[{"id":"call_0","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"}}]},"finish_reason":"tool_calls","logprobs":null}]}"#
        );
        let empty = Message::default().to_chat_completion(&meta(), true);
        assert_eq!(
            to_json(&empty.choices[0]),
            json!({"index": 0, "message": {"role": "assistant", "content": null, "refusal": null},
                   "finish_reason": "length", "logprobs": null})
        );
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
    fn sse_frames_and_done() {
        let mut body = String::new();
        write_sse(&json!({"x": "a\nb"}), &mut body).unwrap();
        body.push_str(SSE_DONE);
        assert_eq!(body, "data: {\"x\":\"a\\nb\"}\n\ndata: [DONE]\n\n");
        // A value JSON cannot hold leaves the output as it was.
        let bad: std::collections::HashMap<Vec<u8>, u8> = [(vec![1], 1)].into();
        assert!(write_sse(&bad, &mut body).is_err());
        assert!(body.ends_with(SSE_DONE));
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
