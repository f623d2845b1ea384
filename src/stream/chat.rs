//! The OpenAI adapters: a stream of model output as `chat.completion.chunk`s
//! ([`ChatChunks`]), and those as a server-sent event body ([`SseFrames`]).

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_core::stream::{FusedStream, Stream};
use pin_project_lite::pin_project;
use serde_json::Map;

use super::{Chunk, ChunkItem, Output};
use crate::openai::{
    write_sse, ChatCompletionChunk, ChunkEncoder, CompletionMeta, ErrorResponse, Usage,
    CHAT_COMPLETION_CHUNK, SSE_DONE,
};
use crate::parser::Parser;

/// The message of the error event [`SseFrames`] ends a failed stream with,
/// unless told another ([`SseFrames::error_event`]). Deliberately says
/// nothing of the error itself: its text may name hosts or paths a client
/// should not see.
const STREAM_FAILED: &str = "The model's output stream failed before its end.";

/// Where the usage chunk's counts come from.
enum UsageSource {
    Known(Usage),
    /// Asked for when the output ends: counts made while it streamed.
    Later(Box<dyn FnOnce() -> Usage + Send + Sync>),
}

impl std::fmt::Debug for UsageSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UsageSource::Known(usage) => f.debug_tuple("Known").field(usage).finish(),
            UsageSource::Later(_) => f.write_str("Later(..)"),
        }
    }
}

/// The error type of the stream `S`'s items.
type ErrorOf<S> = <<S as Stream>::Item as ChunkItem>::Error;

pin_project! {
    /// The OpenAI chunks of a stream of model output: see
    /// [`ToolCallStreamExt::chat_chunks`](super::ToolCallStreamExt::chat_chunks).
    /// Its items are [`ChatCompletionChunk`], or
    /// `Result<ChatCompletionChunk, E>` when the chunks of output are
    /// `Result<_, E>`.
    ///
    /// In order: a chunk per piece of output that added something to send;
    /// the last chunk, with the `finish_reason`; the usage chunk, when one
    /// was asked for ([`usage`](ChatChunks::usage)); then the end.
    ///
    /// **An error is a cut, not an end.** When the wrapped stream yields an
    /// error, the output is cut: the parser is finished as at a token limit
    /// (a held call that lacked its end comes back as content), the last
    /// chunk says `finish_reason: "length"` (what clients check to know a
    /// stream was cut; never `stop` or `tool_calls`), the usage chunk
    /// follows if asked for, then the error, unchanged, and nothing after:
    /// the wrapped stream is not polled again. A server that writes the
    /// chunks itself then sends an error event
    /// ([`ErrorResponse`](crate::openai::ErrorResponse)) and `data: [DONE]`,
    /// which [`sse`](ChatChunks::sse) does.
    ///
    /// ```
    /// use futures::executor::block_on;
    /// use futures::stream::{self, StreamExt};
    /// use toolcall_stream::openai::{CompletionMeta, FinishReason};
    /// use toolcall_stream::stream::ToolCallStreamExt;
    /// use toolcall_stream::{Format, Parser};
    ///
    /// let output = stream::iter([Ok("Looking.\n<tool_call>\n<function=ls>"), Err("connection reset")]);
    /// let items: Vec<_> = block_on(
    ///     output.chat_chunks(Parser::new(Format::Qwen3Coder), CompletionMeta::new("m")).collect());
    /// let last = items[items.len() - 2].as_ref().unwrap();
    /// assert_eq!(last.choices[0].finish_reason, Some(FinishReason::Length));
    /// assert_eq!(items.last(), Some(&Err("connection reset")));
    /// ```
    #[must_use = "streams do nothing unless polled"]
    pub struct ChatChunks<S>
    where
        S: Stream,
        S::Item: ChunkItem,
    {
        #[pin]
        inner: S,
        parser: Parser,
        // `None` once the last chunk was made (`ChunkEncoder::finish`
        // consumes the encoder): the wrapped stream is not polled again.
        encoder: Option<ChunkEncoder>,
        cut_off: bool,
        usage: Option<UsageSource>,
        // What follows the last chunk: the usage chunk, the error.
        tail: VecDeque<Result<ChatCompletionChunk, ErrorOf<S>>>,
    }
}

