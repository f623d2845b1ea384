//! A small OpenAI-compatible upstream for the proxy's tests and load bench:
//! it replays recorded model outputs (`tests/fixtures/<format>/<name>.txt`)
//! as a model server would send them, token by token, and has modes for
//! the failures a proxy must survive.
//!
//! The request's `model` picks what is sent:
//!
//! | `model` | response |
//! |---|---|
//! | `<format>/<fixture>` | the fixture as content: SSE chunks of 1–7 bytes (`stream: true`), else one `chat.completion` |
//! | `as/<format>/<fixture>/<model name>` | the fixture as `<format>/<fixture>` sends it, for a request whose `model` ends in a real model's name (`as/glm47/one_call/zai-org/GLM-4.7`), which a proxy picking formats by name reads |
//! | `quirks/<format>/<fixture>` | the same stream with `:` comments, CRLF line ends, each JSON split over two `data:` lines and no blank line after the last event |
//! | `status/<code>` | that status with an OpenAI error body and an `x-replay-status` header |
//! | `malformed/bad_json` | a good chunk, then `data: {not json`, then a good chunk |
//! | `malformed/error_event` | a good chunk, then an error event (`data: {"error": …}`, as vLLM sends when generation fails), then `[DONE]` |
//! | `malformed/cut` | a good chunk, then the connection is cut mid-body |
//! | `paced/<ms>/<format>/<fixture>` | the stream with `ms` milliseconds between chunks (a model's pace), each chunk stamped with `x_sent_ns`, nanoseconds since [`clock_start`] when it was sent |
//! | `endless` | a chunk every few milliseconds, forever; the time the client went away is recorded |
//! | `fault/…` | the misbehaviours of [`faults`] |
//! | `agent/<format>`, `agent/<format>/cut` | the scripted agent model of [`agent_script`]: a shell call as raw text, then an answer quoting its result |
//! | `hang` | nothing, ever: the response's head never comes (a hung model server) |
//!
//! `GET /v1/models` lists the formats; any other path echoes the request
//! (method, path, query, headers, body) as JSON. Every request is recorded.

#![allow(dead_code)] // each test binary uses a different part

#[path = "agent_script.rs"]
pub mod agent_script;
#[path = "faults.rs"]
pub mod faults;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use axum::Router;
use bytes::Bytes;
use futures_util::StreamExt;
use serde_json::{json, Value};
use tokio::sync::Notify;

/// Where the fixtures are (this package is the repository's `cli/`).
pub fn fixtures_dir() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures")).to_path_buf()
}

