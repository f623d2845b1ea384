//! Tentative text: the raw bytes of an opening or a closer that is not
//! decided yet. When the decision falls they are dropped as markup, or
//! released as content or value text; until then they wait here, bounded
//! by `Limits::lookahead`.

use crate::sink::Sink;

/// What the held text opened, which decides where it goes if it turns out
/// not to be a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Opening {
    /// The wrapper's opener (`<tool_call>`) and what followed it.
    Wrapper,
    /// A function opener without the wrapper (a recovery).
    Bare,
    /// A function opener after an earlier call in the same wrapper.
    Wrapped,
}

pub(crate) struct Hold {
    pub text: String,
    pub opening: Opening,
    /// Where text between the wrapper's opener and the function opener
    /// ends in `text` (formats with a function opener).
    pub inner_end: usize,
    /// The length of the marker `text` starts with.
    pub opener_len: usize,
    /// Where in `text` a U+FFFD stands for invalid input bytes, and how
    /// many (so that content released from here is placed in the input:
    /// see `Engine::release_held`), packed as `offset << 2 | bytes`: four
    /// bytes for each three of held text at most, so bounded as the held
    /// text is. Checked when used.
    pub replaced: Vec<u32>,
    /// The input offset of `text`'s first byte, where an opening or a
    /// body began holding (content released from here is placed there).
    pub from: u64,
}

impl Hold {
    /// Notes a U+FFFD at `at` in `text` that stands for `input` bytes.
    pub(crate) fn note_replaced(&mut self, at: usize, input: usize) {
        if let Ok(at) = u32::try_from(at) {
            if at < 1 << 30 {
                self.replaced.push(at << 2 | input.min(3) as u32);
            }
        }
    }
}

impl Hold {
    pub(crate) fn new() -> Hold {
        Hold {
            text: String::new(),
            opening: Opening::Wrapper,
            inner_end: 0,
            opener_len: 0,
            replaced: Vec::new(),
            from: 0,
        }
    }

    /// Starts holding `marker`.
    pub(crate) fn start(&mut self, marker: &str) {
        self.text.clear();
        self.replaced.clear();
        self.text.push_str(marker);
        self.opener_len = marker.len();
    }

    /// The held text after the opener, up to `end` (at most all of it).
    pub(crate) fn after_opener(&self, end: usize) -> &str {
        let start = self.opener_len.min(self.text.len());
        self.text.get(start..end.max(start)).unwrap_or("")
    }

    pub(crate) fn len(&self) -> usize {
        self.text.len()
    }
}

/// A preview of stray text inside a call, for its diagnostic.
#[derive(Default)]
pub(crate) struct Stray {
    pub preview: String,
    pub len: usize,
    /// The text follows a call that ended whole (the JSON after it was not
    /// valid): it is not that call's.
    pub after_call: bool,
}

/// How much stray text a diagnostic quotes.
const STRAY_PREVIEW: usize = 80;

impl Stray {
    /// Notes stray text; leading whitespace is layout.
    pub(crate) fn push(&mut self, s: &str) {
        let s = if self.len == 0 {
            s.trim_start_matches(crate::engine::WS)
        } else {
            s
        };
        if s.is_empty() {
            return;
        }
        // The preview must be a prefix of the stray text whatever the
        // chunking: once a character does not fit, nothing more is added.
        let complete = self.preview.len() == self.len;
        self.len += s.len();
        if !complete {
            return;
        }
        for c in s.chars() {
            if self.preview.len() + c.len_utf8() > STRAY_PREVIEW {
                break;
            }
            self.preview.push(c);
        }
    }

    pub(crate) fn clear(&mut self) {
        self.preview.clear();
        self.len = 0;
        self.after_call = false;
    }
}

impl crate::engine::Engine {
    /// The held text was not what it might have been: it is content.
    pub(in crate::engine) fn release_held<S: Sink>(&mut self, sink: &mut S) {
        let held = std::mem::take(&mut self.hold.text);
        if S::PLACES_CONTENT && !self.hold.replaced.is_empty() {
            self.release_replaced(&held, sink);
        } else {
            // Placed where the hold began (not where a later part of the
            // construct began).
            self.content_placed(sink, &held, self.hold.from);
        }
        self.hold.text = held;
        self.hold.text.clear();
        self.hold.replaced.clear();
    }

    /// Held text with U+FFFD for invalid input bytes, for a sink that
    /// places content: in pieces that each start where they are in the
    /// input (a replacement is longer than the bytes it stands for).
    #[inline(never)]
    fn release_replaced<S: Sink>(&mut self, held: &str, sink: &mut S) {
        const FFFD: &str = "\u{FFFD}";
        let replaced = std::mem::take(&mut self.hold.replaced);
        let mut from = self.hold.from;
        let mut done = 0;
        for &packed in &replaced {
            let (at, input) = ((packed >> 2) as usize, (packed & 3) as usize);
            if at < done || held.get(at..at + FFFD.len()) != Some(FFFD) {
                continue;
            }
            let end = at + FFFD.len();
            self.content_placed(sink, &held[done..end], from);
            from += (at - done + input) as u64;
            done = end;
        }
        self.content_placed(sink, &held[done..], from);
        self.hold.replaced = replaced;
    }
}
