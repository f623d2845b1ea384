//! An incremental JSON reader: text in, in any pieces, and the events of
//! one JSON value out as soon as each byte decides them.
//!
//! It is the engine's reader for formats whose arguments (or whole call
//! bodies) are JSON. Peers re-parse the growing buffer with a partial-JSON
//! parser on every token, which is quadratic and cannot tell a closing
//! marker inside a string from one after the value. Here each byte is
//! looked at once and the reader's state carries over any chunk border
//! (inside an escape, a surrogate pair, a number, a literal), so the
//! events of a text do not depend on how it was cut, and the value's own
//! end says where the value ends.
//!
//! Bounded: nesting (`max_depth`), a key (`max_key`) and a number
//! (`max_number`) are the only things held; a string value streams as
//! [`JsonEvent::Text`] pieces, borrowed from the input where it has no
//! escapes.

use super::stepper::{feed_until, Nesting, Stepper};
use super::{first_escape, first_escape_or_amp, needs_escape};
mod number;

pub use super::event::{Fed, JsonError, JsonErrorKind, JsonEvent, Leniency};

use number::Num;
pub(crate) use number::{is_number_grammar, number_events};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Container {
    Object,
    Array,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// A value is next (the start, or after `:` or `,` in an array).
    Value,
    /// After `[`: a value or `]`.
    ValueOrEnd,
    /// After `{`: a key or `}`.
    KeyOrEnd,
    /// After `,` in an object.
    Key,
    Colon,
    /// After a value inside a container: `,` or its closer.
    Next,
    InKey,
    InString,
    InNumber(Num),
    /// Inside `true`, `false` or `null`: which, and how many bytes matched.
    InWord(Word, u8),
    Done,
    Failed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Word {
    True,
    False,
    Null,
}

impl Word {
    fn bytes(self) -> &'static [u8] {
        match self {
            Word::True => b"true",
            Word::False => b"false",
            Word::Null => b"null",
        }
    }
}

/// Where a `\` escape is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Escape {
    None,
    /// After `\`.
    Backslash,
    /// After `\u` and this many hex digits of `value`; bit `i` of `upper`
    /// says digit `i` was an upper-case letter, so that digits given back
    /// after an error are the bytes the model wrote.
    Unicode {
        digits: u8,
        value: u16,
        upper: u8,
    },
    /// After this many bytes of `&quot;` (all six: the structure that
    /// follows decides).
    Entity(u8),
}

/// Reads one JSON value from text given in pieces.
#[derive(Debug, Clone)]
pub struct JsonReader {
    state: State,
    stack: Vec<Container>,
    escape: Escape,
    /// A high surrogate waiting for its low half.
    high: Option<u16>,
    /// The key, or number, being read (both are held whole).
    held: String,
    /// Bytes of the text read before the current piece.
    offset: u64,
    max_depth: usize,
    max_key: usize,
    max_number: usize,
    /// Read `&quot;` before structure as a string's closing quote.
    entity_quotes: bool,
}

/// What a model writes for `"` in HTML's spelling.
const QUOT: &[u8; 6] = b"&quot;";

impl Default for JsonReader {
    fn default() -> Self {
        JsonReader::new(128, 4 << 10, 1 << 10)
    }
}

impl Stepper for JsonReader {
    type Kind = JsonErrorKind;

    fn is_done(&self) -> bool {
        self.state == State::Done
    }

