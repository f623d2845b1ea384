//! Async streams (feature `stream`): the parser as an adapter over any
//! [`futures_core::Stream`] of byte chunks.
//!
//! [`ToolCallStreamExt::tool_calls`] turns a stream of model output into a
//! stream of [`OwnedEvent`]s, [`ToolCallStreamExt::chat_chunks`] into one of
//! OpenAI [`ChatCompletionChunk`](crate::openai::ChatCompletionChunk)s, and [`ChatChunks::sse`] those into
//! server-sent event frames. No runtime is assumed: the adapters only poll
//! the stream they wrap, so they run on tokio, async-std, smol or
//! `futures::executor` alike, and spawn nothing.
//!
//! **Item types.** The wrapped stream yields [`Chunk`]s (`String`, `&str`,
//! `Vec<u8>`, `&[u8]`, `Box<str>`, `Box<[u8]>`, `Cow<str>`, `Cow<[u8]>`,
//! `bytes::Bytes`, `bytes::BytesMut`, or a type of yours implementing
//! [`Chunk`]), or `Result`s of them. The adapters keep that shape: chunks
//! give plain items (`OwnedEvent`), results of chunks give results
//! (`Result<OwnedEvent, E>`).
//!
//! **Errors** from the wrapped stream. The event stream ([`ToolCalls`])
//! passes them through unchanged, in their place (every event of the
//! chunks before the error comes first), and goes on polling the wrapped
//! stream if polled again: whether an error ends its output is the
//! caller's decision. An OpenAI response cannot go on after an error, and
//! its client must learn that it was cut, so the chunk stream
//! ([`ChatChunks`]) ends at the first error: the parser is finished as at a
//! token limit, the last chunk says `finish_reason: "length"`, then comes
//! the error, and nothing after. The frames ([`SseFrames`]) end with an
//! OpenAI error event and `data: [DONE]` in its place. A clean end of the
//! wrapped stream finishes the parser and gives the last events (or the
//! last chunk, with `stop` or `tool_calls`).
//!
//! **Backpressure.** An adapter holds at most the events of one chunk (the
//! chunk stream: at most one chunk), and polls the wrapped stream only when
//! it has nothing left to yield: a slow consumer slows the producer, and
//! memory stays that of one chunk.
//!
//! **Drop.** Dropping an adapter mid-stream drops the wrapped stream and
//! the parser; nothing was spawned and no lock is held.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_core::stream::{FusedStream, Stream};
use pin_project_lite::pin_project;

use crate::event::OwnedEvent;
use crate::openai::CompletionMeta;
use crate::parser::Parser;

mod chat;

pub use chat::{ChatChunks, SseFrames};

/// A piece of model output: its bytes, which may end anywhere (inside a
/// marker or a UTF-8 character).
///
/// Implemented for the usual owned and borrowed byte and text types;
/// implement it for a buffer type of your own.
pub trait Chunk {
    /// The chunk's bytes.
    fn as_bytes(&self) -> &[u8];
}

impl Chunk for String {
    fn as_bytes(&self) -> &[u8] {
        str::as_bytes(self)
    }
}

impl Chunk for &str {
    fn as_bytes(&self) -> &[u8] {
        str::as_bytes(self)
    }
}

impl Chunk for Box<str> {
    fn as_bytes(&self) -> &[u8] {
        str::as_bytes(self)
    }
}

impl Chunk for Cow<'_, str> {
    fn as_bytes(&self) -> &[u8] {
        str::as_bytes(self)
    }
}

impl Chunk for Vec<u8> {
    fn as_bytes(&self) -> &[u8] {
        self
    }
}

impl Chunk for &[u8] {
    fn as_bytes(&self) -> &[u8] {
        self
    }
}

impl Chunk for Box<[u8]> {
    fn as_bytes(&self) -> &[u8] {
        self
    }
}

impl Chunk for Cow<'_, [u8]> {
    fn as_bytes(&self) -> &[u8] {
        self
    }
}

impl Chunk for bytes::Bytes {
    fn as_bytes(&self) -> &[u8] {
        self
    }
}

impl Chunk for bytes::BytesMut {
    fn as_bytes(&self) -> &[u8] {
        self
    }
}

