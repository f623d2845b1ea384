//! [`Rewriter::push_json_chunks`]: an upstream chunk's JSON in, rewritten
//! chunks out, for a caller that writes another API from them (the
//! proxy's Responses and Messages routes). Most chunks are a few bytes of
//! one choice's text: the same first look as
//! [`push_json`](Rewriter::push_json) finds the text without decoding the
//! chunk, and a chunk to send is made from the stream's last decoded one.

use super::{is_error_event, ordered, Added, Pushed, Rewriter};
use crate::openai::look::{look, Frame, Look};
use crate::openai::{ChatCompletionChunk, ChunkChoice, Delta};

impl Rewriter {
    /// One upstream chunk as its JSON text (an SSE event's data); the
    /// chunks to send for it are appended to `out`, as
    /// [`push`](Rewriter::push) appends them for the chunk decoded from
    /// it. A chunk that holds nothing but one choice's text is not decoded:
    /// the chunks made of it take the `id`, `model`, `created` and unknown
    /// fields of the last chunk that was. An error for JSON that is not a
    /// `chat.completion.chunk`, unless it is the upstream's error event
    /// ([`Pushed::Error`]).
    ///
    /// ```
    /// use toolcall_stream::openai::{Pushed, Rewriter};
    /// use toolcall_stream::{Format, Parser};
    ///
    /// let chunk = |delta: serde_json::Value| serde_json::json!({
    ///     "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
    ///     "choices": [{"index": 0, "delta": delta, "finish_reason": null}]
    /// }).to_string();
    /// let mut rewriter = Rewriter::new(Parser::builder().format(Format::Hermes));
    /// let mut out = Vec::new();
    /// rewriter.push_json_chunks(&chunk(serde_json::json!({"role": "assistant", "content": ""})), &mut out).unwrap();
    /// rewriter.push_json_chunks(&chunk(serde_json::json!({"content": "Hi."})), &mut out).unwrap();
    /// assert_eq!(out.last().unwrap().choices[0].delta.content.as_deref(), Some("Hi."));
    /// assert_eq!(out.last().unwrap().id, "chatcmpl-1");
    /// assert_eq!(rewriter.push_json_chunks(r#"{"error": {"message": "x"}}"#, &mut out).unwrap(), Pushed::Error);
    /// assert!(rewriter.push_json_chunks("{", &mut out).is_err());
    /// ```
    pub fn push_json_chunks(
        &mut self,
        json: &str,
        out: &mut Vec<ChatCompletionChunk>,
    ) -> serde_json::Result<Pushed> {
        // Most chunks are the last one with another text: no scan.
        let framed = self
            .frame
            .and_then(|frame| frame.look(&self.template_json, json));
        let looked = match framed {
            Some(looked) => Some(looked),
            None => {
                let looked = look(json);
                self.frame = looked.as_ref().and_then(|l| Frame::of(json, l));
                if self.frame.is_some() {
                    self.template_json.clear();
                    self.template_json.push_str(json);
                }
                looked
            }
        };
        match looked {
            Some(Look::Error) => Ok(Pushed::Error),
            Some(Look::Text {
                index,
                content,
                other: false,
                ..
            }) if self.template.is_some() => {
                let split = self.ordered;
                let state = self.state(index);
                let mut added = Added::default();
                let mut before = Vec::new();
                state.feed(&content, &mut added, split.then_some(&mut before));
                self.calls = self.choices.iter().map(|c| c.calls).sum();
                if let Some(template) = &self.template {
                    ordered::push_segments(index, &mut before, template, out);
                    if !added.is_empty() {
                        out.push(ChatCompletionChunk {
                            choices: vec![ChunkChoice {
                                index,
                                delta: Delta {
                                    content: added.content,
                                    reasoning_content: added.reasoning,
                                    tool_calls: added.tool_calls,
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
                Ok(Pushed::Sent)
            }
            _ => match serde_json::from_str(json) {
                Ok(chunk) => {
                    self.push(chunk, out);
                    Ok(Pushed::Sent)
                }
                // An error event need not have a chunk's fields.
                Err(_) if is_error_event(json) => Ok(Pushed::Error),
                Err(e) => Err(e),
            },
        }
    }
}
