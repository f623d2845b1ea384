//! The listening side: binding, accepting, a cap on open connections
//! (slow head readers shed first when it is reached, `shed.rs`), a time
//! limit on request heads, and a bounded drain at shutdown. axum's own
//! `serve` has none of these, so connections are served here with hyper's
//! HTTP/1.1 builder.

mod shed;
mod watch;

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex};
use std::task::Poll;
use std::time::Duration;

use axum::http::{Method, Request};
use axum::response::{IntoResponse, Response};
use axum::Router;
use hyper::body::Incoming;
use hyper::service::Service;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

use super::error::{error_object, ProxyError};
use super::forward::MAX_IDLE_UPSTREAM;
use super::log;
use super::log::RequestLog;
use super::target::Target;
use shed::{Admission, Slots, SHEDDING_AT_ONCE};
use watch::{Answer, Watch, Watched};

/// The most connections by default, however high the open-file limit.
const MOST_CONNECTIONS: usize = 10_000;
/// Descriptors opened after the limit is read, or now and then, besides
/// the connections and their upstream connections: the signal handlers'
/// pipe (3), name lookups and the second address tried at once when
/// connecting upstream (8), refusals in progress, and shed connections
/// still closing.
const LATER_FILES: u64 = 3 + 8 + REFUSING_AT_ONCE as u64 + 1 + SHEDDING_AT_ONCE as u64;
/// Descriptors assumed open at startup where they cannot be counted.
const STARTUP_FILES_GUESS: u64 = 32;
/// Connections being refused at once; past it a refused connection is
/// closed without an answer, so that a flood cannot use up descriptors.
const REFUSING_AT_ONCE: usize = 16;
/// How long a refused client has to read its 503 before it is closed.
const REFUSAL_TIME: Duration = Duration::from_secs(1);
/// A refused client that sends nothing for this long is closed.
const REFUSAL_IDLE: Duration = Duration::from_millis(200);
/// The pause after a failed accept (out of descriptors, say), so that the
/// loop does not spin while nothing can be accepted.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// How connections are limited.
pub struct Limits {
    pub header_read_timeout: Duration,
    pub max_connections: usize,
    pub shutdown_grace: Duration,
}

/// `--max-connections` by default: [`MOST_CONNECTIONS`], or fewer to stay
/// inside the open-file limit (see [`connections_within`]). To be called
/// once the listeners are bound. Also returns the limit, for the log.
pub fn default_max_connections() -> (usize, Option<u64>) {
    let limit = open_file_limit();
    let most = match limit {
        Some(limit) => {
            let reserved = files_open_now().unwrap_or(STARTUP_FILES_GUESS) + LATER_FILES;
            let fit = connections_within(limit, reserved, MAX_IDLE_UPSTREAM as u64);
            usize::try_from(fit).unwrap_or(MOST_CONNECTIONS)
        }
        None => MOST_CONNECTIONS,
    };
    (most.clamp(1, MOST_CONNECTIONS), limit)
}

/// The most connections C that `limit` descriptors hold when `reserved`
/// go to everything else. Each connection holds its own and, while it
/// serves a request, one upstream; the upstream pools keep up to
/// `idle_upstream` more, idle, but never more than C (a pool reuses an
/// idle connection before it opens one, so in use and idle it never
/// holds more than the C requests served at once):
/// `reserved + 2C + min(C, idle_upstream) <= limit`.
fn connections_within(limit: u64, reserved: u64, idle_upstream: u64) -> u64 {
    let spare = limit.saturating_sub(reserved);
    if spare / 3 <= idle_upstream {
        spare / 3
    } else {
        (spare - idle_upstream) / 2
    }
}

/// Descriptors open in this process (stdio, the runtime, the listeners,
/// and whatever the parent left open), where the system lists them.
fn files_open_now() -> Option<u64> {
    ["/proc/self/fd", "/dev/fd"].iter().find_map(|dir| {
        let entries = std::fs::read_dir(dir).ok()?;
        // Less the one the listing itself holds open.
        Some((entries.count() as u64).saturating_sub(1))
    })
}

#[cfg(unix)]
fn open_file_limit() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit only writes the struct it is given, which lives
    // for the whole call.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0;
    #[allow(clippy::unnecessary_cast)] // rlim_t is not u64 everywhere
    let current = limit.rlim_cur as u64;
    (ok && limit.rlim_cur != libc::RLIM_INFINITY).then_some(current)
}

#[cfg(not(unix))]
fn open_file_limit() -> Option<u64> {
    None
}

