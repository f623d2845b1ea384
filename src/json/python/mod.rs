//! An incremental reader of Python literals, as models write tool-call
//! arguments in Python call syntax (`get_weather(city='Paris', days=3)`):
//! text in, in any pieces, and the same [`JsonEvent`]s as the JSON reader
//! out, as soon as each byte decides them, so that the engine turns them
//! into JSON arguments the same way.
//!
//! It reads what `ast.literal_eval` reads of JSON-like data: strings in
//! every quoting (`'…'`, `"…"`, triple quotes, `r'…'`, `u'…'`, Python's
//! escapes), ints (`1_000`, `0x1F`, `0o17`, `0b1`) and floats (`1.`, `.5`,
//! `1e-3`), `True`/`False`/`None` (and JSON's `true`/`false`/`null`,
//! reported as a leniency), lists and tuples (as arrays), dicts (a
//! key that is not a string becomes its JSON text, as `json.dumps` does),
//! trailing commas. [`PyReader::arguments`] reads a call's keyword
//! arguments, from after its `(` through its `)`, as one object.
//!
//! Nothing is evaluated: a name, an expression, a call, a positional
//! argument, bytes or f-strings are errors, which the engine reports. So is
//! a parenthesized single value (`(1)`, which Python reads as `1`): it
//! cannot be told from a one-element tuple until its end, after the tuple
//! was begun.
//!
//! Bounded like the JSON reader: nesting, and a key, number or name held
//! whole, have limits; a string value streams as `Text` pieces, borrowed
//! from the input where it has no escapes. Each byte is looked at once and
//! the state carries over any chunk border (inside an escape, a quote run,
//! a number), so the events do not depend on how the text was cut.

mod number;
mod string;
#[cfg(test)]
mod tests;

use super::reader::{Fed, JsonEvent, Leniency};
use super::stepper::{feed_until, Nesting, Stepper};
use super::{char_at, in_json_range};
use number::json_number;
use string::{Opening, Str};

/// Why the text is not a Python literal (or keyword arguments).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PyError {
    pub kind: PyErrorKind,
    /// The byte offset in the whole text where it was found.
    pub at: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PyErrorKind {
    /// A byte (shown as a char) no literal can have there.
    Unexpected(char),
    /// A name, or a number Python does not have, where a literal must be:
    /// what it was (not evaluated).
    NotALiteral(String),
    /// An argument without `name=`.
    Positional,
    /// `(x)` without a comma: an expression, not a tuple.
    Parenthesized,
    /// Nesting past the limit.
    TooDeep,
    /// A key, number or name longer than the limit.
    TooLong,
    /// A `\` escape Python does not have (or `\N{…}`, not read here).
    BadEscape,
    /// The text ended inside the value.
    Truncated,
}

impl std::fmt::Display for PyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            PyErrorKind::Unexpected(c) => write!(f, "unexpected {c:?}")?,
            PyErrorKind::NotALiteral(text) => write!(f, "{text:?} is not a literal")?,
            PyErrorKind::Positional => f.write_str("an argument without a name")?,
            PyErrorKind::Parenthesized => {
                f.write_str("a parenthesized value (a tuple needs a comma)")?
            }
            PyErrorKind::TooDeep => f.write_str("nested too deep")?,
            PyErrorKind::TooLong => f.write_str("a key, number or name too long")?,
            PyErrorKind::BadEscape => f.write_str("an escape Python does not have")?,
            PyErrorKind::Truncated => f.write_str("the text ended inside the value")?,
        }
        write!(f, " at byte {} of the Python text", self.at)
    }
}

/// An open container.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    List,
    /// A tuple: how many items so far, and whether a comma came last.
    Tuple {
        items: u32,
        comma: bool,
    },
    Dict,
    /// A call's keyword arguments.
    Args,
}

/// What a token being read becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Value,
    Key,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// `arguments()` before its first byte: the object begins.
    StartArgs,
    /// A value is next.
    Value,
    /// After `[` or `(`: a value or the closer.
    ValueOrEnd,
    /// After `{` or a comma in a dict: a key or `}`.
    KeyOrEnd,
    /// After a key: `:`.
    Colon,
    /// After an item: `,` or the closer.
    Next,
    /// In arguments: a name, or `)`.
    ArgOrEnd,
    /// Reading an argument's name.
    InArgName,
    /// After an argument's name: `=`.
    ArgEquals,
    /// A word (`True`, a string prefix, a name) in `held`.
    InWord(Role),
    /// A number in `held`.
    InNumber(Role),
    /// After one or two quotes: an empty string, a triple quote, or text.
    Opening(Role, Opening),
    /// Inside a string, whose state is [`PyReader::string`] (out of the
    /// state, so that a run of text writes nothing back).
    InString(Role),
    Done,
    Failed,
}

