//! The async adapters (feature `stream`): over a stream of chunks they give
//! exactly what the parser gives on the same chunks, for every fixture;
//! each item type works; errors pass through the events unchanged and cut
//! the chunks (`length`, then an error event in the frames); the wrapped stream
//! is polled only when the adapter has nothing left to yield; dropping
//! mid-stream is clean; tokio drives them as well as `futures`' executor.
#![cfg(feature = "stream")]

#[path = "../common/mod.rs"]
mod common;

mod chunks;
mod polling;

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
