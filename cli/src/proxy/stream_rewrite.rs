//! `stream: true`: the upstream's server-sent `chat.completion.chunk`s,
//! each run through a `Rewriter` as it arrives and sent on at once.
//!
//! Memory per stream is bounded: the SSE decoder holds at most one event
//! (`--max-event-bytes`), the parsers hold at most their limits (and a
//! held call, `--max-held-call`), and what the upstream's body has ready
//! becomes one piece of the response (cut at `BATCH_BYTES`), so nothing
//! accumulates between reads.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::header;
use axum::response::Response;
use bytes::Bytes;
use futures_util::StreamExt;
use http_body::Frame;
use toolcall_stream::openai::{
    write_sse, write_sse_data, ChatCompletionChunk, Pushed, Rewriter, SSE_DONE,
};
use toolcall_stream::ParserBuilder;

use super::agent::{AnswerWriter, Failure, FailureKind};
use super::drain::drain;
use super::error::error_object;
use super::forward::{end_to_end, UpstreamResponse};
use super::idle::{BodyError, IdleBody};
use super::log::{outcome, RequestLog};
use super::metrics::{self, OpenStream};
use super::sse::{SseDecoder, SseError, SseEvent};
use super::store::StoredResponse;

/// What one piece of the response holds at most, when the upstream's
/// reads bring more than one event (a read's events past it wait for the
/// next piece).
const BATCH_BYTES: usize = 16 << 10;

/// The data of the event that ends an OpenAI stream.
const DONE: &str = "[DONE]";

/// How the upstream's stream is read.
pub struct Reading {
    /// `--max-event-bytes`.
    pub max_event_bytes: usize,
    /// `--idle-timeout`.
    pub idle: Duration,
}

/// How often a client of an agent route hears from a silent upstream.
const KEEPALIVE: Duration = Duration::from_secs(10);

/// The rewritten stream as the response; the log line is written when it
/// ends or the client goes away (which drops the upstream's body, and so
/// its connection: the upstream sees the cancellation).
pub fn respond(
    upstream: UpstreamResponse,
    builder: ParserBuilder,
    reading: Reading,
    mut log: RequestLog,
) -> Response {
    let status = upstream.status;
    log.status(status.as_u16());
    let mut headers = end_to_end(&upstream.headers);
    headers.remove(header::CONTENT_LENGTH);
    headers.remove(header::CONTENT_ENCODING);
    let body = RewriteBody {
        upstream: Some(IdleBody::new(upstream.body, reading.idle)),
        state: SseRewrite::new(builder, reading.max_event_bytes, log),
        keepalive: None,
    };
    let mut response = Response::new(Body::new(body));
    *response.status_mut() = status;
    *response.headers_mut() = headers;
    response
}

/// An agent route's stream: the upstream's chunks, rewritten, written in
/// the client's API by `writer`. `stored` takes what the writer keeps for
/// a later request when the answer ends.
pub fn respond_agent(
    upstream: UpstreamResponse,
    builder: Option<ParserBuilder>,
    writer: Box<dyn AnswerWriter>,
    stored: Option<StoreAnswer>,
    reading: Reading,
    mut log: RequestLog,
) -> Response {
    log.status(upstream.status.as_u16());
    let parse = builder.is_some();
    // The client's API answers in ordered blocks: text after a call must
    // stay after it.
    let rewriter = Rewriter::new(builder.unwrap_or_default()).ordered(true);
    let mut state = SseRewrite::with_rewriter(rewriter, reading.max_event_bytes, log);
    state.agent = Some(AgentOutput {
        writer,
        parse,
        stored,
    });
    let body = RewriteBody {
        upstream: Some(IdleBody::new(upstream.body, reading.idle)),
        state,
        keepalive: Some(Box::pin(tokio::time::sleep(KEEPALIVE))),
    };
    let mut response = Response::new(Body::new(body));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("text/event-stream"),
    );
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        header::HeaderValue::from_static("no-cache"),
    );
    response
}