impl<S> ChatChunks<S>
where
    S: Stream,
    S::Item: ChunkItem,
{
    pub(super) fn new(inner: S, parser: Parser, meta: CompletionMeta) -> ChatChunks<S> {
        ChatChunks {
            inner,
            parser,
            encoder: Some(ChunkEncoder::new(meta)),
            cut_off: false,
            usage: None,
            tail: VecDeque::new(),
        }
    }

    /// Whether the model was cut off by its token limit: the last chunk's
    /// `finish_reason` is then `length` (default `false`: `tool_calls` when
    /// a call ended complete, else `stop`). When this is known only at the
    /// end of the output, drive a [`ChunkEncoder`] directly. An error of
    /// the wrapped stream gives `length` either way.
    pub fn cut_off(mut self, cut_off: bool) -> ChatChunks<S> {
        self.cut_off = cut_off;
        self
    }

    /// Ends the chunks with a usage chunk, as OpenAI does when a request
    /// says `"stream_options": {"include_usage": true}`
    /// ([`ChatCompletionRequest::include_usage`](crate::openai::ChatCompletionRequest::include_usage)):
    /// after the last chunk, one with `"choices": []` and this `usage`.
    /// For counts known only at the end, see
    /// [`usage_with`](ChatChunks::usage_with).
    pub fn usage(mut self, usage: Usage) -> ChatChunks<S> {
        self.usage = Some(UsageSource::Known(usage));
        self
    }

    /// As [`usage`](ChatChunks::usage), with the counts asked of `usage`
    /// when the output ends (or is cut): a server counts the tokens its
    /// model writes while they stream, in a counter the closure reads.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicU64, Ordering};
    /// use std::sync::Arc;
    /// use futures::executor::block_on;
    /// use futures::stream::{self, StreamExt};
    /// use serde_json::Map;
    /// use toolcall_stream::openai::{CompletionMeta, Usage};
    /// use toolcall_stream::stream::ToolCallStreamExt;
    /// use toolcall_stream::{Format, Parser};
    ///
    /// let written = Arc::new(AtomicU64::new(0));
    /// let counter = Arc::clone(&written);
    /// let tokens = stream::iter(["Hel", "lo", "!"])
    ///     .inspect(move |_| { counter.fetch_add(1, Ordering::Relaxed); });
    /// let prompt_tokens = 12;
    /// let chunks: Vec<_> = block_on(tokens
    ///     .chat_chunks(Parser::new(Format::Qwen3Coder), CompletionMeta::new("m"))
    ///     .usage_with(move || {
    ///         let completion_tokens = written.load(Ordering::Relaxed);
    ///         Usage { prompt_tokens, completion_tokens,
    ///                 total_tokens: prompt_tokens + completion_tokens, extra: Map::new() }
    ///     })
    ///     .collect());
    /// let usage = chunks.last().unwrap();
    /// assert!(usage.choices.is_empty());
    /// assert_eq!(usage.usage.as_ref().unwrap().completion_tokens, 3);
    /// ```
    pub fn usage_with(
        mut self,
        usage: impl FnOnce() -> Usage + Send + Sync + 'static,
    ) -> ChatChunks<S> {
        self.usage = Some(UsageSource::Later(Box::new(usage)));
        self
    }

    /// The chunks as server-sent event frames, [`write_sse`]'s
    /// `data: {json}\n\n`, then [`SSE_DONE`]: an OpenAI streaming response
    /// body, one `String` per frame. An error of the wrapped stream becomes
    /// an OpenAI error event (see [`SseFrames`]).
    pub fn sse(self) -> SseFrames<S> {
        SseFrames {
            chunks: self,
            error: None,
            done_sent: false,
        }
    }

    /// The parser, as it stands after the last chunk of output fed.
    pub fn parser(&self) -> &Parser {
        &self.parser
    }

    /// The next chunk or error, for both this stream and its
    /// [`SseFrames`].
    #[allow(clippy::type_complexity)]
    fn poll_chunk(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<ChatCompletionChunk, ErrorOf<S>>>> {
        let mut this = self.project();
        loop {
            if let Some(next) = this.tail.pop_front() {
                return Poll::Ready(Some(next));
            }
            let Some(encoder) = this.encoder.as_mut() else {
                return Poll::Ready(None);
            };
            let (cut_off, error) = match this.inner.as_mut().poll_next(cx) {
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
                        continue;
                    }
                    // A cut: finished as at a token limit.
                    Err(error) => (true, Some(error)),
                },
                Poll::Ready(None) => (*this.cut_off, None),
            };
            this.parser.finish_with(|event| encoder.push(&event));
            let Some(encoder) = this.encoder.take() else {
                return Poll::Ready(None);
            };
            let meta = encoder.meta().clone();
            let last = encoder.finish(cut_off);
            if let Some(source) = this.usage.take() {
                let usage = match source {
                    UsageSource::Known(usage) => usage,
                    UsageSource::Later(usage) => usage(),
                };
                this.tail.push_back(Ok(usage_chunk(&meta, usage)));
            }
            if let Some(error) = error {
                this.tail.push_back(Err(error));
            }
            return Poll::Ready(Some(Ok(last)));
        }
    }
}

/// OpenAI's last chunk of a stream that asked for usage: no choices.
fn usage_chunk(meta: &CompletionMeta, usage: Usage) -> ChatCompletionChunk {
    ChatCompletionChunk {
        id: meta.id.clone(),
        object: CHAT_COMPLETION_CHUNK.to_owned(),
        created: meta.created,
        model: meta.model.clone(),
        system_fingerprint: meta.system_fingerprint.clone(),
        choices: Vec::new(),
        usage: Some(usage),
        extra: Map::new(),
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
        let queued = self.tail.len();
        if self.encoder.is_none() {
            return (queued, Some(queued));
        }
        // At least the last chunk; at most one per chunk of output (an
        // error ends them), the last and the usage chunk.
        let (_, upper) = self.inner.size_hint();
        (1, upper.and_then(|n| n.checked_add(2)))
    }
}

