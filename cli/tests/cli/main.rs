//! The `toolcall` binary: its outputs, exit codes and live pipes, one
//! module per subject. This file holds what several of them use: running
//! the binary, the fixtures, and checking and merging its output.

mod constraint;
mod errors;
mod formats_and_models;
mod limits;
mod openai;
mod parse;
mod stream;
mod tools;
mod typing;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

/// How long any child may run before the test kills it and fails. Only a
/// guard against a hang, never a speed check: every run here takes
/// milliseconds, so the margin is wide enough for the slowest, busiest CI
/// machine.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(120);

const EVENT_TYPES: &[&str] = &[
    "content",
    "tool_call_start",
    "parameter_start",
    "parameter_delta",
    "parameter_end",
    "arguments_delta",
    "tool_call_end",
    "diagnostic",
];

/// A small call with a missing `</parameter>`: recovered, with a diagnostic.
pub(crate) const UNCLOSED_PARAMETER: &str =
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</function>\n</tool_call>";

/// The repository root, where the examples and fixtures are (this package
/// is its `cli/` directory).
pub(crate) fn repo_root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

pub(crate) fn transcript() -> PathBuf {
    repo_root().join("examples/transcripts/qwen3_coder.txt")
}

pub(crate) fn fixture(name: &str) -> PathBuf {
    repo_root().join("tests/fixtures/qwen3_coder").join(name)
}

/// A file under Cargo's per-test-target scratch directory.
pub(crate) fn scratch(name: &str, contents: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cli-{name}"));
    std::fs::write(&path, contents).unwrap();
    path
}

pub(crate) fn toolcall() -> Command {
    Command::new(env!("CARGO_BIN_EXE_toolcall"))
}

pub(crate) struct Run {
    pub(crate) status: ExitStatus,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl Run {
    pub(crate) fn lines(&self) -> Vec<&str> {
        self.stdout.lines().collect()
    }

    pub(crate) fn json(&self) -> Value {
        let lines = self.lines();
        assert_eq!(
            lines.len(),
            1,
            "expected one line of output: {}",
            self.stdout
        );
        serde_json::from_str(lines[0]).unwrap_or_else(|e| panic!("{e}: {}", lines[0]))
    }

    pub(crate) fn assert_success(&self) -> &Run {
        assert!(
            self.status.success(),
            "exit {:?}, stderr: {}",
            self.status.code(),
            self.stderr
        );
        self
    }

    /// Exit code 2 with exactly one `toolcall: ` line on stderr.
    pub(crate) fn assert_fatal(&self) {
        assert_eq!(self.status.code(), Some(2), "stderr: {}", self.stderr);
        let lines: Vec<&str> = self.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "one line on stderr: {:?}", self.stderr);
        assert!(lines[0].starts_with("toolcall: "), "{:?}", self.stderr);
        assert!(self.stdout.is_empty(), "stdout: {:?}", self.stdout);
    }

    /// Exit code 2 from clap's argument checks (a multi-line usage message).
    pub(crate) fn assert_usage_error(&self) {
        assert_eq!(self.status.code(), Some(2), "stderr: {}", self.stderr);
        assert!(!self.stderr.trim().is_empty(), "no message on stderr");
        assert!(self.stdout.is_empty(), "stdout: {:?}", self.stdout);
    }
}

pub(crate) fn spawn_reader(mut from: impl Read + Send + 'static) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut buf = Vec::new();
        from.read_to_end(&mut buf).unwrap();
        buf
    })
}

/// Waits for `child`, killing it (and failing) after [`TIMEOUT`].
pub(crate) fn wait(child: &mut Child) -> ExitStatus {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("toolcall did not exit within {TIMEOUT:?}");
        }
        thread::sleep(Duration::from_millis(5));
    }
}

/// Runs `toolcall ARGS`, with `stdin` as its standard input (none: empty).
pub(crate) fn run(args: &[&str], stdin: Option<&[u8]>) -> Run {
    let mut child = toolcall()
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn toolcall");
    let writer = stdin.map(|input| {
        let mut pipe = child.stdin.take().unwrap();
        let input = input.to_vec();
        // The child may exit without reading (a usage error): ignore EPIPE.
        thread::spawn(move || {
            let _ = pipe.write_all(&input);
        })
    });
    let stdout = spawn_reader(child.stdout.take().unwrap());
    let stderr = spawn_reader(child.stderr.take().unwrap());
    let status = wait(&mut child);
    if let Some(writer) = writer {
        writer.join().unwrap();
    }
    Run {
        status,
        stdout: String::from_utf8(stdout.join().unwrap()).expect("stdout is UTF-8"),
        stderr: String::from_utf8_lossy(&stderr.join().unwrap()).into_owned(),
    }
}

pub(crate) fn path_str(path: &Path) -> &str {
    path.to_str().unwrap()
}

pub(crate) fn keys(value: &Value) -> BTreeSet<&str> {
    value
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {value}"))
        .keys()
        .map(String::as_str)
        .collect()
}

pub(crate) fn set<'a>(items: &[&'a str]) -> BTreeSet<&'a str> {
    items.iter().copied().collect()
}

