//! Rewriting an upstream server's OpenAI responses: the text its model
//! wrote (`delta.content`, `message.content`) goes through a parser, and
//! the tool calls in it come out as `tool_calls`. Sans-IO: a proxy reads
//! the upstream's chunks and writes what comes out.

use std::mem;

use crate::openai::look::Frame;
use crate::openai::{
    ChatCompletionChunk, ChunkChoice, ChunkEncoder, CompletionMeta, Delta, FinishReason,
    ToolCallDelta,
};
use crate::{Diagnostic, DiagnosticKind, ParserBuilder};

mod choice;
mod chunks;
mod completion;
mod json;
mod ordered;

use choice::ChoiceState;

pub use completion::{rewrite_completion, rewrite_completion_with};

/// Rewrites a stream of `chat.completion.chunk`s: each choice's
/// `delta.content` goes through its own parser, and comes out as
/// `delta.content` and `delta.tool_calls`.
///
/// Everything else passes through: the chunk's `id`, `model`, `created`,
/// `system_fingerprint`, `usage` and unknown fields, each choice's `role`,
/// `reasoning_content`, `logprobs` and unknown fields. A chunk that is left
/// with nothing to say is not sent. `finish_reason`: the upstream's
/// `length` (and any reason this crate does not know, such as
/// `content_filter`) is kept; otherwise it is `tool_calls` when the choice
/// made a complete call, else `stop`.
///
/// Content is sent without the layout whitespace next to calls, as
/// [`ChunkEncoder`] sends it.
///
/// The parsers come from one [`ParserBuilder`]; give it the request's
/// `tools` (values are typed from them).
///
/// **Streaming (the default).** A call streams as it is parsed: its first
/// delta (id and name) as soon as the name is known, its arguments as they
/// arrive. A UI shows the call while the model writes it. The upstream's
/// `length` is kept, which tells a client that the last call may be cut
/// off (its deltas were sent; OpenAI's format cannot take them back).
///
/// **Holding (opt-in safety).** With
/// [`incomplete_calls_as_content(true)`](ParserBuilder::incomplete_calls_as_content)
/// (or [`strict(true)`](ParserBuilder::strict)) each call is held until
/// it ends, then sent whole: a call the upstream's token limit (or a cut,
/// [`finish_cut`](Rewriter::finish_cut)) cut off is never sent as a tool
/// call, it comes back as content. The price: a UI sees nothing of a call
/// until it ends. The hold is bounded by
/// [`Limits::max_held_call`](crate::Limits::max_held_call) (4 MiB by
/// default); a longer call is passed on from there as it streams (strict
/// mode rejects it instead).
///
/// ```
/// use toolcall_stream::openai::{ChatCompletionChunk, FinishReason, Rewriter};
/// use toolcall_stream::Parser;
///
/// let upstream = |content: &str, finish: Option<&str>| -> ChatCompletionChunk {
///     serde_json::from_value(serde_json::json!({
///         "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
///         "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": finish}]
///     })).unwrap()
/// };
/// let mut rewriter = Rewriter::new(Parser::builder());
/// let mut out = Vec::new();
/// rewriter.push(upstream("Sure.<tool_call>\n<function=ls>\n<param", None), &mut out);
/// rewriter.push(upstream("eter=path>\n.\n</parameter>\n</function>\n</tool_call>", Some("stop")), &mut out);
/// rewriter.finish(&mut out);
/// let last = out.last().unwrap();
/// assert_eq!(last.choices[0].finish_reason, Some(FinishReason::ToolCalls));
/// assert_eq!(out[0].choices[0].delta.content.as_deref(), Some("Sure."));
/// assert_eq!(rewriter.calls(), 1);
/// ```
#[derive(Debug)]
pub struct Rewriter {
    builder: ParserBuilder,
    choices: Vec<ChoiceState>,
    calls: usize,
    /// The last upstream chunk's fields, without its choices: the chunk
    /// [`finish`](Rewriter::finish) sends is made of them.
    template: Option<ChatCompletionChunk>,
    /// Or the last chunk's JSON, when [`push_json`](Rewriter::push_json)
    /// did not decode it: decoded only if a chunk is made of it. A chunk
    /// that is the same but for its text leaves it as it is (what is
    /// decoded of it is the same).
    template_json: String,
    /// Where `template_json`'s text is, when the look took it.
    frame: Option<Frame>,
    /// Reused by [`push_json`](Rewriter::push_json) for the chunks it
    /// writes.
    sent: Vec<ChatCompletionChunk>,
    /// Reused by [`push_json`](Rewriter::push_json) for a chunk whose text
    /// changed or made calls.
    spliced: String,
    /// Each chunk says its text and calls in the order the model wrote
    /// them ([`ordered`](Rewriter::ordered)).
    ordered: bool,
}

