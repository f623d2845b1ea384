//! Events: what the parser reports as bytes arrive.
//!
//! [`Event`] borrows its text: from the chunk being fed and the parser's
//! buffers when events are pushed to a closure
//! ([`Parser::feed_with`](crate::Parser::feed_with)), from the parser's
//! reused output buffer when they are iterated
//! ([`Parser::feed`](crate::Parser::feed)); either way the hot path
//! allocates nothing per event. [`OwnedEvent`] is its owned twin for queues
//! and async code. Both serialize to the JSON form the `toolcall` CLI
//! prints.

use std::borrow::Cow;
use std::fmt;

use serde::{Serialize, Serializer};

/// What a [`Diagnostic`](Event::Diagnostic) event reports. Every lenient
/// recovery has its own kind, so a consumer can count, log or refuse.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum DiagnosticKind {
    /// A parameter value ended without its closer (`</parameter>`, GLM's
    /// `</arg_value>`): the next parameter opener, `</function>` or
    /// `</tool_call>` ended it.
    UnclosedParameter,
    /// A call ended without `</function>`: a `</tool_call>`, `<function=` or
    /// `<tool_call>` ended it.
    UnclosedFunction,
    /// A `<tool_call>` wrapper was never closed; the calls inside it are kept.
    UnclosedToolCall,
    /// A call began with a bare `<function=NAME>`, without `<tool_call>`.
    MissingToolCallOpen,
    /// A function name was followed by its JSON arguments' `{` without the
    /// marker that opens them (Mistral's `NAME{…}` without `[ARGS]`, which
    /// older tokenizers drop in decoding): the `{` ended the name and the
    /// call was read.
    MissingArgumentsOpen,
    /// The stream ended inside a call: the call was closed with what arrived
    /// and its `tool_call_end` says `"complete": false`.
    Truncated,
    /// The malformed shape `<parameter=KEY=VALUE</parameter>` was read as
    /// key and value.
    MalformedParameter,
    /// The malformed shape `<parameter=KEY></parameter>VALUE` was read with
    /// the text after the empty tag as the value.
    EmptyParameterTag,
    /// A parameter's value came without its opener (GLM's
    /// `<arg_key>K</arg_key>VALUE</arg_value>`): the text after the key is
    /// the value; when a marker came instead, the value is empty.
    MissingValueOpen,
    /// A parameter's name was followed by the next parameter or the end of
    /// the call, with no value at all: the parameter was left out.
    MissingValue,
    /// A `<tool_call>` wrapper held nothing but whitespace; it was dropped.
    EmptyToolCall,
    /// Text where none belongs (inside a call between parameters, or, with
    /// [`hold_text_after_wrapper`](crate::ParserBuilder::hold_text_after_wrapper),
    /// inside `<tool_call>` before the function): reported, not executed.
    StrayText,
    /// `lookahead` value termination kept a closer (such as `</parameter>`)
    /// as value text, because what followed it was not structural.
    CloserInValue,
    /// A near-miss of a value's closer (`</parameter1>`,
    /// `</parameter_function>`, `</parameter` at a line end) followed by
    /// structure was read as the closer.
    MalformedCloser,
    /// A function name inside the wrapper (`<tool_call>` then
    /// `<function=`) was malformed: one with whitespace inside is kept as
    /// written; one that could not be read (empty, too long, a control
    /// character or a marker inside) sends the opening back to content. A
    /// call id that holds the name without its separators (Kimi's
    /// `functionsexec5`) is read as the request's tool it names, the id kept.
    /// A tool's name written twice around a dot (`get_weather.get_weather`,
    /// Muse) is read as the tool's when the request's tools hold it and
    /// not the doubled name.
    InvalidName,
    /// A call named the same parameter twice; both are in its arguments.
    DuplicateParameter,
    /// A call named a tool that is not in the request's `tools`.
    UnknownTool,
    /// The input held bytes that are not UTF-8; they were replaced with
    /// U+FFFD.
    InvalidUtf8,
    /// A [`Limits`](crate::Limits) bound was reached: past `max_calls`,
    /// openings are content; past `max_parameters`, parameters are ignored
    /// and the call is marked incomplete. Reported once per bound and stream.
    LimitExceeded,
    /// A value did not fit any type its schema allows: it was written as
    /// the JSON it is when it is JSON (`2.5` for an integer, as vLLM), else
    /// as a JSON string of its raw text, so the arguments stay valid JSON
    /// and the call is kept.
    InvalidValue,
    /// A value was accepted only thanks to an opt-in leniency (Python
    /// literals such as `True`, `None` or `{'k': 1}`).
    LenientValue,
    /// A call gave a parameter its tool's schema does not declare; its
    /// value is a string.
    UnknownParameter,
    /// A call ended without a parameter its tool's schema requires.
    MissingRequired,
    /// A call's JSON (its body or its arguments) was not valid JSON, or not
    /// the shape of a call (in the call-syntax formats: not a call, or an
    /// argument that is no literal, such as a name or an expression, never
    /// evaluated): inside a call, what was valid is kept, closed into
    /// valid JSON, and the call is marked incomplete; before the call's
    /// name, the text is returned as content.
    InvalidJson,
    /// JSON that is not quite JSON was read as its writer meant: a raw
    /// control character inside a string, half a surrogate pair (read as
    /// U+FFFD), arguments given as a string that holds the object, `null`
    /// arguments; in the call-syntax formats, JSON's `true`/`false`/`null`
    /// in Python arguments, or a bare Gemma value that is no literal (read
    /// as a string).
    LenientJson,
    /// A call was not returned as a tool call (strict mode, or an unknown
    /// tool with `unknown_tools_as_content`): its text comes back as
    /// content, after the diagnostics that rejected it.
    RejectedCall,
    /// A message header (gpt-oss's `<|start|>` or `<|channel|>` …
    /// `<|message|>`) could not be read: its text was returned as content.
    /// Or a body's opener (`<|message|>`) came inside a body that was not
    /// ended (Muse's `…to=read<|message|>` without `<|eom|>` and
    /// `<|start|>`): it ended that body and began a function's message.
    MalformedHeader,
    /// A call's item (Step-3's `<｜tool_call_begin｜>` … `<｜tool_call_end｜>`)
    /// did not give the call's type as the format writes it (`function`
    /// then `<｜tool_sep｜>`): another word, or none; the call after it is
    /// read.
    UnexpectedCallType,
    /// [`Format::Auto`](crate::Format::Auto): the first call showed which
    /// format the output is in; the rest of the stream is read as that
    /// format.
    FormatDetected,
    /// With a known format, the content held a call that another known
    /// format would read (a Hermes call under `qwen3_coder`): it stays
    /// content; the parser's format may be the wrong one. Once per format
    /// and stream.
    ForeignFormat,
    /// A marker written malformed was read as the marker: the wrapper's
    /// opener without its closing `>` before a line end
    /// (`<｜DSML｜tool_calls` ⏎). Reported once its call is confirmed.
    MalformedMarker,
}