impl<S> FusedStream for ChatChunks<S>
where
    S: Stream,
    S::Item: ChunkItem,
{
    fn is_terminated(&self) -> bool {
        self.encoder.is_none() && self.tail.is_empty()
    }
}

impl<S> std::fmt::Debug for ChatChunks<S>
where
    S: Stream,
    S::Item: ChunkItem,
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatChunks")
            .field("parser", &self.parser)
            .field("meta", &self.encoder.as_ref().map(ChunkEncoder::meta))
            .field("cut_off", &self.cut_off)
            .field("usage", &self.usage)
            .finish_non_exhaustive()
    }
}

pin_project! {
    /// An OpenAI streaming response body as server-sent event frames: see
    /// [`ChatChunks::sse`]. Its items are `String`, or `Result<String, E>`
    /// when the chunks of output are `Result<_, E>` (so that it is a body
    /// for servers that take results), though it never yields an `Err`.
    ///
    /// Frames: `data: {chunk}\n\n` for every chunk of [`ChatChunks`], then
    /// `data: [DONE]\n\n`. When the wrapped stream yields an error, the
    /// output was cut: the last chunk says `finish_reason: "length"`, then
    /// comes an OpenAI error event, `data: {"error": {"message", "type":
    /// "server_error", "param": null, "code": null}}`, then `data: [DONE]`,
    /// and the wrapped stream is not polled again. The error's own text is
    /// not sent (it may name hosts or paths): log it from the wrapped
    /// stream (`inspect_err`), and set the event with
    /// [`error_event`](SseFrames::error_event).
    ///
    /// ```
    /// use futures::executor::block_on;
    /// use futures::stream::{self, StreamExt};
    /// use toolcall_stream::openai::CompletionMeta;
    /// use toolcall_stream::stream::ToolCallStreamExt;
    /// use toolcall_stream::{Format, Parser};
    ///
    /// let output = stream::iter([Ok("Hello"), Err("connection reset"), Ok("never read")]);
    /// let frames: Vec<Result<String, &str>> = block_on(
    ///     output.chat_chunks(Parser::new(Format::Qwen3Coder), CompletionMeta::new("m")).sse().collect());
    /// assert_eq!(frames.len(), 4); // "Hello", the cut-off finish, the error, [DONE]
    /// assert!(frames[1].as_ref().unwrap().contains(r#""finish_reason":"length""#));
    /// assert!(frames[2].as_ref().unwrap().starts_with(r#"data: {"error":{"message":"#));
    /// assert_eq!(frames[3].as_deref(), Ok("data: [DONE]\n\n"));
    /// ```
    #[must_use = "streams do nothing unless polled"]
    pub struct SseFrames<S>
    where
        S: Stream,
        S::Item: ChunkItem,
    {
        #[pin]
        chunks: ChatChunks<S>,
        // The error event to send on a cut; `None`: the default one.
        error: Option<ErrorResponse>,
        done_sent: bool,
    }
}

impl<S> SseFrames<S>
where
    S: Stream,
    S::Item: ChunkItem,
{
    /// The parser, as it stands after the last chunk of output fed.
    pub fn parser(&self) -> &Parser {
        &self.chunks.parser
    }

    /// The error event sent when the wrapped stream yields an error
    /// (default: a `server_error` saying the model's output stream failed).
    pub fn error_event(mut self, error: ErrorResponse) -> SseFrames<S> {
        self.error = Some(error);
        self
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
            let mut frame = String::new();
            // Chunks and error objects are strings, integers and JSON
            // values, which always serialize; were one not to, its frame
            // is left out rather than sent broken.
            let written = match this.chunks.as_mut().poll_chunk(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Some(Ok(chunk))) => write_sse(&chunk, &mut frame),
                // The chunks end after the error: `[DONE]` follows.
                Poll::Ready(Some(Err(_))) => match this.error.take() {
                    Some(error) => write_sse(&error, &mut frame),
                    None => write_sse(&ErrorResponse::server_error(STREAM_FAILED), &mut frame),
                },
                Poll::Ready(None) => {
                    *this.done_sent = true;
                    return Poll::Ready(Some(S::Item::output(Ok(SSE_DONE.to_owned()))));
                }
            };
            if written.is_ok() {
                return Poll::Ready(Some(S::Item::output(Ok(frame))));
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        if self.done_sent {
            return (0, Some(0));
        }
        // The chunks' frames (an error's in its place) and `[DONE]`.
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

impl<S> std::fmt::Debug for SseFrames<S>
where
    S: Stream,
    S::Item: ChunkItem,
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SseFrames")
            .field("chunks", &self.chunks)
            .field("error", &self.error)
            .field("done_sent", &self.done_sent)
            .finish()
    }
}
