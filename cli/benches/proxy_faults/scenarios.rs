//! The soak's requests: what each one sends, and what the proxy promises
//! for it (docs/proxy.md, "Errors" and "Limits and timeouts").

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::kinds::{Kind, MIX};
use crate::support::client::{placeholder_tools, read_sse, request, Assembled};
use crate::support::slowloris::Slowloris;

/// How a request missed what the proxy promises.
pub enum Miss {
    /// Refused at `--max-connections` while a cap burst or a slow-head
    /// flood held every slot: that is the promise (503, or the connection
    /// closed on a client still writing, or a keep-alive connection closed
    /// to make room), so the request is sent again.
    Refused,
    Wrong(String),
}

pub type Outcome = Result<(), Miss>;

macro_rules! ensure {
    ($cond:expr, $($arg:tt)*) => {
        if !$cond {
            return Err(Miss::Wrong(format!($($arg)*)));
        }
    };
}

pub struct Fixture {
    pub format: &'static str,
    pub name: String,
    pub text: String,
    pub tools: Value,
}

/// What every request shares.
pub struct Ctx {
    pub url: String,
    /// `127.0.0.1:PORT`, for raw connections.
    pub addr: String,
    pub client: reqwest::Client,
    pub fixtures: Vec<Fixture>,
    pub max_body: usize,
    pub max_connections: usize,
    pub header_timeout: Duration,
    /// Whether a cap burst or a slow-head flood holds the slots, and when
    /// the last one ended.
    burst: Mutex<(bool, Option<Instant>)>,
    /// Per kind: the next fixture (or variant) to use, so that every
    /// fixture comes round.
    next: Vec<AtomicUsize>,
}

impl Ctx {
    pub fn new(url: &str, fixtures: Vec<Fixture>, max_body: usize, max_connections: usize) -> Ctx {
        Ctx {
            url: url.to_owned(),
            addr: url.trim_start_matches("http://").to_owned(),
            // Idle connections are dropped before the proxy's 2 s keep-alive
            // ends them, so that no request races a closing connection.
            client: reqwest::Client::builder()
                .no_proxy()
                .pool_idle_timeout(Duration::from_millis(1000))
                .build()
                .unwrap(),
            fixtures,
            max_body,
            max_connections,
            header_timeout: Duration::from_secs(2),
            burst: Mutex::new((false, None)),
            next: MIX.iter().map(|_| AtomicUsize::new(0)).collect(),
        }
    }

    /// A cap burst or a flood holds the slots now or did a moment ago.
    fn cap_full(&self) -> bool {
        let (active, ended) = *self.burst.lock().unwrap();
        active || ended.is_some_and(|at| at.elapsed() < Duration::from_secs(1))
    }

    /// What [`Ctx::cap_full`] goes by, for a failure's message.
    fn burst_state(&self) -> String {
        match *self.burst.lock().unwrap() {
            (true, _) => "a burst or flood under way".to_owned(),
            (false, Some(at)) => format!("the last burst or flood over {:?} ago", at.elapsed()),
            (false, None) => "no burst nor flood yet".to_owned(),
        }
    }

    fn set_burst(&self, active: bool) {
        *self.burst.lock().unwrap() = (active, Some(Instant::now()));
    }

    pub fn next_index(&self, kind: Kind) -> usize {
        let at = MIX.iter().position(|(k, _)| *k == kind).unwrap_or(0);
        self.next[at].fetch_add(1, Ordering::Relaxed)
    }

    pub(crate) async fn chat(&self, body: &Value) -> Result<reqwest::Response, Miss> {
        let sent = self
            .client
            .post(format!("{}/v1/chat/completions", self.url))
            .json(body)
            .send()
            .await;
        self.answered(sent).await
    }

    /// A response, unless the cap refused the request as promised.
    pub(crate) async fn answered(
        &self,
        sent: reqwest::Result<reqwest::Response>,
    ) -> Result<reqwest::Response, Miss> {
        let response = match sent {
            Ok(response) => response,
            Err(_) if self.cap_full() => return Err(Miss::Refused),
            Err(e) => return Err(Miss::Wrong(format!("request failed: {}", causes(&e)))),
        };
        if response.status() != 503 {
            return Ok(response);
        }
        let retry = response.headers().get("retry-after").cloned();
        let body = response.text().await.unwrap_or_default();
        let full = self.cap_full();
        ensure!(
            full && retry.is_some_and(|r| r == "1") && body.contains("server_overloaded"),
            "503 {}: {body}",
            if full {
                "not as promised"
            } else {
                "with no cap burst under way"
            }
        );
        Err(Miss::Refused)
    }

