//! `Rewriter::push_json` (the look at a chunk's JSON, the text sent as it
//! came or spliced into it) against `Rewriter::push` of the decoded chunk
//! and `write_sse` (the full path): for every fixture, at several
//! chunkings, with the shapes upstreams send (a role first, `null`s and
//! fields this crate does not know, logprobs, reasoning, two choices,
//! usage, the finish), both give the same events, equal as JSON once a
//! `null` is taken as no field.

mod common;

use common::fixtures;
use serde_json::{json, Value};
use toolcall_stream::openai::{write_sse, ChatCompletionChunk, Pushed, Rewriter};

/// Text pieces of `size` bytes (0: 1 to 7, in turn), at char boundaries.
fn pieces(text: &str, size: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    let mut turn = 0;
    while !rest.is_empty() {
        turn = turn % 7 + 1;
        let mut cut = if size == 0 { turn } else { size }.min(rest.len());
        while !rest.is_char_boundary(cut) {
            cut += 1;
        }
        let (piece, tail) = rest.split_at(cut);
        out.push(piece);
        rest = tail;
    }
    out
}

/// An upstream chunk's JSON, in one of a few shapes (`shape` picks).
fn chunk(choices: Value, shape: usize, extra_top: bool) -> String {
    let mut chunk = json!({
        "id": "chatcmpl-up", "object": "chat.completion.chunk", "created": 7,
        "model": "up-model", "choices": choices,
    });
    if shape % 2 == 0 {
        chunk["system_fingerprint"] = json!("fp_up");
    } else {
        chunk["system_fingerprint"] = Value::Null;
        chunk["usage"] = Value::Null;
    }
    if extra_top {
        chunk["x_sent_ns"] = json!(shape);
    }
    let text = chunk.to_string();
    // Some upstreams spread their JSON over several `data:` lines.
    if shape % 5 == 4 {
        serde_json::to_string_pretty(&chunk).unwrap()
    } else {
        text
    }
}