/// Takes what an agent's answer keeps, when it ends.
pub type StoreAnswer = Box<dyn FnOnce(String, StoredResponse) + Send>;

/// The writer of an agent route's stream.
struct AgentOutput {
    writer: Box<dyn AnswerWriter>,
    /// The model's text is parsed (a format is known); else the upstream's
    /// chunks go to the writer as they came.
    parse: bool,
    stored: Option<StoreAnswer>,
}

/// The response body: each poll reads what the upstream has ready and
/// gives what the rewrite made of it as one frame.
struct RewriteBody {
    /// `None` once the stream ended.
    upstream: Option<IdleBody>,
    state: SseRewrite,
    /// Agent routes: when to tell the client the stream lives, reset by
    /// every upstream read.
    keepalive: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl http_body::Body for RewriteBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = &mut *self;
        let Some(upstream) = this.upstream.as_mut() else {
            return Poll::Ready(None);
        };
        let mut out = String::new();
        let mut start = None;
        // What the upstream's reads have ready goes into one frame: the
        // costs per frame (a write to the client, clock reads, a histogram
        // record) are then per read, not per chunk.
        while !this.state.ended && out.len() < BATCH_BYTES {
            let Poll::Ready(next) = upstream.poll_next_unpin(cx) else {
                break;
            };
            start.get_or_insert_with(Instant::now);
            this.state.take(next, &mut out);
        }
        if let Some(start) = start {
            this.state.latency.record(start.elapsed().as_secs_f64());
        }
        if let Some(keepalive) = this.keepalive.as_mut() {
            if start.is_some() {
                keepalive
                    .as_mut()
                    .reset(tokio::time::Instant::now() + KEEPALIVE);
            }
            // Polled every time, so that its waker is always set.
            if !this.state.ended && keepalive.as_mut().poll(cx).is_ready() {
                this.state.keepalive(&mut out);
                keepalive
                    .as_mut()
                    .reset(tokio::time::Instant::now() + KEEPALIVE);
                // Registers the waker for the next one.
                let _ = keepalive.as_mut().poll(cx);
            }
        }
        if this.state.ended {
            if let Some(upstream) = this.upstream.take() {
                if this.state.ended_cleanly {
                    tokio::spawn(drain(upstream, DRAIN_TIME, DRAIN_BYTES));
                }
                // Else it is dropped, and its connection closed: the
                // upstream sees the stream cut.
            }
        }
        if out.is_empty() {
            // Pending: the upstream's body has the waker.
            return if this.state.ended {
                Poll::Ready(None)
            } else {
                Poll::Pending
            };
        }
        Poll::Ready(Some(Ok(Frame::data(Bytes::from(out)))))
    }

    fn is_end_stream(&self) -> bool {
        self.upstream.is_none()
    }
}

/// How long, and how much, of an upstream body is read after `[DONE]`
/// (the body's end, usually in the same read or the next), so that its
/// keep-alive connection can carry another request; one that does not
/// end soon is closed.
const DRAIN_TIME: Duration = Duration::from_secs(1);
const DRAIN_BYTES: usize = 64 << 10;

/// The most heap one rewritten stream holds, in bytes, with
/// `--max-event-bytes` `event`, the parser's `Limits::max_held_value`
/// `value` and (with `--hold-calls`) `--max-held-call` `held`:
///
/// - the SSE decoder: `2 × event` (its buffers never pass the bound, and
///   it shrinks them after a large event) and 32 KiB of reused buffers;
/// - the event's data, and the chunk parsed from it: `2 × event`;
/// - the chunks written for it: at most `6 × event` (JSON escapes a
///   control character as six bytes; text is usually one), after up to
///   `BATCH_BYTES` (16 KiB) written for the read's earlier events;
/// - the parser: `value` (a typed value held to be coerced) and `held`;
/// - 64 KiB of fixed state (parser, rewriter, encoder, connection).
///
/// `cli/src/proxy/memory_tests.rs` measures a stream against it.
pub fn worst_case_bytes(event: usize, value: usize, held: usize) -> usize {
    10 * event + value + held + (96 << 10) + BATCH_BYTES
}

