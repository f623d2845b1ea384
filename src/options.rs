//! Parser configuration.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use crate::{Format, Ids, Tools, Typing};

/// How a Qwen3-Coder parameter value ends when it contains text that looks
/// like a closer, such as a file that holds `</parameter>`.
///
/// Both modes end a value at its closer when the output is well formed; they
/// differ only on closers inside values.
///
/// # Example
/// ```
/// use toolcall_stream::{Parser, ValueTermination};
/// let text = "<tool_call>\n<function=write>\n<parameter=text>\n\
///             a </parameter> b\n</parameter>\n</function>\n</tool_call>";
/// let arguments = |mode| {
///     let mut parser = Parser::builder().value_termination(mode).build();
///     parser.parse(text).tool_calls[0].arguments.clone()
/// };
/// assert_eq!(arguments(ValueTermination::Lookahead), r#"{"text": "a </parameter> b"}"#);
/// assert_eq!(arguments(ValueTermination::Vllm), r#"{"text": "a "}"#);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum ValueTermination {
    /// A closer ends the value only when what follows it, after whitespace,
    /// is a marker that may follow that closer (after `</parameter>`:
    /// `<parameter=`, `</function>`, `</tool_call>`, or `<function=` and
    /// `<tool_call>` which imply a missing `</function>`) or the end of the
    /// stream;
    /// otherwise it is value text, with a `closer_in_value` diagnostic. A
    /// `<parameter=` inside a value ends it (as a missing `</parameter>`)
    /// only at the start of a line, where the template puts it.
    #[default]
    Lookahead,
    /// As vLLM: the first `</parameter>`, `<parameter=`, `</function>` or
    /// `</tool_call>` ends the value.
    Vllm,
}

impl ValueTermination {
    /// The mode's name: `lookahead` or `vllm`.
    pub fn name(self) -> &'static str {
        match self {
            ValueTermination::Lookahead => "lookahead",
            ValueTermination::Vllm => "vllm",
        }
    }
}

impl fmt::Display for ValueTermination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ValueTermination {
    type Err = String;

    fn from_str(name: &str) -> Result<ValueTermination, String> {
        match name {
            "lookahead" => Ok(ValueTermination::Lookahead),
            "vllm" => Ok(ValueTermination::Vllm),
            _ => Err(format!(
                "unknown value termination {name:?}; expected `lookahead` or `vllm`"
            )),
        }
    }
}

/// Whether reasoning (the model thinking aloud before it answers or calls)
/// is told apart from content. See
/// [`ParserBuilder::reasoning`](crate::ParserBuilder::reasoning).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Reasoning {
    /// Reasoning markers (`<think>`, `</think>`) are content, as written:
    /// a server that split reasoning already hands over none.
    #[default]
    Off,
    /// The format's reasoning block (`<think>…</think>`, Mistral's
    /// `[THINK]…[/THINK]`) is reasoning: `reasoning` events.
    On,
    /// As `On`, and the stream begins inside reasoning: the chat template
    /// put the opener at the end of the prompt (Qwen3 and GLM-4.7 in
    /// thinking mode, DeepSeek R1), so only `</think>` appears.
    Started,
}

impl Reasoning {
    /// The mode's name: `off`, `on` or `started`.
    pub fn name(self) -> &'static str {
        match self {
            Reasoning::Off => "off",
            Reasoning::On => "on",
            Reasoning::Started => "started",
        }
    }
}

impl fmt::Display for Reasoning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Reasoning {
    type Err = String;

    fn from_str(name: &str) -> Result<Reasoning, String> {
        match name {
            "off" => Ok(Reasoning::Off),
            "on" => Ok(Reasoning::On),
            "started" => Ok(Reasoning::Started),
            _ => Err(format!(
                "unknown reasoning mode {name:?}; expected `off`, `on` or `started`"
            )),
        }
    }
}

