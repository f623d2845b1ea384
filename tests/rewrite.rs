//! Rewriting an upstream's OpenAI responses (`openai::Rewriter`,
//! `openai::rewrite_completion`): for every fixture, the upstream's chunks
//! carrying the model's raw text in pieces of 1 to 7 bytes come out as the
//! content and typed tool calls the parser makes of the whole text; what
//! the parser does not own passes through.

mod common;

use std::collections::BTreeMap;

use common::{fixtures, Fixture};
use serde_json::{json, Value};
use toolcall_stream::openai::{
    rewrite_completion, ChatCompletion, ChatCompletionChunk, FinishReason, Rewriter,
};

/// An upstream chunk, as a server without a tool parser sends it.
fn upstream(choices: Value) -> ChatCompletionChunk {
    serde_json::from_value(json!({
        "id": "chatcmpl-up", "object": "chat.completion.chunk", "created": 7, "model": "up-model",
        "system_fingerprint": "fp_up", "service_tier": "default", "choices": choices
    }))
    .unwrap()
}

/// The model's text cut into pieces of 1 to 7 bytes (at character
/// boundaries, as an upstream sends tokens), as upstream chunks, the first
/// with the role, the last with `finish`.
fn upstream_stream(text: &str, finish: &str) -> Vec<ChatCompletionChunk> {
    let mut chunks = vec![upstream(
        json!([{"index": 0, "delta": {"role": "assistant"}, "finish_reason": null}]),
    )];
    let mut rest = text;
    let mut size = 1;
    while !rest.is_empty() {
        let mut cut = size.min(rest.len());
        while !rest.is_char_boundary(cut) {
            cut += 1;
        }
        let (piece, tail) = rest.split_at(cut);
        chunks.push(upstream(
            json!([{"index": 0, "delta": {"content": piece}, "finish_reason": null}]),
        ));
        rest = tail;
        size = size % 7 + 1;
    }
    chunks.push(upstream(
        json!([{"index": 0, "delta": {}, "finish_reason": finish}]),
    ));
    chunks
}

#[derive(Debug, Default, PartialEq)]
struct Joined {
    content: Option<String>,
    /// (name, arguments as JSON) by call index.
    calls: BTreeMap<usize, (String, Value)>,
    finish_reason: Option<FinishReason>,
}

/// Joins chunks of choice `index` as an OpenAI client does.
fn join(chunks: &[ChatCompletionChunk], index: usize) -> Joined {
    let mut joined = Joined::default();
    let mut arguments: BTreeMap<usize, (String, String)> = BTreeMap::new();
    for chunk in chunks {
        assert_eq!(
            (chunk.id.as_str(), chunk.model.as_str(), chunk.created),
            ("chatcmpl-up", "up-model", 7)
        );
        assert_eq!(chunk.system_fingerprint.as_deref(), Some("fp_up"));
        assert_eq!(chunk.extra.get("service_tier"), Some(&json!("default")));
        for choice in chunk.choices.iter().filter(|c| c.index == index) {
            if let Some(text) = &choice.delta.content {
                joined
                    .content
                    .get_or_insert_with(String::new)
                    .push_str(text);
            }
            for call in choice.delta.tool_calls.iter().flatten() {
                let entry = arguments.entry(call.index).or_default();
                let function = call.function.as_ref().unwrap();
                if let Some(name) = &function.name {
                    entry.0 = name.clone();
                }
                entry
                    .1
                    .push_str(function.arguments.as_deref().unwrap_or(""));
            }
            if choice.finish_reason.is_some() {
                assert!(joined.finish_reason.is_none(), "two finish reasons");
                joined.finish_reason = choice.finish_reason.clone();
            }
        }
    }
    for (index, (name, args)) in arguments {
        let args: Value = serde_json::from_str(&args).unwrap_or_else(|e| panic!("{args:?}: {e}"));
        joined.calls.insert(index, (name, args));
    }
    joined
}

/// What the parser makes of the whole text, joined the same way.
fn expected(fixture: &Fixture, cut_off: bool) -> Joined {
    let message = fixture.builder().build().parse(&fixture.input);
    let complete = message.tool_calls.iter().any(|c| c.complete);
    Joined {
        content: message.openai_content(),
        calls: message
            .tool_calls
            .iter()
            .enumerate()
            .map(|(i, c)| {
                (
                    i,
                    (c.name.clone(), serde_json::from_str(&c.arguments).unwrap()),
                )
            })
            .collect(),
        finish_reason: Some(if cut_off {
            FinishReason::Length
        } else if complete {
            FinishReason::ToolCalls
        } else {
            FinishReason::Stop
        }),
    }
}

fn rewrite_stream(
    fixture: &Fixture,
    upstream: Vec<ChatCompletionChunk>,
) -> Vec<ChatCompletionChunk> {
    // Unreadable calls as content, as in `parse`, which `expected` uses.
    let builder = fixture
        .builder()
        .retain_arguments(false)
        .unreadable_calls_as_content(true);
    let mut rewriter = Rewriter::new(builder);
    let mut out = Vec::new();
    for chunk in upstream {
        rewriter.push(chunk, &mut out);
    }
    rewriter.finish(&mut out);
    out
}

