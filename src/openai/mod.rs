//! OpenAI wire output: `chat.completion` and `chat.completion.chunk`.
//!
//! [`ChunkEncoder`] turns the parser's [events](crate::Event) into the
//! chunks of an OpenAI streaming response, sans-IO: push events, take a
//! chunk when the caller wants to send one (after each piece of model
//! output fed), [`finish`](ChunkEncoder::finish) with the last one.
//! [`Message::to_chat_completion`](crate::Message::to_chat_completion) makes the non-streaming response.
//! [`write_sse`] and [`SSE_DONE`] frame them as server-sent events.
//! A server reads its requests as [`ChatCompletionRequest`] and answers a
//! bad one (or ends a stream that failed) with an [`ErrorResponse`];
//! [`Rewriter`] and [`rewrite_completion`] rewrite an upstream server's
//! responses.
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

mod encoder;
mod error;
mod layout;
mod look;
mod request;
mod rewrite;
mod sse;
mod types;

pub use encoder::ChunkEncoder;
pub use error::{ErrorObject, ErrorResponse};
pub use layout::{ContentLayout, MAX_LEADING_BLANK};
pub use request::{ChatCompletionRequest, StreamOptions};
pub use rewrite::{rewrite_completion, rewrite_completion_with, Pushed, Rewriter};
pub use sse::{write_json_string, write_sse, write_sse_data, SSE_DONE};
pub use types::{
    ChatCompletion, ChatCompletionChunk, Choice, ChunkChoice, CompletionMeta, Delta, FinishReason,
    FunctionCall, FunctionDelta, ResponseMessage, ToolCall, ToolCallDelta, Usage, CHAT_COMPLETION,
    CHAT_COMPLETION_CHUNK,
};

/// The role of every message this crate writes.
const ASSISTANT: &str = "assistant";
/// The `type` of every tool call.
const FUNCTION: &str = "function";
