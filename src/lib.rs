//! Streaming, split-invariant parsing of LLM tool calls.
//!
//! Models write tool calls as text: Qwen3-Coder, for one, writes
//! `<tool_call><function=NAME><parameter=KEY>VALUE</parameter></function>`
//! `</tool_call>`, GLM-4.5 `<tool_call>NAME<arg_key>KEY</arg_key>`
//! `<arg_value>VALUE</arg_value></tool_call>`. This crate turns that text
//! into OpenAI-style tool calls while it streams: feed the chunks as they
//! arrive, get content, call starts, argument fragments and call ends back
//! at once, as an iterator ([`Parser::feed`]) or pushed to a closure
//! without copies ([`Parser::feed_with`]).
//!
//! * **One engine.** A byte-level state machine with markers found by
//!   `memchr` and aho-corasick; no regex, no re-scan of consumed bytes, time
//!   linear in the input whatever the chunk sizes. Every [`Format`] is a
//!   description the engine reads; [`parse`] is the same engine fed once.
//! * **Split invariance.** Any split of the input into chunks, down to
//!   single bytes and through UTF-8 characters, gives the same events once
//!   [coalesced](coalesce).
//! * **Never fails.** Malformed output is recovered where it can be and
//!   reported with a [diagnostic](DiagnosticKind); text that is not a call
//!   comes back as content; a call cut off by the end of the stream is
//!   marked incomplete.
//! * **OpenAI on the wire.** [`openai::ChunkEncoder`] turns the events into
//!   `chat.completion.chunk`s, [`Message::to_chat_completion`] a message
//!   into a `chat.completion`.
//!
//! # Example: streaming
//! ```
//! use toolcall_stream::{Event, Format, Parser};
//!
//! let mut parser = Parser::new(Format::Qwen3Coder);
//! let chunks = ["Let me look.\n<tool_", "call>\n<function=read_file>\n",
//!               "<parameter=path>\nsrc/main.rs\n</parameter>\n</function>\n</tool_call>"];
//! let mut seen = Vec::new();
//! for chunk in chunks {
//!     seen.extend(parser.feed(chunk).map(Event::into_owned));
//! }
//! seen.extend(parser.finish().map(Event::into_owned));
//! let json: Vec<String> =
//!     seen.iter().map(|e| serde_json::to_string(e).unwrap()).collect();
//! assert_eq!(json[0], r#"{"type":"content","text":"Let me look.\n"}"#);
//! assert!(json.last().unwrap().contains(r#""arguments":"{\"path\": \"src/main.rs\"}""#));
//! ```
//!
//! # Example: a whole output
//! ```
//! use toolcall_stream::{parse, DiagnosticKind, Format};
//!
//! // No `</parameter>`: recovered, and reported.
//! let message = parse(Format::Qwen3Coder,
//!     "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</function>\n</tool_call>");
//! assert_eq!(message.tool_calls[0].name, "get_weather");
//! assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris"}"#);
//! assert_eq!(message.diagnostics[0].kind, DiagnosticKind::UnclosedParameter);
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![deny(rustdoc::broken_intra_doc_links)]

mod constraint;
mod engine;
mod event;
mod format;
mod gate;
mod ids;
mod json;
mod message;
pub mod openai;
mod options;
mod parser;
mod partial;
pub mod schema;
mod sink;
#[cfg(feature = "stream")]
pub mod stream;
mod tools;

#[doc(hidden)]
pub use constraint::lark_of_gbnf;
pub use constraint::{
    Constraint, ConstraintError, ConstraintMode, Dialect, UnknownConstraintOption,
};
pub use event::{coalesce, DiagnosticKind, Event, OwnedEvent, Span};
#[cfg(feature = "toml")]
pub use format::FormatFileError;
pub use format::{
    CallSyntax, CustomFormat, DescriptionError, ElementValue, Format, FormatBuilder, NameEnd,
    Recovery, ResponseTemplateError, Role, UnknownFormat, UnknownModel, UnknownRole,
};
pub use ids::{IdStyle, Ids, UnknownIds};
pub use message::{CallDetails, Diagnostic, Message, MessageBuilder, ToolCall};
pub use options::{Limits, Reasoning, ValueTermination};
pub use parser::{Parser, ParserBuilder};
pub use partial::PartialCall;
pub use schema::{TypeSet, Typing, UnknownTyping};
pub use sink::Events;
#[cfg(feature = "stream")]
pub use stream::ToolCallStreamExt;
pub use tools::{Tools, ToolsError};

/// Parses a whole model output with default options: the same engine as
/// streaming, fed once.
///
/// # Example
/// ```
/// use toolcall_stream::{parse, Format};
/// let message = parse(Format::Qwen3Coder, "No tools needed.");
/// assert_eq!(message.content.as_deref(), Some("No tools needed."));
/// assert!(message.tool_calls.is_empty());
/// ```
pub fn parse(format: Format, input: impl AsRef<[u8]>) -> Message {
    Parser::new(format).parse(input)
}

// The README's examples are compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

// So are the reference's.
#[cfg(doctest)]
#[doc = include_str!("../docs/reasoning.md")]
struct ReasoningDoctests;

#[cfg(doctest)]
#[doc = include_str!("../docs/custom-formats.md")]
struct CustomFormatsDoctests;

#[cfg(doctest)]
#[doc = include_str!("../docs/auto.md")]
struct AutoDoctests;

#[cfg(doctest)]
#[doc = include_str!("../docs/formats/bare_json.md")]
struct BareJsonDoctests;

#[cfg(doctest)]
#[doc = include_str!("../docs/events.md")]
struct EventsDoctests;

#[cfg(doctest)]
#[doc = include_str!("../docs/typed-arguments.md")]
struct TypedArgumentsDoctests;

#[cfg(doctest)]
#[doc = include_str!("../docs/openai.md")]
struct OpenAiDoctests;

// Its examples are `ignore`d here: the same code runs as the doctest of
// `ToolCallStreamExt`, with `--features stream`.
#[cfg(doctest)]
#[doc = include_str!("../docs/streams.md")]
struct StreamsDoctests;

#[cfg(doctest)]
#[doc = include_str!("../docs/limits.md")]
struct LimitsDoctests;

#[cfg(doctest)]
#[doc = include_str!("../docs/models.md")]
struct ModelsDoctests;

#[cfg(doctest)]
#[doc = include_str!("../docs/constraints.md")]
struct ConstraintsDoctests;
