//! `toolcall proxy` in front of the replay upstream (`support/replay.rs`):
//! what is rewritten, what passes through, and every failure it must
//! survive. Timeouts here only guard against a hang.

mod support;

use futures_util::StreamExt;
use serde_json::{json, Value};
use support::client::*;
use support::proxy::{ProxyProcess, TIMEOUT};
use support::replay::{self, Replay};

const FORMATS: &[&str] = &["qwen3_coder", "glm45", "glm47"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_fixture_streamed_and_whole_equals_the_parse() {
    let (_replay, proxy) = setup(&["--model-map", &model_map()]).await;
    let mut checked = 0;
    for format in FORMATS {
        for name in replay::fixture_names(format) {
            let text = replay::fixture_text(format, &name).unwrap();
            let tools = replay::fixture_tools(format, &name).unwrap_or_else(placeholder_tools);
            let model = format!("{format}/{name}");

            let response = chat(&proxy, &request(&model, &tools, true)).await;
            assert_eq!(response.status(), 200, "{model}");
            assert_eq!(response.headers()["content-type"], "text/event-stream");
            let chunks = read_sse(response).await;
            for chunk in &chunks {
                assert_eq!(chunk["id"], "chatcmpl-replay", "{model}: id kept");
                assert_eq!(chunk["system_fingerprint"], "fp_replay");
                assert_eq!(chunk["model"], model.as_str());
            }
            Assembled::from_chunks(&chunks).assert_matches(
                format,
                &text,
                &tools,
                &format!("{model} streamed"),
            );

            let response = chat(&proxy, &request(&model, &tools, false)).await;
            assert_eq!(response.status(), 200, "{model}");
            let completion: Value = response.json().await.unwrap();
            assert_eq!(
                completion["service_tier"], "replayed",
                "unknown fields kept"
            );
            assert_eq!(completion["usage"]["total_tokens"], 30);
            assert_eq!(
                completion["choices"][0]["message"]["reasoning_content"],
                "thought"
            );
            Assembled::from_completion(&completion).assert_matches(
                format,
                &text,
                &tools,
                &format!("{model} whole"),
            );
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} fixtures");
}

/// Every format by the prefix of the replay's model names.
fn model_map() -> String {
    support::proxy::config_file(
        "proxy-model-map.json",
        r#"{"qwen3_coder/*": "qwen3_coder", "quirks/qwen3_coder/*": "qwen3_coder", "glm45/*": "glm45", "glm47/*": "glm47"}"#,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typed_values_come_from_the_requests_tools() {
    let (_replay, proxy) = setup(&["--format", "qwen3_coder"]).await;
    let tools = replay::fixture_tools("qwen3_coder", "typed_ladder").unwrap();
    let chunks =
        read_sse(chat(&proxy, &request("qwen3_coder/typed_ladder", &tools, true)).await).await;
    let assembled = Assembled::from_chunks(&chunks);
    let arguments: Value = serde_json::from_str(&assembled.calls[0].2).unwrap();
    assert_eq!(arguments["days"], json!(3));
    assert_eq!(arguments["zip"], json!("00750"));
    assert_eq!(assembled.calls[0].1, "plan_trip");
    assert_eq!(assembled.finish_reason.as_deref(), Some("tool_calls"));
    assert!(proxy
        .log()
        .iter()
        .all(|line| !line.contains("sk-test-secret")));
    proxy
        .wait_for_log(|line| line.contains("POST /v1/chat/completions 200 rewrite_stream calls=1"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn odd_but_valid_sse_is_read_comments_crlf_multiline_data_no_final_blank_line() {
    let (_replay, proxy) = setup(&["--model-map", &model_map()]).await;
    let tools = replay::fixture_tools("qwen3_coder", "typed_ladder").unwrap();
    let text = replay::fixture_text("qwen3_coder", "typed_ladder").unwrap();
    let mut body = request("quirks/qwen3_coder/typed_ladder", &tools, true);
    // The usage chunk is the last event, the one without its blank line.
    body["stream_options"] = json!({"include_usage": true});
    let chunks = read_sse(chat(&proxy, &body).await).await;
    Assembled::from_chunks(&chunks).assert_matches("qwen3_coder", &text, &tools, "quirks");
    assert_eq!(
        chunks.last().unwrap()["usage"]["total_tokens"],
        30,
        "{chunks:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn usage_passes_through_the_stream() {
    let (_replay, proxy) = setup(&["--format", "glm45"]).await;
    let mut body = request("glm45/two_calls", &placeholder_tools(), true);
    body["stream_options"] = json!({"include_usage": true});
    let chunks = read_sse(chat(&proxy, &body).await).await;
    assert_eq!(chunks.last().unwrap()["usage"]["total_tokens"], 30);
    assert_eq!(Assembled::from_chunks(&chunks).calls.len(), 2);
}

/// The same request straight to the upstream, for byte comparisons.
async fn direct(
    replay: &Replay,
    method: reqwest::Method,
    path: &str,
    body: &Value,
) -> (u16, Vec<u8>) {
    let response = client()
        .request(method, format!("{}{path}", replay.url()))
        .json(body)
        .send()
        .await
        .unwrap();
    (
        response.status().as_u16(),
        response.bytes().await.unwrap().to_vec(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_without_tools_pass_through_byte_for_byte() {
    let (replay, proxy) = setup(&["--format", "qwen3_coder"]).await;
    for stream in [true, false] {
        for tools in [Value::Null, json!([])] {
            let mut body = request("qwen3_coder/two_calls", &tools, stream);
            if tools.is_null() {
                body.as_object_mut().unwrap().remove("tools");
            }
            let response = chat(&proxy, &body).await;
            if stream {
                assert_eq!(
                    response.headers()["x-replay"],
                    "stream",
                    "headers pass through"
                );
            }
            let status = response.status().as_u16();
            let bytes = response.bytes().await.unwrap().to_vec();
            let expected = direct(
                &replay,
                reqwest::Method::POST,
                "/v1/chat/completions",
                &body,
            )
            .await;
            assert_eq!((status, bytes), expected, "{body}");
        }
    }
    proxy.wait_for_log(|line| line.contains("POST /v1/chat/completions 200 passthrough"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_paths_pass_through_with_headers_status_and_body() {
    let (replay, proxy) = setup(&["--format", "qwen3_coder"]).await;
    let response = client()
        .get(format!("{}/v1/models", proxy.url))
        .bearer_auth("sk-test-secret")
        .header("x-custom", "kept")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["x-replay"], "models");
    let bytes = response.bytes().await.unwrap().to_vec();
    assert_eq!(
        bytes,
        direct(&replay, reqwest::Method::GET, "/v1/models", &Value::Null)
            .await
            .1
    );
    let models = &replay.requests()[0];
    assert_eq!(models.headers["authorization"], "Bearer sk-test-secret");
    assert_eq!(models.headers["x-custom"], "kept");

    // Any method and path, the query string and body included; the
    // upstream's status (418 here) is kept.
    let response = client()
        .put(format!("{}/v1/completions/x?q=1&r=two", proxy.url))
        .header("x-custom", "kept")
        .body("raw \u{0} bytes")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 418);
    assert_eq!(response.headers()["x-replay"], "echo");
    let echo: Value = response.json().await.unwrap();
    assert_eq!(echo["method"], "PUT");
    assert_eq!(echo["path"], "/v1/completions/x?q=1&r=two");
    assert_eq!(echo["body"], "raw \u{0} bytes");
    assert_eq!(echo["headers"]["x-custom"], "kept");

    // The chat request with tools is forwarded as it came too.
    let body = request("qwen3_coder/one_call", &placeholder_tools(), false);
    chat(&proxy, &body).await.bytes().await.unwrap();
    let forwarded = replay.requests().last().unwrap().clone();
    assert_eq!(
        serde_json::from_slice::<Value>(&forwarded.body).unwrap(),
        body
    );
    assert_eq!(forwarded.headers["authorization"], "Bearer sk-test-secret");

    proxy.wait_for_log(|line| line.contains("PUT /v1/completions/x 418 passthrough"));
    assert!(proxy
        .log()
        .iter()
        .all(|line| !line.contains("sk-test-secret") && !line.contains("q=1")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upstream_errors_keep_their_status_and_body() {
    let (replay, proxy) = setup(&["--format", "qwen3_coder"]).await;
    for code in [400, 404, 429, 500, 503] {
        for stream in [true, false] {
            let body = request(&format!("status/{code}"), &placeholder_tools(), stream);
            let response = chat(&proxy, &body).await;
            assert_eq!(response.status().as_u16(), code);
            assert_eq!(
                response.headers()["x-replay-status"],
                code.to_string().as_str()
            );
            let bytes = response.bytes().await.unwrap().to_vec();
            let expected = direct(
                &replay,
                reqwest::Method::POST,
                "/v1/chat/completions",
                &body,
            )
            .await;
            assert_eq!((code, bytes), expected);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_upstream_is_502() {
    // A port nobody listens on: bound and kept for the test, never listened
    // on, so connections are refused. (A port bound then closed could be
    // taken by a concurrent test's server, whose requests would then be
    // this test's.)
    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    socket
        .bind(&std::net::SocketAddr::from(([127, 0, 0, 1], 0)).into())
        .unwrap();
    let bound = socket.local_addr().unwrap().as_socket().unwrap();
    let dead = format!("http://{bound}");
    let proxy = ProxyProcess::start(&dead, &["--format", "qwen3_coder"]);
    for body in [
        request("m", &placeholder_tools(), true),
        request("m", &Value::Null, false),
    ] {
        let response = chat(&proxy, &body).await;
        assert_eq!(response.status(), 502);
        assert_eq!(response.headers()["content-type"], "application/json");
        assert_error(&response.json().await.unwrap(), "upstream_unreachable");
    }
    let response = client()
        .get(format!("{}/v1/models", proxy.url))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 502);
    proxy.wait_for_log(|line| line.contains("GET /v1/models 502"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_upstream_stream_ends_with_an_error_event() {
    let (_replay, proxy) = setup(&["--format", "qwen3_coder"]).await;
    let response = chat(
        &proxy,
        &request("malformed/bad_json", &placeholder_tools(), true),
    )
    .await;
    assert_eq!(response.status(), 200);
    let (chunks, error) = read_failed_stream(response).await;
    assert_error(&error, "upstream_stream_error");
    assert_eq!(
        Assembled::from_chunks(&chunks).content.as_deref(),
        Some("Hi"),
        "nothing after the bad event"
    );

    let response = chat(
        &proxy,
        &request("malformed/cut", &placeholder_tools(), true),
    )
    .await;
    let (chunks, error) = read_failed_stream(response).await;
    assert_error(&error, "upstream_stream_error");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("cut off"),
        "{error}"
    );
    assert_eq!(
        Assembled::from_chunks(&chunks).content.as_deref(),
        Some("Hi")
    );
    proxy.wait_for_log(|line| line.contains("upstream body cut off"));

    // The upstream's own error event is passed on as it came.
    let response = chat(
        &proxy,
        &request("malformed/error_event", &placeholder_tools(), true),
    )
    .await;
    let (chunks, error) = read_failed_stream(response).await;
    assert_eq!(error["error"]["message"], "replayed failure");
    assert_eq!(
        Assembled::from_chunks(&chunks).content.as_deref(),
        Some("Hi")
    );

    // A 2xx answer to `stream: true` with no event in it.
    let response = chat(&proxy, &request("status/200", &placeholder_tools(), true)).await;
    let (chunks, error) = read_failed_stream(response).await;
    assert_error(&error, "upstream_stream_error");
    assert!(chunks.is_empty());

    // A 2xx answer to `stream: false` that is not a chat.completion.
    let response = chat(
        &proxy,
        &request("malformed/bad_json", &placeholder_tools(), false),
    )
    .await;
    assert_eq!(response.status(), 502);
    assert_error(&response.json().await.unwrap(), "upstream_invalid_response");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_going_away_cancels_the_upstream_request() {
    let (replay, proxy) = setup(&["--format", "qwen3_coder"]).await;
    let response = chat(&proxy, &request("endless", &placeholder_tools(), true)).await;
    assert_eq!(response.status(), 200);
    let mut body = response.bytes_stream();
    // Some of the stream arrives: the upstream request is under way.
    let first = tokio::time::timeout(TIMEOUT, body.next())
        .await
        .expect("no chunk");
    assert!(first.is_some());
    assert!(replay.recorder.endless_dropped.lock().unwrap().is_none());
    drop(body);
    tokio::time::timeout(TIMEOUT, replay.endless_cancelled())
        .await
        .expect("the upstream never saw the client go away");
    proxy.wait_for_log(|line| line.contains("499 rewrite_stream calls=0 client_closed"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bodies_over_the_limit_are_413_and_never_forwarded() {
    let (replay, proxy) = setup(&["--format", "qwen3_coder", "--max-body-bytes", "1000"]).await;
    let big = json!({"model": "m", "messages": [{"role": "user", "content": "x".repeat(2000)}]});
    let response = chat(&proxy, &big).await;
    assert_eq!(response.status(), 413);
    assert_error(&response.json().await.unwrap(), "invalid_request_error");

    // Without a Content-Length (chunked): refused once past the limit.
    let pieces =
        futures_util::stream::iter((0..20).map(|_| Ok::<_, std::io::Error>(vec![b'x'; 100])));
    let response = client()
        .post(format!("{}/v1/anything", proxy.url))
        .body(reqwest::Body::wrap_stream(pieces))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 413);
    assert!(replay.requests().is_empty(), "nothing reached the upstream");

    // At the limit it goes through.
    let response = client()
        .post(format!("{}/v1/anything", proxy.url))
        .body(vec![b'x'; 1000])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 418);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_tools_are_400() {
    let (replay, proxy) = setup(&["--format", "qwen3_coder"]).await;
    for tools in [
        json!({"not": "an array"}),
        json!([{"type": "function", "function": {}}]),
    ] {
        let response = chat(&proxy, &request("qwen3_coder/one_call", &tools, true)).await;
        assert_eq!(response.status(), 400);
        let body: Value = response.json().await.unwrap();
        assert_error(&body, "invalid_request_error");
        assert_eq!(body["error"]["param"], "tools");
    }
    assert!(replay.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_the_map_does_not_know_passes_through() {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("proxy-glm-only.json");
    std::fs::write(&path, r#"{"glm45/*": "glm45"}"#).unwrap();
    let (_replay, proxy) = setup(&["--model-map", path.to_str().unwrap()]).await;
    let mapped = chat(
        &proxy,
        &request("glm45/one_call", &placeholder_tools(), false),
    )
    .await;
    let mapped = Assembled::from_completion(&mapped.json().await.unwrap());
    assert_eq!(mapped.calls.len(), 1);
    let unmapped = chat(
        &proxy,
        &request("qwen3_coder/one_call", &placeholder_tools(), false),
    )
    .await;
    let unmapped = Assembled::from_completion(&unmapped.json().await.unwrap());
    assert!(unmapped.calls.is_empty());
    assert!(
        unmapped.content.unwrap().contains("<tool_call>"),
        "raw text as the model wrote it"
    );
}

/// Sends `as/FORMAT/FIXTURE/MODEL` streamed and whole and checks that
/// both are the fixture parsed in `format`.
async fn assert_rewritten_as(proxy: &ProxyProcess, model: &str, format: &str, fixture: &str) {
    let text = replay::fixture_text(format, fixture).unwrap();
    let tools = placeholder_tools();
    let model = format!("as/{format}/{fixture}/{model}");
    let chunks = read_sse(chat(proxy, &request(&model, &tools, true)).await).await;
    let streamed = Assembled::from_chunks(&chunks);
    streamed.assert_matches(format, &text, &tools, &format!("{model} streamed"));
    assert!(!streamed.calls.is_empty(), "{model}: calls");
    let whole: Value = chat(proxy, &request(&model, &tools, false))
        .await
        .json()
        .await
        .unwrap();
    Assembled::from_completion(&whole).assert_matches(format, &text, &tools, &model);
}

/// Sends `as/FORMAT/FIXTURE/MODEL` and checks that it came back as the
/// model wrote it: no calls, the markup in the content.
async fn assert_passed_through_as(proxy: &ProxyProcess, model: &str, format: &str, marker: &str) {
    let model = format!("as/{format}/one_call/{model}");
    let response = chat(proxy, &request(&model, &placeholder_tools(), false)).await;
    let passed = Assembled::from_completion(&response.json().await.unwrap());
    assert!(passed.calls.is_empty(), "{model}: {passed:?}");
    assert!(
        passed.content.unwrap().contains(marker),
        "{model}: raw text as the model wrote it"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_format_or_map_the_model_name_picks_the_format() {
    let (_replay, proxy) = setup(&[]).await;
    for (model, format, fixture) in [
        (
            "Qwen/Qwen3-Coder-30B-A3B-Instruct",
            "qwen3_coder",
            "two_calls",
        ),
        ("zai-org/GLM-4.5-Air", "glm45", "two_calls"),
        ("zai-org/GLM-4.7", "glm47", "two_calls"),
        (
            "ByteDance-Seed/Seed-OSS-36B-Instruct",
            "seed_oss",
            "one_call",
        ),
        ("openai/gpt-oss-120b", "openai", "two_calls"),
        ("NousResearch/Hermes-3-Llama-3.1-8B", "hermes", "one_call"),
        ("MiniMaxAI/MiniMax-M2", "minimax_m2", "one_call"),
        ("stepfun-ai/step3", "step3", "one_call"),
    ] {
        assert_rewritten_as(&proxy, model, format, fixture).await;
    }
    // A name that says no format: passed through, as with an unmapped
    // model under `--model-map`.
    assert_passed_through_as(&proxy, "my-org/my-model", "qwen3_coder", "<tool_call>").await;
    proxy.wait_for_log(|line| line.contains("POST /v1/chat/completions 200 passthrough"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_the_map_does_not_know_gets_the_format_its_name_says() {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("proxy-map-and-names.json");
    // The map wins over the name: this "GLM-4.7" is read as Qwen3-Coder
    // (by its name, its XML would be no call).
    std::fs::write(
        &path,
        r#"{"as/qwen3_coder/one_call/zai-org/GLM-4.7": "qwen3_coder"}"#,
    )
    .unwrap();
    let (_replay, proxy) = setup(&["--model-map", path.to_str().unwrap()]).await;
    assert_rewritten_as(&proxy, "zai-org/GLM-4.7", "qwen3_coder", "one_call").await;
    assert_rewritten_as(&proxy, "zai-org/GLM-4.7", "glm47", "one_call").await;
    assert_rewritten_as(
        &proxy,
        "deepseek-ai/DeepSeek-V3.1",
        "deepseek_v31",
        "one_call",
    )
    .await;
    assert_passed_through_as(&proxy, "my-model", "glm45", "<tool_call>").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vllm_ids_on_request() {
    let (_replay, proxy) = setup(&["--format", "qwen3_coder", "--ids", "vllm"]).await;
    let completion: Value = chat(
        &proxy,
        &request("qwen3_coder/one_call", &placeholder_tools(), false),
    )
    .await
    .json()
    .await
    .unwrap();
    let id = completion["choices"][0]["message"]["tool_calls"][0]["id"]
        .as_str()
        .unwrap();
    assert!(id.starts_with("chatcmpl-tool-") && id.len() == 30, "{id}");
}

#[test]
fn help_documents_every_flag_and_bad_flags_exit_2() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_toolcall"))
        .args(["proxy", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8(output.stdout).unwrap();
    for flag in [
        "--upstream",
        "--listen",
        "--format",
        "--model-map",
        "--ids",
        "--hold-calls",
        "--max-held-call",
        "--max-response-bytes",
        "--max-event-bytes",
        "--first-byte-timeout",
        "--idle-timeout",
        "--log-format",
        "--strict",
        "--max-body-bytes",
        "--connect-timeout",
        "--threads",
    ] {
        assert!(help.contains(flag), "{flag} missing from --help");
    }
    for args in [
        &["proxy", "--upstream", "ftp://x", "--format", "glm45"][..],
        &[
            "proxy",
            "--upstream",
            "http://127.0.0.1:1",
            "--format",
            "glm45",
            "--model-map",
            "/no/such/file",
        ][..],
        &[
            "proxy",
            "--upstream",
            "http://127.0.0.1:1",
            "--model-map",
            "/no/such/file",
        ][..],
    ] {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_toolcall"))
            .args(args)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn layout_whitespace_next_to_calls_is_not_content() {
    let (_replay, proxy) = setup(&["--format", "qwen3_coder"]).await;
    let model = "qwen3_coder/content_around_calls";
    let streamed = read_sse(chat(&proxy, &request(model, &placeholder_tools(), true)).await).await;
    let whole: Value = chat(&proxy, &request(model, &placeholder_tools(), false))
        .await
        .json()
        .await
        .unwrap();
    for assembled in [
        Assembled::from_chunks(&streamed),
        Assembled::from_completion(&whole),
    ] {
        // "Let me check both.\n\n<call>\nand then\n<call>\nDone.": the
        // newlines next to the calls are layout; the text keeps the
        // whitespace before it.
        assert_eq!(
            assembled.content.as_deref(),
            Some("Let me check both.\nand then\nDone.")
        );
        assert_eq!(assembled.calls.len(), 2);
    }
}

/// `--format-file` alone: the file's format is every model's. A copy of
/// Qwen3-Coder's description (`Format::to_toml`) reads every Qwen3-Coder
/// fixture as the built-in does, streamed and whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_format_file_is_every_models_format() {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("proxy-format-file.toml");
    std::fs::write(&path, toolcall_stream::Format::Qwen3Coder.to_toml()).unwrap();
    let (_replay, proxy) = setup(&["--format-file", path.to_str().unwrap()]).await;
    let mut checked = 0;
    for name in replay::fixture_names("qwen3_coder") {
        let text = replay::fixture_text("qwen3_coder", &name).unwrap();
        let tools = replay::fixture_tools("qwen3_coder", &name).unwrap_or_else(placeholder_tools);
        let model = format!("qwen3_coder/{name}");
        for stream in [true, false] {
            let response = chat(&proxy, &request(&model, &tools, stream)).await;
            assert_eq!(response.status(), 200, "{model}");
            let assembled = if stream {
                Assembled::from_chunks(&read_sse(response).await)
            } else {
                Assembled::from_completion(&response.json().await.unwrap())
            };
            assembled.assert_matches("qwen3_coder", &text, &tools, &format!("{model} {stream}"));
        }
        checked += 1;
    }
    assert!(checked > 30, "only {checked} fixtures");
}
