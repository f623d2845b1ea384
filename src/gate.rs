//! The gate: strict mode, and unknown tools as content.
//!
//! Events cannot be taken back once a consumer has them, so a call that
//! may be rejected is held whole: the gate sits between the engine and the
//! sink, keeps the call's events and its raw input text until the call
//! ends, then either passes the events on (renumbering calls so that the
//! tool calls a consumer sees are numbered 0, 1, … without gaps) or sends
//! the call's text as content, after the diagnostics that rejected it.
//!
//! The raw text comes from the engine ([`Sink::raw`]): every input byte,
//! once and in order, after the events it caused. Outside calls nothing is
//! kept except a possible call's opening; the structure after a rejected
//! call (a wrapper's closer, layout) goes to content with it, so that a
//! stream whose calls are all rejected comes back as content byte for byte.
//! A call longer than its bound is rejected as soon as it passes it, and
//! the rest of its text streams out as content: the gate never holds more
//! than the bound.

use std::mem;

use crate::event::{DiagnosticKind, Event, OwnedEvent, Span};
use crate::sink::{Piece, Sink};

/// Which calls the gate rejects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct Policy {
    /// Any call with a diagnostic other than `closer_in_value`, or not
    /// complete (strict mode).
    pub strict: bool,
    /// Calls naming an unknown tool.
    pub unknown_tools: bool,
    /// Calls that are not complete.
    pub incomplete: bool,
    /// Calls whose arguments could not be read: ended incomplete by
    /// `invalid_json` (whole-output results, or the builder's
    /// `unreadable_calls_as_content`).
    pub unreadable: bool,
}

impl Policy {
    /// Whether any call may be rejected: the gate is needed.
    pub(crate) fn any(self) -> bool {
        self.strict || self.unknown_tools || self.incomplete || self.unreadable
    }

    fn rejects(self, kind: DiagnosticKind) -> bool {
        (self.strict && kind != DiagnosticKind::CloserInValue)
            || (self.unknown_tools && kind == DiagnosticKind::UnknownTool)
    }

    fn rejects_incomplete(self) -> bool {
        self.strict || self.incomplete
    }

    fn name(self) -> &'static str {
        if self.strict {
            "strict mode"
        } else if self.unknown_tools && self.incomplete {
            "unknown tools and incomplete calls are content"
        } else if self.unknown_tools {
            "unknown tools are content"
        } else {
            "incomplete calls are content"
        }
    }
}

/// The gate's state, kept by the parser across chunks.
pub(crate) struct Gate {
    policy: Policy,
    /// The most raw bytes one call may hold.
    max_call_bytes: usize,
    /// Raw text kept: a possible call's opening and what followed it, or
    /// the open call's text.
    raw: String,
    /// Whether `raw` holds a possible opening (outside calls).
    opening: bool,
    /// The length of that opening's first marker.
    opening_len: usize,
    in_call: bool,
    /// The open call's events.
    held: Vec<OwnedEvent>,
    /// Whether the open call is rejected.
    rejected: bool,
    /// Whether the open call had `invalid_json`: rejected by the
    /// `unreadable` policy if it ends incomplete (a call whose JSON body
    /// alone was left open, its arguments whole, ends complete and stays).
    unreadable: bool,
    /// Whether diagnostics about the next call, reported before it
    /// starts (a malformed name), reject it.
    next_rejected: bool,
    /// Calls the engine has started.
    started: usize,
    /// Diagnostics reported while a rejected call's tail streams out,
    /// passed on when it ends: the tail's text goes out as it arrives, and
    /// where a diagnostic falls in it would depend on the split.
    deferred: Vec<OwnedEvent>,
    /// The open call passed its bound: its text streams out as content.
    overflowed: bool,
    /// The open call passed its bound and, having failed no check, is
    /// passed on as it streams, as call `index`.
    released: Option<usize>,
    /// A call was rejected and no call has started since: the input
    /// streams out as content from `raw`, and the engine's content (a part
    /// of it) is not passed on.
    tail: bool,
    /// Calls passed on so far: the next accepted call's index.
    accepted: usize,
    /// The engine's index of the last call, and what it became.
    last: Option<(usize, Option<usize>)>,
    /// Raw bytes seen: the input offset the next raw text starts at.
    seen: u64,
    /// The input offset `raw` starts at, for the spans of the gate's own
    /// diagnostics.
    raw_from: u64,
}

