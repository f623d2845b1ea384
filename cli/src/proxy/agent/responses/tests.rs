//! Whole requests: read, translated, answered.

mod fixtures;

use super::*;
use crate::proxy::agent::IdMaker;

fn options() -> Options {
    Options {
        upstream_model: "qwen3-coder".into(),
        max_tokens_cap: Some(8192),
        max_answer_bytes: 1 << 20,
        ids: IdMaker::Sequential(0),
    }
}

fn translate(body: Value) -> Result<(Translated, Vec<String>), AgentError> {
    ResponsesRequest::read(&body)?.translate_with_notes(None, &options())
}

/// A request as Codex sends one (trimmed): instructions, a developer
/// message, the user's turn, a namespace, a custom tool, hosted tools and
/// fields a chat upstream has no use for.
fn codex_request() -> Value {
    json!({
        "model": "gpt-5-codex",
        "instructions": "You are Codex, a coding agent.",
        "input": [
            {"type": "message", "role": "developer",
                "content": [{"type": "input_text", "text": "<permissions>read-only</permissions>"}]},
            {"type": "message", "role": "user",
                "content": [{"type": "input_text", "text": "<environment_context>cwd=/w</environment_context>"}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Fix the bug."}]},
        ],
        "tools": [
            {"type": "function", "name": "shell_command", "description": "Runs a command.", "strict": false,
                "parameters": {"type": "object", "properties": {"command": {"type": "string"}},
                    "required": ["command"], "additionalProperties": false}},
            {"type": "custom", "name": "apply_patch", "description": "Edit files.",
                "format": {"type": "grammar", "syntax": "lark", "definition": "start: patch"}},
            {"type": "namespace", "name": "mcp__docs__", "description": "Docs.",
                "tools": [{"type": "function", "name": "search", "parameters": {"type": "object", "properties": {}}}]},
            {"type": "web_search", "external_web_access": false},
        ],
        "tool_choice": "auto",
        "parallel_tool_calls": false,
        "reasoning": {"effort": "medium", "summary": "auto"},
        "store": false,
        "stream": true,
        "include": ["reasoning.encrypted_content"],
        "prompt_cache_key": "0199-abc",
        "client_metadata": {"x": "y"},
        "text": {"verbosity": "medium"},
        "service_tier": "auto",
    })
}

#[test]
fn a_codex_request_becomes_a_chat_request() {
    let (translated, notes) = translate(codex_request()).unwrap();
    assert!(translated.stream);
    let chat = Value::Object(translated.chat);
    assert_eq!(chat["model"], "qwen3-coder");
    assert_eq!(
        chat["messages"],
        json!([
            {"role": "system", "content": "You are Codex, a coding agent.\n\n<permissions>read-only</permissions>"},
            {"role": "user", "content": "<environment_context>cwd=/w</environment_context>"},
            {"role": "user", "content": "Fix the bug."},
        ])
    );
    let names: Vec<&str> = chat["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["shell_command", "apply_patch", "mcp__docs__search"]);
    assert_eq!(chat["tool_choice"], "auto");
    assert_eq!(chat["parallel_tool_calls"], false);
    assert_eq!(chat["reasoning_effort"], "medium");
    assert_eq!(chat["max_tokens"], 8192);
    assert_eq!(chat["stream"], true);
    assert_eq!(
        chat["stream_options"],
        json!({"include_usage": true, "continuous_usage_stats": true})
    );
    for ignored in [
        "store",
        "include",
        "prompt_cache_key",
        "client_metadata",
        "text",
        "service_tier",
        "reasoning",
    ] {
        assert!(
            chat.get(ignored).is_none(),
            "{ignored} is not sent upstream"
        );
    }
    assert_eq!(
        notes,
        ["tools[3]: the `web_search` tool cannot be offered to a chat completions upstream; dropped"]
    );
}

#[test]
fn the_writer_answers_in_the_clients_model_and_echoes_the_request() {
    let (mut translated, _) = translate(codex_request()).unwrap();
    let mut out = String::new();
    translated.writer.end(0, &mut out);
    let answer = translated.writer.answer();
    assert_eq!(answer["model"], "gpt-5-codex");
    assert_eq!(answer["instructions"], "You are Codex, a coding agent.");
    assert_eq!(answer["tools"], codex_request()["tools"]);
    assert_eq!(answer["parallel_tool_calls"], false);
    assert_eq!(answer["store"], false);
    assert_eq!(
        answer["reasoning"],
        json!({"effort": "medium", "summary": "auto"})
    );
    assert!(answer["id"].as_str().unwrap().starts_with("resp_"));
    // The input-token estimate stands in for the upstream's usage.
    assert!(answer["usage"]["input_tokens"].as_u64().unwrap() > 20);
    // store: false keeps nothing.
    assert!(translated.writer.stored().is_none());
}

#[test]
fn a_string_input_is_one_user_message_and_no_stream_asks_no_usage_stream() {
    let (translated, notes) = translate(
        json!({"model": "m", "input": "hi", "max_output_tokens": 100,
        "temperature": 0.3}),
    )
    .unwrap();
    assert!(!translated.stream);
    assert!(notes.is_empty());
    assert_eq!(
        Value::Object(translated.chat),
        json!({"model": "qwen3-coder", "messages": [{"role": "user", "content": "hi"}],
            "max_tokens": 100, "temperature": 0.3, "stream": false})
    );
}

#[test]
fn a_stored_response_continues_with_its_items_and_is_stored_again() {
    let history = StoredResponse {
        items: vec![
            json!({"type": "message", "role": "user", "content": "list"}),
            json!({"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "ls",
                "arguments": "{}", "status": "completed"}),
        ],
    };
    let body = json!({"model": "m", "previous_response_id": "resp_prev", "instructions": "sys",
        "tools": [{"type": "function", "name": "ls"}],
        "input": [{"type": "function_call_output", "call_id": "call_1", "output": "a.txt"}]});
    let request = ResponsesRequest::read(&body).unwrap();
    assert_eq!(request.previous_response_id(), Some("resp_prev"));
    assert!(request.store());
    let mut translated = request
        .translate(Some(history.clone()), &options())
        .unwrap();
    let chat = Value::Object(translated.chat.clone());
    assert_eq!(chat["messages"].as_array().unwrap().len(), 4);
    assert_eq!(
        chat["messages"][3],
        json!({"role": "tool", "tool_call_id": "call_1", "content": "a.txt"})
    );

    // The answer's call may not reuse an id of the conversation.
    let chunk: toolcall_stream::openai::ChatCompletionChunk = serde_json::from_value(json!({
        "id": "c", "object": "chat.completion.chunk", "created": 1, "model": "qwen3-coder",
        "choices": [{"index": 0, "delta": {"content": "a.txt is there."}, "finish_reason": "stop"}]}))
    .unwrap();
    let mut out = String::new();
    translated.writer.chunk(&chunk, &mut out).unwrap();
    translated.writer.end(0, &mut out);
    let answer = translated.writer.answer();
    assert_eq!(answer["previous_response_id"], "resp_prev");
    let (id, stored) = translated.writer.stored().unwrap();
    assert_eq!(id, answer["id"]);
    assert_eq!(stored.items[..2], history.items[..]);
    assert_eq!(stored.items[2], body["input"][0]);
    assert_eq!(stored.items[3], answer["output"][0]);
}

#[test]
fn a_repeated_upstream_call_id_is_not_reused_in_the_answer() {
    let body = json!({"model": "m", "tools": [{"type": "function", "name": "ls"}], "input": [
        {"type": "function_call", "call_id": "0", "name": "ls", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "0", "output": "x"},
    ]});
    let (mut translated, _) = translate(body).unwrap();
    let chunk: toolcall_stream::openai::ChatCompletionChunk = serde_json::from_value(json!({
        "id": "c", "object": "chat.completion.chunk", "created": 1, "model": "qwen3-coder",
        "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "0", "type": "function",
            "function": {"name": "ls", "arguments": "{}"}}]}, "finish_reason": "tool_calls"}]}))
    .unwrap();
    let mut out = String::new();
    translated.writer.chunk(&chunk, &mut out).unwrap();
    translated.writer.end(1, &mut out);
    let call_id = translated.writer.answer()["output"][0]["call_id"].clone();
    assert_ne!(call_id, "0");
    assert!(call_id.as_str().unwrap().starts_with("call_"));
}

