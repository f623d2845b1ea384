//! [`Rewriter::push_json`]: an upstream chunk's JSON in, server-sent
//! events out; a chunk of one choice's text is looked at without being
//! decoded, and its JSON sent as it came or with its text spliced.

use std::mem;
use std::ops::Range;

use super::{is_error_event, take_pending, Added, Pushed, Rewriter};
use crate::json::escape_into;
use crate::openai::look::{look, Frame, Look};
use crate::openai::{write_sse_data, ChatCompletionChunk};

/// The one choice's text a look found in a chunk.
struct Text<'a> {
    content: &'a str,
    /// Where its string is in the chunk's JSON.
    span: Range<usize>,
    /// The choice says more than its text.
    other: bool,
    /// The delta has a `tool_calls` key.
    calls_key: bool,
}

impl Rewriter {
    /// One upstream chunk as its JSON text (an SSE event's data); the
    /// server-sent events to send for it (none or more `data: {json}`
    /// events, as [`write_sse`](crate::openai::write_sse) frames them) are
    /// appended to `out`. What [`push`](Rewriter::push) does with the chunk
    /// decoded from it, for less: most chunks of a stream are a few bytes
    /// of one choice's text, and such a chunk is looked at without being
    /// decoded; when its parser passes the text on unchanged its JSON is
    /// sent as it came, when the text changed the new text takes the old
    /// one's place in it (`null` when none is left) and tool calls made of
    /// it go beside it. Either is equal as JSON to what `push` writes,
    /// except that a `null` `push` leaves out is kept (which means the
    /// same to OpenAI's clients). A chunk that is not a
    /// `chat.completion.chunk` is an error, unless it is the upstream's
    /// error event ([`Pushed::Error`]).
    ///
    /// ```
    /// use toolcall_stream::openai::{Pushed, Rewriter};
    /// use toolcall_stream::Parser;
    ///
    /// let chunk = |content: &str| serde_json::json!({
    ///     "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
    ///     "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": null}]
    /// }).to_string();
    /// let mut rewriter = Rewriter::new(Parser::builder());
    /// let mut out = String::new();
    /// assert_eq!(rewriter.push_json(&chunk("Sure."), &mut out).unwrap(), Pushed::Sent);
    /// assert_eq!(out, format!("data: {}\n\n", chunk("Sure.")));
    /// // The start of a call is held: nothing to send.
    /// out.clear();
    /// rewriter.push_json(&chunk("<tool_call>\n<fun"), &mut out).unwrap();
    /// assert!(out.is_empty());
    /// let error = r#"{"error": {"message": "overloaded"}}"#;
    /// assert_eq!(rewriter.push_json(error, &mut out).unwrap(), Pushed::Error);
    /// assert!(rewriter.push_json("{", &mut out).is_err());
    /// ```
    pub fn push_json(&mut self, json: &str, out: &mut String) -> serde_json::Result<Pushed> {
        // Most chunks are the last one with another text: no scan.
        let framed = self
            .frame
            .and_then(|frame| frame.look(&self.template_json, json));
        let fresh = framed.is_none();
        let looked = framed.or_else(|| look(json));
        if fresh {
            self.frame = looked.as_ref().and_then(|l| Frame::of(json, l));
        }
        match looked {
            Some(Look::Error) => return Ok(Pushed::Error),
            Some(Look::Text {
                index,
                content,
                span,
                other,
                calls_key,
            }) => {
                let state = self.state(index);
                let mut added = Added::default();
                // The common case read straight from the encoder: its text
                // is compared, not moved into `added` (no allocation).
                let passed = if state.finished {
                    state.feed(&content, &mut added, None);
                    None
                } else {
                    state.parse(&content, None);
                    let (text, reasoning, calls) = state.encoder.pending();
                    if calls.is_empty()
                        && reasoning.is_empty()
                        && (text.is_empty() || *text == *content)
                    {
                        let same = !text.is_empty();
                        text.clear();
                        Some(same)
                    } else {
                        take_pending(&mut state.encoder, &mut added);
                        None
                    }
                };
                self.calls = self.choices.iter().map(|c| c.calls).sum();
                self.template = None;
                if fresh {
                    self.template_json.clear();
                    self.template_json.push_str(json);
                }
                match passed {
                    Some(true) => write_sse_data(json, out),
                    // As `push`: a choice left with nothing to say is not
                    // sent, nor a chunk left without choices.
                    Some(false) if !other => {}
                    Some(false) => self.push_decoded(json, Some(added), out)?,
                    None => {
                        let text = Text {
                            content: &content,
                            span,
                            other,
                            calls_key,
                        };
                        self.push_added(json, text, added, out)?;
                    }
                }
                return Ok(Pushed::Sent);
            }
            Some(Look::Other) | None => {}
        }
        match serde_json::from_str::<ChatCompletionChunk>(json) {
            // An error event with a chunk's fields reads as a chunk.
            Ok(chunk) if chunk.extra.contains_key("error") => Ok(Pushed::Error),
            Ok(chunk) => {
                let mut chunks = mem::take(&mut self.sent);
                self.push(chunk, &mut chunks);
                write_chunks(&mut chunks, out);
                self.sent = chunks;
                Ok(Pushed::Sent)
            }
            Err(_) if is_error_event(json) => Ok(Pushed::Error),
            Err(e) => Err(e),
        }
    }

