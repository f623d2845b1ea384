//! The answer writer: event sequences checked exactly, and read back as
//! the anthropic SDKs read them (`sdk_check`).

use proptest::prelude::*;
use serde_json::{json, Value};
use toolcall_stream::openai::ChatCompletionChunk;

use super::sdk_check::{events, read};
use super::{translate, SIGNATURE};
use crate::proxy::agent::{AnswerWriter, Failure, FailureKind, IdMaker, Options};

/// The estimate of [`REQUEST`]'s input: "user" and "hi" (6 bytes → 2
/// tokens) and 4 for the message.
const ESTIMATE: u64 = 6;

fn writer_with(stream: bool, extra: Value, max_answer_bytes: usize) -> Box<dyn AnswerWriter> {
    let mut body = json!({"model": "claude-x", "max_tokens": 100, "stream": stream,
        "messages": [{"role": "user", "content": "hi"}]});
    for (key, value) in extra.as_object().unwrap() {
        body[key] = value.clone();
    }
    let options = Options {
        upstream_model: "up".into(),
        max_tokens_cap: None,
        max_answer_bytes,
        ids: IdMaker::Sequential(0),
    };
    translate(&body, &options).unwrap().writer
}

fn writer(stream: bool) -> Box<dyn AnswerWriter> {
    writer_with(stream, json!({}), 1 << 20)
}

fn thinking_writer(stream: bool) -> Box<dyn AnswerWriter> {
    writer_with(stream, json!({"thinking": {"type": "enabled", "budget_tokens": 2048}}), 1 << 20)
}

/// A chunk of choice 0 with this delta (and finish, and usage).
fn chunk(delta: Value) -> ChatCompletionChunk {
    chunk_with(delta, Value::Null, Value::Null)
}

fn chunk_with(delta: Value, finish: Value, usage: Value) -> ChatCompletionChunk {
    let mut chunk = json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1,
        "model": "up", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
    if !usage.is_null() {
        chunk["usage"] = usage;
    }
    serde_json::from_value(chunk).unwrap()
}

fn finish(reason: &str) -> ChatCompletionChunk {
    chunk_with(json!({}), json!(reason), Value::Null)
}

fn usage(prompt: u64, completion: u64) -> Value {
    json!({"prompt_tokens": prompt, "completion_tokens": completion,
        "total_tokens": prompt + completion})
}

fn call(index: usize, id: Option<&str>, name: Option<&str>, arguments: &str) -> Value {
    let mut call = json!({"index": index, "function": {"arguments": arguments}});
    if let Some(id) = id {
        call["id"] = json!(id);
        call["type"] = json!("function");
    }
    if let Some(name) = name {
        call["function"]["name"] = json!(name);
    }
    json!({"tool_calls": [call]})
}

/// Feeds `chunks`, then ends with `complete_calls`: the events written.
fn run(writer: &mut dyn AnswerWriter, chunks: &[ChatCompletionChunk], complete_calls: usize) -> String {
    let mut out = String::new();
    for chunk in chunks {
        writer.chunk(chunk, &mut out).unwrap();
    }
    writer.end(complete_calls, &mut out);
    out
}

fn datas(sse: &str) -> Vec<Value> {
    events(sse).into_iter().map(|(_, data)| data).collect()
}