    fn step(
        &mut self,
        text: &str,
        at: usize,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<usize, JsonErrorKind> {
        self.read_step(text, at, sink)
    }

    fn fail(&mut self) {
        self.state = State::Failed;
    }

    /// Text of a value string (not a key) with nothing pending: no escape,
    /// no half surrogate pair, and no byte that ends a run (`"`, `\`, a
    /// control character, `&` where quotes are entities).
    #[inline(always)]
    fn takes_plain_string(&self, bytes: &[u8]) -> bool {
        self.state == State::InString
            && self.escape == Escape::None
            && self.high.is_none()
            && !bytes
                .iter()
                .any(|&b| needs_escape(b) || (b == b'&' && self.entity_quotes))
    }

    fn nesting(&self) -> Nesting {
        Nesting {
            open: self
                .stack
                .iter()
                .map(|c| match c {
                    Container::Object => b'{',
                    Container::Array => b'[',
                })
                .collect(),
            quote: matches!(self.state, State::InString | State::InKey).then_some(b'"'),
        }
    }

    fn unread(&self) -> String {
        match self.state {
            State::InWord(word, matched) => {
                String::from_utf8_lossy(&word.bytes()[..usize::from(matched)]).into_owned()
            }
            State::InNumber(_) => self.held.clone(),
            State::InString => match self.escape {
                Escape::None => String::new(),
                Escape::Backslash => "\\".to_owned(),
                // The digits as read.
                Escape::Unicode {
                    digits,
                    value,
                    upper,
                } => {
                    let mut text = String::from("\\u");
                    for i in 0..digits {
                        let nibble = (value >> (4 * (digits - 1 - i))) & 0xF;
                        let digit = char::from_digit(u32::from(nibble), 16).unwrap_or('0');
                        if upper & (1 << i) != 0 {
                            text.push(digit.to_ascii_uppercase());
                        } else {
                            text.push(digit);
                        }
                    }
                    text
                }
                Escape::Entity(n) => String::from_utf8_lossy(&QUOT[..usize::from(n)]).into_owned(),
            },
            _ => String::new(),
        }
    }

    fn offset_mut(&mut self) -> &mut u64 {
        &mut self.offset
    }
}

impl JsonReader {
    pub fn new(max_depth: usize, max_key: usize, max_number: usize) -> JsonReader {
        JsonReader {
            state: State::Value,
            stack: Vec::new(),
            escape: Escape::None,
            high: None,
            held: String::new(),
            offset: 0,
            max_depth,
            max_key,
            max_number,
            entity_quotes: false,
        }
    }

    /// Reads `&quot;` right before `,`, `}`, `]` or `:` inside a string
    /// as the string's closing quote, reported ([`Leniency::EntityQuote`]).
    pub fn entity_quotes(mut self, on: bool) -> JsonReader {
        self.entity_quotes = on;
        self
    }

