//! Calls written in a call syntax of their own, read as the events of JSON
//! call bodies, so that the engine's body reader (which holds a body until
//! its name, streams its arguments, and returns what is not a call as
//! content) reads them as it reads JSON ones:
//!
//! ```text
//! [get_weather(city='Paris'), get_time()]      Python call syntax, a list
//! get_weather(city="Paris")                     one call, no list
//! call:get_weather{city:<|"|>Paris<|"|>}        Gemma's object syntax
//! ```
//!
//! `NAME(args)` is given as `{"name": "NAME", "arguments": {args}}`, and a
//! list of calls as a JSON list of them. The arguments are read by the
//! syntax's own reader (Python keyword arguments, Gemma's object), which
//! starts at the byte that opens them. Brackets and commas between calls
//! are structure; a `]` or `,` inside a string is the arguments reader's.

use super::python::is_name_start;
use super::reader::JsonEvent;
use super::stepper::{Nesting, Stepper};
use super::{char_at, is_json_space};

/// The keys a call is given under, for the body reader.
pub(crate) const NAME_KEY: &str = "name";
pub(crate) const ARGUMENTS_KEY: &str = "arguments";
/// The key a call's id is given under, before its name (the element
/// syntax's id attribute).
pub(crate) const ID_KEY: &str = "id";
/// The arguments keys a call-syntax format's bodies are read with: its own,
/// and `parameters`, for a JSON call written instead (Llama 4's template
/// says `parameters`).
pub(crate) const ARGUMENTS_KEYS: &[&str] = &[ARGUMENTS_KEY, "parameters"];

/// Why the text is not calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CallsErrorKind<K> {
    /// A byte (shown as a char) that cannot come there.
    Unexpected(char),
    /// A function name longer than the limit.
    NameTooLong,
    /// The arguments reader's error.
    Args(K),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before the first call, or a list's `[`.
    Start,
    /// In a list, after `[` or a comma: a call or `]`.
    Element,
    /// This many bytes of the prefix (`call:`) were read.
    Prefix(usize),
    /// Reading the name.
    Name,
    /// After the name and whitespace: the arguments' opener.
    NameEnd,
    /// Inside the arguments.
    Args,
    /// After a call in a list: `,` or `]`.
    Next,
    Done,
    Failed,
}

/// How a syntax writes one call.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CallShape {
    /// Written before every name (Gemma's `call:`), or empty.
    pub prefix: &'static str,
    /// The byte that ends the name and opens the arguments (`(`, `{`).
    pub open: u8,
    /// Whether the opener is the arguments reader's own first byte (`{`),
    /// rather than read here (`(`).
    pub open_is_args: bool,
    /// Whether a `[` list of calls may stand for one.
    pub list: bool,
}

/// Reads calls, each with a fresh copy of `template` for its arguments.
#[derive(Debug, Clone)]
pub(crate) struct Calls<R> {
    state: State,
    shape: CallShape,
    template: R,
    args: R,
    in_list: bool,
    name: String,
    max_name: usize,
    offset: u64,
}

/// Names hold `.` and `-` too, as tool names do (`web.search`).
fn is_name_byte(b: u8) -> bool {
    is_name_start(b) || b.is_ascii_digit() || b == b'.' || b == b'-'
}

impl<R: Stepper + Clone> Calls<R> {
    /// A reader of calls of `shape`, whose arguments `template` reads.
    pub(crate) fn new(shape: CallShape, template: R, max_name: usize) -> Calls<R> {
        Calls {
            state: State::Start,
            shape,
            args: template.clone(),
            template,
            in_list: false,
            name: String::new(),
            max_name,
            offset: 0,
        }
    }

    /// How many bytes of the text have been read.
    pub(crate) fn offset(&self) -> u64 {
        self.offset
    }

    /// Whether the calls ended.
    pub(crate) fn finished(&self) -> bool {
        matches!(self.state, State::Done)
    }

    fn unexpected(text: &str, at: usize) -> CallsErrorKind<R::Kind> {
        CallsErrorKind::Unexpected(char_at(text, at))
    }

    /// The first byte of a call: its prefix, or its name.
    fn begin_call(&mut self, text: &str, at: usize) -> Result<usize, CallsErrorKind<R::Kind>> {
        let b = text.as_bytes()[at];
        self.name.clear();
        if !self.shape.prefix.is_empty() {
            self.state = State::Prefix(0);
            return Ok(at);
        }
        if !is_name_start(b) {
            return Err(Self::unexpected(text, at));
        }
        self.state = State::Name;
        Ok(at)
    }