fn start(input_tokens: u64) -> Value {
    json!({"type": "message_start", "message": {"id": "msg_0", "type": "message",
        "role": "assistant", "model": "claude-x", "content": [], "stop_reason": null,
        "stop_sequence": null, "usage": {"input_tokens": input_tokens, "output_tokens": 1,
            "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}})
}

fn block_start(index: usize, block: Value) -> Value {
    json!({"type": "content_block_start", "index": index, "content_block": block})
}

fn delta(index: usize, delta: Value) -> Value {
    json!({"type": "content_block_delta", "index": index, "delta": delta})
}

fn text_delta(index: usize, text: &str) -> Value {
    delta(index, json!({"type": "text_delta", "text": text}))
}

fn json_delta(index: usize, partial: &str) -> Value {
    delta(index, json!({"type": "input_json_delta", "partial_json": partial}))
}

fn stop(index: usize) -> Value {
    json!({"type": "content_block_stop", "index": index})
}

fn message_delta(reason: &str, input: u64, output: u64) -> Value {
    json!({"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": null},
        "usage": {"input_tokens": input, "output_tokens": output,
            "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}})
}

fn message_stop() -> Value {
    json!({"type": "message_stop"})
}

#[test]
fn text_only() {
    let mut writer = writer(true);
    let sse = run(
        &mut *writer,
        &[
            chunk(json!({"role": "assistant", "content": ""})),
            chunk(json!({"content": "Hel"})),
            chunk(json!({"content": "lo"})),
            chunk_with(json!({}), json!("stop"), usage(10, 2)),
        ],
        0,
    );
    assert_eq!(
        datas(&sse),
        [
            start(ESTIMATE),
            block_start(0, json!({"type": "text", "text": ""})),
            text_delta(0, "Hel"),
            text_delta(0, "lo"),
            stop(0),
            message_delta("end_turn", 10, 2),
            message_stop(),
        ]
    );
    assert!(sse.starts_with("event: message_start\ndata: {"));
    assert_eq!(read(&sse).message["content"], json!([{"type": "text", "text": "Hello"}]));
}

#[test]
fn text_and_one_call() {
    let mut writer = writer(true);
    let sse = run(
        &mut *writer,
        &[
            chunk_with(json!({"content": "Let me check."}), Value::Null, usage(12, 3)),
            chunk(call(0, Some("call_abc"), Some("Bash"), "")),
            chunk(call(0, None, None, "{\"command\"")),
            chunk(call(0, None, None, ":\"ls\"}")),
            chunk_with(json!({}), json!("tool_calls"), usage(12, 9)),
        ],
        1,
    );
    assert_eq!(
        datas(&sse),
        [
            start(12),
            block_start(0, json!({"type": "text", "text": ""})),
            text_delta(0, "Let me check."),
            stop(0),
            block_start(1, json!({"type": "tool_use", "id": "call_abc", "name": "Bash", "input": {}})),
            json_delta(1, "{\"command\""),
            json_delta(1, ":\"ls\"}"),
            stop(1),
            message_delta("tool_use", 12, 9),
            message_stop(),
        ]
    );
    let message = read(&sse).message;
    assert_eq!(message["content"][1]["input"], json!({"command": "ls"}));
}

#[test]
fn two_calls_make_tool_use_even_when_upstream_says_stop() {
    let mut writer = writer(true);
    let sse = run(
        &mut *writer,
        &[
            chunk(call(0, Some("call_1"), Some("Read"), "{\"path\":\"a\"}")),
            chunk(call(1, Some("call_2"), Some("Read"), "{\"path\":")),
            chunk(call(1, None, None, "\"b\"}")),
            finish("stop"),
        ],
        2,
    );
    let datas = datas(&sse);
    assert_eq!(
        &datas[1..],
        [
            block_start(0, json!({"type": "tool_use", "id": "call_1", "name": "Read", "input": {}})),
            json_delta(0, "{\"path\":\"a\"}"),
            stop(0),
            block_start(1, json!({"type": "tool_use", "id": "call_2", "name": "Read", "input": {}})),
            json_delta(1, "{\"path\":"),
            json_delta(1, "\"b\"}"),
            stop(1),
            // No usage came: the estimate, and the names and arguments' 32
            // bytes / 4.
            message_delta("tool_use", ESTIMATE, 8),
            message_stop(),
        ]
    );
}

#[test]
fn reasoning_text_and_call_with_thinking() {
    let mut writer = thinking_writer(true);
    let sse = run(
        &mut *writer,
        &[
            chunk(json!({"reasoning_content": "Think"})),
            chunk(json!({"reasoning_content": "ing."})),
            chunk(json!({"content": "Answer."})),
            chunk(json!({"reasoning": "More."})),
            chunk(call(0, Some("call_9"), Some("f"), "{}")),
            finish("tool_calls"),
        ],
        1,
    );
    let signature = delta(0, json!({"type": "signature_delta", "signature": SIGNATURE}));
    let datas = datas(&sse);
    assert_eq!(
        &datas[1..datas.len() - 2],
        [
            block_start(0, json!({"type": "thinking", "thinking": "", "signature": ""})),
            delta(0, json!({"type": "thinking_delta", "thinking": "Think"})),
            delta(0, json!({"type": "thinking_delta", "thinking": "ing."})),
            signature,
            stop(0),
            block_start(1, json!({"type": "text", "text": ""})),
            text_delta(1, "Answer."),
            stop(1),
            block_start(2, json!({"type": "thinking", "thinking": "", "signature": ""})),
            delta(2, json!({"type": "thinking_delta", "thinking": "More."})),
            delta(2, json!({"type": "signature_delta", "signature": SIGNATURE})),
            stop(2),
            block_start(3, json!({"type": "tool_use", "id": "call_9", "name": "f", "input": {}})),
            json_delta(3, "{}"),
            stop(3),
        ]
    );
    assert_eq!(read(&sse).message["stop_reason"], "tool_use");
}

#[test]
fn reasoning_is_dropped_unless_thinking_was_asked() {
    let mut writer = writer(true);
    let sse = run(
        &mut *writer,
        &[
            chunk(json!({"reasoning_content": "Hidden thoughts."})),
            chunk(json!({"content": "Hi"})),
            finish("stop"),
        ],
        0,
    );
    let message = read(&sse).message;
    assert_eq!(message["content"], json!([{"type": "text", "text": "Hi"}]));
    // The reasoning still counts as output: 18 bytes → 5 tokens.
    assert_eq!(message["usage"]["output_tokens"], 5);
}

#[test]
fn arguments_in_many_fragments_parse_at_the_stop() {
    let arguments = r#"{"path": "src/main.rs", "text": "fn main() {\n    println!(\"é😀\");\n}"}"#;
    let mut chunks = vec![chunk(call(0, Some("call_x"), Some("Write"), ""))];
    for piece in arguments.chars() {
        chunks.push(chunk(call(0, None, None, &piece.to_string())));
    }
    chunks.push(finish("tool_calls"));
    let sse = run(&mut *writer(true), &chunks, 1);
    let message = read(&sse).message;
    assert_eq!(
        message["content"][0]["input"],
        serde_json::from_str::<Value>(arguments).unwrap()
    );
    let whole = run(&mut *writer(false), &chunks, 1);
    assert_eq!(events(&whole).len(), events(&sse).len());
}

#[test]
fn a_call_without_arguments_has_an_empty_input() {
    for arguments in ["", "{}"] {
        let chunks = [chunk(call(0, Some("call_1"), Some("Stop"), arguments)), finish("tool_calls")];
        let sse = run(&mut *writer(true), &chunks, 1);
        assert!(datas(&sse).contains(&json_delta(0, "{}")));
        assert_eq!(read(&sse).message["content"][0]["input"], json!({}));
        let mut whole = writer(false);
        run(&mut *whole, &chunks, 1);
        assert_eq!(whole.answer()["content"][0]["input"], json!({}));
    }
}

#[test]
fn length_with_a_cut_call_is_max_tokens() {
    let chunks = [
        chunk(json!({"content": "Two calls."})),
        chunk(call(0, Some("call_1"), Some("f"), "{\"a\":1}")),
        chunk(call(1, Some("call_2"), Some("g"), "{\"b\":")),
        finish("length"),
    ];
    let sse = run(&mut *writer(true), &chunks, 1);
    let datas = datas(&sse);
    assert_eq!(
        &datas[datas.len() - 4..],
        [
            json_delta(2, "{\"b\":"),
            stop(2),
            message_delta("max_tokens", ESTIMATE, 6),
            message_stop(),
        ]
    );
    let read = read(&sse);
    assert_eq!(read.message["stop_reason"], "max_tokens");
    assert_eq!(read.message["content"][2]["input"], "{\"b\":");
    // Whole, the cut call is left out.
    let mut whole = writer(false);
    run(&mut *whole, &chunks, 1);
    let answer = whole.answer();
    assert_eq!(answer["stop_reason"], "max_tokens");
    assert_eq!(
        answer["content"],
        json!([{"type": "text", "text": "Two calls."},
            {"type": "tool_use", "id": "call_1", "name": "f", "input": {"a": 1}}])
    );
    // Length with no call: max_tokens; with every call complete: tool_use.
    let sse = run(&mut *writer(true), &[chunk(json!({"content": "a"})), finish("length")], 0);
    assert_eq!(read_reason(&sse), "max_tokens");
    let complete = [chunks[0].clone(), chunks[1].clone(), finish("length")];
    let sse = run(&mut *writer(true), &complete, 1);
    assert_eq!(read_reason(&sse), "tool_use");
}

fn read_reason(sse: &str) -> String {
    read(sse).message["stop_reason"].as_str().unwrap().to_owned()
}