/// A fixture's text as the model would have sent it: a JSON string holds
/// no invalid UTF-8, so invalid bytes become U+FFFD, as a server's
/// detokenizer makes them. `prose/<words>` is no file: that many words of
/// plain text in sentences and paragraphs (an answer without calls, for
/// the cost bench).
pub fn fixture_text(format: &str, name: &str) -> Option<String> {
    if format == "prose" {
        return name.parse().ok().map(prose);
    }
    let bytes = std::fs::read(fixtures_dir().join(format).join(format!("{name}.txt"))).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// `words` words of text: sentences of 12 words, paragraphs of 4 sentences.
pub fn prose(words: usize) -> String {
    const WORDS: [&str; 8] = [
        "the", "model", "answers", "with", "plain", "text", "and", "numbers",
    ];
    let mut text = String::new();
    for i in 0..words {
        text.push_str(WORDS[(i * 7 + i / 8) % WORDS.len()]);
        text.push_str(match i % 48 {
            47 => ".\n\n",
            n if n % 12 == 11 => ". ",
            _ => " ",
        });
    }
    text.trim_end().to_owned()
}

/// The fixture's `tools` (`NAME.tools.json` beside it), if it has one.
pub fn fixture_tools(format: &str, name: &str) -> Option<Value> {
    let text = std::fs::read_to_string(
        fixtures_dir()
            .join(format)
            .join(format!("{name}.tools.json")),
    );
    text.ok().and_then(|text| serde_json::from_str(&text).ok())
}

/// Every fixture of a format, by name (without `.txt`), sorted.
pub fn fixture_names(format: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fixtures_dir().join(format))
        .map(|dir| {
            dir.filter_map(|entry| entry.ok())
                .filter_map(|entry| entry.file_name().to_str().map(str::to_owned))
                .filter_map(|name| name.strip_suffix(".txt").map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// One request as the replay server received it.
#[derive(Clone, Debug)]
pub struct Received {
    pub method: String,
    pub path: String,
    pub headers: HeaderMap,
    pub body: Bytes,
}

#[derive(Default)]
pub struct Recorder {
    pub requests: Mutex<Vec<Received>>,
    /// When an `endless` stream's client went away.
    pub endless_dropped: Mutex<Option<Instant>>,
    pub endless_dropped_notify: Notify,
    /// Time between two `endless` chunks.
    pub endless_interval: Mutex<Duration>,
}

pub struct Replay {
    pub addr: SocketAddr,
    pub recorder: Arc<Recorder>,
}

impl Replay {
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Waits until an `endless` stream's client has gone away.
    pub async fn endless_cancelled(&self) {
        loop {
            let notified = self.recorder.endless_dropped_notify.notified();
            if self.recorder.endless_dropped.lock().unwrap().is_some() {
                return;
            }
            notified.await;
        }
    }

    pub fn requests(&self) -> Vec<Received> {
        self.recorder.requests.lock().unwrap().clone()
    }
}

/// Starts the server on `127.0.0.1:0`, on the current tokio runtime.
pub async fn start() -> Replay {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let recorder = Arc::new(Recorder {
        endless_interval: Mutex::new(Duration::from_millis(5)),
        ..Recorder::default()
    });
    let app = Router::new()
        .route("/v1/models", get(models))
        .route("/v1/chat/completions", any(chat))
        .fallback(echo)
        .with_state(recorder.clone());
    // As a model server does (uvicorn, for one): every chunk at once.
    let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
        let _ = tcp.set_nodelay(true);
    });
    tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    Replay { addr, recorder }
}

async fn record(recorder: &Recorder, request: Request) -> Received {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    let received = Received {
        method: parts.method.to_string(),
        path: parts
            .uri
            .path_and_query()
            .map_or("/", |p| p.as_str())
            .to_owned(),
        headers: parts.headers,
        body,
    };
    recorder.requests.lock().unwrap().push(received.clone());
    received
}

async fn models(State(recorder): State<Arc<Recorder>>, request: Request) -> Response {
    record(&recorder, request).await;
    let data: Vec<Value> = ["qwen3_coder", "glm45", "glm47"]
        .iter()
        .map(|id| json!({"id": id, "object": "model", "created": 1_700_000_000, "owned_by": "replay"}))
        .collect();
    let mut response = axum::Json(json!({"object": "list", "data": data})).into_response();
    response
        .headers_mut()
        .insert("x-replay", "models".parse().unwrap());
    response
}

async fn echo(State(recorder): State<Arc<Recorder>>, request: Request) -> Response {
    let received = record(&recorder, request).await;
    let headers: serde_json::Map<String, Value> = received
        .headers
        .iter()
        .map(|(name, value)| (name.to_string(), json!(value.to_str().unwrap_or("?"))))
        .collect();
    let body = json!({
        "method": received.method,
        "path": received.path,
        "headers": headers,
        "body": String::from_utf8_lossy(&received.body),
    });
    let mut response = (StatusCode::IM_A_TEAPOT, body.to_string()).into_response();
    response
        .headers_mut()
        .insert("x-replay", "echo".parse().unwrap());
    response
}

async fn chat(State(recorder): State<Arc<Recorder>>, request: Request) -> Response {
    let received = record(&recorder, request).await;
    let request: Value = serde_json::from_slice(&received.body).unwrap_or(Value::Null);
    let model = request["model"].as_str().unwrap_or("").to_owned();
    let stream = request["stream"].as_bool() == Some(true);
    let usage = request["stream_options"]["include_usage"].as_bool() == Some(true);
    let parts: Vec<&str> = model.split('/').collect();
    match parts.as_slice() {
        ["status", code] => error_status(code),
        ["malformed", "bad_json"] => sse(Box::pin(futures_util::stream::iter(
            [
                frame(&chunk(
                    &model,
                    json!({"role": "assistant", "content": "Hi"}),
                    None,
                )),
                "data: {not json\n\n".to_owned(),
                frame(&chunk(&model, json!({"content": " there"}), None)),
                "data: [DONE]\n\n".to_owned(),
            ]
            .map(|text| Ok::<_, std::io::Error>(Bytes::from(text))),
        ))),
        ["malformed", "error_event"] => sse(Box::pin(futures_util::stream::iter(
            [
                frame(&chunk(&model, json!({"role": "assistant", "content": "Hi"}), None)),
                frame(&json!({"error": {"message": "replayed failure", "type": "internal_error", "code": 500}})),
                "data: [DONE]\n\n".to_owned(),
            ]
            .map(|text| Ok::<_, std::io::Error>(Bytes::from(text))),
        ))),
        ["malformed", "cut"] => {
            let first = frame(&chunk(
                &model,
                json!({"role": "assistant", "content": "Hi"}),
                None,
            ));
            // The error waits one turn: the server then writes the head
            // and the first chunk before the body fails and it drops the
            // connection (an error at once would drop it unanswered).
            let cut = futures_util::stream::once(async {
                tokio::task::yield_now().await;
                Err(std::io::Error::other("replay cuts the connection"))
            });
            let pieces = futures_util::stream::once(async { Ok(Bytes::from(first)) }).chain(cut);
            sse(Box::pin(pieces))
        }
        ["endless"] => endless(recorder.clone(), model),
        ["fault", rest @ ..] => faults::respond(rest, &model, stream, usage).await,
        ["agent", rest @ ..] => agent_script::respond(rest, &model, &request),
        ["hang"] => hang().await,
        ["paced", millis, format, name] => {
            let Some(text) = fixture_text(format, name) else {
                return (StatusCode::NOT_FOUND, "no such fixture").into_response();
            };
            let pause = Duration::from_millis(millis.parse().unwrap_or(20));
            paced(&model, &text, pause)
        }
        [format, name] | ["quirks", format, name] | ["as", format, name, _, ..] => {
            let Some(text) = fixture_text(format, name) else {
                return (StatusCode::NOT_FOUND, "no such fixture").into_response();
            };
            let quirks = parts[0] == "quirks";
            if stream {
                let body = stream_body(&model, &text, usage, quirks);
                sse(Box::pin(futures_util::stream::iter(
                    body.into_iter()
                        .map(|text| Ok::<_, std::io::Error>(Bytes::from(text))),
                )))
            } else {
                axum::Json(completion(&model, &text)).into_response()
            }
        }
        _ => (
            StatusCode::NOT_FOUND,
            format!("replay has no model {model:?}"),
        )
            .into_response(),
    }
}

fn error_status(code: &str) -> Response {
    let status = code
        .parse::<u16>()
        .ok()
        .and_then(|code| StatusCode::from_u16(code).ok())
        .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let body = json!({"error": {"message": format!("replayed {code}"), "type": "replay", "param": null, "code": code}});
    let mut response = (status, body.to_string()).into_response();
    response
        .headers_mut()
        .insert("x-replay-status", code.parse().unwrap());
    response
}

type Pieces =
    std::pin::Pin<Box<dyn futures_util::Stream<Item = Result<Bytes, std::io::Error>> + Send>>;

fn sse(pieces: Pieces) -> Response {
    let mut response = Response::new(Body::from_stream(pieces));
    response
        .headers_mut()
        .insert("content-type", "text/event-stream".parse().unwrap());
    response
        .headers_mut()
        .insert("x-replay", "stream".parse().unwrap());
    response
}

const CREATED: u64 = 1_700_000_000;

pub fn chunk(model: &str, delta: Value, finish_reason: Option<&str>) -> Value {
    json!({
        "id": "chatcmpl-replay",
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": model,
        "system_fingerprint": "fp_replay",
        "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish_reason}],
    })
}

fn frame(value: &Value) -> String {
    format!("data: {value}\n\n")
}

/// Token-like pieces of 1 to 7 bytes (on character boundaries), the same
/// every run: markers end up split across chunks.
pub fn tokens(text: &str) -> Vec<&str> {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15 ^ text.len() as u64;
    let mut pieces = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let mut len = ((state >> 33) % 7 + 1) as usize;
        while len < rest.len() && !rest.is_char_boundary(len) {
            len += 1;
        }
        let (piece, tail) = rest.split_at(len.min(rest.len()));
        pieces.push(piece);
        rest = tail;
    }
    pieces
}

/// A model's output as a server without a tool parser streams it: the
/// role, the text token by token, then the last chunk with `stop`.
fn content_chunks(model: &str, text: &str) -> Vec<Value> {
    let mut events = vec![chunk(
        model,
        json!({"role": "assistant", "content": ""}),
        None,
    )];
    for token in tokens(text) {
        events.push(chunk(model, json!({"content": token}), None));
    }
    events.push(chunk(model, json!({}), Some("stop")));
    events
}

/// The whole SSE body for a fixture: role, content tokens, the last chunk,
/// usage when asked, `[DONE]`.
pub fn stream_body(model: &str, text: &str, usage: bool, quirks: bool) -> Vec<String> {
    let mut events = content_chunks(model, text);
    if usage {
        let mut last = chunk(model, json!({}), None);
        last["choices"] = json!([]);
        last["usage"] = json!({"prompt_tokens": 10, "completion_tokens": 20, "total_tokens": 30});
        events.push(last);
    }
    let mut body: Vec<String> = if quirks {
        events.iter().map(quirky_frame).collect()
    } else {
        events.iter().map(frame).collect()
    };
    if quirks {
        // No blank line after the last event: the body just ends.
        body.push("data: [DONE]".to_owned());
    } else {
        body.push("data: [DONE]\n\n".to_owned());
    }
    body
}

/// An event as odd but valid servers write it: a comment, CRLF, the JSON
/// over two `data:` lines (joined by the reader with a newline, which JSON
/// takes as whitespace).
fn quirky_frame(value: &Value) -> String {
    let json = serde_json::to_string_pretty(value).unwrap();
    let mut frame = ": keep-alive\r\n".to_owned();
    for (i, line) in json.lines().enumerate() {
        // Both spellings: `data: x` and `data:x`.
        let space = if i % 2 == 0 { " " } else { "" };
        frame.push_str(&format!("data:{space}{line}\r\n"));
    }
    frame.push_str("\r\n");
    frame
}

pub fn completion(model: &str, text: &str) -> Value {
    json!({
        "id": "chatcmpl-replay",
        "object": "chat.completion",
        "created": CREATED,
        "model": model,
        "system_fingerprint": "fp_replay",
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": text, "reasoning_content": "thought"},
            "logprobs": null,
            "finish_reason": "stop",
        }],
        "usage": {"prompt_tokens": 10, "completion_tokens": 20, "total_tokens": 30},
        "service_tier": "replayed",
    })
}

