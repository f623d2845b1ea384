//! The requests recorded from Claude Code and the anthropic SDK
//! (`cli/tests/fixtures/agents/`, see its README) translate, to the chat
//! requests snapshotted beside this file.

use std::path::PathBuf;

use serde_json::{json, Value};

use crate::proxy::agent::messages::translate_noting;
use crate::proxy::agent::{IdMaker, Options};

const CLIENTS: [&str; 2] = ["anthropic_sdk", "claude_code"];

fn fixtures(client: &str) -> Vec<(String, Value)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents")
        .join(client);
    let mut files: Vec<(String, Value)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            (stem, serde_json::from_str(&text).unwrap())
        })
        .collect();
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files
}

fn options() -> Options {
    Options {
        upstream_model: "qwen3-coder".into(),
        max_tokens_cap: Some(32_768),
        max_answer_bytes: 1 << 20,
        ids: IdMaker::Sequential(0),
    }
}

#[test]
fn every_recorded_request_translates() {
    for client in CLIENTS {
        let files = fixtures(client);
        assert!(files.len() >= 2, "{client}: recorded requests");
        for (name, recorded) in files {
            assert_eq!(recorded["path"], "/v1/messages");
            let (translated, notes) = translate_noting(&recorded["body"], &options())
                .unwrap_or_else(|e| panic!("{client}/{name}: {e}"));
            assert!(
                notes.list().is_empty(),
                "{client}/{name}: {:?}",
                notes.list()
            );
            assert_eq!(translated.stream, recorded["body"]["stream"] == true);
            insta::assert_json_snapshot!(format!("{client}__{name}"), translated.chat);
        }
    }
}

#[test]
fn claude_code_turn_two() {
    let files = fixtures("claude_code");
    let (_, recorded) = files.iter().find(|(name, _)| name == "turn2").unwrap();
    let (translated, _) = translate_noting(&recorded["body"], &options()).unwrap();
    let chat = Value::Object(translated.chat);
    let messages = chat["messages"].as_array().unwrap();
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    // The mid-conversation system message folded into the one system
    // message, first; the tool's result right after the call.
    assert_eq!(roles, ["system", "user", "assistant", "tool"]);
    let system = messages[0]["content"].as_str().unwrap();
    assert!(system.starts_with("You are a Claude agent"), "{system:.80}");
    assert!(system.contains("\n\n# Environment\n"));
    assert!(!system.contains("x-anthropic-billing-header"));
    assert_eq!(
        messages[2]["tool_calls"],
        json!([{"id": "toolu_rec1", "type": "function", "function": {"name": "Bash",
            "arguments": "{\"command\":\"echo toolcall-e2e-rec\"}"}}])
    );
    assert_eq!(
        messages[3],
        json!({"role": "tool", "tool_call_id": "toolu_rec1", "content": "toolcall-e2e-rec"})
    );
    let tools = chat["tools"].as_array().unwrap();
    assert_eq!(
        tools.len(),
        recorded["body"]["tools"].as_array().unwrap().len()
    );
    assert!(tools
        .iter()
        .all(|tool| tool["function"]["parameters"].get("$schema").is_none()));
    assert_eq!(chat["max_tokens"], 32_768);
    assert_eq!(
        chat["chat_template_kwargs"],
        json!({"enable_thinking": true, "thinking": true})
    );
    assert_eq!(chat["stream"], true);
    for ignored in [
        "metadata",
        "context_management",
        "output_config",
        "thinking",
        "system",
    ] {
        assert!(chat.get(ignored).is_none(), "{ignored}");
    }
}
