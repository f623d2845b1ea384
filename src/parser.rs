//! The public parser: UTF-8 handling around the engine, and its builder.

use std::sync::Arc;

use crate::engine::Engine;
use crate::event::Event;
use crate::gate::{Gate, Policy};
use crate::message::{Message, MessageBuilder};
use crate::options::{Limits, Options, Reasoning, ValueTermination};
use crate::sink::{Events, Push, Recorder, Sink};
use crate::{Format, Ids, Tools, Typing};

mod utf8;

use utf8::{Utf8, SIMD_UTF8_MIN};

/// A streaming tool-call parser for one model output.
///
/// Feed it the output's bytes as they arrive with [`feed`](Parser::feed),
/// then call [`finish`](Parser::finish) once. Each call returns the events
/// that its bytes completed. The parser is sans-IO: it never reads, waits or
/// allocates per byte, and it never fails: malformed output becomes events
/// and [diagnostics](crate::DiagnosticKind).
///
/// # Example
/// ```
/// use toolcall_stream::{Event, Format, Parser};
///
/// let mut parser = Parser::new(Format::Qwen3Coder);
/// let mut arguments = String::new();
/// for chunk in ["Checking.<tool_", "call>\n<function=get_weather>\n<param",
///               "eter=city>\nParis\n</parameter>\n</function>\n</tool_call>"] {
///     for event in parser.feed(chunk) {
///         match event {
///             Event::Content { text } => print!("{text}"),
///             Event::ToolCallStart { name, .. } => assert_eq!(name, "get_weather"),
///             Event::ArgumentsDelta { delta, .. } => arguments.push_str(delta),
///             _ => {}
///         }
///     }
/// }
/// for _ in parser.finish() {}
/// assert_eq!(arguments, r#"{"city": "Paris"}"#);
/// ```
pub struct Parser {
    engine: Engine,
    /// The events of the last `feed` or `finish`, for the iterator API.
    recorder: Recorder,
    utf8: Utf8,
    /// Strict mode's gate, when calls may be rejected.
    gate: Option<Gate>,
    finished: bool,
}

impl Parser {
    /// A parser for `format` with default options.
    pub fn new(format: Format) -> Parser {
        Parser::builder().format(format).build()
    }

    /// A builder for a parser with options.
    pub fn builder() -> ParserBuilder {
        ParserBuilder::default()
    }

    /// The parser's format.
    pub fn format(&self) -> Format {
        self.engine.options().format
    }