#[test]
fn streamed_fixtures_come_out_as_the_parser_makes_them() {
    for fixture in fixtures() {
        let text = String::from_utf8_lossy(&fixture.input).into_owned();
        for finish in ["stop", "length"] {
            let out = rewrite_stream(&fixture, upstream_stream(&text, finish));
            let joined = join(&out, 0);
            // The client's view of content: `None` and empty are alike.
            let want = expected(&fixture, finish == "length");
            assert_eq!(joined, want, "{} ({finish})", fixture.name);
            // Every chunk sent says something.
            for chunk in &out {
                assert!(
                    !chunk.choices.is_empty(),
                    "{}: an empty chunk",
                    fixture.name
                );
            }
        }
    }
}

#[test]
fn whole_fixtures_come_out_as_the_parser_makes_them() {
    for fixture in fixtures() {
        let text = String::from_utf8_lossy(&fixture.input).into_owned();
        let completion: ChatCompletion = serde_json::from_value(json!({
            "id": "chatcmpl-up", "object": "chat.completion", "created": 7, "model": "up-model",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}
        }))
        .unwrap();
        let (completion, calls) = rewrite_completion(&fixture.builder(), completion);
        let want = expected(&fixture, false);
        let choice = &completion.choices[0];
        assert_eq!(choice.message.content, want.content, "{}", fixture.name);
        let got: BTreeMap<usize, (String, Value)> = choice
            .message
            .tool_calls
            .iter()
            .flatten()
            .enumerate()
            .map(|(i, c)| {
                (
                    i,
                    (
                        c.function.name.clone(),
                        serde_json::from_str(&c.function.arguments).unwrap(),
                    ),
                )
            })
            .collect();
        assert_eq!(got, want.calls, "{}", fixture.name);
        assert_eq!(choice.finish_reason, want.finish_reason, "{}", fixture.name);
        let complete = fixture
            .builder()
            .build()
            .parse(&fixture.input)
            .tool_calls
            .iter()
            .filter(|c| c.complete)
            .count();
        assert_eq!(calls, complete, "{}", fixture.name);
        assert!(completion.usage.is_some(), "usage passes through");
    }
}

/// Two choices (`n: 2`) interleaved, each through its own parser; reasoning
/// and a usage-only last chunk pass through.
#[test]
fn choices_are_parsed_apart_and_the_rest_passes_through() {
    let call =
        "<tool_call>\n<function=ls>\n<parameter=path>\n.\n</parameter>\n</function>\n</tool_call>";
    let (a, b) = call.split_at(30);
    let upstream_chunks = vec![
        upstream(json!([
            {"index": 0, "delta": {"role": "assistant", "reasoning_content": "think"}, "finish_reason": null},
            {"index": 1, "delta": {"role": "assistant"}, "finish_reason": null}
        ])),
        upstream(json!([
            {"index": 0, "delta": {"content": a}, "finish_reason": null},
            {"index": 1, "delta": {"content": "Just text, "}, "finish_reason": null}
        ])),
        upstream(json!([
            {"index": 1, "delta": {"content": "no call."}, "finish_reason": "stop"},
            {"index": 0, "delta": {"content": b}, "finish_reason": "stop"}
        ])),
        upstream(json!([])),
    ];
    let mut with_usage = upstream_chunks;
    with_usage.last_mut().unwrap().usage = serde_json::from_value(
        json!({"prompt_tokens": 5, "completion_tokens": 9, "total_tokens": 14}),
    )
    .unwrap();
    let mut rewriter = Rewriter::new(toolcall_stream::Parser::builder());
    let mut out = Vec::new();
    for chunk in with_usage {
        rewriter.push(chunk, &mut out);
    }
    rewriter.finish(&mut out);
    assert_eq!(rewriter.calls(), 1);
    let first = join(&out, 0);
    assert_eq!(first.content, None);
    assert_eq!(first.calls[&0], ("ls".to_owned(), json!({"path": "."})));
    assert_eq!(first.finish_reason, Some(FinishReason::ToolCalls));
    let second = join(&out, 1);
    assert_eq!(second.content.as_deref(), Some("Just text, no call."));
    assert!(second.calls.is_empty());
    assert_eq!(second.finish_reason, Some(FinishReason::Stop));
    assert_eq!(
        out[0].choices[0].delta.reasoning_content.as_deref(),
        Some("think")
    );
    let last = out.last().unwrap();
    assert!(last.choices.is_empty() && last.usage.is_some(), "{last:?}");
}

/// With `incomplete_calls_as_content`, a call the upstream's token limit
/// cut off is not sent as a tool call: its text is content, and
/// `length` is kept.
#[test]
fn a_call_cut_off_by_length_is_not_a_tool_call() {
    let text = "Doing it.<tool_call>\n<function=rm>\n<parameter=path>\n/tmp/x";
    let mut rewriter =
        Rewriter::new(toolcall_stream::Parser::builder().incomplete_calls_as_content(true));
    let mut out = Vec::new();
    for chunk in upstream_stream(text, "length") {
        rewriter.push(chunk, &mut out);
    }
    rewriter.finish(&mut out);
    let joined = join(&out, 0);
    assert!(joined.calls.is_empty(), "{joined:?}");
    assert_eq!(joined.content.as_deref(), Some(text));
    assert_eq!(joined.finish_reason, Some(FinishReason::Length));
    assert_eq!(rewriter.calls(), 0);
}

