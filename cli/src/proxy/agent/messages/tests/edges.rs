//! The writer at its edges: failures, the answer's bound, keepalive,
//! usage, stop sequences, ids, calls out of the usual order; and the
//! same answer split into chunks anywhere.

use proptest::prelude::*;
use serde_json::{json, Value};
use toolcall_stream::openai::ChatCompletionChunk;

use super::sdk_check::{events, read};
use super::support::*;
use crate::proxy::agent::messages::writer::SIGNATURE;
use crate::proxy::agent::{Failure, FailureKind};

#[test]
fn fail_mid_call_writes_the_error_and_nothing_after() {
    let mut writer = writer(true);
    let mut out = String::new();
    writer
        .chunk(
            &chunk(call(0, Some("call_1"), Some("f"), "{\"a\":")),
            &mut out,
        )
        .unwrap();
    let cut = Failure::new(FailureKind::Cut, "the upstream's stream was cut");
    writer.fail(&cut, 0, &mut out);
    // Called again, or ended, or kept alive: nothing more.
    writer.fail(&cut, 0, &mut out);
    writer.end(0, &mut out);
    writer.keepalive(&mut out);
    let datas = datas(&out);
    assert_eq!(
        &datas[1..],
        [
            block_start(
                0,
                json!({"type": "tool_use", "id": "call_1", "name": "f", "input": {}})
            ),
            json_delta(0, "{\"a\":"),
            json!({"type": "error", "error": {"type": "api_error",
                "message": "the upstream's stream was cut"}}),
        ]
    );
    let read = read(&out);
    assert!(!read.stopped);
    assert_eq!(read.error.unwrap()["type"], "api_error");
}

#[test]
fn fail_mid_text_and_before_anything() {
    let mut writer = writer(true);
    let mut out = String::new();
    writer
        .chunk(&chunk(json!({"content": "Hal"})), &mut out)
        .unwrap();
    writer.fail(
        &Failure::new(FailureKind::Timeout, "no answer for 60 s"),
        0,
        &mut out,
    );
    assert_eq!(
        datas(&out)[1..],
        [
            block_start(0, json!({"type": "text", "text": ""})),
            text_delta(0, "Hal"),
            json!({"type": "error", "error": {"type": "timeout_error", "message": "no answer for 60 s"}}),
        ]
    );
    let mut writer = self::writer(true);
    let mut out = String::new();
    writer.fail(
        &Failure::new(FailureKind::StreamError, "bad JSON"),
        0,
        &mut out,
    );
    assert_eq!(
        datas(&out),
        [
            start(ESTIMATE),
            json!({"type": "error", "error": {"type": "api_error", "message": "bad JSON"}}),
        ]
    );
}

#[test]
fn upstream_errors_in_anthropic_kinds() {
    let failed = |kind: FailureKind, message: &str| {
        let mut writer = writer(false);
        let mut out = String::new();
        writer
            .chunk(&chunk(json!({"content": "x"})), &mut out)
            .unwrap();
        writer.fail(&Failure::new(kind, message), 0, &mut out);
        let answer = writer.answer();
        assert_eq!(
            events(&out).last().unwrap().1,
            answer,
            "the answer is the error"
        );
        answer
    };
    assert_eq!(
        failed(FailureKind::Upstream, "upstream: model crashed"),
        json!({"type": "error", "error": {"type": "api_error", "message": "upstream: model crashed"}})
    );
    let context = failed(
        FailureKind::ContextLength,
        "maximum context length is 32768",
    );
    assert_eq!(context["error"]["type"], "invalid_request_error");
    assert_eq!(
        context["error"]["message"],
        "prompt is too long: maximum context length is 32768"
    );
}