impl DiagnosticKind {
    /// The kind's name as it appears in JSON (`"unclosed_parameter"`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            DiagnosticKind::UnclosedParameter => "unclosed_parameter",
            DiagnosticKind::UnclosedFunction => "unclosed_function",
            DiagnosticKind::UnclosedToolCall => "unclosed_tool_call",
            DiagnosticKind::MissingToolCallOpen => "missing_tool_call_open",
            DiagnosticKind::MissingArgumentsOpen => "missing_arguments_open",
            DiagnosticKind::Truncated => "truncated",
            DiagnosticKind::MalformedParameter => "malformed_parameter",
            DiagnosticKind::EmptyParameterTag => "empty_parameter_tag",
            DiagnosticKind::MissingValueOpen => "missing_value_open",
            DiagnosticKind::MissingValue => "missing_value",
            DiagnosticKind::EmptyToolCall => "empty_tool_call",
            DiagnosticKind::StrayText => "stray_text",
            DiagnosticKind::CloserInValue => "closer_in_value",
            DiagnosticKind::MalformedCloser => "malformed_closer",
            DiagnosticKind::InvalidName => "invalid_name",
            DiagnosticKind::DuplicateParameter => "duplicate_parameter",
            DiagnosticKind::UnknownTool => "unknown_tool",
            DiagnosticKind::InvalidUtf8 => "invalid_utf8",
            DiagnosticKind::LimitExceeded => "limit_exceeded",
            DiagnosticKind::InvalidValue => "invalid_value",
            DiagnosticKind::LenientValue => "lenient_value",
            DiagnosticKind::UnknownParameter => "unknown_parameter",
            DiagnosticKind::MissingRequired => "missing_required",
            DiagnosticKind::InvalidJson => "invalid_json",
            DiagnosticKind::LenientJson => "lenient_json",
            DiagnosticKind::RejectedCall => "rejected_call",
            DiagnosticKind::MalformedHeader => "malformed_header",
            DiagnosticKind::UnexpectedCallType => "unexpected_call_type",
            DiagnosticKind::FormatDetected => "format_detected",
            DiagnosticKind::ForeignFormat => "foreign_format",
            DiagnosticKind::MalformedMarker => "malformed_marker",
        }
    }
}

