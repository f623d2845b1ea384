//! The end of the stream: what it means in each state.

use std::{fmt, mem};

use crate::engine::grammar::hold::Opening;
use crate::engine::grammar::item::Item;
use crate::engine::grammar::state::State;
use crate::engine::Engine;
use crate::event::DiagnosticKind as Kind;
use crate::format::Role;
use crate::sink::Sink;

impl Engine {
    /// The end of the stream: flushes what is held, closes what is open.
    #[inline(never)]
    pub(crate) fn finish<S: Sink>(&mut self, sink: &mut S) {
        if let Some(mut detect) = self.detect.take() {
            if !detect.decided {
                // A call found in text read again at the end: its engine
                // reads the end.
                match detect.finish(sink) {
                    Some(winner) => {
                        self.become_winner(winner, detect);
                        self.finish_format(sink);
                    }
                    None => self.detect = Some(detect),
                }
                return;
            }
            self.detect = Some(detect);
        }
        if self.foreign.is_some() {
            return self.watched(sink, |engine, watch| {
                engine.finish_format(watch);
                watch.flush();
            });
        }
        self.finish_format(sink);
    }

    #[inline(never)]
    pub(in crate::engine) fn finish_format<S: Sink>(&mut self, sink: &mut S) {
        let mut cut_marker = None;
        if self.marker.is_active() && self.state == State::Json {
            // A marker begun inside JSON text: JSON, unless the value
            // ends (or fails) at its first byte; then it is a marker cut
            // by the end in the state that follows, as it would be had it
            // arrived after the value.
            let pending = mem::take(&mut self.marker.pending);
            self.reached_text_before(pending.len());
            let n = self.text(&pending, sink);
            Self::tee(sink, &pending[..n]);
            if n == 0 && self.state != State::Json {
                self.marker.pending = pending;
            } else {
                self.marker.state = None;
                self.place_text(self.fed - (pending.len() - n) as u64);
                self.text_all(&pending[n..], sink, true);
                self.marker.pending = pending;
                self.marker.pending.clear();
            }
        }
        if self.marker.state.take().is_some() {
            // Inside JSON, markers are text: there the bytes go to the
            // reader.
            let in_json = self.state == State::Json;
            if self.state.inside_call() && !in_json && self.marker.pending.len() >= 2 {
                // A marker cut by the end of the stream: markup, not value.
                cut_marker = Some(mem::take(&mut self.marker.pending));
            } else {
                self.flush_pending(sink);
            }
        }
        // What the end decides, it decides at the end of the input.
        self.call.message.at = self.fed;
        self.end_of_stream(cut_marker.as_deref(), sink);
        if let Some(cut) = &cut_marker {
            Self::tee(sink, cut);
        }
        if let Some(mut cut) = cut_marker {
            cut.clear();
            self.marker.pending = cut;
        }
        self.state = State::Content;
    }

