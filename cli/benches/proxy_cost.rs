//! The proxy's own CPU per upstream chunk, against a plain forwarder of the
//! same SSE: `cargo bench -p toolcall-cli --bench proxy_cost`.
//!
//! Method. One replay upstream (in this process) and, in front of it, two
//! processes: `toolcall proxy` and the floor, a forwarder that does no work
//! of its own on the stream. The floor is nginx (`proxy_buffering off`,
//! one process, upstream keep-alive) when `nginx` is installed, else this
//! binary re-executed as a TCP copy loop (tokio, one thread). The same
//! clients read the same streams through each, in turns (floor, proxy,
//! floor, …), so that both see the same load on the machine. Each process's
//! CPU is its utime + stime from `/proc/PID/stat`, summed over its turns and
//! divided by the upstream chunks it carried; the figure is the proxy's per
//! chunk over the floor's. Wall time is not used: the clients, the upstream
//! and both processes share this machine's cores.
//!
//! Regimes:
//! - paced: 32 streams, a chunk every 1 ms on each (as a model emits
//!   them), starts spread over 1 ms: each upstream read is about one chunk,
//!   and syscalls dominate;
//! - burst: 8 streams, the upstream writes every chunk at once: reads
//!   batch many chunks, and the proxy's own decode, parse and encode of
//!   each chunk dominate.
//!
//! Each regime runs over two texts: `prose/400` (400 words of plain text:
//! every chunk passes) and `qwen3_coder/typed_ladder` (one call with 16
//! typed parameters, streamed as it is parsed, the proxy's default: most
//! chunks change on the way, and a typed value is held until it ends).
//!
//! The agent routes (`/v1/responses`, `/v1/messages`) read the same
//! upstream streams through the proxy, after the chat route's turn in each
//! round: their columns are the proxy's CPU per upstream chunk on them, and
//! their ratio is to the chat route's (the goal: within 1.2×).
//!
//! Environment: `PROXY_COST_ROUNDS=12,60` (turns per process in the paced
//! and the burst regime), `PROXY_COST_REGIMES=paced,burst`,
//! `PROXY_COST_TEXTS=prose/400,qwen3_coder/typed_ladder`, `PROXY_COST_FLOOR=nginx|copy` (default: nginx if
//! found), `PROXY_COST_BIN` (another `toolcall` binary, e.g. one built
//! before a change), `PROXY_COST_PROXY_ARGS` (more flags for the proxy),
//! `PROXY_COST_ROUTES=responses,messages` (the agent routes measured; empty
//! for none).
//! With `PROXY_COST_FORWARD=HOST:PORT` the binary is the copy-loop floor.

#[path = "support/process.rs"]
mod process;
#[path = "../tests/support/replay.rs"]
mod replay;

use std::io::Write;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use eventsource_stream::Eventsource;
use futures_util::StreamExt;
use serde_json::{json, Value};

use process::{cpu_seconds, env_or, listening_url, ticks_per_second};

/// A child process, killed when dropped.
struct Server {
    child: Child,
    url: String,
    name: String,
    _dir: Option<TempDir>,
}

