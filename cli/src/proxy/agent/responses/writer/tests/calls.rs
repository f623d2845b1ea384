//! Calls: custom and namespaced tools, ids, late names, deltas after a
//! call closed, and the order of a call's end and the text after it.

use super::*;

#[test]
fn a_custom_call_is_a_custom_tool_call_with_its_input() {
    let mut writer = writer();
    let patch = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n";
    let arguments = json!({"input": patch}).to_string();
    let (head, tail) = arguments.split_at(10);
    let chunks = [
        call(0, Some("call_p"), Some("apply_patch"), head),
        call(0, None, None, tail),
    ];
    let (events, answer) = run(&mut writer, &chunks, Ending::End(1));
    assert_eq!(
        names(&events)[2..],
        [
            "response.output_item.added",
            "response.custom_tool_call_input.delta",
            "response.custom_tool_call_input.done",
            "response.output_item.done",
            "response.completed",
        ]
    );
    assert_eq!(
        events[2].1["item"],
        json!({"id": "ctc_1", "type": "custom_tool_call", "call_id": "call_p",
            "name": "apply_patch", "input": "", "status": "in_progress"})
    );
    assert_eq!(events[3].1["delta"], patch);
    assert_eq!(events[4].1["input"], patch);
    let done = &events[5].1["item"];
    assert_eq!(
        done,
        &json!({"id": "ctc_1", "type": "custom_tool_call", "call_id": "call_p",
            "name": "apply_patch", "input": patch, "status": "completed"})
    );
    assert_eq!(&terminal(&events, &answer)["output"][0], done);
}

#[test]
fn a_namespaced_call_comes_back_split() {
    let mut writer = writer();
    let chunks = [call(
        0,
        Some("c"),
        Some("mcp__docs__search"),
        "{\"q\":\"x\"}",
    )];
    let (events, answer) = run(&mut writer, &chunks, Ending::End(1));
    let item = &terminal(&events, &answer)["output"][0];
    assert_eq!(item["name"], "search");
    assert_eq!(item["namespace"], "mcp__docs__");
    assert_eq!(events[2].1["item"]["namespace"], "mcp__docs__");
}