/// The rewrite of one response, sans-IO: upstream bytes in, bytes to send
/// out.
pub(super) struct SseRewrite {
    decoder: SseDecoder,
    /// Reused for each read's events.
    events: Vec<SseEvent>,
    rewriter: Rewriter,
    log: RequestLog,
    /// Reused for each event's chunks.
    chunks: Vec<ChatCompletionChunk>,
    /// `[DONE]` (or the error event that ends a cut) was sent.
    ended: bool,
    /// ... after the upstream's own end (`[DONE]`, or its body's end).
    ended_cleanly: bool,
    /// The upstream sent an error event.
    upstream_failed: bool,
    saw_event: bool,
    /// Invalid UTF-8 was replaced (reported once per stream).
    replaced_invalid_utf8: bool,
    /// Agent routes without a parser: a chunk carried a `finish_reason`.
    passed_finish: bool,
    /// `toolcall_proxy_added_latency_seconds`, looked up once.
    latency: ::metrics::Histogram,
    /// Agent routes: the client's API is written from the rewritten
    /// chunks; `None`: the chat route, chunks as SSE.
    agent: Option<AgentOutput>,
    _open: OpenStream,
}

impl SseRewrite {
    pub(super) fn new(
        builder: ParserBuilder,
        max_event_bytes: usize,
        log: RequestLog,
    ) -> SseRewrite {
        SseRewrite::with_rewriter(Rewriter::new(builder), max_event_bytes, log)
    }

    fn with_rewriter(rewriter: Rewriter, max_event_bytes: usize, log: RequestLog) -> SseRewrite {
        SseRewrite {
            decoder: SseDecoder::new(max_event_bytes),
            events: Vec::new(),
            rewriter,
            log,
            chunks: Vec::new(),
            ended: false,
            ended_cleanly: false,
            upstream_failed: false,
            saw_event: false,
            replaced_invalid_utf8: false,
            passed_finish: false,
            latency: metrics::added_latency(),
            agent: None,
            _open: OpenStream::new(),
        }
    }

    /// What the upstream's body gave next: what to send for it goes to
    /// `out`.
    fn take(&mut self, next: Option<Result<Bytes, BodyError>>, out: &mut String) {
        match next {
            Some(Ok(piece)) => self.piece_into(&piece, out),
            Some(Err(e)) => self.body_failed(&e, out),
            None => self.body_ended_into(out),
        }
    }

    /// One read from the upstream: what to send for it (maybe nothing).
    #[cfg(test)]
    pub(super) fn piece(&mut self, piece: &[u8]) -> Bytes {
        let mut out = String::new();
        self.piece_into(piece, &mut out);
        Bytes::from(out)
    }

    fn piece_into(&mut self, piece: &[u8], out: &mut String) {
        let decoded = self.decoder.feed(piece, &mut self.events);
        self.drain_events(out);
        if let Err(e) = decoded {
            self.fail(out, &decode_error(&e), outcome::UPSTREAM_STREAM_ERROR);
        }
    }

    /// The upstream's body ended.
    #[cfg(test)]
    pub(super) fn body_ended(&mut self) -> Bytes {
        let mut out = String::new();
        self.body_ended_into(&mut out);
        Bytes::from(out)
    }

