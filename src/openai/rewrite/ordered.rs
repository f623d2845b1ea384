//! [`Rewriter::ordered`]: chunks that say their text and calls in the
//! order the model wrote them.
//!
//! A chat chunk's delta has one `content`, one `reasoning_content` and a
//! list of call deltas: one chunk cannot say "text, then a call, then more
//! text". OpenAI's clients do not care (a message's content is one
//! string), but an API whose answer is a sequence of blocks (Anthropic's
//! content blocks, Responses' output items) does: when one upstream chunk
//! holds text after a call, the text would move before the call, and the
//! answer would depend on how the upstream cut its chunks. An ordered
//! rewriter cuts such a chunk in two, so that within each chunk the order
//! is: the open call's arguments, reasoning, content, new calls.

use super::{take_pending, Added, Rewriter};
use crate::openai::{ChatCompletionChunk, ChunkChoice, ChunkEncoder, Delta};
use crate::Event;

impl Rewriter {
    /// Whether each chunk says its text and calls in the order the model
    /// wrote them: text written after a call (or reasoning after text) in
    /// one upstream chunk goes in a chunk of its own, after the one with
    /// the call. Off by default (OpenAI's clients join a message's content
    /// whatever its place); a translator to an API of ordered blocks
    /// (Anthropic Messages, OpenAI Responses) turns it on.
    ///
    /// ```
    /// use toolcall_stream::openai::{ChatCompletionChunk, Rewriter};
    /// use toolcall_stream::{Format, Parser};
    ///
    /// let chunk: ChatCompletionChunk = serde_json::from_value(serde_json::json!({
    ///     "id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
    ///     "choices": [{"index": 0, "finish_reason": "stop", "delta": {"content":
    ///         "Before.<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>After."}}]
    /// })).unwrap();
    /// let mut rewriter = Rewriter::new(Parser::builder().format(Format::Hermes)).ordered(true);
    /// let mut out = Vec::new();
    /// rewriter.push(chunk, &mut out);
    /// let said: Vec<(Option<&str>, bool, Option<&str>)> = out.iter().map(|c| {
    ///     let choice = &c.choices[0];
    ///     let reason = choice.finish_reason.as_ref().map(|r| r.as_str());
    ///     (choice.delta.content.as_deref(), choice.delta.tool_calls.is_some(), reason)
    /// }).collect();
    /// assert_eq!(said, [
    ///     (Some("Before."), true, None),
    ///     (Some("After."), false, None),
    ///     (None, false, Some("tool_calls")),
    /// ]);
    /// ```
    pub fn ordered(mut self, ordered: bool) -> Rewriter {
        self.ordered = ordered;
        self
    }
}

impl Added {
    pub(super) fn is_empty(&self) -> bool {
        self.content.is_none() && self.reasoning.is_none() && self.tool_calls.is_none()
    }
}

/// Before `event` goes to `encoder`: if it would come out of order in the
/// chunk being gathered (text after a call, reasoning after text or a
/// call), what the encoder holds becomes a segment of its own.
pub(super) fn cut_before(event: &Event<'_>, encoder: &mut ChunkEncoder, split: &mut Vec<Added>) {
    let (content, _, calls) = encoder.pending();
    let out_of_order = match event {
        Event::Content { .. } => !calls.is_empty(),
        Event::Reasoning { .. } => !calls.is_empty() || !content.is_empty(),
        _ => false,
    };
    if out_of_order {
        let mut segment = Added::default();
        take_pending(encoder, &mut segment);
        if !segment.is_empty() {
            split.push(segment);
        }
    }
}

/// The segments cut before a chunk's last, each a chunk of its own for
/// choice `index`, made of `template`'s fields.
pub(super) fn push_segments(
    index: usize,
    segments: &mut Vec<Added>,
    template: &ChatCompletionChunk,
    out: &mut Vec<ChatCompletionChunk>,
) {
    for segment in segments.drain(..) {
        out.push(ChatCompletionChunk {
            choices: vec![ChunkChoice {
                index,
                delta: Delta {
                    content: segment.content,
                    reasoning_content: segment.reasoning,
                    tool_calls: segment.tool_calls,
                    ..Delta::default()
                },
                finish_reason: None,
                logprobs: None,
                extra: Default::default(),
            }],
            usage: None,
            ..template.clone()
        });
    }
}
