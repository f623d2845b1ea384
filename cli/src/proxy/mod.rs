//! `toolcall proxy`: an OpenAI-compatible reverse proxy that turns the
//! upstream's raw tool-call text into OpenAI tool calls.
//!
//! Stateless: each request is rewritten on its own, so more load is more
//! replicas behind any HTTP load balancer.

mod agent;
mod agent_route;
mod choice;
mod completion_rewrite;
pub mod config;
mod constrain;
mod drain;
mod error;
mod forward;
mod idle;
mod local;
mod log;
#[cfg(test)]
mod memory_tests;
mod metrics;
mod passthrough;
mod request;
mod routes;
mod server;
mod sse;
pub mod store;
mod stream_rewrite;
pub mod target;
mod wire;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;

use config::{Config, ProxyArgs};
use forward::Upstream;
use server::{secs, Limits};

/// What every request handler shares.
pub struct Proxy {
    pub config: Config,
    pub upstream: Upstream,
    /// Finished Responses, for `previous_response_id`.
    pub store: store::ResponseStore,
}

/// Runs the proxy until Ctrl-C or SIGTERM; in-flight responses are
/// finished first, for up to `--shutdown-grace`.
pub fn run(args: &ProxyArgs) -> Result<(), String> {
    let config = Config::from_args(args)?;
    log::set_format(config.log_format);
    metrics::install();
    let mut runtime = tokio::runtime::Builder::new_multi_thread();
    if let Some(threads) = args.threads {
        runtime.worker_threads(threads.max(1));
    }
    let runtime = runtime
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    let result = runtime.block_on(serve(config, &args.store));
    // Connections cut at the end of the grace are dropped with the
    // runtime; only a blocking task (a DNS lookup) could hold it up.
    runtime.shutdown_timeout(Duration::from_secs(1));
    result
}

async fn serve(config: Config, store: &store::StoreArgs) -> Result<(), String> {
    let listeners = server::bind(&config.listen).await?;
    let store = store::ResponseStore::open(store).await?;
    let (default_max, file_limit) = server::default_max_connections();
    let limits = Limits {
        header_read_timeout: config.header_read_timeout,
        max_connections: config.max_connections.unwrap_or(default_max),
        shutdown_grace: config.shutdown_grace,
    };
    let mut addresses = listeners.iter().filter_map(|l| l.local_addr().ok());
    let first = addresses
        .next()
        .ok_or("cannot read the listening address")?;
    let also: String = addresses.map(|a| format!(", also http://{a}")).collect();
    let target = Arc::new(config.upstream.clone());
    // Tests and scripts read the port from this line (with --listen ...:0),
    // up to the first comma. The upstream is printed without userinfo.
    log::line("info", &format!(
        "listening on http://{first}{also}, upstream {} (a client's /v1/chat/completions goes to {})",
        target.display(),
        target.chat_completions()
    ), &[]);
    let files = file_limit.map_or_else(String::new, |n| format!(", open-file limit {n}"));
    log::line("info", &format!(
        "at most {} connections (--max-connections{files}), request heads within {} (--header-read-timeout), shutdown grace {} (--shutdown-grace)",
        limits.max_connections,
        secs(limits.header_read_timeout),
        secs(limits.shutdown_grace)
    ), &[]);
    let held = if config.incomplete_calls_as_content || config.strict {
        config.max_held_call
    } else {
        0
    };
    let per_stream = stream_rewrite::worst_case_bytes(
        config.max_event_bytes,
        toolcall_stream::Limits::default().max_held_value,
        held,
    );
    log::line("info", &format!(
        "at most {:.1} MiB of memory per stream (10 x --max-event-bytes {}, a held value {}, a held call {}, 112 KiB), answers read whole up to {} bytes (--max-response-bytes), upstream answers within {} (--first-byte-timeout), silences up to {} (--idle-timeout)",
        per_stream as f64 / (1 << 20) as f64,
        config.max_event_bytes,
        toolcall_stream::Limits::default().max_held_value,
        held,
        config.max_response_bytes,
        secs(config.first_byte_timeout),
        secs(config.idle_timeout),
    ), &[]);
    log::line("info", &format!(
        "/v1/responses and /v1/messages are served here (translated to the upstream's chat completions), an answer kept whole up to {1} bytes (--max-response-bytes); response store {0}",
        store.describe(),
        config.max_response_bytes,
    ), &[]);
    // How a request's format is chosen: a model that names none passes
    // through unparsed, which the operator should know before it happens.
    log::line("info", &config.formats.describe(), &[]);
    if let Some(dialect) = config.constrain {
        log::line("info", &format!(
            "chat requests the proxy parses are constrained (--constrain {}): the calls' grammar in {}, tool_choice none upstream",
            constrain::dialect_name(dialect),
            constrain::fields(dialect),
        ), &[]);
    }
    let proxy = Arc::new(Proxy {
        upstream: Upstream::new(&config)?,
        store,
        config,
    });
    let app = Router::new().fallback(routes::handle).with_state(proxy);
    server::serve(listeners, app, target, limits, shutdown_signal).await;
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = async {
        // Without a handler there is nothing to wait for; SIGTERM still works.
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
}
