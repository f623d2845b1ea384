//! What the writer's tests share: writers made by `translate`, chat
//! chunks built from JSON, and the events expected.

use serde_json::{json, Value};
use toolcall_stream::openai::ChatCompletionChunk;

use super::sdk_check::{events, read};
use crate::proxy::agent::messages::translate;
use crate::proxy::agent::{AnswerWriter, IdMaker, Options};

/// The estimate of the request's input: "user" and "hi" (6 bytes → 2
/// tokens) and 4 for the message.
pub(super) const ESTIMATE: u64 = 6;

pub(super) fn writer_with(
    stream: bool,
    extra: Value,
    max_answer_bytes: usize,
) -> Box<dyn AnswerWriter> {
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

pub(super) fn writer(stream: bool) -> Box<dyn AnswerWriter> {
    writer_with(stream, json!({}), 1 << 20)
}

pub(super) fn thinking_writer(stream: bool) -> Box<dyn AnswerWriter> {
    writer_with(
        stream,
        json!({"thinking": {"type": "enabled", "budget_tokens": 2048}}),
        1 << 20,
    )
}

/// A chunk of choice 0 with this delta (and finish, and usage).
pub(super) fn chunk(delta: Value) -> ChatCompletionChunk {
    chunk_with(delta, Value::Null, Value::Null)
}

pub(super) fn chunk_with(delta: Value, finish: Value, usage: Value) -> ChatCompletionChunk {
    let mut chunk = json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1,
        "model": "up", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
    if !usage.is_null() {
        chunk["usage"] = usage;
    }
    serde_json::from_value(chunk).unwrap()
}

pub(super) fn finish(reason: &str) -> ChatCompletionChunk {
    chunk_with(json!({}), json!(reason), Value::Null)
}

pub(super) fn usage(prompt: u64, completion: u64) -> Value {
    json!({"prompt_tokens": prompt, "completion_tokens": completion,
        "total_tokens": prompt + completion})
}

pub(super) fn call(index: usize, id: Option<&str>, name: Option<&str>, arguments: &str) -> Value {
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
pub(super) fn run(
    writer: &mut dyn AnswerWriter,
    chunks: &[ChatCompletionChunk],
    complete_calls: usize,
) -> String {
    let mut out = String::new();
    for chunk in chunks {
        writer.chunk(chunk, &mut out).unwrap();
    }
    writer.end(complete_calls, &mut out);
    out
}

pub(super) fn datas(sse: &str) -> Vec<Value> {
    events(sse).into_iter().map(|(_, data)| data).collect()
}

pub(super) fn start(input_tokens: u64) -> Value {
    json!({"type": "message_start", "message": {"id": "msg_0", "type": "message",
        "role": "assistant", "model": "claude-x", "content": [], "stop_reason": null,
        "stop_sequence": null, "usage": {"input_tokens": input_tokens, "output_tokens": 1,
            "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}})
}

pub(super) fn block_start(index: usize, block: Value) -> Value {
    json!({"type": "content_block_start", "index": index, "content_block": block})
}

pub(super) fn delta(index: usize, delta: Value) -> Value {
    json!({"type": "content_block_delta", "index": index, "delta": delta})
}

pub(super) fn text_delta(index: usize, text: &str) -> Value {
    delta(index, json!({"type": "text_delta", "text": text}))
}

pub(super) fn json_delta(index: usize, partial: &str) -> Value {
    delta(
        index,
        json!({"type": "input_json_delta", "partial_json": partial}),
    )
}

pub(super) fn stop(index: usize) -> Value {
    json!({"type": "content_block_stop", "index": index})
}

pub(super) fn message_delta(reason: &str, input: u64, output: u64) -> Value {
    json!({"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": null},
        "usage": {"input_tokens": input, "output_tokens": output,
            "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}})
}

pub(super) fn message_stop() -> Value {
    json!({"type": "message_stop"})
}

pub(super) fn read_reason(sse: &str) -> String {
    read(sse).message["stop_reason"]
        .as_str()
        .unwrap()
        .to_owned()
}
