//! The engine's side of detection: a parser of `auto` looks for its format,
//! and becomes the winner's engine once a call decides it.

use super::Detect;
use crate::engine::grammar::state::State;
use crate::engine::Engine;
use crate::format::{Format, Role};
use crate::options::Options;
use crate::sink::Sink;

impl Engine {
    /// The engine of a parser: an `auto` one starts looking for its format.
    pub(crate) fn detecting(opts: Options) -> Option<Box<Detect>> {
        (opts.format == Format::Auto).then(|| Box::new(Detect::new(opts)))
    }

    /// Whether `text` (a call) is laid out as the format's template lays
    /// it: parameter openers at line starts where the format says so.
    pub(super) fn fits_layout(&self, text: &str) -> bool {
        let open = self.marker(Role::ParamOpen);
        if !self.desc().param_open_at_line_start || open.is_empty() {
            return true;
        }
        match text.find(open) {
            Some(at) => text[..at].trim_end_matches([' ', '\t']).ends_with('\n'),
            None => true,
        }
    }

    /// Whether a candidate read its opener as text: back to content with
    /// nothing held, no message or reasoning of its own open.
    pub(super) fn is_idle(&self, reasoning: bool) -> bool {
        self.state == State::Content
            && self.held_len() == 0
            && !self.in_message
            && self.in_reasoning() == reasoning
    }

    /// Reads `s` while the format is not known; from the call that makes
    /// it known, the winner (which this engine becomes) reads on.
    pub(in crate::engine) fn detect_run<S: Sink>(&mut self, s: &str, sink: &mut S) {
        let Some(mut detect) = self.detect.take() else {
            return;
        };
        let found = detect.run(s, sink);
        match found {
            Some((winner, rest)) => {
                self.become_winner(winner, detect);
                if !rest.is_empty() {
                    self.run(rest, sink);
                }
            }
            None => self.detect = Some(detect),
        }
    }

    pub(in crate::engine) fn detect_next_starts_with<S: Sink>(&mut self, lead: u8, sink: &mut S) {
        let Some(mut detect) = self.detect.take() else {
            return;
        };
        match detect.next_starts_with(lead, sink) {
            Some(winner) => self.become_winner(winner, detect),
            None => self.detect = Some(detect),
        }
    }

    pub(in crate::engine) fn become_winner(&mut self, winner: Engine, detect: Box<Detect>) {
        *self = winner;
        self.detect = Some(detect);
    }
}