    /// Feeds the next chunk of the output and returns the events it
    /// completed. A chunk may end anywhere, also inside a marker or a UTF-8
    /// character: what cannot be decided yet waits for the next chunk.
    ///
    /// After [`finish`](Parser::finish), feeding does nothing until
    /// [`reset`](Parser::reset).
    pub fn feed(&mut self, chunk: impl AsRef<[u8]>) -> Events<'_> {
        self.recorder.clear();
        self.engine.begin_output();
        if !self.finished {
            let chunk = chunk.as_ref();
            match &mut self.gate {
                None => self.utf8.feed(chunk, &mut self.engine, &mut self.recorder),
                Some(gate) => {
                    let sink = &mut gate.on(&mut self.recorder);
                    self.utf8.feed(chunk, &mut self.engine, sink);
                }
            }
        }
        Events::new(&self.recorder, self.engine.arguments_buffer())
    }

    /// Feeds the next chunk and calls `on_event` with each event it
    /// completed, in order: the push form of [`feed`](Parser::feed), with
    /// the same events. The events borrow from the chunk and the parser's
    /// buffers, so nothing is copied or buffered on the way; copy what must
    /// outlive the call ([`Event::into_owned`](crate::Event::into_owned)).
    ///
    /// ```
    /// use toolcall_stream::{Event, Format, Parser};
    ///
    /// let mut parser = Parser::new(Format::Qwen3Coder);
    /// let mut arguments = String::new();
    /// for chunk in ["<tool_call>\n<function=get_weather>\n<parameter=city>\nPa",
    ///               "ris\n</parameter>\n</function>\n</tool_call>"] {
    ///     parser.feed_with(chunk, |event| {
    ///         if let Event::ArgumentsDelta { delta, .. } = event {
    ///             arguments.push_str(delta);
    ///         }
    ///     });
    /// }
    /// parser.finish_with(|_| {});
    /// assert_eq!(arguments, r#"{"city": "Paris"}"#);
    /// ```
    pub fn feed_with(&mut self, chunk: impl AsRef<[u8]>, on_event: impl FnMut(Event<'_>)) {
        self.engine.begin_output();
        if !self.finished {
            let chunk = chunk.as_ref();
            let mut push = Push(on_event);
            match &mut self.gate {
                None => self.utf8.feed(chunk, &mut self.engine, &mut push),
                Some(gate) => {
                    let sink = &mut gate.on(&mut push);
                    self.utf8.feed(chunk, &mut self.engine, sink);
                }
            }
        }
    }

    /// [`feed_with`](Parser::feed_with) of text already known to be UTF-8
    /// (the rewriter's, read as a `&str`): a short one, with no character
    /// held, goes to the engine without being validated again.
    pub(crate) fn feed_str_with(&mut self, text: &str, on_event: impl FnMut(Event<'_>)) {
        if self.utf8.len == 0 && text.len() < SIMD_UTF8_MIN && self.gate.is_none() {
            self.engine.begin_output();
            if !self.finished {
                self.engine.run(text, &mut Push(on_event));
            }
            return;
        }
        self.feed_with(text, on_event);
    }

    /// Ends the stream: releases held text, closes what is open (a call cut
    /// off by the end is marked incomplete) and returns the last events.
    pub fn finish(&mut self) -> Events<'_> {
        self.recorder.clear();
        self.engine.begin_output();
        if !self.finished {
            finish(
                &mut self.utf8,
                &mut self.engine,
                &mut self.gate,
                &mut self.recorder,
            );
            self.finished = true;
        }
        Events::new(&self.recorder, self.engine.arguments_buffer())
    }

    /// Ends the stream and calls `on_event` with the last events: the push
    /// form of [`finish`](Parser::finish).
    pub fn finish_with(&mut self, on_event: impl FnMut(Event<'_>)) {
        self.engine.begin_output();
        if !self.finished {
            finish(
                &mut self.utf8,
                &mut self.engine,
                &mut self.gate,
                &mut Push(on_event),
            );
            self.finished = true;
        }
    }

    /// How many input bytes the parser holds back, undecided: a possible
    /// marker, a name being read, a tentative opening, a layout newline at
    /// the end of a value, an incomplete UTF-8 character, a typed value
    /// until it ends, and in strict mode the open call. Bounded by
    /// [`Limits`](crate::Limits) whatever the input; string values are
    /// never held.
    ///
    /// ```
    /// use toolcall_stream::{Format, Parser};
    /// let mut parser = Parser::new(Format::Qwen3Coder);
    /// parser.feed("Hello <tool_ca").count();
    /// assert_eq!(parser.held_back(), "<tool_ca".len());
    /// parser.feed("ll><function=abc").count();
    /// assert_eq!(parser.held_back(), "<tool_call><function=abc".len());
    /// ```
    pub fn held_back(&self) -> usize {
        self.engine.held_len() + self.utf8.len + self.gate.as_ref().map_or(0, Gate::held_len)
    }

    /// The call being read, as it stands after the last chunk: its name
    /// and its arguments so far as a valid JSON object, for a UI that shows
    /// a call while it streams. `None` between calls, and when the parser
    /// was built with
    /// [`retain_arguments(false)`](ParserBuilder::retain_arguments). Cheap
    /// enough to call after every chunk: it borrows the parser's buffers.
    ///
    /// ```
    /// use toolcall_stream::Parser;
    /// let mut parser = Parser::new(toolcall_stream::Format::Qwen3Coder);
    /// parser.feed("<tool_call>\n<function=write>\n<parameter=path>\na.txt\n</parameter>\n<parameter=text>\nHel").count();
    /// let call = parser.partial_call().unwrap();
    /// assert_eq!(call.name, "write");
    /// assert_eq!(call.arguments(), r#"{"path": "a.txt", "text": "Hel"}"#);
    /// ```
    pub fn partial_call(&self) -> Option<crate::PartialCall<'_>> {
        self.engine.partial_call()
    }

    /// Makes the parser ready for a new stream, keeping its options and
    /// its buffers' capacity.
    pub fn reset(&mut self) {
        self.engine.reset();
        self.utf8 = Utf8::default();
        if let Some(gate) = &mut self.gate {
            gate.reset();
        }
        self.finished = false;
    }

    /// Parses a whole output at once: `reset`, one `feed`, `finish`, and the
    /// events collected into a [`Message`]. The same engine as streaming,
    /// with [`unreadable_calls_as_content`](ParserBuilder::unreadable_calls_as_content)
    /// always on: a whole-output result never holds a call whose arguments
    /// could not be read.
    ///
    /// ```
    /// use toolcall_stream::{Format, Parser};
    /// let text = "[get_weather(city=Paris)]";
    /// let message = Parser::new(Format::Pythonic).parse(text);
    /// assert!(message.tool_calls.is_empty());
    /// assert_eq!(message.content.as_deref(), Some(text));
    /// ```
    pub fn parse(&mut self, input: impl AsRef<[u8]>) -> Message {
        let mut message = MessageBuilder::new();
        self.parse_with(input, |event| message.push(event));
        message.finish()
    }

    /// The events of a whole output, as [`parse`](Parser::parse) collects
    /// them, passed to `on_event` in order: `reset`, one `feed_with`,
    /// `finish_with`, with
    /// [`unreadable_calls_as_content`](ParserBuilder::unreadable_calls_as_content)
    /// on.
    pub fn parse_with(&mut self, input: impl AsRef<[u8]>, mut on_event: impl FnMut(Event<'_>)) {
        let own = self.gate.take();
        let policy = Policy {
            unreadable: true,
            ..own.as_ref().map_or_else(Policy::default, Gate::policy)
        };
        let max_held = self.engine.options().limits.max_held_call;
        self.gate = Some(Gate::new(policy, max_held));
        self.reset();
        self.feed_with(input, &mut on_event);
        self.finish_with(&mut on_event);
        self.gate = own;
    }
}

/// The end of the stream, through the gate when there is one.
fn finish<S: Sink>(utf8: &mut Utf8, engine: &mut Engine, gate: &mut Option<Gate>, sink: &mut S) {
    match gate {
        None => utf8.finish(engine, sink),
        Some(gate) => {
            let mut gated = gate.on(sink);
            utf8.finish(engine, &mut gated);
            gated.finish();
        }
    }
}

impl std::fmt::Debug for Parser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Parser")
            .field("options", self.engine.options())
            .field("finished", &self.finished)
            .finish_non_exhaustive()
    }
}