/// Records when it is dropped: the response body was dropped, so the
/// client (the proxy) went away.
struct DropSignal(Arc<Recorder>);

impl Drop for DropSignal {
    fn drop(&mut self) {
        *self.0.endless_dropped.lock().unwrap() = Some(Instant::now());
        self.0.endless_dropped_notify.notify_waiters();
    }
}

fn endless(recorder: Arc<Recorder>, model: String) -> Response {
    let interval = *recorder.endless_interval.lock().unwrap();
    let signal = DropSignal(recorder);
    let first = frame(&chunk(
        &model,
        json!({"role": "assistant", "content": "Thinking"}),
        None,
    ));
    let ticks = futures_util::stream::unfold((signal, model), move |(signal, model)| async move {
        tokio::time::sleep(interval).await;
        let piece = frame(&chunk(&model, json!({"content": " and"}), None));
        Some((Ok::<_, std::io::Error>(Bytes::from(piece)), (signal, model)))
    });
    let body = futures_util::stream::once(async move { Ok(Bytes::from(first)) }).chain(ticks);
    sse(Box::pin(body))
}

/// A server that took the request and never answers.
async fn hang() -> Response {
    std::future::pending().await
}

/// The clock `x_sent_ns` counts from: whoever reads the stamps in this
/// process (the load bench) compares them with the same clock.
pub fn clock_start() -> Instant {
    static START: OnceLock<Instant> = OnceLock::new();
    *START.get_or_init(Instant::now)
}

/// Nanoseconds since [`clock_start`].
pub fn clock_now_ns() -> u64 {
    u64::try_from(clock_start().elapsed().as_nanos()).unwrap_or(u64::MAX)
}

fn paced(model: &str, text: &str, pause: Duration) -> Response {
    let events = content_chunks(model, text);
    let events = futures_util::stream::iter(events.into_iter().map(Some).chain([None]));
    let body = events.then(move |event| async move {
        tokio::time::sleep(pause).await;
        let text = match event {
            Some(mut event) => {
                event["x_sent_ns"] = json!(clock_now_ns());
                frame(&event)
            }
            None => "data: [DONE]\n\n".to_owned(),
        };
        Ok::<_, std::io::Error>(Bytes::from(text))
    });
    sse(Box::pin(body))
}
