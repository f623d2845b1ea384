//! The scripted agent model's choices (`support/agent_script.rs`), and the
//! model through the replay and through the proxy's chat route: these need
//! no agent and run with `cargo test`.

use futures_util::StreamExt;
use serde_json::{json, Value};

use crate::support::client::{chat, client, read_sse, Assembled};
use crate::support::proxy::{ProxyProcess, TIMEOUT};
use crate::support::replay::{self, agent_script};
use agent_script::{arguments_for, command, next_turn, pick_tool, quoted_line, render};
use agent_script::{Format, Turn};

fn chat_tool(name: &str, parameters: Value) -> Value {
    json!({"type": "function", "function": {"name": name, "parameters": parameters}})
}

fn command_string_schema() -> Value {
    json!({"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]})
}

#[test]
fn the_shell_like_tool_is_picked_else_the_first() {
    let tools = [
        chat_tool("Read", json!({})),
        chat_tool("exec_command", json!({})),
        chat_tool("Bash", json!({})),
    ];
    let picked = pick_tool(&tools).unwrap();
    assert_eq!(picked["function"]["name"], "Bash", "Bash is preferred");
    let picked = pick_tool(&tools[..2]).unwrap();
    assert_eq!(picked["function"]["name"], "exec_command");
    let picked = pick_tool(&tools[..1]).unwrap();
    assert_eq!(picked["function"]["name"], "Read", "else the first");
    // Responses-style flat tools are read too.
    let flat = [json!({"type": "function", "name": "shell", "parameters": {}})];
    assert_eq!(pick_tool(&flat).unwrap()["name"], "shell");
    assert!(pick_tool(&[]).is_none());
}

#[test]
fn arguments_fit_each_agents_shell_schema() {
    let run = "echo hi";
    // Claude Code's Bash: a `command` string (`description` is optional).
    let bash = json!({"type": "object", "properties": {"command": {"type": "string"},
        "description": {"type": "string"}, "timeout": {"type": "number"}}, "required": ["command"]});
    assert_eq!(arguments_for(&bash, run), json!({"command": "echo hi"}));
    // Codex's exec_command: a `cmd` string.
    let exec = json!({"type": "object", "properties": {"cmd": {"type": "string"},
        "login": {"type": "boolean"}}, "required": ["cmd"]});
    assert_eq!(arguments_for(&exec, run), json!({"cmd": "echo hi"}));
    // Codex's shell: a `command` array, run by a shell.
    let shell = json!({"type": "object", "properties": {"command": {"type": "array",
        "items": {"type": "string"}}, "workdir": {"type": "string"}}, "required": ["command"]});
    assert_eq!(
        arguments_for(&shell, run),
        json!({"command": ["bash", "-lc", "echo hi"]})
    );
    // No command property: the first required string; the other required
    // properties get a value of their type.
    let other = json!({"type": "object", "properties": {"n": {"type": "integer"},
        "script": {"type": "string"}, "flags": {"type": "array"}}, "required": ["n", "script", "flags"]});
    assert_eq!(
        arguments_for(&other, run),
        json!({"script": "echo hi", "n": 1, "flags": []})
    );
    assert_eq!(
        arguments_for(&json!({}), run),
        json!({"command": "echo hi"})
    );
}

#[test]
fn a_first_turn_calls_the_tool_with_the_formats_command() {
    let request = json!({"messages": [{"role": "user", "content": "go"}],
        "tools": [chat_tool("shell", command_string_schema())]});
    assert_eq!(
        next_turn(&request, "glm47"),
        Turn::Call {
            tool: "shell".to_owned(),
            arguments: json!({"command": "echo toolcall-e2e-glm47-$((6*7))"}),
        }
    );
    let without_tools = json!({"messages": [{"role": "user", "content": "go"}]});
    assert!(matches!(
        next_turn(&without_tools, "hermes"),
        Turn::Answer(_)
    ));
}

#[test]
fn a_result_after_the_last_call_gets_an_answer_quoting_it() {
    let call = json!({"role": "assistant", "content": null, "tool_calls": [{"id": "call_1",
        "type": "function", "function": {"name": "shell", "arguments": "{}"}}]});
    // Codex wraps the output in a report: the marker's line is quoted.
    let report = "Chunk ID: 1\nWall time: 0.1 seconds\nOutput:\ntoolcall-e2e-hermes-42\n";
    let request = json!({"tools": [chat_tool("shell", command_string_schema())], "messages": [
        {"role": "user", "content": "go"}, call,
        {"role": "tool", "tool_call_id": "call_1", "content": report},
        // Text a translator adds beside the result does not hide it.
        {"role": "user", "content": "<system-reminder>x</system-reminder>"}]});
    assert_eq!(
        next_turn(&request, "hermes"),
        Turn::Answer("The command printed: toolcall-e2e-hermes-42".to_owned())
    );
    // Content parts are read; without the marker the first line is quoted.
    let parts = json!({"role": "tool", "content": [{"type": "text", "text": "\n  first\nsecond"}]});
    assert_eq!(quoted_line(&agent_script::content_text(&parts)), "first");
    // A result before the last assistant turn is an old one: call again.
    let old = json!({"tools": [chat_tool("shell", command_string_schema())], "messages": [
        {"role": "user", "content": "go"}, call.clone(),
        {"role": "tool", "tool_call_id": "call_1", "content": "x"},
        {"role": "assistant", "content": "Done."}, {"role": "user", "content": "again"}]});
    assert!(matches!(next_turn(&old, "hermes"), Turn::Call { .. }));
}

#[test]
fn each_format_writes_the_call_as_its_model_does() {
    let turn = Turn::Call {
        tool: "shell".to_owned(),
        arguments: json!({"command": "echo x", "n": 2}),
    };
    let prose = "I will run the command and look at what it prints.\n\n";
    let expected = [
        (
            Format::Hermes,
            "<tool_call>\n{\"name\": \"shell\", \"arguments\": {\"command\":\"echo x\",\"n\":2}}\n</tool_call>",
        ),
        (
            Format::Qwen3Coder,
            "<tool_call>\n<function=shell>\n<parameter=command>\necho x\n</parameter>\n<parameter=n>\n2\n</parameter>\n</function>\n</tool_call>",
        ),
        (
            Format::Glm47,
            "<tool_call>shell<arg_key>command</arg_key><arg_value>echo x</arg_value><arg_key>n</arg_key><arg_value>2</arg_value></tool_call>",
        ),
    ];
    for (format, call) in expected {
        let (text, start) = render(&turn, format);
        assert_eq!(text, format!("{prose}{call}"), "{format:?}");
        assert_eq!(start, prose.len(), "{format:?}");
    }
    let answer = Turn::Answer("Done.".to_owned());
    assert_eq!(render(&answer, Format::Hermes), ("Done.".to_owned(), 5));
    assert_eq!(command("hermes"), "echo toolcall-e2e-hermes-$((6*7))");
}

fn shell_request(model: &str, stream: bool) -> Value {
    json!({"model": model, "stream": stream,
        "messages": [{"role": "user", "content": "Run it."}],
        "tools": [chat_tool("shell", command_string_schema())]})
}

async fn post_replay(replay: &replay::Replay, body: &Value) -> reqwest::Response {
    let request = client()
        .post(format!("{}/v1/chat/completions", replay.url()))
        .json(body)
        .send();
    tokio::time::timeout(TIMEOUT, request)
        .await
        .expect("request hung")
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn usage_comes_last_or_in_every_chunk_as_asked() {
    let replay = replay::start().await;
    let mut request = shell_request("agent/hermes", true);
    request["stream_options"] = json!({"include_usage": true});
    let chunks = read_sse(post_replay(&replay, &request).await).await;
    let (last, rest) = chunks.split_last().unwrap();
    assert_eq!(last["choices"], json!([]));
    let pieces = rest
        .iter()
        .filter(|c| c["choices"][0]["delta"]["content"].is_string())
        .count();
    // The role chunk's empty content is no token.
    assert_eq!(last["usage"]["completion_tokens"], pieces - 1);
    assert!(rest.iter().all(|chunk| chunk.get("usage").is_none()));
    assert_eq!(rest.last().unwrap()["choices"][0]["finish_reason"], "stop");

    request["stream_options"] = json!({"include_usage": true, "continuous_usage_stats": true});
    let chunks = read_sse(post_replay(&replay, &request).await).await;
    let counts: Vec<u64> = chunks
        .iter()
        .map(|chunk| {
            chunk["usage"]["completion_tokens"]
                .as_u64()
                .expect("usage in every chunk")
        })
        .collect();
    assert!(
        counts.windows(2).all(|pair| pair[0] <= pair[1]),
        "{counts:?}"
    );
    assert!(counts[0] == 0 && *counts.last().unwrap() > 10, "{counts:?}");

    let whole: Value = post_replay(&replay, &shell_request("agent/hermes", false))
        .await
        .json()
        .await
        .unwrap();
    assert!(whole["usage"]["prompt_tokens"].as_u64().unwrap() > 0);
    assert_eq!(whole["choices"][0]["finish_reason"], "stop");
}

/// The body's bytes until it ends or fails, and whether it failed.
async fn read_body(response: reqwest::Response) -> (String, bool) {
    let mut body = response.bytes_stream();
    let mut text = Vec::new();
    let read = async {
        while let Some(piece) = body.next().await {
            match piece {
                Ok(bytes) => text.extend_from_slice(&bytes),
                Err(_) => return true,
            }
        }
        false
    };
    let failed = tokio::time::timeout(TIMEOUT, read)
        .await
        .expect("body hung");
    (String::from_utf8_lossy(&text).into_owned(), failed)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cut_model_sends_half_a_call_then_drops_the_connection() {
    let replay = replay::start().await;
    let (full, start) = render(
        &next_turn(&shell_request("", true), "qwen3_coder"),
        Format::Qwen3Coder,
    );
    let response = post_replay(&replay, &shell_request("agent/qwen3_coder/cut", true)).await;
    assert_eq!(response.status(), 200);
    let (body, failed) = read_body(response).await;
    assert!(failed, "the connection is cut, not closed: {body}");
    assert!(
        !body.contains("[DONE]") && !body.contains("\"finish_reason\":\"stop\""),
        "{body}"
    );
    let sent: String = body
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .map(|data| serde_json::from_str::<Value>(data).unwrap())
        .filter_map(|chunk| {
            chunk["choices"][0]["delta"]["content"]
                .as_str()
                .map(str::to_owned)
        })
        .collect();
    assert!(full.starts_with(&sent), "{sent:?}");
    assert!(
        sent.len() > start + 5 && sent.len() < full.len() - 5,
        "half a call: {sent:?}"
    );

    let response = post_replay(&replay, &shell_request("agent/qwen3_coder/cut", false)).await;
    let (body, failed) = read_body(response).await;
    assert!(
        failed && serde_json::from_str::<Value>(&body).is_err(),
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_scripted_model_through_the_chat_route_for_each_format() {
    let replay = replay::start().await;
    let map = crate::harness::model_map(
        "chat-route",
        &json!({
            "e2e-hermes": {"model": "agent/hermes", "format": "hermes"},
            "e2e-qwen3_coder": {"model": "agent/qwen3_coder", "format": "qwen3_coder"},
            "e2e-glm47": {"model": "agent/glm47", "format": "glm47"},
        }),
    );
    let proxy = ProxyProcess::start(&replay.url(), &["--model-map", map.to_str().unwrap()]);
    for format in ["hermes", "qwen3_coder", "glm47"] {
        for stream in [true, false] {
            let what = format!("{format}, stream {stream}");
            let mut request = shell_request(&format!("e2e-{format}"), stream);
            let first = assembled(&proxy, &request, stream).await;
            assert_eq!(
                first.finish_reason.as_deref(),
                Some("tool_calls"),
                "{what}: {first:?}"
            );
            assert_eq!(first.calls.len(), 1, "{what}: {first:?}");
            let (id, name, arguments) = &first.calls[0];
            assert_eq!(name, "shell", "{what}");
            let arguments: Value = serde_json::from_str(arguments).unwrap();
            assert_eq!(arguments, json!({"command": command(format)}), "{what}");
            let prose = first.content.as_deref().unwrap_or("").trim();
            assert_eq!(
                prose, "I will run the command and look at what it prints.",
                "{what}"
            );

            let output = agent_script::expected_output(format);
            request["messages"].as_array_mut().unwrap().extend([
                json!({"role": "assistant", "content": null, "tool_calls": [{"id": id,
                    "type": "function", "function": {"name": name, "arguments": arguments.to_string()}}]}),
                json!({"role": "tool", "tool_call_id": id, "content": format!("{output}\n")}),
            ]);
            let second = assembled(&proxy, &request, stream).await;
            assert_eq!(
                second.finish_reason.as_deref(),
                Some("stop"),
                "{what}: {second:?}"
            );
            assert!(second.calls.is_empty(), "{what}: {second:?}");
            assert_eq!(
                second.content.as_deref(),
                Some(format!("The command printed: {output}").as_str()),
                "{what}"
            );
        }
    }
    let upstream_models: Vec<String> = replay
        .requests()
        .iter()
        .filter_map(|r| serde_json::from_slice::<Value>(&r.body).ok())
        .filter_map(|body| body["model"].as_str().map(str::to_owned))
        .collect();
    assert!(
        upstream_models
            .iter()
            .all(|model| model.starts_with("agent/")),
        "the map's upstream names are sent: {upstream_models:?}"
    );
}

async fn assembled(proxy: &ProxyProcess, request: &Value, stream: bool) -> Assembled {
    let response = chat(proxy, request).await;
    assert_eq!(
        response.status(),
        200,
        "{request}\nproxy log:\n{}",
        proxy.log().join("\n")
    );
    if stream {
        Assembled::from_chunks(&read_sse(response).await)
    } else {
        Assembled::from_completion(&response.json().await.unwrap())
    }
}