#[test]
fn a_whole_answer_past_its_bound_is_too_large() {
    let mut writer = writer_with(false, json!({}), 10);
    let mut out = String::new();
    writer
        .chunk(&chunk(json!({"content": "12345"})), &mut out)
        .unwrap();
    let failure = writer
        .chunk(&chunk(json!({"content": "678901"})), &mut out)
        .unwrap_err();
    assert_eq!(failure.kind, FailureKind::TooLarge);
    writer.fail(&failure, 0, &mut out);
    assert_eq!(writer.answer()["error"]["type"], "request_too_large");
    // Arguments count too, and a call waiting for its name.
    let mut writer = writer_with(false, json!({}), 10);
    let big = call(0, Some("c"), Some("f"), "{\"a\":\"123456\"}");
    assert!(writer.chunk(&chunk(big), &mut String::new()).is_err());
    let mut writer = writer_with(true, json!({}), 10);
    let nameless = call(0, Some("c"), None, "{\"a\":\"123456\"}");
    assert!(writer.chunk(&chunk(nameless), &mut String::new()).is_err());
    // Streamed, text is not kept, so it has no bound.
    let mut writer = writer_with(true, json!({}), 10);
    let long = chunk(json!({"content": "a long text of more than ten bytes"}));
    assert!(writer.chunk(&long, &mut String::new()).is_ok());
}

#[test]
fn keepalive_pings_until_the_end() {
    let mut writer = writer(true);
    let mut out = String::new();
    writer.keepalive(&mut out);
    assert_eq!(out, "event: ping\ndata: {\"type\":\"ping\"}\n\n");
    writer
        .chunk(&chunk(json!({"content": "a"})), &mut out)
        .unwrap();
    writer.keepalive(&mut out);
    writer.end(0, &mut out);
    let before = out.len();
    writer.keepalive(&mut out);
    assert_eq!(out.len(), before);
    let names: Vec<String> = events(&out).into_iter().map(|(name, _)| name).collect();
    assert_eq!(
        names,
        [
            "ping",
            "message_start",
            "content_block_start",
            "content_block_delta",
            "ping",
            "content_block_stop",
            "message_delta",
            "message_stop"
        ]
    );
    assert!(read(&out).stopped);
}

/// An answer with every kind of block, and usage with cached tokens.
fn full_answer() -> Vec<ChatCompletionChunk> {
    let usage_with_cache = |completion: u64| {
        json!({"prompt_tokens": 100, "completion_tokens": completion, "total_tokens": 100 + completion,
            "prompt_tokens_details": {"cached_tokens": 64}})
    };
    vec![
        chunk_with(
            json!({"role": "assistant", "reasoning_content": "Plan."}),
            Value::Null,
            usage_with_cache(1),
        ),
        chunk_with(
            json!({"content": "I'll read "}),
            Value::Null,
            usage_with_cache(4),
        ),
        chunk(json!({"content": "both."})),
        chunk(call(0, Some("call_a"), Some("Read"), "{\"path\":")),
        chunk(call(0, None, None, "\"a.rs\"}")),
        chunk(call(1, Some("call_b"), Some("Read"), "{\"path\":\"b.rs\"}")),
        chunk_with(json!({}), json!("tool_calls"), usage_with_cache(20)),
    ]
}

#[test]
fn the_whole_answer_is_the_streamed_message() {
    let streamed = read(&run(&mut *thinking_writer(true), &full_answer(), 2)).message;
    let mut whole = thinking_writer(false);
    run(&mut *whole, &full_answer(), 2);
    let answer = whole.answer();
    assert_eq!(answer, streamed);
    assert_eq!(
        answer,
        json!({"id": "msg_0", "type": "message", "role": "assistant", "model": "claude-x",
            "content": [
                {"type": "thinking", "thinking": "Plan.", "signature": SIGNATURE},
                {"type": "text", "text": "I'll read both."},
                {"type": "tool_use", "id": "call_a", "name": "Read", "input": {"path": "a.rs"}},
                {"type": "tool_use", "id": "call_b", "name": "Read", "input": {"path": "b.rs"}}],
            "stop_reason": "tool_use", "stop_sequence": null,
            "usage": {"input_tokens": 36, "output_tokens": 20,
                "cache_creation_input_tokens": 0, "cache_read_input_tokens": 64}})
    );
}

#[test]
fn usage_from_the_first_chunk_and_the_last() {
    let sse = run(&mut *thinking_writer(true), &full_answer(), 2);
    let datas = datas(&sse);
    // The first chunk's usage, less its cached tokens.
    assert_eq!(datas[0]["message"]["usage"]["input_tokens"], 36);
    assert_eq!(datas[0]["message"]["usage"]["cache_read_input_tokens"], 64);
    assert_eq!(datas[0]["message"]["usage"]["output_tokens"], 1);
    // Usage in a last chunk without choices.
    let chunks = [
        chunk(json!({"content": "ok"})),
        finish("stop"),
        serde_json::from_value(
            json!({"id": "c", "object": "chat.completion.chunk", "created": 1,
            "model": "up", "choices": [], "usage": usage(50, 3)}),
        )
        .unwrap(),
    ];
    let sse = run(&mut *writer(true), &chunks, 0);
    assert_eq!(datas_last_usage(&sse), (50, 3));
}

