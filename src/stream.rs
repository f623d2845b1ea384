//! Async streams (feature `stream`): the parser as an adapter over any
//! [`futures_core::Stream`] of byte chunks.
//!
//! [`ToolCallStreamExt::tool_calls`] turns a stream of model output into a
//! stream of [`OwnedEvent`]s, [`ToolCallStreamExt::chat_chunks`] into one of
//! OpenAI [`ChatCompletionChunk`]s, and [`ChatChunks::sse`] those into
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
//! **Errors** from the wrapped stream are passed through unchanged, in
//! their place: every event of the chunks before the error comes first.
//! The adapter then goes on polling the wrapped stream if it is polled
//! again: whether an error ends the response is the caller's decision (to
//! stop, drop the adapter; `TryStreamExt`'s `try_` combinators stop at the
//! first error). When the wrapped stream ends, the parser is finished and
//! its last events follow.
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
use crate::openai::{write_sse, ChatCompletionChunk, ChunkEncoder, CompletionMeta, SSE_DONE};
use crate::parser::Parser;

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
    /// [`ChunkEncoder`] makes them: one per chunk of output that added
    /// something to send, then the last one, with the `finish_reason`
    /// (see [`ChatChunks::cut_off`]). A parser built with
    /// [`retain_arguments(false)`](crate::ParserBuilder::retain_arguments)
    /// is enough: the chunks need only the fragments.
    fn chat_chunks(self, parser: Parser, meta: CompletionMeta) -> ChatChunks<Self> {
        ChatChunks {
            inner: self,
            parser,
            encoder: Some(ChunkEncoder::new(meta)),
            cut_off: false,
        }
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

pin_project! {
    /// The OpenAI chunks of a stream of model output: see
    /// [`ToolCallStreamExt::chat_chunks`]. Its items are
    /// [`ChatCompletionChunk`], or `Result<ChatCompletionChunk, E>` when the
    /// chunks of output are `Result<_, E>`.
    #[must_use = "streams do nothing unless polled"]
    pub struct ChatChunks<S> {
        #[pin]
        inner: S,
        parser: Parser,
        // `None` once the last chunk was made (`ChunkEncoder::finish`
        // consumes the encoder).
        encoder: Option<ChunkEncoder>,
        cut_off: bool,
    }
}

impl<S> ChatChunks<S> {
    /// Whether the model was cut off by its token limit: the last chunk's
    /// `finish_reason` is then `length` (default `false`: `tool_calls` when
    /// a call ended complete, else `stop`). When this is known only at the
    /// end of the output, drive a [`ChunkEncoder`] directly.
    pub fn cut_off(mut self, cut_off: bool) -> ChatChunks<S> {
        self.cut_off = cut_off;
        self
    }

    /// The chunks as server-sent event frames, [`write_sse`]'s
    /// `data: {json}\n\n`, then [`SSE_DONE`]: an OpenAI streaming response
    /// body, one `String` per frame.
    pub fn sse(self) -> SseFrames<S> {
        SseFrames {
            chunks: self,
            done_sent: false,
        }
    }

    /// The parser, as it stands after the last chunk of output fed.
    pub fn parser(&self) -> &Parser {
        &self.parser
    }
}

impl<S> ChatChunks<S>
where
    S: Stream,
    S::Item: ChunkItem,
{
    /// The next chunk or error of the wrapped stream, for both this
    /// stream and its [`SseFrames`].
    #[allow(clippy::type_complexity)]
    fn poll_chunk(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<ChatCompletionChunk, <S::Item as ChunkItem>::Error>>> {
        let mut this = self.project();
        loop {
            let Some(encoder) = this.encoder.as_mut() else {
                return Poll::Ready(None);
            };
            match this.inner.as_mut().poll_next(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Some(item)) => match item.into_result() {
                    Ok(chunk) => {
                        this.parser
                            .feed_with(chunk.as_bytes(), |event| encoder.push(&event));
                        // A piece that completed nothing makes no chunk:
                        // read on.
                        if let Some(chunk) = encoder.take_chunk() {
                            return Poll::Ready(Some(Ok(chunk)));
                        }
                    }
                    Err(error) => return Poll::Ready(Some(Err(error))),
                },
                Poll::Ready(None) => {
                    this.parser.finish_with(|event| encoder.push(&event));
                    let last = this.encoder.take().map(|e| e.finish(*this.cut_off));
                    return Poll::Ready(last.map(Ok));
                }
            }
        }
    }
}

impl<S> Stream for ChatChunks<S>
where
    S: Stream,
    S::Item: ChunkItem,
{
    type Item = Output<S, ChatCompletionChunk>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.poll_chunk(cx).map(|next| next.map(S::Item::output))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        if self.encoder.is_none() {
            return (0, Some(0));
        }
        // At least the last chunk; at most one per chunk of output, and
        // the last.
        let (_, upper) = self.inner.size_hint();
        (1, upper.and_then(|n| n.checked_add(1)))
    }
}

impl<S> FusedStream for ChatChunks<S>
where
    S: Stream,
    S::Item: ChunkItem,
{
    fn is_terminated(&self) -> bool {
        self.encoder.is_none()
    }
}

impl<S> std::fmt::Debug for ChatChunks<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatChunks")
            .field("parser", &self.parser)
            .field("meta", &self.encoder.as_ref().map(ChunkEncoder::meta))
            .field("cut_off", &self.cut_off)
            .finish_non_exhaustive()
    }
}

pin_project! {
    /// An OpenAI streaming response body as server-sent event frames: see
    /// [`ChatChunks::sse`]. Its items are `String`, or `Result<String, E>`
    /// when the chunks of output are `Result<_, E>`.
    #[must_use = "streams do nothing unless polled"]
    pub struct SseFrames<S> {
        #[pin]
        chunks: ChatChunks<S>,
        done_sent: bool,
    }
}

impl<S> SseFrames<S> {
    /// The parser, as it stands after the last chunk of output fed.
    pub fn parser(&self) -> &Parser {
        &self.chunks.parser
    }
}

impl<S> Stream for SseFrames<S>
where
    S: Stream,
    S::Item: ChunkItem,
{
    type Item = Output<S, String>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let mut this = self.project();
        loop {
            if *this.done_sent {
                return Poll::Ready(None);
            }
            match this.chunks.as_mut().poll_chunk(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Some(Ok(chunk))) => {
                    let mut frame = String::new();
                    // A chunk is strings, integers and JSON values, which
                    // always serialize; were one not to, its frame is left
                    // out rather than sent broken.
                    if write_sse(&chunk, &mut frame).is_ok() {
                        return Poll::Ready(Some(S::Item::output(Ok(frame))));
                    }
                }
                Poll::Ready(Some(Err(error))) => {
                    return Poll::Ready(Some(S::Item::output(Err(error))))
                }
                Poll::Ready(None) => {
                    *this.done_sent = true;
                    return Poll::Ready(Some(S::Item::output(Ok(SSE_DONE.to_owned()))));
                }
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        if self.done_sent {
            return (0, Some(0));
        }
        // The chunks' frames and `[DONE]`.
        let (lower, upper) = self.chunks.size_hint();
        (
            lower.saturating_add(1),
            upper.and_then(|n| n.checked_add(1)),
        )
    }
}

impl<S> FusedStream for SseFrames<S>
where
    S: Stream,
    S::Item: ChunkItem,
{
    fn is_terminated(&self) -> bool {
        self.done_sent
    }
}

impl<S> std::fmt::Debug for SseFrames<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SseFrames")
            .field("chunks", &self.chunks)
            .field("done_sent", &self.done_sent)
            .finish()
    }
}
