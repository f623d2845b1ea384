//! Where the engine's events go. The engine is generic over a [`Sink`]:
//! pushed to a closure, events borrow from the chunk and the parser's
//! scratch and nothing is copied ([`Push`]); for the iterator API, the
//! [`Recorder`] copies each event's text into one reused buffer and
//! [`Events`] replays them. Both see exactly the same events.

use std::ops::Range;

use crate::event::{DiagnosticKind, Event, Span};

/// A span of a buffer.
pub(crate) type Piece = Range<usize>;

/// Receives the engine's events, in order.
pub(crate) trait Sink {
    /// Whether the sink wants the raw input through [`Sink::raw`]; when
    /// not (every sink but strict mode's gate), the engine's calls to it
    /// compile away.
    const WANTS_RAW: bool = false;

    /// Whether the sink reads nothing but [`Event::ToolCallStart`] (the
    /// foreign watch's detector, which only names the call it found): the
    /// rest of what `auto`'s candidates write for it need not be held.
    const CALL_STARTS_ONLY: bool = false;

    fn event(&mut self, event: Event<'_>);

    /// The input text the engine consumed, every byte once and in order,
    /// handed over after the events it caused. `opening` marks a marker
    /// that may open a call (`<tool_call>`, a bare `<function=`).
    #[inline(always)]
    fn raw(&mut self, text: &str, opening: bool) {
        let _ = (text, opening);
    }

    /// Raw input, as [`Sink::raw`]'s, of a marker dropped wherever it is
    /// (the model's end of turn): never content, not even where the input
    /// around it is (after a call strict mode rejected).
    #[inline(always)]
    fn dropped(&mut self, text: &str) {
        self.raw(text, false);
    }

    /// The opening marked last turned out to open no call, and its text
    /// was structure (a message header whose body is content or
    /// reasoning), so no content event says so.
    #[inline(always)]
    fn not_a_call(&mut self) {}

    /// Raw text of `text` bytes just passed on stood for `input` bytes of
    /// input (an invalid UTF-8 sequence read as U+FFFD): a sink that counts
    /// raw bytes to place things counts the input's.
    #[inline(always)]
    fn replaced(&mut self, _text: usize, _input: usize) {}

    /// Whether the sink wants [`content_at`](Sink::content_at): otherwise
    /// plain content, which no diagnostic points into, is not placed (it
    /// is the common case, at content speed).
    const PLACES_CONTENT: bool = false;

    /// The content event that follows starts at input offset `at` (a
    /// watch on content places what it finds with it).
    #[inline(always)]
    fn content_at(&mut self, _at: u64) {}

    /// A piece of a value: its raw text (`parameter_delta`) and the same
    /// text as a JSON fragment (`arguments_delta`), which is `text` itself
    /// when nothing needed escaping. The hot path of a streaming value, so
    /// a sink may record the pair at once.
    #[inline]
    fn value_piece(&mut self, index: usize, text: &str, delta: &str) {
        self.event(Event::ParameterDelta { index, text });
        self.event(Event::ArgumentsDelta { index, delta });
    }

    /// An event whose whole-arguments field (`ParameterEnd::value`,
    /// `ToolCallEnd::arguments`) is `whole`, a span of the call writer's
    /// arguments buffer. A sink that outlives the call may keep the span
    /// instead of copying the text.
    #[inline]
    fn event_with_whole(&mut self, event: Event<'_>, whole: Piece) {
        let _ = whole;
        self.event(event);
    }
}

/// The push sink: a closure called with each event.
pub(crate) struct Push<F>(pub F);

impl<F: FnMut(Event<'_>)> Sink for Push<F> {
    #[inline]
    fn event(&mut self, event: Event<'_>) {
        (self.0)(event);
    }
}

/// An event as recorded: spans into the recorder's text (`T`) or the call
/// writer's arguments buffer (`A`).
#[derive(Clone, Debug)]
enum Recorded {
    Content(Piece),
    Reasoning(Piece),
    ToolCallStart {
        index: usize,
        id: Piece,
        name: Piece,
    },
    ParameterStart {
        index: usize,
        name: Piece,
    },
    ParameterDelta {
        index: usize,
        text: Piece,
    },
    ParameterEnd {
        index: usize,
        name: Piece,
        value: Option<Whole>,
    },
    ArgumentsDelta {
        index: usize,
        delta: Piece,
    },
    ToolCallEnd {
        index: usize,
        arguments: Option<Whole>,
        complete: bool,
    },
    Diagnostic {
        index: Option<usize>,
        kind: DiagnosticKind,
        message: Piece,
        span: crate::event::Span,
    },
}

/// Where a recorded whole-arguments field is.
#[derive(Clone, Debug)]
enum Whole {
    /// In the call writer's arguments buffer.
    Arguments(Piece),
    /// In the recorder's text.
    Copied(Piece),
}

/// The events of one `feed` or `finish`, recorded for the iterator API.
/// Its buffers are reused across calls, so steady-state parsing allocates
/// nothing.
#[derive(Default)]
pub(crate) struct Recorder {
    text: String,
    events: Vec<Recorded>,
}

impl Recorder {
    pub(crate) fn clear(&mut self) {
        self.text.clear();
        self.events.clear();
    }