    /// [`push_json`](Rewriter::push_json) of a chunk whose one choice's
    /// `text` made `added`.
    fn push_added(
        &mut self,
        json: &str,
        text: Text<'_>,
        added: Added,
        out: &mut String,
    ) -> serde_json::Result<()> {
        if added.reasoning.is_some() {
            // Rare (reasoning split out of the text): the whole chunk is
            // rewritten.
            return self.push_decoded(json, Some(added), out);
        }
        let content = added.content.as_deref();
        let calls = match &added.tool_calls {
            None if content == Some(text.content) => {
                write_sse_data(json, out);
                return Ok(());
            }
            // As `push`: a choice left with nothing to say is not sent,
            // nor a chunk left without choices.
            None if content.is_none() && !text.other => return Ok(()),
            None if content.is_none() => return self.push_decoded(json, Some(added), out),
            None => None,
            Some(_) if text.calls_key => return self.push_decoded(json, Some(added), out),
            // Only a map with keys other than strings fails: none here.
            Some(calls) => Some(serde_json::to_string(calls)?),
        };
        // Only the text changed, or calls came of it: the rest of the JSON
        // is what `push` would write (a text left empty is `null`, which
        // means the same as none), and the calls go beside the text.
        let spliced = &mut self.spliced;
        spliced.clear();
        spliced.push_str(&json[..text.span.start]);
        match content {
            Some(content) => {
                spliced.push('"');
                escape_into(spliced, content);
                spliced.push('"');
            }
            None => spliced.push_str("null"),
        }
        if let Some(calls) = calls {
            spliced.push_str(",\"tool_calls\":");
            spliced.push_str(&calls);
        }
        spliced.push_str(&json[text.span.end..]);
        write_sse_data(spliced, out);
        Ok(())
    }

    /// The chunk decoded whole, its one choice's text already fed.
    fn push_decoded(
        &mut self,
        json: &str,
        fed: Option<Added>,
        out: &mut String,
    ) -> serde_json::Result<()> {
        // The look took only what the full decode takes.
        let chunk = serde_json::from_str(json)?;
        let mut chunks = mem::take(&mut self.sent);
        self.push_fed(chunk, fed, &mut chunks);
        write_chunks(&mut chunks, out);
        self.sent = chunks;
        Ok(())
    }
}

fn write_chunks(chunks: &mut Vec<ChatCompletionChunk>, out: &mut String) {
    for chunk in chunks.drain(..) {
        // Only a map with keys other than strings fails, and a chunk read
        // from JSON has none.
        let _ = crate::openai::write_sse(&chunk, out);
    }
}
