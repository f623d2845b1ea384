//! `toolcall proxy --constrain` in front of the replay upstream, which
//! records each request: the body the upstream received carries the
//! format's grammar for the request's tools in the dialect's fields, with
//! `tool_choice: "none"`, on the chat route and the agent routes; a
//! client's own constraint, `tool_choice: "none"` and the default (off)
//! leave the body as the client sent it. Timeouts only guard against a hang.

mod support;

use serde_json::{json, Value};
use support::client::*;
use support::proxy::{ProxyProcess, TIMEOUT};
use support::replay::{self, Replay};
use toolcall_stream::{Constraint, Dialect, Format, Tools};

const WEATHER: &str = r#"[{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
    "required": ["city", "days"]}}}]"#;

/// A format file whose shape has no grammar: JSON call objects in
/// `<tool_call>`, or bare at the start of any line.
const UNWRITTEN_FORMAT: &str = r#"name = "lines_and_tags"

[markers]
call_open = "<tool_call>"
call_close = "</tool_call>"

[json]
open_at_line_start = true

[json.body]
name = ["name"]
arguments = ["arguments"]
"#;

fn weather() -> Value {
    serde_json::from_str(WEATHER).unwrap()
}

/// The grammar the proxy should attach for the weather tool.
fn grammar(constraint: Constraint) -> String {
    let tools = Tools::from_json(WEATHER).unwrap();
    Format::Qwen3Coder.constraint(&tools, &constraint).unwrap()
}

/// The body of the upstream's last chat request.
/// The structural tag of one required call, as the proxy should send it.
fn one_call_tag() -> Value {
    let tag = grammar(Constraint {
        parallel: false,
        dialect: Dialect::StructuralTag,
        ..Constraint::required()
    });
    serde_json::from_str(&tag).unwrap()
}

fn last_chat_body(replay: &Replay) -> Value {
    let requests = replay.requests();
    let chat = requests
        .iter()
        .rev()
        .find(|request| request.path.ends_with("/chat/completions"))
        .expect("the upstream got a chat request");
    serde_json::from_slice(&chat.body).expect("a JSON body")
}