    /// What the end of the stream means in each state. `cut_marker` is a
    /// marker cut off by the end inside a call.
    pub(in crate::engine) fn end_of_stream<S: Sink>(
        &mut self,
        cut_marker: Option<&str>,
        sink: &mut S,
    ) {
        loop {
            match self.state {
                State::Content | State::Start => {}
                State::Preamble | State::ItemType => {
                    if self.item == Item::Open {
                        self.diag(
                            sink,
                            Kind::Truncated,
                            None,
                            format_args!(
                                "{} inside a call's item, before its function; \
                                 the text is returned as content",
                                self.ended()
                            ),
                        );
                    }
                    self.reject_opening(sink)
                }
                State::Confirming => match self.hold.opening {
                    // Inside the wrapper, a whole name before the end is a
                    // call cut off right after it.
                    Opening::Wrapper => {
                        self.confirm_call(sink);
                        continue;
                    }
                    _ => self.reject_opening(sink),
                },
                State::FuncName => {
                    self.diag(
                        sink,
                        Kind::Truncated,
                        None,
                        format_args!(
                            "{} inside a function name; \
                             the text is returned as content",
                            self.ended()
                        ),
                    );
                    self.reject_opening(sink);
                }
                State::InCall
                | State::Resync
                | State::ParamName { .. }
                | State::KeyDone
                | State::ValueType
                | State::Value
                | State::AfterEmptyClose => {
                    self.flush_stray(sink);
                    if self.call.current().is_some() {
                        self.truncate_call(cut_marker, sink);
                    } else {
                        // A JSON call already ended, its closer never came.
                        self.end_after_json(sink);
                    }
                }
                State::CloserPending(closer) => {
                    self.accept_closer(closer, sink);
                    continue;
                }
                State::NearMissCloser { junk_done } => {
                    if junk_done {
                        self.accept_near_miss(sink);
                    } else {
                        self.reject_near_miss(sink);
                    }
                    continue;
                }
                State::Between { bare: true } | State::AfterCall => self.release_held(sink),
                State::ItemEnd { bare } => {
                    let end = self.ended().as_noun();
                    self.item_not_closed(format_args!("{end}"), sink);
                    self.state = State::Between { bare };
                    continue;
                }
                // The name ended: the call was cut before its arguments.
                State::JsonStart { body: false } => {
                    self.hold.text.clear();
                    self.truncate_call(None, sink);
                }
                State::JsonStart { body: true } => {
                    self.no_json(sink);
                    continue;
                }
                State::Json => self.json_end_of_stream(sink),
                State::Header => self.end_header(&format!("{} in it", self.ended()), sink),
                State::AfterJson => self.end_after_json(sink),
                // A wrapper whose opener has no closer (`unclosed_openers`)
                // ends with the stream.
                State::Between { bare: false } if self.unclosed_wrapper => self.hold.text.clear(),
                State::Between { bare: false } => {
                    // Trailing whitespace of an unclosed wrapper is layout.
                    self.hold.text.clear();
                    let close = self.marker(Role::CallClose);
                    let last = self.call.last();
                    self.diag(
                        sink,
                        Kind::UnclosedToolCall,
                        last,
                        format_args!("{} before `{close}`", self.ended()),
                    );
                }
            }
            break;
        }
    }

    /// The model's end-of-turn token (`Role::EndOfTurn`): the output ends
    /// here, so what is open ends as at the end of the stream, and the
    /// token is dropped. Text after it (a model run past its stop token)
    /// is content, read as from the start of a new message.
    pub(in crate::engine) fn end_of_turn<S: Sink>(&mut self, token: &'static str, sink: &mut S) {
        self.dropped_marker = S::WANTS_RAW;
        if !matches!(self.state, State::Content | State::Start) {
            self.turn_end = Some(token);
            self.end_of_stream(None, sink);
            self.turn_end = None;
            self.hold.text.clear();
            self.name.clear();
            self.stray.clear();
            self.json.reset();
            self.unclosed_wrapper = false;
            self.item = Item::Closed;
        }
        self.in_message = false;
        self.tool_message = false;
        self.state = State::Content;
    }

    pub(in crate::engine) fn truncate_call<S: Sink>(
        &mut self,
        cut_marker: Option<&str>,
        sink: &mut S,
    ) {
        self.call.end_param(&self.opts, sink);
        let cut = match cut_marker {
            Some(marker) => format!(" (dropped the cut-off marker `{marker}`)"),
            None => String::new(),
        };
        let index = self.call.current();
        let ended = self.ended();
        crate::engine::diagnostic(
            sink,
            &mut self.call.message,
            Kind::Truncated,
            index,
            format_args!(
                "{ended} inside call `{}`; it holds what arrived and \
                 is marked incomplete{cut}",
                self.call.name
            ),
        );
        self.call.end_call(false, &self.opts, sink);
    }
}

/// What ended the output, for diagnostics: the stream, or the model's
/// end-of-turn token.
#[derive(Clone, Copy)]
pub(in crate::engine) struct Ended {
    token: Option<&'static str>,
    noun: bool,
}

impl Ended {
    /// "the end of the stream" rather than "the stream ended".
    pub(in crate::engine) fn as_noun(self) -> Ended {
        Ended { noun: true, ..self }
    }
}

impl fmt::Display for Ended {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.token, self.noun) {
            (None, false) => f.write_str("the stream ended"),
            (None, true) => f.write_str("the end of the stream"),
            (Some(token), false) => write!(f, "the model ended its turn (`{token}`)"),
            (Some(token), true) => write!(f, "the end of the model's turn (`{token}`)"),
        }
    }
}

impl Engine {
    /// What is ending the output (see [`Ended`]).
    pub(in crate::engine) fn ended(&self) -> Ended {
        Ended {
            token: self.turn_end,
            noun: false,
        }
    }
}