#[test]
fn tool_choice_without_tools_is_left_out_with_a_note() {
    let (translated, notes) = translate(json!({"model": "m", "input": "hi", "tool_choice": "required",
        "parallel_tool_calls": true, "tools": [{"type": "file_search", "vector_store_ids": ["vs_1"]}]}))
    .unwrap();
    assert!(translated.chat.get("tools").is_none());
    assert!(translated.chat.get("tool_choice").is_none());
    assert!(translated.chat.get("parallel_tool_calls").is_none());
    assert_eq!(notes.len(), 2);
    assert_eq!(
        notes[1],
        "tool_choice: no tool is offered upstream; left out"
    );
}

#[test]
fn notes_are_capped() {
    let input: Vec<Value> = (0..30)
        .map(|i| json!({"type": "web_search_call", "id": format!("ws_{i}")}))
        .chain([json!({"role": "user", "content": "hi"})])
        .collect();
    let (_, notes) = translate(json!({"model": "m", "input": input})).unwrap();
    assert_eq!(notes.len(), MAX_NOTES + 1);
    assert_eq!(notes[MAX_NOTES], "… and 10 more notes");
}

#[test]
fn a_missing_model_is_the_upstream_one() {
    let (mut translated, _) = translate(json!({"input": "hi"})).unwrap();
    translated.writer.end(0, &mut String::new());
    assert_eq!(translated.writer.answer()["model"], "qwen3-coder");
}

