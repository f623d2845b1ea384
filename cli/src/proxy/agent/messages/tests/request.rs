//! The request translation, a test for each rule in `request`, `content`
//! and `tools`.

use serde_json::{json, Value};

use crate::proxy::agent::messages::{count_tokens, translate, translate_noting};
use crate::proxy::agent::{AgentError, ErrorKind, IdMaker, Options};

fn options() -> Options {
    Options {
        upstream_model: "qwen3-coder".into(),
        max_tokens_cap: Some(8192),
        max_answer_bytes: 1 << 20,
        ids: IdMaker::Sequential(0),
    }
}

fn chat(body: Value) -> Value {
    Value::Object(translate(&body, &options()).expect("translates").chat)
}

fn chat_and_notes(body: Value) -> (Value, Vec<String>) {
    let (translated, notes) = translate_noting(&body, &options()).expect("translates");
    (Value::Object(translated.chat), notes.list().to_vec())
}

fn messages(body: Value) -> Value {
    chat(body)["messages"].clone()
}

fn error(body: Value) -> AgentError {
    translate(&body, &options()).expect_err("is refused")
}

/// A body with these messages and nothing else.
fn with_messages(list: Value) -> Value {
    json!({"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": list})
}

#[test]
fn a_minimal_request() {
    let translated = translate(
        &json!({"model": "claude-sonnet-4-5", "max_tokens": 1024,
            "messages": [{"role": "user", "content": "Hello"}]}),
        &options(),
    )
    .unwrap();
    assert!(!translated.stream);
    assert_eq!(
        Value::Object(translated.chat),
        json!({"model": "qwen3-coder", "max_tokens": 1024, "stream": false,
            "messages": [{"role": "user", "content": "Hello"}]})
    );
}

#[test]
fn system_prompt_and_system_messages_become_one_first_message() {
    let body = json!({"model": "m", "max_tokens": 10,
    "system": [{"type": "text", "text": "You are Claude Code.", "cache_control": {"type": "ephemeral"}},
               {"type": "text", "text": "Be brief."}],
    "messages": [
        {"role": "user", "content": "hi"},
        {"role": "system", "content": "Mid-conversation reminder."},
        {"role": "assistant", "content": "hello"},
        {"role": "system", "content": [{"type": "text", "text": "Another."}]},
    ]});
    assert_eq!(
        messages(body),
        json!([
            {"role": "system", "content": "You are Claude Code.\n\nBe brief.\n\nMid-conversation reminder.\n\nAnother."},
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "hello"},
        ])
    );
    let string_system =
        json!({"model": "m", "system": "S", "messages": [{"role": "user", "content": "u"}]});
    assert_eq!(
        messages(string_system)[0],
        json!({"role": "system", "content": "S"})
    );
    let only_system_message = with_messages(json!([
        {"role": "user", "content": "u"}, {"role": "system", "content": "late"}]));
    assert_eq!(
        messages(only_system_message),
        json!([{"role": "system", "content": "late"}, {"role": "user", "content": "u"}])
    );
}

#[test]
fn user_blocks_become_a_string_or_parts() {
    let text_only = with_messages(json!([{"role": "user", "content": [
        {"type": "text", "text": "<system-reminder>x</system-reminder>"},
        {"type": "text", "text": "Fix the bug.", "cache_control": {"type": "ephemeral"}}]}]));
    assert_eq!(
        messages(text_only),
        json!([{"role": "user", "content": "<system-reminder>x</system-reminder>\nFix the bug."}])
    );
    let with_images = with_messages(json!([{"role": "user", "content": [
        {"type": "text", "text": "What is this?"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "AAAA"}},
        {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}]}]));
    assert_eq!(
        messages(with_images),
        json!([{"role": "user", "content": [
            {"type": "text", "text": "What is this?"},
            {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,AAAA"}},
            {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}]}])
    );
}

#[test]
fn documents_give_their_text_or_a_note() {
    let (chat, notes) = chat_and_notes(with_messages(json!([{"role": "user", "content": [
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "The file."}},
        {"type": "document", "source": {"type": "content", "content": [{"type": "text", "text": "Part."}]}},
        {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBER"}},
        {"type": "image", "source": {"type": "file", "file_id": "file_1"}},
        {"type": "text", "text": "Summarize."}]}])));
    assert_eq!(
        chat["messages"],
        json!([{"role": "user", "content": "The file.\nPart.\nSummarize."}])
    );
    assert_eq!(
        notes,
        [
            "a document with a `base64` source was skipped",
            "an image with a `file` source was skipped"
        ]
    );
}

