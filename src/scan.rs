//! Marker recognition that survives chunk borders.
//!
//! Every marker starts with `<` and holds no other `<`. Text between markers
//! is skipped with `memchr` in the engine; from each `<` an anchored
//! aho-corasick DFA is stepped one byte at a time, and its state is kept
//! between `feed` calls. When the DFA dies, the bytes stepped so far cannot
//! contain the start of another marker (they hold no second `<`), so they are
//! text and nothing is re-scanned: each input byte is stepped at most once.

use aho_corasick::automaton::{Automaton, StateID};
use aho_corasick::dfa::DFA;
use aho_corasick::{Anchored, MatchKind, StartKind};

use crate::format::Marker;

/// The result of stepping the automaton over one byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// Still a prefix of some marker.
    Partial(StateID),
    /// A whole marker ends at this byte.
    Done(Marker),
    /// No marker can continue with this byte (the byte is not consumed).
    Dead,
}

pub(crate) struct MarkerSet {
    dfa: DFA,
    roles: Vec<Marker>,
    start: StateID,
}

impl MarkerSet {
    pub(crate) fn new(markers: &[(Marker, &str)]) -> MarkerSet {
        debug_assert!(markers
            .iter()
            .all(|(_, m)| m.starts_with('<') && !m[1..].contains('<')));
        let dfa = DFA::builder()
            .start_kind(StartKind::Anchored)
            .match_kind(MatchKind::LeftmostFirst)
            .build(markers.iter().map(|(_, text)| text))
            .expect("built-in marker sets are small and valid");
        let start = dfa
            .start_state(Anchored::Yes)
            .expect("anchored start is enabled");
        let roles = markers.iter().map(|(role, _)| *role).collect();
        MarkerSet { dfa, roles, start }
    }

    /// The state after the `<` that starts every marker.
    pub(crate) fn after_open_angle(&self) -> StateID {
        self.dfa.next_state(Anchored::Yes, self.start, b'<')
    }

    pub(crate) fn step(&self, sid: StateID, byte: u8) -> Step {
        let next = self.dfa.next_state(Anchored::Yes, sid, byte);
        if self.dfa.is_dead(next) {
            Step::Dead
        } else if self.dfa.is_match(next) {
            let pattern = self.dfa.match_pattern(next, 0);
            Step::Done(self.roles[pattern.as_usize()])
        } else {
            Step::Partial(next)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set() -> MarkerSet {
        MarkerSet::new(&[
            (Marker::CallOpen, "<tool_call>"),
            (Marker::FuncClose, "</function>"),
        ])
    }

    fn run(set: &MarkerSet, bytes: &[u8]) -> Step {
        let mut sid = set.after_open_angle();
        let mut last = Step::Partial(sid);
        for &b in &bytes[1..] {
            last = set.step(sid, b);
            match last {
                Step::Partial(next) => sid = next,
                _ => return last,
            }
        }
        last
    }

    #[test]
    fn recognizes_whole_markers() {
        let set = set();
        assert_eq!(run(&set, b"<tool_call>"), Step::Done(Marker::CallOpen));
        assert_eq!(run(&set, b"</function>"), Step::Done(Marker::FuncClose));
    }

    #[test]
    fn prefixes_stay_partial_and_mismatches_die() {
        let set = set();
        assert!(matches!(run(&set, b"<tool_c"), Step::Partial(_)));
        assert_eq!(run(&set, b"<tool_x"), Step::Dead);
        assert_eq!(run(&set, b"<<"), Step::Dead);
    }
}