pub(crate) fn arguments(call: &Value) -> Value {
    let text = call["function"]["arguments"]
        .as_str()
        .unwrap_or_else(|| panic!("arguments are not a JSON string: {call}"));
    let value: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert!(value.is_object(), "arguments are not an object: {text}");
    value
}

pub(crate) fn diagnostic_kinds(message: &Value) -> Vec<&str> {
    message["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["kind"].as_str().unwrap())
        .collect()
}

/// Checks the shape of a `parse` message.
pub(crate) fn check_message(message: &Value) {
    assert_eq!(
        keys(message),
        set(&["content", "tool_calls", "diagnostics"])
    );
    assert!(message["content"].is_null() || message["content"].is_string());
    for call in message["tool_calls"].as_array().unwrap() {
        assert_eq!(keys(call), set(&["id", "type", "function"]), "{call}");
        assert!(call["id"].is_string(), "{call}");
        assert_eq!(call["type"], "function");
        assert_eq!(
            keys(&call["function"]),
            set(&["name", "arguments"]),
            "{call}"
        );
        assert!(call["function"]["name"].is_string(), "{call}");
        arguments(call);
    }
    for diagnostic in message["diagnostics"].as_array().unwrap() {
        assert_eq!(keys(diagnostic), set(&["index", "kind", "message", "span"]));
        assert!(diagnostic["kind"].is_string() && diagnostic["message"].is_string());
        assert!(diagnostic["index"].is_null() || diagnostic["index"].is_u64());
        let span = &diagnostic["span"];
        assert_eq!(keys(span), set(&["start", "end"]), "{diagnostic}");
        assert!(
            span["start"].as_u64() <= span["end"].as_u64(),
            "{diagnostic}"
        );
    }
}

pub(crate) fn parse_file(extra: &[&str], path: &Path) -> Value {
    let mut args = vec!["parse", "--sequential-ids"];
    args.extend_from_slice(extra);
    args.push(path_str(path));
    let message = run(&args, None).assert_success().json();
    check_message(&message);
    message
}

pub(crate) fn stream_events(out: &Run) -> Vec<Value> {
    out.assert_success();
    out.lines()
        .into_iter()
        .map(|line| {
            let event: Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line:?}"));
            let kind = event["type"].as_str().unwrap_or_else(|| panic!("{line}"));
            assert!(EVENT_TYPES.contains(&kind), "unknown event type: {line}");
            event
        })
        .collect()
}

/// What a stream adds up to: content, calls, diagnostics.
#[derive(Debug, PartialEq)]
pub(crate) struct Merged {
    pub(crate) content: String,
    /// `(index, id, name, arguments, complete)`.
    pub(crate) calls: Vec<(u64, String, String, String, bool)>,
    pub(crate) diagnostics: Vec<(Option<u64>, String)>,
}

/// Merges the events, checking that each call's `arguments_delta`s add up
/// to its `tool_call_end` arguments.
pub(crate) fn merge(events: &[Value]) -> Merged {
    let mut merged = Merged {
        content: String::new(),
        calls: Vec::new(),
        diagnostics: Vec::new(),
    };
    let mut deltas: BTreeMap<u64, String> = BTreeMap::new();
    let mut names: BTreeMap<u64, (String, String)> = BTreeMap::new();
    for event in events {
        let index = event["index"].as_u64();
        match event["type"].as_str().unwrap() {
            "content" => merged.content.push_str(event["text"].as_str().unwrap()),
            "tool_call_start" => {
                let index = index.unwrap();
                assert_eq!(index as usize, names.len(), "call indexes count calls");
                let id = event["id"].as_str().unwrap().to_owned();
                let name = event["name"].as_str().unwrap().to_owned();
                names.insert(index, (id, name));
            }
            "arguments_delta" => deltas
                .entry(index.unwrap())
                .or_default()
                .push_str(event["delta"].as_str().unwrap()),
            "tool_call_end" => {
                let index = index.unwrap();
                let arguments = event["arguments"].as_str().unwrap().to_owned();
                assert_eq!(
                    deltas.get(&index).map_or("", String::as_str),
                    arguments,
                    "call {index}: arguments_delta fragments vs tool_call_end"
                );
                let parsed: Value = serde_json::from_str(&arguments).unwrap();
                assert!(parsed.is_object(), "{arguments}");
                let (id, name) = names[&index].clone();
                let complete = event["complete"].as_bool().unwrap();
                merged.calls.push((index, id, name, arguments, complete));
            }
            "parameter_start" => assert!(event["name"].is_string()),
            "parameter_delta" => assert!(event["text"].is_string()),
            "parameter_end" => assert!(event["name"].is_string() && !event["value"].is_null()),
            "diagnostic" => {
                assert!(event["message"].is_string());
                let kind = event["kind"].as_str().unwrap().to_owned();
                merged.diagnostics.push((index, kind));
            }
            other => panic!("unexpected event type {other}"),
        }
    }
    assert_eq!(merged.calls.len(), names.len(), "a call was never ended");
    merged
}