/// Listens on `HOST:PORT`: every address the host resolves to (for
/// `localhost`, often both 127.0.0.1 and ::1), on one port. An address
/// that cannot be bound is skipped with a note, as long as one is.
pub async fn bind(listen: &str) -> Result<Vec<TcpListener>, String> {
    let resolved = tokio::net::lookup_host(listen)
        .await
        .map_err(|e| format!("cannot resolve --listen {listen} (HOST:PORT): {e}"))?;
    let mut addrs: Vec<SocketAddr> = Vec::new();
    for addr in resolved {
        if !addrs.contains(&addr) {
            addrs.push(addr);
        }
    }
    let mut listeners = Vec::new();
    let mut port = None;
    let mut failures = Vec::new();
    for mut addr in addrs {
        // Port 0: the first address picks a free port, the others share it.
        if let Some(port) = port {
            addr.set_port(port);
        }
        match TcpListener::bind(addr).await {
            Ok(listener) => {
                if let Ok(local) = listener.local_addr() {
                    port = Some(local.port());
                }
                listeners.push(listener);
            }
            Err(e) => failures.push(format!("{addr}: {e}")),
        }
    }
    if listeners.is_empty() {
        let why = if failures.is_empty() {
            "it resolves to no address".to_owned()
        } else {
            failures.join("; ")
        };
        return Err(format!("cannot listen on {listen}: {why}"));
    }
    for failure in failures {
        log::line("warn", &format!("not listening on {failure}"), &[]);
    }
    Ok(listeners)
}

/// What happened to connections lately, written to stderr at most once a
/// second so that an attack cannot flood the log.
#[derive(Default)]
struct Counters {
    slow_heads: AtomicU64,
    shed: AtomicU64,
    refused: AtomicU64,
    accept_failures: AtomicU64,
    last_accept_error: Mutex<String>,
}

impl Counters {
    fn report(&self, limits: &Limits) {
        let slow = self.slow_heads.swap(0, Ordering::Relaxed);
        if slow > 0 {
            log::line("warn", &format!(
                "closed {slow} connection(s) that sent no complete request head within {} (--header-read-timeout)",
                secs(limits.header_read_timeout)
            ), &[]);
        }
        let shed = self.shed.swap(0, Ordering::Relaxed);
        if shed > 0 {
            log::line("warn", &format!(
                "closed {shed} connection(s) waiting for a request head (slow heads first, then idle, the longest-waiting first) to make room for new ones: {} open (--max-connections)",
                limits.max_connections
            ), &[]);
        }
        let refused = self.refused.swap(0, Ordering::Relaxed);
        if refused > 0 {
            log::line(
                "warn",
                &format!(
                    "refused {refused} connection(s) with 503: {} already open (--max-connections)",
                    limits.max_connections
                ),
                &[],
            );
        }
        let failures = self.accept_failures.swap(0, Ordering::Relaxed);
        if failures > 0 {
            let error = self
                .last_accept_error
                .lock()
                .map(|e| e.clone())
                .unwrap_or_default();
            log::line(
                "warn",
                &format!("cannot accept connections ({failures} time(s)): {error}; retrying"),
                &[],
            );
        }
    }
}

/// A duration as the flags write it: `30s`, `1.5s`.
pub fn secs(duration: Duration) -> String {
    format!("{}s", duration.as_secs_f64())
}

