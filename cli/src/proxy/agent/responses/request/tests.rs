use super::*;
use crate::proxy::agent::responses::tools::translate_tools;

#[derive(Debug)]
struct Translation {
    messages: Value,
    call_ids: HashSet<String>,
    notes: Vec<String>,
}

fn translate_with(
    instructions: Option<&str>,
    history: Value,
    input: Value,
    tools: Value,
) -> Result<Translation, AgentError> {
    let mut notes = Vec::new();
    let tools = translate_tools(Some(&tools), &mut notes)?;
    let history = history.as_array().cloned().unwrap_or_default();
    let input = input.as_array().cloned().unwrap_or_default();
    let mut ids = IdMaker::Sequential(0);
    let conversation = translate_conversation(
        instructions,
        &history,
        &input,
        &tools.map,
        &mut ids,
        &mut notes,
    )?;
    Ok(Translation {
        messages: conversation.messages.into(),
        call_ids: conversation.call_ids,
        notes,
    })
}

fn translate(input: Value) -> Translation {
    translate_with(None, json!([]), input, json!([])).unwrap()
}

#[test]
fn instructions_and_system_messages_make_one_system_message_first() {
    let translation = translate_with(
        Some("You are Codex."),
        json!([]),
        json!([
            {"type": "message", "role": "developer",
                "content": [{"type": "input_text", "text": "Sandbox: read-only."}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
            {"role": "system", "content": "Be brief."},
        ]),
        json!([]),
    )
    .unwrap();
    assert_eq!(
        translation.messages,
        json!([
            {"role": "system", "content": "You are Codex.\n\nSandbox: read-only.\n\nBe brief."},
            {"role": "user", "content": "hi"},
        ])
    );
}

#[test]
fn messages_without_a_type_and_content_strings_or_parts() {
    let translation = translate(json!([
        {"role": "user", "content": "What is in this image?"},
        {"role": "user", "content": [
            {"type": "input_text", "text": "this one"},
            {"type": "input_image", "image_url": "data:image/png;base64,AAAA", "detail": "low"},
            {"type": "input_image", "file_id": "file-1"},
            {"type": "input_file", "file_id": "file-2"},
        ]},
        {"role": "assistant", "content": [
            {"type": "output_text", "text": "A cat", "annotations": []},
            {"type": "refusal", "refusal": "and no more"},
        ]},
        {"role": "user", "content": [{"type": "input_text", "text": "a"}, {"type": "input_text", "text": "b"}]},
    ]));
    assert_eq!(
        translation.messages,
        json!([
            {"role": "user", "content": "What is in this image?"},
            {"role": "user", "content": [
                {"type": "text", "text": "this one"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA", "detail": "low"}},
            ]},
            {"role": "assistant", "content": "A cat\nand no more"},
            {"role": "user", "content": "a\nb"},
        ])
    );
    assert_eq!(
        translation.notes,
        [
            "input[1].content[2]: an image by file_id cannot be fetched by this proxy; left out",
            "input[1].content[3]: a `input_file` part cannot be sent upstream; left out",
        ]
    );
}

#[test]
fn a_turn_of_reasoning_text_and_calls_is_one_assistant_message() {
    let translation = translate(json!([
        {"role": "user", "content": "list and read"},
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "short"}],
            "content": [{"type": "reasoning_text", "text": "I should list first."}],
            "encrypted_content": "gAAAA..."},
        {"type": "message", "role": "assistant", "id": "msg_1", "status": "completed",
            "content": [{"type": "output_text", "text": "Listing."}]},
        {"type": "function_call", "id": "fc_1", "call_id": "call_a", "name": "ls",
            "arguments": "{\"path\":\".\"}"},
        {"type": "function_call", "call_id": "call_b", "name": "cat", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "call_a", "output": "a.txt"},
        {"type": "function_call_output", "call_id": "call_b",
            "output": [{"type": "input_text", "text": "hello"}, {"type": "input_text", "text": "world"}]},
        {"type": "reasoning", "summary": [{"type": "summary_text", "text": "Only a summary."}]},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done."}]},
    ]));
    assert_eq!(
        translation.messages,
        json!([
            {"role": "user", "content": "list and read"},
            {"role": "assistant", "content": "Listing.", "reasoning_content": "I should list first.",
                "tool_calls": [
                    {"id": "call_a", "type": "function", "function": {"name": "ls", "arguments": "{\"path\":\".\"}"}},
                    {"id": "call_b", "type": "function", "function": {"name": "cat", "arguments": "{}"}},
                ]},
            {"role": "tool", "tool_call_id": "call_a", "content": "a.txt"},
            {"role": "tool", "tool_call_id": "call_b", "content": "hello\nworld"},
            {"role": "assistant", "content": "Done.", "reasoning_content": "Only a summary."},
        ])
    );
    assert!(translation.notes.is_empty());
    assert_eq!(
        translation.call_ids,
        HashSet::from(["call_a".to_owned(), "call_b".to_owned()])
    );
}

#[test]
fn encrypted_reasoning_alone_is_not_required_nor_sent() {
    let translation = translate(json!([
        {"role": "user", "content": "hi"},
        {"type": "reasoning", "summary": [], "encrypted_content": "gAAAA..."},
        {"type": "function_call", "call_id": "c1", "name": "ls", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "x"},
        {"type": "reasoning", "summary": [{"type": "summary_text", "text": "dangling"}]},
    ]));
    assert_eq!(
        translation.messages,
        json!([
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "",
                "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "x"},
        ])
    );
}

