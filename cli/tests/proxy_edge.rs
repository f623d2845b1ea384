//! `toolcall proxy` at its edges: the paths it forwards, the upstream and
//! listen addresses it takes, slow and surplus connections, and stopping.
//! Timeouts here only guard against a hang; the proxy's own are set short
//! by flags and every wait on them has tens of seconds of slack.

mod support;

use std::time::Duration;

use serde_json::{json, Value};
use support::proxy::{ProxyProcess, TIMEOUT};
use support::replay::{self, Replay};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

fn client() -> reqwest::Client {
    reqwest::Client::builder().no_proxy().build().unwrap()
}

/// `127.0.0.1:PORT` from `http://127.0.0.1:PORT`.
fn addr(proxy: &ProxyProcess) -> String {
    proxy.url.trim_start_matches("http://").to_owned()
}

/// A raw HTTP/1.1 exchange, for what reqwest would normalise (`..`,
/// `%2e`, `CONNECT`): the status and the body.
async fn raw(addr: &str, head: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    // A reset after the answer still leaves the answer read.
    let _ = tokio::time::timeout(TIMEOUT, stream.read_to_end(&mut answer))
        .await
        .expect("no answer in time");
    let text = String::from_utf8_lossy(&answer).into_owned();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP answer: {text:?}"));
    let body = text
        .split_once("\r\n\r\n")
        .map_or("", |(_, b)| b)
        .to_owned();
    (status, body)
}

fn get(path: &str) -> String {
    format!("GET {path} HTTP/1.1\r\nHost: proxy\r\nConnection: close\r\n\r\n")
}

