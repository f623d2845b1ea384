//! `GET /metrics`: what the proxy counts, in Prometheus' text format.
//!
//! The `metrics` facade records from anywhere without passing a registry
//! around; `metrics-exporter-prometheus` renders it. Every name is
//! described here, in one place, so that `/metrics` documents itself.

use std::sync::OnceLock;
use std::time::Duration;

use metrics::{counter, describe_counter, describe_gauge, describe_histogram, gauge, histogram};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

pub const REQUESTS: &str = "toolcall_proxy_requests_total";
pub const TOOL_CALLS: &str = "toolcall_proxy_tool_calls_total";
pub const DIAGNOSTICS: &str = "toolcall_proxy_diagnostics_total";
pub const UPSTREAM_ERRORS: &str = "toolcall_proxy_upstream_errors_total";
pub const UPSTREAM_TIMEOUTS: &str = "toolcall_proxy_upstream_timeouts_total";
pub const FIRST_BYTE: &str = "toolcall_proxy_upstream_first_byte_seconds";
pub const ADDED_LATENCY: &str = "toolcall_proxy_added_latency_seconds";
pub const OPEN_STREAMS: &str = "toolcall_proxy_open_streams";
pub const PASSTHROUGHS: &str = "toolcall_proxy_chat_passthroughs_total";
pub const CONSTRAINTS: &str = "toolcall_proxy_constraints_total";

/// How often histogram samples are folded into their buckets.
const UPKEEP_EVERY: Duration = Duration::from_secs(1);

static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

/// Installs the recorder (once per process; a second call is a no-op).
pub fn install() {
    HANDLE.get_or_init(|| {
        let recorder = PrometheusBuilder::new()
            // Seconds from the upstream being asked to its answer's head:
            // a model's time to first token, up to --first-byte-timeout.
            .set_buckets_for_metric(
                Matcher::Full(FIRST_BYTE.to_owned()),
                &[
                    0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0,
                ],
            )
            .and_then(|builder| {
                // The proxy's own work on one read from the upstream:
                // microseconds, unless something is wrong.
                builder.set_buckets_for_metric(
                    Matcher::Full(ADDED_LATENCY.to_owned()),
                    &[
                        1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 5e-3, 0.025, 0.1,
                    ],
                )
            })
            .map(PrometheusBuilder::build_recorder)
            .ok()?;
        let handle = recorder.handle();
        metrics::set_global_recorder(recorder).ok()?;
        describe();
        // A histogram keeps each sample until upkeep folds it into its
        // buckets: without it, memory grows with every upstream read.
        let upkeep = handle.clone();
        let _ = std::thread::Builder::new()
            .name("metrics-upkeep".into())
            .spawn(move || loop {
                std::thread::sleep(UPKEEP_EVERY);
                upkeep.run_upkeep();
            });
        Some(handle)
    });
}

fn describe() {
    describe_counter!(
        REQUESTS,
        "Requests answered, by route (rewrite, rewrite_stream, passthrough, local) and outcome"
    );
    describe_counter!(
        TOOL_CALLS,
        "Complete tool calls the proxy made from model text"
    );
    describe_counter!(
        DIAGNOSTICS,
        "Recoveries reported while rewriting, by kind (the parser's and the proxy's own)"
    );
    describe_counter!(
        UPSTREAM_ERRORS,
        "Upstream failures, by kind (unreachable, invalid_response, too_large, stream_error, cut, error_event)"
    );
    describe_counter!(
        UPSTREAM_TIMEOUTS,
        "Upstream timeouts, by phase (first_byte, idle)"
    );
    describe_histogram!(
        FIRST_BYTE,
        metrics::Unit::Seconds,
        "Time from sending a request upstream to its response head"
    );
    describe_histogram!(
        ADDED_LATENCY,
        metrics::Unit::Seconds,
        "The proxy's own time on each read from an upstream stream (decode, parse, encode)"
    );
    describe_gauge!(OPEN_STREAMS, "Rewritten streams being sent now");
    describe_counter!(
        PASSTHROUGHS,
        "Chat completions passed through unparsed, by reason (no_tools, not_json, no_model, unknown_model)"
    );
    describe_counter!(
        CONSTRAINTS,
        "Requests seen by --constrain, by outcome (attached, tool_choice_none, client_constraint, unread_tool_choice, unsupported, unsatisfiable, no_tools, no_grammar, unknown_tool)"
    );
}

/// The page `GET /metrics` serves.
pub fn render() -> String {
    match HANDLE.get() {
        Some(Some(handle)) => handle.render(),
        _ => String::new(),
    }
}

pub fn request(route: &'static str, outcome: &'static str) {
    counter!(REQUESTS, "route" => route, "outcome" => outcome).increment(1);
}

pub fn tool_calls(count: usize) {
    if count > 0 {
        counter!(TOOL_CALLS).increment(count as u64);
    }
}

pub fn diagnostic(kind: &'static str) {
    counter!(DIAGNOSTICS, "kind" => kind).increment(1);
}

/// A chat completion passed through unparsed, and why.
pub fn passthrough(reason: &'static str) {
    counter!(PASSTHROUGHS, "reason" => reason).increment(1);
}

/// What `--constrain` did with a request.
pub fn constraint(outcome: &'static str) {
    counter!(CONSTRAINTS, "outcome" => outcome).increment(1);
}

pub fn upstream_error(kind: &'static str) {
    counter!(UPSTREAM_ERRORS, "kind" => kind).increment(1);
}

pub fn upstream_timeout(phase: &'static str) {
    counter!(UPSTREAM_TIMEOUTS, "phase" => phase).increment(1);
}

pub fn first_byte(elapsed: Duration) {
    histogram!(FIRST_BYTE).record(elapsed.as_secs_f64());
}

/// The histogram of the proxy's own time per upstream read: a stream
/// takes it once (each `histogram!` looks its key up).
pub fn added_latency() -> ::metrics::Histogram {
    histogram!(ADDED_LATENCY)
}

/// Counts a rewritten stream as open while it lives.
pub struct OpenStream(());

impl OpenStream {
    pub fn new() -> OpenStream {
        gauge!(OPEN_STREAMS).increment(1.0);
        OpenStream(())
    }
}

impl Drop for OpenStream {
    fn drop(&mut self) {
        gauge!(OPEN_STREAMS).decrement(1.0);
    }
}
