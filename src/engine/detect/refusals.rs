//! Openers written as words: a shared opener whose next byte every format
//! that shares it refuses is text at once, with no candidate spawned.

use super::Detect;
use crate::engine::WS;
use crate::format::Format;
use crate::sink::Sink;

/// The ASCII bytes (a bit each) that, first after an opener and its
/// layout, show that no format sharing the opener reads a call there.
pub(super) struct Refusal {
    pub opener: &'static str,
    pub reasoning: bool,
    pub bytes: u128,
}

impl Detect {
    /// Whether every format that shares `opener` would read it as text at
    /// the first byte after the layout whitespace in `after`: then all
    /// their candidates would be dropped at that byte, the opener would go
    /// out as text, and the scout would read on from it, which is what it
    /// does at once instead. (Only for a shared opener: its candidates'
    /// output is thrown away when none reads a call, while a sole
    /// candidate's goes out as it comes.) Prose that writes an opener as a
    /// word (`<tool_calls> (plural)`) then costs no candidate.
    pub(super) fn refused_at_once<I: Iterator<Item = Format>, S: Sink>(
        &mut self,
        opener: &'static str,
        formats: impl Fn() -> I,
        after: &str,
        sink: &mut S,
    ) -> bool {
        let ws = after
            .bytes()
            .take_while(|&b| WS.contains(&char::from(b)))
            .count();
        // Well within the whitespace a candidate holds before giving up.
        let Some(&b) = after.as_bytes().get(ws).filter(|_| opener.len() + ws < 64) else {
            return false;
        };
        if !b.is_ascii() {
            return false;
        }
        let reasoning = self.reasoning;
        let refused = match self
            .refusals
            .iter()
            .find(|r| r.opener == opener && r.reasoning == reasoning)
        {
            Some(known) => known.bytes,
            None => {
                let bytes = formats()
                    .map(|format| {
                        self.spares
                            .refused_after(format, opener, reasoning, &self.opts, sink)
                    })
                    .fold(u128::MAX, |all, one| all & one);
                self.refusals.push(Refusal {
                    opener,
                    reasoning,
                    bytes,
                });
                bytes
            }
        };
        refused & (1 << b) != 0
    }
}
