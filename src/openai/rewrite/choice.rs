//! One upstream choice's state: its parser, its encoder, what it made.

use std::mem;

use super::{append, ordered, take_pending, Added};
use crate::openai::{ChatCompletionChunk, ChunkEncoder, CompletionMeta, FinishReason};
use crate::{Diagnostic, Parser};

pub(super) struct ChoiceState {
    pub(super) index: usize,
    pub(super) parser: Parser,
    pub(super) encoder: ChunkEncoder,
    /// The choice got its `finish_reason` (its parser is finished).
    pub(super) finished: bool,
    /// Complete calls this choice made.
    pub(super) calls: usize,
    /// Diagnostics since [`Rewriter::drain_diagnostics`] (or
    /// [`drain_diagnostic_details`](Rewriter::drain_diagnostic_details))
    /// last took them.
    pub(super) diagnostics: Vec<Diagnostic>,
}

impl std::fmt::Debug for ChoiceState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChoiceState")
            .field("index", &self.index)
            .field("finished", &self.finished)
            .field("calls", &self.calls)
            .finish_non_exhaustive()
    }
}

impl ChoiceState {
    /// Feeds model text; what it completed goes to `added`. With `split`
    /// (an ordered rewriter), what came before an event that would be out
    /// of order in one chunk goes there first, as its own segments.
    pub(super) fn feed(&mut self, text: &str, added: &mut Added, split: Option<&mut Vec<Added>>) {
        if self.finished {
            // Text after the choice's end has no parser left: as it came.
            append(&mut added.content, text);
            return;
        }
        self.parse(text, split);
        take_pending(&mut self.encoder, added);
    }

    /// Feeds model text to a parser not finished; what it completed waits
    /// in the encoder (and, with `split`, in the segments cut before).
    pub(super) fn parse(&mut self, text: &str, mut split: Option<&mut Vec<Added>>) {
        let (encoder, calls, diagnostics) =
            (&mut self.encoder, &mut self.calls, &mut self.diagnostics);
        self.parser.feed_str_with(text, |event| {
            count(&event, calls, diagnostics);
            if let Some(split) = split.as_deref_mut() {
                ordered::cut_before(&event, encoder, split);
            }
            encoder.push(&event);
        });
    }

    /// The choice ended with the upstream's `reason`.
    pub(super) fn finish(
        &mut self,
        reason: FinishReason,
        added: &mut Added,
        mut split: Option<&mut Vec<Added>>,
    ) {
        if self.finished {
            added.finish_reason = Some(reason);
            return;
        }
        self.finished = true;
        let (encoder, calls, diagnostics) =
            (&mut self.encoder, &mut self.calls, &mut self.diagnostics);
        self.parser.finish_with(|event| {
            count(&event, calls, diagnostics);
            if let Some(split) = split.as_deref_mut() {
                ordered::cut_before(&event, encoder, split);
            }
            encoder.push(&event);
        });
        let encoder = mem::replace(
            &mut self.encoder,
            ChunkEncoder::new(CompletionMeta::new("")),
        );
        let last = encoder.finish(reason == FinishReason::Length);
        let ours = last.choices.first().and_then(|c| c.finish_reason.clone());
        take_delta(last, added);
        added.finish_reason = Some(match reason {
            FinishReason::Stop | FinishReason::ToolCalls => ours.unwrap_or(FinishReason::Stop),
            other => other,
        });
    }
}

fn count(event: &crate::Event<'_>, calls: &mut usize, diagnostics: &mut Vec<Diagnostic>) {
    match event {
        crate::Event::ToolCallEnd { complete: true, .. } => *calls += 1,
        crate::Event::Diagnostic {
            index,
            kind,
            message,
            span,
        } => diagnostics.push(Diagnostic {
            index: *index,
            kind: *kind,
            message: message.to_string(),
            span: *span,
        }),
        _ => {}
    }
}

/// Moves an encoder chunk's content and tool calls into `added`.
fn take_delta(chunk: ChatCompletionChunk, added: &mut Added) {
    for choice in chunk.choices {
        if let Some(content) = choice.delta.content {
            append(&mut added.content, &content);
        }
        if let Some(reasoning) = choice.delta.reasoning_content {
            append(&mut added.reasoning, &reasoning);
        }
        if let Some(calls) = choice.delta.tool_calls {
            added.tool_calls.get_or_insert_with(Vec::new).extend(calls);
        }
    }
}