impl fmt::Display for DiagnosticKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where in the input a [`Diagnostic`](Event::Diagnostic) points: byte
/// offsets from the start of the stream (the bytes fed since the parser was
/// built or [`reset`](crate::Parser::reset)), `start..end`, so a UI or a log
/// can show the exact place in the model's output.
///
/// `start` is where the construct the diagnostic concerns began (the
/// opener of the call or of the opening being decided, or the text that
/// was recovered); `end` is where the input had been read to when the
/// diagnostic was decided (the end of the marker, character or JSON byte
/// that decided it; the end of the input for what the end of the stream
/// decided). A diagnostic about no particular text (a bound reached) has
/// an empty span at the point it was decided. Like every event, spans are
/// the same however the input is split. An invalid UTF-8 sequence counts
/// as the bytes it was, not as the U+FFFD that replaced it.
///
/// ```
/// use toolcall_stream::{parse, DiagnosticKind, Format};
/// let text = "Sure.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1]}}\n</tool_call>";
/// let message = parse(Format::Hermes, text);
/// let invalid = &message.diagnostics[0];
/// assert_eq!(invalid.kind, DiagnosticKind::InvalidJson);
/// // From the call's opener to the byte that is not JSON.
/// let at = &text[invalid.span.range()];
/// assert!(at.starts_with("<tool_call>") && at.ends_with("1]"), "{at}");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Span {
    /// The offset of the first byte concerned.
    pub start: u64,
    /// The offset just past the last byte concerned.
    pub end: u64,
}

impl Span {
    /// The span `start..end`.
    pub fn new(start: u64, end: u64) -> Span {
        Span { start, end }
    }

    /// An empty span at `at`.
    pub fn at(at: u64) -> Span {
        Span::new(at, at)
    }

    /// The span as a range over the input, for slicing it (offsets beyond
    /// `usize` saturate).
    pub fn range(self) -> std::ops::Range<usize> {
        let clamp = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        clamp(self.start)..clamp(self.end)
    }

    /// How many bytes it covers.
    pub fn len(self) -> u64 {
        self.end - self.start
    }

