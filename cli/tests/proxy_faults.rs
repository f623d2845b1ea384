//! `toolcall proxy` against a misbehaving upstream (the replay upstream's
//! `fault/…` models): every answer stays bounded in memory and time, and
//! a client always gets an answer it can read. Timeouts here are short
//! flags against an upstream that never answers (not races), and
//! `TIMEOUT` only guards against a hang.

mod support;

use serde_json::{json, Value};
use support::client::*;
use support::proxy::TIMEOUT;
use support::replay::{self, faults::big_call};

fn tools() -> Value {
    placeholder_tools()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endless_whole_answer_is_502_past_max_response_bytes() {
    let (_replay, proxy) =
        setup(&["--format", "qwen3_coder", "--max-response-bytes", "1000000"]).await;
    let response = chat(&proxy, &request("fault/endless_body", &tools(), false)).await;
    assert_eq!(response.status(), 502);
    let body: Value = response.json().await.unwrap();
    assert_error(&body, "upstream_response_too_large");
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .contains("1000000"));
    proxy.wait_for_log(|line| line.contains("502 rewrite calls=0 upstream_response_too_large"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_longer_than_max_event_bytes_ends_the_stream_with_an_error_event() {
    let (_replay, proxy) = setup(&["--format", "qwen3_coder", "--max-event-bytes", "65536"]).await;
    // 50 MB without a line end: refused after 64 KiB of it.
    let response = chat(&proxy, &request("fault/long_line/50000000", &tools(), true)).await;
    let (chunks, error) = read_failed_stream(response).await;
    assert_error(&error, "upstream_stream_error");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("65536"),
        "{error}"
    );
    // What came before the long line was sent.
    assert_eq!(
        Assembled::from_chunks(&chunks).content.as_deref(),
        Some("Hi")
    );
    proxy.wait_for_log(|line| line.contains("upstream_stream_error"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_large_event_within_the_bound_is_one_call() {
    let (_replay, proxy) = setup(&["--format", "qwen3_coder"]).await;
    // 900 KB of value in one event, under the default 1 MiB bound.
    let response = chat(&proxy, &request("fault/big_event/900000", &tools(), true)).await;
    let chunks = read_sse(response).await;
    let assembled = Assembled::from_chunks(&chunks);
    assert_eq!(assembled.calls.len(), 1);
    assert_eq!(assembled.calls[0].1, "write_file");
    let arguments: Value = serde_json::from_str(&assembled.calls[0].2).unwrap();
    assert_eq!(arguments["content"].as_str().unwrap().len(), 900_000);
    assert_eq!(assembled.finish_reason.as_deref(), Some("tool_calls"));
    assert!(big_call(3).contains("xxx"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_utf8_becomes_the_replacement_character_with_a_note() {
    let (_replay, proxy) = setup(&["--format", "qwen3_coder"]).await;
    let response = chat(&proxy, &request("fault/invalid_utf8", &tools(), true)).await;
    let chunks = read_sse(response).await;
    let assembled = Assembled::from_chunks(&chunks);
    assert_eq!(assembled.content.as_deref(), Some("caf\u{FFFD} ok"));
    assert_eq!(assembled.finish_reason.as_deref(), Some("stop"));
    proxy.wait_for_log(|line| line.contains("invalid UTF-8") && line.contains(" 200 "));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compressed_answers_are_decoded_on_the_rewrite_path() {
    let (_replay, proxy) = setup(&["--format", "qwen3_coder"]).await;
    let fixture = "typed_ladder";
    let text = replay::fixture_text("qwen3_coder", fixture).unwrap();
    let tools = replay::fixture_tools("qwen3_coder", fixture).unwrap();
    for encoding in ["gzip", "deflate", "br", "zstd"] {
        let model = format!("fault/{encoding}/qwen3_coder/{fixture}");
        let chunks = read_sse(chat(&proxy, &request(&model, &tools, true)).await).await;
        Assembled::from_chunks(&chunks).assert_matches("qwen3_coder", &text, &tools, encoding);
        let response = chat(&proxy, &request(&model, &tools, false)).await;
        assert_eq!(response.status(), 200, "{encoding}");
        assert!(response.headers().get("content-encoding").is_none());
        let completion: Value = response.json().await.unwrap();
        Assembled::from_completion(&completion).assert_matches(
            "qwen3_coder",
            &text,
            &tools,
            encoding,
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn passthrough_keeps_compressed_bytes_as_they_came() {
    let (_replay, proxy) = setup(&["--format", "qwen3_coder"]).await;
    let raw = reqwest::Client::builder()
        .no_proxy()
        .no_gzip()
        .no_brotli()
        .no_deflate()
        .no_zstd()
        .build()
        .unwrap();
    // No tools: passed through.
    let body =
        json!({"model": "fault/gzip/qwen3_coder/typed_ladder", "messages": [], "stream": false});
    let response = raw
        .post(format!("{}/v1/chat/completions", proxy.url))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["content-encoding"], "gzip");
    let bytes = response.bytes().await.unwrap();
    assert_eq!(&bytes[..2], &[0x1f, 0x8b], "a gzip member, not decoded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_that_does_not_answer_is_504_after_first_byte_timeout() {
    let (_replay, proxy) = setup(&["--format", "qwen3_coder", "--first-byte-timeout", "0.5"]).await;
    for stream in [false, true] {
        let response = chat(
            &proxy,
            &request(
                "fault/slow_head/600000/qwen3_coder/typed_ladder",
                &tools(),
                stream,
            ),
        )
        .await;
        assert_eq!(response.status(), 504);
        let body: Value = response.json().await.unwrap();
        assert_error(&body, "upstream_timeout");
    }
    // Also on passthrough.
    let response = client()
        .post(format!("{}/v1/chat/completions", proxy.url))
        .json(&json!({"model": "fault/slow_head/600000/qwen3_coder/typed_ladder", "messages": []}))
        .timeout(TIMEOUT)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 504);
    proxy.wait_for_log(|line| line.contains("504 passthrough upstream_timeout"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_that_goes_silent_ends_the_stream_after_idle_timeout() {
    let (_replay, proxy) = setup(&["--format", "qwen3_coder", "--idle-timeout", "0.5"]).await;
    let response = chat(
        &proxy,
        &request("fault/stall/20/qwen3_coder/typed_ladder", &tools(), true),
    )
    .await;
    let (chunks, error) = read_failed_stream(response).await;
    assert_error(&error, "upstream_timeout");
    // A stream cut off is finished as cut: `length`, never `tool_calls`.
    let assembled = Assembled::from_chunks(&chunks);
    assert_ne!(assembled.finish_reason.as_deref(), Some("tool_calls"));
    proxy.wait_for_log(|line| line.contains("upstream_timeout") && line.contains("--idle-timeout"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_that_stops_without_an_end_is_a_cut_not_a_stop() {
    let fixture = "typed_ladder";
    let tools = replay::fixture_tools("qwen3_coder", fixture).unwrap();
    let model = format!("fault/no_end/qwen3_coder/{fixture}");
    // Calls streamed (the default): the call went out as it came, and the
    // finish says it was cut.
    let (_replay, proxy) = setup(&["--format", "qwen3_coder"]).await;
    let (chunks, error) =
        read_failed_stream(chat(&proxy, &request(&model, &tools, true)).await).await;
    assert_error(&error, "upstream_stream_error");
    assert!(error["error"]["message"]
        .as_str()
        .unwrap()
        .contains("before the answer was complete"));
    let assembled = Assembled::from_chunks(&chunks);
    assert_eq!(assembled.calls.len(), 1);
    assert_eq!(assembled.finish_reason.as_deref(), Some("length"));
    proxy.wait_for_log(|line| line.contains("200 rewrite_stream calls=0 upstream_cut"));

    // Calls held: no call at all, and the text comes back as content.
    let (_replay, proxy) = setup(&["--format", "qwen3_coder", "--hold-calls"]).await;
    let (chunks, error) =
        read_failed_stream(chat(&proxy, &request(&model, &tools, true)).await).await;
    assert_error(&error, "upstream_stream_error");
    let assembled = Assembled::from_chunks(&chunks);
    assert!(assembled.calls.is_empty(), "{:?}", assembled.calls);
    assert!(assembled.content.unwrap().contains("<function=plan_trip>"));
    assert_eq!(assembled.finish_reason.as_deref(), Some("length"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stream_that_is_not_a_boolean_is_400() {
    let (replay, proxy) = setup(&["--format", "qwen3_coder"]).await;
    let mut body = request("qwen3_coder/typed_ladder", &tools(), false);
    body["stream"] = json!("true");
    let response = chat(&proxy, &body).await;
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.unwrap();
    assert_error(&body, "invalid_request_error");
    assert_eq!(body["error"]["param"], json!("stream"));
    assert!(replay.requests().is_empty(), "never forwarded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_and_logs_name_no_internal_address_nor_query() {
    // Nothing listens on port 1.
    let proxy = support::proxy::ProxyProcess::start(
        "http://user:hunter2@127.0.0.1:1/base",
        &["--format", "glm45"],
    );
    let response = client()
        .post(format!(
            "{}/v1/chat/completions?api-key=sk-query-secret",
            proxy.url
        ))
        .json(&request("m", &tools(), false))
        .timeout(TIMEOUT)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 502);
    let body: Value = response.json().await.unwrap();
    assert_error(&body, "upstream_unreachable");
    let message = body["error"]["message"].as_str().unwrap();
    for secret in ["127.0.0.1:1", "/base", "sk-query-secret", "hunter2"] {
        assert!(!message.contains(secret), "{message}");
    }
    let line = proxy.wait_for_log(|line| line.contains(" 502 "));
    assert!(
        line.contains("rewrite calls=0 upstream_unreachable"),
        "{line}"
    );
    assert!(
        !line.contains("UpstreamUnreachable"),
        "written for operators: {line}"
    );
    for line in proxy.log() {
        assert!(
            !line.contains("sk-query-secret") && !line.contains("hunter2"),
            "{line}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_readiness_and_metrics() {
    let (_replay, proxy) = setup(&["--format", "qwen3_coder"]).await;
    let get = |path: &str| {
        client()
            .get(format!("{}{path}", proxy.url))
            .timeout(TIMEOUT)
            .send()
    };
    let health = get("/healthz").await.unwrap();
    assert_eq!(health.status(), 200);
    assert_eq!(health.json::<Value>().await.unwrap()["status"], "ok");
    assert_eq!(get("/readyz").await.unwrap().status(), 200);
    // Some traffic to count.
    let tools = replay::fixture_tools("qwen3_coder", "typed_ladder").unwrap();
    read_sse(chat(&proxy, &request("qwen3_coder/typed_ladder", &tools, true)).await).await;
    chat(&proxy, &request("qwen3_coder/typed_ladder", &tools, false))
        .await
        .bytes()
        .await
        .unwrap();
    let _ = chat(&proxy, &request("status/503", &tools, false))
        .await
        .bytes()
        .await;
    proxy.wait_for_log(|line| line.contains(" 503 "));
    let metrics = get("/metrics").await.unwrap();
    assert_eq!(metrics.status(), 200);
    assert!(metrics.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/plain"));
    let text = metrics.text().await.unwrap();
    for expected in [
        r#"toolcall_proxy_requests_total{route="rewrite_stream",outcome="ok"} 1"#,
        r#"toolcall_proxy_requests_total{route="rewrite",outcome="ok"} 1"#,
        r#"toolcall_proxy_requests_total{route="rewrite",outcome="upstream_status"} 1"#,
        "toolcall_proxy_tool_calls_total 2",
        "toolcall_proxy_upstream_first_byte_seconds_bucket",
        "toolcall_proxy_added_latency_seconds_bucket",
        "toolcall_proxy_open_streams 0",
        "# HELP toolcall_proxy_requests_total",
    ] {
        assert!(text.contains(expected), "{expected} not in\n{text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readiness_says_when_the_upstream_is_down() {
    let proxy = support::proxy::ProxyProcess::start("http://127.0.0.1:1", &["--format", "glm45"]);
    let response = client()
        .get(format!("{}/readyz", proxy.url))
        .timeout(TIMEOUT)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 503);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["status"], "not ready");
    assert!(!body["reason"].as_str().unwrap().contains("127.0.0.1"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_logs_are_one_object_a_line() {
    let (_replay, proxy) = setup(&["--format", "qwen3_coder", "--log-format", "json"]).await;
    let tools = replay::fixture_tools("qwen3_coder", "typed_ladder").unwrap();
    read_sse(chat(&proxy, &request("qwen3_coder/typed_ladder", &tools, true)).await).await;
    let line = proxy.wait_for_log(|line| line.contains(r#""msg":"request""#));
    let value: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(value["route"], "rewrite_stream");
    assert_eq!(value["status"], 200);
    assert_eq!(value["calls"], 1);
    assert_eq!(value["outcome"], "ok");
    assert!(value["ts"].as_str().unwrap().ends_with('Z'));
    for line in proxy.log() {
        serde_json::from_str::<Value>(&line).unwrap_or_else(|e| panic!("{line}: {e}"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_stream_by_default_and_are_held_on_request() {
    let tools = replay::fixture_tools("qwen3_coder", "typed_ladder").unwrap();
    let model = "qwen3_coder/typed_ladder";
    let count_argument_chunks = |chunks: &[Value]| {
        chunks
            .iter()
            .filter(|chunk| {
                chunk["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"]
                    .as_str()
                    .is_some_and(|a| !a.is_empty())
            })
            .count()
    };
    let (_replay, proxy) = setup(&["--format", "qwen3_coder"]).await;
    let streamed = read_sse(chat(&proxy, &request(model, &tools, true)).await).await;
    assert!(
        count_argument_chunks(&streamed) > 5,
        "arguments arrive as they are parsed"
    );
    let (_replay, proxy) = setup(&["--format", "qwen3_coder", "--hold-calls"]).await;
    let held = read_sse(chat(&proxy, &request(model, &tools, true)).await).await;
    assert_eq!(count_argument_chunks(&held), 1, "the call comes whole");
    assert_eq!(
        Assembled::from_chunks(&streamed),
        Assembled {
            calls: Assembled::from_chunks(&streamed).calls,
            ..Assembled::from_chunks(&held)
        }
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_leaves_while_the_answer_is_awaited_is_logged_499() {
    let (_replay, proxy) = setup(&["--format", "qwen3_coder"]).await;
    let model = "fault/slow_head/600000/qwen3_coder/typed_ladder";
    let gave_up = client()
        .post(format!("{}/v1/chat/completions", proxy.url))
        .json(&request(model, &tools(), false))
        .timeout(std::time::Duration::from_millis(300))
        .send()
        .await;
    assert!(gave_up.is_err(), "the upstream never answers");
    proxy.wait_for_log(|line| line.contains("499 rewrite calls=0 client_closed"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endless_body_that_is_not_sse_ends_the_stream_with_an_error_event() {
    let (_replay, proxy) = setup(&["--format", "qwen3_coder", "--max-event-bytes", "65536"]).await;
    // JSON, forever, to a request that asked for a stream: no event ever
    // forms, and bytes keep coming, so only the bound can end it.
    let response = chat(&proxy, &request("fault/endless_body", &tools(), true)).await;
    let (chunks, error) = read_failed_stream(response).await;
    assert_error(&error, "upstream_stream_error");
    assert!(chunks.is_empty(), "{chunks:?}");
}

/// One request over a fresh connection, raw: the whole answer, to the
/// connection's end.
async fn raw_exchange(proxy_url: &str, head: &str, body: &[u8]) -> std::io::Result<String> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr = proxy_url.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(addr).await?;
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(body).await?;
    let mut answer = Vec::new();
    tokio::time::timeout(TIMEOUT, stream.read_to_end(&mut answer))
        .await
        .expect("the proxy never closed")?;
    Ok(String::from_utf8_lossy(&answer).into_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_body_always_gets_its_413_and_the_connection_closes() {
    let (replay, proxy) = setup(&["--format", "qwen3_coder", "--max-body-bytes", "262144"]).await;
    let body = vec![b'x'; 300_000];
    let declared = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    let mut chunked_body = format!("{:x}\r\n", body.len()).into_bytes();
    chunked_body.extend_from_slice(&body);
    chunked_body.extend_from_slice(b"\r\n0\r\n\r\n");
    let chunked = "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
    // Before, the connection was closed with the body unread, and the
    // reset lost the 413 now and then: many tries, every one must read it.
    for round in 0..20 {
        for (head, body) in [(declared.as_str(), &body), (chunked, &chunked_body)] {
            let answer = raw_exchange(&proxy.url, head, body)
                .await
                .unwrap_or_else(|e| panic!("round {round}: {e}"));
            assert!(
                answer.starts_with("HTTP/1.1 413"),
                "round {round}: {answer:?}"
            );
            assert!(
                answer.to_ascii_lowercase().contains("connection: close"),
                "{answer:?}"
            );
        }
    }
    assert!(replay.requests().is_empty(), "never forwarded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn normal_clients_are_served_while_slow_heads_hold_every_slot() {
    use std::time::Duration;
    let replay = replay::start().await;
    // 256 descriptors: the default --max-connections fits in them, far
    // under the 300 slow clients.
    let proxy = support::proxy::ProxyProcess::start_with(
        Some(256),
        &replay.url(),
        "127.0.0.1:0",
        &["--format", "qwen3_coder"],
    );
    let limits = proxy.wait_for_log(|line| line.contains("(--max-connections"));
    let cap: usize = limits
        .split("at most ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no cap in {limits:?}"));
    assert!(cap < 150, "{limits}");
    let addr = proxy.url.trim_start_matches("http://");
    let mut attack = support::slowloris::Slowloris::start(addr, 300, Duration::from_millis(100));
    // Every slot taken, and slow clients shed for newer ones.
    proxy.wait_for_log(|line| line.contains("waiting for a request head"));
    let fixture = "typed_ladder";
    let text = replay::fixture_text("qwen3_coder", fixture).unwrap();
    let tools = replay::fixture_tools("qwen3_coder", fixture).unwrap();
    let model = format!("qwen3_coder/{fixture}");
    for attempt in 0..8 {
        // A new connection each time, as a new client would open.
        let client = reqwest::Client::builder()
            .no_proxy()
            .pool_max_idle_per_host(0)
            .build()
            .unwrap();
        let response = client
            .post(format!("{}/v1/chat/completions", proxy.url))
            .json(&request(&model, &tools, false))
            .timeout(Duration::from_secs(10))
            .send()
            .await
            .unwrap_or_else(|e| panic!("attempt {attempt}: {}", causes(&e)));
        assert_eq!(response.status(), 200, "attempt {attempt}");
        let completion: Value = response.json().await.unwrap();
        Assembled::from_completion(&completion).assert_matches(
            "qwen3_coder",
            &text,
            &tools,
            &format!("attempt {attempt}"),
        );
        // Spread over the attack, as the slow clients come and go.
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (connected, closed) = (attack.connected(), attack.closed());
    attack.stop();
    assert_eq!(attack.answered(), 0, "a slow head was answered");
    assert!(
        connected > 300 && closed > 0,
        "the attack went on: {connected} connections, {closed} closed"
    );
    // Within the descriptors throughout: no accept failed.
    std::thread::sleep(Duration::from_millis(1200));
    for line in proxy.log() {
        assert!(
            !line.contains("cannot accept") && !line.contains("refused"),
            "{line}"
        );
    }
}

fn causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
