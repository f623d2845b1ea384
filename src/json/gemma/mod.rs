//! An incremental reader of Gemma's call arguments, an object syntax of its
//! own (Gemma 4 and FunctionGemma):
//!
//! ```text
//! {city:<|"|>Paris<|"|>,days:3,meta:{depth:2},items:[1,2],label:null}
//! ```
//!
//! Keys are bare; strings are text between two string delimiters (`<|"|>`
//! in Gemma 4, `<escape>` in FunctionGemma), taken as they are (no escapes:
//! the delimiter cannot appear inside, so `}` or a closing marker inside is
//! text); a value in JSON's double quotes (`q:"a, b"`, as models trained
//! on JSON write) is read as a JSON string, to its closing quote, with
//! JSON's escapes, reported; any other value is bare text up to `,`, `}`
//! or `]`, read as a JSON literal (a number, `true`, `false`, `null`) where
//! it is one, else as a string, reported. The events are the JSON reader's,
//! so the engine makes JSON arguments of them, typed by the schema as any
//! format's are.
//!
//! Bounded: nesting, and a key or bare value held whole, have limits; a
//! delimited string streams as `Text` pieces. A delimiter cut by a chunk
//! border is held (a few bytes) until it is whole or is not, so the events
//! do not depend on how the text was cut.

#[cfg(test)]
mod tests;

use super::reader::{is_number_grammar, number_events, Fed, JsonEvent, JsonReader, Leniency};
use super::stepper::Stepper;
use super::{char_at, is_json_space};

/// Why the text is not Gemma arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GemmaError {
    pub kind: GemmaErrorKind,
    /// The byte offset in the whole text where it was found.
    pub at: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GemmaErrorKind {
    /// A byte (shown as a char) that cannot come there.
    Unexpected(char),
    /// Nesting past the limit.
    TooDeep,
    /// A key or bare value longer than the limit.
    TooLong,
    /// A `\` escape JSON does not have, in a value in JSON's quotes.
    BadEscape,
    /// The text ended inside the arguments.
    #[cfg_attr(not(test), allow(dead_code))]
    Truncated,
}

impl std::fmt::Display for GemmaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            GemmaErrorKind::Unexpected(c) => write!(f, "unexpected {c:?}")?,
            GemmaErrorKind::TooDeep => f.write_str("nested too deep")?,
            GemmaErrorKind::TooLong => f.write_str("a key or value too long")?,
            GemmaErrorKind::BadEscape => f.write_str("an escape JSON does not have")?,
            GemmaErrorKind::Truncated => f.write_str("the text ended inside the arguments")?,
        }
        write!(f, " at byte {} of the arguments", self.at)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    Object,
    Array,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before the arguments' `{`.
    Start,
    /// After `{` or a comma in an object: a key or `}`.
    KeyOrEnd,
    /// Reading a bare key, up to `:`.
    InKey,
    /// A value is next.
    Value,
    /// After `[`: a value or `]`.
    ValueOrEnd,
    /// Reading a bare value, up to `,`, `}` or `]`.
    InBare,
    /// Inside a delimited string.
    InString,
    /// Inside a string in JSON's double quotes.
    InQuoted,
    /// After a value: `,` or the closer.
    Next,
    Done,
    Failed,
}

/// Reads one Gemma argument object, from its `{` through its `}`, from text
/// given in pieces.
#[derive(Debug, Clone)]
pub struct GemmaReader {
    state: State,
    stack: Vec<Frame>,
    delimiter: &'static str,
    /// Bytes of the delimiter matched so far (a delimiter may be cut by a
    /// chunk border): where the state says, they open or close a string, or
    /// are text.
    matched: usize,
    /// The key or bare value being read.
    held: String,
    /// Reads a value in JSON's double quotes, from its opening quote (boxed:
    /// the lenient path, kept out of the reader's size).
    quoted: Option<Box<JsonReader>>,
    /// Where that value's opening quote is in the whole text.
    quoted_at: u64,
    /// A bad escape found ahead of the step that reached it: the error of
    /// the step that starts at its byte, wherever the pieces were cut.
    bad_escape_at: Option<u64>,
    offset: u64,
    max_depth: usize,
    max_held: usize,
}

