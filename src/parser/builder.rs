//! [`ParserBuilder`]: a [`Parser`]'s options, one setter each.

use std::sync::Arc;

use super::utf8::Utf8;
use super::Parser;
use crate::engine::Engine;
use crate::gate::{Gate, Policy};
use crate::options::{Limits, Options, Reasoning, ValueTermination};
use crate::sink::Recorder;
use crate::{Format, Ids, Tools, Typing};

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
    /// `[THINK]…[/THINK]`) comes as [`reasoning`](crate::Event::Reasoning) events,
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

    /// Whether the content of a parser of a known format is watched for
    /// calls written in another known format (default `true`): such a
    /// call stays content, as it must, and a `foreign_format` diagnostic
    /// names the format that would read it, once per format and stream.
    /// It is how a model served with the wrong format shows itself. The
    /// watch runs `auto`'s detector over content wherever the first byte
    /// of another format's opener appears (`<`, `[`, `]`, `◁`), so text
    /// that holds none costs one more vectorized scan; with `false`,
    /// content is read as fast as the format alone allows and no
    /// `foreign_format` is reported. [`Format::Auto`](crate::Format::Auto)
    /// has no such watch.
    ///
    /// ```
    /// use toolcall_stream::{DiagnosticKind, Format, Parser};
    /// let text = r#"<tool_call>{"name": "f", "arguments": {}}</tool_call>"#;
    /// let build = |watch| Parser::builder().format(Format::Qwen3Coder)
    ///     .watch_foreign_formats(watch).build();
    /// let watched = build(true).parse(text);
    /// assert_eq!(watched.content.as_deref(), Some(text));
    /// assert_eq!(watched.diagnostics[0].kind, DiagnosticKind::ForeignFormat);
    /// let unwatched = build(false).parse(text);
    /// assert_eq!(unwatched.content.as_deref(), Some(text));
    /// assert!(unwatched.diagnostics.is_empty());
    /// ```
    pub fn watch_foreign_formats(mut self, watch: bool) -> ParserBuilder {
        self.options.watch_foreign_formats = watch;
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