fn datas_last_usage(sse: &str) -> (u64, u64) {
    let message = read(sse).message;
    let usage = &message["usage"];
    (
        usage["input_tokens"].as_u64().unwrap(),
        usage["output_tokens"].as_u64().unwrap(),
    )
}

#[test]
fn a_matched_stop_sequence_is_said() {
    let reason = |stop_reason: Value| {
        let mut choice_end = finish("stop");
        choice_end.choices[0]
            .extra
            .insert("stop_reason".into(), stop_reason);
        let mut writer = writer_with(true, json!({"stop_sequences": ["END"]}), 1 << 20);
        let sse = run(
            &mut *writer,
            &[chunk(json!({"content": "done"})), choice_end],
            0,
        );
        let message = read(&sse).message;
        (
            message["stop_reason"].clone(),
            message["stop_sequence"].clone(),
        )
    };
    assert_eq!(reason(json!("END")), (json!("stop_sequence"), json!("END")));
    // A stop token's id, or a string the client did not ask for.
    assert_eq!(reason(json!(151645)), (json!("end_turn"), Value::Null));
    assert_eq!(reason(json!("</s>")), (json!("end_turn"), Value::Null));
    let sse = run(&mut *writer(true), &[finish("content_filter")], 0);
    assert_eq!(read_reason(&sse), "refusal");
}

#[test]
fn unusable_or_repeated_ids_are_minted() {
    let mut body_writer = writer_with(
        true,
        json!({"messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "call_old", "name": "f", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_old", "content": "r"}]}]}),
        1 << 20,
    );
    let chunks = [
        chunk(call(0, Some("0"), Some("f"), "{}")),
        chunk(call(1, Some("0"), Some("f"), "{}")),
        chunk(call(2, Some("call_old"), Some("f"), "{}")),
        chunk(call(3, Some("call:with:colons"), Some("f"), "{}")),
        chunk(call(4, None, Some("f"), "{}")),
        finish("tool_calls"),
    ];
    let message = read(&run(&mut *body_writer, &chunks, 5)).message;
    let ids: Vec<&str> = message["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|block| block["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["0", "toolu_1", "toolu_2", "toolu_3", "toolu_4"]);
}

#[test]
fn a_name_that_comes_late_is_waited_for() {
    let chunks = [
        chunk(call(0, Some("call_1"), None, "{\"a\"")),
        chunk(call(0, None, Some("f"), ":1}")),
        // A nameless call dropped when text comes before its name.
        chunk(call(1, Some("call_2"), None, "{")),
        chunk(json!({"content": "then text"})),
        chunk(call(1, None, Some("g"), "}")),
        finish("tool_calls"),
    ];
    let sse = run(&mut *writer(true), &chunks, 1);
    assert_eq!(
        datas(&sse)[1..4],
        [
            block_start(
                0,
                json!({"type": "tool_use", "id": "call_1", "name": "f", "input": {}})
            ),
            json_delta(0, "{\"a\":1}"),
            stop(0),
        ]
    );
    let message = read(&sse).message;
    assert_eq!(
        message["content"],
        json!([{"type": "tool_use", "id": "call_1", "name": "f", "input": {"a": 1}},
            {"type": "text", "text": "then text"}])
    );
}

#[test]
fn late_chunks_and_other_choices_are_ignored() {
    let mut writer = writer(false);
    let mut out = String::new();
    let mut two_choices = chunk(json!({"content": "zero"}));
    let mut other = two_choices.choices[0].clone();
    other.index = 1;
    other.delta.content = Some("one".into());
    two_choices.choices.push(other);
    writer.chunk(&two_choices, &mut out).unwrap();
    writer.end(0, &mut out);
    writer
        .chunk(&chunk(json!({"content": "late"})), &mut out)
        .unwrap();
    writer.end(0, &mut out);
    assert_eq!(
        writer.answer()["content"],
        json!([{"type": "text", "text": "zero"}])
    );
    assert_eq!(events(&out).len(), 6);
}