#[test]
fn tool_uses_and_results_keep_their_ids_and_order() {
    let body = with_messages(json!([
        {"role": "user", "content": "List the files."},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Listing."},
            {"type": "tool_use", "id": "toolu_01A", "name": "Bash", "input": {"command": "ls -la", "n": 1}},
            {"type": "tool_use", "id": "toolu_01B", "name": "Read", "input": {}}]},
        {"role": "user", "content": [
            {"type": "text", "text": "Here:"},
            {"type": "tool_result", "tool_use_id": "toolu_01A", "content": "a.txt\nb.txt"},
            {"type": "tool_result", "tool_use_id": "toolu_01B", "content": [
                {"type": "text", "text": "line 1"}, {"type": "text", "text": "line 2"}]}]},
    ]));
    assert_eq!(
        messages(body),
        json!([
            {"role": "user", "content": "List the files."},
            {"role": "assistant", "content": "Listing.", "tool_calls": [
                {"id": "toolu_01A", "type": "function",
                 "function": {"name": "Bash", "arguments": "{\"command\":\"ls -la\",\"n\":1}"}},
                {"id": "toolu_01B", "type": "function", "function": {"name": "Read", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "toolu_01A", "content": "a.txt\nb.txt"},
            {"role": "tool", "tool_call_id": "toolu_01B", "content": "line 1\nline 2"},
            {"role": "user", "content": "Here:"},
        ])
    );
}

#[test]
fn a_user_message_of_results_only_adds_no_user_message() {
    let body = with_messages(json!([
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {"a": [1, 2]}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
            "content": [{"type": "text", "text": "ok"},
                        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA"}}]}]},
    ]));
    let (chat, notes) = chat_and_notes(body);
    assert_eq!(
        chat["messages"],
        json!([
            {"role": "assistant", "content": "", "tool_calls": [{"id": "t1", "type": "function",
                "function": {"name": "f", "arguments": "{\"a\":[1,2]}"}}]},
            {"role": "tool", "tool_call_id": "t1", "content": "ok"},
        ])
    );
    assert_eq!(notes, ["a `image` block in a tool result was skipped"]);
}

#[test]
fn an_error_result_says_so_once() {
    let result = |content: &str| {
        let body = with_messages(json!([{"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t", "content": content, "is_error": true}]}]));
        messages(body)[0]["content"].as_str().unwrap().to_owned()
    };
    assert_eq!(
        result("Exit code 1\nno such file"),
        "Error: Exit code 1\nno such file"
    );
    assert_eq!(
        result("Error: permission denied"),
        "Error: permission denied"
    );
    assert_eq!(result("  error reading file"), "  error reading file");
    assert_eq!(
        result("<tool_use_error>File does not exist.</tool_use_error>"),
        "<tool_use_error>File does not exist.</tool_use_error>"
    );
    let not_an_error = with_messages(json!([{"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t", "content": "fine", "is_error": false}]}]));
    assert_eq!(messages(not_an_error)[0]["content"], "fine");
}

#[test]
fn thinking_is_reasoning_and_other_blocks_are_noted() {
    let (chat, notes) = chat_and_notes(with_messages(json!([
        {"role": "user", "content": "Search."},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "Let me think.", "signature": "EqQB"},
            {"type": "redacted_thinking", "data": "opaque"},
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "x"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
            {"type": "text", "text": "Found it."}]},
        {"role": "user", "content": [{"type": "future_block", "x": 1}, {"type": "text", "text": "ok"}]},
    ])));
    assert_eq!(
        chat["messages"][1],
        json!({"role": "assistant", "content": "Found it.", "reasoning_content": "Let me think."})
    );
    assert_eq!(
        chat["messages"][2],
        json!({"role": "user", "content": "ok"})
    );
    assert_eq!(
        notes,
        [
            "a `server_tool_use` block in an assistant message was skipped",
            "a `web_search_tool_result` block in an assistant message was skipped",
            "a `future_block` block in a user message was skipped",
        ]
    );
}

#[test]
fn missing_ids_are_minted() {
    let body = with_messages(json!([
        {"role": "assistant", "content": [{"type": "tool_use", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "content": "r"}]},
    ]));
    let list = messages(body);
    assert_eq!(list[0]["tool_calls"][0]["id"], "toolu_0");
    assert_eq!(list[1]["tool_call_id"], "toolu_1");
}