    /// A raw HTTP/1.1 exchange (what reqwest would normalise): status and
    /// body.
    pub(crate) async fn raw(&self, head: &str) -> Result<(u16, String), Miss> {
        let exchange = async {
            let mut stream = TcpStream::connect(&self.addr).await?;
            stream.write_all(head.as_bytes()).await?;
            let mut answer = Vec::new();
            // A reset after the answer still leaves the answer read.
            let _ = stream.read_to_end(&mut answer).await;
            Ok::<_, std::io::Error>(answer)
        };
        let answer = match tokio::time::timeout(Duration::from_secs(10), exchange).await {
            Err(_) => return Err(Miss::Wrong("no answer within 10 s".into())),
            Ok(Err(_)) if self.cap_full() => return Err(Miss::Refused),
            Ok(Err(e)) => return Err(Miss::Wrong(format!("raw exchange failed: {e}"))),
            // Closed unanswered to make room (not read yet while slow
            // heads held every slot).
            Ok(Ok(answer)) if answer.is_empty() && self.cap_full() => return Err(Miss::Refused),
            Ok(Ok(answer)) => String::from_utf8_lossy(&answer).into_owned(),
        };
        let status = answer.split(' ').nth(1).and_then(|c| c.parse().ok());
        let Some(status) = status else {
            return Err(Miss::Wrong(format!("not an HTTP answer: {answer:?}")));
        };
        if status == 503 && self.cap_full() && answer.contains("server_overloaded") {
            return Err(Miss::Refused);
        }
        let body = answer.split_once("\r\n\r\n").map_or("", |(_, b)| b);
        Ok((status, body.to_owned()))
    }

    /// A fixture answered as the library parses it.
    pub(crate) async fn normal(&self, fixture: &Fixture, prefix: &str, stream: bool) -> Outcome {
        let model = format!("{prefix}{}/{}", fixture.format, fixture.name);
        let response = self.chat(&request(&model, &fixture.tools, stream)).await?;
        ensure!(response.status() == 200, "{model}: {}", response.status());
        let assembled = if stream {
            Assembled::from_chunks(&read_sse(response).await)
        } else {
            Assembled::from_completion(&json(response).await?)
        };
        // A mismatch panics, which the soak counts as a failure.
        assembled.assert_matches(fixture.format, &fixture.text, &fixture.tools, &model);
        Ok(())
    }

    /// The proxy's own error answer: status and `error.type`.
    pub(crate) async fn error_answer(
        &self,
        model: &str,
        stream: bool,
        status: u16,
        kind: &str,
    ) -> Outcome {
        let fixture_tools = placeholder_tools();
        let response = self.chat(&request(model, &fixture_tools, stream)).await?;
        ensure!(
            response.status() == status,
            "{model}: {} not {status}",
            response.status()
        );
        let body = json(response).await?;
        ensure!(
            body["error"]["type"] == kind && body["error"]["message"].is_string(),
            "{model}: {body}"
        );
        Ok(())
    }

    /// A stream that ends with an error event of type `kind` and `[DONE]`:
    /// the chunks before it.
    pub(crate) async fn failed_stream(
        &self,
        model: &str,
        tools: &Value,
        kind: &str,
    ) -> Result<Vec<Value>, Miss> {
        let response = self.chat(&request(model, tools, true)).await?;
        ensure!(response.status() == 200, "{model}: {}", response.status());
        // Panics when the stream does not end with `[DONE]`.
        let mut values = read_sse(response).await;
        let error = values.pop().unwrap_or_default();
        ensure!(
            error["error"]["type"] == kind && error["error"]["message"].is_string(),
            "{model}: last event {error}, not a {kind} error"
        );
        Ok(values)
    }