/// How [`Rewriter::push_json`] took an upstream chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Pushed {
    /// What to send for it (maybe nothing) was appended.
    Sent,
    /// It is the upstream's error event (an object with an `error` field,
    /// as vLLM sends when generation fails): nothing was fed or appended;
    /// send it as it came, the upstream's answer failed.
    Error,
}

/// What a choice's parser added since the last look.
#[derive(Default)]
struct Added {
    content: Option<String>,
    /// Reasoning split out of the text (`reasoning` events).
    reasoning: Option<String>,
    tool_calls: Option<Vec<ToolCallDelta>>,
    finish_reason: Option<FinishReason>,
}

impl Rewriter {
    /// A rewriter whose parsers (one per choice) `builder` makes.
    pub fn new(builder: ParserBuilder) -> Rewriter {
        Rewriter {
            builder,
            choices: Vec::new(),
            calls: 0,
            template: None,
            template_json: String::new(),
            frame: None,
            sent: Vec::new(),
            spliced: String::new(),
            ordered: false,
        }
    }

    /// Complete tool calls made so far, over all choices.
    pub fn calls(&self) -> usize {
        self.calls
    }

    /// The kinds of the diagnostics (every lenient recovery the parsers
    /// made) since the last call, over all choices: a proxy counts them.
    /// They are kept until taken, so take them after each
    /// [`push`](Rewriter::push) to hold no more than one chunk's worth.
    ///
    /// ```
    /// use toolcall_stream::openai::{ChatCompletionChunk, Rewriter};
    /// use toolcall_stream::{DiagnosticKind, Parser};
    ///
    /// let chunk: ChatCompletionChunk = serde_json::from_value(serde_json::json!({
    ///     "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
    ///     "choices": [{"index": 0, "delta": {"content": "<tool_call>\n<function=f>\n"}, "finish_reason": "stop"}]
    /// })).unwrap();
    /// let mut rewriter = Rewriter::new(Parser::builder());
    /// rewriter.push(chunk, &mut Vec::new());
    /// let kinds: Vec<DiagnosticKind> = rewriter.drain_diagnostics().collect();
    /// assert_eq!(kinds, [DiagnosticKind::Truncated]);
    /// assert_eq!(rewriter.drain_diagnostics().count(), 0);
    /// ```
    pub fn drain_diagnostics(&mut self) -> impl Iterator<Item = DiagnosticKind> + '_ {
        self.drain_diagnostic_details().map(|d| d.kind)
    }

    /// The diagnostics since the last call, whole (the call's index, the
    /// kind, the sentence, the span: byte offsets into the choice's own
    /// text), choice by choice: what
    /// [`drain_diagnostics`](Rewriter::drain_diagnostics) gives the kinds
    /// of. Either takes them.
    ///
    /// ```
    /// use toolcall_stream::openai::{ChatCompletionChunk, Rewriter};
    /// use toolcall_stream::{DiagnosticKind, Parser};
    ///
    /// let text = "<tool_call>\n<function=f>\n";
    /// let chunk: ChatCompletionChunk = serde_json::from_value(serde_json::json!({
    ///     "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
    ///     "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": "stop"}]
    /// })).unwrap();
    /// let mut rewriter = Rewriter::new(Parser::builder());
    /// rewriter.push(chunk, &mut Vec::new());
    /// let taken: Vec<_> = rewriter.drain_diagnostic_details().collect();
    /// assert_eq!(taken.len(), 1);
    /// assert_eq!(taken[0].kind, DiagnosticKind::Truncated);
    /// assert_eq!((taken[0].index, taken[0].span.end), (Some(0), text.len() as u64));
    /// assert!(!taken[0].message.is_empty());
    /// assert_eq!(rewriter.drain_diagnostics().count(), 0);
    /// ```
    pub fn drain_diagnostic_details(&mut self) -> impl Iterator<Item = Diagnostic> + '_ {
        self.choices
            .iter_mut()
            .flat_map(|choice| choice.diagnostics.drain(..))
    }

    /// Whether every choice seen so far got its `finish_reason` (`false`
    /// before any): a stream that ends after that has ended, even without
    /// `[DONE]`.
    pub fn all_finished(&self) -> bool {
        !self.choices.is_empty() && self.choices.iter().all(|c| c.finished)
    }

    /// One upstream chunk; the chunks to send are appended to `out`
    /// (none when it added nothing to send).
    pub fn push(&mut self, chunk: ChatCompletionChunk, out: &mut Vec<ChatCompletionChunk>) {
        self.push_fed(chunk, None, out);
    }

    /// [`push`](Rewriter::push); `fed`: what the parser of the chunk's one
    /// choice already made of its text.
    fn push_fed(
        &mut self,
        mut chunk: ChatCompletionChunk,
        mut fed: Option<Added>,
        out: &mut Vec<ChatCompletionChunk>,
    ) {
        let upstream_choices = mem::take(&mut chunk.choices);
        let had_choices = !upstream_choices.is_empty();
        self.template = Some(ChatCompletionChunk {
            choices: Vec::new(),
            usage: None,
            ..chunk.clone()
        });
        for mut choice in upstream_choices {
            let text = choice.delta.content.take();
            let upstream_reason = choice.finish_reason.take();
            let ordered = self.ordered;
            let state = self.state(choice.index);
            // Ordered: what the model wrote before a call's text came back
            // goes in chunks of its own, before this one.
            let mut before = Vec::new();
            let split = ordered.then_some(&mut before);
            let mut added = match fed.take() {
                Some(added) => added,
                None => {
                    let mut added = Added::default();
                    if let Some(text) = text {
                        state.feed(&text, &mut added, split);
                    }
                    added
                }
            };
            if let Some(reason) = upstream_reason {
                if ordered && !added.is_empty() {
                    // What the parser's end adds comes after it.
                    before.push(mem::take(&mut added));
                }
                state.finish(reason, &mut added, ordered.then_some(&mut before));
            }
            ordered::push_segments(choice.index, &mut before, &chunk, out);
            self.calls = self.choices.iter().map(|c| c.calls).sum();
            choice.delta.content = added.content;
            if let Some(ours) = added.reasoning {
                // The upstream's own reasoning (a server that split some
                // itself) first, then ours.
                choice
                    .delta
                    .reasoning_content
                    .get_or_insert_with(String::new)
                    .push_str(&ours);
            }
            choice.delta.tool_calls = merge_calls(choice.delta.tool_calls.take(), added.tool_calls);
            choice.finish_reason = added.finish_reason;
            if choice_says_something(&choice) {
                chunk.choices.push(choice);
            }
        }
        // A chunk without choices (usage, at the end) passes as it came;
        // one whose choices all had nothing left to say is not sent.
        if !chunk.choices.is_empty() || !had_choices || chunk.usage.is_some() {
            out.push(chunk);
        }
    }

    /// The upstream stream ended (`data: [DONE]`, or the end of the body):
    /// choices that never got a `finish_reason` are finished (`stop`, or
    /// `tool_calls`), and what their parsers held is sent.
    ///
    /// When the stream stopped without an end (no `finish_reason` and no
    /// `[DONE]`: a crashed server, a dropped connection), call
    /// [`finish_cut`](Rewriter::finish_cut) instead.
    pub fn finish(&mut self, out: &mut Vec<ChatCompletionChunk>) {
        self.finish_all(FinishReason::Stop, out);
    }

    /// The upstream stream was cut: it stopped with neither a
    /// `finish_reason` nor `[DONE]` (a crashed server, a dropped
    /// connection). A cut is not an end: every choice not yet finished is
    /// finished as cut off, as under `length`. Its parser finishes as it
    /// would at a token limit: with
    /// [`incomplete_calls_as_content(true)`](ParserBuilder::incomplete_calls_as_content)
    /// a held call that lacked its end comes back as content; a call that
    /// lacked its end is never counted in [`calls`](Rewriter::calls) nor
    /// reported complete. Its `finish_reason` is `length`, what clients
    /// check to know a stream was cut, never `stop` or `tool_calls`.
    ///
    /// After it, a server sends an error event (an
    /// [`ErrorResponse`](crate::openai::ErrorResponse) as `data:`) and
    /// `data: [DONE]`, so that the client knows the response failed.
    ///
    /// ```
    /// use toolcall_stream::openai::{ChatCompletionChunk, FinishReason, Rewriter};
    /// use toolcall_stream::Parser;
    ///
    /// let upstream: ChatCompletionChunk = serde_json::from_value(serde_json::json!({
    ///     "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
    ///     "choices": [{"index": 0, "delta": {"content": "On it.\n<tool_call>\n<function=ls>\n<param"},
    ///                  "finish_reason": null}]})).unwrap();
    /// let mut rewriter = Rewriter::new(Parser::builder().incomplete_calls_as_content(true));
    /// let mut out = Vec::new();
    /// rewriter.push(upstream, &mut out);
    /// rewriter.finish_cut(&mut out);       // the connection dropped here
    /// let last = &out.last().unwrap().choices[0];
    /// assert_eq!(last.finish_reason, Some(FinishReason::Length));
    /// // The held call that never ended comes back as content, not as a call.
    /// assert!(last.delta.content.as_deref().unwrap().contains("<function=ls>"));
    /// assert!(out.iter().all(|c| c.choices[0].delta.tool_calls.is_none()));
    /// assert_eq!(rewriter.calls(), 0);
    /// ```
    pub fn finish_cut(&mut self, out: &mut Vec<ChatCompletionChunk>) {
        self.finish_all(FinishReason::Length, out);
    }

    /// Finishes every choice not finished yet with the upstream's `reason`.
    fn finish_all(&mut self, reason: FinishReason, out: &mut Vec<ChatCompletionChunk>) {
        let template = self.template.take().or_else(|| {
            // The last chunk came through `push_json`, which took it.
            let mut chunk: ChatCompletionChunk = serde_json::from_str(&self.template_json).ok()?;
            chunk.choices.clear();
            chunk.usage = None;
            Some(chunk)
        });
        self.template_json = String::new();
        self.frame = None;
        let Some(mut chunk) = template else {
            return;
        };
        for state in self.choices.iter_mut().filter(|c| !c.finished) {
            let mut added = Added::default();
            let mut before = Vec::new();
            state.finish(
                reason.clone(),
                &mut added,
                self.ordered.then_some(&mut before),
            );
            ordered::push_segments(state.index, &mut before, &chunk, out);
            let choice = ChunkChoice {
                index: state.index,
                delta: Delta {
                    content: added.content,
                    reasoning_content: added.reasoning,
                    tool_calls: added.tool_calls,
                    ..Delta::default()
                },
                finish_reason: added.finish_reason,
                logprobs: None,
                extra: Default::default(),
            };
            chunk.choices.push(choice);
        }
        self.calls = self.choices.iter().map(|c| c.calls).sum();
        if !chunk.choices.is_empty() {
            out.push(chunk);
        }
    }

    fn state(&mut self, index: usize) -> &mut ChoiceState {
        let at = match self.choices.iter().position(|c| c.index == index) {
            Some(at) => at,
            None => {
                self.choices.push(ChoiceState {
                    index,
                    parser: self.builder.clone().build(),
                    encoder: ChunkEncoder::new(CompletionMeta::new("")),
                    finished: false,
                    calls: 0,
                    diagnostics: Vec::new(),
                });
                self.choices.len() - 1
            }
        };
        &mut self.choices[at]
    }
}