    /// Whether it covers no byte.
    pub fn is_empty(self) -> bool {
        self.start == self.end
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

/// One event, borrowing its text from the parser.
///
/// For each call the order is `ToolCallStart`, then per parameter
/// `ParameterStart`, `ParameterDelta`s, `ParameterEnd`, with
/// `ArgumentsDelta`s alongside, then `ToolCallEnd`. Nothing else (no
/// content) comes between a call's start and end, except diagnostics about
/// that call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Event<'a> {
    /// Text outside any call, released as soon as it cannot be the start
    /// of a marker.
    Content {
        /// The text.
        text: &'a str,
    },
    /// Reasoning text (the model thinking aloud: `<think>…</think>`,
    /// Harmony's `analysis` channel), outside any call, released as content
    /// is. Only formats and options that split reasoning emit it (see
    /// [`ParserBuilder::reasoning`](crate::ParserBuilder::reasoning)).
    Reasoning {
        /// The text.
        text: &'a str,
    },
    /// A call began; its name is complete (never a partial name).
    ToolCallStart {
        /// The call's position among the calls of this stream, from 0.
        index: usize,
        /// The call's id.
        id: &'a str,
        /// The function name.
        name: &'a str,
    },
    /// A parameter began.
    ParameterStart {
        /// The call's index.
        index: usize,
        /// The parameter's name.
        name: &'a str,
    },
    /// Raw value text as it streams (layout newlines removed), for UIs
    /// that show a file being written.
    ParameterDelta {
        /// The call's index.
        index: usize,
        /// The raw text.
        text: &'a str,
    },
    /// A parameter ended.
    ParameterEnd {
        /// The call's index.
        index: usize,
        /// The parameter's name.
        name: &'a str,
        /// The value as JSON text (a JSON string without a schema), as it
        /// went into the arguments; serialized without its layout, so an
        /// event stays on one line. `None` when the parser was built with
        /// [`retain_arguments(false)`](crate::ParserBuilder::retain_arguments).
        #[serde(serialize_with = "raw_json", skip_serializing_if = "Option::is_none")]
        value: Option<&'a str>,
    },
    /// A fragment of the call's arguments JSON. The fragments of a call,
    /// joined, are exactly its final `arguments`, byte for byte.
    ArgumentsDelta {
        /// The call's index.
        index: usize,
        /// The fragment.
        delta: &'a str,
    },
    /// A call ended.
    ToolCallEnd {
        /// The call's index.
        index: usize,
        /// The whole arguments JSON text, the concatenation of the call's
        /// [`ArgumentsDelta`](Event::ArgumentsDelta)s; `None` when the
        /// parser was built with
        /// [`retain_arguments(false)`](crate::ParserBuilder::retain_arguments).
        #[serde(skip_serializing_if = "Option::is_none")]
        arguments: Option<&'a str>,
        /// `false` when the stream ended inside the call (truncation) or
        /// the call lost parameters to `max_parameters`: a consumer should
        /// not run such a call.
        complete: bool,
    },
    /// Something was recovered or is worth knowing.
    Diagnostic {
        /// The call it concerns, if any.
        index: Option<usize>,
        /// What happened.
        kind: DiagnosticKind,
        /// A sentence saying what happened and what was done.
        message: &'a str,
        /// Where in the input: byte offsets from the stream's start.
        span: Span,
    },
}

/// Serializes JSON text as itself, not as a string, without its layout:
/// a value the model wrote over lines would otherwise break an event
/// written as one JSON line. Only called for `Some` (`None` is skipped).
fn raw_json<S: Serializer, T: AsRef<str>>(
    value: &Option<T>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    use serde::ser::Error;
    use serde_json::value::RawValue;
    let text = value.as_ref().map_or("null", AsRef::as_ref);
    // Checked as written, so that dropping layout cannot make text valid.
    let raw: &RawValue = serde_json::from_str(text).map_err(S::Error::custom)?;
    match crate::json::compact(raw.get()) {
        Cow::Borrowed(_) => raw.serialize(serializer),
        Cow::Owned(one_line) => serde_json::from_str::<&RawValue>(&one_line)
            .map_err(S::Error::custom)?
            .serialize(serializer),
    }
}

/// An [`Event`] that owns its text.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
#[allow(missing_docs)] // the fields are those of `Event`
pub enum OwnedEvent {
    /// See [`Event::Content`].
    Content { text: String },
    /// See [`Event::Reasoning`].
    Reasoning { text: String },
    /// See [`Event::ToolCallStart`].
    ToolCallStart {
        index: usize,
        id: String,
        name: String,
    },
    /// See [`Event::ParameterStart`].
    ParameterStart { index: usize, name: String },
    /// See [`Event::ParameterDelta`].
    ParameterDelta { index: usize, text: String },
    /// See [`Event::ParameterEnd`].
    ParameterEnd {
        index: usize,
        name: String,
        #[serde(serialize_with = "raw_json", skip_serializing_if = "Option::is_none")]
        value: Option<String>,
    },
    /// See [`Event::ArgumentsDelta`].
    ArgumentsDelta { index: usize, delta: String },
    /// See [`Event::ToolCallEnd`].
    ToolCallEnd {
        index: usize,
        #[serde(skip_serializing_if = "Option::is_none")]
        arguments: Option<String>,
        complete: bool,
    },
    /// See [`Event::Diagnostic`].
    Diagnostic {
        index: Option<usize>,
        kind: DiagnosticKind,
        message: String,
        span: Span,
    },
}

impl Event<'_> {
    /// Copies the event's text into an [`OwnedEvent`].
    pub fn into_owned(self) -> OwnedEvent {
        match self {
            Event::Content { text } => OwnedEvent::Content { text: text.into() },
            Event::Reasoning { text } => OwnedEvent::Reasoning { text: text.into() },
            Event::ToolCallStart { index, id, name } => OwnedEvent::ToolCallStart {
                index,
                id: id.into(),
                name: name.into(),
            },
            Event::ParameterStart { index, name } => OwnedEvent::ParameterStart {
                index,
                name: name.into(),
            },
            Event::ParameterDelta { index, text } => OwnedEvent::ParameterDelta {
                index,
                text: text.into(),
            },
            Event::ParameterEnd { index, name, value } => OwnedEvent::ParameterEnd {
                index,
                name: name.into(),
                value: value.map(Into::into),
            },
            Event::ArgumentsDelta { index, delta } => OwnedEvent::ArgumentsDelta {
                index,
                delta: delta.into(),
            },
            Event::ToolCallEnd {
                index,
                arguments,
                complete,
            } => OwnedEvent::ToolCallEnd {
                index,
                arguments: arguments.map(Into::into),
                complete,
            },
            Event::Diagnostic {
                index,
                kind,
                message,
                span,
            } => OwnedEvent::Diagnostic {
                index,
                kind,
                message: message.into(),
                span,
            },
        }
    }
}

