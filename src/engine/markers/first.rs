//! The search for the next place that may start a marker: a marker's
//! first character, at a vectorized scan's speed however many markers
//! there are.
//!
//! A set of up to three first bytes is memchr's. A set of more (the watch
//! for other formats' openers has four: `<`, `[`, `]` and the first byte
//! of `◁`) is one pass of aho-corasick's packed searcher (Teddy) over the
//! markers' first characters where the target has it, or else memchr
//! three bytes at a time. A byte-at-a-time loop instead reads plain text
//! at a tenth of that speed, and plain text is most of what a model writes.
//!
//! A marker whose first character is not ASCII can start only where that
//! whole character is: the first byte of `◁` is also the first byte of
//! `→`, `✓` and every box-drawing character, which are common in prose
//! and must not stop the scan.

use aho_corasick::packed;
use memchr::memmem::Finder;
use memchr::{memchr, memchr2, memchr3};

/// The first bytes and first characters of a marker set.
#[derive(Clone, Debug)]
pub(crate) struct FirstBytes {
    /// The distinct bytes, in the order they were added.
    bytes: Vec<u8>,
    is_first: [bool; 256],
    /// The distinct first characters that are not ASCII (a marker can
    /// start at their first byte only where one of them is whole, or cut
    /// by the end of the text).
    wide: Vec<&'static [u8]>,
    /// The ASCII first bytes, three at a time (for memchr3).
    ascii_groups: Vec<Vec<u8>>,
    /// A substring search for each of `wide`.
    wide_finders: Vec<Finder<'static>>,
    /// One pass over the first characters, for more than three first
    /// bytes; `None` where the target has no packed searcher.
    packed: Option<packed::Searcher>,
}

/// How many bytes a search for more than three bytes looks at one by one
/// before it searches windows.
const NEAR: usize = 16;

/// The window a search for more than three bytes starts with, past
/// [`NEAR`]; it doubles until something is found.
const FIRST_WINDOW: usize = 256;

impl FirstBytes {
    /// The first bytes and characters of `markers` (each non-empty).
    pub(crate) fn new(markers: impl IntoIterator<Item = &'static str>) -> FirstBytes {
        let mut set = FirstBytes {
            bytes: Vec::new(),
            is_first: [false; 256],
            wide: Vec::new(),
            wide_finders: Vec::new(),
            ascii_groups: Vec::new(),
            packed: None,
        };
        for text in markers {
            let Some(first) = text.chars().next() else {
                continue;
            };
            let byte = text.as_bytes()[0];
            if !set.is_first[usize::from(byte)] {
                set.is_first[usize::from(byte)] = true;
                set.bytes.push(byte);
            }
            let lead = &text.as_bytes()[..first.len_utf8()];
            if lead.len() > 1 && !set.wide.contains(&lead) {
                set.wide.push(lead);
            }
        }
        set.wide_finders = set.wide.iter().map(|lead| Finder::new(*lead)).collect();
        let ascii: Vec<u8> = set.bytes.iter().copied().filter(u8::is_ascii).collect();
        set.ascii_groups = ascii.chunks(3).map(<[u8]>::to_vec).collect();
        if set.bytes.len() > 3 {
            let mut builder = packed::Config::new()
                .match_kind(packed::MatchKind::LeftmostFirst)
                .builder();
            for &byte in set.bytes.iter().filter(|b| b.is_ascii()) {
                builder.add([byte]);
            }
            for lead in &set.wide {
                builder.add(lead);
            }
            set.packed = builder.build();
        }
        set
    }

    /// Whether a marker starts with `byte`.
    #[inline]
    pub(crate) fn contains(&self, byte: u8) -> bool {
        self.is_first[usize::from(byte)]
    }

    /// Whether a marker may start at the start of `rest`, whose first byte
    /// is a first byte: at once when it is ASCII, else where one of the
    /// first characters is whole there or cut by the end of `rest`.
    #[inline(always)]
    fn may_start(&self, rest: &[u8]) -> bool {
        rest[0].is_ascii()
            || self.wide.iter().any(|lead| {
                let n = lead.len().min(rest.len());
                rest[..n] == lead[..n]
            })
    }

    /// The position of the first place in `haystack` where a marker may
    /// start.
    #[inline(always)]
    pub(crate) fn find(&self, haystack: &[u8]) -> Option<usize> {
        // A plain loop for the few bytes of a token-sized chunk, where
        // `memchr`'s setup costs more than it saves.
        if haystack.len() < NEAR {
            let at = haystack.iter().position(|&b| self.contains(b))?;
            if haystack[at].is_ascii() || self.may_start(&haystack[at..]) {
                return Some(at);
            }
            return self.find_near(haystack, at + 1, haystack.len());
        }
        self.find_far(haystack)
    }

