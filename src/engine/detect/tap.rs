//! `auto`'s candidates: an engine per format that may read an opener, and
//! the sink its output goes to (held until one wins, or out at once when
//! it is the opener's only one).

use crate::engine::grammar::fence::CodeFences;
use crate::engine::{Compiled, Engine};
use crate::event::{DiagnosticKind as Kind, Event, OwnedEvent, Span};
use crate::format::Format;
use crate::options::Options;
use crate::sink::{emit_diagnostic, Piece, Sink};

pub(super) struct Candidate {
    /// Boxed: an engine is large, and candidates move in and out of the
    /// spares.
    pub(super) engine: Box<Engine>,
    pub(super) held: Vec<Held>,
    pub(super) started: bool,
}

/// Dropped candidates, kept to be reset for the next opener of their
/// format: building an engine (its options, buffers, tables) costs more
/// than reading the few characters that drop it, and prose can hold an
/// opener's text again and again (`<tool_calls>` written as a word).
/// At most one a format, so the detected formats bound them.
#[derive(Default)]
pub(super) struct Spares(Vec<Candidate>);

impl Spares {
    /// A fresh candidate of `format`, the other options `opts`.
    pub(super) fn candidate(&mut self, format: Format, opts: &Options) -> Candidate {
        if let Some(at) = self.0.iter().position(|c| c.engine.opts.format == format) {
            let mut candidate = self.0.swap_remove(at);
            candidate.engine.reset();
            candidate.held.clear();
            candidate.started = false;
            return candidate;
        }
        let mut opts = opts.clone();
        opts.format = format;
        Candidate {
            engine: Box::new(Engine::with_format(Compiled::of(format), opts)),
            held: Vec::new(),
            started: false,
        }
    }

    /// The ASCII bytes that, first after `opener` and its layout, make a
    /// fresh candidate of `format` read the opener as text (see
    /// [`Engine::refused_first_bytes`]); the candidate is kept. Its output
    /// is held and thrown away: it goes through the sink type candidates
    /// already use, so the engine is not built again for another (the
    /// browser module's size).
    pub(super) fn refused_after<S: Sink>(
        &mut self,
        format: Format,
        opener: &str,
        reasoning: bool,
        opts: &Options,
        sink: &mut S,
    ) -> u128 {
        let mut candidate = self.candidate(format, opts);
        candidate.engine.reasoning_at = reasoning.then_some(0);
        let (engine, mut tap) = candidate.tap(false, Span::default(), sink);
        engine.run_format(opener, None, &mut tap);
        let refused = candidate.engine.refused_first_bytes();
        candidate.held.clear();
        candidate.started = false;
        self.0.push(candidate);
        refused
    }

    /// Keeps the candidates that read their opener as text (back in text
    /// outside reasoning or in it as the scout was, nothing held, no call
    /// made), in their order; returns the last one's reasoning and code
    /// blocks, where the scout goes on from when none is left.
    pub(super) fn take_idle(
        &mut self,
        candidates: &mut Vec<Candidate>,
        reasoning: bool,
    ) -> Option<(bool, Option<CodeFences>)> {
        let mut after = None;
        let mut at = 0;
        while let Some(c) = candidates.get(at) {
            if c.started || !c.engine.is_idle(reasoning) {
                at += 1;
                continue;
            }
            after = Some((c.engine.in_reasoning(), c.engine.fences));
            let idle = candidates.remove(at);
            let format = idle.engine.opts.format;
            if !self.0.iter().any(|c| c.engine.opts.format == format) {
                self.0.push(idle);
            }
        }
        after
    }
}

/// A candidate's output, waiting for the decision.
pub(super) enum Held {
    Event(OwnedEvent),
    Raw(String, bool),
    /// See [`Sink::dropped`].
    Dropped(String),
    NotACall,
    /// See [`Sink::replaced`].
    Replaced(usize, usize),
}

impl Candidate {
    /// The candidate's engine, and the sink it writes to.
    pub(super) fn tap<'a, S>(
        &'a mut self,
        sole: bool,
        opened: Span,
        out: &'a mut S,
    ) -> (&'a mut Engine, TapSink<'a, S>) {
        let format = self.engine.opts.format;
        let tap = TapSink {
            held: &mut self.held,
            started: &mut self.started,
            sole,
            format,
            opened,
            out,
        };
        (&mut *self.engine, tap)
    }

    pub(super) fn held_len(&self) -> usize {
        self.held
            .iter()
            .map(|h| match h {
                Held::Event(_) => 32,
                Held::Raw(text, _) | Held::Dropped(text) => text.len(),
                Held::NotACall | Held::Replaced(..) => 0,
            })
            .sum()
    }
}

/// A winner that has not yet replaced the parser's engine reads `text`
/// with its output going out as it comes: through the sink type the
/// candidates already use, so the engine is not built again for another
/// (the browser module's size).
pub(super) fn read_as_winner<S: Sink>(winner: &mut Engine, text: &str, out: &mut S) {
    let mut held = Vec::new();
    let mut started = true;
    let mut tap = TapSink {
        held: &mut held,
        started: &mut started,
        sole: true,
        format: winner.opts.format,
        opened: Span::default(),
        out,
    };
    winner.run_format(text, None, &mut tap);
}

