//! vLLM's own Kimi K3 parser (0.33) against this crate, on every
//! `tests/fixtures/kimi_k3` fixture: `scripts/kimi_k3_vllm.py` ran vLLM's
//! parser over them (the shared conformance corpus has no Kimi K3 case)
//! into `tests/kimi_k3_vllm/expected.json`.
//!
//! Each case's calls (names, and arguments as JSON values) and content are
//! compared with vLLM's whole-output result. A case that differs must be
//! listed in [`KNOWN_DIFFERENCES`] with its reason, and a listed case must
//! still differ, so the list stays exactly the set of deliberate
//! differences.

mod common;

use std::collections::BTreeMap;

use serde_json::Value;
use toolcall_stream::Format;

const CUT_OFF: &str = "the output ends inside a call: ours returns what arrived, marked \
     incomplete (truncated); vLLM returns no call until `<|close|>call<|sep|>`";
const CUT_IN_NAME: &str = "the output ends inside a name: ours returns the text as content \
     (truncated); vLLM drops it";
const LOOKAHEAD: &str = "a closer inside a value that text follows is value text (lookahead \
     value termination, reported as closer_in_value); vLLM ends the value at the first closer, \
     its documented limitation";
const RECOVERED: &str = "a missing closer is recovered and reported; vLLM drops the call, or \
     the value runs on over the next argument";
const EVERY_CHANNEL: &str = "ours reads every `tools` channel and keeps the text around them \
     as content; vLLM reads only the first and drops what follows it";

/// Cases where this crate deliberately differs from vLLM, with the reason.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[
    ("closer_inside_value", LOOKAHEAD),
    ("parameter_lookalike_in_value", LOOKAHEAD),
    ("content_around_calls", EVERY_CHANNEL),
    ("two_calls", EVERY_CHANNEL),
    ("missing_tool_call_close_then_text", EVERY_CHANNEL),
    (
        "tool_call_in_prose_then_real_call",
        "a `<|open|>tools<|sep|>` in prose that no call follows is content, and the real \
         call after it is read; vLLM takes the prose for the channel and finds no call",
    ),
    (
        "empty_name",
        "a call with an empty name is not a call: ours returns its text as content; vLLM \
         drops it",
    ),
    (
        "index_before_tool",
        "names are read from `tool=` written first, as the chat template writes it; another \
         order is content (vLLM reads the attributes in any order)",
    ),
    ("missing_function_close", RECOVERED),
    ("missing_invoke_close", RECOVERED),
    ("missing_parameter_close_before_function_close", RECOVERED),
    ("missing_parameter_close_before_parameter", RECOVERED),
    (
        "missing_tool_call_open",
        "a call without the `tools` channel is a call, reported (as MiniMax-M2's bare \
         invoke); vLLM returns it as content",
    ),
    (
        "text_inside_tool_call",
        "text inside the channel before its first call is content; vLLM drops it",
    ),
    ("truncated_in_closing_tag", CUT_OFF),
    ("truncated_in_value", CUT_OFF),
    ("truncated_in_value_compact", CUT_OFF),
    ("truncated_in_function_name", CUT_IN_NAME),
    ("truncated_in_parameter_name", CUT_IN_NAME),
    (
        "typed_ladder",
        "where the request's tools give a schema, values are typed by it, `type=\"string\"` \
         ones too, as in every format; vLLM keeps `type=\"string\"` values raw",
    ),
];

fn expected() -> BTreeMap<String, Value> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/kimi_k3_vllm/expected.json"
    ))
    .unwrap();
    let value: Value = serde_json::from_str(&text).unwrap();
    serde_json::from_value(value["cases"].clone()).unwrap()
}

/// A result as compared: content, and each call's name and arguments.
fn summary(content: Option<&str>, calls: Vec<(String, Value)>) -> Value {
    serde_json::json!({ "content": content, "calls": calls })
}

#[test]
fn kimi_k3_agrees_with_vllm_but_for_the_listed_differences() {
    let expected = expected();
    let mut differ = Vec::new();
    let mut checked = 0;
    for fixture in common::fixtures() {
        if fixture.format != Format::KimiK3 {
            continue;
        }
        let vllm = &expected.get(&fixture.name).unwrap_or_else(|| {
            panic!(
                "{}: not in expected.json; run scripts/kimi_k3_vllm.py",
                fixture.name
            )
        })["nonstream"];
        let theirs = summary(
            vllm["content"].as_str(),
            vllm["tool_calls"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| {
                    (
                        c["name"].as_str().unwrap().to_owned(),
                        c["arguments"].clone(),
                    )
                })
                .collect(),
        );
        let message = fixture.parser().parse(&fixture.input);
        let ours = summary(
            message.content.as_deref(),
            message
                .tool_calls
                .iter()
                .map(|c| (c.name.clone(), serde_json::from_str(&c.arguments).unwrap()))
                .collect(),
        );
        if ours != theirs {
            differ.push((fixture.name.clone(), ours, theirs));
        }
        checked += 1;
    }
    assert!(checked >= 40, "only {checked} cases");
    let listed: Vec<&str> = KNOWN_DIFFERENCES.iter().map(|(name, _)| *name).collect();
    let unlisted: Vec<String> = differ
        .iter()
        .filter(|(name, ..)| !listed.contains(&name.as_str()))
        .map(|(name, ours, theirs)| format!("{name}:\n  ours: {ours}\n  vLLM: {theirs}"))
        .collect();
    assert!(
        unlisted.is_empty(),
        "unlisted differences:\n{}",
        unlisted.join("\n")
    );
    for name in listed {
        assert!(
            differ.iter().any(|(n, ..)| n == name),
            "{name} is listed but agrees with vLLM now"
        );
    }
}
