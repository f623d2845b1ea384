//! The requests Codex, the openai client and the Agents SDK sent
//! (`cli/tests/fixtures/agents/`, recorded by `tests/e2e/record_agents.py`
//! and `record_sdk_clients.py`), each translated: snapshots of the chat
//! requests (long strings shortened, so that the snapshots show the
//! shape), and the facts each client depends on checked by hand.

use std::path::PathBuf;

use super::*;

/// The Responses clients whose requests were recorded.
const CLIENTS: [&str; 3] = ["codex", "openai_agents", "openai_responses"];

/// Strings longer than this are shortened in the snapshots.
const SHOWN_CHARS: usize = 80;

fn fixture_dir(client: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents")
        .join(client)
}

/// Each recorded request's name (`turn1`, …) and body.
fn recorded(client: &str) -> Vec<(String, Value)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixture_dir(client))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let recording: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            (name, recording["body"].clone())
        })
        .collect()
}

fn translated(body: &Value) -> (Map<String, Value>, Vec<String>) {
    let options = Options {
        upstream_model: "local-model".into(),
        max_tokens_cap: None,
        max_answer_bytes: 1 << 20,
        ids: IdMaker::Sequential(0),
    };
    let request = ResponsesRequest::read(body).unwrap();
    let (translated, notes) = request.translate_with_notes(None, &options).unwrap();
    (translated.chat, notes)
}

/// `value` with every long string cut to its start and its length.
fn shortened(value: &Value) -> Value {
    match value {
        Value::String(text) if text.chars().count() > SHOWN_CHARS => {
            let start: String = text.chars().take(SHOWN_CHARS).collect();
            format!("{start}… ({} bytes)", text.len()).into()
        }
        Value::Array(items) => items.iter().map(shortened).collect(),
        Value::Object(fields) => fields
            .iter()
            .map(|(key, value)| (key.clone(), shortened(value)))
            .collect::<Map<_, _>>()
            .into(),
        other => other.clone(),
    }
}

#[test]
fn every_recorded_request_translates_as_snapshotted() {
    let mut count = 0;
    for client in CLIENTS {
        for (turn, body) in recorded(client) {
            let (chat, notes) = translated(&body);
            let snapshot = json!({"chat": shortened(&Value::Object(chat)), "notes": notes});
            insta::assert_json_snapshot!(format!("{client}_{turn}"), snapshot);
            count += 1;
        }
    }
    assert!(count >= 10, "only {count} recorded requests found");
}

#[test]
fn codex_gets_one_system_message_its_call_and_its_tools() {
    let (_, body) = recorded("codex")
        .into_iter()
        .find(|(turn, _)| turn == "turn2")
        .unwrap();
    let (chat, notes) = translated(&body);
    let messages = chat["messages"].as_array().unwrap();
    // Each developer message's parts joined by a newline, the messages by
    // a blank line.
    let developer: Vec<String> = body["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item["role"] == "developer")
        .map(|item| {
            let parts: Vec<&str> = item["content"]
                .as_array()
                .unwrap()
                .iter()
                .map(|part| part["text"].as_str().unwrap())
                .collect();
            parts.join("\n")
        })
        .collect();
    assert_eq!(messages[0]["role"], "system");
    assert!(
        messages[0]["content"] == developer.join("\n\n"),
        "the system message is the developer messages' text"
    );
    assert!(messages[1..].iter().all(|m| m["role"] != "system"));
    let call = &messages[messages.len() - 2];
    assert_eq!(
        call["tool_calls"],
        json!([{"id": "call_rec1", "type": "function", "function": {
            "name": "exec_command", "arguments": "{\"cmd\": \"echo toolcall-e2e-rec\"}"}}])
    );
    let output = &messages[messages.len() - 1];
    assert_eq!(output["role"], "tool");
    assert_eq!(output["tool_call_id"], "call_rec1");
    assert!(output["content"]
        .as_str()
        .unwrap()
        .ends_with("Output:\ntoolcall-e2e-rec\n"));
    let names: Vec<&str> = chat["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"exec_command"));
    assert!(names.contains(&"multi_agent_v1__spawn_agent"));
    assert!(chat["tools"]
        .as_array()
        .unwrap()
        .iter()
        .all(|tool| tool["type"] == "function"));
    assert_eq!(
        notes,
        ["tools[8]: the `web_search` tool cannot be offered to a chat completions upstream; dropped"]
    );
    assert_eq!(chat["stream"], true);
    assert_eq!(chat["stream_options"]["include_usage"], true);
}

#[test]
fn sdk_clients_continue_with_their_call_and_its_output() {
    for client in ["openai_agents", "openai_responses"] {
        for (turn, body) in recorded(client) {
            let (chat, notes) = translated(&body);
            assert!(notes.is_empty(), "{client} {turn}: {notes:?}");
            let messages = chat["messages"].as_array().unwrap();
            let user = messages.iter().find(|m| m["role"] == "user").unwrap();
            assert_eq!(
                user["content"],
                "Run echo to print a marker, then tell me what it printed."
            );
            assert_eq!(chat["tools"][0]["function"]["name"], "shell");
            if turn.starts_with("turn2") {
                let tail = &messages[messages.len() - 2..];
                assert_eq!(
                    tail[0]["tool_calls"][0]["id"], "call_rec1",
                    "{client} {turn}"
                );
                assert_eq!(
                    tail[1],
                    json!({"role": "tool", "tool_call_id": "call_rec1", "content": "toolcall-e2e-rec\n"})
                );
            }
        }
    }
}