/// Builds a [`Parser`] with options.
///
/// # Example
/// ```
/// use toolcall_stream::{Format, Ids, Parser, ValueTermination};
/// let parser = Parser::builder()
///     .format(Format::Qwen3Coder)
///     .value_termination(ValueTermination::Vllm)
///     .ids(Ids::sequential("call_"))
///     .build();
/// assert_eq!(parser.format(), Format::Qwen3Coder);
/// ```
#[derive(Clone, Debug, Default)]
pub struct ParserBuilder {
    options: Options,
}

impl ParserBuilder {
    /// The model's format (default: Qwen3-Coder).
    pub fn format(mut self, format: Format) -> ParserBuilder {
        self.options.format = format;
        self
    }

    /// How values end around closer-like text (default:
    /// [`ValueTermination::Lookahead`]).
    pub fn value_termination(mut self, mode: ValueTermination) -> ParserBuilder {
        self.options.value_end = mode;
        self
    }

    /// How call ids are made (default: random, as vLLM).
    pub fn ids(mut self, ids: Ids) -> ParserBuilder {
        self.options.ids = ids;
        self
    }

    /// The request's tools: values are typed from their parameters'
    /// schemas (see [`typing`](ParserBuilder::typing)), and calls to
    /// undeclared tools, parameters a tool does not declare and required
    /// parameters left out are reported.
    ///
    /// ```
    /// use toolcall_stream::{Parser, Tools};
    /// let tools = Tools::from_json(r#"[{"type": "function", "function": {"name": "forecast",
    ///     "parameters": {"type": "object", "properties": {"city": {"type": "string"},
    ///     "days": {"type": "integer"}, "metric": {"type": "boolean"}}}}}]"#).unwrap();
    /// let mut parser = Parser::builder().tools(tools).build();
    /// let message = parser.parse("<tool_call>\n<function=forecast>\n<parameter=city>\n001\n</parameter>\n\
    ///     <parameter=days>\n3\n</parameter>\n<parameter=metric>\nTrue\n</parameter>\n</function>\n</tool_call>");
    /// assert_eq!(message.tool_calls[0].arguments, r#"{"city": "001", "days": 3, "metric": true}"#);
    /// ```
    pub fn tools(mut self, tools: impl Into<Arc<Tools>>) -> ParserBuilder {
        self.options.tools = Some(tools.into());
        self
    }

