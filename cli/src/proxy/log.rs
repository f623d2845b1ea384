//! Log lines on stderr: one per request, written when the response ends
//! (or the client goes away), so that latency covers the whole body; and
//! the server's own lines (start, refusals, shutdown). `--log-format json`
//! writes each as one JSON object for log shippers.

use std::io::Write;
use std::sync::OnceLock;
use std::time::{Instant, SystemTime};

use axum::http::Method;
use serde_json::{json, Map, Value};

use super::config::LogFormat;
use super::error::ProxyError;
use super::metrics;

static FORMAT: OnceLock<LogFormat> = OnceLock::new();

/// Sets how lines are written (once, at start; text until then).
pub fn set_format(format: LogFormat) {
    let _ = FORMAT.set(format);
}

fn format() -> LogFormat {
    FORMAT.get().copied().unwrap_or(LogFormat::Text)
}

/// A line of the server's own: `message`, then `fields` (as `key=value` in
/// text, as members in JSON).
pub fn line(level: &str, message: &str, fields: &[(&str, Value)]) {
    let text = match format() {
        LogFormat::Text => {
            let mut text = format!("toolcall proxy: {message}");
            for (key, value) in fields {
                match value {
                    Value::String(value) => text.push_str(&format!(" {key}={value}")),
                    value => text.push_str(&format!(" {key}={value}")),
                }
            }
            text
        }
        LogFormat::Json => {
            let mut object = Map::new();
            object.insert("ts".into(), json!(timestamp()));
            object.insert("level".into(), json!(level));
            object.insert("msg".into(), json!(message));
            for (key, value) in fields {
                object.insert((*key).to_owned(), value.clone());
            }
            Value::Object(object).to_string()
        }
    };
    write_line(text);
}

