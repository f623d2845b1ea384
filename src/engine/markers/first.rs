//! The search for the next byte that may start a marker: any of a set's
//! distinct first bytes, at memchr's speed however many there are.
//!
//! memchr looks for up to three bytes at once. A set of more (the watch
//! for other formats' openers has four: `<`, `[`, `]` and the first byte
//! of `▁`) is searched three bytes at a time, each search cut short at
//! the first find so far. A byte-at-a-time loop instead reads plain text
//! at a tenth of that speed, and plain text is most of what a model writes.

use memchr::{memchr, memchr2, memchr3};

/// The first bytes of a marker set.
#[derive(Clone, Debug)]
pub(crate) struct FirstBytes {
    /// The distinct bytes, in the order they were added.
    bytes: Vec<u8>,
    is_first: [bool; 256],
}

/// How many bytes a search for more than three bytes looks at one by one
/// before it searches windows.
const NEAR: usize = 16;

/// The window a search for more than three bytes starts with, past
/// [`NEAR`]; it doubles until something is found.
const FIRST_WINDOW: usize = 256;

impl FirstBytes {
    pub(crate) fn new() -> FirstBytes {
        FirstBytes {
            bytes: Vec::new(),
            is_first: [false; 256],
        }
    }

    pub(crate) fn add(&mut self, byte: u8) {
        if !self.is_first[usize::from(byte)] {
            self.is_first[usize::from(byte)] = true;
            self.bytes.push(byte);
        }
    }

    /// Whether a marker starts with `byte`.
    #[inline]
    pub(crate) fn contains(&self, byte: u8) -> bool {
        self.is_first[usize::from(byte)]
    }

    /// The position of the first byte of `haystack` in the set.
    #[inline]
    pub(crate) fn find(&self, haystack: &[u8]) -> Option<usize> {
        // A plain loop for the few bytes of a token-sized chunk, where
        // `memchr`'s setup costs more than it saves.
        if haystack.len() < 16 {
            return haystack.iter().position(|&b| self.contains(b));
        }
        match *self.bytes.as_slice() {
            // A format with no markers (bare JSON).
            [] => None,
            [a] => memchr(a, haystack),
            [a, b] => memchr2(a, b, haystack),
            [a, b, c] => memchr3(a, b, c, haystack),
            _ => self.find_many(haystack),
        }
    }

    /// [`find`](FirstBytes::find) for more than three bytes: one search per
    /// three bytes over a window that doubles from [`FIRST_WINDOW`]. The
    /// window keeps a call's cost to the distance to what it finds: a
    /// byte of the second group just ahead must not cost a scan of all the
    /// rest for the first group, or finding every byte of a text would be
    /// quadratic.
    #[inline(never)]
    fn find_many(&self, haystack: &[u8]) -> Option<usize> {
        // Where such bytes are dense (box drawing, typographic quotes: the
        // first byte of `▁` is theirs too), the next is near: a plain look
        // at the first bytes finds it before any search is set up.
        let near = haystack.len().min(NEAR);
        if let Some(at) = haystack[..near].iter().position(|&b| self.contains(b)) {
            return Some(at);
        }
        let mut from = near;
        let mut width = FIRST_WINDOW;
        while from < haystack.len() {
            let end = haystack.len().min(from.saturating_add(width));
            let mut window = &haystack[from..end];
            let mut found = None;
            for group in self.bytes.chunks(3) {
                let at = match *group {
                    [a] => memchr(a, window),
                    [a, b] => memchr2(a, b, window),
                    [a, b, c] => memchr3(a, b, c, window),
                    _ => None,
                };
                if let Some(at) = at {
                    found = Some(at);
                    window = &window[..at];
                }
            }
            if let Some(at) = found {
                return Some(from + at);
            }
            from = end;
            width = width.saturating_mul(2);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn set(bytes: &[u8]) -> FirstBytes {
        let mut set = FirstBytes::new();
        for &b in bytes {
            set.add(b);
        }
        set
    }

    #[test]
    fn finds_the_first_of_many_bytes_in_any_window() {
        let set = set(b"<[]\xE2z");
        let mut text = vec![b'a'; 5000];
        assert_eq!(set.find(&text), None);
        for at in [0, 15, 16, 63, 64, 65, 200, 4999] {
            for &b in b"<[]\xE2z" {
                text[at] = b;
                assert_eq!(set.find(&text), Some(at), "{} at {at}", b as char);
                text[at] = b'a';
            }
        }
        // The earliest wins, whichever group it is in.
        text[300] = b'<';
        text[100] = b'z';
        assert_eq!(set.find(&text), Some(100));
    }

    proptest! {
        #[test]
        fn find_is_the_first_byte_in_the_set(
            bytes in prop::collection::vec(any::<u8>(), 0..9),
            text in prop::collection::vec(
                prop_oneof![9 => Just(b'a'), 1 => any::<u8>()],
                0..2000,
            ),
        ) {
            let set = set(&bytes);
            let want = text.iter().position(|b| bytes.contains(b));
            prop_assert_eq!(set.find(&text), want);
        }
    }
}