    /// [`find`](FirstBytes::find) past the first few bytes.
    #[inline]
    fn find_far(&self, haystack: &[u8]) -> Option<usize> {
        match *self.bytes.as_slice() {
            // A format with no markers (bare JSON).
            [] => None,
            // ASCII first characters: every find is a place to look.
            [a] if self.wide.is_empty() => memchr(a, haystack),
            [a, b] if self.wide.is_empty() => memchr2(a, b, haystack),
            [a, b, c] if self.wide.is_empty() => memchr3(a, b, c, haystack),
            [a] => self.verified(haystack, |h| memchr(a, h)),
            [a, b] => self.verified(haystack, |h| memchr2(a, b, h)),
            [a, b, c] => self.verified(haystack, |h| memchr3(a, b, c, h)),
            _ => self.find_many(haystack),
        }
    }

    /// Whether a marker may start anywhere in `haystack`: what
    /// [`find`](FirstBytes::find) finds, at the cost of a pass per three
    /// ASCII first bytes and per non-ASCII first character (each at
    /// memchr's speed, which beats one pass over all of them), since it
    /// need not know where.
    #[inline(always)]
    pub(crate) fn any_start(&self, haystack: &[u8]) -> bool {
        // A pass per group pays off over long text only.
        if haystack.len() < FIRST_WINDOW || self.bytes.len() <= 3 {
            return self.find(haystack).is_some();
        }
        self.any_start_far(haystack)
    }

    #[inline(never)]
    fn any_start_far(&self, haystack: &[u8]) -> bool {
        if self
            .ascii_groups
            .iter()
            .any(|g| search(g, haystack).is_some())
        {
            return true;
        }
        if self.wide_finders.iter().any(|f| f.find(haystack).is_some()) {
            return true;
        }
        // A first character cut by the end.
        let tail = haystack.len().saturating_sub(3);
        self.find_near(haystack, tail, haystack.len()).is_some()
    }

    /// The first place in `from..end` where a marker may start, one byte
    /// at a time (a first character is looked at whole, past `end`).
    #[inline]
    fn find_near(&self, haystack: &[u8], from: usize, end: usize) -> Option<usize> {
        (from..end).find(|&at| self.contains(haystack[at]) && self.may_start(&haystack[at..]))
    }

    /// `search`'s first find where a marker may start, searching again
    /// past a first byte whose character starts no marker.
    #[inline(never)]
    fn verified(&self, haystack: &[u8], search: impl Fn(&[u8]) -> Option<usize>) -> Option<usize> {
        let mut from = 0;
        loop {
            let at = from + search(&haystack[from..])?;
            if self.may_start(&haystack[at..]) {
                return Some(at);
            }
            from = at + 1;
        }
    }

    /// [`find`](FirstBytes::find) for more than three first bytes.
    #[inline(never)]
    fn find_many(&self, haystack: &[u8]) -> Option<usize> {
        // Where such bytes are dense (markup, brackets), the next is near:
        // a plain look at the first bytes finds it before any search is
        // set up.
        if let Some(at) = self.find_near(haystack, 0, NEAR) {
            return Some(at);
        }
        match &self.packed {
            Some(searcher) if haystack.len() - NEAR >= searcher.minimum_len() => {
                let found = searcher.find(&haystack[NEAR..]).map(|m| NEAR + m.start());
                // A first character cut by the end is no match of the
                // searcher's, but a marker may still start there.
                let tail = haystack.len().saturating_sub(3).max(NEAR);
                let end = found.unwrap_or(haystack.len());
                if end <= tail {
                    return found;
                }
                self.find_near(haystack, tail, end).or(found)
            }
            _ => self.find_windows(haystack),
        }
    }

    /// [`find_many`](FirstBytes::find_many) without a packed searcher: one
    /// search per three bytes over a window that doubles from
    /// [`FIRST_WINDOW`], each group's find kept until it is passed. The
    /// window keeps a call's cost to the distance to what it finds: a byte
    /// of the second group just ahead must not cost a scan of all the rest
    /// for the first group, or finding every byte of a text would be
    /// quadratic.
    fn find_windows(&self, haystack: &[u8]) -> Option<usize> {
        let mut from = NEAR;
        let mut width = FIRST_WINDOW;
        // Each group's next find in the window, from where it was last
        // searched (at most 86 groups of three bytes).
        let mut next = [None; 86];
        let groups: &[u8] = &self.bytes;
        let groups = || groups.chunks(3);
        let next = &mut next[..groups().len()];
        while from < haystack.len() {
            let end = haystack.len().min(from.saturating_add(width));
            for (group, next) in groups().zip(next.iter_mut()) {
                *next = search(group, &haystack[from..end]).map(|at| from + at);
            }
            // The earliest find; past a first byte whose character starts
            // no marker (box drawing shares `◁`'s), its group searches on
            // from the byte after it, the others' finds still stand.
            while let Some((g, at)) = next
                .iter()
                .enumerate()
                .filter_map(|(g, at)| at.map(|at| (g, at)))
                .min_by_key(|&(_, at)| at)
            {
                if self.may_start(&haystack[at..]) {
                    return Some(at);
                }
                let group = groups().nth(g).unwrap_or_default();
                next[g] = search(group, &haystack[at + 1..end]).map(|k| at + 1 + k);
            }
            from = end;
            width = width.saturating_mul(2);
        }
        None
    }
}