impl Gate {
    pub(crate) fn new(policy: Policy, max_call_bytes: usize) -> Gate {
        Gate {
            policy,
            max_call_bytes,
            raw: String::new(),
            opening: false,
            opening_len: 0,
            in_call: false,
            held: Vec::new(),
            rejected: false,
            unreadable: false,
            next_rejected: false,
            started: 0,
            deferred: Vec::new(),
            overflowed: false,
            released: None,
            seen: 0,
            raw_from: 0,
            tail: false,
            accepted: 0,
            last: None,
        }
    }

    pub(crate) fn reset(&mut self) {
        let raw = mem::take(&mut self.raw);
        let held = mem::take(&mut self.held);
        *self = Gate::new(self.policy, self.max_call_bytes);
        self.raw = raw;
        self.raw.clear();
        self.held = held;
        self.held.clear();
    }

    /// The calls this gate rejects.
    pub(crate) fn policy(&self) -> Policy {
        self.policy
    }

    /// Bytes the gate holds.
    pub(crate) fn held_len(&self) -> usize {
        self.raw.len()
    }

    /// The gate in front of `sink` for one `feed` or `finish`.
    pub(crate) fn on<'a, S: Sink>(&'a mut self, sink: &'a mut S) -> Gated<'a, S> {
        Gated { gate: self, sink }
    }
}

/// A [`Gate`] in front of a sink.
pub(crate) struct Gated<'a, S> {
    gate: &'a mut Gate,
    sink: &'a mut S,
}