/// Reads one Python literal, or a call's keyword arguments, from text
/// given in pieces.
#[derive(Debug, Clone)]
pub struct PyReader {
    state: State,
    stack: Vec<Frame>,
    /// The key, number, word or argument name being read (held whole), or
    /// a dict key string's text.
    /// The open string, in [`State::InString`].
    string: Str,
    held: String,
    /// White space after an argument's name, before its `=`: given back
    /// with the name when no `=` follows.
    gap: String,
    /// Bytes of the text read before the current piece.
    offset: u64,
    max_depth: usize,
    max_held: usize,
}

/// Python's white space between tokens (inside brackets, line ends too).
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c')
}

/// A Python name's first byte (non-ASCII too); function names in calls
/// begin the same way (`json::calls`).
pub(crate) fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b >= 0x80
}

fn is_name_byte(b: u8) -> bool {
    is_name_start(b) || b.is_ascii_digit()
}

fn is_number_start(b: u8) -> bool {
    b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.')
}

impl Stepper for PyReader {
    type Kind = PyErrorKind;

    fn is_done(&self) -> bool {
        // `matches!`, not the derived `PartialEq`: this runs once a step.
        matches!(self.state, State::Done)
    }

    fn steps_without_bytes(&self) -> bool {
        matches!(self.state, State::StartArgs)
    }

    fn step(
        &mut self,
        text: &str,
        at: usize,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<usize, PyErrorKind> {
        self.read_step(text, at, sink)
    }

    fn fail(&mut self) {
        self.state = State::Failed;
    }

    /// Text of a value string (a key's is held) with nothing pending and
    /// no byte that ends a run (see [`Str::takes_plain`]).
    #[inline(always)]
    fn takes_plain_string(&self, bytes: &[u8]) -> bool {
        matches!(self.state, State::InString(Role::Value)) && self.string.takes_plain(bytes)
    }

    fn nesting(&self) -> Nesting {
        Nesting {
            open: self
                .stack
                .iter()
                .map(|f| match f {
                    Frame::List => b'[',
                    Frame::Tuple { .. } | Frame::Args => b'(',
                    Frame::Dict => b'{',
                })
                .collect(),
            quote: match self.state {
                State::InString(_) | State::Opening(..) => Some(self.string.quote()),
                _ => None,
            },
        }
    }

    fn unread(&self) -> String {
        match self.state {
            State::InArgName | State::InWord(_) | State::InNumber(_) => self.held.clone(),
            State::ArgEquals => format!("{}{}", self.held, self.gap),
            State::InString(_) => self.string.unread().to_owned(),
            _ => String::new(),
        }
    }

    fn offset_mut(&mut self) -> &mut u64 {
        &mut self.offset
    }
}

impl PyReader {
    /// A reader of one literal.
    pub fn value(max_depth: usize, max_held: usize) -> PyReader {
        PyReader {
            state: State::Value,
            stack: Vec::new(),
            held: String::new(),
            gap: String::new(),
            string: Str::new(b'"', false),
            offset: 0,
            max_depth,
            max_held,
        }
    }

    /// A reader of a call's keyword arguments, from after its `(` through
    /// its `)`, as one object (`a=1, b='x')` is `{"a": 1, "b": "x"}`).
    pub fn arguments(max_depth: usize, max_held: usize) -> PyReader {
        PyReader {
            state: State::StartArgs,
            stack: vec![Frame::Args],
            ..PyReader::value(max_depth, max_held)
        }
    }

    /// How many bytes of the text have been read.
    pub(crate) fn offset(&self) -> u64 {
        self.offset
    }

