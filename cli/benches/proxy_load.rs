//! `toolcall proxy` under load: N concurrent streaming clients (1, 64, 512
//! by default) in front of the replay upstream, which paces its chunks like
//! a model (20 ms apart) and stamps each with the time it was sent.
//!
//! Reported per N:
//! - added latency per chunk: the time from the upstream sending a chunk to
//!   the client reading it, through the proxy, minus the same straight from
//!   the upstream (p50 and p99 of each; a chunk the parser held is
//!   stamped by the upstream chunk that released it, so holding a possible
//!   marker is not counted, only the proxy's own delay);
//! - the proxy's CPU time per MB of upstream SSE (from /proc/PID/stat);
//! - its memory per stream: peak RSS during the run less RSS before, / N.
//!
//! The clients, the upstream and the proxy share this machine's cores, so
//! the figures are an upper bound for the proxy alone.
//!
//! Environment: `PROXY_LOAD_STREAMS=1,64,512`, `PROXY_LOAD_PACE_MS=20`,
//! `PROXY_LOAD_FIXTURE=qwen3_coder/typed_ladder`, `PROXY_LOAD_STAGGER=1`
//! (streams start spread over one pace interval, as independent clients
//! would; `0`: all at once, so that every chunk of every stream comes in
//! one burst, the worst case), `PROXY_LOAD_PROXY_ARGS` (more flags for
//! the proxy, e.g. `--threads 1`).

#[path = "support/process.rs"]
mod process;
#[path = "../tests/support/replay.rs"]
mod replay;

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use eventsource_stream::Eventsource;
use futures_util::StreamExt;
use serde_json::{json, Value};

use process::{cpu_seconds, env_or, listening_url, ticks_per_second};

struct Proxy {
    child: Child,
    url: String,
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_proxy(upstream: &str) -> Proxy {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolcall"))
        .args([
            "proxy",
            "--upstream",
            upstream,
            "--listen",
            "127.0.0.1:0",
            "--format",
            "qwen3_coder",
        ])
        .args(env_or("PROXY_LOAD_PROXY_ARGS", "").split_whitespace())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot start toolcall proxy");
    let url = listening_url(&mut child);
    Proxy { child, url }
}

/// What the clients of one run saw.
#[derive(Default)]
struct Run {
    /// Upstream send to client read, per stamped chunk, in nanoseconds.
    latencies: Vec<u64>,
    bytes: usize,
    chunks: usize,
    seconds: f64,
}

/// `stagger`: the streams start spread over one pace interval, as
/// independent clients would, instead of all at once (every chunk of every
/// stream then arrives in the same burst).
async fn run(base: &str, streams: usize, model: &str, tools: &Value, stagger: Duration) -> Run {
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let start = Instant::now();
    let tasks: Vec<_> = (0..streams)
        .map(|i| {
            let delay = stagger.mul_f64(i as f64 / streams as f64);
            let client = client.clone();
            let url = format!("{base}/v1/chat/completions");
            let body = json!({"model": model, "messages": [{"role": "user", "content": "go"}],
                              "tools": tools, "stream": true});
            tokio::spawn(async move {
                tokio::time::sleep(delay).await;
                let response = client
                    .post(url)
                    .json(&body)
                    .send()
                    .await
                    .expect("request failed");
                assert!(response.status().is_success(), "{}", response.status());
                let mut run = Run::default();
                let mut bytes = 0;
                let mut events = response
                    .bytes_stream()
                    .inspect(|piece| bytes += piece.as_ref().map_or(0, |p| p.len()))
                    .eventsource();
                while let Some(event) = events.next().await {
                    let now = replay::clock_now_ns();
                    let event = event.expect("bad SSE");
                    if event.data == "[DONE]" {
                        break;
                    }
                    let chunk: Value = serde_json::from_str(&event.data).expect("bad JSON");
                    run.chunks += 1;
                    if let Some(sent) = chunk["x_sent_ns"].as_u64() {
                        run.latencies.push(now.saturating_sub(sent));
                    }
                }
                drop(events);
                run.bytes = bytes;
                run
            })
        })
        .collect();
    let mut total = Run::default();
    for task in tasks {
        let run = task.await.expect("client task failed");
        total.latencies.extend(run.latencies);
        total.bytes += run.bytes;
        total.chunks += run.chunks;
    }
    total.seconds = start.elapsed().as_secs_f64();
    total.latencies.sort_unstable();
    total
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let at = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[at] as f64 / 1e6
}

fn rss_bytes(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| {
            value
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        })
        .map_or(0, |kb| kb * 1024)
}

