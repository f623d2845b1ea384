//! Where the engine is in the input, for diagnostics' spans
//! ([`Span`](crate::Span)): the call writer's [`Report`](crate::sink::Report)
//! keeps where the construct being read began (`from`) and how far a
//! decision has read (`at`). The driver places every marker and piece of
//! text it hands over; a state that decides partway through a piece says
//! at which character. Every place is a byte of the input that decided,
//! never a chunk border, so spans do not depend on the split.

use crate::engine::grammar::state::State;
use crate::engine::Engine;
use crate::format::Role;
use crate::sink::Sink;

impl Engine {
    /// Where the input has been read to, for diagnostics' spans: a marker
    /// of `len` bytes ends at `end` in the chunk being read. One that
    /// opens something outside any call begins the construct.
    #[inline(always)]
    pub(in crate::engine) fn reached_marker(&mut self, end: usize, len: usize) {
        let end = self.fed + end as u64;
        if self.state.is_outside() {
            self.call.message.from = end.saturating_sub(len as u64);
        }
        self.call.message.at = end;
    }

    /// Text from `at` in the chunk being read is about to be handed over;
    /// as content, it begins whatever it turns out to be.
    #[inline(always)]
    pub(in crate::engine) fn reached_text(&mut self, at: usize) {
        self.place_text(self.fed + at as u64);
    }

    /// The text about to be handed over is the last `len` bytes before the
    /// chunk being read.
    pub(in crate::engine) fn reached_text_before(&mut self, len: usize) {
        self.place_text(self.fed.saturating_sub(len as u64));
    }

    /// The text handed over next starts at input offset `at`.
    #[inline(always)]
    pub(in crate::engine) fn place_text(&mut self, at: u64) {
        if self.state == State::Content {
            self.call.message.from = at;
        }
        self.call.message.at = at;
    }

    /// A marker's text is text in the current state: it is read from the
    /// marker's start (the place is its end when `on_marker` is called).
    pub(in crate::engine) fn marker_as_text<S: Sink>(&mut self, text: &str, sink: &mut S) {
        let end = self.call.message.at;
        self.call.message.at = end.saturating_sub(text.len() as u64);
        self.text_all(text, sink, false);
        self.call.message.at = end;
    }

    /// A marker (`text`, which ends at the place) read again after the
    /// opening it met went back to content: outside a call it begins what
    /// it opens from its own start, not from where that opening began.
    pub(in crate::engine) fn marker_read_again<S: Sink>(
        &mut self,
        role: Role,
        text: &str,
        sink: &mut S,
    ) {
        if self.state.is_outside() {
            self.call.message.from = self.call.message.at.saturating_sub(text.len() as u64);
        }
        self.on_marker(role, sink);
    }

    /// Starts holding `marker` (an opening's opener), from where the
    /// construct began.
    pub(in crate::engine) fn hold_start(&mut self, marker: &str) {
        self.hold.start(marker);
        self.hold.from = self.call.message.from;
    }

    /// The character at `k` in `s`, the text being handed over, decided
    /// something: diagnostics point just past it.
    #[inline]
    pub(in crate::engine) fn decided_by(&mut self, s: &str, k: usize) {
        self.call.message.at += past_char(s, k) as u64;
    }

    /// Held text passed a bound by `over` bytes with `s` (the text being
    /// handed over, all of it held): diagnostics point just past the
    /// character that passed it, whatever the chunking.
    #[inline]
    pub(in crate::engine) fn passed_bound(&mut self, s: &str, over: usize) {
        self.call.message.at += past_char(s, s.len().saturating_sub(over)) as u64;
    }
}

/// Where the character holding byte `k` of `s` ends (at most `s`'s end).
pub(crate) fn past_char(s: &str, k: usize) -> usize {
    let mut end = (k + 1).min(s.len());
    while !s.is_char_boundary(end) {
        end += 1;
    }
    end
}
