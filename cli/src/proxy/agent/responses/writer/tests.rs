//! The writer, fed chat chunks: the events' names, order, sequence
//! numbers and ids, and the response they end with.

mod calls;
mod codex;
mod ends;
mod robust;
mod split;

use super::*;
use crate::proxy::agent::chunk::completion_as_chunk;
use crate::proxy::agent::notes::Notes;
use crate::proxy::agent::responses::params::echoed;
use crate::proxy::agent::responses::tools::translate_tools;
use crate::proxy::sse::SseDecoder;
use toolcall_stream::openai::ChatCompletion;

/// A writer for a request with a function `ls`, a custom `apply_patch`
/// and a namespaced `mcp__docs__search`.
pub(super) fn writer_with(max_answer_bytes: usize, request_call_ids: &[&str]) -> ResponsesWriter {
    let tools = json!([
        {"type": "function", "name": "ls"},
        {"type": "custom", "name": "apply_patch"},
        {"type": "namespace", "name": "mcp__docs__", "tools": [{"type": "function", "name": "search"}]},
    ]);
    let tools = translate_tools(Some(&tools), &mut Notes::new()).unwrap();
    ResponsesWriter::new(WriterSetup {
        model: "client-model".into(),
        ids: IdMaker::Sequential(0),
        max_answer_bytes,
        tools: tools.map,
        request_call_ids: request_call_ids.iter().map(|id| id.to_string()).collect(),
        echoed: echoed(&Map::new()),
        stored_items: Some(vec![
            json!({"type": "message", "role": "user", "content": "hi"}),
        ]),
        input_tokens_estimate: 42,
    })
}

pub(super) fn writer() -> ResponsesWriter {
    writer_with(1 << 20, &[])
}

pub(super) fn chunk(delta: Value, finish: Option<&str>) -> ChatCompletionChunk {
    serde_json::from_value(
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk",
        "created": 1, "model": "upstream-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}),
    )
    .unwrap()
}

fn text(text: &str) -> ChatCompletionChunk {
    chunk(json!({"content": text}), None)
}

fn reasoning(text: &str) -> ChatCompletionChunk {
    chunk(json!({"reasoning_content": text}), None)
}

/// A call's first delta (id and name) or a later one (`id`, `name` None).
fn call(
    index: usize,
    id: Option<&str>,
    name: Option<&str>,
    arguments: &str,
) -> ChatCompletionChunk {
    let mut function = json!({"arguments": arguments});
    if let Some(name) = name {
        function["name"] = name.into();
    }
    let mut delta = json!({"index": index, "function": function});
    if let Some(id) = id {
        delta["id"] = id.into();
        delta["type"] = "function".into();
    }
    chunk(json!({"tool_calls": [delta]}), None)
}

fn finish(reason: &str) -> ChatCompletionChunk {
    chunk(json!({}), Some(reason))
}

fn usage(prompt: u64, completion: u64, extra: Value) -> ChatCompletionChunk {
    let mut usage = json!({"prompt_tokens": prompt, "completion_tokens": completion,
        "total_tokens": prompt.saturating_add(completion)});
    if let (Value::Object(usage), Value::Object(extra)) = (&mut usage, extra) {
        usage.extend(extra);
    }
    serde_json::from_value(
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk",
        "created": 1, "model": "upstream-model", "choices": [], "usage": usage}),
    )
    .unwrap()
}

/// How a test's answer ends.
pub(super) enum Ending {
    End(usize),
    Fail(Failure, usize),
}

/// The events written, as (type, data), after checking their framing:
/// `event:` equals `data.type`, sequence numbers count from 0.
pub(super) fn events(sse: &str) -> Vec<(String, Value)> {
    let mut decoder = SseDecoder::new(1 << 24);
    let mut decoded = Vec::new();
    decoder.feed(sse.as_bytes(), &mut decoded).unwrap();
    decoder.finish(&mut decoded).unwrap();
    decoded
        .into_iter()
        .enumerate()
        .map(|(sequence, event)| {
            let data: Value = serde_json::from_str(&event.data).unwrap();
            let kind = event.event.expect("every event is named");
            assert_eq!(data["type"], kind.as_str());
            assert_eq!(data["sequence_number"], sequence as u64, "{kind}");
            (kind, data)
        })
        .collect()
}

