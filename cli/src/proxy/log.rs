//! One line per request on stderr, written when the response ends (or the
//! client goes away), so that latency covers the whole body.

use std::time::Instant;

use axum::http::Method;

/// The request's log line, written when dropped: move it into the response
/// body to log when the body ends.
pub struct RequestLog {
    method: Method,
    /// The path only: a query string may carry a key.
    path: String,
    start: Instant,
    status: u16,
    /// `Some` for rewritten responses: the calls the proxy made.
    calls: Option<usize>,
    /// How the response went, when not the usual way.
    note: Option<String>,
}

impl RequestLog {
    pub fn new(method: Method, path: &str) -> RequestLog {
        RequestLog {
            method,
            path: path.to_owned(),
            start: Instant::now(),
            status: 0,
            calls: None,
            note: None,
        }
    }

    pub fn status(&mut self, status: u16) {
        self.status = status;
    }

    pub fn calls(&mut self, calls: usize) {
        self.calls = Some(calls);
    }

    pub fn note(&mut self, note: impl Into<String>) {
        self.note = Some(note.into());
    }
}

impl Drop for RequestLog {
    fn drop(&mut self) {
        let millis = self.start.elapsed().as_secs_f64() * 1000.0;
        let calls = match self.calls {
            Some(calls) => format!(" calls={calls}"),
            None => " passthrough".to_owned(),
        };
        let note = self
            .note
            .as_deref()
            .map_or_else(String::new, |note| format!(" ({note})"));
        eprintln!(
            "toolcall proxy: {} {} {}{calls} {millis:.1}ms{note}",
            self.method, self.path, self.status
        );
    }
}