/// Serves `app` on the listeners until `shutdown()` resolves, then stops
/// accepting, lets open connections finish for `--shutdown-grace` (or
/// until `shutdown()` resolves again: a second Ctrl-C), and cuts the rest.
pub async fn serve<F>(
    listeners: Vec<TcpListener>,
    app: Router,
    target: Arc<Target>,
    limits: Limits,
    shutdown: impl Fn() -> F,
) where
    F: Future<Output = ()>,
{
    let limits = Arc::new(limits);
    let counters = Arc::new(Counters::default());
    let reporter = tokio::spawn({
        let (counters, limits) = (counters.clone(), limits.clone());
        async move {
            let mut tick = tokio::time::interval(Duration::from_secs(1));
            loop {
                tick.tick().await;
                counters.report(&limits);
            }
        }
    });
    let slots = Slots::new(limits.max_connections);
    let refusing = Arc::new(Semaphore::new(REFUSING_AT_ONCE));
    let graceful = GracefulShutdown::new();
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout);
    let router = TowerToHyperService::new(app);
    let stop = shutdown();
    tokio::pin!(stop);
    let mut next = 0;
    'accepting: loop {
        let accepted = tokio::select! {
            biased;
            () = &mut stop => break 'accepting,
            accepted = accept_any(&listeners, &mut next) => accepted,
        };
        let stream = match accepted {
            Ok(stream) => stream,
            // The client gave up before it was accepted: nothing to do.
            Err(e) if is_per_connection(&e) => continue,
            Err(e) => {
                counters.accept_failures.fetch_add(1, Ordering::Relaxed);
                if let Ok(mut last) = counters.last_accept_error.lock() {
                    *last = e.to_string();
                }
                tokio::time::sleep(ACCEPT_BACKOFF).await;
                continue;
            }
        };
        let slot = loop {
            match slots.admit() {
                Admission::Admitted { slot, shed } => {
                    if shed {
                        counters.shed.fetch_add(1, Ordering::Relaxed);
                    }
                    break Some(slot);
                }
                Admission::Full => break None,
                // Briefly: a shed connection closes, and an unread one is
                // read, at its task's next poll.
                Admission::Wait => tokio::select! {
                    biased;
                    () = &mut stop => break 'accepting,
                    () = slots.changed() => {}
                },
            }
        };
        let Some(slot) = slot else {
            counters.refused.fetch_add(1, Ordering::Relaxed);
            refuse(stream, &refusing);
            continue;
        };
        // Each server-sent event is to go out as soon as it is written,
        // not wait for the last one's ACK (Nagle); a socket that refuses
        // only loses that.
        let _ = stream.set_nodelay(true);
        let watch = Watch::new(slot);
        let served = Arc::new(AtomicBool::new(false));
        let service = {
            let (router, target, served, watch) = (
                router.clone(),
                target.clone(),
                served.clone(),
                watch.clone(),
            );
            hyper::service::service_fn(move |request: Request<Incoming>| {
                served.store(true, Ordering::Relaxed);
                let screened = if watch.serving() {
                    screen(&target, request.method(), request.uri())
                } else {
                    // Shed just as its head came; its task is closing it.
                    Some(overloaded())
                };
                let (router, watch) = (router.clone(), watch.clone());
                async move {
                    let response = match screened {
                        None => router.call(request).await?,
                        Some(refusal) => refusal,
                    };
                    Ok::<_, Infallible>(response.map(|body| Answer::new(body, watch)))
                }
            })
        };
        let io = TokioIo::new(Watched::new(stream, watch.clone()));
        let connection = graceful.watch(builder.serve_connection(io, service));
        let counters = counters.clone();
        tokio::spawn(async move {
            let result = tokio::select! {
                biased;
                () = watch.slot.shed_order() => None,
                result = connection => Some(result),
            };
            // The connection is dropped, its socket closed: the slot is
            // free (or, if it was shed, its successor's for good).
            drop(watch);
            // A connection that never sent a whole request head is a slow
            // or idle client; after a request it is only keep-alive ending.
            if let Some(Err(e)) = result {
                if e.is_timeout() && !served.load(Ordering::Relaxed) {
                    counters.slow_heads.fetch_add(1, Ordering::Relaxed);
                }
            }
        });
    }
    // Closed listeners: a new client is refused by the system at once
    // rather than left waiting in the backlog.
    drop(listeners);
    let open = slots.open();
    log::line("info", &format!(
        "shutting down: accepting no more connections; waiting up to {} for {open} open connection(s) (--shutdown-grace)",
        secs(limits.shutdown_grace)
    ), &[]);
    let drained = tokio::select! {
        drained = tokio::time::timeout(limits.shutdown_grace, graceful.shutdown()) => drained.is_ok(),
        () = shutdown() => false,
    };
    counters.report(&limits);
    reporter.abort();
    if drained {
        log::line("info", "stopped: every connection finished", &[]);
    } else {
        let cut = slots.open();
        log::line("warn", &format!(
            "stopped: --shutdown-grace {} over or a second signal, cut {cut} connection(s) still open",
            secs(limits.shutdown_grace)
        ), &[]);
    }
}

/// The next connection on any listener, taking them in turn.
async fn accept_any(listeners: &[TcpListener], next: &mut usize) -> std::io::Result<TcpStream> {
    std::future::poll_fn(|cx| {
        for i in 0..listeners.len() {
            let at = (*next + i) % listeners.len();
            if let Poll::Ready(accepted) = listeners[at].poll_accept(cx) {
                *next = at + 1;
                return Poll::Ready(accepted.map(|(stream, _)| stream));
            }
        }
        Poll::Pending
    })
    .await
}

/// Accept errors that concern one connection, not the listener.
fn is_per_connection(error: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    matches!(
        error.kind(),
        ConnectionRefused | ConnectionAborted | ConnectionReset | Interrupted
    )
}

/// Answers 503 and closes. The client's request is read and dropped for a
/// moment after the answer, so that closing with it unread does not reset
/// the connection before the client has read the 503; with no slot for
/// that, it is answered and closed at once.
fn refuse(stream: TcpStream, refusing: &Arc<Semaphore>) {
    let Ok(slot) = refusing.clone().try_acquire_owned() else {
        answer_at_once(stream);
        return;
    };
    let mut stream = stream;
    tokio::spawn(async move {
        let _slot = slot;
        let answer = async {
            stream.write_all(REFUSAL.as_bytes()).await?;
            stream.shutdown().await?;
            // Until the client closes, or sends nothing for a moment (a
            // silent or slow client is not waited for).
            let mut sink = [0u8; 1024];
            while tokio::time::timeout(REFUSAL_IDLE, stream.read(&mut sink)).await?? > 0 {}
            Ok::<_, std::io::Error>(())
        };
        let _ = tokio::time::timeout(REFUSAL_TIME, answer).await;
    });
}

