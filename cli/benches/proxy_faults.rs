//! `toolcall proxy` soaked in faults: for a bounded time, concurrent
//! clients mix normal requests over every fixture (streamed and whole,
//! each checked against the library's parse) with a misbehaving upstream
//! (the replay's `fault/…`, `malformed/…`, `hang`, `endless`) and
//! misbehaving clients (slow heads, clients gone mid-stream, path escapes,
//! oversized bodies, more connections than `--max-connections`, a flood
//! of slow heads while new clients must be served). Every
//! answer is checked against what the proxy promises (docs/proxy.md, "Errors" and
//! "Limits and timeouts").
//!
//! The proxy's RSS is sampled every 100 ms. Its peak must stay under a
//! bound from its own startup line: RSS at rest + concurrency × the
//! worst-case memory per stream it prints + [`ALLOWANCE`]. The bench fails
//! (exit status 1) past the bound, on any normal answer not as promised,
//! if the proxy dies or panics, if a stream is still open at the end, or
//! if, stopped (SIGTERM), it still holds more connections than the
//! clients may.
//!
//! Environment: `PROXY_FAULTS_SECONDS=180`, `PROXY_FAULTS_CONCURRENCY=12`
//! (clients sending requests at once, besides two slow-head clients, and
//! a cap burst, a slow-head flood and an endless body every 20 s),
//! `PROXY_FAULTS_ONLY=NAME` (only the kinds whose name in the summary
//! holds NAME, besides those five).

#[path = "../tests/support/mod.rs"]
mod support;

#[macro_use]
#[path = "proxy_faults/scenarios.rs"]
mod scenarios;

#[path = "proxy_faults/agents.rs"]
mod agents;

#[path = "proxy_faults/kinds.rs"]
mod kinds;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use kinds::Kind;
use scenarios::{Ctx, Fixture, Miss, Outcome};
use serde_json::{json, Value};
use support::client::placeholder_tools;
use support::proxy::ProxyProcess;
use support::replay;

/// The proxy's limits, small enough to be reached in seconds.
const MAX_EVENT_BYTES: usize = 1 << 20;
const MAX_RESPONSE_BYTES: usize = 4 << 20;
const MAX_BODY_BYTES: usize = 256 << 10;
const MAX_CONNECTIONS: usize = 64;
/// Above the per-stream figures: the runtime, hyper's buffers for up to
/// `MAX_CONNECTIONS` connections, and what the allocator keeps of memory
/// freed. A whole answer holds at most `MAX_RESPONSE_BYTES`, under one
/// stream's figure, so that figure bounds every request.
const ALLOWANCE: u64 = 32 << 20;
/// The longest a request may take before it counts as hung.
const HUNG: Duration = Duration::from_secs(30);
/// How often a cap burst, a slow-head flood and an endless body to a
/// stream are sent.
const EVERY: Duration = Duration::from_secs(20);

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// `VmRSS` and `VmHWM` (peak) of a process, in bytes.
fn memory(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map_or(0, |kb| kb * 1024)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1 << 20) as f64
}

#[derive(Default)]
struct KindStats {
    group: &'static str,
    count: u64,
    failed: u64,
    refused: u64,
    slowest: Duration,
}

#[derive(Default)]
struct Stats {
    kinds: Mutex<BTreeMap<&'static str, KindStats>>,
    failures: Mutex<Vec<String>>,
    failed: AtomicU64,
    fatal: AtomicU64,
    total: AtomicU64,
}

impl Stats {
    /// `group` `normal` or `check` (the proxy alive, streams let go of,
    /// nothing refused forwarded): the bench fails; a fault or a client
    /// answered otherwise than promised is reported.
    fn fail(&self, name: &str, group: &str, message: String) {
        self.failed.fetch_add(1, Ordering::Relaxed);
        if matches!(group, "normal" | "check") {
            self.fatal.fetch_add(1, Ordering::Relaxed);
        }
        let mut failures = self.failures.lock().unwrap();
        if failures.len() < 20 {
            eprintln!("proxy_faults: FAILED {name}: {message}");
            failures.push(format!("{name}: {message}"));
        }
    }

