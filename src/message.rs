//! Events collected into a whole message, as a non-streaming API returns it.

use serde::ser::{SerializeStruct, Serializer};
use serde::Serialize;

use crate::event::{DiagnosticKind, Event, Span};

/// A whole parsed message: content, tool calls and diagnostics.
///
/// Serializes as `{"content": .., "tool_calls": [{"id", "type": "function",
/// "function": {"name", "arguments"}}], "diagnostics": [..]}`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Message {
    /// All content text, joined, every byte of it; `None` when there is
    /// none, or when it is only whitespace around tool calls (as OpenAI's
    /// `content: null`). The OpenAI output leaves out the layout whitespace
    /// next to calls: see [`Message::openai_content`].
    pub content: Option<String>,
    /// All reasoning text, joined (see
    /// [`ParserBuilder::reasoning`](crate::ParserBuilder::reasoning));
    /// `None` when there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// The calls, in order.
    pub tool_calls: Vec<ToolCall>,
    /// What was recovered or is worth knowing.
    pub diagnostics: Vec<Diagnostic>,
    /// Where each call began in the joined content (its length then): the
    /// OpenAI output drops the layout whitespace next to calls
    /// ([`Message::openai_content`]).
    #[serde(skip)]
    pub(crate) call_offsets: Vec<usize>,
}

/// One tool call of a [`Message`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolCall {
    /// Its position among the message's calls.
    pub index: usize,
    /// Its id.
    pub id: String,
    /// The function name.
    pub name: String,
    /// The arguments, as JSON text.
    pub arguments: String,
    /// `false` when the stream ended inside the call, or it lost
    /// parameters to a limit: do not run it.
    pub complete: bool,
}

impl Serialize for ToolCall {
    /// The OpenAI shape: `{"id", "type": "function", "function": {"name",
    /// "arguments"}}`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Function<'a> {
            name: &'a str,
            arguments: &'a str,
        }
        let mut call = serializer.serialize_struct("ToolCall", 3)?;
        call.serialize_field("id", &self.id)?;
        call.serialize_field("type", "function")?;
        let function = Function {
            name: &self.name,
            arguments: &self.arguments,
        };
        call.serialize_field("function", &function)?;
        call.end()
    }
}

/// A [`Message`] serialized with what OpenAI's shape has no place for:
/// each call as `{"index", "id", "name", "arguments", "complete"}`, with
/// `content`, `reasoning` (`null` when none) and `diagnostics`. What the
/// Python and WebAssembly bindings return; see [`Message::with_call_details`].
#[derive(Clone, Copy, Debug)]
pub struct CallDetails<'a>(&'a Message);

impl Serialize for CallDetails<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Call<'a> {
            index: usize,
            id: &'a str,
            name: &'a str,
            arguments: &'a str,
            complete: bool,
        }
        let message = self.0;
        let calls: Vec<Call<'_>> = message
            .tool_calls
            .iter()
            .map(|call| Call {
                index: call.index,
                id: &call.id,
                name: &call.name,
                arguments: &call.arguments,
                complete: call.complete,
            })
            .collect();
        let mut out = serializer.serialize_struct("Message", 4)?;
        out.serialize_field("content", &message.content)?;
        out.serialize_field("reasoning", &message.reasoning)?;
        out.serialize_field("tool_calls", &calls)?;
        out.serialize_field("diagnostics", &message.diagnostics)?;
        out.end()
    }
}

impl Message {
    /// The message for serializing with each call's index and whether it
    /// is complete ([`CallDetails`]).
    ///
    /// ```
    /// use toolcall_stream::{parse, Format};
    /// let message = parse(Format::Qwen3Coder, "<tool_call><function=ls><parameter=path>/tmp");
    /// let json = serde_json::to_value(message.with_call_details()).unwrap();
    /// assert_eq!(json["tool_calls"][0]["name"], "ls");
    /// assert_eq!(json["tool_calls"][0]["complete"], false);
    /// ```
    pub fn with_call_details(&self) -> CallDetails<'_> {
        CallDetails(self)
    }
}

/// A diagnostic of a [`Message`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// The call it concerns, if any.
    pub index: Option<usize>,
    /// What happened.
    pub kind: DiagnosticKind,
    /// A sentence saying what happened and what was done.
    pub message: String,
    /// Where in the input: byte offsets from the stream's start.
    pub span: Span,
}

/// Collects events into a [`Message`].
///
/// # Example
/// ```
/// use toolcall_stream::{Format, MessageBuilder, Parser};
/// let mut parser = Parser::new(Format::Qwen3Coder);
/// let mut message = MessageBuilder::new();
/// message.extend(parser.feed("Sure.<tool_call><function=f></function></tool_call>"));
/// message.extend(parser.finish());
/// let message = message.finish();
/// assert_eq!(message.content.as_deref(), Some("Sure."));
/// assert_eq!(message.tool_calls[0].arguments, "{}");
/// ```
#[derive(Clone, Debug, Default)]
pub struct MessageBuilder {
    content: String,
    reasoning: String,
    message: Message,
}

impl MessageBuilder {
    /// An empty collector.
    pub fn new() -> MessageBuilder {
        MessageBuilder::default()
    }

    /// Adds one event.
    pub fn push(&mut self, event: Event<'_>) {
        let calls = &mut self.message.tool_calls;
        match event {
            Event::Content { text } => self.content.push_str(text),
            Event::Reasoning { text } => self.reasoning.push_str(text),
            Event::ToolCallStart { index, id, name } => {
                self.message.call_offsets.push(self.content.len());
                calls.push(ToolCall {
                    index,
                    id: id.to_owned(),
                    name: name.to_owned(),
                    ..ToolCall::default()
                })
            }
            Event::ArgumentsDelta { index, delta } => {
                if let Some(call) = calls.iter_mut().rev().find(|c| c.index == index) {
                    call.arguments.push_str(delta);
                }
            }
            Event::ToolCallEnd {
                index, complete, ..
            } => {
                if let Some(call) = calls.iter_mut().rev().find(|c| c.index == index) {
                    call.complete = complete;
                }
            }
            Event::Diagnostic {
                index,
                kind,
                message,
                span,
            } => self.message.diagnostics.push(Diagnostic {
                index,
                kind,
                message: message.to_owned(),
                span,
            }),
            Event::ParameterStart { .. }
            | Event::ParameterDelta { .. }
            | Event::ParameterEnd { .. } => {}
        }
    }

    /// The message.
    pub fn finish(mut self) -> Message {
        let blank = self.content.trim().is_empty();
        let has_calls = !self.message.tool_calls.is_empty();
        self.message.content = if self.content.is_empty() || (blank && has_calls) {
            None
        } else {
            Some(self.content)
        };
        if !self.reasoning.is_empty() {
            self.message.reasoning = Some(self.reasoning);
        }
        self.message
    }
}

impl<'a> Extend<Event<'a>> for MessageBuilder {
    fn extend<I: IntoIterator<Item = Event<'a>>>(&mut self, events: I) {
        for event in events {
            self.push(event);
        }
    }
}