impl OwnedEvent {
    /// Borrows the event as an [`Event`].
    pub fn as_event(&self) -> Event<'_> {
        match self {
            OwnedEvent::Content { text } => Event::Content { text },
            OwnedEvent::Reasoning { text } => Event::Reasoning { text },
            OwnedEvent::ToolCallStart { index, id, name } => Event::ToolCallStart {
                index: *index,
                id,
                name,
            },
            OwnedEvent::ParameterStart { index, name } => Event::ParameterStart {
                index: *index,
                name,
            },
            OwnedEvent::ParameterDelta { index, text } => Event::ParameterDelta {
                index: *index,
                text,
            },
            OwnedEvent::ParameterEnd { index, name, value } => Event::ParameterEnd {
                index: *index,
                name,
                value: value.as_deref(),
            },
            OwnedEvent::ArgumentsDelta { index, delta } => Event::ArgumentsDelta {
                index: *index,
                delta,
            },
            OwnedEvent::ToolCallEnd {
                index,
                arguments,
                complete,
            } => Event::ToolCallEnd {
                index: *index,
                arguments: arguments.as_deref(),
                complete: *complete,
            },
            OwnedEvent::Diagnostic {
                index,
                kind,
                message,
                span,
            } => Event::Diagnostic {
                index: *index,
                kind: *kind,
                message,
                span: *span,
            },
        }
    }

    fn delta_mut(&mut self) -> Option<(u8, Option<usize>, &mut String)> {
        match self {
            OwnedEvent::Content { text } => Some((0, None, text)),
            OwnedEvent::ParameterDelta { index, text } => Some((1, Some(*index), text)),
            OwnedEvent::ArgumentsDelta { index, delta } => Some((2, Some(*index), delta)),
            OwnedEvent::Reasoning { text } => Some((3, None, text)),
            _ => None,
        }
    }
}