    fn body_ended_into(&mut self, out: &mut String) {
        let decoded = self.decoder.finish(&mut self.events);
        self.drain_events(out);
        if self.ended {
            return;
        }
        if let Err(e) = decoded {
            self.fail(out, &decode_error(&e), outcome::UPSTREAM_STREAM_ERROR);
        } else if !self.saw_event {
            // Not an event stream at all (a server that ignored `stream`).
            let message = "upstream sent no server-sent events";
            self.fail(out, message, outcome::UPSTREAM_STREAM_ERROR);
        } else if self.upstream_failed || self.rewriter.all_finished() || self.passed_finish {
            self.end(out);
        } else {
            // Neither `[DONE]` nor a `finish_reason`: a crashed or
            // restarted server, a dropped connection. Not an end.
            let message = "upstream stream ended before the answer was complete (no finish_reason, no [DONE])";
            self.fail(out, message, outcome::UPSTREAM_CUT);
        }
    }

    /// The upstream's body failed or went silent.
    fn body_failed(&mut self, error: &BodyError, out: &mut String) {
        match error {
            BodyError::Idle(_) => {
                metrics::upstream_timeout("idle");
                self.fail_as(out, &error.to_string(), "upstream_timeout");
                self.log.outcome("upstream_timeout");
            }
            BodyError::Failed(_) => {
                self.fail(out, &error.to_string(), outcome::UPSTREAM_CUT);
            }
        }
    }

    fn drain_events(&mut self, out: &mut String) {
        let mut events = std::mem::take(&mut self.events);
        for event in events.drain(..) {
            if self.ended {
                break;
            }
            if event.invalid_utf8 && !self.replaced_invalid_utf8 {
                self.replaced_invalid_utf8 = true;
                metrics::diagnostic("invalid_utf8");
                self.log
                    .note("upstream sent invalid UTF-8, replaced with U+FFFD");
            }
            self.event(&event.data, out);
        }
        // Keeps the vector's room for the next read.
        self.events = events;
    }

    /// One upstream event's data: what to send for it goes to `out`.
    fn event(&mut self, data: &str, out: &mut String) {
        self.saw_event = true;
        let trimmed = data.trim();
        if trimmed == DONE {
            self.end(out);
            return;
        }
        if trimmed.is_empty() {
            return;
        }
        if self.agent.is_some() {
            self.agent_event(data, out);
            return;
        }
        // Most chunks are a few bytes of text that the parser passes on as
        // they came: `push_json` sends those as they came, neither decoded
        // whole nor written again.
        match self.rewriter.push_json(data, out) {
            // The upstream's own error event (vLLM sends one when
            // generation fails): the client should see it as it was.
            Ok(Pushed::Error) => self.upstream_error(data, out),
            Ok(_) => self.count_diagnostics(),
            Err(e) => {
                let message = format!("upstream sent an invalid chunk: {e}");
                self.fail(out, &message, outcome::UPSTREAM_STREAM_ERROR);
            }
        }
    }

    fn count_diagnostics(&mut self) {
        for kind in self.rewriter.drain_diagnostics() {
            metrics::diagnostic(kind.as_str());
        }
    }

    fn upstream_error(&mut self, data: &str, out: &mut String) {
        metrics::upstream_error("error_event");
        self.log.outcome(outcome::UPSTREAM_ERROR_EVENT);
        self.log.note("upstream sent an error event");
        self.upstream_failed = true;
        if self.agent.is_some() {
            // The error ends the answer: the client's API says it its way.
            let failure = upstream_failure(data);
            self.agent_close(out, |writer, calls, out| writer.fail(&failure, calls, out));
            self.ended = true;
            return;
        }
        write_sse_data(data, out);
    }