    /// Runs one request of a kind (again while the cap refuses it, as
    /// promised), each try in a task of its own so that a panic (a
    /// mismatch with the parse) is caught and counted, and counts it.
    async fn run<F, Fut>(&self, name: &'static str, group: &'static str, make: F)
    where
        F: Fn() -> Fut,
        Fut: std::future::Future<Output = Outcome> + Send + 'static,
    {
        let start = Instant::now();
        let mut refused = 0;
        let outcome = loop {
            let task = tokio::spawn(make());
            let abort = task.abort_handle();
            let outcome = match tokio::time::timeout(HUNG, task).await {
                Err(_) => {
                    abort.abort();
                    Err(Miss::Wrong(format!("no answer within {HUNG:?}")))
                }
                Ok(Err(e)) if e.is_panic() => {
                    let payload = e.into_panic();
                    let message = payload
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default();
                    Err(Miss::Wrong(message))
                }
                Ok(Err(e)) => Err(Miss::Wrong(e.to_string())),
                Ok(Ok(outcome)) => outcome,
            };
            match outcome {
                Err(Miss::Refused) if refused < 200 => {
                    refused += 1;
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err(Miss::Refused) => break Err("refused 200 times".to_owned()),
                Err(Miss::Wrong(message)) => break Err(message),
                Ok(()) => break Ok(()),
            }
        };
        self.total.fetch_add(1, Ordering::Relaxed);
        {
            let mut kinds = self.kinds.lock().unwrap();
            let entry = kinds.entry(name).or_default();
            entry.group = group;
            entry.count += 1;
            entry.refused += refused;
            entry.failed += u64::from(outcome.is_err());
            entry.slowest = entry.slowest.max(start.elapsed());
        }
        if let Err(message) = outcome {
            self.fail(name, group, message);
        }
    }
}

fn fixtures() -> Vec<Fixture> {
    let mut fixtures = Vec::new();
    for format in ["qwen3_coder", "glm45", "glm47"] {
        for name in replay::fixture_names(format) {
            let text = replay::fixture_text(format, &name).unwrap();
            let tools = replay::fixture_tools(format, &name).unwrap_or_else(placeholder_tools);
            fixtures.push(Fixture {
                format,
                name,
                text,
                tools,
            });
        }
    }
    fixtures
}

/// Each replay model that names a fixture, by its prefix; the rest (the
/// faults that make Qwen3-Coder text) as `qwen3_coder`.
fn model_map() -> String {
    let mut map = serde_json::Map::new();
    for format in ["qwen3_coder", "glm45", "glm47"] {
        for prefix in [
            "",
            "quirks/",
            "paced/20/",
            "fault/gzip/",
            "fault/deflate/",
            "fault/br/",
            "fault/zstd/",
            "fault/no_end/",
            "fault/stall/3/",
            "fault/slow_head/300/",
            "fault/slow_head/5000/",
        ] {
            map.insert(format!("{prefix}{format}/*"), json!(format));
        }
    }
    map.insert("*".into(), json!("qwen3_coder"));
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("proxy-faults-map.json");
    std::fs::write(&path, Value::Object(map).to_string()).unwrap();
    path.to_str().unwrap().to_owned()
}

/// The worst case per stream from the startup line (`at most 11.1 MiB of
/// memory per stream`), rounded up past its one decimal.
fn per_stream_bytes(line: &str) -> u64 {
    let figure = line
        .split("at most ")
        .nth(1)
        .and_then(|rest| rest.split(" MiB of memory per stream").next())
        .and_then(|n| n.parse::<f64>().ok())
        .unwrap_or_else(|| panic!("no memory per stream in {line:?}"));
    ((figure + 0.05) * (1 << 20) as f64) as u64
}

/// The proxy's gauge of streams open.
async fn open_streams(ctx: &Ctx) -> Option<u64> {
    let page = ctx
        .client
        .get(format!("{}/metrics", ctx.url))
        .send()
        .await
        .ok()?
        .text()
        .await
        .ok()?;
    page.lines()
        .find_map(|l| l.strip_prefix("toolcall_proxy_open_streams "))
        .and_then(|n| n.trim().parse::<f64>().ok())
        .map(|n| n as u64)
}

fn main() {
    // `cargo bench` passes `--bench`; another name means another bench.
    if std::env::args()
        .skip(1)
        .any(|arg| !arg.starts_with("--") && !"proxy_faults".contains(&arg))
    {
        return;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let passed = runtime.block_on(soak());
    drop(runtime);
    if !passed {
        std::process::exit(1);
    }
}

async fn soak() -> bool {
    let seconds = env_or("PROXY_FAULTS_SECONDS", 180);
    let concurrency = env_or("PROXY_FAULTS_CONCURRENCY", 12);
    let replay = replay::start().await;
    let map = model_map();
    let args = [
        "--model-map".to_owned(),
        map,
        format!("--max-event-bytes={MAX_EVENT_BYTES}"),
        format!("--max-response-bytes={MAX_RESPONSE_BYTES}"),
        format!("--max-body-bytes={MAX_BODY_BYTES}"),
        format!("--max-connections={MAX_CONNECTIONS}"),
        "--idle-timeout=2".to_owned(),
        "--first-byte-timeout=2".to_owned(),
        "--header-read-timeout=2".to_owned(),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut proxy = ProxyProcess::start(&replay.url(), &args);
    let pid = proxy.pid();
    let memory_line = proxy.wait_for_log(|line| line.contains("of memory per stream"));
    let per_stream = per_stream_bytes(&memory_line);
    let ctx = Arc::new(Ctx::new(
        &proxy.url,
        fixtures(),
        MAX_BODY_BYTES,
        MAX_CONNECTIONS,
    ));
    let stats = Arc::new(Stats::default());

    // One stream and one whole answer before the baseline, so that it
    // counts the runtime and connections, not the first request.
    for kind in [Kind::Stream, Kind::Whole] {
        let (ctx, (name, group)) = (ctx.clone(), kind.name());
        stats.run(name, group, || kind.run(ctx.clone(), 0)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let baseline = memory(pid).0;
    let bound = baseline + concurrency * per_stream + ALLOWANCE;
    println!(
        "proxy_faults: {seconds} s, {concurrency} clients at once, {} fixtures; the proxy's limits: --max-event-bytes {MAX_EVENT_BYTES} --max-response-bytes {MAX_RESPONSE_BYTES} --max-body-bytes {MAX_BODY_BYTES} --max-connections {MAX_CONNECTIONS}, 2 s timeouts",
        ctx.fixtures.len()
    );
    println!(
        "RSS bound: {:.1} MiB at rest + {concurrency} x {:.1} MiB per stream (the proxy's startup line) + {:.0} MiB allowance = {:.1} MiB",
        mib(baseline),
        mib(per_stream),
        mib(ALLOWANCE),
        mib(bound)
    );

    let sampling = Arc::new(AtomicBool::new(true));
    let peak = Arc::new(AtomicU64::new(baseline));
    let sampler = {
        let (sampling, peak) = (sampling.clone(), peak.clone());
        std::thread::spawn(move || {
            while sampling.load(Ordering::Relaxed) {
                peak.fetch_max(memory(pid).0, Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(100));
            }
        })
    };

    // Only the kinds whose name holds this (to reproduce one fault).
    let only = std::env::var("PROXY_FAULTS_ONLY").unwrap_or_default();
    let start = Instant::now();
    let deadline = start + Duration::from_secs(seconds);
    let mut tasks = Vec::new();
    for worker in 0..concurrency {
        let (ctx, stats, only) = (ctx.clone(), stats.clone(), only.clone());
        tasks.push(tokio::spawn(async move {
            // splitmix64: each client its own sequence, the same every run.
            let mut state = worker.wrapping_mul(0x9e37_79b9_7f4a_7c15);
            while Instant::now() < deadline {
                state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
                let mut z = state;
                z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                let kind = kinds::pick(z ^ (z >> 31));
                if !only.is_empty() && !kind.name().0.contains(only.as_str()) {
                    continue;
                }
                let i = ctx.next_index(kind);
                let (name, group) = kind.name();
                stats.run(name, group, || kind.run(ctx.clone(), i)).await;
            }
        }));
    }
    for _ in 0..2 {
        let (ctx, stats) = (ctx.clone(), stats.clone());
        tasks.push(tokio::spawn(async move {
            while Instant::now() < deadline {
                let ctx = ctx.clone();
                stats
                    .run("slow head (slowloris)", "client", move || {
                        let ctx = ctx.clone();
                        async move { ctx.slowloris().await }
                    })
                    .await;
            }
        }));
    }
    // Now and then, each on its own: every slot taken by silent
    // connections, then by slow heads coming back as they are closed, and
    // an endless body that is no event stream (the proxy reads it as fast
    // as it comes, so one at a time and briefly).
    for (name, group, offset) in [
        ("connections past the cap", "client", 0),
        ("new client in a slow-head flood", "normal", 5),
        ("endless body, stream", "fault", 10),
    ] {
        let (ctx, stats) = (ctx.clone(), stats.clone());
        tasks.push(tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(offset)).await;
            // None starts within 5 s of the end, nor sleeps past it.
            while Instant::now() + EVERY + Duration::from_secs(5) < deadline {
                tokio::time::sleep(EVERY).await;
                let ctx = ctx.clone();
                stats
                    .run(name, group, move || {
                        let ctx = ctx.clone();
                        async move {
                            match offset {
                                0 => ctx.cap_burst().await,
                                5 => ctx.slowloris_flood(Duration::from_secs(3)).await,
                                _ => ctx.endless_body_stream(Duration::from_secs(3)).await,
                            }
                        }
                    })
                    .await;
            }
        }));
    }
    // What reached the upstream: never a path escape nor an oversized
    // body. Drained as it comes, so that the replay's record stays small.
    let watcher = {
        let (recorder, stats) = (replay.recorder.clone(), stats.clone());
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_secs(1)).await;
                let requests = std::mem::take(&mut *recorder.requests.lock().unwrap());
                for request in requests {
                    if request.path.contains("admin") || request.body.len() > MAX_BODY_BYTES {
                        let what = format!(
                            "{} {} ({} bytes)",
                            request.method,
                            request.path,
                            request.body.len()
                        );
                        stats.fail(
                            "never forwarded",
                            "check",
                            format!("reached the upstream: {what}"),
                        );
                    }
                }
            }
        })
    };
    let progress = {
        let (stats, peak) = (stats.clone(), peak.clone());
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_secs(30)).await;
                println!(
                    "  {:>4.0} s: {} requests, {} failed; RSS {:.1} MiB, peak {:.1} MiB",
                    start.elapsed().as_secs_f64(),
                    stats.total.load(Ordering::Relaxed),
                    stats.failed.load(Ordering::Relaxed),
                    mib(memory(pid).0),
                    mib(peak.load(Ordering::Relaxed)),
                );
            }
        })
    };
    for task in tasks {
        if let Err(e) = task.await {
            stats.fail("bench", "check", format!("a client task failed: {e}"));
        }
    }
    progress.abort();
    let elapsed = start.elapsed();

    // Every stream let go of: the proxy's gauge back to 0.
    let mut open = None;
    for _ in 0..50 {
        open = open_streams(&ctx).await;
        if open == Some(0) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    if open != Some(0) {
        stats.fail(
            "open streams",
            "check",
            format!("still {open:?} open at the end"),
        );
    }
    tokio::time::sleep(Duration::from_secs(3)).await;
    watcher.abort();
    sampling.store(false, Ordering::Relaxed);
    sampler.join().unwrap();
    let (rss_end, hwm) = memory(pid);
    let peak = peak.load(Ordering::Relaxed).max(hwm);
    if let Some(status) = proxy.wait_exit(Duration::ZERO) {
        stats.fail("proxy", "check", format!("exited: {status}"));
    }
    if let Some(line) = proxy.log().iter().find(|l| l.contains("panicked")) {
        stats.fail("proxy", "check", format!("panicked: {line}"));
    }
    // Every connection's slot given back: at the stop, no more open than
    // the clients may still hold (the proxy's keep-alive ends in 2 s, the
    // clients' in 1 s), and every one finishes.
    proxy.terminate();
    let stopping = proxy.wait_for_log(|l| l.contains("shutting down"));
    let still_open = stopping
        .split(" for ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse::<u64>().ok());
    if still_open.is_none_or(|n| n > concurrency + 2) {
        stats.fail("slots", "check", format!("not given back: {stopping}"));
    }
    let stopped = proxy.wait_for_log(|l| l.contains("stopped: "));
    if !stopped.contains("every connection finished") {
        stats.fail("slots", "check", stopped);
    }

    report(&stats, elapsed);
    println!(
        "RSS: {:.1} MiB at rest, peak {:.1} MiB (VmHWM), {:.1} MiB at the end (3 s after the last request); bound {:.1} MiB",
        mib(baseline),
        mib(peak),
        mib(rss_end),
        mib(bound)
    );
    let mut passed = true;
    if peak > bound {
        println!(
            "FAIL: peak RSS {:.1} MiB over the bound {:.1} MiB",
            mib(peak),
            mib(bound)
        );
        passed = false;
    }
    let (failed, fatal) = (
        stats.failed.load(Ordering::Relaxed),
        stats.fatal.load(Ordering::Relaxed),
    );
    if failed > 0 {
        println!("{failed} answer(s) not as promised (the first 20):");
        for failure in stats.failures.lock().unwrap().iter() {
            println!("  {failure}");
        }
    }
    if fatal > 0 {
        println!("FAIL: {fatal} normal answer(s) wrong, or the proxy died, panicked, kept a stream open or forwarded what it refused");
        passed = false;
    }
    if passed {
        println!("PASS");
    }
    passed
}

fn report(stats: &Stats, elapsed: Duration) {
    let kinds = stats.kinds.lock().unwrap();
    println!(
        "{:<8} {:<26} {:>8} {:>7} {:>8} {:>9}",
        "group", "kind", "requests", "failed", "refused", "slowest"
    );
    for group in ["normal", "fault", "client"] {
        for (name, kind) in kinds.iter().filter(|(_, k)| k.group == group) {
            println!(
                "{group:<8} {name:<26} {:>8} {:>7} {:>8} {:>8.2}s",
                kind.count,
                kind.failed,
                kind.refused,
                kind.slowest.as_secs_f64()
            );
        }
    }
    let total: u64 = kinds.values().map(|k| k.count).sum();
    let refused: u64 = kinds.values().map(|k| k.refused).sum();
    println!(
        "{:<8} {:<26} {total:>8} {:>7} {refused:>8}   in {:.0} s ({:.1} requests/s); refused: sent again after a 503, or a connection closed to make room, during a cap burst or flood",
        "all",
        "",
        stats.failed.load(Ordering::Relaxed),
        elapsed.as_secs_f64(),
        total as f64 / elapsed.as_secs_f64()
    );
}