#[test]
fn arguments_that_are_not_an_object_give_an_empty_input() {
    let mut writer = writer(false);
    run(
        &mut *writer,
        &[
            chunk(call(0, Some("c"), Some("f"), "[1, 2]")),
            finish("tool_calls"),
        ],
        1,
    );
    assert_eq!(writer.answer()["content"][0]["input"], json!({}));
}

proptest! {
    /// The same answer cut into chunks anywhere reads the same: only the
    /// deltas' splits differ.
    #[test]
    fn split_anywhere_reads_the_same(
        reasoning in "[a-z é😀\n]{0,12}",
        text in "[a-z é😀\"\\\\{}\n]{1,16}",
        value in "[a-z é😀\"\\\\{}\n]{0,16}",
        cuts in prop::collection::vec(0usize..64, 0..6),
    ) {
        let arguments = json!({"path": value, "n": [1, 2]}).to_string();
        let pieces = |whole: &str| -> Vec<String> {
            let mut at: Vec<usize> = cuts
                .iter()
                .map(|cut| (0..=cut % (whole.len() + 1)).rev().find(|&i| whole.is_char_boundary(i)).unwrap())
                .collect();
            at.extend([0, whole.len()]);
            at.sort_unstable();
            at.dedup();
            at.windows(2).map(|pair| whole[pair[0]..pair[1]].to_owned()).collect()
        };
        let mut split = Vec::new();
        for piece in pieces(&reasoning) {
            split.push(chunk(json!({"reasoning_content": piece})));
        }
        for piece in pieces(&text) {
            split.push(chunk(json!({"content": piece})));
        }
        split.push(chunk(call(0, Some("call_p"), Some("Write"), "")));
        for piece in pieces(&arguments) {
            split.push(chunk(call(0, None, None, &piece)));
        }
        split.push(finish("tool_calls"));
        let whole = [
            chunk(json!({"reasoning_content": reasoning, "content": text})),
            chunk(call(0, Some("call_p"), Some("Write"), &arguments)),
            finish("tool_calls"),
        ];
        let split_read = read(&run(&mut *thinking_writer(true), &split, 1)).message;
        let whole_read = read(&run(&mut *thinking_writer(true), &whole, 1)).message;
        prop_assert_eq!(&split_read, &whole_read);
        let mut kept = thinking_writer(false);
        run(&mut *kept, &split, 1);
        prop_assert_eq!(kept.answer(), split_read.clone());
        let input = &split_read["content"].as_array().unwrap().last().unwrap()["input"];
        prop_assert_eq!(input, &serde_json::from_str::<Value>(&arguments).unwrap());
    }
}

#[test]
fn a_chunk_ending_a_call_then_text_keeps_the_arguments() {
    // The Rewriter puts a call's last arguments and the text after it in
    // one chunk.
    let mut end_and_text = chunk(json!({"content": "Done."}));
    end_and_text.choices[0].delta.tool_calls = Some(
        serde_json::from_value(json!([{"index": 0, "function": {"arguments": "1}"}}])).unwrap(),
    );
    let chunks = [
        chunk(call(0, Some("call_1"), Some("f"), "{\"a\":")),
        end_and_text,
        finish("tool_calls"),
    ];
    let message = read(&run(&mut *writer(true), &chunks, 1)).message;
    assert_eq!(
        message["content"],
        json!([{"type": "tool_use", "id": "call_1", "name": "f", "input": {"a": 1}},
            {"type": "text", "text": "Done."}])
    );
    // Text and a call starting in one chunk: the text first.
    let mut text_and_call = chunk(json!({"content": "Let me look."}));
    text_and_call.choices[0].delta.tool_calls = call(0, Some("call_2"), Some("g"), "{}")
        ["tool_calls"]
        .as_array()
        .map(|calls| serde_json::from_value(Value::Array(calls.clone())).unwrap());
    let message = read(&run(
        &mut *writer(true),
        &[text_and_call, finish("tool_calls")],
        1,
    ))
    .message;
    assert_eq!(message["content"][0]["type"], "text");
    assert_eq!(message["content"][1]["id"], "call_2");
}