#[test]
fn bad_requests_are_errors_naming_the_field() {
    for (body, param) in [
        (json!([]), "body"),
        (
            json!({"input": "hi", "previous_response_id": 3}),
            "previous_response_id",
        ),
        (json!({"input": "hi", "store": "yes"}), "store"),
        (json!({"input": "hi", "stream": 1}), "stream"),
        (json!({"input": 3}), "input"),
        (json!({"input": []}), "input"),
        (json!({"input": "hi", "model": 3}), "model"),
        (
            json!({"input": "hi", "instructions": ["x"]}),
            "instructions",
        ),
        (
            json!({"input": "hi", "parallel_tool_calls": "no"}),
            "parallel_tool_calls",
        ),
        (json!({"input": "hi", "background": true}), "background"),
        (
            json!({"input": "hi", "conversation": "conv_1"}),
            "conversation",
        ),
        (json!({"input": "hi", "prompt": {"id": "pmpt_1"}}), "prompt"),
        (json!({"input": "hi", "tools": {}}), "tools"),
        (json!({"input": "hi", "top_p": "x"}), "top_p"),
    ] {
        let error = translate(body.clone()).unwrap_err();
        assert_eq!(
            error.param.as_deref(),
            Some(param),
            "{body}: {}",
            error.message
        );
        assert_eq!(error.kind, crate::proxy::agent::ErrorKind::InvalidRequest);
    }
    // Nulls are as good as absent.
    let body = json!({"input": "hi", "background": false, "conversation": null, "prompt": null,
        "previous_response_id": null, "store": null, "tools": null, "tool_choice": null});
    assert!(translate(body).is_ok());
}

/// Any JSON value, shallow, with the keys and strings a request uses, so
/// that the translator meets near-misses of every shape.
fn any_json() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    let words = prop::sample::select(vec![
        "type",
        "role",
        "content",
        "text",
        "name",
        "call_id",
        "arguments",
        "output",
        "input",
        "message",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "reasoning",
        "summary",
        "user",
        "assistant",
        "developer",
        "input_text",
        "input_image",
        "image_url",
        "function",
        "custom",
        "namespace",
        "tools",
        "parameters",
        "format",
        "definition",
    ]);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        words.clone().prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
            prop::collection::btree_map(words.clone(), inner, 0..6).prop_map(|map| {
                Value::Object(map.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
            }),
        ]
    })
}

proptest::proptest! {
    #[test]
    fn any_request_translates_or_is_refused_without_a_panic(
        input in any_json(),
        tools in any_json(),
        tool_choice in any_json(),
    ) {
        let body = json!({"model": "m", "input": input, "tools": tools, "tool_choice": tool_choice});
        if let Ok((mut translated, _)) = translate(body) {
            let mut out = String::new();
            translated.writer.end(0, &mut out);
            proptest::prop_assert!(translated.writer.answer()["id"].is_string());
        }
    }
}