    #[inline(always)]
    fn push_text(&mut self, text: &str) -> Piece {
        let start = self.text.len();
        self.text.push_str(text);
        start..self.text.len()
    }

    /// A whole-arguments field: a span of the call writer's buffer when
    /// the engine gave one, else (events held by strict mode's gate) a copy.
    #[inline(always)]
    fn whole(&mut self, text: Option<&str>, span: Option<Piece>) -> Option<Whole> {
        match (text, span) {
            (Some(_), Some(span)) => Some(Whole::Arguments(span)),
            (Some(text), None) => Some(Whole::Copied(self.push_text(text))),
            (None, _) => None,
        }
    }

    // Inlined into each emission site, where the event's variant is known,
    // so the match folds away.
    #[inline(always)]
    fn record(&mut self, event: Event<'_>, whole: Option<Piece>) {
        let recorded = match event {
            Event::Content { text } => Recorded::Content(self.push_text(text)),
            Event::Reasoning { text } => Recorded::Reasoning(self.push_text(text)),
            Event::ToolCallStart { index, id, name } => Recorded::ToolCallStart {
                index,
                id: self.push_text(id),
                name: self.push_text(name),
            },
            Event::ParameterStart { index, name } => Recorded::ParameterStart {
                index,
                name: self.push_text(name),
            },
            Event::ParameterDelta { index, text } => Recorded::ParameterDelta {
                index,
                text: self.push_text(text),
            },
            Event::ParameterEnd { index, name, value } => Recorded::ParameterEnd {
                index,
                name: self.push_text(name),
                value: self.whole(value, whole),
            },
            Event::ArgumentsDelta { index, delta } => Recorded::ArgumentsDelta {
                index,
                delta: self.push_text(delta),
            },
            Event::ToolCallEnd {
                index,
                arguments,
                complete,
            } => Recorded::ToolCallEnd {
                index,
                arguments: self.whole(arguments, whole),
                complete,
            },
            Event::Diagnostic {
                index,
                kind,
                message,
                span,
            } => Recorded::Diagnostic {
                index,
                kind,
                message: self.push_text(message),
                span,
            },
        };
        self.events.push(recorded);
    }
}

impl Sink for Recorder {
    #[inline(always)]
    fn event(&mut self, event: Event<'_>) {
        self.record(event, None);
    }

    #[inline(always)]
    fn value_piece(&mut self, index: usize, text: &str, delta: &str) {
        let raw = self.push_text(text);
        // The same text when nothing needed escaping: recorded once.
        let json = if std::ptr::eq(text, delta) {
            raw.clone()
        } else {
            self.push_text(delta)
        };
        self.events
            .push(Recorded::ParameterDelta { index, text: raw });
        self.events
            .push(Recorded::ArgumentsDelta { index, delta: json });
    }

    #[inline(always)]
    fn event_with_whole(&mut self, event: Event<'_>, whole: Piece) {
        self.record(event, Some(whole));
    }
}

/// The events produced by one [`Parser::feed`](crate::Parser::feed) or
/// [`Parser::finish`](crate::Parser::finish), borrowing from the parser.
///
/// The parser has already processed the whole chunk when this is returned;
/// dropping it early loses the events, not the parser's state.
#[derive(Clone, Debug)]
pub struct Events<'a> {
    text: &'a str,
    args: &'a str,
    events: std::slice::Iter<'a, Recorded>,
}