    /// The name ended at the arguments' opener: the call object begins.
    fn open_args(
        &mut self,
        at: usize,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<usize, CallsErrorKind<R::Kind>> {
        sink(JsonEvent::BeginObject);
        sink(JsonEvent::Key(NAME_KEY));
        sink(JsonEvent::BeginString);
        sink(JsonEvent::Text(&self.name));
        sink(JsonEvent::EndString);
        sink(JsonEvent::Key(ARGUMENTS_KEY));
        self.args = self.template.clone();
        self.state = State::Args;
        Ok(if self.shape.open_is_args { at } else { at + 1 })
    }

    /// The arguments ended: so did the call, and, outside a list, the
    /// calls.
    fn close_call(&mut self, sink: &mut impl FnMut(JsonEvent<'_>)) {
        sink(JsonEvent::EndObject);
        self.state = if self.in_list {
            State::Next
        } else {
            State::Done
        };
    }

    fn read_step(
        &mut self,
        text: &str,
        at: usize,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<usize, CallsErrorKind<R::Kind>> {
        if matches!(self.state, State::Args) {
            // The call closes in the step that ends its arguments.
            let next = self
                .args
                .step(text, at, sink)
                .map_err(CallsErrorKind::Args)?;
            if self.args.is_done() {
                self.close_call(sink);
            }
            return Ok(next);
        }
        let b = text.as_bytes()[at];
        match self.state {
            State::Start if is_json_space(b) => Ok(at + 1),
            State::Start if b == b'[' && self.shape.list => {
                sink(JsonEvent::BeginArray);
                self.in_list = true;
                self.state = State::Element;
                Ok(at + 1)
            }
            State::Start => self.begin_call(text, at),
            State::Element if is_json_space(b) => Ok(at + 1),
            State::Element if b == b']' => {
                sink(JsonEvent::EndArray);
                self.state = State::Done;
                Ok(at + 1)
            }
            State::Element => self.begin_call(text, at),
            State::Prefix(k) => {
                let prefix = self.shape.prefix.as_bytes();
                if b != prefix[k] {
                    return Err(Self::unexpected(text, at));
                }
                self.state = if k + 1 == prefix.len() {
                    State::Name
                } else {
                    State::Prefix(k + 1)
                };
                Ok(at + 1)
            }
            State::Name => {
                let bytes = text.as_bytes();
                let run = bytes[at..]
                    .iter()
                    .position(|&c| !is_name_byte(c))
                    .unwrap_or(bytes.len() - at);
                if run > 0 {
                    if self.name.is_empty() && !is_name_start(b) {
                        return Err(Self::unexpected(text, at));
                    }
                    // The byte past the bound is the error, wherever the
                    // pieces were cut.
                    if self.name.len() >= self.max_name {
                        return Err(CallsErrorKind::NameTooLong);
                    }
                    let mut take = run.min(self.max_name - self.name.len());
                    while !text.is_char_boundary(at + take) {
                        take += 1;
                    }
                    self.name.push_str(&text[at..at + take]);
                    // The name's end makes no event: it may be decided in
                    // the step that read the name.
                    if take == run && at + run < bytes.len() {
                        self.state = State::NameEnd;
                    }
                    return Ok(at + take);
                }
                if self.name.is_empty() {
                    return Err(Self::unexpected(text, at));
                }
                self.state = State::NameEnd;
                Ok(at)
            }
            State::NameEnd if b == self.shape.open => self.open_args(at, sink),
            State::NameEnd if b == b' ' || b == b'\t' => Ok(at + 1),
            State::Next if is_json_space(b) => Ok(at + 1),
            State::Next if b == b',' => {
                self.state = State::Element;
                Ok(at + 1)
            }
            State::Next if b == b']' => {
                sink(JsonEvent::EndArray);
                self.state = State::Done;
                Ok(at + 1)
            }
            _ => Err(Self::unexpected(text, at)),
        }
    }
}

impl<R: Stepper + Clone> Stepper for Calls<R> {
    type Kind = CallsErrorKind<R::Kind>;

    fn is_done(&self) -> bool {
        matches!(self.state, State::Done)
    }

    fn steps_without_bytes(&self) -> bool {
        // The arguments reader may open its object before a byte.
        matches!(self.state, State::Args) && self.args.steps_without_bytes()
    }

    fn step(
        &mut self,
        text: &str,
        at: usize,
        sink: &mut impl FnMut(JsonEvent<'_>),
    ) -> Result<usize, Self::Kind> {
        self.read_step(text, at, sink)
    }

    fn fail(&mut self) {
        self.state = State::Failed;
    }

    fn unread(&self) -> String {
        match self.state {
            State::Args => self.args.unread(),
            _ => String::new(),
        }
    }

    fn nesting(&self) -> Nesting {
        let mut nesting = match self.state {
            State::Args => self.args.nesting(),
            _ => Nesting::default(),
        };
        if self.in_list {
            nesting.open.insert(0, b'[');
        }
        nesting
    }

    fn offset_mut(&mut self) -> &mut u64 {
        &mut self.offset
    }

    /// Text of a string in the arguments, as their reader says. Reading it
    /// moves only this offset (the default `read_plain_string`): the
    /// arguments reader is stepped here, which leaves its own as it is.
    #[inline(always)]
    fn takes_plain_string(&self, bytes: &[u8]) -> bool {
        matches!(self.state, State::Args) && self.args.takes_plain_string(bytes)
    }
}

#[cfg(test)]
mod tests;