/// Feeds `chunks`, ends as told, and gives the events and the answer.
pub(super) fn run(
    writer: &mut ResponsesWriter,
    chunks: &[ChatCompletionChunk],
    ending: Ending,
) -> (Vec<(String, Value)>, Value) {
    let mut out = String::new();
    for chunk in chunks {
        writer.chunk(chunk, &mut out).unwrap();
    }
    match ending {
        Ending::End(calls) => writer.end(calls, &mut out),
        Ending::Fail(failure, calls) => writer.fail(&failure, calls, &mut out),
    }
    (events(&out), writer.answer())
}

fn names(events: &[(String, Value)]) -> Vec<&str> {
    events.iter().map(|(kind, _)| kind.as_str()).collect()
}

/// The terminal event's response, checked equal to `answer`.
fn terminal<'a>(events: &'a [(String, Value)], answer: &Value) -> &'a Value {
    let (_, last) = events.last().unwrap();
    assert_eq!(
        &last["response"], answer,
        "the terminal response is the answer"
    );
    &last["response"]
}

const MESSAGE_EVENTS: [&str; 3] = [
    "response.output_text.done",
    "response.content_part.done",
    "response.output_item.done",
];

#[test]
fn text_only() {
    let mut writer = writer();
    let chunks = [
        chunk(json!({"role": "assistant", "content": ""}), None),
        text("Hello"),
        text(", world"),
        finish("stop"),
        usage(
            10,
            3,
            json!({"prompt_tokens_details": {"cached_tokens": 4}}),
        ),
    ];
    let (events, answer) = run(&mut writer, &chunks, Ending::End(0));
    assert_eq!(
        names(&events),
        [
            "response.created",
            "response.in_progress",
            "response.output_item.added",
            "response.content_part.added",
            "response.output_text.delta",
            "response.output_text.delta",
        ]
        .into_iter()
        .chain(MESSAGE_EVENTS)
        .chain(["response.completed"])
        .collect::<Vec<_>>()
    );
    let created = &events[0].1["response"];
    assert_eq!(created["status"], "in_progress");
    assert_eq!(created["output"], json!([]));
    assert_eq!(created["id"], "resp_0");
    assert_eq!(
        events[2].1,
        json!({"type": "response.output_item.added", "sequence_number": 2, "output_index": 0,
            "item": {"id": "msg_1", "type": "message", "role": "assistant",
                "status": "in_progress", "content": []}})
    );
    assert_eq!(events[3].1["part"], output_text(""));
    assert_eq!(events[4].1["delta"], "Hello");
    assert_eq!(events[4].1["item_id"], "msg_1");
    assert_eq!(events[6].1["text"], "Hello, world");
    assert_eq!(events[7].1["part"], output_text("Hello, world"));
    let response = terminal(&events, &answer);
    assert_eq!(events[8].1["item"], response["output"][0]);
    assert_eq!(response["status"], "completed");
    assert_eq!(response["model"], "client-model");
    assert_eq!(response["object"], "response");
    assert!(response["created_at"].is_u64());
    assert_eq!(
        response["output"],
        json!([{"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
            "content": [output_text("Hello, world")]}])
    );
    assert_eq!(
        response["usage"],
        json!({"input_tokens": 10, "input_tokens_details": {"cached_tokens": 4},
            "output_tokens": 3, "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 13})
    );
    assert_eq!(response["incomplete_details"], Value::Null);
    assert_eq!(response["error"], Value::Null);
    assert_eq!(response["tool_choice"], "auto");
}

#[test]
fn text_and_one_call() {
    let mut writer = writer();
    let chunks = [
        text("Listing."),
        call(0, Some("call_up"), Some("ls"), ""),
        call(0, None, None, "{\"path\":"),
        call(0, None, None, "\".\"}"),
        finish("tool_calls"),
    ];
    let (events, answer) = run(&mut writer, &chunks, Ending::End(1));
    assert_eq!(
        names(&events)[2..],
        [
            "response.output_item.added",
            "response.content_part.added",
            "response.output_text.delta",
        ]
        .into_iter()
        .chain(MESSAGE_EVENTS)
        .chain([
            "response.output_item.added",
            "response.function_call_arguments.delta",
            "response.function_call_arguments.delta",
            "response.function_call_arguments.done",
            "response.output_item.done",
            "response.completed",
        ])
        .collect::<Vec<_>>()
    );
    let added = &events[8].1;
    assert_eq!(added["output_index"], 1);
    assert_eq!(
        added["item"],
        json!({"id": "fc_2", "type": "function_call", "call_id": "call_up", "name": "ls",
            "arguments": "", "status": "in_progress"})
    );
    assert_eq!(events[9].1["item_id"], "fc_2");
    assert_eq!(events[11].1["arguments"], "{\"path\":\".\"}");
    assert_eq!(events[11].1["name"], "ls");
    let response = terminal(&events, &answer);
    let done = &events[12].1["item"];
    assert_eq!(done, &response["output"][1]);
    assert_eq!(
        done,
        &json!({"id": "fc_2", "type": "function_call", "call_id": "call_up", "name": "ls",
            "arguments": "{\"path\":\".\"}", "status": "completed"})
    );
    assert_eq!(response["status"], "completed");
    // No usage came: the request's estimate, and output bytes / 4.
    assert_eq!(response["usage"]["input_tokens"], 42);
    assert_eq!(response["usage"]["output_tokens"], 5);
    assert_eq!(response["usage"]["total_tokens"], 47);
}

#[test]
fn two_calls_close_one_another() {
    let mut writer = writer();
    let chunks = [
        call(0, Some("call_a"), Some("ls"), "{}"),
        call(1, Some("call_b"), Some("ls"), "{\"path\":\"src\"}"),
        finish("tool_calls"),
    ];
    let (events, answer) = run(&mut writer, &chunks, Ending::End(2));
    assert_eq!(
        names(&events)[2..],
        [
            "response.output_item.added",
            "response.function_call_arguments.delta",
            "response.function_call_arguments.done",
            "response.output_item.done",
            "response.output_item.added",
            "response.function_call_arguments.delta",
            "response.function_call_arguments.done",
            "response.output_item.done",
            "response.completed",
        ]
    );
    let response = terminal(&events, &answer);
    let output = response["output"].as_array().unwrap();
    assert_eq!(output.len(), 2);
    assert_eq!(
        (output[0]["call_id"].as_str(), output[1]["call_id"].as_str()),
        (Some("call_a"), Some("call_b"))
    );
    assert_eq!(events[5].1["item"], output[0]);
    assert_eq!(events[9].1["item"], output[1]);
    assert_eq!(events[6].1["output_index"], 1);
}

#[test]
fn reasoning_text_and_a_call() {
    let mut writer = writer();
    let chunks = [
        reasoning("Let me "),
        reasoning("look."),
        text("Looking."),
        call(0, Some("c"), Some("ls"), "{}"),
        finish("tool_calls"),
        usage(
            20,
            9,
            json!({"completion_tokens_details": {"reasoning_tokens": 4}}),
        ),
    ];
    let (events, answer) = run(&mut writer, &chunks, Ending::End(1));
    assert_eq!(
        names(&events)[2..10],
        [
            "response.output_item.added",
            "response.content_part.added",
            "response.reasoning_text.delta",
            "response.reasoning_text.delta",
            "response.reasoning_text.done",
            "response.content_part.done",
            "response.output_item.done",
            "response.output_item.added",
        ]
    );
    assert_eq!(
        events[2].1["item"],
        json!({"id": "rs_1", "type": "reasoning", "summary": [], "content": [],
            "status": "in_progress"})
    );
    assert_eq!(
        events[3].1["part"],
        json!({"type": "reasoning_text", "text": ""})
    );
    assert_eq!(events[4].1["content_index"], 0);
    assert_eq!(events[6].1["text"], "Let me look.");
    let response = terminal(&events, &answer);
    let kinds: Vec<&str> = response["output"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["reasoning", "message", "function_call"]);
    assert_eq!(
        response["output"][0]["content"],
        json!([{"type": "reasoning_text", "text": "Let me look."}])
    );
    assert_eq!(
        response["usage"]["output_tokens_details"]["reasoning_tokens"],
        4
    );
}

#[test]
fn arguments_in_many_fragments_are_whole_in_the_done_item() {
    let arguments = "{\"path\": \"src/proxy/agent\", \"depth\": 3, \"note\": \"é ✓\"}";
    let mut chunks = vec![call(0, Some("c"), Some("ls"), "")];
    let mut rest = arguments;
    while !rest.is_empty() {
        let mut cut = rest.len().min(3);
        while !rest.is_char_boundary(cut) {
            cut += 1;
        }
        chunks.push(call(0, None, None, &rest[..cut]));
        rest = &rest[cut..];
    }
    let mut writer = writer();
    let (events, answer) = run(&mut writer, &chunks, Ending::End(1));
    let deltas: String = events
        .iter()
        .filter(|(kind, _)| kind == "response.function_call_arguments.delta")
        .map(|(_, data)| data["delta"].as_str().unwrap())
        .collect();
    assert_eq!(deltas, arguments);
    let done = events
        .iter()
        .find(|(kind, _)| kind == "response.output_item.done")
        .unwrap();
    assert_eq!(done.1["item"]["arguments"], arguments);
    assert_eq!(
        terminal(&events, &answer)["output"][0]["arguments"],
        arguments
    );
}

#[test]
fn a_keepalive_is_a_comment_not_an_event() {
    let mut writer = writer();
    let mut out = String::new();
    writer.keepalive(&mut out);
    assert_eq!(out, ": keepalive\n\n");
    writer.end(0, &mut out);
    let events = events(&out);
    assert_eq!(events[0].1["sequence_number"], 0);
}

#[test]
fn nothing_after_the_end_and_no_chunks_is_an_empty_completed_answer() {
    let mut writer = writer();
    let (events, answer) = run(&mut writer, &[], Ending::End(0));
    assert_eq!(
        names(&events),
        [
            "response.created",
            "response.in_progress",
            "response.completed"
        ]
    );
    assert_eq!(answer["output"], json!([]));
    assert_eq!(answer["usage"]["input_tokens"], 42);
    assert_eq!(answer["usage"]["output_tokens"], 0);
    let mut out = String::new();
    writer.chunk(&text("late"), &mut out).unwrap();
    writer.end(0, &mut out);
    writer.fail(&Failure::new(FailureKind::Cut, "late"), 0, &mut out);
    assert!(out.is_empty());
    assert_eq!(writer.answer(), answer);
}

#[test]
fn the_whole_answer_equals_the_streamed_one() {
    let completion: ChatCompletion = serde_json::from_value(json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "upstream-model",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": "On it.", "reasoning_content": "think",
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": "{\"path\":\".\"}"}},
                {"id": "call_2", "type": "function", "function": {"name": "apply_patch", "arguments": "{\"input\":\"*** Begin Patch\"}"}},
            ]}}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12}
    }))
    .unwrap();
    let mut whole = writer();
    let mut discarded = String::new();
    whole
        .chunk(&completion_as_chunk(completion), &mut discarded)
        .unwrap();
    whole.end(2, &mut discarded);
    let mut answer = whole.answer();

    let mut streamed = writer();
    let chunks = [
        reasoning("think"),
        text("On it."),
        call(0, Some("call_1"), Some("ls"), "{\"path\":\".\"}"),
        call(
            1,
            Some("call_2"),
            Some("apply_patch"),
            "{\"input\":\"*** Begin Patch\"}",
        ),
        finish("tool_calls"),
        usage(5, 7, json!({})),
    ];
    let (events, mut streamed_answer) = run(&mut streamed, &chunks, Ending::End(2));
    assert_eq!(terminal(&events, &streamed_answer), &streamed_answer);
    for response in [&mut answer, &mut streamed_answer] {
        response["created_at"] = 0.into();
    }
    assert_eq!(answer, streamed_answer);
    assert_eq!(answer["output"][3]["type"], "custom_tool_call");
}