async fn metrics(proxy: &ProxyProcess) -> String {
    let get = client().get(format!("{}/metrics", proxy.url)).send();
    let response = tokio::time::timeout(TIMEOUT, get).await.unwrap().unwrap();
    response.text().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_structural_tag_goes_upstream_and_the_answer_is_still_parsed() {
    let (replay, proxy) =
        setup(&["--format", "qwen3_coder", "--constrain", "structural-tag"]).await;
    let mut body = request("qwen3_coder/one_call", &weather(), true);
    body["tool_choice"] = json!("required");
    body["parallel_tool_calls"] = json!(false);
    let response = chat(&proxy, &body).await;
    assert_eq!(response.status(), 200);
    let assembled = Assembled::from_chunks(&read_sse(response).await);
    assert_eq!(assembled.calls.len(), 1, "{assembled:?}");
    assert_eq!(assembled.calls[0].1, "get_weather");
    let arguments: Value = serde_json::from_str(&assembled.calls[0].2).unwrap();
    assert_eq!(arguments, json!({"city": "Paris", "days": 3}));

    let sent = last_chat_body(&replay);
    let tag = one_call_tag();
    assert_eq!(sent["response_format"], tag);
    assert_eq!(sent["response_format"]["type"], "structural_tag");
    assert_eq!(sent["tool_choice"], "none");
    // The rest is the client's: tools still rendered into the prompt.
    assert_eq!(sent["tools"], weather());
    assert_eq!(sent["parallel_tool_calls"], false);
    assert_eq!(sent["model"], "qwen3_coder/one_call");
    assert!(sent.get("grammar").is_none());
    let line = proxy.wait_for_log(|line| line.contains("POST /v1/chat/completions 200"));
    assert!(
        line.contains("constrained: structural-tag required in response_format"),
        "{line}"
    );
    assert!(metrics(&proxy)
        .await
        .contains(r#"toolcall_proxy_constraints_total{outcome="attached"} 1"#));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lark_goes_in_each_servers_grammar_field_for_each_tool_choice() {
    let (replay, proxy) = setup(&["--format", "qwen3_coder", "--constrain", "lark"]).await;
    let named = json!({"type": "function", "function": {"name": "get_weather"}});
    for (choice, constraint) in [
        (None, Constraint::lazy()),
        (Some(json!("auto")), Constraint::lazy()),
        (Some(json!("required")), Constraint::required()),
        (Some(named), Constraint::named("get_weather")),
    ] {
        let mut body = request("qwen3_coder/one_call", &weather(), false);
        if let Some(choice) = &choice {
            body["tool_choice"] = choice.clone();
        }
        let response = chat(&proxy, &body).await;
        assert_eq!(response.status(), 200, "{choice:?}");
        let completion: Value = response.json().await.unwrap();
        assert_eq!(
            completion["choices"][0]["message"]["tool_calls"][0]["function"]["name"],
            "get_weather"
        );
        let sent = last_chat_body(&replay);
        let lark = grammar(constraint);
        assert_eq!(
            sent["structured_outputs"],
            json!({"grammar": lark}),
            "{choice:?}"
        );
        assert_eq!(sent["grammar"], lark.as_str(), "{choice:?}");
        assert_eq!(sent["ebnf"], lark.as_str(), "{choice:?}");
        assert_eq!(sent["tool_choice"], "none", "{choice:?}");
        assert!(sent.get("response_format").is_none());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_is_not_constrained_goes_byte_for_byte() {
    let (replay, proxy) = setup(&["--format", "qwen3_coder", "--constrain", "lark"]).await;
    let mut cases = Vec::new();
    let mut own = request("qwen3_coder/one_call", &weather(), false);
    own["response_format"] = json!({"type": "json_object"});
    cases.push((own, "the request's own response_format kept"));
    let mut none = request("qwen3_coder/one_call", &weather(), false);
    none["tool_choice"] = json!("none");
    cases.push((none, "not constrained: tool_choice none"));
    for (body, said) in cases {
        // Sent as written (key order and spacing), to see it is untouched.
        let text = serde_json::to_string_pretty(&body).unwrap();
        let send = client()
            .post(format!("{}/v1/chat/completions", proxy.url))
            .header("content-type", "application/json")
            .body(text.clone())
            .send();
        let response = tokio::time::timeout(TIMEOUT, send).await.unwrap().unwrap();
        assert_eq!(response.status(), 200);
        let received = replay.requests().pop().unwrap();
        assert_eq!(received.body, text.as_bytes(), "{said}");
        proxy.wait_for_log(|line| line.contains(said));
    }
    // An unknown named tool: refused, nothing sent upstream.
    let before = replay.requests().len();
    let mut body = request("qwen3_coder/one_call", &weather(), false);
    body["tool_choice"] = json!({"type": "function", "function": {"name": "nope"}});
    let response = chat(&proxy, &body).await;
    assert_eq!(response.status(), 400);
    let error: Value = response.json().await.unwrap();
    assert_error(&error, "invalid_request_error");
    assert_eq!(error["error"]["param"], "tool_choice");
    assert_eq!(replay.requests().len(), before);
    let metrics = metrics(&proxy).await;
    for outcome in ["client_constraint", "tool_choice_none", "unknown_tool"] {
        let line = format!(r#"toolcall_proxy_constraints_total{{outcome="{outcome}"}} 1"#);
        assert!(metrics.contains(&line), "{line} in {metrics}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn off_by_default_and_a_format_without_a_grammar_goes_unconstrained() {
    let replay = replay::start().await;
    let off = ProxyProcess::start(&replay.url(), &["--format", "qwen3_coder"]);
    let body = request("qwen3_coder/one_call", &weather(), false);
    let text = serde_json::to_string_pretty(&body).unwrap();
    let send = client()
        .post(format!("{}/v1/chat/completions", off.url))
        .header("content-type", "application/json")
        .body(text.clone())
        .send();
    let response = tokio::time::timeout(TIMEOUT, send).await.unwrap().unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(replay.requests().pop().unwrap().body, text.as_bytes());
    let line = off.wait_for_log(|line| line.contains("POST /v1/chat/completions 200"));
    assert!(!line.contains("constrain"), "{line}");

    // A format of one's own in a shape the generator has no grammar for
    // (JSON calls in a wrapper, or bare at any line's start): sent
    // unconstrained, and the log line says why.
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("proxy-no-grammar.toml");
    std::fs::write(&path, UNWRITTEN_FORMAT).unwrap();
    let format = Format::from_toml(UNWRITTEN_FORMAT).unwrap();
    let tools = Tools::from_json(WEATHER).unwrap();
    assert!(format.constraint(&tools, &Constraint::lazy()).is_err());
    let proxy = ProxyProcess::start(
        &replay.url(),
        &[
            "--format-file",
            path.to_str().unwrap(),
            "--constrain",
            "lark",
        ],
    );
    let response = chat(&proxy, &request("prose/20", &weather(), false)).await;
    assert_eq!(response.status(), 200);
    let sent = last_chat_body(&replay);
    assert!(sent.get("grammar").is_none() && sent.get("tool_choice").is_none());
    proxy.wait_for_log(|line| line.contains("not constrained: no grammar for"));
    assert!(metrics(&proxy)
        .await
        .contains(r#"toolcall_proxy_constraints_total{outcome="unsupported"} 1"#));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_routes_are_constrained_too() {
    let (replay, proxy) =
        setup(&["--format", "qwen3_coder", "--constrain", "structural-tag"]).await;
    let parameters = weather()[0]["function"]["parameters"].clone();
    // Anthropic Messages: `any` is `required`, and one call at a time.
    let messages = json!({
        "model": "qwen3_coder/one_call", "max_tokens": 100,
        "messages": [{"role": "user", "content": "Weather in Paris?"}],
        "tools": [{"name": "get_weather", "input_schema": parameters}],
        "tool_choice": {"type": "any", "disable_parallel_tool_use": true},
    });
    let send = client()
        .post(format!("{}/v1/messages", proxy.url))
        .json(&messages)
        .send();
    let response = tokio::time::timeout(TIMEOUT, send).await.unwrap().unwrap();
    assert_eq!(response.status(), 200);
    let answer: Value = response.json().await.unwrap();
    assert_eq!(answer["stop_reason"], "tool_use", "{answer}");
    let sent = last_chat_body(&replay);
    let tag = one_call_tag();
    assert_eq!(sent["response_format"], tag);
    assert_eq!(sent["tool_choice"], "none");

    // OpenAI Responses: a named function; an unknown one is refused.
    let responses = |name: &str| {
        json!({
            "model": "qwen3_coder/one_call",
            "input": [{"role": "user", "content": "Weather in Paris?"}],
            "tools": [{"type": "function", "name": "get_weather", "parameters": parameters}],
            "tool_choice": {"type": "function", "name": name},
        })
    };
    let post = |body: Value| {
        let send = client()
            .post(format!("{}/v1/responses", proxy.url))
            .json(&body)
            .send();
        async move { tokio::time::timeout(TIMEOUT, send).await.unwrap().unwrap() }
    };
    let response = post(responses("get_weather")).await;
    assert_eq!(response.status(), 200);
    let sent = last_chat_body(&replay);
    let tag: Value = serde_json::from_str(&grammar(Constraint {
        dialect: Dialect::StructuralTag,
        ..Constraint::named("get_weather")
    }))
    .unwrap();
    assert_eq!(sent["response_format"], tag);
    let before = replay.requests().len();
    let response = post(responses("nope")).await;
    assert_eq!(response.status(), 400);
    let error: Value = response.json().await.unwrap();
    assert_eq!(error["error"]["param"], "tool_choice", "{error}");
    assert_eq!(replay.requests().len(), before);
}