fn main() {
    // `cargo bench` passes `--bench`; a filter other than ours means
    // another bench was asked for.
    if std::env::args()
        .skip(1)
        .any(|arg| !arg.starts_with("--") && !"proxy_load".contains(&arg))
    {
        return;
    }
    let streams: Vec<usize> = env_or("PROXY_LOAD_STREAMS", "1,64,512")
        .split(',')
        .filter_map(|n| n.trim().parse().ok())
        .collect();
    let pace: u64 = env_or("PROXY_LOAD_PACE_MS", "20").parse().unwrap_or(20);
    let fixture = env_or("PROXY_LOAD_FIXTURE", "qwen3_coder/typed_ladder");
    let (format, name) = fixture
        .split_once('/')
        .expect("PROXY_LOAD_FIXTURE is FORMAT/NAME");
    let tools = replay::fixture_tools(format, name).unwrap_or_else(|| {
        json!([{"type": "function", "function": {"name": "placeholder", "parameters": {"type": "object"}}}])
    });
    let model = format!("paced/{pace}/{fixture}");
    let stagger = match env_or("PROXY_LOAD_STAGGER", "1").as_str() {
        "0" => Duration::ZERO,
        _ => Duration::from_millis(pace),
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let ticks = ticks_per_second();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        replay::clock_start();
        let replay = replay::start().await;
        let proxy = start_proxy(&replay.url());
        let pid = proxy.child.id();
        // Warm both paths up (connections, allocator).
        run(&replay.url(), 8, &model, &tools, stagger).await;
        run(&proxy.url, 8, &model, &tools, stagger).await;
        println!(
            "proxy_load: {fixture}, a chunk every {pace} ms, streams {}, {cores} cores; latency in ms",
            if stagger.is_zero() { "all at once" } else { "staggered" },
        );
        println!(
            "{:>7} {:>7} | {:>8} {:>8} | {:>8} {:>8} | {:>9} {:>9} | {:>10} | {:>11}",
            "streams", "chunks", "direct50", "direct99", "proxy50", "proxy99", "added50", "added99",
            "cpu ms/MB", "KB/stream"
        );
        for &n in &streams {
            let direct = run(&replay.url(), n, &model, &tools, stagger).await;
            let rss_before = rss_bytes(pid);
            let cpu_before = cpu_seconds(pid, ticks);
            let peak = Arc::new(std::sync::atomic::AtomicU64::new(rss_before));
            let sampling = Arc::new(std::sync::atomic::AtomicBool::new(true));
            let sampler = {
                let (peak, sampling) = (peak.clone(), sampling.clone());
                std::thread::spawn(move || {
                    while sampling.load(std::sync::atomic::Ordering::Relaxed) {
                        peak.fetch_max(rss_bytes(pid), std::sync::atomic::Ordering::Relaxed);
                        std::thread::sleep(Duration::from_millis(5));
                    }
                })
            };
            let through = run(&proxy.url, n, &model, &tools, stagger).await;
            sampling.store(false, std::sync::atomic::Ordering::Relaxed);
            sampler.join().unwrap();
            let cpu = cpu_seconds(pid, ticks) - cpu_before;
            let peak = peak.load(std::sync::atomic::Ordering::Relaxed);
            let per_stream_kb = peak.saturating_sub(rss_before) as f64 / 1024.0 / n as f64;
            let upstream_mb = direct.bytes as f64 / 1e6;
            let (d50, d99) = (percentile(&direct.latencies, 0.5), percentile(&direct.latencies, 0.99));
            let (p50, p99) = (percentile(&through.latencies, 0.5), percentile(&through.latencies, 0.99));
            println!(
                "{n:>7} {:>7} | {d50:>8.3} {d99:>8.3} | {p50:>8.3} {p99:>8.3} | {:>9.3} {:>9.3} | {:>10.1} | {per_stream_kb:>11.1}",
                through.chunks,
                p50 - d50,
                p99 - d99,
                cpu * 1000.0 / upstream_mb,
            );
            println!(
                "        upstream {:.2} MB in {:.1} s direct, {:.1} s through the proxy; proxy CPU {:.2} s; RSS {:.1} -> {:.1} MB",
                upstream_mb,
                direct.seconds,
                through.seconds,
                cpu,
                rss_before as f64 / 1e6,
                peak as f64 / 1e6
            );
        }
    });
}
