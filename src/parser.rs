//! The public parser: UTF-8 handling around the engine, and its builder.

use crate::engine::Engine;
use crate::event::Event;
use crate::gate::{Gate, Policy};
use crate::message::{Message, MessageBuilder};
use crate::sink::{Events, Push, Recorder, Sink};
use crate::Format;

mod builder;
mod utf8;

pub use builder::ParserBuilder;

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