/// The upstream's chunks for `text` cut at `size`, over `choices` choices.
fn upstream(text: &str, size: usize, choices: usize, variant: usize) -> Vec<String> {
    let mut out = Vec::new();
    for index in 0..choices {
        out.push(chunk(
            json!([{"index": index, "delta": {"role": "assistant", "content": ""}, "logprobs": null, "finish_reason": null}]),
            variant,
            false,
        ));
    }
    for (i, piece) in pieces(text, size).into_iter().enumerate() {
        for index in 0..choices {
            let mut choice =
                json!({"index": index, "delta": {"content": piece}, "finish_reason": null});
            match (i + variant) % 9 {
                0 => choice["logprobs"] = json!({"content": [{"token": piece, "logprob": -0.5}]}),
                1 => choice["stop_reason"] = Value::Null,
                2 => choice["delta"]["reasoning_content"] = json!("hmm"),
                3 => choice["delta"]["refusal"] = Value::Null,
                4 => choice["delta"]["role"] = Value::Null,
                5 => choice["logprobs"] = Value::Null,
                // Calls made of the text cannot go beside it as a key.
                6 => choice["delta"]["tool_calls"] = Value::Null,
                _ => {}
            }
            out.push(chunk(json!([choice]), i + variant, variant % 3 == 0));
        }
    }
    // Variant 2: the stream is cut (no finish).
    for index in (0..choices).filter(|_| variant != 2) {
        out.push(chunk(
            json!([{"index": index, "delta": {}, "finish_reason": "stop"}]),
            variant,
            false,
        ));
    }
    if variant % 2 == 1 {
        let mut usage: Value = serde_json::from_str(&chunk(json!([]), 0, false)).unwrap();
        usage["usage"] = json!({"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3});
        out.push(usage.to_string());
    }
    out
}

/// The events of an SSE text, each `data` as JSON with its `null` fields
/// left out.
fn events(sse: &str) -> Vec<Value> {
    sse.split("\n\n")
        .filter(|event| !event.is_empty())
        .map(|event| {
            let data: Vec<&str> = event
                .lines()
                .map(|line| line.strip_prefix("data: ").expect("a data line"))
                .collect();
            without_nulls(serde_json::from_str(&data.join("\n")).unwrap())
        })
        .collect()
}

fn without_nulls(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, without_nulls(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(without_nulls).collect()),
        other => other,
    }
}

#[test]
fn push_json_writes_what_push_writes_for_every_fixture_and_chunking() {
    let mut compared = 0;
    for fixture in fixtures() {
        let text = String::from_utf8_lossy(&fixture.input).into_owned();
        for hold in [false, true] {
            let builder = fixture.builder().incomplete_calls_as_content(hold);
            for (size, choices, variant) in [
                (0, 1, 0),
                (1, 1, 1),
                (3, 1, 2),
                (7, 2, 3),
                (0, 2, 4),
                (usize::MAX, 1, 5),
            ] {
                let chunks = upstream(&text, size, choices, variant);
                let mut full = Rewriter::new(builder.clone());
                let mut fast = Rewriter::new(builder.clone());
                let (mut expected, mut got) = (String::new(), String::new());
                let mut decoded = Vec::new();
                for json in &chunks {
                    let chunk: ChatCompletionChunk = serde_json::from_str(json).unwrap();
                    full.push(chunk, &mut decoded);
                    for chunk in decoded.drain(..) {
                        write_sse(&chunk, &mut expected).unwrap();
                    }
                    assert_eq!(fast.push_json(json, &mut got).unwrap(), Pushed::Sent);
                    let kinds = |r: &mut Rewriter| r.drain_diagnostics().collect::<Vec<_>>();
                    assert_eq!(kinds(&mut fast), kinds(&mut full), "{}", fixture.name);
                }
                let mut last = Vec::new();
                if variant == 2 {
                    full.finish_cut(&mut decoded);
                    fast.finish_cut(&mut last);
                } else {
                    full.finish(&mut decoded);
                    fast.finish(&mut last);
                }
                for chunk in decoded.drain(..) {
                    write_sse(&chunk, &mut expected).unwrap();
                }
                for chunk in &last {
                    write_sse(chunk, &mut got).unwrap();
                }
                assert_eq!(
                    events(&got),
                    events(&expected),
                    "{} hold {hold} size {size} choices {choices} variant {variant}",
                    fixture.name
                );
                assert_eq!(
                    fast.calls(),
                    full.calls(),
                    "{} variant {variant}",
                    fixture.name
                );
                compared += 1;
            }
        }
    }
    assert!(compared > 100, "{compared}");
}

#[test]
fn a_cut_after_push_json_finishes_from_the_last_chunk() {
    // `finish_cut` makes its chunk of the last chunk's fields, which
    // `push_json` kept as JSON.
    let json = chunk(
        json!([{"index": 0, "delta": {"content": "Hi <tool_call>\n<function=f>"}}]),
        0,
        true,
    );
    let mut rewriter = Rewriter::new(toolcall_stream::Parser::builder());
    let mut out = String::new();
    rewriter.push_json(&json, &mut out).unwrap();
    let mut last = Vec::new();
    rewriter.finish_cut(&mut last);
    let last = serde_json::to_value(&last[0]).unwrap();
    assert_eq!(last["x_sent_ns"], 0);
    assert_eq!(last["choices"][0]["finish_reason"], "length");
    assert!(rewriter.all_finished());
}

#[test]
fn error_events_and_bad_chunks() {
    let mut rewriter = Rewriter::new(toolcall_stream::Parser::builder());
    let mut out = String::new();
    let with_fields = chunk(json!([{"index": 0, "delta": {"content": "x"}}]), 0, false).replacen(
        '{',
        r#"{"error": {"message": "failed"}, "#,
        1,
    );
    for error in [r#"{"error": {"message": "failed"}}"#, with_fields.as_str()] {
        assert_eq!(rewriter.push_json(error, &mut out).unwrap(), Pushed::Error);
    }
    let bad_type = chunk(json!([{"index": 0, "delta": {"content": 5}}]), 0, false);
    let no_model = r#"{"id": "c", "object": "chat.completion.chunk", "created": 1, "choices": [{"index": 0, "delta": {"content": "x"}}]}"#;
    for bad in ["", "{", bad_type.as_str(), no_model, "[1]"] {
        assert!(rewriter.push_json(bad, &mut out).is_err(), "{bad}");
    }
    assert!(out.is_empty());
    assert!(!rewriter.all_finished());
}
