//! A list of calls goes on after one whose arguments became unreadable: the
//! rest of that element, followed through its quotes and brackets, is
//! content, and the list is read again from the next element, so that the
//! readable calls beside it stay calls. Byte by byte, with a count and a
//! quote as its only state: linear, bounded, and the same at every split.

use crate::engine::grammar::state::State;
use crate::engine::Engine;
use crate::json::reader::JsonReader;
use crate::json::stepper::Nesting;
use crate::json::syntax::SyntaxReader;
use crate::sink::Sink;

/// Where the skip is inside the failed element.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Resync {
    /// Brackets open inside the element.
    open: usize,
    /// The quote of the string the skip is in.
    quote: Option<u8>,
    /// After a `\` in that string.
    escaped: bool,
    /// The element is a body of a sequence (bodies one after another in a
    /// wrapper, or chained by a separator: Olmo 3's lines), not of a list:
    /// it ends where its own brackets close.
    in_sequence: bool,
}

impl Engine {
    /// After a call of a list of call bodies became unreadable where the
    /// reader had `nesting` open: skips to the element's end if the call is
    /// an element of such a list.
    pub(in crate::engine) fn begin_resync(&mut self, nesting: &Nesting) -> bool {
        let in_list = self.json.is_body && nesting.open.len() > 1 && nesting.open[0] == b'[';
        let sequence = self.wrapper_has_closer() || self.json().body_separator.is_some();
        let in_sequence = !in_list && self.json.is_body && !nesting.open.is_empty() && sequence;
        if in_list || in_sequence {
            self.json.resync = Resync {
                open: nesting.open.len() - usize::from(in_list),
                quote: nesting.quote,
                escaped: false,
                in_sequence,
            };
            self.state = State::Resync;
        }
        in_list || in_sequence
    }

    /// Text of the failed element: content up to the `,` after it (the
    /// list goes on) or the list's `]` (it ends).
    pub(in crate::engine) fn resync_text<S: Sink>(&mut self, s: &str, sink: &mut S) -> usize {
        for (at, b) in s.bytes().enumerate() {
            let r = &mut self.json.resync;
            if let Some(quote) = r.quote {
                if r.escaped {
                    r.escaped = false;
                } else if b == b'\\' {
                    r.escaped = true;
                } else if b == quote {
                    r.quote = None;
                }
                continue;
            }
            match b {
                b'"' | b'\'' => r.quote = Some(b),
                b'[' | b'{' | b'(' => r.open += 1,
                b']' | b'}' | b')' if r.open > 1 || (r.open == 1 && !r.in_sequence) => r.open -= 1,
                b']' | b'}' | b')' if r.open == 1 => {
                    // The body's own end: what follows it is read as after
                    // any body (another body, the separator, the closer).
                    self.content(sink, &s[..=at]);
                    self.hold.text.clear();
                    self.json.rest_is_content = false;
                    self.state = State::AfterJson;
                    return at + 1;
                }
                b',' if r.open == 0 => {
                    // The separator is the list's.
                    self.content_here(sink, &s[..at]);
                    self.resume_list(sink);
                    return at + 1;
                }
                b']' => {
                    // The list's own end: the value is whole.
                    self.content_here(sink, &s[..at]);
                    self.hold.text.clear();
                    self.json.rest_is_content = false;
                    self.state = State::AfterJson;
                    return at + 1;
                }
                _ => {}
            }
        }
        self.content_here(sink, s);
        s.len()
    }

    /// The list is read again after the separator before its next element,
    /// with a fresh reader told that a list is open.
    fn resume_list<S: Sink>(&mut self, sink: &mut S) {
        let json_read = matches!(self.json_reader, SyntaxReader::Json(_));
        let (fence, attr_end) = (self.json.fence, self.json.attr_end);
        self.begin_json(true);
        if json_read {
            self.json_reader = SyntaxReader::Json(JsonReader::default());
        }
        self.json.fence = fence;
        self.json.attr_end = attr_end;
        self.state = State::Json;
        self.json_list_reopened(sink);
    }
}