#[test]
fn text_after_calls_starts_a_new_assistant_message() {
    let translation = translate(json!([
        {"type": "function_call", "call_id": "c1", "name": "ls", "arguments": "{}"},
        {"role": "assistant", "content": "then this"},
    ]));
    assert_eq!(
        translation.messages,
        json!([
            {"role": "assistant", "content": "",
                "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]},
            {"role": "assistant", "content": "then this"},
        ])
    );
}

#[test]
fn custom_and_namespaced_calls_use_the_upstream_names() {
    let tools = json!([
        {"type": "custom", "name": "apply_patch"},
        {"type": "namespace", "name": "mcp__docs__", "tools": [{"type": "function", "name": "search"}]},
    ]);
    let translation = translate_with(
        None,
        json!([]),
        json!([
            {"type": "custom_tool_call", "call_id": "c1", "name": "apply_patch",
                "input": "*** Begin Patch\n*** End Patch\n"},
            {"type": "custom_tool_call_output", "call_id": "c1", "output": "Done!"},
            {"type": "function_call", "call_id": "c2", "name": "search", "namespace": "mcp__docs__",
                "arguments": "{\"q\":\"x\"}"},
            {"type": "function_call_output", "call_id": "c2", "output": "found"},
        ]),
        tools,
    )
    .unwrap();
    let messages = translation.messages.as_array().unwrap();
    let patch = &messages[0]["tool_calls"][0]["function"];
    assert_eq!(patch["name"], "apply_patch");
    let arguments: Value = serde_json::from_str(patch["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(
        arguments,
        json!({"input": "*** Begin Patch\n*** End Patch\n"})
    );
    assert_eq!(
        messages[1],
        json!({"role": "tool", "tool_call_id": "c1", "content": "Done!"})
    );
    assert_eq!(
        messages[2]["tool_calls"][0]["function"]["name"],
        "mcp__docs__search"
    );
    assert_eq!(messages[3]["tool_call_id"], "c2");
}

#[test]
fn repeated_and_missing_call_ids_are_made_unique_for_the_call_and_its_output() {
    let translation = translate(json!([
        {"type": "function_call", "call_id": "0", "name": "ls", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "0", "output": "first"},
        {"type": "function_call", "call_id": "0", "name": "ls", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "0", "output": "second"},
        {"type": "function_call", "name": "cat", "arguments": "{}"},
        {"type": "function_call_output", "output": "third"},
    ]));
    let messages = translation.messages.as_array().unwrap();
    let call_id = |i: usize| {
        messages[i]["tool_calls"][0]["id"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let output_id = |i: usize| messages[i]["tool_call_id"].as_str().unwrap().to_owned();
    assert_eq!((call_id(0), output_id(1)), ("0".into(), "0".into()));
    assert_eq!(
        (call_id(2), output_id(3)),
        ("call_0".into(), "call_0".into())
    );
    assert_eq!(
        (call_id(4), output_id(5)),
        ("call_1".into(), "call_1".into())
    );
    assert_eq!(translation.call_ids.len(), 3);
}

#[test]
fn history_items_come_before_the_input() {
    let translation = translate_with(
        Some("sys"),
        json!([
            {"type": "message", "role": "user", "content": "first"},
            {"type": "function_call", "call_id": "c1", "name": "ls", "arguments": "{}"},
        ]),
        json!([{"type": "function_call_output", "call_id": "c1", "output": "x"}]),
        json!([]),
    )
    .unwrap();
    assert_eq!(
        translation.messages,
        json!([
            {"role": "system", "content": "sys"},
            {"role": "user", "content": "first"},
            {"role": "assistant", "content": "",
                "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "x"},
        ])
    );
}

#[test]
fn item_references_and_unknown_items_are_skipped_with_notes() {
    let translation = translate(json!([
        {"type": "item_reference", "id": "msg_1"},
        {"type": "web_search_call", "id": "ws_1", "status": "completed"},
        {"role": "user", "content": "hi"},
    ]));
    assert_eq!(
        translation.messages,
        json!([{"role": "user", "content": "hi"}])
    );
    assert_eq!(
        translation.notes,
        [
            "input[0]: an item_reference cannot be resolved by this proxy (it keeps no items by id); skipped",
            "input[1]: a `web_search_call` item has no chat completions equivalent; skipped",
        ]
    );
}

#[test]
fn malformed_items_are_errors_naming_the_field() {
    for (item, param, words) in [
        (json!("hi"), "input[0]", "expected an item object"),
        (json!({"content": "hi"}), "input[0]", "needs a `type`"),
        (
            json!({"role": "tool", "content": "hi"}),
            "input[0]",
            "input[0].role",
        ),
        (
            json!({"role": "user", "content": 3}),
            "input[0]",
            "input[0].content",
        ),
        (
            json!({"role": "user", "content": [3]}),
            "input[0].content[0]",
            "content part object",
        ),
        (
            json!({"role": "user", "content": [{"text": "x"}]}),
            "input[0].content[0]",
            ".type",
        ),
        (
            json!({"type": "function_call", "call_id": "c"}),
            "input[0]",
            "input[0].name",
        ),
        (
            json!({"type": "function_call", "name": "ls", "arguments": 3}),
            "input[0]",
            ".arguments",
        ),
        (
            json!({"type": "function_call_output", "call_id": "c", "output": 3}),
            "input[0]",
            ".output",
        ),
        (json!({"type": 3}), "input[0]", "input[0].type"),
    ] {
        let error = translate_with(None, json!([]), json!([item]), json!([])).unwrap_err();
        assert_eq!(error.param.as_deref(), Some(param), "{}", error.message);
        assert!(error.message.contains(words), "{}", error.message);
    }
}