/// Bounds on what the parser holds while it decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Limits {
    /// The longest function or parameter name, in bytes. A longer "name" is
    /// not a name: the opening goes back to content (or, inside a call, is
    /// reported as stray text). Default 256.
    pub max_name_len: usize,
    /// How far past a tentative marker the parser looks before deciding, in
    /// bytes: text after `<tool_call>` before `<function=`, whitespace after
    /// a bare `<function=NAME>` or after a closer inside a value. Past it,
    /// the marker is taken as text. Default 256.
    pub lookahead: usize,
    /// The most calls one stream may make. Past it, an opening is not a
    /// call: its text comes back as content, with one `limit_exceeded`
    /// diagnostic. Default 1024.
    pub max_calls: usize,
    /// The most parameters one call may have. Past it, further parameters
    /// are ignored (reported as `limit_exceeded`) and the call ends with
    /// `"complete": false`, so that it is not run with arguments missing.
    /// Default 256.
    pub max_parameters: usize,
    /// The longest typed (non-string) value held until it ends so that it
    /// can be coerced, in bytes. A longer value is written as a string,
    /// with a `limit_exceeded` diagnostic. Default 1 MiB.
    pub max_held_value: usize,
    /// The most input bytes of one call that
    /// [`strict`](crate::ParserBuilder::strict) mode (or
    /// [`incomplete_calls_as_content`](crate::ParserBuilder::incomplete_calls_as_content),
    /// [`unknown_tools_as_content`](crate::ParserBuilder::unknown_tools_as_content),
    /// or [`unreadable_calls_as_content`](crate::ParserBuilder::unreadable_calls_as_content),
    /// which [`Parser::parse`](crate::Parser::parse) turns on)
    /// holds until the call ends. Past it, strict mode rejects the call
    /// (the rest of its text streams out as content); otherwise a call that
    /// failed no check so far is passed on as it streams. Default 4 MiB.
    ///
    /// It matters only when calls are held: by default (none of those
    /// options) calls stream as they are parsed and nothing is held.
    pub max_held_call: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_name_len: 256,
            lookahead: 256,
            max_calls: 1024,
            max_parameters: 256,
            max_held_value: 1 << 20,
            max_held_call: 4 << 20,
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Options {
    pub format: Format,
    pub value_end: ValueTermination,
    pub ids: Ids,
    pub tools: Option<Arc<Tools>>,
    pub limits: Limits,
    /// Keep the open call's arguments to put them whole in `tool_call_end`
    /// (and each value in `parameter_end`).
    pub retain_arguments: bool,
    /// Hold text between the wrapper's opener and the function opener
    /// (up to `lookahead`) so that the call after it is still read as
    /// wrapped, with a `stray_text` diagnostic.
    pub hold_text_after_wrapper: bool,
    /// Strict mode: calls that needed recovery come back as content.
    pub strict: bool,
    /// How values become JSON.
    pub typing: Typing,
    /// Accept Python literals for non-string types (reported).
    pub python_literals: bool,
    /// Calls to unknown tools come back as content.
    pub unknown_tools_as_content: bool,
    /// Incomplete calls come back as content.
    pub incomplete_calls_as_content: bool,
    /// Calls whose arguments could not be read come back as content.
    pub unreadable_calls_as_content: bool,
    /// Whether reasoning markers split reasoning from content.
    pub reasoning: Reasoning,
    /// Whether a call opener inside reasoning ends it and starts a call.
    pub calls_in_reasoning: bool,
    /// Whether call openers inside fenced code blocks of the text outside
    /// calls start calls.
    pub calls_in_code_blocks: bool,
    /// Whether content is watched for other formats' calls
    /// (`foreign_format`).
    pub watch_foreign_formats: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            format: Format::default(),
            value_end: ValueTermination::default(),
            ids: Ids::default(),
            tools: None,
            limits: Limits::default(),
            retain_arguments: true,
            hold_text_after_wrapper: false,
            strict: false,
            typing: Typing::default(),
            python_literals: false,
            unknown_tools_as_content: false,
            incomplete_calls_as_content: false,
            unreadable_calls_as_content: false,
            reasoning: Reasoning::default(),
            calls_in_reasoning: true,
            calls_in_code_blocks: true,
            watch_foreign_formats: true,
        }
    }
}
