//! The async adapters (feature `stream`): over a stream of chunks they give
//! exactly what the parser gives on the same chunks, for every fixture;
//! each item type works; errors pass through the events unchanged and cut
//! the chunks (`length`, then an error event in the frames); the wrapped stream
//! is polled only when the adapter has nothing left to yield; dropping
//! mid-stream is clean; tokio drives them as well as `futures`' executor.
#![cfg(feature = "stream")]

mod common;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::{Bytes, BytesMut};
use common::{chunk_cuts, feed_cut, fixtures, Fixture};
use futures::executor::block_on;
use futures::stream::{self, FusedStream, Stream, StreamExt};
use futures::task::noop_waker_ref;
use toolcall_stream::openai::{
    write_sse, ChatCompletion, ChatCompletionChunk, CompletionMeta, ErrorResponse, FinishReason,
    Usage, SSE_DONE,
};
use toolcall_stream::stream::ToolCallStreamExt;
use toolcall_stream::{Format, Ids, OwnedEvent, Parser};

const CHUNK_SIZES: [usize; 3] = [1, 3, 7];

/// A call cut in the middle of its opening marker and of its value.
const CALL: &str = "Checking.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n\
                    </parameter>\n</function>\n</tool_call>";

fn meta() -> CompletionMeta {
    CompletionMeta::seeded("test-model", 7).with_created(1_700_000_000)
}

fn parser() -> Parser {
    Parser::builder()
        .format(Format::Qwen3Coder)
        .ids(Ids::sequential("call_"))
        .build()
}

/// `input` in pieces of `size` bytes.
fn pieces(input: &[u8], size: usize) -> Vec<Vec<u8>> {
    input.chunks(size.max(1)).map(<[u8]>::to_vec).collect()
}

/// What `Parser::feed` and `finish` give for `input` in pieces of `size`.
fn fed(parser: &mut Parser, input: &[u8], size: usize) -> Vec<OwnedEvent> {
    feed_cut(parser, input, &chunk_cuts(input.len(), size))
}

#[test]
fn events_are_those_of_feed_for_every_fixture_and_chunk_size() {
    let mut streams = 0;
    for fixture in fixtures() {
        for size in CHUNK_SIZES {
            let expected = fed(&mut fixture.parser(), &fixture.input, size);
            let chunks = stream::iter(pieces(&fixture.input, size));
            let events: Vec<OwnedEvent> = block_on(chunks.tool_calls(fixture.parser()).collect());
            assert_eq!(
                events,
                expected,
                "{}/{} in {size}-byte chunks",
                fixture.format.name(),
                fixture.name
            );
            streams += 1;
        }
    }
    assert!(streams >= 100 * CHUNK_SIZES.len(), "{streams} streams");
}

/// A call as a client accumulates it from its deltas.
#[derive(Default)]
struct CallSoFar {
    id: String,
    name: String,
    arguments: String,
}

