//! Events to OpenAI chunks ([`ChunkEncoder`]), and a whole message to a
//! `chat.completion`.

use serde_json::Map;

use super::layout::ContentLayout;
use super::types::{
    ChatCompletion, ChatCompletionChunk, Choice, ChunkChoice, CompletionMeta, Delta, FinishReason,
    FunctionCall, FunctionDelta, ResponseMessage, ToolCall, ToolCallDelta, CHAT_COMPLETION,
    CHAT_COMPLETION_CHUNK,
};
use super::{ASSISTANT, FUNCTION};
use crate::event::Event;
use crate::message::Message;

impl Message {
    /// The message as an OpenAI `chat.completion`: one choice, `content`
    /// without the layout whitespace next to calls
    /// ([`openai_content`](Message::openai_content), as [`ChunkEncoder`]
    /// sends it), `tool_calls` as they are, and `finish_reason` `length` when
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
                    content: self.openai_content(),
                    refusal: None,
                    tool_calls: (!tool_calls.is_empty()).then_some(tool_calls),
                    reasoning_content: self.reasoning.clone(),
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
/// * `content` events become `delta.content`, joined within a chunk, and
///   `reasoning` events `delta.reasoning_content` (the field vLLM, SGLang
///   and DeepSeek's API use).
/// * A call's first delta (its `tool_call_start`) carries its `index`, `id`,
///   `"type": "function"`, `function.name` and `function.arguments: ""`;
///   later deltas its `index` and more `function.arguments`. Fragments of
///   one call within a chunk are joined into one string, also into the
///   first delta when the call began in that chunk (as vLLM does).
/// * Parameter events and diagnostics have no place in OpenAI's format and
///   are ignored.
/// * **Layout whitespace is not content.** The newlines a chat template
///   puts around and between calls are held, and dropped when a call or the
///   end follows: whitespace is held until what comes after it is known;
///   text that is not whitespace is sent with the whitespace before it
///   (`"A\n\n<call>\n\nB"` gives `"A"`, then the call, then `"\n\nB"`); a
///   call drops it; the end drops it when a call came before and sends it
///   otherwise (a message of only whitespace and no call keeps it as
///   content). So content is the model's text as it was, except whitespace
///   right before a call, and at the end after a call. The chunks joined are
///   the [`chat.completion`](Message::to_chat_completion) of the same events
///   ([`Message::openai_content`]), whatever the chunk sizes. The events
///   themselves keep every byte. At most [`MAX_LEADING_BLANK`](super::MAX_LEADING_BLANK) bytes are
///   held: a longer run of whitespace is content, all of it.
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
    /// Reasoning since the last chunk.
    reasoning: String,
    /// Tool-call deltas since the last chunk.
    tool_calls: Vec<ToolCallDelta>,
    /// Whitespace held until it is known to be content or layout.
    layout: ContentLayout,
    complete_call: bool,
}

impl ChunkEncoder {
    /// An encoder for one response.
    pub fn new(meta: CompletionMeta) -> ChunkEncoder {
        ChunkEncoder {
            meta,
            role_sent: false,
            content: String::new(),
            reasoning: String::new(),
            tool_calls: Vec::new(),
            layout: ContentLayout::default(),
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
            Event::Content { text } => self.layout.text(text, &mut self.content),
            Event::Reasoning { text } => self.reasoning.push_str(text),
            Event::ToolCallStart { index, id, name } => {
                self.layout.call();
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
        if self.content.is_empty() && self.tool_calls.is_empty() && self.reasoning.is_empty() {
            return None;
        }
        Some(self.chunk(None))
    }

    /// What the events since the last chunk added (content, reasoning,
    /// tool-call deltas), for a caller that takes it without a chunk: the rewriter
    /// passes most text on in the upstream's own chunk, and a chunk built
    /// only to be taken apart costs more than the parse of its text.
    pub(crate) fn pending(&mut self) -> (&mut String, &mut String, &mut Vec<ToolCallDelta>) {
        (&mut self.content, &mut self.reasoning, &mut self.tool_calls)
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
        self.layout.finish(&mut self.content);
        let reason = FinishReason::of(cut_off, self.complete_call);
        self.chunk(Some(reason))
    }

    fn chunk(&mut self, finish_reason: Option<FinishReason>) -> ChatCompletionChunk {
        let role = (!self.role_sent).then(|| ASSISTANT.to_owned());
        self.role_sent = true;
        let content = (!self.content.is_empty()).then(|| std::mem::take(&mut self.content));
        let reasoning_content =
            (!self.reasoning.is_empty()).then(|| std::mem::take(&mut self.reasoning));
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
                    reasoning_content,
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

#[cfg(test)]
mod tests {
    use serde::Serialize;
    use serde_json::{json, Value};

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
            span: crate::Span::default(),
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
    fn whitespace_waits_until_it_is_known_to_be_content() {
        // Whitespace then text: all of it is content, in order; the
        // whitespace after the text waits for what follows it.
        let mut encoder = ChunkEncoder::new(meta());
        encoder.push(&Event::Content { text: "\n " });
        assert!(encoder.take_chunk().is_none());
        encoder.push(&Event::Content { text: "x\n" });
        let chunk = encoder.take_chunk().unwrap();
        assert_eq!(chunk.choices[0].delta.content.as_deref(), Some("\n x"));
        encoder.push(&Event::Content { text: "y" });
        let chunk = encoder.take_chunk().unwrap();
        assert_eq!(chunk.choices[0].delta.content.as_deref(), Some("\ny"));

        // The layout of the Qwen3-Coder template: text, a newline before
        // and after each call. Only the text is content.
        let mut encoder = ChunkEncoder::new(meta());
        encoder.push(&Event::Content {
            text: "Let me check the weather for both cities.\n",
        });
        encoder.push(&start(0, "c0", "f"));
        encoder.push(&end(0, true));
        encoder.push(&Event::Content { text: "\n" });
        encoder.push(&start(1, "c1", "f"));
        encoder.push(&end(1, true));
        encoder.push(&Event::Content { text: "\n" });
        let chunk = encoder.take_chunk().unwrap();
        assert_eq!(
            chunk.choices[0].delta.content.as_deref(),
            Some("Let me check the weather for both cities.")
        );
        assert_eq!(encoder.finish(false).choices[0].delta.content, None);

        // Text after a call keeps the whitespace before it.
        let mut encoder = ChunkEncoder::new(meta());
        encoder.push(&Event::Content { text: "A\n\n" });
        encoder.push(&start(0, "c0", "f"));
        encoder.push(&Event::Content { text: "\n\nB\n" });
        let chunk = encoder.take_chunk().unwrap();
        assert_eq!(chunk.choices[0].delta.content.as_deref(), Some("A\n\nB"));
        assert_eq!(encoder.finish(false).choices[0].delta.content, None);

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
            r#"{"id":"chatcmpl-abc","object":"chat.completion","created":1700000000,"model":"qwen3-coder","choices":[{"index":0,"message":{"role":"assistant","content":"Let me check.","refusal":null,"tool_calls":[{"id":"call_0","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"}}]},"finish_reason":"tool_calls","logprobs":null}]}"#
        );
        let empty = Message::default().to_chat_completion(&meta(), true);
        assert_eq!(
            to_json(&empty.choices[0]),
            json!({"index": 0, "message": {"role": "assistant", "content": null, "refusal": null},
                   "finish_reason": "length", "logprobs": null})
        );
    }
}
