//! `toolcall proxy` saying how it chose a request's format: the start-up
//! line, the format and its reason on each request's log line, a
//! passthrough's reason there and in `/metrics`, `--default-format`; and
//! one spelling of an unreachable upstream, flat tools, `--ids` words.
//! Against the replay upstream on loopback; timeouts only guard a hang.

mod support;

use serde_json::{json, Value};
use support::client::*;
use support::proxy::{ProxyProcess, TIMEOUT};

/// The replay sends `hermes/one_call` (a Hermes `<tool_call>`) for this
/// model, whose name holds no pattern.
const UNKNOWN: &str = "hermes/one_call";

fn weather_tools() -> Value {
    json!([{"type": "function", "function": {"name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}}])
}

async fn metrics(proxy: &ProxyProcess) -> String {
    let response = client()
        .get(format!("{}/metrics", proxy.url))
        .timeout(TIMEOUT)
        .send()
        .await
        .unwrap();
    response.text().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_that_names_no_format_passes_through_and_says_why() {
    let (_replay, proxy) = setup(&[]).await;
    proxy.wait_for_log(|line| {
        line.contains("each chat request's format is the one its \"model\" names")
            && line.contains(
                "passes through unparsed (--format, --default-format or --model-map sets one)",
            )
    });

    let response = chat(&proxy, &request(UNKNOWN, &weather_tools(), false)).await;
    assert_eq!(response.status(), 200);
    let completion: Value = response.json().await.unwrap();
    let message = &completion["choices"][0]["message"];
    assert!(
        message["content"].as_str().unwrap().contains("<tool_call>"),
        "raw text kept: {message}"
    );
    proxy.wait_for_log(|line| {
        line.contains("POST /v1/chat/completions 200 passthrough")
            && line.contains("(passthrough: model \"hermes/one_call\" names no format; --format, --default-format or --model-map sets one)")
    });

    // No tools: nothing to parse, said as such.
    let response = chat(&proxy, &request(UNKNOWN, &Value::Null, false)).await;
    assert_eq!(response.status(), 200);
    proxy.wait_for_log(|line| line.contains("(passthrough: no tools in the request)"));

    // A model whose name says its format: the line names both.
    let named = format!("as/{UNKNOWN}/Qwen/Qwen3-8B");
    let response = chat(&proxy, &request(&named, &weather_tools(), false)).await;
    let completion: Value = response.json().await.unwrap();
    assert_eq!(
        completion["choices"][0]["message"]["tool_calls"][0]["function"]["name"],
        "get_weather"
    );
    proxy.wait_for_log(|line| {
        line.contains("200 rewrite calls=1")
            && line.contains("(format hermes by model name, pattern \"qwen3\")")
    });

    let page = metrics(&proxy).await;
    for counted in [
        "toolcall_proxy_chat_passthroughs_total{reason=\"unknown_model\"} 1",
        "toolcall_proxy_chat_passthroughs_total{reason=\"no_tools\"} 1",
    ] {
        assert!(page.contains(counted), "{counted} in\n{page}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn default_format_reads_a_model_that_names_none() {
    let (_replay, proxy) = setup(&["--default-format", "hermes", "--log-format", "json"]).await;
    proxy.wait_for_log(|line| {
        line.contains("a model that names none is read as hermes (--default-format)")
    });
    let response = chat(&proxy, &request(UNKNOWN, &weather_tools(), false)).await;
    let completion: Value = response.json().await.unwrap();
    let call = &completion["choices"][0]["message"]["tool_calls"][0]["function"];
    assert_eq!(call["name"], "get_weather");
    assert_eq!(call["arguments"], r#"{"city": "Paris", "days": 3}"#);
    let line = proxy.wait_for_log(|line| line.contains("\"msg\":\"request\""));
    let line: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(line["format"], "hermes");
    assert_eq!(
        line["choice"],
        "format hermes by --default-format: model \"hermes/one_call\" names none"
    );
    assert!(!metrics(&proxy)
        .await
        .contains("toolcall_proxy_chat_passthroughs_total{"));
}

#[test]
fn default_format_and_format_are_one_or_the_other() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolcall"))
        .args([
            "proxy",
            "--upstream",
            "http://127.0.0.1:1",
            "--format",
            "glm45",
        ])
        .args(["--default-format", "hermes"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--default-format"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_upstream_is_spelled_one_way_on_every_route() {
    // A port bound for the test and never listened on: connections are
    // refused, and no concurrent test's server can take it.
    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    socket
        .bind(&std::net::SocketAddr::from(([127, 0, 0, 1], 0)).into())
        .unwrap();
    let bound = socket.local_addr().unwrap().as_socket().unwrap();
    let proxy = ProxyProcess::start(&format!("http://{bound}"), &["--format", "hermes"]);
    let post = |path: &str, body: Value| {
        client()
            .post(format!("{}{path}", proxy.url))
            .json(&body)
            .timeout(TIMEOUT)
            .send()
    };
    let responses = [
        // The rewrites' own client...
        post("/v1/chat/completions", request("m", &weather_tools(), true)).await,
        post("/v1/chat/completions", request("m", &weather_tools(), false)).await,
        // ...the passthrough's...
        post("/v1/chat/completions", request("m", &Value::Null, false)).await,
        client()
            .get(format!("{}/v1/models", proxy.url))
            .timeout(TIMEOUT)
            .send()
            .await,
        // ...and an agent route's.
        post(
            "/v1/responses",
            json!({"model": "m", "input": "hi", "tools": [{"type": "function", "name": "get_weather",
                "parameters": {"type": "object", "properties": {}}}]}),
        )
        .await,
    ];
    let mut messages = Vec::new();
    for response in responses {
        let response = response.unwrap();
        assert_eq!(response.status(), 502);
        let body: Value = response.json().await.unwrap();
        messages.push(body["error"]["message"].as_str().unwrap().to_owned());
    }
    let expected = "upstream unreachable: cannot connect: Connection refused (os error 111)";
    for message in &messages {
        assert_eq!(message, expected, "{messages:?}");
    }
    proxy.wait_for_log(|line| line.contains("GET /v1/models 502"));
    proxy.wait_for_log(|line| line.contains("POST /v1/responses 502"));
    for line in proxy.log().iter().filter(|line| line.contains(" 502 ")) {
        assert!(line.contains(expected), "{line}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flat_tools_are_read_and_ids_take_parses_words() {
    // `--strict` returns a call to a tool the request does not declare as
    // content: so the flat tools' names are seen to be read.
    let (_replay, proxy) = setup(&["--format", "hermes", "--strict", "--ids", "sequential"]).await;
    let flat = |name: &str| {
        json!([{"name": name, "parameters": {"type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}])
    };
    let response = chat(&proxy, &request(UNKNOWN, &flat("get_weather"), false)).await;
    assert_eq!(response.status(), 200);
    let completion: Value = response.json().await.unwrap();
    let call = &completion["choices"][0]["message"]["tool_calls"][0];
    assert_eq!(call["id"], "call_0");
    assert_eq!(
        call["function"]["arguments"],
        r#"{"city": "Paris", "days": 3}"#
    );

    let response = chat(&proxy, &request(UNKNOWN, &flat("other"), false)).await;
    let completion: Value = response.json().await.unwrap();
    let message = &completion["choices"][0]["message"];
    assert!(
        message["tool_calls"].is_null() || message["tool_calls"] == json!([]),
        "{message}"
    );
    assert!(message["content"].as_str().unwrap().contains("get_weather"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_route_says_the_format_or_why_there_is_none() {
    let (_replay, proxy) = setup(&[]).await;
    let responses = |model: &str| {
        client()
            .post(format!("{}/v1/responses", proxy.url))
            .json(
                &json!({"model": model, "input": "go", "tools": [{"type": "function",
                "name": "get_weather", "parameters": {"type": "object", "properties": {}}}]}),
            )
            .timeout(TIMEOUT)
            .send()
    };
    assert_eq!(responses(UNKNOWN).await.unwrap().status(), 200);
    proxy.wait_for_log(|line| {
        line.contains("POST /v1/responses 200")
            && line.contains("(model \"hermes/one_call\" names no format: calls are the upstream's own (--format, --default-format or --model-map sets one))")
    });
    let named = format!("as/{UNKNOWN}/Qwen/Qwen3-8B");
    assert_eq!(responses(&named).await.unwrap().status(), 200);
    proxy.wait_for_log(|line| {
        line.contains("POST /v1/responses 200")
            && line.contains("(format hermes by model name, pattern \"qwen3\")")
    });
}