#[test]
fn client_tools_become_functions_and_server_tools_are_skipped() {
    let body = json!({"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "u"}],
    "tools": [
        {"name": "Bash", "description": "Run a command.", "cache_control": {"type": "ephemeral"},
         "input_schema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
            "properties": {"command": {"type": "string"}}, "required": ["command"],
            "additionalProperties": false}},
        {"type": "custom", "name": "Read", "input_schema": {"type": "object"}, "defer_loading": true},
        {"type": "web_search_20250305", "name": "web_search", "max_uses": 5},
        {"type": "bash_20250124", "name": "bash"},
        {"name": "NoInput"},
    ]});
    let (chat, notes) = chat_and_notes(body);
    assert_eq!(
        chat["tools"],
        json!([
            {"type": "function", "function": {"name": "Bash", "description": "Run a command.",
                "parameters": {"type": "object", "properties": {"command": {"type": "string"}},
                    "required": ["command"], "additionalProperties": false}}},
            {"type": "function", "function": {"name": "Read", "parameters": {"type": "object"}}},
            {"type": "function", "function": {"name": "NoInput",
                "parameters": {"type": "object", "properties": {}}}},
        ])
    );
    assert_eq!(
        notes,
        [
            "the server tool `web_search` (web_search_20250305) was skipped",
            "the server tool `bash` (bash_20250124) was skipped"
        ]
    );
}

#[test]
fn tool_choices_map_to_chat() {
    let choice = |tool_choice: Value| {
        chat(
            json!({"model": "m", "messages": [{"role": "user", "content": "u"}],
            "tools": [{"name": "f", "input_schema": {"type": "object"}}], "tool_choice": tool_choice}),
        )
    };
    assert_eq!(choice(json!({"type": "auto"}))["tool_choice"], "auto");
    assert_eq!(choice(json!({"type": "any"}))["tool_choice"], "required");
    assert_eq!(choice(json!({"type": "none"}))["tool_choice"], "none");
    assert_eq!(
        choice(json!({"type": "tool", "name": "f"}))["tool_choice"],
        json!({"type": "function", "function": {"name": "f"}})
    );
    let serial = choice(json!({"type": "auto", "disable_parallel_tool_use": true}));
    assert_eq!(serial["parallel_tool_calls"], false);
    assert!(
        choice(json!({"type": "auto", "disable_parallel_tool_use": false}))
            .get("parallel_tool_calls")
            .is_none()
    );
    // Only server tools: no tools, so no tool choice either.
    let server_only = chat(
        json!({"model": "m", "messages": [{"role": "user", "content": "u"}],
        "tools": [{"type": "web_search_20250305", "name": "web_search"}],
        "tool_choice": {"type": "any"}}),
    );
    assert!(server_only.get("tools").is_none() && server_only.get("tool_choice").is_none());
}

#[test]
fn sampling_limits_and_stops() {
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "u"}],
        "max_tokens": 32000, "temperature": 0.7, "top_p": 0.9, "top_k": 20,
        "stop_sequences": ["END", "\n\nHuman:"],
        "metadata": {"user_id": "u1"}, "output_config": {"effort": "high"},
        "context_management": {"edits": []}, "mcp_servers": [], "container": "c",
        "service_tier": "auto", "some_future_field": 1});
    assert_eq!(
        chat(body),
        json!({"model": "qwen3-coder", "messages": [{"role": "user", "content": "u"}],
            "max_tokens": 8192, "temperature": 0.7, "top_p": 0.9, "top_k": 20,
            "stop": ["END", "\n\nHuman:"], "stream": false})
    );
    let uncapped = Options {
        max_tokens_cap: None,
        ..options()
    };
    let body = json!({"model": "m", "max_tokens": 32000, "messages": []});
    assert_eq!(
        translate(&body, &uncapped).unwrap().chat["max_tokens"],
        32000
    );
    let no_max = chat(json!({"model": "m", "messages": [], "stop_sequences": []}));
    assert!(no_max.get("max_tokens").is_none() && no_max.get("stop").is_none());
}

#[test]
fn thinking_switches_the_template() {
    let thinking = |value: Value| {
        let body = chat(json!({"model": "m", "messages": [], "thinking": value}));
        (
            body["chat_template_kwargs"].clone(),
            body.get("reasoning_effort").cloned(),
        )
    };
    let on = json!({"enable_thinking": true, "thinking": true});
    let off = json!({"enable_thinking": false, "thinking": false});
    assert_eq!(
        thinking(json!({"type": "enabled", "budget_tokens": 1024})),
        (on.clone(), Some(json!("low")))
    );
    assert_eq!(
        thinking(json!({"type": "enabled", "budget_tokens": 10000})),
        (on.clone(), Some(json!("medium")))
    );
    assert_eq!(
        thinking(json!({"type": "enabled", "budget_tokens": 31999})),
        (on.clone(), Some(json!("high")))
    );
    assert_eq!(thinking(json!({"type": "adaptive"})), (on, None));
    assert_eq!(thinking(json!({"type": "disabled"})), (off, None));
}

#[test]
fn streaming_asks_for_usage() {
    let translated = translate(
        &json!({"model": "m", "max_tokens": 5, "stream": true, "messages": []}),
        &options(),
    )
    .unwrap();
    assert!(translated.stream);
    assert_eq!(translated.chat["stream"], true);
    assert_eq!(
        translated.chat["stream_options"],
        json!({"include_usage": true, "continuous_usage_stats": true})
    );
}