/// What a stream adapted here may yield: a [`Chunk`], or a `Result` of one.
/// It says how an adapter's items look: `Output<T>` is `T` for a chunk and
/// `Result<T, E>` for a result, so an infallible stream gives plain items.
///
/// Implemented for every [`Chunk`] and every `Result<impl Chunk, E>`; not
/// meant to be implemented elsewhere.
pub trait ChunkItem: sealed::Sealed {
    /// The chunk type.
    type Chunk: Chunk;
    /// The error type: [`Infallible`] for a plain chunk.
    type Error;
    /// An adapter's item for a value of type `T`.
    type Output<T>;

    /// The chunk, or the error.
    fn into_result(self) -> Result<Self::Chunk, Self::Error>;
    /// A value or an error as an adapter's item.
    fn output<T>(result: Result<T, Self::Error>) -> Self::Output<T>;
}

impl<C: Chunk> ChunkItem for C {
    type Chunk = C;
    type Error = Infallible;
    type Output<T> = T;

    fn into_result(self) -> Result<C, Infallible> {
        Ok(self)
    }

    fn output<T>(result: Result<T, Infallible>) -> T {
        match result {
            Ok(value) => value,
            Err(never) => match never {},
        }
    }
}

impl<C: Chunk, E> ChunkItem for Result<C, E> {
    type Chunk = C;
    type Error = E;
    type Output<T> = Result<T, E>;

    fn into_result(self) -> Result<C, E> {
        self
    }

    fn output<T>(result: Result<T, E>) -> Result<T, E> {
        result
    }
}

mod sealed {
    pub trait Sealed {}
    impl<C: super::Chunk> Sealed for C {}
    impl<C: super::Chunk, E> Sealed for Result<C, E> {}
}

/// Parsing adapters for any [`Stream`] of model output chunks.
///
/// # Example
/// ```
/// use futures::executor::block_on;
/// use futures::stream::{self, StreamExt};
/// use toolcall_stream::stream::ToolCallStreamExt;
/// use toolcall_stream::{Format, OwnedEvent, Parser};
///
/// let output = stream::iter(["Checking.\n<tool_call>\n<function=get_wea",
///     "ther>\n<parameter=city>\nPar", "is\n</parameter>\n</function>\n</tool_call>"]);
/// let events: Vec<OwnedEvent> =
///     block_on(output.tool_calls(Parser::new(Format::Qwen3Coder)).collect());
/// assert_eq!(events[0], OwnedEvent::Content { text: "Checking.\n".into() });
/// assert!(matches!(&events[1], OwnedEvent::ToolCallStart { name, .. } if name == "get_weather"));
/// assert!(matches!(events.last(), Some(OwnedEvent::ToolCallEnd { complete: true, .. })));
///
/// // Results of chunks give results of events; an error comes through as it was.
/// let output = stream::iter([Ok("Hi"), Err("connection reset"), Ok(" there")]);
/// let items: Vec<Result<OwnedEvent, &str>> =
///     block_on(output.tool_calls(Parser::new(Format::Qwen3Coder)).collect());
/// assert_eq!(items, [Ok(OwnedEvent::Content { text: "Hi".into() }),
///                    Err("connection reset"),
///                    Ok(OwnedEvent::Content { text: " there".into() })]);
/// ```
///
/// As OpenAI server-sent events:
/// ```
/// use futures::executor::block_on;
/// use futures::stream::{self, StreamExt};
/// use toolcall_stream::openai::CompletionMeta;
/// use toolcall_stream::stream::ToolCallStreamExt;
/// use toolcall_stream::{Format, Parser};
///
/// let output = stream::iter(["<tool_call>\n<function=get_weather>\n<parameter=city>\nPar",
///                            "is\n</parameter>\n</function>\n</tool_call>"]);
/// let frames: Vec<String> = block_on(
///     output.chat_chunks(Parser::new(Format::Qwen3Coder), CompletionMeta::new("qwen3-coder"))
///           .sse()
///           .collect(),
/// );
/// assert_eq!(frames.len(), 4); // the call, its last arguments, the finish, [DONE]
/// assert!(frames[0].contains(r#""name":"get_weather","arguments":"{\"city\": \"Par"}"#));
/// assert!(frames[2].contains(r#""finish_reason":"tool_calls""#));
/// assert_eq!(frames[3], "data: [DONE]\n\n");
/// ```
pub trait ToolCallStreamExt: Stream + Sized
where
    Self::Item: ChunkItem,
{
    /// The events `parser` finds in this stream: each chunk is fed with
    /// [`Parser::feed_with`], its events yielded one by one, and when the
    /// stream ends the parser is finished and its last events yielded. The
    /// parser is used as given (pass a new or [reset](Parser::reset) one).
    fn tool_calls(self, parser: Parser) -> ToolCalls<Self> {
        ToolCalls {
            inner: self,
            parser,
            queue: VecDeque::new(),
            finished: false,
        }
    }

    /// The OpenAI `chat.completion.chunk`s of this stream, as
    /// [`ChunkEncoder`](crate::openai::ChunkEncoder) makes them: one per chunk of output that added
    /// something to send, then the last one, with the `finish_reason`
    /// (see [`ChatChunks::cut_off`]), then, when asked for
    /// ([`ChatChunks::usage`]), a usage chunk. An error of this stream
    /// ends the chunks: the last one is made as cut off (`length`), then
    /// the error is yielded (see [`ChatChunks`]). A parser built with
    /// [`retain_arguments(false)`](crate::ParserBuilder::retain_arguments)
    /// is enough: the chunks need only the fragments.
    fn chat_chunks(self, parser: Parser, meta: CompletionMeta) -> ChatChunks<Self> {
        ChatChunks::new(self, parser, meta)
    }
}

