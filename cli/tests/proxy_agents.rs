//! The agent routes (`/v1/responses`, `/v1/messages`) in front of the
//! replay upstream, which writes raw model text: the calls the proxy makes
//! of it, in each API's answer, streamed and whole, and the ends a client
//! must never mistake (a cut, an upstream error). Timeouts only guard
//! against a hang.

mod support;

use serde_json::{json, Value};
use support::client::client;
use support::proxy::{ProxyProcess, TIMEOUT};
use support::replay::{self, Replay};

/// Client model names mapped to the replay's models (`--model-map`
/// entries that name the upstream's model).
fn model_map() -> String {
    let map = json!({
        "gpt-one-call": {"model": "hermes/one_call", "format": "hermes"},
        "claude-one-call": {"model": "hermes/one_call", "format": "hermes"},
        "gpt-qwen": {"model": "qwen3_coder/typed_ladder", "format": "qwen3_coder"},
        "gpt-cut": {"model": "malformed/cut", "format": "hermes"},
        "gpt-error-event": {"model": "malformed/error_event", "format": "hermes"},
        "gpt-status-500": {"model": "status/500", "format": "hermes"},
        "hermes/*": "hermes",
    });
    support::proxy::config_file("agents-model-map.json", &map.to_string())
}

async fn setup() -> (Replay, ProxyProcess) {
    let replay = replay::start().await;
    let proxy = ProxyProcess::start(&replay.url(), &["--model-map", &model_map()]);
    (replay, proxy)
}

const WEATHER: &str = r#"{"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}"#;

fn responses_request(model: &str, stream: bool) -> Value {
    json!({
        "model": model,
        "instructions": "Be brief.",
        "input": [{"role": "user", "content": "Weather in Paris?"}],
        "tools": [{"type": "function", "name": "get_weather", "description": "Weather",
            "parameters": serde_json::from_str::<Value>(WEATHER).unwrap(), "strict": false}],
        "stream": stream,
        // What Codex sends beside: never refused.
        "store": false, "include": [], "prompt_cache_key": "k", "client_metadata": {"a": "b"},
        "text": {"verbosity": "low"}, "reasoning": null,
    })
}

fn messages_request(model: &str, stream: bool) -> Value {
    json!({
        "model": model,
        "max_tokens": 128000,
        "system": [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}],
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            {"role": "system", "content": "A system turn in the middle (Claude Code sends one)."},
        ],
        "tools": [{"name": "get_weather", "description": "Weather",
            "input_schema": serde_json::from_str::<Value>(WEATHER).unwrap()}],
        "stream": stream,
        "metadata": {"user_id": "u"}, "thinking": {"type": "disabled"},
        "context_management": {}, "output_config": {},
    })
}

async fn post(proxy: &ProxyProcess, path: &str, body: &Value) -> reqwest::Response {
    tokio::time::timeout(
        TIMEOUT,
        client()
            .post(format!("{}{path}", proxy.url))
            .header("x-api-key", "sk-test")
            .header("anthropic-version", "2023-06-01")
            .json(body)
            .send(),
    )
    .await
    .expect("no hang")
    .expect("an answer")
}

/// A stream's events: `(event name, data)`.
async fn events(response: reqwest::Response) -> Vec<(String, Value)> {
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let text = tokio::time::timeout(TIMEOUT, response.text())
        .await
        .expect("no hang")
        .unwrap();
    let mut events = Vec::new();
    for block in text.split("\n\n").filter(|b| !b.trim().is_empty()) {
        let mut name = None;
        let mut data = String::new();
        for line in block.lines() {
            if let Some(rest) = line.strip_prefix("event:") {
                name = Some(rest.trim().to_owned());
            } else if let Some(rest) = line.strip_prefix("data:") {
                data.push_str(rest.trim_start());
            }
        }
        if name.is_none() && data.is_empty() {
            continue; // a comment (keepalive)
        }
        let data: Value = serde_json::from_str(&data).unwrap_or_else(|e| panic!("{e}: {data}"));
        let name = name.unwrap_or_else(|| panic!("an event without a name: {data}"));
        assert_eq!(data["type"], name.as_str(), "event: names data.type");
        events.push((name, data));
    }
    events
}