    /// Bounds on held text (see [`Limits`]).
    pub fn limits(mut self, limits: Limits) -> ParserBuilder {
        self.options.limits = limits;
        self
    }

    /// Whether `tool_call_end` carries the call's whole `arguments` and
    /// `parameter_end` each whole `value` (default `true`).
    ///
    /// Both are copies of what the `arguments_delta` fragments already
    /// said, so the parser keeps the open call's arguments to provide them:
    /// memory proportional to the largest call. Turn this off when only the
    /// fragments are used (an OpenAI-style stream, a proxy) to keep the
    /// parser's memory bounded whatever the size of a value: the fields are
    /// then `None` (left out of the JSON form). [`Parser::parse`] and
    /// [`MessageBuilder`](crate::MessageBuilder) need only the fragments
    /// and work either way.
    ///
    /// ```
    /// use toolcall_stream::{Event, Parser};
    /// let mut parser = Parser::builder().retain_arguments(false).build();
    /// let mut arguments = String::new();
    /// for event in parser.feed("<tool_call><function=f><parameter=a>1</parameter></function></tool_call>") {
    ///     match event {
    ///         Event::ArgumentsDelta { delta, .. } => arguments.push_str(delta),
    ///         Event::ToolCallEnd { arguments: whole, .. } => assert_eq!(whole, None),
    ///         _ => {}
    ///     }
    /// }
    /// assert_eq!(arguments, r#"{"a": "1"}"#);
    /// ```
    pub fn retain_arguments(mut self, retain: bool) -> ParserBuilder {
        self.options.retain_arguments = retain;
        self
    }

    /// Whether text that follows the wrapper's opener (`<tool_call>`)
    /// before the function opener (`<function=`) is held, so that the call
    /// after it is still read as wrapped (default `false`).
    ///
    /// By default only whitespace may come between the two: any other text
    /// shows at once that `<tool_call>` was prose (`I will use <tool_call>
    /// tags`), and it is released as content without delay. A call that
    /// follows anyway is still recovered, as a call without its wrapper
    /// (`missing_tool_call_open`), with the `<tool_call>` and the text in
    /// the content. With `true`, that text is held for up to
    /// [`Limits::lookahead`](crate::Limits::lookahead) bytes: when a
    /// function opener comes, the text is returned as content with a
    /// `stray_text` diagnostic and the wrapper is markup; the price is that
    /// content after a `<tool_call>` mentioned in prose waits that long.
    /// Formats whose wrapper opens the call itself (GLM) are not affected.
    ///
    /// ```
    /// use toolcall_stream::Parser;
    /// let text = "<tool_call>\nhmm\n<function=f>\n</function>\n</tool_call>";
    /// let prompt = Parser::builder().build().parse(text);
    /// assert_eq!(prompt.content.as_deref(), Some("<tool_call>\nhmm\n"));
    /// let held = Parser::builder().hold_text_after_wrapper(true).build().parse(text);
    /// assert_eq!(held.content.as_deref(), Some("\nhmm\n"));
    /// assert_eq!(prompt.tool_calls[0].name, held.tool_calls[0].name);
    /// ```
    pub fn hold_text_after_wrapper(mut self, hold: bool) -> ParserBuilder {
        self.options.hold_text_after_wrapper = hold;
        self
    }

    /// How values become JSON (default [`Typing::Schema`]: typed from the
    /// [`tools`](ParserBuilder::tools), a string where there is no schema).
    pub fn typing(mut self, typing: Typing) -> ParserBuilder {
        self.options.typing = typing;
        self
    }

    /// Whether Python literals are accepted where the schema wants another
    /// type than a string (default `false`, as vLLM): `None` for null,
    /// `{'k': True}` for an object, `(1, 2)` for an array. Each value read
    /// this way is reported (`lenient_value`).
    pub fn python_literals(mut self, accept: bool) -> ParserBuilder {
        self.options.python_literals = accept;
        self
    }