/// Moves what waits in `encoder` into `added`.
fn take_pending(encoder: &mut ChunkEncoder, added: &mut Added) {
    let (content, reasoning, calls) = encoder.pending();
    if !content.is_empty() {
        append(&mut added.content, content);
        content.clear();
    }
    if !reasoning.is_empty() {
        append(&mut added.reasoning, reasoning);
        reasoning.clear();
    }
    if !calls.is_empty() {
        added.tool_calls.get_or_insert_with(Vec::new).append(calls);
    }
}

fn append(to: &mut Option<String>, text: &str) {
    if !text.is_empty() {
        to.get_or_insert_with(String::new).push_str(text);
    }
}

/// The upstream's own tool calls (a server that parsed some itself) first,
/// then ours.
fn merge_calls(
    upstream: Option<Vec<ToolCallDelta>>,
    ours: Option<Vec<ToolCallDelta>>,
) -> Option<Vec<ToolCallDelta>> {
    match (upstream, ours) {
        (Some(mut theirs), Some(ours)) => {
            theirs.extend(ours);
            Some(theirs)
        }
        (theirs, None) => theirs,
        (None, ours) => ours,
    }
}

/// Whether a choice still carries anything once its text was taken out.
fn choice_says_something(choice: &ChunkChoice) -> bool {
    let delta = &choice.delta;
    delta.role.is_some()
        || delta.content.is_some()
        || delta.reasoning_content.is_some()
        || delta.tool_calls.is_some()
        || !delta.extra.is_empty()
        || choice.finish_reason.is_some()
        || choice.logprobs.is_some()
        || !choice.extra.is_empty()
}

/// Whether an event that is not a chunk is an upstream's error: an object
/// with an `error` member, as the look (`Look::Error`) and a chunk with an
/// `error` field are read, so every path agrees.
fn is_error_event(json: &str) -> bool {
    serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(json)
        .is_ok_and(|object| object.contains_key("error"))
}
