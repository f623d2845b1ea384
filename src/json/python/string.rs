//! Python string literals, streamed: quotes, triple quotes, raw strings and
//! Python's escapes, with their state kept across chunk borders.

use super::{PyErrorKind, PyReader, Role, State};
use crate::json::reader::{JsonEvent, Leniency};

/// An open string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Str {
    quote: u8,
    raw: bool,
    triple: bool,
    /// Closing quotes seen in a row (a triple-quoted string ends at 3).
    quotes: u8,
    escape: Escape,
    /// The open escape's text (`\`, its letter, its digits so far): given
    /// back as written when the escape turns out unreadable.
    escape_text: [u8; 10],
    escape_len: u8,
}

impl Str {
    pub(super) fn new(quote: u8, raw: bool) -> Str {
        Str {
            quote,
            raw,
            triple: false,
            quotes: 0,
            escape: Escape::None,
            escape_text: [0; 10],
            escape_len: 0,
        }
    }
}

/// After the opening quote(s), before it is known whether the string is
/// empty (`''`), triple-quoted (`'''`) or neither.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Opening {
    One(Str),
    Two(Str),
}

impl Str {
    /// The string's quote character.
    pub(super) fn quote(&self) -> u8 {
        self.quote
    }

    /// Whether `bytes` are plain text of the string from here: no escape
    /// open, no closing quotes counted, and none of the bytes that end a
    /// run in [`PyReader::in_string`] (its quote, `\\`, and in a one-quote
    /// string a line end, which is reported).
    #[inline(always)]
    pub(super) fn takes_plain(&self, bytes: &[u8]) -> bool {
        matches!(self.escape, Escape::None)
            && self.quotes == 0
            && !bytes.iter().any(|&c| {
                c <= b'\\'
                    && (c == self.quote
                        || c == b'\\'
                        || (!self.triple && matches!(c, b'\n' | b'\r')))
            })
    }

    /// The open escape's text read so far (see `Stepper::unread`).
    pub(super) fn unread(&self) -> &str {
        match self.escape {
            Escape::Backslash | Escape::Digits { .. } => {
                // Only ASCII is ever kept.
                std::str::from_utf8(&self.escape_text[..usize::from(self.escape_len)])
                    .unwrap_or_default()
            }
            _ => "",
        }
    }

    /// Starts the escape's text at its `\`.
    fn begin_escape(&mut self) {
        self.escape = Escape::Backslash;
        self.escape_text[0] = b'\\';
        self.escape_len = 1;
    }