impl<'a> Events<'a> {
    /// The recorder's events; `args` is the call writer's arguments buffer,
    /// which whole-argument fields are spans of.
    pub(crate) fn new(recorder: &'a Recorder, args: &'a str) -> Events<'a> {
        Events {
            text: &recorder.text,
            args,
            events: recorder.events.iter(),
        }
    }
}

impl<'a> Iterator for Events<'a> {
    type Item = Event<'a>;

    fn next(&mut self) -> Option<Event<'a>> {
        let (text, args) = (self.text, self.args);
        let s = |span: &Piece| &text[span.clone()];
        let a = |whole: &Whole| match whole {
            Whole::Arguments(span) => &args[span.clone()],
            Whole::Copied(span) => &text[span.clone()],
        };
        Some(match self.events.next()? {
            Recorded::Content(span) => Event::Content { text: s(span) },
            Recorded::Reasoning(span) => Event::Reasoning { text: s(span) },
            Recorded::ToolCallStart { index, id, name } => Event::ToolCallStart {
                index: *index,
                id: s(id),
                name: s(name),
            },
            Recorded::ParameterStart { index, name } => Event::ParameterStart {
                index: *index,
                name: s(name),
            },
            Recorded::ParameterDelta { index, text } => Event::ParameterDelta {
                index: *index,
                text: s(text),
            },
            Recorded::ParameterEnd { index, name, value } => Event::ParameterEnd {
                index: *index,
                name: s(name),
                value: value.as_ref().map(a),
            },
            Recorded::ArgumentsDelta { index, delta } => Event::ArgumentsDelta {
                index: *index,
                delta: s(delta),
            },
            Recorded::ToolCallEnd {
                index,
                arguments,
                complete,
            } => Event::ToolCallEnd {
                index: *index,
                arguments: arguments.as_ref().map(a),
                complete: *complete,
            },
            Recorded::Diagnostic {
                index,
                kind,
                message,
                span,
            } => Event::Diagnostic {
                index: *index,
                kind: *kind,
                message: s(message),
                span: *span,
            },
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.events.size_hint()
    }
}

impl ExactSizeIterator for Events<'_> {}

/// Where a diagnostic is about to be reported: the message buffer (reused,
/// so reporting allocates nothing once it has grown) and the place in the
/// input the reader has reached, which the engine keeps up to date.
pub(crate) struct Report {
    pub text: String,
    /// Where the construct being read began: the opener of the call or
    /// opening, or the text being decided.
    pub from: u64,
    /// How far the input has been read to by the decision being made.
    pub at: u64,
    /// No place is past this (the end of an invalid UTF-8 sequence while
    /// the U+FFFD that replaced it, which is longer, is read).
    pub cap: u64,
}

impl Default for Report {
    fn default() -> Report {
        Report {
            text: String::new(),
            from: 0,
            at: 0,
            cap: u64::MAX,
        }
    }
}

impl Report {
    pub(crate) fn span(&self) -> Span {
        let at = self.at.min(self.cap);
        Span::new(self.from.min(at), at)
    }
}

/// Emits a diagnostic whose message is formatted into the report's buffer,
/// spanning from where the construct began to where the input was read.
#[inline(never)]
pub(crate) fn diagnostic<S: Sink>(
    sink: &mut S,
    report: &mut Report,
    kind: DiagnosticKind,
    index: Option<usize>,
    message: std::fmt::Arguments<'_>,
) {
    let span = report.span();
    emit_diagnostic(sink, &mut report.text, kind, index, span, message);
}

/// Emits a diagnostic with a span of its own.
pub(crate) fn emit_diagnostic<S: Sink>(
    sink: &mut S,
    scratch: &mut String,
    kind: DiagnosticKind,
    index: Option<usize>,
    span: Span,
    message: std::fmt::Arguments<'_>,
) {
    use std::fmt::Write;
    scratch.clear();
    let _ = scratch.write_fmt(message);
    sink.event(Event::Diagnostic {
        index,
        kind,
        message: scratch,
        span,
    });
}