    /// Strict mode (default `false`): a call is returned as a tool call
    /// only when it parsed cleanly. A call with any diagnostic other than
    /// `closer_in_value` (a recovery such as a missing closer, a value
    /// that failed its type, a missing required parameter, an unknown tool
    /// or parameter, a duplicate parameter, a limit) or that is incomplete
    /// comes back as content, its text as the model wrote it, after its
    /// diagnostics and a `rejected_call`, so that an agent never runs a
    /// half-parsed call. Calls are numbered without gaps among those
    /// returned.
    ///
    /// The price: each call's events wait until the call ends (up to
    /// [`Limits::max_held_call`](crate::Limits::max_held_call) bytes; a
    /// longer call is rejected and streams out as content).
    ///
    /// ```
    /// use toolcall_stream::Parser;
    /// let text = "<tool_call>\n<function=f>\n<parameter=a>\n1\n</function>\n</tool_call>";
    /// let lenient = Parser::builder().build().parse(text);
    /// assert_eq!(lenient.tool_calls[0].arguments, r#"{"a": "1"}"#);
    /// let strict = Parser::builder().strict(true).build().parse(text);
    /// assert!(strict.tool_calls.is_empty());
    /// assert_eq!(strict.content.as_deref(), Some(text));
    /// ```
    pub fn strict(mut self, strict: bool) -> ParserBuilder {
        self.options.strict = strict;
        self
    }

    /// Whether the format's reasoning block is told apart from content
    /// (default [`Reasoning::Off`]: `<think>` is content, as written).
    ///
    /// With [`Reasoning::On`], the text of `<think>…</think>` (Mistral's
    /// `[THINK]…[/THINK]`) comes as [`reasoning`](Event::Reasoning) events,
    /// and as `reasoning_content` in the OpenAI output; the markers are
    /// structure. [`Reasoning::Started`] is for chat templates that end the
    /// prompt with `<think>`: the stream begins inside reasoning, and
    /// `</think>` ends it. A reasoning marker inside a call, or a second
    /// one, is text. Models call tools from inside reasoning (Qwen3.5, Kimi
    /// K2-Thinking, GLM-4.7, DeepSeek V4 start calls before `</think>`): a
    /// call opener there ends reasoning and starts the call, unless
    /// [`calls_in_reasoning(false)`](ParserBuilder::calls_in_reasoning).
    /// Formats whose reasoning is structure of their own (gpt-oss's
    /// `analysis` channel) split it whatever this option says.
    ///
    /// ```
    /// use toolcall_stream::{Format, Parser, Reasoning};
    /// let text = "Sure.</think>It is sunny.";
    /// let mut parser = Parser::builder().format(Format::Hermes).reasoning(Reasoning::Started).build();
    /// let message = parser.parse(text);
    /// assert_eq!(message.reasoning.as_deref(), Some("Sure."));
    /// assert_eq!(message.content.as_deref(), Some("It is sunny."));
    /// ```
    pub fn reasoning(mut self, reasoning: Reasoning) -> ParserBuilder {
        self.options.reasoning = reasoning;
        self
    }

    /// Whether a call opener inside reasoning ends the reasoning and starts
    /// a call (default `true`, as models do call from inside reasoning).
    /// With `false`, calls written inside reasoning are reasoning text: for
    /// models that describe tool syntax while they think.
    ///
    /// ```
    /// use toolcall_stream::{Format, Parser, Reasoning};
    /// let text = "<think>I could write <tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>.</think>No.";
    /// let build = |calls| Parser::builder().format(Format::Hermes).reasoning(Reasoning::On)
    ///     .calls_in_reasoning(calls).build();
    /// assert_eq!(build(true).parse(text).tool_calls.len(), 1);
    /// let message = build(false).parse(text);
    /// assert!(message.tool_calls.is_empty());
    /// assert_eq!(message.content.as_deref(), Some("No."));
    /// ```
    pub fn calls_in_reasoning(mut self, calls: bool) -> ParserBuilder {
        self.options.calls_in_reasoning = calls;
        self
    }