/// Writes `line` and its line end with one `write`: stderr is unbuffered,
/// and `writeln!` makes a syscall for each piece of its format (a cost
/// per request), and lines from several threads could mix. A closed
/// stderr only loses the log.
fn write_line(mut line: String) {
    line.push('\n');
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

fn timestamp() -> String {
    humantime::format_rfc3339_millis(SystemTime::now()).to_string()
}

/// How a request was answered, for the log and `/metrics`.
pub mod route {
    /// A chat completion with tools, answered whole.
    pub const REWRITE: &str = "rewrite";
    /// A chat completion with tools, streamed.
    pub const REWRITE_STREAM: &str = "rewrite_stream";
    /// Sent on as it came.
    pub const PASSTHROUGH: &str = "passthrough";
    /// Answered by the proxy itself (`/healthz`, `/readyz`, `/metrics`).
    pub const LOCAL: &str = "local";
}

/// How a request ended, for the log and `/metrics`.
pub mod outcome {
    pub const OK: &str = "ok";
    /// The client closed the connection before the response ended (logged
    /// with status 499, as nginx does).
    pub const CLIENT_CLOSED: &str = "client_closed";
    /// The upstream answered with an error status, passed on.
    pub const UPSTREAM_STATUS: &str = "upstream_status";
    /// The upstream's stream stopped before its end (no `[DONE]`, no
    /// `finish_reason`): the client got an error event.
    pub const UPSTREAM_CUT: &str = "upstream_cut";
    /// The upstream's stream was not a chat stream, or too large.
    pub const UPSTREAM_STREAM_ERROR: &str = "upstream_stream_error";
    /// The upstream sent its own error event.
    pub const UPSTREAM_ERROR_EVENT: &str = "upstream_error_event";
}

/// The status logged for a client that went away first (nginx's).
pub const CLIENT_CLOSED_STATUS: u16 = 499;

/// The request's log line, written when dropped: move it into the response
/// body to log when the body ends.
pub struct RequestLog {
    method: Method,
    /// The path only: a query string may carry a key.
    path: String,
    start: Instant,
    status: u16,
    route: &'static str,
    outcome: &'static str,
    /// Complete calls the proxy made (rewritten routes).
    calls: usize,
    /// What happened, when not the usual way.
    note: Option<String>,
    /// The format chosen for the request and why, or why none was.
    choice: Option<String>,
    /// The format's name, when one was chosen (a field of its own in JSON).
    format: Option<String>,
    /// What `--constrain` did with the request.
    constraint: Option<String>,
}

impl RequestLog {
    pub fn new(method: Method, path: &str) -> RequestLog {
        RequestLog {
            method,
            path: path.to_owned(),
            start: Instant::now(),
            status: 0,
            route: route::PASSTHROUGH,
            outcome: outcome::OK,
            calls: 0,
            note: None,
            choice: None,
            format: None,
            constraint: None,
        }
    }

    /// The format chosen for the request and why (`format glm45 by
    /// --format`), or why it passes through.
    pub fn choice(&mut self, format: Option<String>, choice: String) {
        self.format = format;
        self.choice = Some(choice);
    }

    /// What `--constrain` did with the request (`constrained: lark
    /// required …`, or why not).
    pub fn constraint(&mut self, constraint: String) {
        self.constraint = Some(constraint);
    }

    pub fn route(&mut self, route: &'static str) {
        self.route = route;
    }

    pub fn status(&mut self, status: u16) {
        self.status = status;
    }

    pub fn calls(&mut self, calls: usize) {
        self.calls = calls;
    }

    pub fn outcome(&mut self, outcome: &'static str) {
        self.outcome = outcome;
    }

    pub fn note(&mut self, note: impl Into<String>) {
        self.note = Some(note.into());
    }

    /// The proxy answered `error` itself.
    pub fn error(&mut self, error: &ProxyError) {
        self.status = error.status().as_u16();
        self.outcome = error.kind();
        self.note = Some(error.to_string());
    }

    /// The client went away before the response ended.
    pub fn client_closed(&mut self) {
        self.status = CLIENT_CLOSED_STATUS;
        self.outcome = outcome::CLIENT_CLOSED;
        self.note = Some("the client closed the connection before the response ended".into());
    }
}

impl Drop for RequestLog {
    fn drop(&mut self) {
        if self.status == 0 {
            // Dropped before any answer was made: the server dropped the
            // handler, because the client went away while it waited.
            self.client_closed();
        }
        metrics::request(self.route, self.outcome);
        metrics::tool_calls(self.calls);
        let millis = self.start.elapsed().as_secs_f64() * 1000.0;
        let rewritten = self.route != route::PASSTHROUGH && self.route != route::LOCAL;
        match format() {
            LogFormat::Text => {
                let calls = if rewritten {
                    format!(" calls={}", self.calls)
                } else {
                    String::new()
                };
                let outcome = if self.outcome == outcome::OK {
                    String::new()
                } else {
                    format!(" {}", self.outcome)
                };
                let said: Vec<&str> = [
                    self.choice.as_deref(),
                    self.constraint.as_deref(),
                    self.note.as_deref(),
                ]
                .into_iter()
                .flatten()
                .collect();
                let note = if said.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", said.join("; "))
                };
                write_line(format!(
                    "toolcall proxy: {} {} {} {}{calls}{outcome} {millis:.1}ms{note}",
                    self.method, self.path, self.status, self.route,
                ));
            }
            LogFormat::Json => {
                let mut fields = vec![
                    ("method", json!(self.method.as_str())),
                    ("path", json!(self.path)),
                    ("status", json!(self.status)),
                    ("route", json!(self.route)),
                    ("outcome", json!(self.outcome)),
                    ("ms", json!((millis * 10.0).round() / 10.0)),
                ];
                if rewritten {
                    fields.push(("calls", json!(self.calls)));
                }
                if let Some(format) = &self.format {
                    fields.push(("format", json!(format)));
                }
                if let Some(choice) = &self.choice {
                    fields.push(("choice", json!(choice)));
                }
                if let Some(constraint) = &self.constraint {
                    fields.push(("constraint", json!(constraint)));
                }
                if let Some(note) = &self.note {
                    fields.push(("note", json!(note)));
                }
                line("info", "request", &fields);
            }
        }
    }
}