/// Joins chunks as an OpenAI client does: content (and reasoning)
/// concatenated, calls
/// accumulated by `index` (id and name from their first delta, arguments
/// concatenated), the finish reason from the last chunk. Checks on the way
/// that only the last chunk has a finish reason and only the first a role.
fn reassemble(chunks: &[ChatCompletionChunk], context: &str) -> ChatCompletion {
    let mut content: Option<String> = None;
    let mut reasoning: Option<String> = None;
    let mut calls: BTreeMap<usize, CallSoFar> = BTreeMap::new();
    let mut finish_reason = None;
    for (position, chunk) in chunks.iter().enumerate() {
        assert_eq!(chunk.id, meta().id, "{context}");
        let choice = &chunk.choices[0];
        let last = position + 1 == chunks.len();
        assert_eq!(
            choice.finish_reason.is_some(),
            last,
            "{context}: chunk {position}"
        );
        assert_eq!(
            choice.delta.role.is_some(),
            position == 0,
            "{context}: chunk {position}"
        );
        if let Some(text) = &choice.delta.content {
            content.get_or_insert_with(String::new).push_str(text);
        }
        if let Some(text) = &choice.delta.reasoning_content {
            reasoning.get_or_insert_with(String::new).push_str(text);
        }
        for call in choice.delta.tool_calls.iter().flatten() {
            let so_far = calls.entry(call.index).or_default();
            if let Some(id) = &call.id {
                so_far.id = id.clone();
            }
            let function = call.function.as_ref().expect("a delta has a function");
            if let Some(name) = &function.name {
                so_far.name = name.clone();
            }
            so_far
                .arguments
                .push_str(function.arguments.as_deref().unwrap_or(""));
        }
        finish_reason = choice.finish_reason.clone();
    }
    // The client's view, written into the completion the whole output gives.
    let mut completion = toolcall_stream::Message::default().to_chat_completion(&meta(), false);
    let message = &mut completion.choices[0].message;
    message.content = content;
    message.reasoning_content = reasoning;
    let tool_calls: Vec<_> = calls
        .into_values()
        .map(|call| toolcall_stream::openai::ToolCall {
            id: call.id,
            kind: "function".to_owned(),
            function: toolcall_stream::openai::FunctionCall {
                name: call.name,
                arguments: call.arguments,
                extra: Default::default(),
            },
            extra: Default::default(),
        })
        .collect();
    message.tool_calls = (!tool_calls.is_empty()).then_some(tool_calls);
    completion.choices[0].finish_reason = finish_reason;
    completion
}

fn check_chat_chunks(fixture: &Fixture) {
    let message = fixture.parser().parse(&fixture.input);
    for cut_off in [false, true] {
        let expected = message.to_chat_completion(&meta(), cut_off);
        for size in CHUNK_SIZES {
            let context = format!(
                "{}/{} in {size}-byte chunks, cut off {cut_off}",
                fixture.format.name(),
                fixture.name
            );
            // Unreadable calls as content, as in `parse`.
            let lean = fixture
                .builder()
                .retain_arguments(false)
                .unreadable_calls_as_content(true)
                .build();
            let chunks: Vec<ChatCompletionChunk> = block_on(
                stream::iter(pieces(&fixture.input, size))
                    .chat_chunks(lean, meta())
                    .cut_off(cut_off)
                    .collect(),
            );
            assert_eq!(reassemble(&chunks, &context), expected, "{context}");
        }
    }
}

#[test]
fn chat_chunks_joined_are_the_completion_for_every_fixture() {
    for fixture in fixtures() {
        check_chat_chunks(&fixture);
    }
}

#[test]
fn sse_frames_are_the_chunks_then_done() {
    let input = stream::iter(pieces(CALL.as_bytes(), 5));
    let chunks: Vec<ChatCompletionChunk> =
        block_on(input.clone().chat_chunks(parser(), meta()).collect());
    let frames: Vec<String> = block_on(input.chat_chunks(parser(), meta()).sse().collect());
    let mut expected: Vec<String> = chunks
        .iter()
        .map(|chunk| {
            let mut frame = String::new();
            write_sse(chunk, &mut frame).unwrap();
            frame
        })
        .collect();
    expected.push(SSE_DONE.to_owned());
    assert_eq!(frames, expected);
    assert_eq!(
        chunks.last().unwrap().choices[0].finish_reason,
        Some(FinishReason::ToolCalls)
    );
}

