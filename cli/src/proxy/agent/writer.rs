//! What every agent API's answer writer does with the rewritten chat
//! chunks, streamed or whole.

use serde_json::Value;
use toolcall_stream::openai::ChatCompletionChunk;

use super::error::ErrorKind;
use crate::proxy::store::StoredResponse;

/// Writes one answer in an agent API, from the chat chunks the `Rewriter`
/// made of the upstream's stream (or of its whole answer, as one chunk).
///
/// Streamed, every method appends the API's server-sent events (`event:`
/// and `data:` lines) to `out`; whole, the events are dropped and
/// [`answer`](AnswerWriter::answer) is the response body. Exactly one of
/// [`end`](AnswerWriter::end) and [`fail`](AnswerWriter::fail) is called,
/// once, last.
pub trait AnswerWriter: Send {
    /// One rewritten chunk (text, reasoning, tool-call deltas, a
    /// `finish_reason`, `usage`). `Err`: the answer cannot go on (it
    /// outgrew `Options::max_answer_bytes`); the caller then calls
    /// [`fail`](AnswerWriter::fail) with it.
    fn chunk(&mut self, chunk: &ChatCompletionChunk, out: &mut String) -> Result<(), Failure>;

    /// The upstream ended its answer. `complete_calls`: how many of the
    /// calls (the first ones, in order) the parser saw end; a call past
    /// them was cut off and is never written as a complete call.
    fn end(&mut self, complete_calls: usize, out: &mut String);

    /// The answer failed (`failure` says why): what is open is closed as
    /// the API allows, and the API's error or failed event is written.
    fn fail(&mut self, failure: &Failure, complete_calls: usize, out: &mut String);

    /// The upstream has been silent for a while: an event that keeps the
    /// client's connection alive (Anthropic's `ping`), or nothing.
    fn keepalive(&mut self, out: &mut String);

    /// The whole answer as the API's response object (after `end` or
    /// `fail`): a Responses `response` or an Anthropic `message`.
    fn answer(&mut self) -> Value;

    /// After `end`/`fail`: what to keep for a later `previous_response_id`
    /// (the response's id and the conversation's items), or `None`.
    fn stored(&mut self) -> Option<(String, StoredResponse)> {
        None
    }
}

/// Why an answer failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub kind: FailureKind,
    /// For the client and the log; never the upstream's address.
    pub message: String,
}

/// The kinds of failure an answer can end with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureKind {
    /// The upstream's stream stopped with neither a finish nor `[DONE]`,
    /// or its connection failed.
    Cut,
    /// The upstream went silent past `--idle-timeout`.
    Timeout,
    /// The upstream's stream could not be read (bad SSE, bad JSON).
    StreamError,
    /// The upstream sent its own error event mid-stream.
    Upstream,
    /// The prompt did not fit the model's context.
    ContextLength,
    /// The answer outgrew what the proxy keeps of one answer.
    TooLarge,
}

impl FailureKind {
    /// The error's kind in the client's API.
    pub fn error_kind(self) -> ErrorKind {
        match self {
            FailureKind::Timeout => ErrorKind::Timeout,
            FailureKind::ContextLength => ErrorKind::ContextLength,
            FailureKind::Cut | FailureKind::StreamError | FailureKind::Upstream => {
                ErrorKind::Upstream
            }
            FailureKind::TooLarge => ErrorKind::TooLarge,
        }
    }
}

impl Failure {
    pub fn new(kind: FailureKind, message: impl Into<String>) -> Failure {
        Failure {
            kind,
            message: message.into(),
        }
    }
}