/// Sends a candidate's held output, with `format_detected` (pointing at
/// the opener) before its first call when `detected`.
pub(super) fn replay<S: Sink>(held: Vec<Held>, detected: Option<(Format, Span)>, sink: &mut S) {
    let mut detected = detected;
    for item in held {
        match item {
            Held::Event(event) => {
                if let (Some((format, opened)), OwnedEvent::ToolCallStart { .. }) =
                    (detected, &event)
                {
                    report_detected(format, opened, sink);
                    detected = None;
                }
                sink.event(event.as_event());
            }
            Held::Raw(text, opening) => sink.raw(&text, opening),
            Held::Dropped(text) => sink.dropped(&text),
            Held::NotACall => sink.not_a_call(),
            Held::Replaced(text, input) => sink.replaced(text, input),
        }
    }
}

/// Whether a sole candidate's output is only the text it was fed given
/// back as content (an opener it read as text): then the text may be read
/// again in its place.
pub(super) fn gives_back(held: &[Held], fed: &str) -> bool {
    let mut at = 0;
    for item in held {
        match item {
            Held::Event(OwnedEvent::Content { text }) => {
                if !fed[at..].starts_with(text.as_str()) {
                    return false;
                }
                at += text.len();
            }
            Held::Raw(..) | Held::NotACall => {}
            _ => return false,
        }
    }
    at == fed.len()
}

fn report_detected<S: Sink>(format: Format, opened: Span, sink: &mut S) {
    let mut message = String::new();
    emit_diagnostic(
        sink,
        &mut message,
        Kind::FormatDetected,
        None,
        opened,
        format_args!(
            "the output is in the `{}` format (its first call showed it); the rest of the \
             stream is read as `{}`",
            format.name(),
            format.name()
        ),
    );
}

/// Where a candidate's output goes: held until one wins (or, the sole
/// candidate's, until the piece it came of ends), then out.
pub(super) struct TapSink<'a, S> {
    held: &'a mut Vec<Held>,
    started: &'a mut bool,
    sole: bool,
    format: Format,
    /// Where the opener is in the input.
    opened: Span,
    out: &'a mut S,
}

impl<S: Sink> TapSink<'_, S> {
    /// Appends a delta to the last held event when it is one of the same
    /// kind, so that pieces fed one character at a time stay one event.
    fn merge(&mut self, event: &Event<'_>) -> bool {
        let Some(Held::Event(last)) = self.held.last_mut() else {
            return false;
        };
        match (last, event) {
            (OwnedEvent::Content { text: a }, Event::Content { text: b })
            | (OwnedEvent::Reasoning { text: a }, Event::Reasoning { text: b }) => {
                a.push_str(b);
                true
            }
            (
                OwnedEvent::ArgumentsDelta { index: i, delta: a },
                Event::ArgumentsDelta { index: j, delta: b },
            ) if *i == *j => {
                a.push_str(b);
                true
            }
            (
                OwnedEvent::ParameterDelta { index: i, text: a },
                Event::ParameterDelta { index: j, text: b },
            ) if *i == *j => {
                a.push_str(b);
                true
            }
            _ => false,
        }
    }
}

impl<S: Sink> Sink for TapSink<'_, S> {
    const WANTS_RAW: bool = S::WANTS_RAW;

    fn event(&mut self, event: Event<'_>) {
        let start = matches!(event, Event::ToolCallStart { .. });
        if self.sole && (*self.started || start) {
            if start && !*self.started {
                // What came before the call, then the call.
                replay(std::mem::take(self.held), None, self.out);
                report_detected(self.format, self.opened, self.out);
            }
            self.out.event(event);
        } else if self.sole {
            // Until the piece ends (see `Detect::decide`).
            if !S::CALL_STARTS_ONLY {
                self.held.push(Held::Event(event.into_owned()));
            }
        } else if S::CALL_STARTS_ONLY && !start {
            // Nothing the sink would read.
        } else if !self.merge(&event) {
            self.held.push(Held::Event(event.into_owned()));
        }
        *self.started |= start;
    }

    fn raw(&mut self, text: &str, opening: bool) {
        if self.sole && *self.started {
            self.out.raw(text, opening);
        } else if !S::CALL_STARTS_ONLY {
            self.held.push(Held::Raw(text.to_owned(), opening));
        }
    }

    fn dropped(&mut self, text: &str) {
        if self.sole && *self.started {
            self.out.dropped(text);
        } else if !S::CALL_STARTS_ONLY {
            self.held.push(Held::Dropped(text.to_owned()));
        }
    }

    fn not_a_call(&mut self) {
        if self.sole && *self.started {
            self.out.not_a_call();
        } else if !S::CALL_STARTS_ONLY {
            self.held.push(Held::NotACall);
        }
    }

    fn replaced(&mut self, text: usize, input: usize) {
        if self.sole && *self.started {
            self.out.replaced(text, input);
        } else if !S::CALL_STARTS_ONLY {
            self.held.push(Held::Replaced(text, input));
        }
    }

    // Spans of the candidate's arguments buffer mean nothing to the
    // parser's: the text is copied.
    fn event_with_whole(&mut self, event: Event<'_>, _whole: Piece) {
        self.event(event);
    }
}