    /// Whether a call opener inside a fenced code block of the text
    /// outside calls starts a call (default `true`, as every server reads
    /// one). With `false`, a model that shows tool syntax in a Markdown
    /// code block (```` ``` ```` or `~~~`, at a line start after at most
    /// three spaces, closed by a line of at least as many of the same
    /// character) is not calling the tool: the block is content, as
    /// written. Calls outside blocks, and code blocks inside a call's
    /// values, are not affected. `auto` and the `foreign_format` watch
    /// follow the same rule.
    ///
    /// ```
    /// use toolcall_stream::{Format, Parser};
    /// let text = "Call it like this:\n```\n<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>\n```\n";
    /// let build = |calls| Parser::builder().format(Format::Hermes).calls_in_code_blocks(calls).build();
    /// assert_eq!(build(true).parse(text).tool_calls.len(), 1);
    /// let message = build(false).parse(text);
    /// assert!(message.tool_calls.is_empty());
    /// assert_eq!(message.content.as_deref(), Some(text));
    /// ```
    pub fn calls_in_code_blocks(mut self, calls: bool) -> ParserBuilder {
        self.options.calls_in_code_blocks = calls;
        self
    }

    /// Whether a call naming a tool that is not among the
    /// [`tools`](ParserBuilder::tools) comes back as content instead of as
    /// a tool call (default `false`: it is kept, with an `unknown_tool`
    /// diagnostic). Implied by [`strict`](ParserBuilder::strict).
    pub fn unknown_tools_as_content(mut self, yes: bool) -> ParserBuilder {
        self.options.unknown_tools_as_content = yes;
        self
    }

    /// Whether a call that is not complete (cut off by the end of the
    /// stream, or past `max_parameters`) comes back as content instead of
    /// as a tool call (default `false`: it is returned with `"complete":
    /// false`). Implied by [`strict`](ParserBuilder::strict). Each call is
    /// then held until it ends, as in strict mode: for a server that must
    /// never send a call it cannot finish (a model cut off by its token
    /// limit). A call longer than
    /// [`Limits::max_held_call`](crate::Limits::max_held_call) is passed on
    /// from there as it streams (it may then still end incomplete), so the
    /// hold stays bounded.
    ///
    /// ```
    /// use toolcall_stream::Parser;
    /// let cut = "<tool_call>\n<function=rm>\n<parameter=path>\n/tmp/a";
    /// let message = Parser::builder().incomplete_calls_as_content(true).build().parse(cut);
    /// assert!(message.tool_calls.is_empty());
    /// assert_eq!(message.content.as_deref(), Some(cut));
    /// ```
    pub fn incomplete_calls_as_content(mut self, yes: bool) -> ParserBuilder {
        self.options.incomplete_calls_as_content = yes;
        self
    }

    /// Whether a call whose arguments could not be read comes back as
    /// content instead of as a tool call (default `false` when streaming:
    /// the call ends `"complete": false` with `invalid_json`, and the text
    /// after the point where it became unreadable follows as content).
    /// [`Parser::parse`] always turns it on, so that a whole-output result
    /// never holds a call salvaged from arguments nobody could read (invalid
    /// JSON, a Python argument that is no literal or has no name, an unknown
    /// escape): the call's whole text is content, in place, after its
    /// `invalid_json` and a `rejected_call`. A call cut off by the end of
    /// the output (`truncated`) is not affected. Each call is then held
    /// until it ends, as in strict mode (up to
    /// [`Limits::max_held_call`](crate::Limits::max_held_call); a longer
    /// call is passed on from there as it streams): for a server that
    /// answers with whole outputs but reads them with a streaming parser.
    /// Implied by [`strict`](ParserBuilder::strict).
    ///
    /// ```
    /// use toolcall_stream::{Format, Parser};
    /// let text = r#"<tool_call>{"name": "get_weather", "arguments": {"city": Paris}}</tool_call>"#;
    /// let mut parser = Parser::builder().format(Format::Hermes)
    ///     .unreadable_calls_as_content(true).build();
    /// let mut content = String::new();
    /// let mut calls = 0;
    /// for chunk in [&text[..30], &text[30..]] {
    ///     for event in parser.feed(chunk) {
    ///         match event {
    ///             toolcall_stream::Event::Content { text } => content.push_str(text),
    ///             toolcall_stream::Event::ToolCallStart { .. } => calls += 1,
    ///             _ => {}
    ///         }
    ///     }
    /// }
    /// for _ in parser.finish() {}
    /// assert_eq!((calls, content.as_str()), (0, text));
    /// ```
    pub fn unreadable_calls_as_content(mut self, yes: bool) -> ParserBuilder {
        self.options.unreadable_calls_as_content = yes;
        self
    }

    /// Builds the parser. Cheap: a format's automaton is built once per
    /// process and shared.
    pub fn build(self) -> Parser {
        let format = crate::engine::Compiled::of(self.options.format);
        self.build_with(format)
    }

