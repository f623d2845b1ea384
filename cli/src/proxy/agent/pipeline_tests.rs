//! The whole sans-IO path of an agent route, without a network: a
//! request translated, a model's raw text cut into upstream chunks, those
//! rewritten by the library's `Rewriter` and written by the API's writer.
//! At every chunking the merged events and the final answer are the same.

use std::sync::Arc;

use serde_json::{json, Map, Value};
use toolcall_stream::openai::{ChatCompletionChunk, Rewriter};
use toolcall_stream::{Format, Ids, Parser, Tools};

use super::responses::ResponsesRequest;
use super::{messages, IdMaker, Options, Translated};

/// Fixtures of the repository's `tests/fixtures/`, by format: calls,
/// text around them, typed values, reasoning.
const CASES: &[(&str, &str)] = &[
    ("hermes", "one_call"),
    ("hermes", "content_around_calls"),
    ("qwen3_coder", "typed_ladder"),
    ("qwen3_coder", "same_call_twice"),
    ("qwen3_coder", "content_after_think"),
    ("glm47", "multiline_value"),
];

fn fixture(format: &str, name: &str) -> (String, Value) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures").join(format);
    let bytes = std::fs::read(dir.join(format!("{name}.txt"))).unwrap();
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let tools = std::fs::read_to_string(dir.join(format!("{name}.tools.json")))
        .ok()
        .and_then(|tools| serde_json::from_str(&tools).ok())
        .unwrap_or_else(|| {
            json!([{"type": "function", "function": {"name": "get_weather", "parameters":
                {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}}])
        });
    (text, tools)
}

fn options() -> Options {
    Options {
        upstream_model: "upstream".to_owned(),
        max_tokens_cap: None,
        max_answer_bytes: 1 << 20,
        ids: IdMaker::Sequential(0),
    }
}

/// The request in `api`'s shape, with the chat tools `tools`.
fn translate(responses: bool, tools: &Value) -> Translated {
    let functions = tools.as_array().unwrap().iter().map(|tool| &tool["function"]);
    if responses {
        let tools: Vec<Value> = functions
            .map(|f| json!({"type": "function", "name": f["name"], "parameters": f["parameters"]}))
            .collect();
        let request = json!({"model": "m", "input": "go", "tools": tools, "stream": true});
        ResponsesRequest::read(&request)
            .unwrap()
            .translate(None, &options())
            .unwrap()
    } else {
        let tools: Vec<Value> = functions
            .map(|f| json!({"name": f["name"], "input_schema": f["parameters"]}))
            .collect();
        let request = json!({"model": "m", "max_tokens": 100, "stream": true, "tools": tools,
            "thinking": {"type": "enabled", "budget_tokens": 100},
            "messages": [{"role": "user", "content": "go"}]});
        messages::translate(&request, &options()).unwrap()
    }
}

/// An upstream chunk of `text`.
fn chunk(text: &str, finish: Option<&str>) -> ChatCompletionChunk {
    serde_json::from_value(json!({
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "upstream",
        "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": finish}]
    }))
    .unwrap()
}

/// The events and the final answer for `text` cut at `cuts` (byte
/// offsets on char boundaries).
fn run(format: Format, tools: &Value, responses: bool, text: &str, cuts: &[usize]) -> (Vec<(String, Value)>, Value) {
    let translated = translate(responses, tools);
    let mut writer = translated.writer;
    let tools = Tools::from_value(translated.chat.get("tools").unwrap_or(&Value::Null)).unwrap();
    let builder = Parser::builder()
        .format(format)
        .tools(Arc::new(tools))
        .ids(Ids::sequential("call_"))
        .reasoning(toolcall_stream::Reasoning::On)
        .retain_arguments(false);
    let mut rewriter = Rewriter::new(builder);
    let mut out = String::new();
    let mut rewritten = Vec::new();
    let mut start = 0;
    for &cut in cuts.iter().chain([text.len()].iter()) {
        let piece = &text[start..cut];
        start = cut;
        rewriter.push(chunk(piece, None), &mut rewritten);
    }
    rewriter.push(chunk("", Some("stop")), &mut rewritten);
    rewriter.finish(&mut rewritten);
    for chunk in rewritten.drain(..) {
        writer.chunk(&chunk, &mut out).unwrap();
    }
    writer.end(rewriter.calls(), &mut out);
    let mut answer = writer.answer();
    timeless(&mut answer);
    (merged(&parse_events(&out)), answer)
}