impl<S: Sink> Gated<'_, S> {
    /// The end of the stream: what a rejected call left is content.
    pub(crate) fn finish(&mut self) {
        let g = &mut *self.gate;
        // An opening still held here was dropped as structure (had the
        // engine released it, a content event would have taken it): it is
        // content only after a rejected call.
        if g.tail {
            content(self.sink, &g.raw);
        }
        g.raw.clear();
        g.opening = false;
        g.tail = false;
        self.pass_deferred();
    }

    fn pass_deferred(&mut self) {
        for event in self.gate.deferred.drain(..) {
            self.sink.event(event.as_event());
        }
    }

    fn map_index(&self, index: Option<usize>) -> Option<usize> {
        match (index, self.gate.last) {
            (Some(i), Some((old, new))) if i == old => new,
            _ => index,
        }
    }

    fn start_call(&mut self, event: Event<'_>) {
        let g = &mut *self.gate;
        if !mem::take(&mut g.opening) {
            g.raw.clear();
        }
        g.tail = false;
        g.in_call = true;
        g.started += 1;
        g.rejected = mem::take(&mut g.next_rejected);
        g.unreadable = false;
        g.overflowed = false;
        g.held.push(event.into_owned());
        self.pass_deferred();
    }

    fn end_call(&mut self, event: Event<'_>, complete: bool) {
        let g = &mut *self.gate;
        g.in_call = false;
        let old = call_index(&event);
        if mem::take(&mut g.overflowed) {
            // Its text went out as content already.
            g.last = Some((old, None));
            g.tail = true;
            return;
        }
        g.held.push(event.into_owned());
        let unreadable = !complete && g.policy.unreadable && g.unreadable;
        if g.rejected || (!complete && g.policy.rejects_incomplete()) || unreadable {
            let why = if !g.rejected && !g.policy.rejects_incomplete() {
                "its arguments could not be read".to_owned()
            } else {
                format!("{}: it needed recovery or failed a check", g.policy.name())
            };
            self.reject(old, &why);
            let g = &mut *self.gate;
            content(self.sink, &g.raw);
            g.raw.clear();
            g.tail = true;
            return;
        }
        let new = g.accepted;
        g.accepted += 1;
        g.last = Some((old, Some(new)));
        for event in g.held.drain(..) {
            let mut event = event;
            renumber(&mut event, new);
            self.sink.event(event.as_event());
        }
        g.raw.clear();
    }

    /// Sends the held call's diagnostics (about no call now) and a
    /// `rejected_call`; its text stays in `raw` for content.
    fn reject(&mut self, old: usize, why: &str) {
        let g = &mut *self.gate;
        g.last = Some((old, None));
        let mut name = String::new();
        // From the call's text to the last place a diagnostic of it points.
        let mut span = Span::at(g.raw_from);
        for event in g.held.drain(..) {
            match event {
                OwnedEvent::ToolCallStart { name: n, .. } => name = n,
                OwnedEvent::Diagnostic {
                    kind,
                    message,
                    span: at,
                    ..
                } => {
                    span.end = span.end.max(at.end);
                    self.sink.event(Event::Diagnostic {
                        index: None,
                        kind,
                        message: &message,
                        span: at,
                    });
                }
                _ => {}
            }
        }
        let message =
            format!("call `{name}` was not returned as a tool call ({why}); its text is content");
        self.sink.event(Event::Diagnostic {
            index: None,
            kind: DiagnosticKind::RejectedCall,
            message: &message,
            span,
        });
    }

    /// A call past the bound that failed no check: its events so far are
    /// passed on, and the rest as they come (it may still end incomplete).
    fn release(&mut self) {
        let g = &mut *self.gate;
        let old = g.held.first().map_or(0, |e| call_index(&e.as_event()));
        let new = g.accepted;
        g.accepted += 1;
        g.last = Some((old, Some(new)));
        g.released = Some(new);
        g.raw.clear();
        for mut event in g.held.drain(..) {
            renumber(&mut event, new);
            self.sink.event(event.as_event());
        }
    }

    fn overflow(&mut self) {
        let g = &mut *self.gate;
        let old = g.held.first().map_or(0, |e| call_index(&e.as_event()));
        let max = g.max_call_bytes;
        // Where the bound was passed, whatever the chunking.
        let past = g.raw_from + max as u64 + 1;
        self.sink.event(Event::Diagnostic {
            index: None,
            kind: DiagnosticKind::LimitExceeded,
            span: Span::new(g.raw_from, past),
            message: &format!(
                "a call passed {max} bytes (`max_held_call`), the most a call \
                 may hold while its check waits for its end"
            ),
        });
        let why = format!("{}: too long to hold", g.policy.name());
        self.reject(old, &why);
        let g = &mut *self.gate;
        content(self.sink, &g.raw);
        g.raw.clear();
        g.overflowed = true;
    }
}

