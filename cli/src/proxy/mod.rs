//! `toolcall proxy`: an OpenAI-compatible reverse proxy that turns the
//! upstream's raw tool-call text into OpenAI tool calls.
//!
//! Stateless: each request is rewritten on its own, so more load is more
//! replicas behind any HTTP load balancer.

mod completion_rewrite;
pub mod config;
mod error;
mod forward;
mod idle;
mod local;
mod log;
#[cfg(test)]
mod memory_tests;
mod metrics;
mod passthrough;
mod routes;
mod sse;
mod stream_rewrite;

use std::sync::Arc;

use axum::serve::ListenerExt;
use axum::Router;

use config::{Config, ProxyArgs};
use forward::Upstream;
use routes::Proxy;

/// Runs the proxy until Ctrl-C or SIGTERM; in-flight responses are
/// finished first.
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
    runtime.block_on(serve(config))
}

async fn serve(config: Config) -> Result<(), String> {
    let listen = config.listen;
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
    let local = listener
        .local_addr()
        .map_err(|e| format!("cannot read the listening address: {e}"))?;
    let proxy = Arc::new(Proxy {
        upstream: Upstream::new(&config)?,
        config,
    });
    // Tests and scripts read the port from this line (with --listen ...:0).
    eprintln!(
        "toolcall proxy: listening on http://{local}, upstream {}",
        proxy.config.upstream
    );
    // Each server-sent event is to go out as soon as it is written, not
    // wait for the last one's ACK (Nagle); a socket that refuses only
    // loses that.
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let app = Router::new().fallback(routes::handle).with_state(proxy);
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown_signal())
        .await
        .map_err(|e| format!("server failed: {e}"))
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