impl<S> ToolCallStreamExt for S
where
    S: Stream,
    S::Item: ChunkItem,
{
}

/// An adapter's item type for values of type `T` over the stream `S`.
type Output<S, T> = <<S as Stream>::Item as ChunkItem>::Output<T>;

pin_project! {
    /// The stream of [`OwnedEvent`]s found in a stream of chunks: see
    /// [`ToolCallStreamExt::tool_calls`]. Its items are `OwnedEvent`, or
    /// `Result<OwnedEvent, E>` when the chunks are `Result<_, E>`.
    #[must_use = "streams do nothing unless polled"]
    pub struct ToolCalls<S> {
        #[pin]
        inner: S,
        parser: Parser,
        // The events of the last chunk fed not yet yielded.
        queue: VecDeque<OwnedEvent>,
        // The wrapped stream ended and the parser was finished: the
        // wrapped stream is not polled again.
        finished: bool,
    }
}

impl<S> ToolCalls<S> {
    /// The parser, as it stands after the last chunk fed: for
    /// [`partial_call`](Parser::partial_call) or
    /// [`held_back`](Parser::held_back). Events of that chunk may still be
    /// waiting to be yielded.
    pub fn parser(&self) -> &Parser {
        &self.parser
    }
}

impl<S> Stream for ToolCalls<S>
where
    S: Stream,
    S::Item: ChunkItem,
{
    type Item = Output<S, OwnedEvent>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let mut this = self.project();
        loop {
            if let Some(event) = this.queue.pop_front() {
                return Poll::Ready(Some(S::Item::output(Ok(event))));
            }
            if *this.finished {
                return Poll::Ready(None);
            }
            let queue = &mut *this.queue;
            match this.inner.as_mut().poll_next(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Some(item)) => match item.into_result() {
                    Ok(chunk) => this.parser.feed_with(chunk.as_bytes(), |event| {
                        queue.push_back(event.into_owned())
                    }),
                    Err(error) => return Poll::Ready(Some(S::Item::output(Err(error)))),
                },
                Poll::Ready(None) => {
                    this.parser
                        .finish_with(|event| queue.push_back(event.into_owned()));
                    *this.finished = true;
                }
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let queued = self.queue.len();
        if self.finished {
            (queued, Some(queued))
        } else {
            // Every chunk and the end may add any number of events.
            (queued, None)
        }
    }
}

impl<S> FusedStream for ToolCalls<S>
where
    S: Stream,
    S::Item: ChunkItem,
{
    fn is_terminated(&self) -> bool {
        self.finished && self.queue.is_empty()
    }
}

impl<S> std::fmt::Debug for ToolCalls<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolCalls")
            .field("parser", &self.parser)
            .field("queued", &self.queue.len())
            .field("finished", &self.finished)
            .finish_non_exhaustive()
    }
}