/// An upstream that ends without a `finish_reason` (`[DONE]` alone): the
/// choice is finished by `finish`.
#[test]
fn finish_ends_choices_the_upstream_left_open() {
    let call = "<tool_call>\n<function=ls>\n</function>\n</tool_call>";
    let mut chunks = upstream_stream(call, "stop");
    chunks.pop();
    let mut rewriter = Rewriter::new(toolcall_stream::Parser::builder());
    let mut out = Vec::new();
    for chunk in chunks {
        rewriter.push(chunk, &mut out);
    }
    rewriter.finish(&mut out);
    let joined = join(&out, 0);
    assert_eq!(joined.calls[&0].0, "ls");
    assert_eq!(joined.finish_reason, Some(FinishReason::ToolCalls));
}

/// The upstream's chunks of `text` without their last (the one with the
/// `finish_reason`): a stream cut before its end.
fn cut_stream(text: &str) -> Vec<ChatCompletionChunk> {
    let mut chunks = upstream_stream(text, "stop");
    chunks.pop();
    chunks
}

fn rewrite_cut(builder: toolcall_stream::ParserBuilder, text: &str) -> (Rewriter, Joined) {
    let mut rewriter = Rewriter::new(builder);
    let mut out = Vec::new();
    for chunk in cut_stream(text) {
        rewriter.push(chunk, &mut out);
    }
    rewriter.finish_cut(&mut out);
    let joined = join(&out, 0);
    (rewriter, joined)
}

/// A cut is not an end: a stream that stopped with neither a
/// `finish_reason` nor `[DONE]` is finished as `length`, whatever it
/// held; a call that lacked its end is not counted.
#[test]
fn a_cut_stream_finishes_as_length() {
    let call =
        "<tool_call>\n<function=ls>\n<parameter=path>\n.\n</parameter>\n</function>\n</tool_call>";
    let cut_in_call = "Doing it.\n<tool_call>\n<function=rm>\n<parameter=path>\n/tmp/x";
    let builder = toolcall_stream::Parser::builder;

    // Streamed (the default): the call's name and arguments so far were
    // sent; `length` tells the client not to trust it; it is not counted.
    let (rewriter, joined) = rewrite_cut(builder(), cut_in_call);
    assert_eq!(joined.finish_reason, Some(FinishReason::Length));
    assert_eq!(joined.content.as_deref(), Some("Doing it."));
    assert_eq!(
        joined.calls[&0],
        ("rm".to_owned(), json!({"path": "/tmp/x"}))
    );
    assert_eq!(rewriter.calls(), 0);

    // Held: the call that never ended is content, never a call.
    let (rewriter, joined) = rewrite_cut(builder().incomplete_calls_as_content(true), cut_in_call);
    assert_eq!(joined.finish_reason, Some(FinishReason::Length));
    assert!(joined.calls.is_empty(), "{joined:?}");
    assert_eq!(joined.content.as_deref(), Some(cut_in_call));
    assert_eq!(rewriter.calls(), 0);

    // A complete call, then the cut: counted, but the reason is still
    // `length`, not `tool_calls`.
    let (rewriter, joined) = rewrite_cut(builder(), &format!("{call}\n"));
    assert_eq!(joined.finish_reason, Some(FinishReason::Length));
    assert_eq!(joined.calls[&0].0, "ls");
    assert_eq!(rewriter.calls(), 1);

    // Plain text cut: `length`, not `stop`.
    let (_, joined) = rewrite_cut(builder(), "Half a sent");
    assert_eq!(joined.content.as_deref(), Some("Half a sent"));
    assert_eq!(joined.finish_reason, Some(FinishReason::Length));
}

/// Only the choices not finished yet are finished by a cut; nothing
/// before the first chunk means nothing to send.
#[test]
fn a_cut_finishes_only_open_choices() {
    let mut rewriter = Rewriter::new(toolcall_stream::Parser::builder());
    let mut out = Vec::new();
    rewriter.finish_cut(&mut out);
    assert!(out.is_empty());
    rewriter.push(
        upstream(json!([
            {"index": 0, "delta": {"content": "Done."}, "finish_reason": "stop"},
            {"index": 1, "delta": {"content": "Still go"}, "finish_reason": null}
        ])),
        &mut out,
    );
    rewriter.finish_cut(&mut out);
    assert_eq!(join(&out, 0).finish_reason, Some(FinishReason::Stop));
    let open = join(&out, 1);
    assert_eq!(open.content.as_deref(), Some("Still go"));
    assert_eq!(open.finish_reason, Some(FinishReason::Length));
    // The cut chunk names only the open choice.
    let last = out.last().unwrap();
    assert_eq!(last.choices.len(), 1);
    assert_eq!(last.choices[0].index, 1);
}
