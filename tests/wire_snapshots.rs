//! Insta snapshots of whole OpenAI response bodies, as a client reads
//! them: the layout whitespace of a chat template left out of the content,
//! a usage chunk at the end, and a stream cut by an error (the last chunk
//! `length`, an error event, `[DONE]`). Snapshots live in `snapshots/`.
#![cfg(feature = "stream")]

use futures::executor::block_on;
use futures::stream::{self, StreamExt};
use toolcall_stream::openai::{CompletionMeta, Usage};
use toolcall_stream::stream::ToolCallStreamExt;
use toolcall_stream::{Format, Ids, Parser};

/// Qwen3-Coder's answer to "weather in Paris and Berlin?", as its chat
/// template lays it out: a newline before, between and after the calls.
const TWO_CALLS: &str = "Let me check the weather for both cities.\n\
    <tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>\n\
    <tool_call>\n<function=get_weather>\n<parameter=city>\nBerlin\n</parameter>\n</function>\n</tool_call>\n";

fn parser() -> Parser {
    Parser::builder()
        .format(Format::Qwen3Coder)
        .ids(Ids::sequential("call_"))
        .retain_arguments(false)
        .build()
}

fn meta() -> CompletionMeta {
    CompletionMeta::seeded("qwen3-coder", 1).with_created(1_700_000_000)
}

/// The text in pieces of `size` bytes.
fn pieces(text: &'static str, size: usize) -> Vec<&'static str> {
    text.as_bytes()
        .chunks(size)
        .map(|piece| std::str::from_utf8(piece).unwrap())
        .collect()
}

fn snapshot(name: &str, body: String) {
    insta::with_settings!({
        snapshot_path => "../snapshots",
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::assert_snapshot!(format!("wire__{name}"), body);
    });
}

#[test]
fn two_calls_with_layout_and_usage() {
    let usage: Usage = serde_json::from_value(
        serde_json::json!({"prompt_tokens": 20, "completion_tokens": 61, "total_tokens": 81}),
    )
    .unwrap();
    let frames: Vec<String> = block_on(
        stream::iter(pieces(TWO_CALLS, 48))
            .chat_chunks(parser(), meta())
            .usage(usage)
            .sse()
            .collect(),
    );
    snapshot("two_calls_with_layout_and_usage", frames.concat());
}

#[test]
fn a_stream_cut_by_an_error() {
    let mut items: Vec<Result<&str, &str>> =
        pieces(TWO_CALLS, 48).into_iter().take(3).map(Ok).collect();
    items.push(Err("connection reset by peer"));
    let frames: Vec<Result<String, &str>> = block_on(
        stream::iter(items)
            .chat_chunks(parser(), meta())
            .sse()
            .collect(),
    );
    let body: String = frames.into_iter().map(Result::unwrap).collect();
    snapshot("a_stream_cut_by_an_error", body);
}