#[test]
fn call_ids_missing_repeated_or_in_the_request_are_minted() {
    let mut writer = writer_with(1 << 20, &["call_old"]);
    let chunks = [
        call(0, None, Some("ls"), "{}"),
        call(1, Some("0"), Some("ls"), "{}"),
        call(2, Some("0"), Some("ls"), "{}"),
        call(3, Some("call_old"), Some("ls"), "{}"),
    ];
    let (events, answer) = run(&mut writer, &chunks, Ending::End(4));
    let output = terminal(&events, &answer)["output"]
        .as_array()
        .unwrap()
        .clone();
    let ids: Vec<&str> = output
        .iter()
        .map(|item| item["call_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["call_2", "0", "call_4", "call_6"]);
    let done_ids: Vec<&str> = events
        .iter()
        .filter(|(kind, _)| kind == "response.output_item.done")
        .map(|(_, data)| data["item"]["call_id"].as_str().unwrap())
        .collect();
    assert_eq!(done_ids, ids);
}

#[test]
fn a_call_is_announced_when_its_name_comes() {
    let mut writer = writer();
    let chunks = [
        call(0, Some("c"), None, "{\"pa"),
        call(0, None, Some("ls"), "th\":1}"),
    ];
    let (events, answer) = run(&mut writer, &chunks, Ending::End(1));
    assert_eq!(
        names(&events)[2..4],
        [
            "response.output_item.added",
            "response.function_call_arguments.delta"
        ]
    );
    assert_eq!(events[3].1["delta"], "{\"path\":1}");
    assert_eq!(terminal(&events, &answer)["output"][0]["name"], "ls");
}

#[test]
fn deltas_for_a_closed_call_reach_the_final_object_only() {
    let mut writer = writer();
    let chunks = [
        call(0, Some("a"), Some("ls"), "{\"x\":"),
        call(1, Some("b"), Some("ls"), "{}"),
        call(0, None, None, "1}"),
    ];
    let (events, answer) = run(&mut writer, &chunks, Ending::End(2));
    let response = terminal(&events, &answer);
    assert_eq!(response["output"][0]["arguments"], "{\"x\":1}");
    assert_eq!(events[5].1["item"]["arguments"], "{\"x\":");
}

#[test]
fn vllm_reasoning_field_is_read() {
    let mut writer = writer();
    let chunks = [chunk(json!({"reasoning": "hmm"}), None)];
    let (_, answer) = run(&mut writer, &chunks, Ending::End(0));
    assert_eq!(answer["output"][0]["content"][0]["text"], "hmm");
}

#[test]
fn the_stored_conversation_holds_the_request_items_and_the_output() {
    let mut writer = writer();
    let chunks = [
        reasoning("r"),
        text("t"),
        call(0, Some("c"), Some("ls"), "{}"),
    ];
    let (_, answer) = run(&mut writer, &chunks, Ending::End(1));
    let (id, stored) = writer.stored().unwrap();
    assert_eq!(id, answer["id"]);
    assert_eq!(
        stored.items[0],
        json!({"type": "message", "role": "user", "content": "hi"})
    );
    assert_eq!(stored.items[1..], answer["output"].as_array().unwrap()[..]);
    assert!(writer.stored().is_none(), "given once");

    let mut unstored = writer_with(1 << 20, &[]);
    unstored.stored_items = None;
    let _ = run(&mut unstored, &[text("t")], Ending::End(0));
    assert!(unstored.stored().is_none());
}

#[test]
fn a_calls_end_and_the_text_after_it_in_one_chunk_keep_their_order() {
    let mut writer = writer();
    let end_and_text = chunk(
        json!({"content": "Done.", "tool_calls": [{"index": 0, "function": {"arguments": "1}"}}]}),
        None,
    );
    let text_and_start = chunk(
        json!({"content": " Next:", "tool_calls": [{"index": 1, "id": "b", "type": "function",
            "function": {"name": "ls", "arguments": "{}"}}]}),
        None,
    );
    let chunks = [
        call(0, Some("a"), Some("ls"), "{\"x\":"),
        end_and_text,
        text_and_start,
    ];
    let (events, answer) = run(&mut writer, &chunks, Ending::End(2));
    let response = terminal(&events, &answer);
    let output = response["output"].as_array().unwrap();
    let kinds: Vec<&str> = output
        .iter()
        .map(|item| item["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["function_call", "message", "function_call"]);
    assert_eq!(output[0]["arguments"], "{\"x\":1}");
    assert_eq!(output[1]["content"][0]["text"], "Done. Next:");
    let first_done = events
        .iter()
        .find(|(kind, _)| kind == "response.output_item.done")
        .unwrap();
    assert_eq!(first_done.1["item"]["arguments"], "{\"x\":1}");
}

/// The library's `Rewriter` sends a call's last arguments and the text
/// after the call in one chunk: the call is done whole, then the text.
#[test]
fn the_parsers_chunks_end_a_call_before_the_text_after_it() {
    use std::sync::Arc;
    use toolcall_stream::openai::Rewriter;
    use toolcall_stream::{Format, Ids, Parser, Tools};

    let tools = Tools::from_value(&json!([{"type": "function", "function": {"name": "ls",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}}]))
    .unwrap();
    let builder = Parser::builder()
        .format("hermes".parse::<Format>().unwrap())
        .tools(Arc::new(tools))
        .ids(Ids::sequential("call_"));
    let mut rewriter = Rewriter::new(builder);
    let mut rewritten = Vec::new();
    for (text, finish) in [
        (
            "Sure.<tool_call>\n{\"name\": \"ls\", \"arguments\": {\"path\": \"sr",
            None,
        ),
        ("c\"}}\n</tool_call>\nDone.", Some("stop")),
    ] {
        rewriter.push(chunk(json!({ "content": text }), finish), &mut rewritten);
    }
    rewriter.finish(&mut rewritten);
    let mut writer = writer();
    let (events, answer) = run(&mut writer, &rewritten, Ending::End(rewriter.calls()));
    let output = terminal(&events, &answer)["output"]
        .as_array()
        .unwrap()
        .clone();
    let kinds: Vec<&str> = output
        .iter()
        .map(|item| item["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["message", "function_call", "message"]);
    let done: Vec<&Value> = events
        .iter()
        .filter(|(kind, _)| kind == "response.output_item.done")
        .map(|(_, data)| &data["item"])
        .collect();
    assert_eq!(done[1]["arguments"], "{\"path\": \"src\"}");
    assert_eq!(done[1], &output[1]);
    assert_eq!(output[2]["content"][0]["text"], "\nDone.");
}