    /// Builds a parser for any compiled description.
    pub(crate) fn build_with(self, format: &'static crate::engine::Compiled) -> Parser {
        let max_held = self.options.limits.max_held_call;
        let policy = Policy {
            strict: self.options.strict,
            unknown_tools: self.options.unknown_tools_as_content,
            incomplete: self.options.incomplete_calls_as_content,
            unreadable: self.options.unreadable_calls_as_content,
        };
        let gate = policy.any().then(|| Gate::new(policy, max_held));
        let mut engine = Engine::with_format(format, self.options);
        engine.watch_foreign();
        Parser {
            engine,
            recorder: Recorder::default(),
            utf8: Utf8::default(),
            gate,
            finished: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::utf8::BLOCK;
    use super::*;
    use crate::event::DiagnosticKind;
    use crate::Event;

    fn content(parser: &mut Parser, chunk: &[u8]) -> String {
        parser
            .feed(chunk)
            .filter_map(|e| match e {
                Event::Content { text } => Some(text.to_owned()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_character_split_across_chunks_waits_for_its_bytes() {
        let mut parser = Parser::new(Format::Qwen3Coder);
        let snow = "🌧".as_bytes();
        assert_eq!(content(&mut parser, &snow[..1]), "");
        assert_eq!(content(&mut parser, &snow[1..3]), "");
        assert_eq!(content(&mut parser, &snow[3..]), "🌧");
    }

    #[test]
    fn invalid_bytes_become_replacement_characters_once_reported() {
        let mut parser = Parser::new(Format::Qwen3Coder);
        let events: Vec<_> = parser
            .feed(b"a\xffb\xe2\x82c")
            .map(Event::into_owned)
            .collect();
        let text: String = events
            .iter()
            .filter_map(|e| match e.as_event() {
                Event::Content { text } => Some(text.to_owned()),
                _ => None,
            })
            .collect();
        assert_eq!(text, "a\u{FFFD}b\u{FFFD}c");
        let reports = events
            .iter()
            .filter(|e| {
                matches!(
                    e.as_event(),
                    Event::Diagnostic {
                        kind: DiagnosticKind::InvalidUtf8,
                        ..
                    }
                )
            })
            .count();
        assert_eq!(reports, 1);
    }

    #[test]
    fn an_incomplete_character_at_the_end_is_replaced() {
        let mut parser = Parser::new(Format::Qwen3Coder);
        assert_eq!(content(&mut parser, b"ok \xf0\x9f"), "ok ");
        let tail: Vec<_> = parser.finish().map(Event::into_owned).collect();
        assert!(tail.iter().any(|e| *e
            == crate::OwnedEvent::Content {
                text: "\u{FFFD}".into()
            }));
    }

    #[test]
    fn a_chunk_longer_than_a_block_gives_the_events_of_small_chunks() {
        // Markers, a character and an invalid byte at every distance from
        // the block border.
        let mut input = Vec::new();
        for shift in 0..24 {
            input.resize(BLOCK * (shift + 1) - 12 + shift, b'x');
            input.extend_from_slice(
                b"<tool_call>\n<function=f>\n<parameter=a>\n\xc3\xa9\xff\xe6\x9d\xb1",
            );
            input.extend_from_slice(b"\n</parameter>\n</function>\n</tool_call>");
        }
        let events = |chunk: usize| {
            let mut parser = Parser::builder().ids(crate::Ids::sequential("c")).build();
            let mut all: Vec<_> = Vec::new();
            for piece in input.chunks(chunk) {
                all.extend(parser.feed(piece).map(Event::into_owned));
            }
            all.extend(parser.finish().map(Event::into_owned));
            crate::coalesce(all)
        };
        let whole = events(input.len());
        assert_eq!(
            whole
                .iter()
                .filter(|e| matches!(e, crate::OwnedEvent::ToolCallEnd { .. }))
                .count(),
            24
        );
        assert_eq!(whole, events(4093));
    }

    #[test]
    fn feeding_after_finish_does_nothing_until_reset() {
        let mut parser = Parser::new(Format::Qwen3Coder);
        parser.feed("a");
        assert_eq!(parser.finish().count(), 0);
        assert_eq!(parser.feed("more").count(), 0);
        assert_eq!(parser.finish().count(), 0);
        parser.reset();
        assert_eq!(content(&mut parser, b"again"), "again");
    }
}
