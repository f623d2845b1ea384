//! A first, borrowed look at an upstream chunk's JSON, for
//! [`Rewriter::push_json`](crate::openai::Rewriter::push_json): most chunks
//! of a stream carry nothing but a few bytes of one choice's text, and
//! decoding them whole (every string owned, unknown fields in maps) and
//! writing them back costs more than the parse of that text.
//!
//! It checks what decoding into a
//! [`ChatCompletionChunk`](crate::openai::ChatCompletionChunk) checks (the
//! required fields, their types, no known field twice), so that it takes
//! no chunk the full decode would refuse; anything it does not take goes
//! the full way.
//!
//! Two readers give the same [`Look`]: `scan.rs` reads the common chunk by
//! hand, `visit.rs` reads any chunk through serde's visitors.

mod scan;
mod visit;

use std::borrow::Cow;
use std::ops::Range;

use scan::scan;
pub(crate) use scan::Frame;
use visit::look_serde;

/// What the look found.
pub(crate) enum Look<'a> {
    /// An upstream error event: a chunk with an `error` field.
    Error,
    /// One choice's text, without a `finish_reason`, in a chunk without
    /// usage or tool calls: the only kind the rewrite may leave as it came.
    Text {
        index: usize,
        content: Cow<'a, str>,
        /// Where the content's JSON string is in the chunk's JSON: another
        /// text can take its place.
        span: Range<usize>,
        /// The choice carries more than its text (a role, reasoning,
        /// logprobs, fields this crate does not know): it is sent even when
        /// its text is held.
        other: bool,
        /// The delta has a `tool_calls` key (`null`): calls made of the
        /// text cannot be written beside the text as a key of their own.
        calls_key: bool,
    },
    /// Anything else: for the full decode.
    Other,
}

/// `None` when the look cannot tell (not a chunk, or not one it reads):
/// the full decode decides.
pub(crate) fn look(json: &str) -> Option<Look<'_>> {
    // The common chunk, read by hand; the rest through serde.
    scan(json).or_else(|| look_serde(json))
}

/// Text, borrowed from the JSON when it has no escapes.
#[derive(serde::Deserialize)]
pub(crate) struct Text<'a>(#[serde(borrow)] pub(crate) Cow<'a, str>);
