//! The writer's events for each kind of answer, checked exactly and
//! read back as the anthropic SDKs read them (`sdk_check`).

use serde_json::{json, Value};

use super::sdk_check::{events, read};
use super::support::*;
use crate::proxy::agent::messages::writer::SIGNATURE;

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
    assert_eq!(
        read(&sse).message["content"],
        json!([{"type": "text", "text": "Hello"}])
    );
}

#[test]
fn text_and_one_call() {
    let mut writer = writer(true);
    let sse = run(
        &mut *writer,
        &[
            chunk_with(
                json!({"content": "Let me check."}),
                Value::Null,
                usage(12, 3),
            ),
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
            block_start(
                1,
                json!({"type": "tool_use", "id": "call_abc", "name": "Bash", "input": {}})
            ),
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
            block_start(
                0,
                json!({"type": "tool_use", "id": "call_1", "name": "Read", "input": {}})
            ),
            json_delta(0, "{\"path\":\"a\"}"),
            stop(0),
            block_start(
                1,
                json!({"type": "tool_use", "id": "call_2", "name": "Read", "input": {}})
            ),
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
    let signature = delta(
        0,
        json!({"type": "signature_delta", "signature": SIGNATURE}),
    );
    let datas = datas(&sse);
    assert_eq!(
        &datas[1..datas.len() - 2],
        [
            block_start(
                0,
                json!({"type": "thinking", "thinking": "", "signature": ""})
            ),
            delta(0, json!({"type": "thinking_delta", "thinking": "Think"})),
            delta(0, json!({"type": "thinking_delta", "thinking": "ing."})),
            signature,
            stop(0),
            block_start(1, json!({"type": "text", "text": ""})),
            text_delta(1, "Answer."),
            stop(1),
            block_start(
                2,
                json!({"type": "thinking", "thinking": "", "signature": ""})
            ),
            delta(2, json!({"type": "thinking_delta", "thinking": "More."})),
            delta(
                2,
                json!({"type": "signature_delta", "signature": SIGNATURE})
            ),
            stop(2),
            block_start(
                3,
                json!({"type": "tool_use", "id": "call_9", "name": "f", "input": {}})
            ),
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
        let chunks = [
            chunk(call(0, Some("call_1"), Some("Stop"), arguments)),
            finish("tool_calls"),
        ];
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
    let sse = run(
        &mut *writer(true),
        &[chunk(json!({"content": "a"})), finish("length")],
        0,
    );
    assert_eq!(read_reason(&sse), "max_tokens");
    let complete = [chunks[0].clone(), chunks[1].clone(), finish("length")];
    let sse = run(&mut *writer(true), &complete, 1);
    assert_eq!(read_reason(&sse), "tool_use");
}

#[test]
fn a_call_left_unfinished_is_never_tool_use() {
    // The model stopped (no token limit) inside its second call.
    let chunks = [
        chunk(json!({"content": "Two calls."})),
        chunk(call(0, Some("call_1"), Some("f"), "{\"a\":1}")),
        chunk(call(1, Some("call_2"), Some("g"), "{\"b\":")),
        finish("stop"),
    ];
    let sse = run(&mut *writer(true), &chunks, 1);
    assert_eq!(read(&sse).message["stop_reason"], "end_turn");
    let mut whole = writer(false);
    run(&mut *whole, &chunks, 1);
    let answer = whole.answer();
    assert_eq!(answer["stop_reason"], "end_turn");
    // Whole, the unfinished call is left out; the finished one is kept.
    assert_eq!(
        answer["content"],
        json!([{"type": "text", "text": "Two calls."},
            {"type": "tool_use", "id": "call_1", "name": "f", "input": {"a": 1}}])
    );
}