    /// Reads `pieces` pieces of a stream, then goes away.
    pub(crate) async fn drop_mid_stream(
        &self,
        model: &str,
        tools: &Value,
        pieces: usize,
    ) -> Outcome {
        let response = self.chat(&request(model, tools, true)).await?;
        ensure!(response.status() == 200, "{model}: {}", response.status());
        let mut body = response.bytes_stream();
        for _ in 0..pieces {
            let piece = body.next().await;
            ensure!(
                matches!(piece, Some(Ok(_))),
                "{model}: the stream ended early"
            );
        }
        Ok(())
    }

    pub(crate) async fn oversize(&self, chunked: bool) -> Outcome {
        let size = 2 * self.max_body;
        // A client of its own: the proxy closes the connection after its
        // 413 without saying so, and a pooled client would send the next
        // request on it (see docs/proxy.md, "Fault soak").
        let client = reqwest::Client::builder().no_proxy().build().unwrap();
        let post = client.post(format!("{}/v1/chat/completions", self.url));
        let post = if chunked {
            let pieces = futures_util::stream::iter(
                (0..size / 65536).map(|_| Ok::<_, std::io::Error>(vec![b'x'; 65536])),
            );
            post.body(reqwest::Body::wrap_stream(pieces))
        } else {
            post.body(vec![b'x'; size])
        };
        let response = self.answered(post.send().await).await?;
        ensure!(
            response.status() == 413,
            "{size} bytes: {}",
            response.status()
        );
        let body = json(response).await?;
        ensure!(body["error"]["type"] == "invalid_request_error", "{body}");
        Ok(())
    }

    /// An endless body that is no event stream (`application/json`, no
    /// line end) to `stream: true`: promised an `upstream_stream_error`
    /// event and `[DONE]`, past `--max-event-bytes` at the latest, so
    /// within `limit` at loopback speed.
    pub async fn endless_body_stream(&self, limit: Duration) -> Outcome {
        let tools = placeholder_tools();
        let answer = self.failed_stream("fault/endless_body", &tools, "upstream_stream_error");
        match tokio::time::timeout(limit, answer).await {
            Ok(answer) => answer.map(drop),
            Err(_) => Err(Miss::Wrong(format!(
                "nothing after the head within {limit:?}: the proxy reads the endless body and sends no event"
            ))),
        }
    }