#[test]
fn nulls_are_absent() {
    let body = json!({"model": "m", "max_tokens": null, "system": null, "tools": null,
        "tool_choice": null, "thinking": null, "stream": null, "temperature": null,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "u", "citations": null}]}]});
    assert_eq!(
        chat(body),
        json!({"model": "qwen3-coder", "stream": false,
            "messages": [{"role": "user", "content": "u"}]})
    );
}

#[test]
fn wrong_types_name_the_field() {
    let cases = [
        (json!([]), "body"),
        (json!({"model": 5, "messages": []}), "model"),
        (json!({"model": "m"}), "messages"),
        (json!({"model": "m", "messages": {}}), "messages"),
        (json!({"model": "m", "system": 5, "messages": []}), "system"),
        (json!({"model": "m", "messages": ["hi"]}), "messages[0]"),
        (
            json!({"model": "m", "messages": [{"content": "x"}]}),
            "messages[0].role",
        ),
        (
            json!({"model": "m", "messages": [{"role": "tool", "content": "x"}]}),
            "messages[0].role",
        ),
        (
            json!({"model": "m", "messages": [{"role": "user", "content": 5}]}),
            "messages[0].content",
        ),
        (
            json!({"model": "m", "messages": [{"role": "user", "content": [{"text": "x"}]}]}),
            "messages[0].content[0].type",
        ),
        (
            json!({"model": "m", "messages": [{"role": "user", "content": [{"type": "text", "text": 3}]}]}),
            "messages[0].content[0].text",
        ),
        (
            json!({"model": "m", "messages": [{"role": "user", "content": [{"type": "image", "source": "x"}]}]}),
            "messages[0].content[0].source",
        ),
        (
            json!({"model": "m", "messages": [{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "input": {}}]}]}),
            "messages[0].content[0].name",
        ),
        (
            json!({"model": "m", "messages": [{"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t", "content": "x", "is_error": "yes"}]}]}),
            "messages[0].content[0].is_error",
        ),
        (json!({"model": "m", "messages": [], "tools": {}}), "tools"),
        (
            json!({"model": "m", "messages": [], "tools": [{"input_schema": {}}]}),
            "tools[0].name",
        ),
        (
            json!({"model": "m", "messages": [], "tools": [{"name": "f", "input_schema": "x"}]}),
            "tools[0].input_schema",
        ),
        (
            json!({"model": "m", "messages": [], "tools": [{"name": "f"}], "tool_choice": "auto"}),
            "tool_choice",
        ),
        (
            json!({"model": "m", "messages": [], "tools": [{"name": "f"}], "tool_choice": {"type": "x"}}),
            "tool_choice.type",
        ),
        (
            json!({"model": "m", "messages": [], "tools": [{"name": "f"}], "tool_choice": {"type": "tool"}}),
            "tool_choice.name",
        ),
        (
            json!({"model": "m", "messages": [], "stop_sequences": ["a", 1]}),
            "stop_sequences",
        ),
        (
            json!({"model": "m", "messages": [], "max_tokens": "many"}),
            "max_tokens",
        ),
        (
            json!({"model": "m", "messages": [], "max_tokens": -1}),
            "max_tokens",
        ),
        (
            json!({"model": "m", "messages": [], "temperature": "hot"}),
            "temperature",
        ),
        (json!({"model": "m", "messages": [], "top_k": 1.5}), "top_k"),
        (
            json!({"model": "m", "messages": [], "stream": "yes"}),
            "stream",
        ),
        (
            json!({"model": "m", "messages": [], "thinking": {"type": "on"}}),
            "thinking.type",
        ),
        (
            json!({"model": "m", "messages": [], "thinking": {"type": "enabled", "budget_tokens": "x"}}),
            "thinking.budget_tokens",
        ),
    ];
    for (body, param) in cases {
        let error = error(body.clone());
        assert_eq!(error.kind, ErrorKind::InvalidRequest, "{body}");
        assert_eq!(
            error.param.as_deref(),
            Some(param),
            "{body}: {}",
            error.message
        );
    }
}

#[test]
fn count_tokens_estimates_the_chat_request() {
    let body = json!({"model": "m", "system": "12345678",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "1234"}]}]});
    // As agent::estimate counts it: 8 + 4 bytes of text and the roles'
    // 10 ("system", "user") → 6 tokens, and 4 a message.
    assert_eq!(count_tokens(&body).unwrap(), json!({"input_tokens": 14}));
    assert_eq!(
        count_tokens(&json!({"model": "m"}))
            .unwrap_err()
            .param
            .as_deref(),
        Some("messages")
    );
}