/// Merges delta events into the canonical form under which the parser's
/// output does not depend on how its input was split into chunks.
///
/// Within each run of delta events (`content`, `reasoning`,
/// `parameter_delta`, `arguments_delta`) between two other events, all deltas of one kind and
/// index are joined into the first of them. Empty deltas are dropped.
///
/// # Example
/// ```
/// use toolcall_stream::{coalesce, Format, Parser};
/// let text = "Hi <tool_call><function=f></function></tool_call>";
/// let mut whole = Parser::new(Format::Qwen3Coder);
/// let mut one_shot: Vec<_> = whole.feed(text).map(|e| e.into_owned()).collect();
/// one_shot.extend(whole.finish().map(|e| e.into_owned()));
///
/// let mut bytewise = Parser::new(Format::Qwen3Coder);
/// let mut split = Vec::new();
/// for byte in text.as_bytes() {
///     split.extend(bytewise.feed(std::slice::from_ref(byte)).map(|e| e.into_owned()));
/// }
/// split.extend(bytewise.finish().map(|e| e.into_owned()));
/// # let strip_ids = |v: Vec<toolcall_stream::OwnedEvent>| v.into_iter().map(|e| match e {
/// #     toolcall_stream::OwnedEvent::ToolCallStart { index, name, .. } =>
/// #         toolcall_stream::OwnedEvent::ToolCallStart { index, id: String::new(), name },
/// #     e => e }).collect::<Vec<_>>();
/// assert_eq!(strip_ids(coalesce(one_shot)), strip_ids(coalesce(split)));
/// ```
pub fn coalesce(events: impl IntoIterator<Item = OwnedEvent>) -> Vec<OwnedEvent> {
    let mut merged: Vec<OwnedEvent> = Vec::new();
    let mut run_start = 0;
    for mut event in events {
        let Some((kind, index, text)) = event.delta_mut() else {
            merged.push(event);
            run_start = merged.len();
            continue;
        };
        if text.is_empty() {
            continue;
        }
        let text = std::mem::take(text);
        let target = merged[run_start..]
            .iter_mut()
            .find_map(|e| match e.delta_mut() {
                Some((k, i, t)) if k == kind && i == index => Some(t),
                _ => None,
            });
        match target {
            Some(existing) => existing.push_str(&text),
            None => {
                if let Some((_, _, slot)) = event.delta_mut() {
                    *slot = text;
                }
                merged.push(event);
            }
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::Event;

    #[test]
    fn a_value_laid_out_over_lines_serializes_on_one_line() {
        let laid_out = "{\"width\": 10,\n \"height\": [1,\r\n\t2], \"note\": \"a\\nb\"}\n";
        let event = Event::ParameterEnd {
            index: 0,
            name: "dimensions",
            value: Some(laid_out),
        };
        for line in [
            serde_json::to_string(&event).unwrap(),
            serde_json::to_string(&event.into_owned()).unwrap(),
        ] {
            assert_eq!(
                line,
                r#"{"type":"parameter_end","index":0,"name":"dimensions","value":{"width":10,"height":[1,2],"note":"a\nb"}}"#
            );
            let parsed: serde_json::Value = serde_json::from_str(&line).unwrap();
            let expected: serde_json::Value = serde_json::from_str(laid_out).unwrap();
            assert_eq!(parsed["value"], expected);
        }
    }

    #[test]
    fn a_value_that_is_not_json_is_an_error_even_if_layout_hides_it() {
        let event = Event::ParameterEnd {
            index: 0,
            name: "n",
            value: Some("1 2"),
        };
        assert!(serde_json::to_string(&event).is_err());
    }
}