#[test]
fn an_empty_stream_gives_the_last_chunk_and_done() {
    let empty = stream::iter(Vec::<String>::new());
    assert!(block_on(empty.clone().tool_calls(parser()).collect::<Vec<_>>()).is_empty());
    let frames: Vec<String> = block_on(empty.chat_chunks(parser(), meta()).sse().collect());
    assert_eq!(frames.len(), 2);
    assert!(frames[0].contains(r#""delta":{"role":"assistant"},"finish_reason":"stop""#));
    assert_eq!(frames[1], SSE_DONE);
}

/// Collects the events of `CALL` cut into the given pieces, of any type.
fn events_of<T>(chunks: Vec<T>) -> Vec<OwnedEvent>
where
    T: toolcall_stream::stream::Chunk,
{
    block_on(stream::iter(chunks).tool_calls(parser()).collect())
}

#[test]
fn every_chunk_type_gives_the_same_events() {
    let expected = fed(&mut parser(), CALL.as_bytes(), 4);
    let strs: Vec<&'static str> = {
        // Cut at character boundaries for the text types (CALL is ASCII).
        let mut cuts = Vec::new();
        let mut rest = CALL;
        while !rest.is_empty() {
            let (piece, tail) = rest.split_at(rest.len().min(4));
            cuts.push(piece);
            rest = tail;
        }
        cuts
    };
    let bytes: Vec<&'static [u8]> = CALL.as_bytes().chunks(4).collect();
    assert_eq!(events_of(strs.clone()), expected, "&str");
    assert_eq!(events_of(bytes.clone()), expected, "&[u8]");
    assert_eq!(
        events_of(strs.iter().map(|s| s.to_string()).collect()),
        expected,
        "String"
    );
    assert_eq!(
        events_of(bytes.iter().map(|b| b.to_vec()).collect()),
        expected,
        "Vec<u8>"
    );
    assert_eq!(
        events_of(bytes.iter().map(|b| Bytes::from_static(b)).collect()),
        expected,
        "Bytes"
    );
    assert_eq!(
        events_of(bytes.iter().map(|b| BytesMut::from(*b)).collect()),
        expected,
        "BytesMut"
    );
    assert_eq!(
        events_of(strs.iter().map(|s| Box::<str>::from(*s)).collect()),
        expected,
        "Box<str>"
    );
    assert_eq!(
        events_of(bytes.iter().map(|b| Box::<[u8]>::from(*b)).collect()),
        expected,
        "Box<[u8]>"
    );
    assert_eq!(
        events_of(
            strs.iter()
                .map(|s| Cow::Borrowed(*s))
                .collect::<Vec<Cow<str>>>()
        ),
        expected,
        "Cow<str>"
    );
    assert_eq!(
        events_of(
            bytes
                .iter()
                .map(|b| Cow::Owned(b.to_vec()))
                .collect::<Vec<Cow<[u8]>>>()
        ),
        expected,
        "Cow<[u8]>"
    );
}

#[test]
fn infallible_results_give_results() {
    let chunks = stream::iter(CALL.as_bytes().chunks(6).map(Ok::<_, Infallible>));
    let items: Vec<Result<OwnedEvent, Infallible>> =
        block_on(chunks.tool_calls(parser()).collect());
    let events: Vec<OwnedEvent> = items
        .into_iter()
        .map(|item| item.unwrap_or_else(|never| match never {}))
        .collect();
    assert_eq!(events, fed(&mut parser(), CALL.as_bytes(), 6));
}

#[derive(Debug, PartialEq)]
struct Reset(u32);

#[test]
fn an_error_comes_through_unchanged_after_the_events_before_it_and_parsing_goes_on() {
    // The error falls inside the opening marker: the parser keeps what it
    // held across it.
    let (before, after) = CALL.split_at("Checking.\n<tool_".len());
    let chunks = stream::iter([Ok(before), Err(Reset(104)), Ok(after)]);
    let items: Vec<Result<OwnedEvent, Reset>> = block_on(chunks.tool_calls(parser()).collect());
    let error_at = items.iter().position(Result::is_err).unwrap();
    assert_eq!(items[error_at], Err(Reset(104)));
    // Before the error: every event of the first chunk, the content.
    let first: Vec<OwnedEvent> = parser().feed(before).map(|e| e.into_owned()).collect();
    let oks = |items: &[Result<OwnedEvent, Reset>]| -> Vec<OwnedEvent> {
        items
            .iter()
            .filter_map(|i| i.as_ref().ok().cloned())
            .collect()
    };
    assert_eq!(oks(&items[..error_at]), first);
    assert_eq!(
        first,
        [OwnedEvent::Content {
            text: "Checking.\n".into()
        }]
    );
    // Around it: all the events of the two chunks, as if the error were not there.
    assert_eq!(
        oks(&items),
        feed_cut(&mut parser(), CALL.as_bytes(), &[before.len()])
    );
    assert!(matches!(
        items.last(),
        Some(Ok(OwnedEvent::ToolCallEnd { complete: true, .. }))
    ));
}

/// An error of the wrapped stream is a cut: the chunks end as cut off
/// (`length`, the parser finished as at a token limit), then the error,
/// and the wrapped stream is not read again.
#[test]
fn an_error_cuts_the_chat_chunks_and_their_frames() {
    let (before, after) = CALL.split_at(70);
    let items = || {
        stream::iter([
            Ok(before.to_owned()),
            Err(Reset(1)),
            Err(Reset(2)),
            Ok(after.to_owned()),
        ])
    };
    let chunks: Vec<Result<ChatCompletionChunk, Reset>> =
        block_on(items().chat_chunks(parser(), meta()).collect());
    assert_eq!(chunks.last(), Some(&Err(Reset(1))), "{chunks:?}");
    let oks: Vec<ChatCompletionChunk> = chunks
        .iter()
        .filter_map(|c| c.as_ref().ok().cloned())
        .collect();
    assert_eq!(oks.len() + 1, chunks.len(), "one error, the last item");
    // What was read, as a whole completion cut off.
    let cut = parser().parse(before).to_chat_completion(&meta(), true);
    assert_eq!(reassemble(&oks, "cut"), cut);
    assert_eq!(cut.choices[0].finish_reason, Some(FinishReason::Length));
    let call = &cut.choices[0].message.tool_calls.as_ref().unwrap()[0];
    assert_eq!(call.function.name, "get_weather");

    // Held calls: the call that never ended is content.
    let held = Parser::builder()
        .format(Format::Qwen3Coder)
        .incomplete_calls_as_content(true)
        .build();
    let chunks: Vec<Result<ChatCompletionChunk, Reset>> =
        block_on(items().chat_chunks(held, meta()).collect());
    let oks: Vec<ChatCompletionChunk> = chunks.into_iter().filter_map(Result::ok).collect();
    let joined = reassemble(&oks, "held");
    assert_eq!(joined.choices[0].message.content.as_deref(), Some(before));
    assert_eq!(joined.choices[0].message.tool_calls, None);
    assert_eq!(joined.choices[0].finish_reason, Some(FinishReason::Length));

    // The frames: the chunks, an OpenAI error event, `[DONE]`; no `Err`.
    let frames: Vec<Result<String, Reset>> =
        block_on(items().chat_chunks(parser(), meta()).sse().collect());
    let frames: Vec<String> = frames.into_iter().map(Result::unwrap).collect();
    assert_eq!(frames.len(), oks.len() + 2, "{frames:?}");
    assert_eq!(frames.last().map(String::as_str), Some(SSE_DONE));
    let error = &frames[frames.len() - 2];
    let json = error.strip_prefix("data: ").unwrap().trim_end();
    let error: ErrorResponse = serde_json::from_str(json).unwrap();
    assert_eq!(error.error.kind, "server_error");
    assert!(!error.error.message.contains("Reset"), "{json}");
    assert!(frames[frames.len() - 3].contains(r#""finish_reason":"length""#));

    // The event the server chooses.
    let frames: Vec<Result<String, Reset>> = block_on(
        items()
            .chat_chunks(parser(), meta())
            .sse()
            .error_event(ErrorResponse::new("upstream_stream_error", "cut").with_code("reset"))
            .collect(),
    );
    let error = frames[frames.len() - 2].as_ref().unwrap();
    assert_eq!(
        error.as_str(),
        "data: {\"error\":{\"message\":\"cut\",\"type\":\"upstream_stream_error\",\"param\":null,\"code\":\"reset\"}}\n\n"
    );
}

/// A clean end gives no error event; a usage chunk, when asked for, comes
/// after the last chunk (also after a cut), with no choices.
#[test]
fn the_usage_chunk_follows_the_last_chunk() {
    let usage: Usage = serde_json::from_value(
        serde_json::json!({"prompt_tokens": 4, "completion_tokens": 9, "total_tokens": 13}),
    )
    .unwrap();
    let chunks: Vec<ChatCompletionChunk> = block_on(
        stream::iter(pieces(CALL.as_bytes(), 9))
            .chat_chunks(parser(), meta())
            .usage(usage.clone())
            .collect(),
    );
    let (last, finish) = (&chunks[chunks.len() - 1], &chunks[chunks.len() - 2]);
    assert_eq!(
        finish.choices[0].finish_reason,
        Some(FinishReason::ToolCalls)
    );
    assert!(last.choices.is_empty());
    assert_eq!(last.usage.as_ref(), Some(&usage));
    assert_eq!(
        (last.id.as_str(), last.created),
        (meta().id.as_str(), meta().created)
    );
    assert_eq!(
        reassemble(&chunks[..chunks.len() - 1], "usage"),
        parser().parse(CALL).to_chat_completion(&meta(), false)
    );
    // Its frame comes before `[DONE]`; no error event on a clean end.
    let frames: Vec<String> = block_on(
        stream::iter([CALL])
            .chat_chunks(parser(), meta())
            .usage(usage.clone())
            .sse()
            .collect(),
    );
    assert!(frames[frames.len() - 2].starts_with(r#"data: {"id""#));
    assert!(frames[frames.len() - 2].contains(r#""choices":[],"usage":{"prompt_tokens":4"#));
    assert!(frames.iter().all(|f| !f.contains(r#""error""#)));

    // After a cut: finish, usage, then the error.
    let items = stream::iter([Ok("Hi"), Err(Reset(3))]);
    let chunks: Vec<Result<ChatCompletionChunk, Reset>> = block_on(
        items
            .chat_chunks(parser(), meta())
            .usage_with(move || usage)
            .collect(),
    );
    let n = chunks.len();
    assert_eq!(
        chunks[n - 3].as_ref().unwrap().choices[0].finish_reason,
        Some(FinishReason::Length)
    );
    assert!(chunks[n - 2].as_ref().unwrap().usage.is_some());
    assert_eq!(chunks[n - 1], Err(Reset(3)));
}

/// A stream of chunks that counts how often it is polled and knows when it
/// is dropped; it answers `Pending` (after waking its task) every other
/// poll when `pending` is set, as a network stream does.
struct Counted {
    chunks: std::vec::IntoIter<&'static str>,
    polls: Arc<AtomicUsize>,
    dropped: Arc<AtomicBool>,
    pending: bool,
}

impl Counted {
    fn new(
        chunks: Vec<&'static str>,
        pending: bool,
    ) -> (Counted, Arc<AtomicUsize>, Arc<AtomicBool>) {
        let polls = Arc::new(AtomicUsize::new(0));
        let dropped = Arc::new(AtomicBool::new(false));
        let counted = Counted {
            chunks: chunks.into_iter(),
            polls: polls.clone(),
            dropped: dropped.clone(),
            pending,
        };
        (counted, polls, dropped)
    }
}

impl Stream for Counted {
    type Item = &'static str;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<&'static str>> {
        let polls = self.polls.fetch_add(1, Ordering::SeqCst) + 1;
        if self.pending && polls % 2 == 1 {
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        Poll::Ready(self.chunks.next())
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.dropped.store(true, Ordering::SeqCst);
    }
}

fn poll<S: Stream + Unpin>(stream: &mut S) -> Poll<Option<S::Item>> {
    Pin::new(stream).poll_next(&mut Context::from_waker(noop_waker_ref()))
}

#[test]
fn the_wrapped_stream_is_polled_only_when_the_queue_is_empty() {
    // One chunk with three events (content, call start, arguments), then
    // one with the rest.
    let first = "Hi <tool_call>\n<function=f>\n<parameter=a>\n1";
    let (inner, polls, _) = Counted::new(
        vec![first, "\n</parameter>\n</function>\n</tool_call>"],
        false,
    );
    let expected_first: Vec<OwnedEvent> = parser().feed(first).map(|e| e.into_owned()).collect();
    assert!(expected_first.len() >= 3, "{expected_first:?}");
    let mut events = inner.tool_calls(parser());
    assert_eq!(
        polls.load(Ordering::SeqCst),
        0,
        "nothing is polled before the adapter is"
    );
    for (n, expected) in expected_first.iter().enumerate() {
        assert_eq!(poll(&mut events), Poll::Ready(Some(expected.clone())));
        assert_eq!(
            polls.load(Ordering::SeqCst),
            1,
            "event {n}: the first chunk's events are queued"
        );
        assert_eq!(events.size_hint(), (expected_first.len() - n - 1, None));
    }
    // The queue is empty: the next poll reads the second chunk.
    assert!(matches!(poll(&mut events), Poll::Ready(Some(_))));
    assert_eq!(polls.load(Ordering::SeqCst), 2);
    let rest: Vec<OwnedEvent> = block_on((&mut events).collect());
    assert!(matches!(
        rest.last(),
        Some(OwnedEvent::ToolCallEnd { complete: true, .. })
    ));
    // The end was seen once; a fused adapter polls nothing after it.
    assert_eq!(polls.load(Ordering::SeqCst), 3);
    assert!(events.is_terminated());
    assert_eq!(poll(&mut events), Poll::Ready(None));
    assert_eq!(polls.load(Ordering::SeqCst), 3);
}

#[test]
fn chat_chunks_read_on_only_past_pieces_that_make_no_chunk() {
    // "<tool_" makes nothing yet: the adapter reads the next piece at once.
    let (inner, polls, _) = Counted::new(
        vec![
            "Hi ",
            "<tool_",
            "call>\n<function=f>\n",
            "</function></tool_call>",
        ],
        false,
    );
    let mut chunks = inner.chat_chunks(parser(), meta());
    let Poll::Ready(Some(first)) = poll(&mut chunks) else {
        panic!("a chunk")
    };
    // The space waits for what follows it: the call makes it layout.
    assert_eq!(first.choices[0].delta.content.as_deref(), Some("Hi"));
    assert_eq!(polls.load(Ordering::SeqCst), 1);
    let Poll::Ready(Some(second)) = poll(&mut chunks) else {
        panic!("a chunk")
    };
    assert!(second.choices[0].delta.tool_calls.is_some());
    assert_eq!(
        polls.load(Ordering::SeqCst),
        3,
        "the piece that made nothing was read past"
    );
    // The end of the call completes its arguments, `{}`.
    let Poll::Ready(Some(third)) = poll(&mut chunks) else {
        panic!("a chunk")
    };
    let calls = third.choices[0]
        .delta
        .tool_calls
        .as_ref()
        .expect("the arguments");
    assert_eq!(
        calls[0].function.as_ref().unwrap().arguments.as_deref(),
        Some("{}")
    );
    assert_eq!(polls.load(Ordering::SeqCst), 4);
    let Poll::Ready(Some(last)) = poll(&mut chunks) else {
        panic!("a chunk")
    };
    assert_eq!(last.choices[0].finish_reason, Some(FinishReason::ToolCalls));
    assert_eq!(polls.load(Ordering::SeqCst), 5, "the end");
    assert!(chunks.is_terminated());
    assert!(poll(&mut chunks).is_ready());
    assert_eq!(polls.load(Ordering::SeqCst), 5);
}

#[test]
fn pending_is_passed_on_and_nothing_is_lost() {
    let cuts: Vec<&'static str> = CALL
        .as_bytes()
        .chunks(3)
        .map(|b| std::str::from_utf8(b).unwrap())
        .collect();
    let (inner, polls, _) = Counted::new(cuts.clone(), true);
    let mut events = inner.tool_calls(parser());
    assert_eq!(poll(&mut events), Poll::Pending);
    assert_eq!(polls.load(Ordering::SeqCst), 1);
    let all: Vec<OwnedEvent> = block_on(events.collect());
    assert_eq!(all, fed(&mut parser(), CALL.as_bytes(), 3));
}

#[test]
fn dropping_mid_stream_drops_the_wrapped_stream() {
    let (inner, polls, dropped) = Counted::new(
        vec!["Hi <tool_call>\n<function=f>\n", "</function></tool_call>"],
        false,
    );
    let mut events = inner.tool_calls(parser());
    assert_eq!(
        poll(&mut events),
        Poll::Ready(Some(OwnedEvent::Content { text: "Hi ".into() }))
    );
    assert!(!dropped.load(Ordering::SeqCst));
    drop(events);
    assert!(dropped.load(Ordering::SeqCst));
    assert_eq!(polls.load(Ordering::SeqCst), 1);

    let (inner, _, dropped) = Counted::new(vec!["Hi ", "there"], false);
    let mut frames = inner.chat_chunks(parser(), meta()).sse();
    assert!(
        matches!(poll(&mut frames), Poll::Ready(Some(frame)) if frame.contains(r#""content":"Hi""#))
    );
    drop(frames);
    assert!(dropped.load(Ordering::SeqCst));
}

#[test]
fn a_stream_that_is_not_unpin_is_adapted() {
    let inner = stream::iter(pieces(CALL.as_bytes(), 5)).then(|piece| async move { piece });
    let events = std::pin::pin!(inner.tool_calls(parser()));
    assert_eq!(
        block_on(events.collect::<Vec<_>>()),
        fed(&mut parser(), CALL.as_bytes(), 5)
    );
}

#[test]
fn the_parser_is_there_to_look_at() {
    let (inner, _, _) = Counted::new(vec!["<tool_call>\n<function=write>\n<parameter=path>\na.txt\n</parameter>\n<parameter=text>\nHel"], false);
    let mut events = inner.tool_calls(parser());
    assert!(poll(&mut events).is_ready());
    let call = events.parser().partial_call().expect("a call being read");
    assert_eq!(call.name, "write");
    assert_eq!(call.arguments(), r#"{"path": "a.txt", "text": "Hel"}"#);
}

#[tokio::test]
async fn tokio_drives_the_adapters() {
    // The model's output from another task, over a bounded channel.
    let (sender, receiver) = tokio::sync::mpsc::channel::<Bytes>(2);
    let producer = tokio::spawn(async move {
        for piece in CALL.as_bytes().chunks(4) {
            if sender.send(Bytes::copy_from_slice(piece)).await.is_err() {
                break;
            }
            tokio::task::yield_now().await;
        }
    });
    let chunks = tokio_stream::wrappers::ReceiverStream::new(receiver);
    let mut events = chunks.tool_calls(parser());
    let mut seen = Vec::new();
    while let Some(event) = tokio_stream::StreamExt::next(&mut events).await {
        seen.push(event);
    }
    producer.await.unwrap();
    assert_eq!(seen, fed(&mut parser(), CALL.as_bytes(), 4));

    let frames = tokio_stream::iter(["Hi ", "<tool_call>\n<function=f>\n</function></tool_call>"])
        .chat_chunks(parser(), meta())
        .sse();
    let frames: Vec<String> = tokio_stream::StreamExt::collect(frames).await;
    assert_eq!(frames.len(), 4);
    assert_eq!(frames[3], SSE_DONE);
}