/// The first of up to three bytes `group` in `haystack`.
#[inline]
fn search(group: &[u8], haystack: &[u8]) -> Option<usize> {
    match *group {
        [a] => memchr(a, haystack),
        [a, b] => memchr2(a, b, haystack),
        [a, b, c] => memchr3(a, b, c, haystack),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The set of `markers`, searched by the packed searcher where there is
    /// one (`packed`) or by memchr windows.
    fn set(markers: &[&'static str], packed: bool) -> FirstBytes {
        let mut set = FirstBytes::new(markers.iter().copied());
        if !packed {
            set.packed = None;
        }
        set
    }

    /// What `find` must return: the first first byte whose character may
    /// start a marker (whole, or cut by the end).
    fn first_start(markers: &[&str], text: &[u8]) -> Option<usize> {
        (0..text.len()).find(|&at| {
            markers.iter().any(|m| {
                let lead = &m.as_bytes()[..m.chars().next().unwrap().len_utf8()];
                let n = lead.len().min(text.len() - at);
                text[at..at + n] == lead[..n]
            })
        })
    }

    #[test]
    fn finds_the_first_of_many_bytes_in_any_window() {
        let markers = ["<a", "[b", "]c", "◁think▷", "z"];
        for packed in [true, false] {
            let set = set(&markers, packed);
            let mut text = vec![b'a'; 5000];
            assert_eq!(set.find(&text), None);
            for at in [0, 15, 16, 63, 64, 65, 200, 4990] {
                for lead in ["<", "[", "]", "◁", "z"] {
                    text[at..at + lead.len()].copy_from_slice(lead.as_bytes());
                    assert_eq!(set.find(&text), Some(at), "{lead} at {at}");
                    text[at..at + lead.len()].fill(b'a');
                }
            }
            // The earliest wins, whichever group it is in.
            text[300] = b'<';
            text[100] = b'z';
            assert_eq!(set.find(&text), Some(100));
        }
    }

    #[test]
    fn a_shared_first_byte_stops_only_at_a_markers_character() {
        // `→`, `✓` and `─` share `◁`'s first byte.
        let markers = ["<a", "[b", "]c", "◁think▷"];
        for packed in [true, false] {
            let set = set(&markers, packed);
            let prose = "an arrow → a check ✓ a line ──── ".repeat(40);
            assert_eq!(set.find(prose.as_bytes()), None, "packed: {packed}");
            let with = format!("{prose}◁think▷");
            assert_eq!(set.find(with.as_bytes()), Some(prose.len()));
            // Cut by the end, `◁` may still start a marker.
            let cut = &with.as_bytes()[..prose.len() + 2];
            assert_eq!(set.find(cut), Some(prose.len()));
            assert_eq!(set.find(&cut[..prose.len() + 1]), Some(prose.len()));
        }
    }

    proptest! {
        #[test]
        fn find_is_the_first_place_a_marker_may_start(
            picks in prop::collection::vec(0..10usize, 0..7),
            pieces in prop::collection::vec(0..12usize, 0..600),
            cut in 0..4usize,
            packed: bool,
        ) {
            const MARKERS: [&str; 10] =
                ["<a", "[b", "]c", "◁t", "z", "é", "日本", "▁x", "｜y", "\u{2192}!"];
            const PIECES: [&str; 12] =
                ["a", "aaaaaaa", "<", "[", "]", "◁", "→", "─", "é", "日", "z", "\u{2581}"];
            let markers: Vec<&'static str> = picks.iter().map(|&k| MARKERS[k]).collect();
            let set = set(&markers, packed);
            let mut text: Vec<u8> = pieces.iter().flat_map(|&k| PIECES[k].bytes()).collect();
            // Cut a character at the end.
            text.truncate(text.len().saturating_sub(cut));
            let want = first_start(&markers, &text);
            prop_assert_eq!(set.find(&text), want);
            prop_assert_eq!(set.any_start(&text), want.is_some());
        }
    }
}