impl Drop for Server {
    fn drop(&mut self) {
        // SIGTERM first: a profiler wrapped around the proxy (through
        // `PROXY_COST_BIN`) writes its profile when the proxy exits.
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        for _ in 0..100 {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn start_proxy(upstream: &str) -> Server {
    let binary = std::env::var("PROXY_COST_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_toolcall").to_owned());
    let mut child = Command::new(&binary)
        .args(["proxy", "--upstream", upstream, "--listen", "127.0.0.1:0"])
        .args(["--format", "qwen3_coder"])
        .args(env_or("PROXY_COST_PROXY_ARGS", "").split_whitespace())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {binary}: {e}"));
    let url = listening_url(&mut child);
    Server {
        child,
        url,
        name: "toolcall proxy".to_owned(),
        _dir: None,
    }
}

fn nginx_binary() -> Option<String> {
    let path = env_or("PATH", "/usr/bin:/bin");
    let found = path
        .split(':')
        .chain(["/usr/sbin", "/usr/local/sbin", "/usr/local/nginx/sbin"])
        .map(|dir| format!("{dir}/nginx"))
        .find(|candidate| std::path::Path::new(candidate).is_file());
    found
}

fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// nginx as a plain reverse proxy of the SSE: unbuffered, one process (no
/// master, so that one PID holds all its CPU), keep-alive to the upstream.
fn start_nginx(binary: &str, upstream: &str) -> Server {
    let dir = std::env::temp_dir().join(format!("proxy_cost_nginx_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let port = free_port();
    let upstream = upstream.trim_start_matches("http://");
    let d = dir.display();
    let conf = format!(
        "daemon off; master_process off; worker_processes 1; pid {d}/nginx.pid;
error_log {d}/error.log crit;
events {{ worker_connections 4096; }}
http {{
  access_log off;
  client_body_temp_path {d}/body; proxy_temp_path {d}/proxy;
  fastcgi_temp_path {d}/fastcgi; uwsgi_temp_path {d}/uwsgi; scgi_temp_path {d}/scgi;
  upstream replay {{ server {upstream}; keepalive 64; }}
  server {{
    listen 127.0.0.1:{port};
    location / {{
      proxy_pass http://replay;
      proxy_http_version 1.1;
      proxy_set_header Connection \"\";
      proxy_buffering off;
    }}
  }}
}}
"
    );
    let path = dir.join("nginx.conf");
    std::fs::File::create(&path)
        .and_then(|mut file| file.write_all(conf.as_bytes()))
        .unwrap();
    let mut child = Command::new(binary)
        .args(["-p", &dir.display().to_string(), "-c"])
        .arg(&path)
        .args(["-e", &format!("{d}/error.log")])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {binary}: {e}"));
    let url = format!("http://127.0.0.1:{port}");
    for _ in 0..200 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Server {
                child,
                url,
                name: "nginx".to_owned(),
                _dir: Some(TempDir(dir)),
            };
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("nginx did not listen on {port}: see {d}/error.log");
}

/// This binary as the copy-loop floor.
fn start_copy(upstream: &str) -> Server {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .env("PROXY_COST_FORWARD", upstream.trim_start_matches("http://"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot start the forwarder");
    let url = listening_url(&mut child);
    Server {
        child,
        url,
        name: "copy loop".to_owned(),
        _dir: None,
    }
}

/// The floor without nginx: each connection copied both ways to the
/// upstream, byte for byte, on one thread.
fn forward(upstream: String) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        eprintln!(
            "listening on http://{}, forwarding",
            listener.local_addr().unwrap()
        );
        loop {
            let Ok((mut client, _)) = listener.accept().await else {
                continue;
            };
            let upstream = upstream.clone();
            tokio::spawn(async move {
                let _ = client.set_nodelay(true);
                let Ok(mut server) = tokio::net::TcpStream::connect(&upstream).await else {
                    return;
                };
                let _ = server.set_nodelay(true);
                let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
            });
        }
    });
}

/// The chat tools' functions, each written as `tool(name, parameters)`.
fn functions(tools: &Value, tool: impl Fn(&Value, &Value) -> Value) -> Vec<Value> {
    let functions = tools.as_array().into_iter().flatten();
    functions
        .map(|t| tool(&t["function"]["name"], &t["function"]["parameters"]))
        .collect()
}

/// Which API a turn's clients speak.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Route {
    Chat,
    Responses,
    Messages,
}

impl Route {
    fn path(self) -> &'static str {
        match self {
            Route::Chat => "/v1/chat/completions",
            Route::Responses => "/v1/responses",
            Route::Messages => "/v1/messages",
        }
    }

    /// The request for `model`'s stream, with the typed tools.
    fn body(self, model: &str) -> Value {
        let tools = tools();
        match self {
            Route::Chat => json!({"model": model, "messages": [{"role": "user", "content": "go"}],
                                  "tools": tools, "stream": true}),
            Route::Responses => {
                let tools = functions(
                    &tools,
                    |name, parameters| json!({"type": "function", "name": name, "parameters": parameters}),
                );
                json!({"model": model, "input": "go", "tools": tools, "stream": true, "store": false})
            }
            Route::Messages => {
                let tools = functions(
                    &tools,
                    |name, parameters| json!({"name": name, "input_schema": parameters}),
                );
                json!({"model": model, "max_tokens": 4096, "tools": tools, "stream": true,
                       "messages": [{"role": "user", "content": "go"}]})
            }
        }
    }

    /// Whether `event` (its data) ends the stream.
    fn ends(self, data: &str) -> bool {
        match self {
            Route::Chat => data == "[DONE]",
            Route::Responses => {
                data.contains("\"type\":\"response.completed\"")
                    || data.contains("\"type\":\"response.failed\"")
                    || data.contains("\"type\":\"response.incomplete\"")
            }
            Route::Messages => {
                data.contains("\"type\":\"message_stop\"") || data.contains("\"type\":\"error\"")
            }
        }
    }
}

/// One turn: `streams` clients each read one stream of `model`; the
/// events they saw before the end (for the chat route: the upstream's
/// chunks, each rewritten).
async fn turn(
    client: &reqwest::Client,
    base: &str,
    streams: usize,
    models: &[String],
    stagger: Duration,
) -> usize {
    turn_on(Route::Chat, client, base, streams, models, stagger).await
}

async fn turn_on(
    route: Route,
    client: &reqwest::Client,
    base: &str,
    streams: usize,
    models: &[String],
    stagger: Duration,
) -> usize {
    let tasks: Vec<_> = (0..streams)
        .map(|i| {
            let delay = stagger.mul_f64(i as f64 / streams as f64);
            let client = client.clone();
            let url = format!("{base}{}", route.path());
            let model = &models[i % models.len()];
            let body = route.body(model);
            tokio::spawn(async move {
                tokio::time::sleep(delay).await;
                let response = client
                    .post(url)
                    .json(&body)
                    .send()
                    .await
                    .expect("request failed");
                assert!(response.status().is_success(), "{}", response.status());
                let mut events = response.bytes_stream().eventsource();
                let mut chunks = 0;
                while let Some(event) = events.next().await {
                    if route.ends(&event.expect("bad SSE").data) {
                        break;
                    }
                    chunks += 1;
                }
                chunks
            })
        })
        .collect();
    let mut chunks = 0;
    for task in tasks {
        chunks += task.await.expect("client task failed");
    }
    chunks
}

fn tools() -> Value {
    replay::fixture_tools("qwen3_coder", "typed_ladder").unwrap_or_else(|| json!([]))
}

struct Regime {
    name: &'static str,
    streams: usize,
    /// `None`: every chunk at once.
    pace_ms: Option<u64>,
    rounds: usize,
}

fn main() {
    if let Ok(upstream) = std::env::var("PROXY_COST_FORWARD") {
        forward(upstream);
        return;
    }
    // `cargo bench` passes `--bench`; a filter other than ours means
    // another bench was asked for.
    if std::env::args()
        .skip(1)
        .any(|arg| !arg.starts_with("--") && !"proxy_cost".contains(&arg))
    {
        return;
    }
    let rounds: Vec<usize> = env_or("PROXY_COST_ROUNDS", "12,60")
        .split(',')
        .filter_map(|n| n.trim().parse().ok())
        .collect();
    let regimes = [
        Regime {
            name: "paced",
            streams: 32,
            pace_ms: Some(1),
            rounds: rounds.first().copied().unwrap_or(12),
        },
        Regime {
            name: "burst",
            streams: 8,
            pace_ms: None,
            rounds: rounds.get(1).copied().unwrap_or(60),
        },
    ];
    let only = env_or("PROXY_COST_REGIMES", "paced,burst");
    let texts = env_or("PROXY_COST_TEXTS", "prose/400,qwen3_coder/typed_ladder");
    let texts: Vec<&str> = texts.split(',').collect();
    let routes: Vec<Route> = env_or("PROXY_COST_ROUTES", "responses,messages")
        .split(',')
        .filter_map(|name| match name.trim() {
            "responses" => Some(Route::Responses),
            "messages" => Some(Route::Messages),
            _ => None,
        })
        .collect();
    let ticks = ticks_per_second();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let replay = replay::start().await;
        let upstream = replay.url();
        let floor = match (env_or("PROXY_COST_FLOOR", "").as_str(), nginx_binary()) {
            ("copy", _) | ("", None) => start_copy(&upstream),
            (_, Some(nginx)) => start_nginx(&nginx, &upstream),
            (_, None) => panic!("PROXY_COST_FLOOR=nginx, but no nginx is installed"),
        };
        let proxy = start_proxy(&upstream);
        let client = reqwest::Client::builder().no_proxy().build().unwrap();
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        println!(
            "proxy_cost: toolcall proxy against {} (the floor), CPU per upstream chunk, {cores} cores",
            floor.name
        );
        println!(
            "{:>6} {:>26} {:>7} {:>8} | {:>11} {:>11} | {:>6} | {:>13} {:>6} | {:>12} {:>6}",
            "regime",
            "text",
            "streams",
            "chunks",
            "floor µs",
            "proxy µs",
            "ratio",
            "responses µs",
            "/chat",
            "messages µs",
            "/chat"
        );
        for regime in regimes.iter().filter(|r| only.contains(r.name)) {
            for &text in &texts {
                let (model, stagger) = match regime.pace_ms {
                    Some(ms) => (format!("paced/{ms}/{text}"), Duration::from_millis(ms)),
                    None => (text.to_owned(), Duration::ZERO),
                };
                let models = [model];
                // Warm both up (connections, allocator).
                for server in [&floor, &proxy] {
                    turn(&client, &server.url, regime.streams, &models, stagger).await;
                }
                for &route in &routes {
                    turn_on(route, &client, &proxy.url, regime.streams, &models, stagger).await;
                }
                let mut cpu = [0.0f64; 2];
                // The proxy's CPU on each agent route, in `routes`' order.
                let mut agent_cpu = vec![0.0f64; routes.len()];
                let mut chunks = 0;
                for _ in 0..regime.rounds {
                    for (at, server) in [&floor, &proxy].into_iter().enumerate() {
                        let pid = server.child.id();
                        let before = cpu_seconds(pid, ticks);
                        let seen =
                            turn(&client, &server.url, regime.streams, &models, stagger).await;
                        cpu[at] += cpu_seconds(pid, ticks) - before;
                        if at == 0 {
                            // The floor forwards every upstream chunk.
                            chunks += seen;
                        }
                    }
                    for (at, &route) in routes.iter().enumerate() {
                        let pid = proxy.child.id();
                        let before = cpu_seconds(pid, ticks);
                        turn_on(route, &client, &proxy.url, regime.streams, &models, stagger)
                            .await;
                        agent_cpu[at] += cpu_seconds(pid, ticks) - before;
                    }
                }
                let per_chunk = |seconds: f64| seconds * 1e6 / chunks.max(1) as f64;
                let [floor_us, proxy_us] = cpu.map(per_chunk);
                let column = |route: Route| {
                    routes.iter().position(|&r| r == route).map_or_else(
                        || format!("{:>13} {:>6}", "-", "-"),
                        |at| {
                            let us = per_chunk(agent_cpu[at]);
                            format!("{us:>13.2} {:>6.2}", us / proxy_us)
                        },
                    )
                };
                println!(
                    "{:>6} {:>26} {:>7} {:>8} | {floor_us:>11.2} {proxy_us:>11.2} | {:>6.2} | {} | {}",
                    regime.name,
                    text,
                    regime.streams,
                    chunks,
                    proxy_us / floor_us,
                    column(Route::Responses),
                    column(Route::Messages).trim_start_matches(' ').to_owned(),
                );
            }
        }
    });
}
