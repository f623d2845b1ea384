//! Finding markers, across chunk borders.
//!
//! Text between markers is skipped with `memchr` over the set of the
//! markers' first bytes. From such a byte, an anchored aho-corasick DFA is
//! stepped one byte at a time; its state and the bytes stepped so far
//! (`pending`, at most one marker long) are kept between chunks. A format's
//! description guarantees that no marker holds a first byte after its own
//! first byte, in the common case, so when the DFA dies the bytes stepped
//! cannot contain the start of another marker: they are text, and nothing
//! is scanned twice. A set where one does (Kimi's `◁think▷`: `◁` and `▷`
//! share their first UTF-8 byte) [re-anchors](MarkerSet::reanchors): a
//! dead match is text up to the next first byte among the bytes stepped,
//! and the match starts over there (at most one marker's length again).

pub(super) mod compiled;
mod first;
pub(super) mod reanchor;

use aho_corasick::automaton::{Automaton, StateID};
use aho_corasick::dfa::DFA;
use aho_corasick::{Anchored, MatchKind, StartKind};

use crate::format::Role;
use first::FirstBytes;

/// The result of stepping the automaton over one byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// Still a prefix of some marker.
    Partial(StateID),
    /// A whole marker ends at this byte: its role and its spelling (a role
    /// may have several).
    Done(Role, &'static str),
    /// No marker can continue with this byte (the byte is not consumed).
    Dead,
}

/// A format's markers, compiled.
pub(crate) struct MarkerSet {
    dfa: DFA,
    roles: Vec<Role>,
    texts: Vec<&'static str>,
    start: StateID,
    /// The distinct first bytes of the markers.
    first: FirstBytes,
    /// Some marker holds a first byte after its own first byte.
    reanchors: bool,
}