impl<S: Sink> Sink for Gated<'_, S> {
    const WANTS_RAW: bool = true;

    fn event(&mut self, event: Event<'_>) {
        if self.gate.in_call {
            if let Some(new) = self.gate.released {
                if let Event::ToolCallEnd { .. } = event {
                    let g = &mut *self.gate;
                    g.in_call = false;
                    g.released = None;
                    g.raw.clear();
                }
                self.sink.event(with_index(event, new));
                return;
            }
            if self.gate.overflowed {
                match event {
                    Event::ToolCallEnd { complete, .. } => self.end_call(event, complete),
                    Event::Diagnostic {
                        kind,
                        message,
                        span,
                        ..
                    } => self.sink.event(Event::Diagnostic {
                        index: None,
                        kind,
                        message,
                        span,
                    }),
                    _ => {}
                }
                return;
            }
            match event {
                Event::ToolCallEnd { complete, .. } => self.end_call(event, complete),
                Event::Diagnostic { kind, .. } => {
                    let g = &mut *self.gate;
                    g.rejected |= g.policy.rejects(kind);
                    g.unreadable |= kind == DiagnosticKind::InvalidJson;
                    g.held.push(event.into_owned());
                }
                _ => self.gate.held.push(event.into_owned()),
            }
            return;
        }
        match event {
            Event::ToolCallStart { .. } => self.start_call(event),
            Event::Content { text } | Event::Reasoning { text } => {
                let g = &mut *self.gate;
                let mut pass = !g.tail;
                if g.opening {
                    let raw = g.raw.as_str();
                    if text.starts_with(raw) || raw.starts_with(text) {
                        // The held opening was not a call after all.
                        if g.tail {
                            content(self.sink, raw);
                        }
                        g.raw.clear();
                        g.opening = false;
                    } else if let Some(at) = raw[g.opening_len..].find(text) {
                        // Text inside a held opening (`stray_text`, with
                        // `hold_text_after_wrapper`) that the engine releases
                        // before the call: content now, and not a second
                        // time with a rejected call.
                        let at = g.opening_len + at;
                        g.raw.drain(at..at + text.len());
                        pass = true;
                    } else {
                        if g.tail {
                            content(self.sink, raw);
                        }
                        g.raw.clear();
                        g.opening = false;
                    }
                }
                if pass {
                    self.sink.event(event);
                }
            }
            Event::Diagnostic { index, kind, .. } if index == Some(self.gate.started) => {
                // About the call about to start.
                let g = &mut *self.gate;
                g.next_rejected |= g.policy.rejects(kind);
                g.held.push(event.into_owned());
            }
            Event::Diagnostic {
                index,
                kind,
                message,
                span,
            } => {
                let g = &mut *self.gate;
                if kind == DiagnosticKind::EmptyToolCall && g.opening {
                    // The held opening was dropped as structure.
                    if g.tail {
                        content(self.sink, &g.raw);
                    }
                    g.raw.clear();
                    g.opening = false;
                }
                let index = self.map_index(index);
                let event = Event::Diagnostic {
                    index,
                    kind,
                    message,
                    span,
                };
                if self.gate.tail {
                    self.gate.deferred.push(event.into_owned());
                } else {
                    self.sink.event(event);
                }
            }
            // Every other event belongs to a call.
            _ => self.sink.event(event),
        }
    }

    /// A value piece of a held call joins the piece before it: a held
    /// call costs its text, not an event per piece (the joined fragments
    /// are the same).
    fn value_piece(&mut self, index: usize, text: &str, delta: &str) {
        let g = &mut *self.gate;
        let holding = g.in_call && !g.overflowed && g.released.is_none();
        if holding {
            if let [.., OwnedEvent::ParameterDelta { index: i, text: t }, OwnedEvent::ArgumentsDelta { index: j, delta: d }] =
                g.held.as_mut_slice()
            {
                if *i == index && *j == index {
                    t.push_str(text);
                    d.push_str(delta);
                    return;
                }
            }
        }
        self.event(Event::ParameterDelta { index, text });
        self.event(Event::ArgumentsDelta { index, delta });
    }

    fn event_with_whole(&mut self, event: Event<'_>, whole: Piece) {
        if let (true, Some(new)) = (self.gate.in_call, self.gate.released) {
            if let Event::ToolCallEnd { .. } = event {
                let g = &mut *self.gate;
                g.in_call = false;
                g.released = None;
                g.raw.clear();
            }
            self.sink.event_with_whole(with_index(event, new), whole);
        } else if self.gate.in_call {
            // Held events own their text: the span will not outlive this
            // chunk.
            self.event(event);
        } else {
            self.sink.event_with_whole(event, whole);
        }
    }

    fn dropped(&mut self, text: &str) {
        let g = &mut *self.gate;
        if g.in_call || g.opening {
            return self.raw(text, false);
        }
        g.seen += text.len() as u64;
    }

    fn not_a_call(&mut self) {
        let g = &mut *self.gate;
        if g.opening && !g.in_call {
            // After a rejected call the input is content as written, its
            // structure too.
            if g.tail {
                content(self.sink, &g.raw);
            }
            g.raw.clear();
            g.opening = false;
        }
    }

    fn replaced(&mut self, text: usize, input: usize) {
        let g = &mut *self.gate;
        g.seen = (g.seen + input as u64).saturating_sub(text as u64);
    }

    fn raw(&mut self, text: &str, opening: bool) {
        let g = &mut *self.gate;
        if g.raw.is_empty() {
            g.raw_from = g.seen;
        }
        g.seen += text.len() as u64;
        if g.in_call {
            if g.released.is_some() {
                return;
            }
            if g.overflowed {
                content(self.sink, text);
                return;
            }
            g.raw.push_str(text);
            if g.raw.len() > g.max_call_bytes {
                if g.policy.strict || g.rejected {
                    self.overflow();
                } else {
                    self.release();
                }
            }
            return;
        }
        if opening && !g.opening {
            g.opening = true;
            g.opening_len = text.len();
        }
        if g.opening {
            g.raw.push_str(text);
        } else if g.tail {
            content(self.sink, text);
        }
    }
}