/// The string a JSON string literal holds, when `text` is one whole
/// (`"Paris"`): models trained on JSON quote Gemma's keys and values.
fn json_quoted(text: &str) -> Option<String> {
    if text.len() < 2 || !text.starts_with('"') || !text.ends_with('"') {
        return None;
    }
    serde_json::from_str(text).ok()
}

impl Stepper for GemmaReader {
    type Kind = GemmaErrorKind;

    fn is_done(&self) -> bool {
        matches!(self.state, State::Done)
    }

    fn step(
        &mut self,
        text: &str,
        at: usize,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<usize, GemmaErrorKind> {
        self.read_step(text, at, sink)
    }

    fn fail(&mut self) {
        self.state = State::Failed;
    }

    fn offset_mut(&mut self) -> &mut u64 {
        &mut self.offset
    }

    /// Text of a delimited string, no part of a delimiter held, and no
    /// byte of `bytes` able to begin one. (A value in JSON's quotes, the
    /// lenient path, steps.)
    #[inline(always)]
    fn takes_plain_string(&self, bytes: &[u8]) -> bool {
        matches!(self.state, State::InString)
            && self.matched == 0
            && !bytes.contains(&self.delimiter.as_bytes()[0])
    }
}

impl GemmaReader {
    /// A reader of arguments whose strings sit between two `delimiter`s.
    /// The delimiter's first byte must not recur in it (`<|"|>`,
    /// `<escape>`): a failed match then restarts at the byte that failed.
    pub fn new(delimiter: &'static str, max_depth: usize, max_held: usize) -> GemmaReader {
        debug_assert!(
            !delimiter.is_empty() && !delimiter.as_bytes()[1..].contains(&delimiter.as_bytes()[0])
        );
        GemmaReader {
            state: State::Start,
            stack: Vec::new(),
            delimiter,
            matched: 0,
            held: String::new(),
            quoted: None,
            quoted_at: 0,
            bad_escape_at: None,
            offset: 0,
            max_depth,
            max_held,
        }
    }