    /// Reads `text`, giving each event to `sink`. After an error, or once
    /// the value is done, nothing more is read.
    pub fn feed(
        &mut self,
        text: &str,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<Fed, PyError> {
        self.feed_until(text, &mut |event, _| {
            sink(event);
            false
        })
    }

    /// As the JSON reader's `feed_until`: the sink may ask to pause after
    /// an event's bytes, and is given where the step that made it began.
    pub fn feed_until(
        &mut self,
        text: &str,
        sink: &mut impl FnMut(JsonEvent<'_>, u64) -> bool,
    ) -> Result<Fed, PyError> {
        feed_until(self, text, sink).map_err(|(kind, at, ..)| PyError { kind, at })
    }

    /// The text has ended: a number or word at the top level ends with
    /// it; any other unfinished value is [`PyErrorKind::Truncated`].
    pub fn finish(&mut self, sink: &mut impl FnMut(JsonEvent<'_>)) -> Result<(), PyError> {
        let at_top = self.stack.is_empty();
        let ended = match self.state {
            State::Done => Ok(()),
            State::InNumber(Role::Value) | State::InWord(Role::Value) if at_top => {
                // The end of the text ends the token, as a space would.
                self.read_step(" ", 0, sink).map(|_| ())
            }
            State::Opening(Role::Value, Opening::Two(_)) if at_top => {
                sink(JsonEvent::BeginString);
                sink(JsonEvent::EndString);
                self.state = State::Done;
                Ok(())
            }
            _ => Err(PyErrorKind::Truncated),
        };
        ended.map_err(|kind| {
            self.state = State::Failed;
            PyError {
                kind,
                at: self.offset,
            }
        })
    }

    /// One step from `at`; where the next begins.
    fn read_step(
        &mut self,
        text: &str,
        at: usize,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<usize, PyErrorKind> {
        if let State::InString(role) = self.state {
            return self.in_string(role, text, at, sink);
        }
        if matches!(self.state, State::StartArgs) {
            sink(JsonEvent::BeginObject);
            self.state = State::ArgOrEnd;
            return Ok(at);
        }
        let b = text.as_bytes()[at];
        match self.state {
            State::Value => self.begin_value(Role::Value, text, at, sink),
            State::ValueOrEnd => {
                if is_space(b) {
                    return Ok(at + 1);
                }
                if self.closes(b) {
                    return self.close(text, at, sink);
                }
                self.state = State::Value;
                Ok(at)
            }
            State::KeyOrEnd => {
                if is_space(b) {
                    Ok(at + 1)
                } else if b == b'}' {
                    self.close(text, at, sink)
                } else {
                    self.begin_value(Role::Key, text, at, sink)
                }
            }
            State::Colon => match b {
                _ if is_space(b) => Ok(at + 1),
                b':' => {
                    self.state = State::Value;
                    Ok(at + 1)
                }
                _ => Err(PyErrorKind::Unexpected(char_at(text, at))),
            },
            State::Next => self.next(text, at, sink),
            State::ArgOrEnd => match b {
                _ if is_space(b) => Ok(at + 1),
                b')' => self.close(text, at, sink),
                _ if is_name_start(b) => {
                    self.held.clear();
                    self.gap.clear();
                    self.state = State::InArgName;
                    Ok(at)
                }
                b'*' => Err(PyErrorKind::NotALiteral("*".to_owned())),
                _ => Err(PyErrorKind::Positional),
            },
            State::InArgName => {
                let end = text.as_bytes()[at..]
                    .iter()
                    .position(|&b| !is_name_byte(b))
                    .map_or(text.len(), |n| at + n);
                let taken = self.hold_run(&text[at..end])?;
                // The name's end makes no event: it may be decided in the
                // step that read the name.
                if at + taken == end && end < text.len() {
                    self.state = State::ArgEquals;
                }
                Ok(at + taken)
            }
            State::ArgEquals => match b {
                _ if is_space(b) => {
                    if self.held.len() + self.gap.len() >= self.max_held {
                        return Err(PyErrorKind::TooLong);
                    }
                    self.gap.push(char::from(b));
                    Ok(at + 1)
                }
                b'=' => {
                    sink(JsonEvent::Key(&self.held));
                    self.state = State::Value;
                    Ok(at + 1)
                }
                // `f(x)`, `f(x, …)`: a name passed as a positional argument.
                _ => Err(PyErrorKind::NotALiteral(self.held.clone())),
            },
            State::InWord(role) => self.in_word(role, text, at, sink),
            State::InNumber(role) => self.in_number(role, text, at, sink),
            State::Opening(role, opening) => self.opening(role, opening, text, at, sink),
            State::InString(..) | State::StartArgs | State::Done | State::Failed => Ok(text.len()),
        }
    }

    /// The first byte of a value (or of a dict key).
    fn begin_value(
        &mut self,
        role: Role,
        text: &str,
        at: usize,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<usize, PyErrorKind> {
        let b = text.as_bytes()[at];
        if is_space(b) {
            return Ok(at + 1);
        }
        match b {
            b'[' | b'(' | b'{' if role == Role::Value => {
                if self.stack.len() >= self.max_depth {
                    return Err(PyErrorKind::TooDeep);
                }
                let (frame, event, state) = match b {
                    b'[' => (Frame::List, JsonEvent::BeginArray, State::ValueOrEnd),
                    b'(' => (
                        Frame::Tuple {
                            items: 0,
                            comma: false,
                        },
                        JsonEvent::BeginArray,
                        State::ValueOrEnd,
                    ),
                    _ => (Frame::Dict, JsonEvent::BeginObject, State::KeyOrEnd),
                };
                self.stack.push(frame);
                sink(event);
                self.state = state;
                Ok(at + 1)
            }
            b'\'' | b'"' => {
                self.held.clear();
                self.state = State::Opening(role, Opening::One(Str::new(b, false)));
                Ok(at + 1)
            }
            _ if is_number_start(b) => {
                self.held.clear();
                self.state = State::InNumber(role);
                Ok(at)
            }
            _ if is_name_start(b) => {
                self.held.clear();
                self.state = State::InWord(role);
                Ok(at)
            }
            _ => Err(PyErrorKind::Unexpected(char_at(text, at))),
        }
    }

    /// Holds what fits of a run under the bound; how much (see
    /// `json::hold_run`): a token's end is decided in a step that starts
    /// at the byte after it, wherever the pieces were cut.
    /// A dict key string's text, held whole.
    fn hold(&mut self, text: &str) -> Result<(), PyErrorKind> {
        if self.held.len() + text.len() > self.max_held {
            return Err(PyErrorKind::TooLong);
        }
        self.held.push_str(text);
        Ok(())
    }

    fn hold_run(&mut self, text: &str) -> Result<usize, PyErrorKind> {
        super::hold_run(&mut self.held, self.max_held, text).ok_or(PyErrorKind::TooLong)
    }

    /// A word: `True`, `False`, `None`, a string prefix before its quote,
    /// or a name (an error).
    fn in_word(
        &mut self,
        role: Role,
        text: &str,
        at: usize,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<usize, PyErrorKind> {
        let end = text.as_bytes()[at..]
            .iter()
            .position(|&b| !is_name_byte(b))
            .map_or(text.len(), |n| at + n);
        let taken = self.hold_run(&text[at..end])?;
        if taken > 0 {
            return Ok(at + taken);
        }
        let next = text.as_bytes()[end];
        if matches!(next, b'\'' | b'"') {
            // `r'…'` is raw, `u'…'` is plain; bytes and f-strings are not
            // text literals.
            let raw = match self.held.as_str() {
                "r" | "R" => true,
                "u" | "U" => false,
                _ => return Err(PyErrorKind::NotALiteral(self.held.clone())),
            };
            self.held.clear();
            self.state = State::Opening(role, Opening::One(Str::new(next, raw)));
            return Ok(end + 1);
        }
        let (event, key) = match self.held.as_str() {
            "True" => (JsonEvent::Bool(true), "true"),
            "False" => (JsonEvent::Bool(false), "false"),
            "None" => (JsonEvent::Null, "null"),
            // Models mix JSON into Python (vLLM's pythonic parsers read it
            // too): read, and reported.
            "true" | "false" | "null" => {
                sink(JsonEvent::Lenient(Leniency::JsonWord));
                match self.held.as_str() {
                    "true" => (JsonEvent::Bool(true), "true"),
                    "false" => (JsonEvent::Bool(false), "false"),
                    _ => (JsonEvent::Null, "null"),
                }
            }
            _ => return Err(PyErrorKind::NotALiteral(self.held.clone())),
        };
        match role {
            Role::Value => {
                sink(event);
                self.after_value();
            }
            Role::Key => {
                sink(JsonEvent::Key(key));
                self.state = State::Colon;
            }
        }
        Ok(end)
    }

    fn in_number(
        &mut self,
        role: Role,
        text: &str,
        at: usize,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<usize, PyErrorKind> {
        let bytes = text.as_bytes();
        let mut end = at;
        while end < bytes.len() {
            let b = bytes[end];
            let last = if end > at {
                Some(bytes[end - 1])
            } else {
                self.held.as_bytes().last().copied()
            };
            // A sign starts the number, or follows a decimal exponent's `e`.
            let sign_ok = matches!(b, b'-' | b'+')
                && (last.is_none()
                    || matches!(last, Some(b'e' | b'E')) && !self.held_is_radix(&text[at..end]));
            if !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.') || sign_ok) {
                break;
            }
            end += 1;
        }
        let taken = self.hold_run(&text[at..end])?;
        if taken > 0 {
            return Ok(at + taken);
        }
        let Some(number) = json_number(&self.held) else {
            return Err(PyErrorKind::NotALiteral(self.held.clone()));
        };
        match role {
            Role::Value => {
                if in_json_range(&number) {
                    sink(JsonEvent::Number(&number));
                } else {
                    // Python would make `1e999` an infinity, which no JSON
                    // holds: the text as written, as a string (reported).
                    sink(JsonEvent::Lenient(Leniency::NumberOutOfRange));
                    sink(JsonEvent::BeginString);
                    sink(JsonEvent::Text(&self.held));
                    sink(JsonEvent::EndString);
                }
                self.after_value();
            }
            Role::Key => {
                sink(JsonEvent::Key(&number));
                self.state = State::Colon;
            }
        }
        Ok(end)
    }

    /// Whether the number so far (held, then `more`) has a `0x`, `0o` or
    /// `0b` prefix, where `e` is a digit and no sign follows it.
    fn held_is_radix(&self, more: &str) -> bool {
        let mut start = self.held.bytes().chain(more.bytes());
        let first = start.next();
        let first = if matches!(first, Some(b'-' | b'+')) {
            start.next()
        } else {
            first
        };
        first == Some(b'0') && matches!(start.next(), Some(b'x' | b'X' | b'o' | b'O' | b'b' | b'B'))
    }

    /// After an item: `,` or the container's closer.
    fn next(
        &mut self,
        text: &str,
        at: usize,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<usize, PyErrorKind> {
        let b = text.as_bytes()[at];
        if is_space(b) {
            return Ok(at + 1);
        }
        if b == b',' {
            self.state = match self.stack.last_mut() {
                Some(Frame::Tuple { comma, .. }) => {
                    *comma = true;
                    State::ValueOrEnd
                }
                Some(Frame::List) => State::ValueOrEnd,
                Some(Frame::Dict) => State::KeyOrEnd,
                Some(Frame::Args) => State::ArgOrEnd,
                None => return Err(PyErrorKind::Unexpected(',')),
            };
            return Ok(at + 1);
        }
        if self.closes(b) {
            return self.close(text, at, sink);
        }
        Err(PyErrorKind::Unexpected(char_at(text, at)))
    }

    /// Whether `b` closes the innermost container.
    fn closes(&self, b: u8) -> bool {
        matches!(
            (self.stack.last(), b),
            (Some(Frame::List), b']')
                | (Some(Frame::Tuple { .. } | Frame::Args), b')')
                | (Some(Frame::Dict), b'}')
        )
    }

    /// The closer at `at` ends the innermost container.
    fn close(
        &mut self,
        text: &str,
        at: usize,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<usize, PyErrorKind> {
        if !self.closes(text.as_bytes()[at]) {
            return Err(PyErrorKind::Unexpected(char_at(text, at)));
        }
        match self.stack.pop() {
            Some(Frame::Tuple {
                items: 1,
                comma: false,
            }) => return Err(PyErrorKind::Parenthesized),
            Some(Frame::List | Frame::Tuple { .. }) => sink(JsonEvent::EndArray),
            Some(Frame::Dict | Frame::Args) => sink(JsonEvent::EndObject),
            None => {}
        }
        self.after_value();
        Ok(at + 1)
    }

    /// A value (or container) ended: what comes next.
    fn after_value(&mut self) {
        self.state = match self.stack.last_mut() {
            None => State::Done,
            Some(Frame::Tuple { items, comma }) => {
                *items = items.saturating_add(1);
                *comma = false;
                State::Next
            }
            Some(_) => State::Next,
        };
    }
}