fn content<S: Sink>(sink: &mut S, text: &str) {
    if !text.is_empty() {
        sink.event(Event::Content { text });
    }
}

fn call_index(event: &Event<'_>) -> usize {
    match *event {
        Event::ToolCallStart { index, .. }
        | Event::ParameterStart { index, .. }
        | Event::ParameterDelta { index, .. }
        | Event::ParameterEnd { index, .. }
        | Event::ArgumentsDelta { index, .. }
        | Event::ToolCallEnd { index, .. } => index,
        Event::Diagnostic { index, .. } => index.unwrap_or(0),
        Event::Content { .. } | Event::Reasoning { .. } => 0,
    }
}

/// `event` as the event of call `new`.
fn with_index(event: Event<'_>, new: usize) -> Event<'_> {
    match event {
        Event::ToolCallStart { id, name, .. } => Event::ToolCallStart {
            index: new,
            id,
            name,
        },
        Event::ParameterStart { name, .. } => Event::ParameterStart { index: new, name },
        Event::ParameterDelta { text, .. } => Event::ParameterDelta { index: new, text },
        Event::ParameterEnd { name, value, .. } => Event::ParameterEnd {
            index: new,
            name,
            value,
        },
        Event::ArgumentsDelta { delta, .. } => Event::ArgumentsDelta { index: new, delta },
        Event::ToolCallEnd {
            arguments,
            complete,
            ..
        } => Event::ToolCallEnd {
            index: new,
            arguments,
            complete,
        },
        Event::Diagnostic {
            index,
            kind,
            message,
            span,
        } => Event::Diagnostic {
            index: index.map(|_| new),
            kind,
            message,
            span,
        },
        Event::Content { text } => Event::Content { text },
        Event::Reasoning { text } => Event::Reasoning { text },
    }
}

fn renumber(event: &mut OwnedEvent, new: usize) {
    match event {
        OwnedEvent::ToolCallStart { index, .. }
        | OwnedEvent::ParameterStart { index, .. }
        | OwnedEvent::ParameterDelta { index, .. }
        | OwnedEvent::ParameterEnd { index, .. }
        | OwnedEvent::ArgumentsDelta { index, .. }
        | OwnedEvent::ToolCallEnd { index, .. } => *index = new,
        OwnedEvent::Diagnostic { index, .. } => {
            if index.is_some() {
                *index = Some(new);
            }
        }
        OwnedEvent::Content { .. } | OwnedEvent::Reasoning { .. } => {}
    }
}