    /// One upstream chunk on an agent route: decoded, rewritten (when a
    /// format is known), written in the client's API.
    fn agent_event(&mut self, data: &str, out: &mut String) {
        let Some(agent) = self.agent.as_ref() else {
            return;
        };
        let pushed = if agent.parse {
            // Most chunks are a few bytes of text, read without a decode.
            let pushed = self.rewriter.push_json_chunks(data, &mut self.chunks);
            self.count_diagnostics();
            pushed
        } else {
            serde_json::from_str::<ChatCompletionChunk>(data).map(|chunk| {
                self.passed_finish |= chunk.choices.iter().any(|c| c.finish_reason.is_some());
                self.chunks.push(chunk);
                Pushed::Sent
            })
        };
        match pushed {
            Ok(Pushed::Error) => self.upstream_error(data, out),
            Ok(_) => {
                for chunk in &mut self.chunks {
                    normalize_reasoning(chunk);
                }
                if let Err(failure) = self.write_agent_chunks(out) {
                    self.agent_fail(out, &failure);
                }
            }
            Err(_) if is_error_event(data) => self.upstream_error(data, out),
            Err(e) => {
                let message = format!("upstream sent an invalid chunk: {e}");
                self.fail(out, &message, outcome::UPSTREAM_STREAM_ERROR);
            }
        }
    }

    /// The rewritten chunks, to the agent's writer.
    fn write_agent_chunks(&mut self, out: &mut String) -> Result<(), Failure> {
        let Some(agent) = self.agent.as_mut() else {
            return Ok(());
        };
        let mut result = Ok(());
        for chunk in self.chunks.drain(..) {
            if result.is_ok() {
                result = agent.writer.chunk(&chunk, out);
            }
        }
        result
    }

    /// Ends an agent's answer with `close` (the writer's `end` or `fail`),
    /// then hands what it keeps to the store.
    fn agent_close(
        &mut self,
        out: &mut String,
        close: impl FnOnce(&mut dyn AnswerWriter, usize, &mut String),
    ) {
        let Some(agent) = self.agent.as_mut() else {
            return;
        };
        // Without a parser the calls are the upstream's own: complete by
        // its word.
        let calls = if agent.parse {
            self.rewriter.calls()
        } else {
            usize::MAX
        };
        close(agent.writer.as_mut(), calls, out);
        if let (Some(store), Some((id, response))) = (agent.stored.take(), agent.writer.stored()) {
            store(id, response);
        }
    }

    /// An agent's answer that cannot go on (it outgrew what is kept).
    fn agent_fail(&mut self, out: &mut String, failure: &Failure) {
        self.log.outcome("answer_too_large");
        self.log.note(&failure.message);
        self.agent_close(out, |writer, calls, out| writer.fail(failure, calls, out));
        self.log.calls(self.rewriter.calls());
        self.ended = true;
    }

    /// An agent route's stream cut short: what the parsers held comes back
    /// as cut off (no call that lacked its end is complete), then the
    /// writer's failure.
    fn agent_fail_cut(&mut self, out: &mut String, failure: &Failure) {
        self.log.note(&failure.message);
        self.rewriter.finish_cut(&mut self.chunks);
        self.count_diagnostics();
        // Past this failure, the writer's own (too large) is moot.
        let _ = self.write_agent_chunks(out);
        self.agent_close(out, |writer, calls, out| writer.fail(failure, calls, out));
        self.log.calls(self.rewriter.calls());
        self.ended = true;
    }

    /// Agent routes: a sign of life while the upstream is silent.
    fn keepalive(&mut self, out: &mut String) {
        if let Some(agent) = self.agent.as_mut() {
            agent.writer.keepalive(out);
        }
    }

    /// The upstream ended: the parsers' last chunks, then `[DONE]`.
    fn end(&mut self, out: &mut String) {
        if self.agent.is_some() {
            self.agent_end(out);
            return;
        }
        // After an error the upstream did not finish its choices: no
        // finish_reason is made up for them.
        if !self.upstream_failed {
            self.rewriter.finish(&mut self.chunks);
            self.count_diagnostics();
        }
        self.write_chunks(out);
        self.log.calls(self.rewriter.calls());
        self.ended = true;
        self.ended_cleanly = true;
        out.push_str(SSE_DONE);
    }