    /// A client that writes its head one byte every 500 ms: closed,
    /// unanswered, once `--header-read-timeout` is over (or before, to
    /// make room, while every slot is taken).
    pub async fn slowloris(&self) -> Outcome {
        // Before connecting: the proxy's clock may start before this task
        // sees the connection made.
        let start = Instant::now();
        let stream = match TcpStream::connect(&self.addr).await {
            Ok(stream) => stream,
            Err(e) => return Err(Miss::Wrong(format!("cannot connect: {e}"))),
        };
        let (mut read, mut write) = stream.into_split();
        let writer = tokio::spawn(async move {
            let head = b"POST /v1/chat/completions HTTP/1.1\r\nHost: proxy\r\nX-Slow: ";
            for byte in head.iter().chain(std::iter::repeat(&b'a')) {
                if write.write_all(&[*byte]).await.is_err() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        });
        let mut answer = Vec::new();
        let limit = self.header_timeout + Duration::from_secs(8);
        let read = tokio::time::timeout(limit, read.read_to_end(&mut answer)).await;
        writer.abort();
        let elapsed = start.elapsed();
        ensure!(read.is_ok(), "a slow head still open after {limit:?}");
        let answer = String::from_utf8_lossy(&answer);
        if answer.starts_with("HTTP/1.1 503") && self.cap_full() {
            return Err(Miss::Refused);
        }
        ensure!(answer.is_empty(), "a slow head was answered: {answer:?}");
        ensure!(
            elapsed + Duration::from_millis(100) >= self.header_timeout || self.cap_full(),
            "a slow head closed after {elapsed:?}, before --header-read-timeout, with slots free ({})",
            self.burst_state()
        );
        Ok(())
    }

    /// `--max-connections` + 4 connections at once that send nothing: a
    /// new client is served all the same (silent connections give way),
    /// and each is closed unanswered by `--header-read-timeout` (or gets
    /// the 503, should every other slot serve a request).
    pub async fn cap_burst(&self) -> Outcome {
        self.set_burst(true);
        let result = self.fill_the_cap().await;
        self.set_burst(false);
        result
    }

    async fn fill_the_cap(&self) -> Outcome {
        let count = self.max_connections + 4;
        let mut held = Vec::new();
        for _ in 0..count {
            match TcpStream::connect(&self.addr).await {
                Ok(stream) => held.push(stream),
                Err(e) => return Err(Miss::Wrong(format!("cannot connect: {e}"))),
            }
        }
        let limit = self.header_timeout + Duration::from_secs(8);
        let reads = held.into_iter().map(|mut stream| async move {
            let mut answer = Vec::new();
            let read = tokio::time::timeout(limit, stream.read_to_end(&mut answer)).await;
            (read.is_ok(), String::from_utf8_lossy(&answer).into_owned())
        });
        let reads = tokio::spawn(futures_util::future::join_all(reads));
        let served = self.new_client_served(&self.fixtures[0]).await;
        let closed = reads
            .await
            .map_err(|e| Miss::Wrong(format!("reading the silent connections: {e}")))?;
        served.map_err(|e| Miss::Wrong(format!("with every slot silent: {e}")))?;
        for (closed, answer) in closed {
            ensure!(closed, "a silent connection still open after {limit:?}");
            ensure!(
                answer.is_empty()
                    || answer.starts_with("HTTP/1.1 503")
                        && answer.to_ascii_lowercase().contains("retry-after: 1")
                        && answer.contains("server_overloaded"),
                "past the cap: {answer:?}"
            );
        }
        Ok(())
    }

    /// Twice `--max-connections` slow-header clients (a byte every 100 ms,
    /// connecting again when closed) for `length`: a new client is served
    /// every 250 ms all the while, and no slow head is answered.
    pub async fn slowloris_flood(&self, length: Duration) -> Outcome {
        self.set_burst(true);
        let result = self.flood(length).await;
        self.set_burst(false);
        result
    }

    async fn flood(&self, length: Duration) -> Outcome {
        let pace = Duration::from_millis(100);
        let mut attack = Slowloris::start(&self.addr, 2 * self.max_connections, pace);
        let end = Instant::now() + length;
        let mut served = 0;
        while Instant::now() < end {
            tokio::time::sleep(Duration::from_millis(250)).await;
            let fixture = &self.fixtures[served % self.fixtures.len()];
            self.new_client_served(fixture)
                .await
                .map_err(|e| Miss::Wrong(format!("during a slow-head flood: {e}")))?;
            served += 1;
        }
        attack.stop();
        ensure!(
            attack.answered() == 0,
            "{} slow head(s) answered",
            attack.answered()
        );
        ensure!(
            attack.connected() > 2 * self.max_connections as u64,
            "the flood never filled the slots: {} connections",
            attack.connected()
        );
        Ok(())
    }

    /// A whole answer to a client with a connection of its own, which no
    /// slot held by anything else may keep out: 200, as the library parses
    /// the fixture (a mismatch panics).
    async fn new_client_served(&self, fixture: &Fixture) -> Result<(), String> {
        let client = reqwest::Client::builder()
            .no_proxy()
            .pool_max_idle_per_host(0)
            .build()
            .unwrap();
        let model = format!("{}/{}", fixture.format, fixture.name);
        let response = client
            .post(format!("{}/v1/chat/completions", self.url))
            .json(&request(&model, &fixture.tools, false))
            .timeout(Duration::from_secs(10))
            .send()
            .await
            .map_err(|e| format!("{model}: {}", causes(&e)))?;
        let status = response.status();
        if status != 200 {
            let body = response.text().await.unwrap_or_default();
            return Err(format!("{model}: {status} {body}"));
        }
        let completion = response
            .json::<Value>()
            .await
            .map_err(|e| format!("{model}: {e}"))?;
        Assembled::from_completion(&completion).assert_matches(
            fixture.format,
            &fixture.text,
            &fixture.tools,
            &model,
        );
        Ok(())
    }
}

/// An error and its causes, which say what failed (reqwest's own message
/// does not).
pub fn causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

pub(crate) async fn json(response: reqwest::Response) -> Result<Value, Miss> {
    let bytes = response
        .bytes()
        .await
        .map_err(|e| Miss::Wrong(format!("body: {e}")))?;
    serde_json::from_slice(&bytes).map_err(|e| {
        let text = String::from_utf8_lossy(&bytes[..bytes.len().min(200)]).into_owned();
        Miss::Wrong(format!("not JSON ({e}): {text}"))
    })
}