fn assert_invalid_request(body: &str, what: &str) {
    let error: Value =
        serde_json::from_str(body).unwrap_or_else(|_| panic!("{what}: not JSON: {body:?}"));
    assert_eq!(
        error["error"]["type"], "invalid_request_error",
        "{what}: {error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_path_leaves_the_upstreams_base_path() {
    let replay = replay::start().await;
    let proxy = ProxyProcess::start(&format!("{}/echo/v1", replay.url()), &["--format", "glm45"]);
    let addr = addr(&proxy);
    let variants = [
        "/../admin",
        "/%2e%2e/%2e%2e/admin",
        "/%2E%2E/%2E%2E/admin",
        "/.%2e/admin",
        "/%2e./admin",
        "/./admin",
        "/%2e/admin",
        "/v1/../../admin",
        "/v1/./models",
        "/%252e%252e/%252e%252e/admin",
        "/%25252e%25252e/admin",
        "/v1/..%2f..%2fadmin",
        "/v1/%2e%2e%2F%2e%2e%2Fadmin",
        "/v1/..%5c..%5cadmin",
        "/v1/%5c..%5cadmin",
        "/..;/..;/admin",
        "/%c0%ae%c0%ae/admin",
        "/%ef%bc%8e%ef%bc%8e/admin",
        "/v1/%00",
    ];
    for path in variants {
        let (status, body) = raw(&addr, &get(path)).await;
        assert_eq!(status, 400, "{path}: {body}");
        assert_invalid_request(&body, path);
    }
    // A backslash is no valid request-target: refused before any route.
    let (status, _) = raw(&addr, &get("/v1\\..\\..\\admin")).await;
    assert_eq!(status, 400);
    // CONNECT and the asterisk form are never forwarded.
    let (status, body) = raw(
        &addr,
        "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert_eq!(status, 405, "{body}");
    assert_invalid_request(&body, "CONNECT");
    let (status, body) = raw(
        &addr,
        "OPTIONS * HTTP/1.1\r\nHost: proxy\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert_invalid_request(&body, "OPTIONS *");
    assert!(
        replay.requests().is_empty(),
        "refused requests reached the upstream: {:?}",
        replay.requests()
    );
    proxy.wait_for_log(|line| line.contains("GET /%2e%2e/%2e%2e/admin 400"));

    // What stays inside is forwarded, under the base less its /v1.
    for (path, upstream_path) in [
        ("/v1/files/x?q=%2e%2e", "/echo/v1/files/x?q=%2e%2e"),
        ("/v1/models/Qwen%2FQwen3", "/echo/v1/models/Qwen%2FQwen3"),
        ("/health", "/echo/health"),
    ] {
        let (status, body) = raw(&addr, &get(path)).await;
        assert_eq!(status, 418, "{path}: {body}");
        let echo: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(echo["path"], upstream_path);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upstream_with_v1_and_userinfo_and_a_host_name_to_listen_on() {
    let replay = replay::start().await;
    let upstream = format!("http://user:s3cret@{}/v1", replay.addr);
    let proxy = ProxyProcess::start_with(None, &upstream, "localhost:0", &["--format", "glm45"]);
    let line = proxy.wait_for_log(|line| line.contains("listening on"));
    assert!(!line.contains("s3cret"), "the password was printed: {line}");
    let expected = format!("goes to http://{}/v1/chat/completions", replay.addr);
    assert!(line.contains(&expected), "{line}");
    // Not /v1/v1/models.
    let response = client()
        .get(format!("{}/v1/models", proxy.url))
        .timeout(TIMEOUT)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["x-replay"], "models");
    let response = client()
        .post(format!("{}/v1/chat/completions", proxy.url))
        .json(&json!({"model": "status/429", "messages": []}))
        .timeout(TIMEOUT)
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["x-replay-status"], "429");
    let paths: Vec<String> = replay.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, ["/v1/models", "/v1/chat/completions"]);
}

#[test]
fn bad_listen_and_upstream_addresses_are_usage_errors() {
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_toolcall"))
        .args(["proxy", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    for flag in [
        "--header-read-timeout",
        "--max-connections",
        "--shutdown-grace",
    ] {
        assert!(help.contains(flag), "{flag} missing from --help");
    }
    for args in [
        &["--upstream", "http://127.0.0.1:1", "--listen", "no-port"][..],
        &[
            "--upstream",
            "http://127.0.0.1:1",
            "--listen",
            "999.1.1.1:80",
        ][..],
        &["--upstream", "http://127.0.0.1:1/v1?key=k"][..],
        &["--upstream", "http://127.0.0.1:1", "--max-connections", "0"][..],
        &[
            "--upstream",
            "http://127.0.0.1:1",
            "--header-read-timeout",
            "0",
        ][..],
    ] {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_toolcall"))
            .arg("proxy")
            .args(args)
            .args(["--format", "glm45"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(!stderr.contains("key=k"), "{stderr}");
    }
}

/// Opens `n` connections that send nothing.
async fn silent_connections(addr: &str, n: usize) -> Vec<TcpStream> {
    let mut connections = Vec::new();
    for _ in 0..n {
        connections.push(TcpStream::connect(addr).await.unwrap());
    }
    connections
}

/// Retries a GET until it is answered 200: a freed connection slot is
/// seen by the proxy a moment after the client closes.
async fn eventually_ok(url: &str) {
    let deadline = tokio::time::Instant::now() + TIMEOUT;
    loop {
        let response = client().get(url).timeout(TIMEOUT).send().await;
        if response.is_ok_and(|r| r.status() == 200) {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{url} never answered 200"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// `n` requests the upstream never answers, each holding a slot and an
/// upstream connection; aborted when dropped.
async fn hung_requests(proxy: &ProxyProcess, replay: &Replay, n: usize) -> Vec<AbortOnDrop> {
    let before = replay.requests().len();
    let hung = (0..n)
        .map(|_| {
            let url = format!("{}/v1/chat/completions", proxy.url);
            AbortOnDrop(tokio::spawn(async move {
                let _ = client()
                    .post(url)
                    .json(&json!({"model": "hang", "messages": []}))
                    .send()
                    .await;
            }))
        })
        .collect();
    wait_for_request(replay, before + n).await;
    hung
}

struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_the_cap_a_silent_connection_gives_way_and_requests_in_flight_do_not() {
    let replay = replay::start().await;
    // The head timeout is long: only the cap is under test here.
    let proxy = ProxyProcess::start(
        &replay.url(),
        &[
            "--format",
            "glm45",
            "--max-connections",
            "4",
            "--header-read-timeout",
            "120",
        ],
    );
    let addr = addr(&proxy);
    // Every slot held by a connection that sends nothing: a new one is
    // served in the slot of one of them, which is closed unanswered.
    let held = silent_connections(&addr, 4).await;
    let (status, body) = raw(&addr, &get("/v1/models")).await;
    assert_eq!(status, 200, "{body}");
    let reads = held.into_iter().map(|mut stream| {
        Box::pin(async move {
            let mut answer = Vec::new();
            let _ = stream.read_to_end(&mut answer).await;
            answer
        })
    });
    let (answer, _, still_open) =
        tokio::time::timeout(TIMEOUT, futures_util::future::select_all(reads))
            .await
            .expect("no silent connection was closed");
    assert!(answer.is_empty(), "{answer:?}");
    proxy.wait_for_log(|line| line.contains("closed 1 connection(s) waiting for a request head"));
    drop(still_open);
    // Every slot serving a request: a new connection gets 503 at once.
    let _hung = hung_requests(&proxy, &replay, 4).await;
    let (status, body) = raw(&addr, &get("/v1/models")).await;
    assert_eq!(status, 503, "{body}");
    let error: Value = serde_json::from_str(&body).unwrap();
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("--max-connections"),
        "{error}"
    );
    proxy.wait_for_log(|line| line.contains("refused 1 connection(s) with 503"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_request_heads_are_closed_and_logged() {
    let replay = replay::start().await;
    let proxy = ProxyProcess::start(
        &replay.url(),
        &["--format", "glm45", "--header-read-timeout", "1"],
    );
    let addr = addr(&proxy);
    let mut closed = Vec::new();
    for _ in 0..3 {
        let stream = TcpStream::connect(&addr).await.unwrap();
        let (mut read, mut write) = stream.into_split();
        // A header byte every 200 ms: the head is never complete.
        let writer = tokio::spawn(async move {
            let _ = write
                .write_all(b"GET /v1/models HTTP/1.1\r\nX-Slow: ")
                .await;
            loop {
                tokio::time::sleep(Duration::from_millis(200)).await;
                if write.write_all(b"a").await.is_err() {
                    break;
                }
            }
        });
        closed.push(tokio::spawn(async move {
            let mut buf = [0u8; 256];
            let read = tokio::time::timeout(TIMEOUT, read.read(&mut buf)).await;
            writer.abort();
            matches!(read, Ok(Ok(0)) | Ok(Err(_)))
        }));
    }
    for closed in closed {
        assert!(closed.await.unwrap(), "a slow connection was not closed");
    }
    proxy.wait_for_log(|line| {
        line.contains("connection(s) that sent no complete request head within 1s")
    });
    eventually_ok(&format!("{}/v1/models", proxy.url)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_default_cap_stays_inside_the_open_file_limit() {
    let replay = replay::start().await;
    let proxy = ProxyProcess::start_with(
        Some(100),
        &replay.url(),
        "127.0.0.1:0",
        &["--format", "glm45", "--header-read-timeout", "120"],
    );
    let line = proxy.wait_for_log(|line| line.contains("(--max-connections"));
    let cap: usize = line
        .split("at most ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no cap in {line:?}"));
    // 44 kept back, and at least stdio and the listener open: each
    // connection may hold itself, an upstream and an idle upstream.
    assert!((1..=(100 - 44 - 4) / 3).contains(&cap), "{line}");
    let addr = addr(&proxy);
    // Far more silent connections than slots: they give way to each other
    // and to a request.
    let held = silent_connections(&addr, 60).await;
    let (status, _) = raw(&addr, &get("/v1/models")).await;
    assert_eq!(status, 200);
    drop(held);
    // Every slot serving, each with its upstream connection, and more
    // clients: refused, never out of descriptors.
    let _hung = hung_requests(&proxy, &replay, cap).await;
    let held = silent_connections(&addr, 60).await;
    let (status, _) = raw(&addr, &get("/v1/models")).await;
    assert_eq!(status, 503);
    proxy.wait_for_log(|line| line.contains(&format!("with 503: {cap} already open")));
    drop(held);
    for line in proxy.log() {
        assert!(
            !line.contains("cannot accept") && !line.contains("upstream_unreachable"),
            "{line}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn out_of_descriptors_the_server_waits_and_recovers() {
    let replay = replay::start().await;
    // A cap above what 48 descriptors allow: accepting fails (EMFILE).
    let proxy = ProxyProcess::start_with(
        Some(48),
        &replay.url(),
        "127.0.0.1:0",
        &[
            "--format",
            "glm45",
            "--max-connections",
            "1000",
            "--header-read-timeout",
            "120",
        ],
    );
    let held = silent_connections(&addr(&proxy), 80).await;
    proxy.wait_for_log(|line| line.contains("cannot accept connections"));
    drop(held);
    eventually_ok(&format!("{}/v1/models", proxy.url)).await;
}

async fn wait_for_request(replay: &Replay, count: usize) {
    let deadline = tokio::time::Instant::now() + TIMEOUT;
    while replay.requests().len() < count {
        assert!(
            tokio::time::Instant::now() < deadline,
            "no request upstream"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_cuts_a_hung_request_after_the_grace() {
    let replay = replay::start().await;
    let mut proxy = ProxyProcess::start(
        &replay.url(),
        &["--format", "glm45", "--shutdown-grace", "1"],
    );
    let url = format!("{}/v1/chat/completions", proxy.url);
    let hung = tokio::spawn(async move {
        client()
            .post(url)
            .json(&json!({"model": "hang", "messages": []}))
            .timeout(TIMEOUT)
            .send()
            .await
    });
    wait_for_request(&replay, 1).await;
    proxy.terminate();
    let status = tokio::task::block_in_place(|| proxy.wait_exit(TIMEOUT));
    let status = status.expect("the proxy was still running long after its grace");
    assert!(status.success(), "{status:?}");
    proxy.wait_for_log(|line| line.contains("shutting down"));
    proxy.wait_for_log(|line| line.contains("cut 1 connection(s) still open"));
    let answer = hung.await.unwrap();
    assert!(
        answer.is_err(),
        "the hung request got an answer: {answer:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_lets_a_stream_in_flight_finish() {
    let replay = replay::start().await;
    let mut proxy = ProxyProcess::start(&replay.url(), &["--format", "qwen3_coder"]);
    let response = client()
        .post(format!("{}/v1/chat/completions", proxy.url))
        .json(
            &json!({"model": "paced/10/qwen3_coder/typed_ladder", "stream": true,
            "messages": []}),
        )
        .timeout(TIMEOUT)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let mut body = response.bytes_stream();
    use futures_util::StreamExt;
    let first = body.next().await.expect("no first chunk").unwrap();
    assert!(first.starts_with(b"data: "));
    proxy.terminate();
    proxy.wait_for_log(|line| line.contains("shutting down"));
    // No new connection once draining.
    assert!(TcpStream::connect(addr(&proxy)).await.is_err());
    let mut rest = Vec::new();
    while let Some(piece) = body.next().await {
        rest.extend_from_slice(&piece.expect("the stream was cut"));
    }
    let rest = String::from_utf8(rest).unwrap();
    assert!(rest.trim_end().ends_with("data: [DONE]"), "{rest}");
    let status = tokio::task::block_in_place(|| proxy.wait_exit(TIMEOUT));
    assert!(status.expect("the proxy did not exit").success());
    proxy.wait_for_log(|line| line.contains("every connection finished"));
}