    /// One more byte of the open escape (at most `\U` and eight digits).
    fn keep_escape_byte(&mut self, b: u8) {
        if let Some(slot) = self.escape_text.get_mut(usize::from(self.escape_len)) {
            *slot = b;
            self.escape_len += 1;
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Escape {
    None,
    /// After `\`.
    Backslash,
    /// After `\` and a carriage return: a line feed next is the same line end.
    BackslashCr,
    /// Inside `\ooo`, `\xhh`, `\uhhhh` or `\Uhhhhhhhh`: the radix, the
    /// digits still possible (octal) or needed (hex), and the value so far.
    Digits {
        radix: u32,
        left: u8,
        value: u32,
    },
}

impl PyReader {
    /// The bytes after the opening quote.
    pub(super) fn opening(
        &mut self,
        role: Role,
        opening: Opening,
        text: &str,
        at: usize,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<usize, PyErrorKind> {
        let b = text.as_bytes()[at];
        match opening {
            Opening::One(string) if b == string.quote => {
                self.state = State::Opening(role, Opening::Two(string));
                Ok(at + 1)
            }
            Opening::One(string) => {
                self.begin_string(role, string, sink);
                Ok(at)
            }
            Opening::Two(string) if b == string.quote => {
                self.begin_string(
                    role,
                    Str {
                        triple: true,
                        ..string
                    },
                    sink,
                );
                Ok(at + 1)
            }
            Opening::Two(string) => {
                // `''`: the empty string, and `b` is what follows it.
                self.begin_string(role, string, sink);
                self.end_string(role, sink);
                Ok(at)
            }
        }
    }

    fn begin_string(&mut self, role: Role, string: Str, sink: &mut impl FnMut(JsonEvent<'_>)) {
        if role == Role::Value {
            sink(JsonEvent::BeginString);
        }
        self.held.clear();
        self.string = string;
        self.state = State::InString(role);
    }

    fn end_string(&mut self, role: Role, sink: &mut impl FnMut(JsonEvent<'_>)) {
        match role {
            Role::Value => {
                sink(JsonEvent::EndString);
                self.after_value();
            }
            Role::Key => {
                sink(JsonEvent::Key(&self.held));
                self.state = State::Colon;
            }
        }
    }

    /// Text of the string: streamed as a value, held as a key.
    fn text(
        &mut self,
        role: Role,
        text: &str,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<(), PyErrorKind> {
        if text.is_empty() {
            return Ok(());
        }
        match role {
            Role::Value => {
                sink(JsonEvent::Text(text));
                Ok(())
            }
            Role::Key => self.hold(text),
        }
    }

    fn char(
        &mut self,
        role: Role,
        c: char,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<(), PyErrorKind> {
        let mut buf = [0; 4];
        let text = c.encode_utf8(&mut buf);
        match role {
            Role::Value => {
                sink(JsonEvent::Text(text));
                Ok(())
            }
            Role::Key => self.hold(text),
        }
    }

    /// Inside the string, from `at`.
    pub(super) fn in_string(
        &mut self,
        role: Role,
        text: &str,
        at: usize,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<usize, PyErrorKind> {
        let bytes = text.as_bytes();
        let b = bytes[at];
        // The string's fields are read in place: copying the whole `Str`
        // in and out cost as much as the rest of a step.
        if !matches!(self.string.escape, Escape::None) {
            let mut string = self.string;
            let next = self.escape(role, &mut string, text, at, sink)?;
            self.string = string;
            return Ok(next);
        }
        let (quote, triple) = (self.string.quote, self.string.triple);
        // Only a triple-quoted string counts closing quotes.
        if triple && self.string.quotes > 0 && b != quote {
            // Quotes that did not close a triple-quoted string are text.
            for _ in 0..self.string.quotes {
                self.char(role, quote as char, sink)?;
            }
            self.string.quotes = 0;
        }
        match b {
            _ if b == quote => {
                if triple {
                    self.string.quotes += 1;
                    if self.string.quotes < 3 {
                        return Ok(at + 1);
                    }
                }
                self.end_string(role, sink);
                Ok(at + 1)
            }
            b'\\' => {
                // A one-character escape whole in this piece is read in this
                // step (a step costs as much as the character's event);
                // others, and one cut by the piece's end, step by step.
                let plain = match bytes.get(at + 1) {
                    _ if self.string.raw => None,
                    Some(b'n') => Some('\n'),
                    Some(b't') => Some('\t'),
                    Some(b'\\') => Some('\\'),
                    Some(b'\'') => Some('\''),
                    Some(b'"') => Some('"'),
                    _ => None,
                };
                if let Some(plain) = plain {
                    self.char(role, plain, sink)?;
                    return Ok(at + 2);
                }
                self.string.begin_escape();
                Ok(at + 1)
            }
            b'\n' | b'\r' if !triple => {
                // Python does not allow a line end in a one-quote string;
                // a model that wrote one meant it.
                sink(JsonEvent::Lenient(Leniency::ControlInString));
                self.text(role, &text[at..at + 1], sink)?;
                Ok(at + 1)
            }
            _ => {
                // Not empty: `b` is no stop byte.
                let end = run_end(bytes, at, quote, triple);
                match role {
                    Role::Value => sink(JsonEvent::Text(&text[at..end])),
                    Role::Key => self.hold(&text[at..end])?,
                }
                Ok(end)
            }
        }
    }

    /// The byte at `at` continues an escape.
    fn escape(
        &mut self,
        role: Role,
        string: &mut Str,
        text: &str,
        at: usize,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<usize, PyErrorKind> {
        let b = text.as_bytes()[at];
        match string.escape {
            Escape::None => Ok(at),
            Escape::BackslashCr => {
                string.escape = Escape::None;
                Ok(if b == b'\n' { at + 1 } else { at })
            }
            Escape::Backslash if string.raw => {
                // A raw string keeps the backslash, and the next character
                // (a quote too) is text.
                string.escape = Escape::None;
                self.text(role, "\\", sink)?;
                let len = text[at..].chars().next().map_or(1, char::len_utf8);
                self.text(role, &text[at..at + len], sink)?;
                Ok(at + len)
            }
            Escape::Backslash => {
                string.escape = Escape::None;
                let plain = match b {
                    b'\n' => return Ok(at + 1),
                    b'\r' => {
                        string.escape = Escape::BackslashCr;
                        return Ok(at + 1);
                    }
                    b'\\' => '\\',
                    b'\'' => '\'',
                    b'"' => '"',
                    b'a' => '\x07',
                    b'b' => '\x08',
                    b'f' => '\x0c',
                    b'n' => '\n',
                    b'r' => '\r',
                    b't' => '\t',
                    b'v' => '\x0b',
                    b'0'..=b'7' => {
                        string.keep_escape_byte(b);
                        string.escape = Escape::Digits {
                            radix: 8,
                            left: 2,
                            value: u32::from(b - b'0'),
                        };
                        return Ok(at + 1);
                    }
                    b'x' | b'u' | b'U' => {
                        string.keep_escape_byte(b);
                        let left = match b {
                            b'x' => 2,
                            b'u' => 4,
                            _ => 8,
                        };
                        string.escape = Escape::Digits {
                            radix: 16,
                            left,
                            value: 0,
                        };
                        return Ok(at + 1);
                    }
                    b'N' => return Err(PyErrorKind::BadEscape),
                    _ => {
                        // Not an escape: Python keeps the backslash.
                        self.text(role, "\\", sink)?;
                        return Ok(at);
                    }
                };
                self.char(role, plain, sink)?;
                Ok(at + 1)
            }
            Escape::Digits { radix, left, value } => {
                let digit = (b as char).to_digit(radix);
                match digit {
                    Some(digit) if left > 0 => {
                        let value = value * radix + digit;
                        if left == 1 {
                            string.escape = Escape::None;
                            self.escaped(role, value, sink)?;
                        } else {
                            string.keep_escape_byte(b);
                            string.escape = Escape::Digits {
                                radix,
                                left: left - 1,
                                value,
                            };
                        }
                        Ok(at + 1)
                    }
                    // An octal escape may be shorter; a hex one may not.
                    _ if radix == 8 => {
                        string.escape = Escape::None;
                        self.escaped(role, value, sink)?;
                        Ok(at)
                    }
                    _ => Err(PyErrorKind::BadEscape),
                }
            }
        }
    }

    /// The character an escape made; a surrogate or a value past Unicode
    /// is U+FFFD, reported.
    fn escaped(
        &mut self,
        role: Role,
        value: u32,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<(), PyErrorKind> {
        let c = char::from_u32(value).unwrap_or_else(|| {
            sink(JsonEvent::Lenient(Leniency::LoneSurrogate));
            '\u{FFFD}'
        });
        self.char(role, c, sink)
    }
}

/// Where plain text from `at` ends: at the next quote, backslash or (in a
/// one-quote string) line end, or the piece's end. A byte loop for a
/// token-sized piece, memchr's word-at-a-time scan past that.
#[inline(always)]
fn run_end(bytes: &[u8], at: usize, quote: u8, triple: bool) -> usize {
    let rest = &bytes[at..];
    let stop = if rest.len() < 16 {
        // Every stop byte is at most `\`; most text is above.
        rest.iter().position(|&c| {
            c <= b'\\' && (c == quote || c == b'\\' || (!triple && matches!(c, b'\n' | b'\r')))
        })
    } else if triple {
        memchr::memchr2(quote, b'\\', rest)
    } else {
        let stop = memchr::memchr3(quote, b'\\', b'\n', rest);
        let until = stop.unwrap_or(rest.len());
        memchr::memchr(b'\r', &rest[..until]).or(stop)
    };
    stop.map_or(bytes.len(), |n| at + n)
}