    /// An agent route's upstream ended: the parsers' last chunks, then the
    /// writer's end.
    fn agent_end(&mut self, out: &mut String) {
        self.rewriter.finish(&mut self.chunks);
        self.count_diagnostics();
        if let Err(failure) = self.write_agent_chunks(out) {
            self.agent_fail(out, &failure);
            return;
        }
        self.agent_close(out, |writer, calls, out| writer.end(calls, out));
        self.log.calls(self.rewriter.calls());
        self.ended = true;
        self.ended_cleanly = true;
    }

    /// The stream cannot go on: an error event, then `[DONE]`, so that a
    /// client stops reading instead of waiting.
    fn fail(&mut self, out: &mut String, message: &str, outcome: &'static str) {
        let kind = if outcome == outcome::UPSTREAM_CUT {
            "cut"
        } else {
            "stream_error"
        };
        metrics::upstream_error(kind);
        self.log.outcome(outcome);
        if self.agent.is_some() {
            let kind = if outcome == outcome::UPSTREAM_CUT {
                FailureKind::Cut
            } else {
                FailureKind::StreamError
            };
            self.agent_fail_cut(out, &Failure::new(kind, message));
            return;
        }
        self.fail_as(out, message, "upstream_stream_error");
    }

    /// What the parsers held comes back first, each choice finished as
    /// cut off (`length`: no call that lacked its end is sent as complete),
    /// then the error event of `kind` and `[DONE]`.
    fn fail_as(&mut self, out: &mut String, message: &str, kind: &str) {
        self.log.note(message);
        if self.agent.is_some() {
            // Only a timeout comes here; the other failures pass `fail`.
            self.agent_fail_cut(out, &Failure::new(FailureKind::Timeout, message));
            return;
        }
        if !self.upstream_failed {
            self.rewriter.finish_cut(&mut self.chunks);
            self.count_diagnostics();
            self.write_chunks(out);
        }
        self.log.calls(self.rewriter.calls());
        self.ended = true;
        let error = error_object(message, kind, None);
        // A `Value` always serializes.
        let _ = write_sse(&error, out);
        out.push_str(SSE_DONE);
    }

    /// The chunks made, as server-sent events.
    fn write_chunks(&mut self, out: &mut String) {
        for chunk in self.chunks.drain(..) {
            if let Err(e) = write_sse(&chunk, out) {
                // Only a non-string map key could do this; say so rather than drop it.
                let error =
                    error_object(&format!("cannot write a chunk: {e}"), "proxy_error", None);
                let _ = write_sse(&error, out);
            }
        }
    }
}

impl Drop for SseRewrite {
    fn drop(&mut self) {
        if !self.ended {
            self.log.calls(self.rewriter.calls());
            self.log.client_closed();
        }
    }
}

fn decode_error(error: &SseError) -> String {
    format!("upstream stream is not readable: {error}")
}

/// vLLM's newer servers name the reasoning `reasoning`; the writers read
/// `reasoning_content`.
pub(super) fn normalize_reasoning(chunk: &mut ChatCompletionChunk) {
    for choice in &mut chunk.choices {
        let delta = &mut choice.delta;
        if let Some(serde_json::Value::String(text)) = delta.extra.remove("reasoning") {
            delta
                .reasoning_content
                .get_or_insert_with(String::new)
                .push_str(&text);
        }
    }
}

/// Whether an event that is no chunk is the upstream's error event.
fn is_error_event(data: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(data)
        .is_ok_and(|value| value.get("error").is_some_and(|e| !e.is_null()))
}

/// The upstream's error event as a failure: its message, and whether it
/// says the prompt did not fit.
fn upstream_failure(data: &str) -> Failure {
    let error = super::agent::AgentError::from_upstream(
        axum::http::StatusCode::INTERNAL_SERVER_ERROR,
        data.as_bytes(),
    );
    let kind = if error.kind == super::agent::ErrorKind::ContextLength {
        FailureKind::ContextLength
    } else {
        FailureKind::Upstream
    };
    Failure::new(kind, error.message)
}
