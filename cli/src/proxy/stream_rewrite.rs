//! `stream: true`: the upstream's server-sent `chat.completion.chunk`s,
//! each run through a `Rewriter` as it arrives and sent on at once.

use std::convert::Infallible;

use axum::body::Body;
use axum::http::header;
use axum::response::Response;
use bytes::Bytes;
use eventsource_stream::{EventStreamError, Eventsource};
use futures_util::{Stream, StreamExt};
use serde_json::Value;
use toolcall_stream::openai::{write_sse, ChatCompletionChunk, Rewriter, SSE_DONE};
use toolcall_stream::ParserBuilder;

use super::error::error_object;
use super::forward::{end_to_end, error_chain};
use super::log::RequestLog;

/// The data of the event that ends an OpenAI stream.
const DONE: &str = "[DONE]";

/// The rewritten stream as the response; the log line is written when it
/// ends or the client goes away (which drops the upstream's body, and so
/// its connection: the upstream sees the cancellation).
pub fn respond(
    upstream: reqwest::Response,
    builder: ParserBuilder,
    mut log: RequestLog,
) -> Response {
    let status = upstream.status();
    log.status(status.as_u16());
    let mut headers = end_to_end(upstream.headers());
    headers.remove(header::CONTENT_LENGTH);
    headers.remove(header::CONTENT_ENCODING);
    // A last event without its blank line is still an event: servers that
    // end the body right after `data: [DONE]` are common, and the SSE
    // reader (rightly, by the spec) drops an event the body cut short.
    let events = upstream
        .bytes_stream()
        .chain(futures_util::stream::once(std::future::ready(Ok(
            Bytes::from_static(b"\n\n"),
        ))))
        .eventsource();
    let mut response = Response::new(Body::from_stream(rewrite(events, builder, log)));
    *response.status_mut() = status;
    *response.headers_mut() = headers;
    response
}

/// The body: one piece per upstream event that gave something to send.
fn rewrite<S, E>(
    events: S,
    builder: ParserBuilder,
    log: RequestLog,
) -> impl Stream<Item = Result<Bytes, Infallible>> + Send
where
    S: Stream<Item = Result<eventsource_stream::Event, EventStreamError<E>>> + Send + Unpin,
    E: std::error::Error,
{
    let state = SseRewrite {
        rewriter: Rewriter::new(builder),
        log,
        chunks: Vec::new(),
        ended: false,
        upstream_failed: false,
        saw_event: false,
    };
    futures_util::stream::unfold((events, state), |(mut events, mut state)| async move {
        while !state.ended {
            let frame = match events.next().await {
                Some(Ok(event)) => state.event(&event.data),
                Some(Err(e)) => Some(state.fail(&stream_error(&e))),
                // A body with no event at all was not an event stream (a
                // server that ignored `stream: true`, say).
                None if !state.saw_event => Some(state.fail("upstream sent no server-sent events")),
                None => Some(state.end()),
            };
            if let Some(frame) = frame {
                return Some((Ok(frame), (events, state)));
            }
        }
        None
    })
}

fn stream_error<E: std::error::Error>(error: &EventStreamError<E>) -> String {
    match error {
        EventStreamError::Transport(e) => format!("upstream stream cut off: {}", error_chain(e)),
        other => format!("upstream stream is not valid server-sent events: {other}"),
    }
}

/// The rewrite of one response, sans-IO: upstream event data in, bytes to
/// send out.
struct SseRewrite {
    rewriter: Rewriter,
    log: RequestLog,
    /// Reused for each event's chunks.
    chunks: Vec<ChatCompletionChunk>,
    /// `[DONE]` was sent: nothing more follows.
    ended: bool,
    /// The upstream sent an error event.
    upstream_failed: bool,
    saw_event: bool,
}

impl SseRewrite {
    /// One upstream event's data: what to send for it, if anything.
    fn event(&mut self, data: &str) -> Option<Bytes> {
        self.saw_event = true;
        if data == DONE {
            return Some(self.end());
        }
        if data.trim().is_empty() {
            return None;
        }
        match serde_json::from_str::<ChatCompletionChunk>(data) {
            // The upstream's own error event (vLLM sends one when
            // generation fails; the chunk's fields all have defaults, so
            // it reads as a chunk): the client should see it as it was.
            Ok(chunk) if chunk.extra.contains_key("error") => self.upstream_error(data),
            Ok(chunk) => {
                self.rewriter.push(chunk, &mut self.chunks);
                self.log.calls(self.rewriter.calls());
                self.frames(None)
            }
            Err(_) if is_error_event(data) => self.upstream_error(data),
            Err(e) => Some(self.fail(&format!("upstream sent an invalid chunk: {e}"))),
        }
    }

    fn upstream_error(&mut self, data: &str) -> Option<Bytes> {
        self.log.note("upstream sent an error event");
        self.upstream_failed = true;
        Some(Bytes::from(format!("data: {data}\n\n")))
    }

    /// The upstream ended: the parsers' last chunks, then `[DONE]`.
    fn end(&mut self) -> Bytes {
        // After an error the upstream did not finish its choices: no
        // finish_reason is made up for them.
        if !self.upstream_failed {
            self.rewriter.finish(&mut self.chunks);
        }
        self.log.calls(self.rewriter.calls());
        self.ended = true;
        self.frames(Some(SSE_DONE)).unwrap_or_default()
    }

    /// The stream cannot go on: an error event, then `[DONE]`, so that a
    /// client stops reading instead of waiting.
    fn fail(&mut self, message: &str) -> Bytes {
        self.log.note(message);
        self.ended = true;
        let mut frame = String::new();
        let error = error_object(message, "upstream_stream_error", None);
        // A `Value` always serializes.
        let _ = write_sse(&error, &mut frame);
        frame.push_str(SSE_DONE);
        Bytes::from(frame)
    }

    /// The chunks made, as server-sent events, and `tail` after them.
    fn frames(&mut self, tail: Option<&str>) -> Option<Bytes> {
        if self.chunks.is_empty() && tail.is_none() {
            return None;
        }
        let mut frame = String::new();
        for chunk in self.chunks.drain(..) {
            if let Err(e) = write_sse(&chunk, &mut frame) {
                // Only a non-string map key could do this; say so rather than drop it.
                let error =
                    error_object(&format!("cannot write a chunk: {e}"), "proxy_error", None);
                let _ = write_sse(&error, &mut frame);
            }
        }
        frame.push_str(tail.unwrap_or(""));
        Some(Bytes::from(frame))
    }
}

impl Drop for SseRewrite {
    fn drop(&mut self) {
        if !self.ended {
            self.log.note("client went away");
        }
    }
}

fn is_error_event(data: &str) -> bool {
    serde_json::from_str::<Value>(data).is_ok_and(|value| value.get("error").is_some())
}