impl MarkerSet {
    /// Compiles `markers`, which the format's validation has checked.
    pub(crate) fn new(markers: &[(Role, &'static str)]) -> MarkerSet {
        let dfa = DFA::builder()
            .start_kind(StartKind::Anchored)
            .match_kind(MatchKind::LeftmostFirst)
            .build(markers.iter().map(|(_, text)| text))
            .expect("a validated marker set is small and valid");
        let start = dfa
            .start_state(Anchored::Yes)
            .expect("anchored start is enabled");
        let roles = markers.iter().map(|(role, _)| *role).collect();
        let texts = markers.iter().map(|(_, text)| *text).collect();
        let first = FirstBytes::new(markers.iter().map(|(_, text)| *text));
        let reanchors = markers
            .iter()
            .any(|(_, text)| text.as_bytes()[1..].iter().any(|&b| first.contains(b)));
        MarkerSet {
            dfa,
            roles,
            texts,
            start,
            first,
            reanchors,
        }
    }

    /// Whether a dead match must be re-anchored: some marker holds another
    /// marker's first byte after its own, so the bytes a dead match
    /// stepped may hold the start of a marker.
    #[inline]
    pub(crate) fn reanchors(&self) -> bool {
        self.reanchors
    }

    /// Where a marker may start among `stepped`, the bytes a dead match
    /// stepped from its first byte (at 0, which is not looked at).
    fn restart(&self, stepped: &[u8]) -> Option<usize> {
        let after = stepped.get(1..)?;
        after
            .iter()
            .position(|&b| self.starts_marker(b))
            .map(|k| k + 1)
    }

    /// A match died after stepping the bytes `pending` (from earlier
    /// chunks) and then `here` (from the chunk being read). When the rest
    /// of them from some place after the match's start is still the start
    /// of a marker, the bytes before that place are text and the match
    /// goes on from it (the dead byte is to be stepped again).
    pub(crate) fn reanchor(&self, pending: &str, here: &[u8]) -> Option<Reanchored> {
        let earlier = pending.len();
        let (at, state) = if earlier == 0 {
            self.reanchor_in(here)?
        } else {
            // Rare, and at most a marker long.
            self.reanchor_in(&[pending.as_bytes(), here].concat())?
        };
        Some(Reanchored {
            text: at.min(earlier),
            at: at.saturating_sub(earlier),
            state,
        })
    }

    /// The first place after the start of `stepped` from which the rest is
    /// still the start of a marker, and the state there.
    fn reanchor_in(&self, stepped: &[u8]) -> Option<(usize, StateID)> {
        let mut at = 0;
        loop {
            at += self.restart(&stepped[at..])?;
            if let Some(sid) = self.prefix_state(&stepped[at..]) {
                return Some((at, sid));
            }
        }
    }

    /// The state after `bytes` from a first byte, when they are a prefix
    /// of a marker and not a whole one.
    fn prefix_state(&self, bytes: &[u8]) -> Option<StateID> {
        let (&lead, rest) = bytes.split_first()?;
        if !self.starts_marker(lead) {
            return None;
        }
        let mut sid = self.after_first(lead);
        for &b in rest {
            match self.step(sid, b) {
                Step::Partial(next) => sid = next,
                _ => return None,
            }
        }
        Some(sid)
    }

    /// Whether a marker starts with `byte`.
    #[inline]
    pub(crate) fn starts_marker(&self, byte: u8) -> bool {
        self.first.contains(byte)
    }

    /// The position of the next byte that starts a marker.
    #[inline]
    pub(crate) fn find(&self, bytes: &[u8]) -> Option<usize> {
        self.first.find(bytes)
    }

    /// Whether a marker may start anywhere in `bytes`.
    #[inline]
    pub(crate) fn any_start(&self, bytes: &[u8]) -> bool {
        self.first.any_start(bytes)
    }

    /// Where a marker may start in `bytes` when every place but the last
    /// byte is ruled out by the byte after it (`a < b`, `x <= y`):
    /// `Some(None)`, none starts; `Some(Some(last))`, one may start at the
    /// last byte, cut by the end. `None` when one may start earlier, or at
    /// a first character that is not ASCII.
    pub(crate) fn start_at_end_only(&self, bytes: &[u8]) -> Option<Option<usize>> {
        let mut from = 0;
        while let Some(k) = self.find(&bytes[from..]) {
            let at = from + k;
            if !bytes[at].is_ascii() {
                return None;
            }
            let sid = self.after_first(bytes[at]);
            if self.dfa.is_match(sid) {
                return None;
            }
            if !self.dfa.is_dead(sid) {
                match bytes.get(at + 1) {
                    None => return Some(Some(at)),
                    Some(&next) if self.step(sid, next) == Step::Dead => {}
                    Some(_) => return None,
                }
            }
            from = at + 1;
        }
        Some(None)
    }

    /// Where the first marker that may be under way in `bytes` starts: the
    /// bytes after it, as far as `bytes` goes, do not rule it out. A start
    /// that dies at once (`a < b`, `<div>`) is passed over.
    #[inline(never)]
    pub(crate) fn live_start(&self, bytes: &[u8]) -> Option<usize> {
        let mut from = 0;
        while let Some(k) = self.find(&bytes[from..]) {
            let at = from + k;
            let sid = self.after_first(bytes[at]);
            if self.dfa.is_match(sid)
                || !self.dfa.is_dead(sid) && self.walk(sid, &bytes[at + 1..]).1 != Step::Dead
            {
                return Some(at);
            }
            from = at + 1;
        }
        None
    }

    /// The state after the first byte of a marker.
    pub(crate) fn after_first(&self, byte: u8) -> StateID {
        self.dfa.next_state(Anchored::Yes, self.start, byte)
    }

    #[inline]
    pub(crate) fn step(&self, sid: StateID, byte: u8) -> Step {
        let next = self.dfa.next_state(Anchored::Yes, sid, byte);
        if self.dfa.is_dead(next) {
            Step::Dead
        } else if self.dfa.is_match(next) {
            let pattern = self.dfa.match_pattern(next, 0);
            Step::Done(
                self.roles[pattern.as_usize()],
                self.texts[pattern.as_usize()],
            )
        } else {
            Step::Partial(next)
        }
    }

    /// Steps from `sid` over `bytes` while the match goes on: how many
    /// bytes kept it partial, and the step of the byte after them (the
    /// state after the last when all did). One call a marker, not a byte:
    /// the driver's loop around each step cost more than the step.
    #[inline]
    pub(crate) fn walk(&self, mut sid: StateID, bytes: &[u8]) -> (usize, Step) {
        for (n, &byte) in bytes.iter().enumerate() {
            match self.step(sid, byte) {
                Step::Partial(next) => sid = next,
                end => return (n, end),
            }
        }
        (bytes.len(), Step::Partial(sid))
    }
}

/// Where a dead match goes on (see [`MarkerSet::reanchor`]).
pub(crate) struct Reanchored {
    /// How many bytes of those from earlier chunks are text.
    pub text: usize,
    /// Where the match starts in the chunk being read (0 while it starts
    /// in earlier chunks).
    pub at: usize,
    /// The state after the bytes stepped from there.
    pub state: StateID,
}

/// A marker being recognized: the DFA state and the bytes stepped so far.
#[derive(Default)]
pub(crate) struct Match {
    /// The DFA state while a marker is being recognized.
    pub state: Option<StateID>,
    /// The bytes of the marker being recognized that arrived in earlier
    /// chunks (always whole characters: the parser hands the engine whole
    /// characters only).
    pub pending: String,
    /// The last marker recognized, as spelled.
    pub last: Option<(Role, &'static str)>,
}

impl Match {
    pub(crate) fn is_active(&self) -> bool {
        self.state.is_some()
    }

    /// Whether the match can go on with `byte`; false when no match is
    /// under way.
    pub(crate) fn continues_with(&self, markers: &MarkerSet, byte: u8) -> bool {
        self.state
            .is_some_and(|sid| !matches!(markers.step(sid, byte), Step::Dead))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The role a whole marker was recognized as.
    fn role(step: Step) -> Option<Role> {
        match step {
            Step::Done(role, _) => Some(role),
            _ => None,
        }
    }

    fn run(set: &MarkerSet, bytes: &[u8]) -> Step {
        let mut sid = set.after_first(bytes[0]);
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

    fn set() -> MarkerSet {
        MarkerSet::new(&[
            (Role::CallOpen, "<tool_call>"),
            (Role::FuncClose, "</function>"),
            (Role::ParamOpen, "[ARG "),
            (Role::ParamClose, "<｜end｜>"),
            (Role::ParamClose, "[END]"),
        ])
    }

    #[test]
    fn a_role_spelled_twice_is_recognized_in_both_spellings() {
        let set = set();
        assert_eq!(run(&set, b"[END]"), Step::Done(Role::ParamClose, "[END]"));
        assert_eq!(
            run(&set, "<｜end｜>".as_bytes()),
            Step::Done(Role::ParamClose, "<｜end｜>")
        );
    }

    #[test]
    fn recognizes_whole_markers() {
        let set = set();
        assert_eq!(role(run(&set, b"<tool_call>")), Some(Role::CallOpen));
        assert_eq!(role(run(&set, b"</function>")), Some(Role::FuncClose));
        assert_eq!(role(run(&set, b"[ARG ")), Some(Role::ParamOpen));
        assert_eq!(
            role(run(&set, "<｜end｜>".as_bytes())),
            Some(Role::ParamClose)
        );
    }

    #[test]
    fn prefixes_stay_partial_and_mismatches_die() {
        let set = set();
        assert!(matches!(run(&set, b"<tool_c"), Step::Partial(_)));
        assert!(matches!(
            run(&set, &"<｜".as_bytes()[..2]),
            Step::Partial(_)
        ));
        assert_eq!(run(&set, b"<tool_x"), Step::Dead);
        assert_eq!(run(&set, b"<<"), Step::Dead);
        assert_eq!(run(&set, b"[AR]"), Step::Dead);
    }

    #[test]
    fn finds_every_first_byte_in_short_and_long_text() {
        let set = set();
        for pad in [0, 3, 40] {
            let text = format!("{}x[y", "a".repeat(pad));
            assert_eq!(set.find(text.as_bytes()), Some(pad + 1));
            let text = format!("{}<", "é".repeat(pad));
            assert_eq!(set.find(text.as_bytes()), Some(pad * 2));
        }
        assert_eq!(set.find("no markers here, none at all".as_bytes()), None);
    }

    #[test]
    fn a_live_start_is_one_the_text_after_it_does_not_rule_out() {
        let set = set();
        let live = |text: &str| set.live_start(text.as_bytes());
        assert_eq!(live("a < b, <div> and [x] << y"), None);
        // One at the end may go on.
        assert_eq!(live("a <"), Some(2));
        assert_eq!(live("a < b <tool"), Some(6));
        assert_eq!(live("<b> <tool_call> x"), Some(4));
        assert_eq!(live("<<tool_call>"), Some(1));
        // A first character cut by the end may go on; a whole one that
        // starts no marker does not.
        assert_eq!(live("x → <｜e"), Some(6));
        assert_eq!(set.live_start(&"x <｜".as_bytes()[..4]), Some(2));
        assert_eq!(live("x <｜x"), None);
        let long = format!("{}<tool_call>", "a < b ".repeat(20));
        assert_eq!(live(&long), Some(120));
    }

    #[test]
    fn a_start_is_ruled_out_by_the_byte_after_it_or_left_at_the_end() {
        let set = set();
        let only = |text: &str| set.start_at_end_only(text.as_bytes());
        assert_eq!(only("plain"), Some(None));
        assert_eq!(only("a < b"), Some(None));
        assert_eq!(only("x<=y [x] <a"), Some(None));
        // A match cut by the end may still be a marker.
        assert_eq!(only("Vec<"), Some(Some(3)));
        assert_eq!(only("a < b ["), Some(Some(6)));
        assert_eq!(only("<"), Some(Some(0)));
        // One that goes on past its first byte is the driver's to read.
        assert_eq!(only("</"), None);
        assert_eq!(only("x <tool"), None);
        assert_eq!(only("[END] x"), None);
        assert_eq!(only("a <｜"), None);
        assert_eq!(only("a ｜ b"), Some(None));
        // So is one whose first character is not ASCII.
        let wide = MarkerSet::new(&[(Role::CallOpen, "◁call▷")]);
        assert_eq!(wide.start_at_end_only("a ◁ b".as_bytes()), None);
        assert_eq!(wide.start_at_end_only("a → b".as_bytes()), Some(None));
    }
}
