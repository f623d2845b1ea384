//! The language a format writes its calls in, and one reader over the three
//! the engine has: JSON, Python call syntax, Gemma's object syntax. Each
//! gives the JSON reader's events, so that the engine reads the calls of
//! every syntax the same way.

use std::fmt;

use super::calls::{CallShape, Calls, CallsErrorKind};
use super::elements::{ElementsError, ElementsReader, Spelling};
use super::gemma::{GemmaError, GemmaReader};
use super::python::{PyError, PyReader};
use super::reader::{Fed, JsonError, JsonEvent, JsonReader};
use super::stepper::{feed_until, Nesting, Stepper};

/// How a format writes its calls' bodies and arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) enum Syntax {
    /// JSON objects (`{"name": …, "arguments": {…}}`).
    #[default]
    Json,
    /// Python calls, `NAME(key=literal, …)`, alone or in a `[…]` list.
    Python,
    /// Call bodies written as Python literals rather than JSON: a dict
    /// (`{'name': 'f', 'arguments': {'a': True}}`), or a list of them,
    /// read with the format's body keys (Sarashina).
    PythonLiteral,
    /// Gemma's `call:NAME{key:value,…}`, strings between two `delimiter`s.
    Gemma { delimiter: &'static str },
    /// Nested XML elements: `<invoke name="NAME">` holding one element per
    /// parameter, named by it, whose children make objects and arrays
    /// (`json::elements`).
    Elements(Spelling),
}

/// Nesting, and a key, number or name held whole: the bounds every reader
/// is built with (those of the JSON reader's default).
const MAX_DEPTH: usize = 128;
const MAX_HELD: usize = 4 << 10;

impl Syntax {
    /// Whether `b` may begin a call body of this syntax. `marked`: a marker
    /// opened the body; otherwise it opens the output or a line bare,
    /// where only a bracket or brace can (prose starts with a word).
    pub(crate) fn opens_body(self, b: u8, list: bool, marked: bool) -> bool {
        match self {
            Syntax::Json | Syntax::PythonLiteral => b == b'{' || (b == b'[' && list),
            // A JSON object too: Llama 4 falls back to JSON calls.
            Syntax::Python => b == b'[' || b == b'{' || (marked && super::python::is_name_start(b)),
            // Only `call:`: other text after the opener is prose that
            // mentions it, content (as for the JSON formats' openers).
            Syntax::Gemma { .. } => marked && b == b'c',
            Syntax::Elements(spelling) => marked && b == tag_start(spelling),
        }
    }

    /// Whether `b` may begin the next call after one: in a list, or in a
    /// wrapper that holds several.
    pub(crate) fn opens_element(self, b: u8) -> bool {
        match self {
            Syntax::Json | Syntax::PythonLiteral => b == b'{',
            Syntax::Python => super::python::is_name_start(b),
            Syntax::Gemma { .. } => b == b'c',
            Syntax::Elements(spelling) => b == tag_start(spelling),
        }
    }

    /// A reader of one body of this syntax.
    pub(crate) fn reader(self) -> SyntaxReader {
        match self {
            Syntax::Json => SyntaxReader::Json(JsonReader::default()),
            Syntax::PythonLiteral => {
                SyntaxReader::PythonLiteral(PyReader::value(MAX_DEPTH, MAX_HELD))
            }
            Syntax::Python => SyntaxReader::Python(Calls::new(
                CallShape {
                    prefix: "",
                    open: b'(',
                    open_is_args: false,
                    list: true,
                },
                PyReader::arguments(MAX_DEPTH, MAX_HELD),
                MAX_HELD,
            )),
            Syntax::Gemma { delimiter } => SyntaxReader::Gemma(Calls::new(
                CallShape {
                    prefix: "call:",
                    open: b'{',
                    open_is_args: true,
                    list: false,
                },
                GemmaReader::new(delimiter, MAX_DEPTH, MAX_HELD),
                MAX_HELD,
            )),
            Syntax::Elements(spelling) => {
                SyntaxReader::Elements(ElementsReader::new(spelling, MAX_DEPTH, MAX_HELD))
            }
        }
    }
}

/// The first byte of an element's tag: its prefix's, or `<`.
fn tag_start(spelling: Spelling) -> u8 {
    spelling.prefix.as_bytes().first().copied().unwrap_or(b'<')
}

/// A reader of one body (or arguments value) in a format's syntax.
#[derive(Debug, Clone)]
pub(crate) enum SyntaxReader {
    Json(JsonReader),
    Python(Calls<PyReader>),
    PythonLiteral(PyReader),
    Gemma(Calls<GemmaReader>),
    Elements(ElementsReader),
}

impl Default for SyntaxReader {
    fn default() -> Self {
        SyntaxReader::Json(JsonReader::default())
    }
}

/// Why a body is not valid in its syntax: what was wrong, and where (a
/// byte offset in the body's text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    pub at: u64,
    /// The text of the token the reader failed in, just before `at`,
    /// taken by earlier steps and not part of any event (see
    /// [`Stepper::unread`](super::stepper::Stepper::unread)).
    pub unread: String,
    /// What the reader had open there.
    pub nesting: Nesting,
    what: String,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.what)
    }
}