    /// How many bytes of the text have been read (after an error: up to
    /// the byte that is not JSON).
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Reads `text`, giving each event to `sink`. After an error, or once
    /// the value is done, nothing more is read.
    pub fn feed(
        &mut self,
        text: &str,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<Fed, JsonError> {
        self.feed_until(text, &mut |event, _| {
            sink(event);
            false
        })
    }

    /// [`feed`](JsonReader::feed), where the sink may ask to pause (by
    /// returning true) after the bytes of the event it was given: the
    /// reader then returns [`Fed::Paused`] with the bytes read so far, so
    /// that the caller can act between two events (the engine hands the
    /// raw text of one call to strict mode before the next call starts).
    /// The sink is also given where the step that made the event began
    /// (an offset in the whole text): for every event but `Text`, the byte
    /// that completed it, whatever the chunking.
    pub fn feed_until(
        &mut self,
        text: &str,
        sink: &mut impl FnMut(JsonEvent<'_>, u64) -> bool,
    ) -> Result<Fed, JsonError> {
        feed_until(self, text, sink).map_err(|(kind, at, ..)| JsonError { kind, at })
    }

    /// The text has ended: a number at the top level ends with it; any
    /// other unfinished value is [`JsonErrorKind::Truncated`].
    pub fn finish(&mut self, sink: &mut impl FnMut(JsonEvent<'_>)) -> Result<(), JsonError> {
        match self.state {
            State::Done => Ok(()),
            State::InNumber(num) if num.complete() && self.stack.is_empty() => {
                number_events(&self.held, sink);
                self.held.clear();
                self.state = State::Done;
                Ok(())
            }
            _ => {
                self.state = State::Failed;
                Err(JsonError {
                    kind: JsonErrorKind::Truncated,
                    at: self.offset,
                })
            }
        }
    }

    /// Reads from `at`; returns where the next step starts.
    fn read_step(
        &mut self,
        text: &str,
        at: usize,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<usize, JsonErrorKind> {
        let bytes = text.as_bytes();
        let b = bytes[at];
        match self.state {
            State::InString | State::InKey => return self.string(text, at, sink),
            State::InNumber(num) => {
                if let Some(next) = num.next(b) {
                    if self.held.len() == self.max_number {
                        return Err(JsonErrorKind::NumberTooLong);
                    }
                    self.held.push(char::from(b));
                    self.state = State::InNumber(next);
                    return Ok(at + 1);
                }
                if !num.complete() {
                    return Err(unexpected(text, at));
                }
                number_events(&self.held, sink);
                self.held.clear();
                self.value_ended();
                // `b` is read again after the number.
                return Ok(at);
            }
            State::InWord(word, matched) => {
                let spelled = word.bytes();
                if b != spelled[usize::from(matched)] {
                    return Err(unexpected(text, at));
                }
                if usize::from(matched) + 1 < spelled.len() {
                    self.state = State::InWord(word, matched + 1);
                } else {
                    sink(match word {
                        Word::True => JsonEvent::Bool(true),
                        Word::False => JsonEvent::Bool(false),
                        Word::Null => JsonEvent::Null,
                    });
                    self.value_ended();
                }
                return Ok(at + 1);
            }
            State::Done | State::Failed => return Ok(bytes.len()),
            _ => {}
        }
        if super::is_json_space(b) {
            return Ok(at + 1);
        }
        match (self.state, b) {
            (State::Value | State::ValueOrEnd, _) if b != b']' || self.state == State::Value => {
                self.value_start(text, at, sink)?;
            }
            (State::ValueOrEnd, b']') | (State::Next, b']')
                if self.stack.last() == Some(&Container::Array) =>
            {
                self.close(sink, JsonEvent::EndArray);
            }
            (State::KeyOrEnd, b'}') | (State::Next, b'}')
                if self.stack.last() == Some(&Container::Object) =>
            {
                self.close(sink, JsonEvent::EndObject);
            }
            (State::KeyOrEnd | State::Key, b'"') => self.state = State::InKey,
            (State::Colon, b':') => self.state = State::Value,
            (State::Next, b',') => {
                self.state = match self.stack.last() {
                    Some(Container::Object) => State::Key,
                    _ => State::Value,
                };
            }
            _ => return Err(unexpected(text, at)),
        }
        Ok(at + 1)
    }

    /// The first byte of a value.
    fn value_start(
        &mut self,
        text: &str,
        at: usize,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<(), JsonErrorKind> {
        let b = text.as_bytes()[at];
        match b {
            b'{' | b'[' => {
                if self.stack.len() == self.max_depth {
                    return Err(JsonErrorKind::TooDeep);
                }
                if b == b'{' {
                    self.stack.push(Container::Object);
                    self.state = State::KeyOrEnd;
                    sink(JsonEvent::BeginObject);
                } else {
                    self.stack.push(Container::Array);
                    self.state = State::ValueOrEnd;
                    sink(JsonEvent::BeginArray);
                }
            }
            b'"' => {
                self.state = State::InString;
                sink(JsonEvent::BeginString);
            }
            b'-' | b'0'..=b'9' => {
                let num = Num::Minus.next(b).unwrap_or(Num::Minus);
                self.held.clear();
                self.held.push(char::from(b));
                self.state = State::InNumber(num);
            }
            b't' => self.state = State::InWord(Word::True, 1),
            b'f' => self.state = State::InWord(Word::False, 1),
            b'n' => self.state = State::InWord(Word::Null, 1),
            _ => return Err(unexpected(text, at)),
        }
        Ok(())
    }

    fn close(&mut self, sink: &mut impl FnMut(JsonEvent<'_>), event: JsonEvent<'_>) {
        self.stack.pop();
        sink(event);
        self.value_ended();
    }

    fn value_ended(&mut self) {
        self.state = if self.stack.is_empty() {
            State::Done
        } else {
            State::Next
        };
    }

    /// Inside a key or a string value: a run of plain text at once, then
    /// the byte that stopped it.
    fn string(
        &mut self,
        text: &str,
        at: usize,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<usize, JsonErrorKind> {
        let bytes = text.as_bytes();
        if self.escape != Escape::None {
            return self.escaped(text, at, sink);
        }
        // One scan for every stop byte: a second one for `&` cost more than
        // the rest of a token-sized step.
        let stop = if self.entity_quotes {
            first_escape_or_amp(&bytes[at..])
        } else {
            first_escape(&bytes[at..])
        };
        let run = stop.map_or(bytes.len(), |k| at + k);
        if run > at {
            // A pending high surrogate with text after it: half a pair.
            self.lone_surrogate(sink)?;
            // `first_escape` stops only at ASCII bytes: `run` is a char
            // boundary.
            self.text(&text[at..run], sink)?;
            return Ok(run);
        }
        match bytes[at] {
            b'\\' => {
                self.escape = Escape::Backslash;
            }
            b'&' if self.entity_quotes => {
                self.lone_surrogate(sink)?;
                self.escape = Escape::Entity(1);
            }
            b'"' => {
                self.lone_surrogate(sink)?;
                self.string_closed(sink);
            }
            _ => {
                // A raw control character: JSON forbids it, models write it.
                self.lone_surrogate(sink)?;
                sink(JsonEvent::Lenient(Leniency::ControlInString));
                self.text(&text[at..at + 1], sink)?;
            }
        }
        Ok(at + 1)
    }

    /// The closing quote of a key or a string value.
    fn string_closed(&mut self, sink: &mut impl FnMut(JsonEvent<'_>)) {
        if self.state == State::InKey {
            sink(JsonEvent::Key(&self.held));
            self.held.clear();
            self.state = State::Colon;
        } else {
            sink(JsonEvent::EndString);
            self.value_ended();
        }
    }

    /// After a `\`, across any border.
    fn escaped(
        &mut self,
        text: &str,
        at: usize,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<usize, JsonErrorKind> {
        let b = text.as_bytes()[at];
        match self.escape {
            Escape::Backslash => {
                let plain = match b {
                    b'"' => '"',
                    b'\\' => '\\',
                    b'/' => '/',
                    b'b' => '\u{8}',
                    b'f' => '\u{c}',
                    b'n' => '\n',
                    b'r' => '\r',
                    b't' => '\t',
                    b'u' => {
                        self.escape = Escape::Unicode {
                            digits: 0,
                            value: 0,
                            upper: 0,
                        };
                        return Ok(at + 1);
                    }
                    _ => return Err(JsonErrorKind::BadEscape),
                };
                self.escape = Escape::None;
                self.lone_surrogate(sink)?;
                self.char(plain, sink)?;
            }
            Escape::Unicode {
                digits,
                value,
                upper,
            } => {
                let digit = char::from(b).to_digit(16).ok_or(JsonErrorKind::BadEscape)?;
                // Four hex digits fit a u16.
                let value = value << 4 | digit as u16;
                let upper = upper | u8::from(b.is_ascii_uppercase()) << digits;
                if digits < 3 {
                    self.escape = Escape::Unicode {
                        digits: digits + 1,
                        value,
                        upper,
                    };
                    return Ok(at + 1);
                }
                self.escape = Escape::None;
                self.code_unit(value, sink)?;
            }
            Escape::Entity(n) => {
                let n = usize::from(n);
                if n < QUOT.len() {
                    if b == QUOT[n] {
                        self.escape = Escape::Entity(n as u8 + 1);
                        return Ok(at + 1);
                    }
                } else if matches!(b, b',' | b'}' | b']' | b':') {
                    // The quote it stands for ends the string; `b` is
                    // structure, read again.
                    self.escape = Escape::None;
                    sink(JsonEvent::Lenient(Leniency::EntityQuote));
                    self.string_closed(sink);
                    return Ok(at);
                }
                // Text after all: what was held, then `b` read again.
                self.escape = Escape::None;
                let held = std::str::from_utf8(&QUOT[..n]).unwrap_or_default();
                self.text(held, sink)?;
                return Ok(at);
            }
            Escape::None => {}
        }
        Ok(at + 1)
    }

    /// One UTF-16 code unit from a `\u` escape.
    fn code_unit(
        &mut self,
        unit: u16,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<(), JsonErrorKind> {
        match unit {
            0xD800..=0xDBFF => {
                self.lone_surrogate(sink)?;
                self.high = Some(unit);
                Ok(())
            }
            0xDC00..=0xDFFF => match self.high.take() {
                Some(high) => {
                    let code =
                        0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(unit) - 0xDC00);
                    self.char(char::from_u32(code).unwrap_or('\u{FFFD}'), sink)
                }
                None => {
                    sink(JsonEvent::Lenient(Leniency::LoneSurrogate));
                    self.char('\u{FFFD}', sink)
                }
            },
            _ => {
                self.lone_surrogate(sink)?;
                self.char(char::from_u32(u32::from(unit)).unwrap_or('\u{FFFD}'), sink)
            }
        }
    }

    /// A high surrogate that something other than its low half followed.
    fn lone_surrogate(
        &mut self,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<(), JsonErrorKind> {
        if self.high.take().is_some() {
            sink(JsonEvent::Lenient(Leniency::LoneSurrogate));
            self.char('\u{FFFD}', sink)?;
        }
        Ok(())
    }

    fn char(&mut self, c: char, sink: &mut impl FnMut(JsonEvent<'_>)) -> Result<(), JsonErrorKind> {
        let mut buf = [0; 4];
        self.text(c.encode_utf8(&mut buf), sink)
    }

    /// Decoded text of the key (held) or of the string value (given out).
    fn text(
        &mut self,
        text: &str,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<(), JsonErrorKind> {
        if self.state == State::InKey {
            if self.held.len() + text.len() > self.max_key {
                return Err(JsonErrorKind::KeyTooLong);
            }
            self.held.push_str(text);
        } else {
            sink(JsonEvent::Text(text));
        }
        Ok(())
    }
}

/// The char at `at`, for an error message.
fn unexpected(text: &str, at: usize) -> JsonErrorKind {
    JsonErrorKind::Unexpected(text[at..].chars().next().unwrap_or('\u{FFFD}'))
}

#[cfg(test)]
mod tests;