fn names(events: &[(String, Value)]) -> Vec<&str> {
    events.iter().map(|(name, _)| name.as_str()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn responses_whole_answer_holds_the_call() {
    let (_replay, proxy) = setup().await;
    let response = post(
        &proxy,
        "/v1/responses",
        &responses_request("gpt-one-call", false),
    )
    .await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["object"], "response");
    assert_eq!(body["status"], "completed");
    assert_eq!(
        body["model"], "gpt-one-call",
        "the client's model is echoed"
    );
    let calls: Vec<&Value> = body["output"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item["type"] == "function_call")
        .collect();
    assert_eq!(calls.len(), 1, "{body}");
    assert_eq!(calls[0]["name"], "get_weather");
    assert_eq!(calls[0]["status"], "completed");
    let arguments: Value = serde_json::from_str(calls[0]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(arguments, json!({"city": "Paris", "days": 3}));
    assert!(calls[0]["call_id"]
        .as_str()
        .is_some_and(|id| !id.is_empty()));
    for key in ["input_tokens", "output_tokens", "total_tokens"] {
        assert!(body["usage"][key].is_u64(), "usage.{key}: {body}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn responses_stream_is_as_codex_reads_it() {
    let (_replay, proxy) = setup().await;
    let response = post(
        &proxy,
        "/responses",
        &responses_request("gpt-one-call", true),
    )
    .await;
    let events = events(response).await;
    let names = names(&events);
    assert_eq!(names[..2], ["response.created", "response.in_progress"]);
    assert_eq!(
        names
            .iter()
            .filter(|n| n.starts_with("response.completed"))
            .count(),
        1
    );
    assert_eq!(*names.last().unwrap(), "response.completed", "{names:?}");
    let mut last = -1i64;
    for (_, data) in &events {
        let number = data["sequence_number"].as_i64().expect("a sequence_number");
        assert!(number > last, "sequence numbers rise");
        last = number;
    }
    // Codex takes calls from `response.output_item.done` only.
    let done: Vec<&Value> = events
        .iter()
        .filter(|(name, data)| {
            name == "response.output_item.done" && data["item"]["type"] == "function_call"
        })
        .map(|(_, data)| &data["item"])
        .collect();
    assert_eq!(done.len(), 1, "{names:?}");
    let arguments: Value = serde_json::from_str(done[0]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(arguments, json!({"city": "Paris", "days": 3}));
    let added = events
        .iter()
        .find(|(name, data)| {
            name == "response.output_item.added" && data["item"]["type"] == "function_call"
        })
        .map(|(_, data)| &data["item"])
        .unwrap();
    let completed = &events.last().unwrap().1["response"];
    assert!(completed["id"].is_string());
    let final_call = completed["output"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["type"] == "function_call")
        .unwrap();
    for key in ["id", "call_id"] {
        assert_eq!(added[key], done[0][key], "{key}: added and done");
        assert_eq!(final_call[key], done[0][key], "{key}: done and completed");
    }
    for key in ["input_tokens", "output_tokens", "total_tokens"] {
        assert!(completed["usage"][key].is_u64(), "usage.{key}: {completed}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn messages_whole_answer_stops_for_the_tool() {
    let (_replay, proxy) = setup().await;
    let response = post(
        &proxy,
        "/v1/messages?beta=true",
        &messages_request("claude-one-call", false),
    )
    .await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["type"], "message");
    assert_eq!(body["role"], "assistant");
    assert_eq!(body["model"], "claude-one-call");
    assert_eq!(body["stop_reason"], "tool_use", "{body}");
    let uses: Vec<&Value> = body["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|block| block["type"] == "tool_use")
        .collect();
    assert_eq!(uses.len(), 1, "{body}");
    assert_eq!(uses[0]["name"], "get_weather");
    assert_eq!(uses[0]["input"], json!({"city": "Paris", "days": 3}));
    for key in [
        "input_tokens",
        "output_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
    ] {
        assert!(body["usage"][key].is_u64(), "usage.{key}: {body}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn messages_stream_is_as_claude_code_reads_it() {
    let (_replay, proxy) = setup().await;
    let response = post(
        &proxy,
        "/v1/messages?beta=true",
        &messages_request("claude-one-call", true),
    )
    .await;
    let events = events(response).await;
    let names = names(&events);
    assert_eq!(names[0], "message_start");
    assert!(
        events[0].1["message"]["usage"]["input_tokens"]
            .as_u64()
            .unwrap()
            > 0
    );
    assert_eq!(*names.last().unwrap(), "message_stop", "{names:?}");
    assert_eq!(names.iter().filter(|n| **n == "message_stop").count(), 1);
    // Blocks open and close in turn, each stopped once; the tool's input
    // is the join of its partial JSON.
    let mut open: Option<u64> = None;
    let mut inputs = Vec::new();
    for (name, data) in &events {
        match name.as_str() {
            "content_block_start" => {
                assert!(open.is_none(), "blocks never interleave: {names:?}");
                open = data["index"].as_u64();
                if data["content_block"]["type"] == "tool_use" {
                    assert_eq!(data["content_block"]["name"], "get_weather");
                    inputs.push(String::new());
                }
            }
            "content_block_delta" => {
                assert_eq!(data["index"].as_u64(), open, "a delta of the open block");
                if let Some(part) = data["delta"]["partial_json"].as_str() {
                    inputs.last_mut().unwrap().push_str(part);
                }
            }
            "content_block_stop" => {
                assert_eq!(data["index"].as_u64(), open, "one stop per block");
                open = None;
            }
            _ => {}
        }
    }
    assert!(open.is_none());
    assert_eq!(inputs.len(), 1, "{names:?}");
    assert_eq!(
        serde_json::from_str::<Value>(&inputs[0]).unwrap(),
        json!({"city": "Paris", "days": 3})
    );
    let delta = events
        .iter()
        .find(|(name, _)| name == "message_delta")
        .unwrap();
    assert_eq!(delta.1["delta"]["stop_reason"], "tool_use");
    assert!(delta.1["usage"]["output_tokens"].is_u64());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cut_upstream_is_never_a_completed_answer() {
    let (_replay, proxy) = setup().await;
    let events_of_responses =
        events(post(&proxy, "/v1/responses", &responses_request("gpt-cut", true)).await).await;
    let names_of_responses = names(&events_of_responses);
    assert_eq!(
        *names_of_responses.last().unwrap(),
        "response.failed",
        "{names_of_responses:?}"
    );
    assert!(!names_of_responses.contains(&"response.completed"));
    let failed = &events_of_responses.last().unwrap().1["response"];
    assert_eq!(failed["status"], "failed");
    assert!(failed["error"]["message"]
        .as_str()
        .is_some_and(|m| !m.is_empty()));

    let mut request = messages_request("gpt-cut", true);
    request["model"] = json!("gpt-cut");
    let events_of_messages = events(post(&proxy, "/v1/messages", &request).await).await;
    let names_of_messages = names(&events_of_messages);
    assert_eq!(
        *names_of_messages.last().unwrap(),
        "error",
        "{names_of_messages:?}"
    );
    assert!(!names_of_messages.contains(&"message_stop"));
    assert_eq!(
        events_of_messages.last().unwrap().1["error"]["type"],
        "api_error"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upstream_errors_come_in_the_clients_api() {
    let (_replay, proxy) = setup().await;
    let response = post(
        &proxy,
        "/v1/responses",
        &responses_request("gpt-status-500", false),
    )
    .await;
    assert_eq!(response.status(), 502);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["type"], "server_error", "{body}");
    let response = post(
        &proxy,
        "/v1/messages",
        &messages_request("gpt-status-500", true),
    )
    .await;
    assert_eq!(response.status(), 502);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["type"], "error", "{body}");
    assert_eq!(body["error"]["type"], "api_error");
    // The upstream's error event mid-stream.
    let events = events(
        post(
            &proxy,
            "/v1/messages",
            &messages_request("gpt-error-event", true),
        )
        .await,
    )
    .await;
    assert_eq!(events.last().unwrap().0, "error");
    let events = events_of(
        &proxy,
        "/v1/responses",
        &responses_request("gpt-error-event", true),
    )
    .await;
    assert_eq!(events.last().unwrap().0, "response.failed");
}

async fn events_of(proxy: &ProxyProcess, path: &str, body: &Value) -> Vec<(String, Value)> {
    events(post(proxy, path, body).await).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_and_other_paths_are_refused_in_shape() {
    let (_replay, proxy) = setup().await;
    let response = post(
        &proxy,
        "/v1/responses",
        &json!({"model": "gpt-one-call", "input": 3}),
    )
    .await;
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["type"], "invalid_request_error", "{body}");
    assert_eq!(body["error"]["param"], "input");
    let response = post(
        &proxy,
        "/v1/messages",
        &json!({"model": "claude-one-call", "messages": "no"}),
    )
    .await;
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["type"], "error");
    assert_eq!(body["error"]["type"], "invalid_request_error");
    let response = post(
        &proxy,
        "/v1/responses",
        &json!({"model": "gpt-one-call", "input": "hi",
        "previous_response_id": "resp_unknown"}),
    )
    .await;
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.unwrap();
    assert_eq!(
        body["error"]["code"], "previous_response_not_found",
        "{body}"
    );
    let response = tokio::time::timeout(
        TIMEOUT,
        client()
            .get(format!("{}/v1/responses/resp_1", proxy.url))
            .send(),
    )
    .await
    .unwrap()
    .unwrap();
    assert_eq!(response.status(), 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn count_tokens_estimates() {
    let (_replay, proxy) = setup().await;
    let response = post(
        &proxy,
        "/v1/messages/count_tokens",
        &messages_request("claude-one-call", false),
    )
    .await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    assert!(body["input_tokens"].as_u64().unwrap() > 10, "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_upstream_gets_a_chat_request() {
    let (replay, proxy) = setup().await;
    let response = post(
        &proxy,
        "/v1/messages",
        &messages_request("claude-one-call", true),
    )
    .await;
    let _ = events(response).await;
    let received = replay.requests();
    let chat = received
        .iter()
        .rev()
        .find(|r| r.path.ends_with("/chat/completions"))
        .expect("a chat request upstream");
    let body: Value = serde_json::from_slice(&chat.body).unwrap();
    assert_eq!(body["model"], "hermes/one_call", "the map's model");
    assert_eq!(body["messages"][0]["role"], "system");
    assert_eq!(body["stream_options"]["include_usage"], true);
    assert_eq!(body["tools"][0]["function"]["name"], "get_weather");
    assert_eq!(chat.headers["authorization"], "Bearer sk-test");
    assert!(chat.headers.get("anthropic-version").is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_chat_route_sends_the_maps_model_too() {
    let (replay, proxy) = setup().await;
    let tools = json!([{"type": "function", "function": {"name": "get_weather",
        "parameters": serde_json::from_str::<Value>(WEATHER).unwrap()}}]);
    let body = json!({"model": "gpt-one-call", "messages": [{"role": "user", "content": "go"}],
        "tools": tools});
    let response = post(&proxy, "/v1/chat/completions", &body).await;
    assert_eq!(response.status(), 200);
    let completion: Value = response.json().await.unwrap();
    // Parsed with the entry's format, sent with the entry's model.
    let call = &completion["choices"][0]["message"]["tool_calls"][0]["function"];
    assert_eq!(call["name"], "get_weather", "{completion}");
    let sent: Value = serde_json::from_slice(&replay.requests().last().unwrap().body).unwrap();
    assert_eq!(sent["model"], "hermes/one_call");
}

/// A request without `tools` (a plain chat turn, as agents send for titles
/// and summaries) is answered, its text read by the model's format.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_without_tools_is_answered() {
    let (_replay, proxy) = setup().await;
    let mut responses = responses_request("gpt-one-call", false);
    responses.as_object_mut().unwrap().remove("tools");
    let response = post(&proxy, "/v1/responses", &responses).await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["object"], "response", "{body}");
    assert_eq!(body["status"], "completed", "{body}");

    let mut messages = messages_request("claude-one-call", false);
    messages.as_object_mut().unwrap().remove("tools");
    let response = post(&proxy, "/v1/messages", &messages).await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["type"], "message", "{body}");
}