fn calls_error<K>(
    kind: CallsErrorKind<K>,
    at: u64,
    unread: String,
    nesting: Nesting,
    inner: impl FnOnce(K, u64) -> String,
) -> SyntaxError {
    let what = match kind {
        CallsErrorKind::Unexpected(c) => format!("unexpected {c:?} at byte {at} of the calls"),
        CallsErrorKind::NameTooLong => format!("a function name too long at byte {at}"),
        CallsErrorKind::Args(kind) => inner(kind, at),
    };
    SyntaxError {
        at,
        unread,
        nesting,
        what,
    }
}

impl SyntaxReader {
    /// Whether `bytes`, read next, are plain text of a value string: one
    /// `Text` event of themselves, and nothing else changed but the offset
    /// (see [`Stepper::takes_plain_string`]). Each reader answers for its
    /// own state.
    // Forced as `Engine::run` is: the check runs on every token of a
    // string; not in the browser package, whose size is budgeted.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    #[cfg_attr(target_arch = "wasm32", inline)]
    pub(crate) fn takes_plain_string(&self, bytes: &[u8]) -> bool {
        match self {
            SyntaxReader::Json(r) => r.takes_plain_string(bytes),
            SyntaxReader::Python(r) => r.takes_plain_string(bytes),
            SyntaxReader::PythonLiteral(r) => r.takes_plain_string(bytes),
            SyntaxReader::Gemma(r) => r.takes_plain_string(bytes),
            SyntaxReader::Elements(r) => r.takes_plain_string(bytes),
        }
    }

    /// Reads `len` bytes that [`takes_plain_string`](SyntaxReader::takes_plain_string)
    /// took, whose `Text` event the caller made.
    // (Forced as `takes_plain_string` is.)
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    #[cfg_attr(target_arch = "wasm32", inline)]
    pub(crate) fn read_plain_string(&mut self, len: usize) {
        match self {
            SyntaxReader::Json(r) => r.read_plain_string(len),
            SyntaxReader::Python(r) => r.read_plain_string(len),
            SyntaxReader::PythonLiteral(r) => r.read_plain_string(len),
            SyntaxReader::Gemma(r) => r.read_plain_string(len),
            SyntaxReader::Elements(r) => r.read_plain_string(len),
        }
    }

    /// How many bytes of the text have been read.
    pub(crate) fn offset(&self) -> u64 {
        match self {
            SyntaxReader::Json(r) => r.offset(),
            SyntaxReader::Python(r) => r.offset(),
            SyntaxReader::PythonLiteral(r) => r.offset(),
            SyntaxReader::Gemma(r) => r.offset(),
            SyntaxReader::Elements(r) => r.offset(),
        }
    }

    /// As [`JsonReader::feed_until`], in the reader's syntax.
    pub(crate) fn feed_until(
        &mut self,
        text: &str,
        sink: &mut impl FnMut(JsonEvent<'_>, u64) -> bool,
    ) -> Result<Fed, SyntaxError> {
        match self {
            SyntaxReader::Json(r) => {
                feed_until(r, text, sink).map_err(|(kind, at, unread, nesting)| SyntaxError {
                    what: JsonError { kind, at }.to_string(),
                    at,
                    unread,
                    nesting,
                })
            }
            SyntaxReader::Python(r) => {
                feed_until(r, text, sink).map_err(|(kind, at, unread, nesting)| {
                    calls_error(kind, at, unread, nesting, |kind, at| {
                        PyError { kind, at }.to_string()
                    })
                })
            }
            SyntaxReader::PythonLiteral(r) => {
                feed_until(r, text, sink).map_err(|(kind, at, unread, nesting)| SyntaxError {
                    what: PyError { kind, at }.to_string(),
                    at,
                    unread,
                    nesting,
                })
            }
            SyntaxReader::Gemma(r) => {
                feed_until(r, text, sink).map_err(|(kind, at, unread, nesting)| {
                    calls_error(kind, at, unread, nesting, |kind, at| {
                        GemmaError { kind, at }.to_string()
                    })
                })
            }
            SyntaxReader::Elements(r) => {
                feed_until(r, text, sink).map_err(|(kind, at, unread, nesting)| SyntaxError {
                    what: ElementsError { kind, at }.to_string(),
                    at,
                    unread,
                    nesting,
                })
            }
        }
    }

    /// The text has ended: whether the body had ended with it (a JSON
    /// number at the top level ends with the text).
    pub(crate) fn finish(&mut self) -> bool {
        match self {
            SyntaxReader::Json(r) => r.finish(&mut |_| {}).is_ok(),
            SyntaxReader::Python(r) => r.finished(),
            SyntaxReader::PythonLiteral(r) => r.finish(&mut |_| {}).is_ok(),
            SyntaxReader::Gemma(r) => r.finished(),
            SyntaxReader::Elements(r) => r.is_done(),
        }
    }
}
