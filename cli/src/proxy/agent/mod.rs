//! The agents' APIs, served by the proxy itself: OpenAI Responses
//! (`POST /v1/responses`) and Anthropic Messages (`POST /v1/messages`).
//!
//! Each request is translated to a chat completions request for the
//! upstream; the upstream's answer goes through the same parsing as the
//! chat route (the library's `Rewriter`, which makes `tool_calls` of the
//! model's text) and its rewritten chunks are written in the client's API
//! by an [`AnswerWriter`]. Both halves are sans-IO: bytes and values in,
//! bytes and values out, tested without a network.
//!
//! ```text
//! client request ──translate──▶ chat request ──▶ upstream
//! upstream chunks ──Rewriter──▶ chat chunks ──AnswerWriter──▶ client events
//! ```

pub mod chunk;
#[cfg(test)]
mod cost_tests;
pub mod error;
pub mod estimate;
pub mod ids;
pub mod messages;
pub mod notes;
#[cfg(test)]
mod pipeline_tests;
pub mod responses;
pub mod sse;
pub mod writer;

use serde_json::{Map, Value};

pub use error::{AgentError, ErrorKind};
pub use ids::IdMaker;
pub use writer::{AnswerWriter, Failure, FailureKind};

/// Which agent API a request speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Api {
    /// OpenAI Responses: `/v1/responses`.
    Responses,
    /// Anthropic Messages: `/v1/messages`.
    Messages,
}

impl Api {
    /// The route's name in logs and metrics.
    pub fn route(self, stream: bool) -> &'static str {
        match (self, stream) {
            (Api::Responses, false) => "responses",
            (Api::Responses, true) => "responses_stream",
            (Api::Messages, false) => "messages",
            (Api::Messages, true) => "messages_stream",
        }
    }
}

/// What the proxy decided for a request before translating it.
#[derive(Clone, Debug)]
pub struct Options {
    /// The model named in the upstream request (the `--model-map` target,
    /// else the client's own model name).
    pub upstream_model: String,
    /// `--max-tokens-cap`: what is asked of the upstream is clamped to it.
    pub max_tokens_cap: Option<u64>,
    /// The most bytes of one answer a writer keeps (text and arguments)
    /// when it must keep the whole answer: past it the answer fails
    /// (`--max-response-bytes`).
    pub max_answer_bytes: usize,
    /// How the writer makes the ids it mints.
    pub ids: IdMaker,
}

/// A client request, translated.
pub struct Translated {
    /// The chat completions request for the upstream (its `model` is
    /// `Options::upstream_model`; `stream_options.include_usage` is set
    /// when streaming).
    pub chat: Map<String, Value>,
    /// The client asked for a stream.
    pub stream: bool,
    /// Writes the upstream's (rewritten) answer in the client's API.
    pub writer: Box<dyn AnswerWriter>,
}

impl std::fmt::Debug for Translated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Translated")
            .field("chat", &self.chat)
            .field("stream", &self.stream)
            .finish_non_exhaustive()
    }
}