    /// Reads `text`, giving each event to `sink`. After an error, or once
    /// the arguments are done, nothing more is read. (The engine reads
    /// through `Calls`; the reader's own tests through this.)
    #[cfg(test)]
    pub fn feed(
        &mut self,
        text: &str,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<Fed, GemmaError> {
        super::stepper::feed_until(self, text, &mut |event, _| {
            sink(event);
            false
        })
        .map_err(|(kind, at, ..)| GemmaError { kind, at })
    }

    /// The text has ended: arguments not closed are truncated.
    #[cfg(test)]
    pub fn finish(&mut self) -> Result<(), GemmaError> {
        if self.state == State::Done {
            return Ok(());
        }
        self.state = State::Failed;
        Err(GemmaError {
            kind: GemmaErrorKind::Truncated,
            at: self.offset,
        })
    }

    fn read_step(
        &mut self,
        text: &str,
        at: usize,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<usize, GemmaErrorKind> {
        if matches!(self.state, State::InString) {
            return self.in_string(text, at, sink);
        }
        if matches!(self.state, State::InQuoted) {
            return self.in_quoted(text, at, sink);
        }
        if self.matched > 0 {
            return self.opening_delimiter(text, at, sink);
        }
        let b = text.as_bytes()[at];
        match self.state {
            State::Start => match b {
                _ if is_json_space(b) => Ok(at + 1),
                b'{' => self.open(Frame::Object, at, sink),
                _ => Err(GemmaErrorKind::Unexpected(char_at(text, at))),
            },
            State::KeyOrEnd => match b {
                _ if is_json_space(b) => Ok(at + 1),
                b'}' => self.close(text, at, sink),
                b':' | b',' | b'{' | b'[' | b']' => Err(GemmaErrorKind::Unexpected(b as char)),
                _ => {
                    self.held.clear();
                    self.state = State::InKey;
                    Ok(at)
                }
            },
            State::InKey => {
                let end = text.as_bytes()[at..]
                    .iter()
                    .position(|&c| matches!(c, b':' | b',' | b'{' | b'}' | b'[' | b']'))
                    .map_or(text.len(), |n| at + n);
                let taken = self.hold_run(&text[at..end])?;
                if taken > 0 {
                    return Ok(at + taken);
                }
                match text.as_bytes().get(end) {
                    None => Ok(end),
                    Some(b':') => {
                        let key = self.held.trim();
                        if key.is_empty() {
                            return Err(GemmaErrorKind::Unexpected(':'));
                        }
                        match json_quoted(key) {
                            Some(unquoted) => {
                                sink(JsonEvent::Lenient(Leniency::JsonQuoted));
                                sink(JsonEvent::Key(&unquoted));
                            }
                            None => sink(JsonEvent::Key(key)),
                        }
                        self.state = State::Value;
                        Ok(end + 1)
                    }
                    Some(&c) => Err(GemmaErrorKind::Unexpected(c as char)),
                }
            }
            State::Value | State::ValueOrEnd => match b {
                _ if is_json_space(b) => Ok(at + 1),
                b']' if self.state == State::ValueOrEnd => self.close(text, at, sink),
                b'{' => self.open(Frame::Object, at, sink),
                b'[' => self.open(Frame::Array, at, sink),
                b',' | b'}' | b']' | b':' => Err(GemmaErrorKind::Unexpected(b as char)),
                _ if b == self.delimiter.as_bytes()[0] => self.opening_delimiter(text, at, sink),
                b'"' => {
                    sink(JsonEvent::Lenient(Leniency::JsonQuoted));
                    // A string only: no nesting, no key.
                    let fresh = JsonReader::new(0, 0, 0);
                    match &mut self.quoted {
                        Some(reader) => **reader = fresh,
                        None => self.quoted = Some(Box::new(fresh)),
                    }
                    self.quoted_at = self.offset + at as u64;
                    self.state = State::InQuoted;
                    Ok(at)
                }
                _ => {
                    self.held.clear();
                    self.state = State::InBare;
                    Ok(at)
                }
            },
            State::InBare => {
                let end = text.as_bytes()[at..]
                    .iter()
                    .position(|&c| matches!(c, b',' | b'}' | b']'))
                    .map_or(text.len(), |n| at + n);
                let taken = self.hold_run(&text[at..end])?;
                if taken == 0 {
                    self.bare(sink);
                }
                Ok(at + taken)
            }
            State::Next => match b {
                _ if is_json_space(b) => Ok(at + 1),
                b',' => {
                    self.state = match self.stack.last() {
                        Some(Frame::Array) => State::Value,
                        _ => State::KeyOrEnd,
                    };
                    Ok(at + 1)
                }
                b'}' | b']' => self.close(text, at, sink),
                _ => Err(GemmaErrorKind::Unexpected(char_at(text, at))),
            },
            State::InString | State::InQuoted | State::Done | State::Failed => Ok(text.len()),
        }
    }

    /// Holds what fits of a run under the bound; how much. A byte past
    /// the bound is the error, in the step that starts at it, and the run's
    /// end is decided in a step of its own, so that events and errors are
    /// placed the same wherever the pieces were cut.
    fn hold_run(&mut self, text: &str) -> Result<usize, GemmaErrorKind> {
        super::hold_run(&mut self.held, self.max_held, text).ok_or(GemmaErrorKind::TooLong)
    }

    fn open(
        &mut self,
        frame: Frame,
        at: usize,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<usize, GemmaErrorKind> {
        if self.stack.len() >= self.max_depth {
            return Err(GemmaErrorKind::TooDeep);
        }
        self.stack.push(frame);
        match frame {
            Frame::Object => {
                sink(JsonEvent::BeginObject);
                self.state = State::KeyOrEnd;
            }
            Frame::Array => {
                sink(JsonEvent::BeginArray);
                self.state = State::ValueOrEnd;
            }
        }
        Ok(at + 1)
    }

    fn close(
        &mut self,
        text: &str,
        at: usize,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<usize, GemmaErrorKind> {
        match (self.stack.last(), text.as_bytes()[at]) {
            (Some(Frame::Object), b'}') => sink(JsonEvent::EndObject),
            (Some(Frame::Array), b']') => sink(JsonEvent::EndArray),
            _ => return Err(GemmaErrorKind::Unexpected(char_at(text, at))),
        }
        self.stack.pop();
        self.after_value();
        Ok(at + 1)
    }

    fn after_value(&mut self) {
        self.state = if self.stack.is_empty() {
            State::Done
        } else {
            State::Next
        };
    }

    /// A bare value ended: a JSON literal where it is one, else its text as
    /// a string (reported).
    fn bare(&mut self, sink: &mut impl FnMut(JsonEvent<'_>)) {
        let value = self.held.trim();
        match value {
            "true" => sink(JsonEvent::Bool(true)),
            "false" => sink(JsonEvent::Bool(false)),
            "null" => sink(JsonEvent::Null),
            _ if is_number_grammar(value) => number_events(value, sink),
            _ => {
                sink(JsonEvent::Lenient(Leniency::BareText));
                sink(JsonEvent::BeginString);
                sink(JsonEvent::Text(value));
                sink(JsonEvent::EndString);
            }
        }
        self.after_value();
    }

    /// Inside a value in JSON's double quotes: the JSON reader reads it,
    /// escapes and all, to its closing quote, and gives its events.
    fn in_quoted(
        &mut self,
        text: &str,
        at: usize,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<usize, GemmaErrorKind> {
        let here = self.offset + at as u64;
        if let Some(bad) = self.bad_escape_at {
            if bad == here {
                return Err(GemmaErrorKind::BadEscape);
            }
            // Up to the bad byte, the text was read already.
            return Ok(at + (bad - here) as usize);
        }
        let Some(quoted) = self.quoted.as_deref_mut() else {
            return Ok(text.len());
        };
        match quoted.feed(&text[at..], sink) {
            Ok(Fed::Done(n)) => {
                self.after_value();
                Ok(at + n)
            }
            Ok(_) => Ok(text.len()),
            Err(error) => {
                // Only an escape can be wrong inside a string; the error is
                // placed at its byte, not at this step's start.
                let bad = self.quoted_at + error.at;
                if bad == here {
                    return Err(GemmaErrorKind::BadEscape);
                }
                self.bad_escape_at = Some(bad);
                Ok(at + (bad - here) as usize)
            }
        }
    }

    /// Matching the delimiter that opens a string, byte by byte from `at`.
    fn opening_delimiter(
        &mut self,
        text: &str,
        at: usize,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<usize, GemmaErrorKind> {
        let want = self.delimiter.as_bytes();
        let b = text.as_bytes()[at];
        if b != want[self.matched] {
            // Not a delimiter after all: the bytes matched start a bare value.
            self.held.clear();
            self.held.push_str(&self.delimiter[..self.matched]);
            self.matched = 0;
            self.state = State::InBare;
            return Ok(at);
        }
        self.matched += 1;
        if self.matched == want.len() {
            self.matched = 0;
            sink(JsonEvent::BeginString);
            self.state = State::InString;
        }
        Ok(at + 1)
    }

    /// Inside a delimited string: text, up to the closing delimiter (held
    /// while a prefix of it is all that is known).
    fn in_string(
        &mut self,
        text: &str,
        at: usize,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<usize, GemmaErrorKind> {
        let want = self.delimiter.as_bytes();
        let bytes = text.as_bytes();
        if self.matched > 0 {
            if bytes[at] == want[self.matched] {
                self.matched += 1;
                if self.matched == want.len() {
                    self.matched = 0;
                    sink(JsonEvent::EndString);
                    self.after_value();
                }
                return Ok(at + 1);
            }
            // The held bytes were text. The delimiter's first byte does not
            // recur in it (`<`), so matching starts over at this byte.
            sink(JsonEvent::Text(&self.delimiter[..self.matched]));
            self.matched = 0;
            return Ok(at);
        }
        let end = memchr::memchr(want[0], &bytes[at..]).map_or(bytes.len(), |n| at + n);
        if end > at {
            sink(JsonEvent::Text(&text[at..end]));
        }
        if end < bytes.len() {
            self.matched = 1;
            return Ok(end + 1);
        }
        Ok(end)
    }
}
