//! Where the engine's events go. The engine is generic over a [`Sink`]:
//! pushed to a closure, events borrow from the chunk and the parser's
//! scratch and nothing is copied ([`Push`]); for the iterator API, the
//! [`Recorder`] copies each event's text into one reused buffer and
//! [`Events`] replays them. Both see exactly the same events.

use std::ops::Range;

use crate::event::{DiagnosticKind, Event};

/// A span of a buffer.
pub(crate) type Span = Range<usize>;

/// Receives the engine's events, in order.
pub(crate) trait Sink {
    /// Whether the sink wants the raw input through [`Sink::raw`]; when
    /// not (every sink but strict mode's gate), the engine's calls to it
    /// compile away.
    const WANTS_RAW: bool = false;

    fn event(&mut self, event: Event<'_>);

    /// The input text the engine consumed, every byte once and in order,
    /// handed over after the events it caused. `opening` marks a marker
    /// that may open a call (`<tool_call>`, a bare `<function=`).
    #[inline(always)]
    fn raw(&mut self, text: &str, opening: bool) {
        let _ = (text, opening);
    }

    /// The opening marked last turned out to open no call, and its text
    /// was structure (a message header whose body is content or
    /// reasoning), so no content event says so.
    #[inline(always)]
    fn not_a_call(&mut self) {}

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
    fn event_with_whole(&mut self, event: Event<'_>, whole: Span) {
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
    Content(Span),
    Reasoning(Span),
    ToolCallStart {
        index: usize,
        id: Span,
        name: Span,
    },
    ParameterStart {
        index: usize,
        name: Span,
    },
    ParameterDelta {
        index: usize,
        text: Span,
    },
    ParameterEnd {
        index: usize,
        name: Span,
        value: Option<Whole>,
    },
    ArgumentsDelta {
        index: usize,
        delta: Span,
    },
    ToolCallEnd {
        index: usize,
        arguments: Option<Whole>,
        complete: bool,
    },
    Diagnostic {
        index: Option<usize>,
        kind: DiagnosticKind,
        message: Span,
    },
}

/// Where a recorded whole-arguments field is.
#[derive(Clone, Debug)]
enum Whole {
    /// In the call writer's arguments buffer.
    Arguments(Span),
    /// In the recorder's text.
    Copied(Span),
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
    fn push_text(&mut self, text: &str) -> Span {
        let start = self.text.len();
        self.text.push_str(text);
        start..self.text.len()
    }

    /// A whole-arguments field: a span of the call writer's buffer when
    /// the engine gave one, else (events held by strict mode's gate) a copy.
    #[inline(always)]
    fn whole(&mut self, text: Option<&str>, span: Option<Span>) -> Option<Whole> {
        match (text, span) {
            (Some(_), Some(span)) => Some(Whole::Arguments(span)),
            (Some(text), None) => Some(Whole::Copied(self.push_text(text))),
            (None, _) => None,
        }
    }

    // Inlined into each emission site, where the event's variant is known,
    // so the match folds away.
    #[inline(always)]
    fn record(&mut self, event: Event<'_>, whole: Option<Span>) {
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
            } => Recorded::Diagnostic {
                index,
                kind,
                message: self.push_text(message),
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
    fn event_with_whole(&mut self, event: Event<'_>, whole: Span) {
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
        let s = |span: &Span| &text[span.clone()];
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
            } => Event::Diagnostic {
                index: *index,
                kind: *kind,
                message: s(message),
            },
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.events.size_hint()
    }
}

impl ExactSizeIterator for Events<'_> {}

/// Emits a diagnostic whose message is formatted into `scratch` (reused,
/// so reporting allocates nothing once the buffer has grown).
#[inline(never)]
pub(crate) fn diagnostic<S: Sink>(
    sink: &mut S,
    scratch: &mut String,
    kind: DiagnosticKind,
    index: Option<usize>,
    message: std::fmt::Arguments<'_>,
) {
    use std::fmt::Write;
    scratch.clear();
    let _ = scratch.write_fmt(message);
    sink.event(Event::Diagnostic {
        index,
        kind,
        message: scratch,
    });
}