/// The 503 without waiting: what the client has sent so far is read (the
/// socket does not block), the answer written, and the socket closed.
fn answer_at_once(stream: TcpStream) {
    use std::io::{Read, Write};
    let Ok(mut stream) = stream.into_std() else {
        return;
    };
    let mut sink = [0u8; 4096];
    for _ in 0..16 {
        if !matches!(stream.read(&mut sink), Ok(n) if n > 0) {
            break;
        }
    }
    let _ = stream.write(REFUSAL.as_bytes());
    let _ = stream.shutdown(std::net::Shutdown::Write);
}

/// The body of a 503 at `--max-connections`.
static OVERLOADED: LazyLock<String> = LazyLock::new(|| {
    error_object(
        "the proxy has as many connections open as it may (--max-connections); try again shortly",
        "server_overloaded",
        None,
    )
    .to_string()
});

/// The 503 a connection past `--max-connections` gets.
static REFUSAL: LazyLock<String> = LazyLock::new(|| {
    format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\nretry-after: 1\r\nconnection: close\r\n\r\n{}",
        OVERLOADED.len(),
        *OVERLOADED
    )
});

/// The same 503 through hyper, for a connection shed just as its head
/// came whole (it is closed next).
fn overloaded() -> Response {
    use axum::http::header::{CONNECTION, CONTENT_TYPE, RETRY_AFTER};
    let headers = [
        (CONTENT_TYPE, "application/json"),
        (RETRY_AFTER, "1"),
        (CONNECTION, "close"),
    ];
    let status = axum::http::StatusCode::SERVICE_UNAVAILABLE;
    (status, headers, OVERLOADED.clone()).into_response()
}

/// Requests answered here, before the body is read: methods never
/// forwarded, and request targets that could leave the upstream's base.
/// `None`: the request goes on to the routes.
fn screen(target: &Target, method: &Method, uri: &axum::http::Uri) -> Option<Response> {
    let path_and_query = uri.path_and_query().map_or("", |p| p.as_str());
    let error = if method == Method::CONNECT {
        ProxyError::MethodNotAllowed(method.to_string())
    } else if path_and_query == "*" {
        ProxyError::InvalidPath("the asterisk form (OPTIONS *) is not forwarded".to_owned())
    } else {
        match target.url(path_and_query) {
            Ok(_) => return None,
            Err(why) => ProxyError::InvalidPath(why),
        }
    };
    let mut log = RequestLog::new(method.clone(), uri.path());
    log.status(error.status().as_u16());
    log.note(error_message(&error));
    let allow = matches!(error, ProxyError::MethodNotAllowed(_));
    let mut response = error.into_response();
    if allow {
        response.headers_mut().insert(
            axum::http::header::ALLOW,
            axum::http::HeaderValue::from_static("GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"),
        );
    }
    Some(response)
}

/// The error's message, for the log line.
fn error_message(error: &ProxyError) -> String {
    error.body()["error"]["message"]
        .as_str()
        .unwrap_or("refused")
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Descriptors a proxy at `connections` may hold at once.
    fn worst_case(connections: u64, reserved: u64, idle: u64) -> u64 {
        reserved + 2 * connections + connections.min(idle)
    }

    #[test]
    fn connections_fit_in_the_open_file_limit() {
        let idle = MAX_IDLE_UPSTREAM as u64;
        for limit in [0, 1, 64, 100, 256, 300, 500, 1024, 4096, 65536, 1 << 20] {
            for reserved in [0, 40, 75, 200] {
                let fit = connections_within(limit, reserved, idle);
                if reserved <= limit {
                    assert!(
                        worst_case(fit, reserved, idle) <= limit,
                        "{limit} {reserved}: {fit}"
                    );
                    assert!(
                        worst_case(fit + 1, reserved, idle) > limit,
                        "{limit} {reserved}: {fit} is not the most"
                    );
                } else {
                    assert_eq!(fit, 0);
                }
            }
        }
        // The figures docs/proxy.md gives, with 11 descriptors at startup.
        let reserved = 11 + LATER_FILES;
        assert_eq!(connections_within(256, reserved, idle), 67);
        assert_eq!(connections_within(1024, reserved, idle), 420);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn files_open_now_counts_the_files_held() {
        let held: Vec<_> = (0..200)
            .map(|_| std::fs::File::open("/dev/null").unwrap())
            .collect();
        // stdio, and the 200 held here (other tests' come and go).
        assert!(files_open_now().unwrap() >= 203);
        drop(held);
    }
}