/// Without the clock's fields (`created_at`), which two runs may not
/// share.
fn timeless(value: &mut Value) {
    match value {
        Value::Object(members) => {
            members.remove("created_at");
            members.values_mut().for_each(timeless);
        }
        Value::Array(items) => items.iter_mut().for_each(timeless),
        _ => {}
    }
}

/// The SSE text's events.
fn parse_events(text: &str) -> Vec<(String, Value)> {
    let mut events = Vec::new();
    for block in text.split("\n\n").filter(|b| !b.trim().is_empty()) {
        let mut name = String::new();
        let mut data = String::new();
        for line in block.lines() {
            if let Some(rest) = line.strip_prefix("event: ") {
                name = rest.to_owned();
            } else if let Some(rest) = line.strip_prefix("data: ") {
                data.push_str(rest);
            }
        }
        let data: Value = serde_json::from_str(&data).unwrap_or_else(|e| panic!("{e}: {block}"));
        assert_eq!(data["type"], name.as_str());
        events.push((name, data));
    }
    events
}

/// Consecutive deltas of one item or block joined, sequence numbers
/// dropped: what differs between two chunkings of one answer is only
/// how its deltas are cut.
fn merged(events: &[(String, Value)]) -> Vec<(String, Value)> {
    let mut merged: Vec<(String, Value)> = Vec::new();
    for (name, data) in events {
        let mut data = data.clone();
        timeless(&mut data);
        if let Some(object) = data.as_object_mut() {
            object.remove("sequence_number");
        }
        let key = delta_key(&data);
        if let (Some(key), Some((last_name, last))) = (key, merged.last_mut()) {
            if last_name == name && delta_key(last).is_some_and(|k| k == key) {
                let joined = join(&last[key.as_str()], &data[key.as_str()]);
                last[key.as_str()] = joined;
                continue;
            }
        }
        merged.push((name.clone(), data));
    }
    merged
}

/// Where a delta event's text is: Responses' `delta`, Anthropic's
/// `delta.text` / `partial_json` / `thinking` (the whole `delta`).
fn delta_key(data: &Value) -> Option<String> {
    let kind = data["type"].as_str()?;
    (kind.ends_with(".delta") || kind == "content_block_delta").then(|| "delta".to_owned())
}

fn join(a: &Value, b: &Value) -> Value {
    match (a, b) {
        (Value::String(a), Value::String(b)) => Value::String(format!("{a}{b}")),
        (Value::Object(a), Value::Object(b)) => {
            let mut joined = Map::new();
            for (key, value) in a {
                let other = b.get(key).unwrap_or(&Value::Null);
                let value = match (value, other) {
                    (Value::String(_), Value::String(_)) if key != "type" => join(value, other),
                    _ => value.clone(),
                };
                joined.insert(key.clone(), value);
            }
            Value::Object(joined)
        }
        _ => b.clone(),
    }
}

/// Char boundaries of `text` every `size` bytes.
fn every(text: &str, size: usize) -> Vec<usize> {
    (1..text.len()).filter(|&i| i % size == 0 && text.is_char_boundary(i)).collect()
}

fn check_every_chunking(responses: bool) {
    for &(format_name, name) in CASES {
        let format: Format = format_name.parse().unwrap();
        let (text, tools) = fixture(format_name, name);
        let (events, answer) = run(format, &tools, responses, &text, &[]);
        let mut splits: Vec<Vec<usize>> = (1..=7).map(|size| every(&text, size)).collect();
        // Every cut in two, for the short ones.
        if text.len() < 400 {
            splits.extend((1..text.len()).filter(|&i| text.is_char_boundary(i)).map(|i| vec![i]));
        }
        for cuts in splits {
            let (split_events, split_answer) = run(format, &tools, responses, &text, &cuts);
            assert_eq!(split_answer, answer, "{format_name}/{name} at {cuts:?}: the answer");
            assert_eq!(split_events, events, "{format_name}/{name} at {cuts:?}: the events");
        }
    }
}

#[test]
fn responses_events_are_the_same_at_every_upstream_chunking() {
    check_every_chunking(true);
}

#[test]
fn messages_events_are_the_same_at_every_upstream_chunking() {
    check_every_chunking(false);
}
