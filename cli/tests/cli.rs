//! The `toolcall` binary: its outputs, exit codes and live pipes.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use toolcall_stream::{Format, Limits, Parser};

/// How long any child may run before the test kills it and fails. Only a
/// guard against a hang, never a speed check: every run here takes
/// milliseconds, so the margin is wide enough for the slowest, busiest CI
/// machine.
const TIMEOUT: Duration = Duration::from_secs(120);

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
const UNCLOSED_PARAMETER: &str =
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</function>\n</tool_call>";

/// The repository root, where the examples and fixtures are (this package
/// is its `cli/` directory).
fn repo_root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// The content of a parse as OpenAI output carries it: the layout
/// whitespace next to calls left out (the events keep it).
fn openai_content(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).unwrap();
    Parser::builder()
        .format(Format::Qwen3Coder)
        .build()
        .parse(&text)
        .openai_content()
}

fn transcript() -> PathBuf {
    repo_root().join("examples/transcripts/qwen3_coder.txt")
}

fn fixture(name: &str) -> PathBuf {
    repo_root().join("tests/fixtures/qwen3_coder").join(name)
}

/// A file under Cargo's per-test-target scratch directory.
fn scratch(name: &str, contents: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cli-{name}"));
    std::fs::write(&path, contents).unwrap();
    path
}

fn toolcall() -> Command {
    Command::new(env!("CARGO_BIN_EXE_toolcall"))
}

struct Run {
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

impl Run {
    fn lines(&self) -> Vec<&str> {
        self.stdout.lines().collect()
    }

    fn json(&self) -> Value {
        let lines = self.lines();
        assert_eq!(
            lines.len(),
            1,
            "expected one line of output: {}",
            self.stdout
        );
        serde_json::from_str(lines[0]).unwrap_or_else(|e| panic!("{e}: {}", lines[0]))
    }

    fn assert_success(&self) -> &Run {
        assert!(
            self.status.success(),
            "exit {:?}, stderr: {}",
            self.status.code(),
            self.stderr
        );
        self
    }

    /// Exit code 2 with exactly one `toolcall: ` line on stderr.
    fn assert_fatal(&self) {
        assert_eq!(self.status.code(), Some(2), "stderr: {}", self.stderr);
        let lines: Vec<&str> = self.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "one line on stderr: {:?}", self.stderr);
        assert!(lines[0].starts_with("toolcall: "), "{:?}", self.stderr);
        assert!(self.stdout.is_empty(), "stdout: {:?}", self.stdout);
    }

    /// Exit code 2 from clap's argument checks (a multi-line usage message).
    fn assert_usage_error(&self) {
        assert_eq!(self.status.code(), Some(2), "stderr: {}", self.stderr);
        assert!(!self.stderr.trim().is_empty(), "no message on stderr");
        assert!(self.stdout.is_empty(), "stdout: {:?}", self.stdout);
    }
}

fn spawn_reader(mut from: impl Read + Send + 'static) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut buf = Vec::new();
        from.read_to_end(&mut buf).unwrap();
        buf
    })
}

/// Waits for `child`, killing it (and failing) after [`TIMEOUT`].
fn wait(child: &mut Child) -> ExitStatus {
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
fn run(args: &[&str], stdin: Option<&[u8]>) -> Run {
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

fn path_str(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn keys(value: &Value) -> BTreeSet<&str> {
    value
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {value}"))
        .keys()
        .map(String::as_str)
        .collect()
}

fn set<'a>(items: &[&'a str]) -> BTreeSet<&'a str> {
    items.iter().copied().collect()
}

fn arguments(call: &Value) -> Value {
    let text = call["function"]["arguments"]
        .as_str()
        .unwrap_or_else(|| panic!("arguments are not a JSON string: {call}"));
    let value: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert!(value.is_object(), "arguments are not an object: {text}");
    value
}

fn diagnostic_kinds(message: &Value) -> Vec<&str> {
    message["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["kind"].as_str().unwrap())
        .collect()
}

/// Checks the shape of a `parse` message.
fn check_message(message: &Value) {
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

fn parse_file(extra: &[&str], path: &Path) -> Value {
    let mut args = vec!["parse", "--sequential-ids"];
    args.extend_from_slice(extra);
    args.push(path_str(path));
    let message = run(&args, None).assert_success().json();
    check_message(&message);
    message
}

// ---------------------------------------------------------------- parse

#[test]
fn parse_prints_one_openai_message() {
    let out = run(
        &["parse", "--sequential-ids", path_str(&transcript())],
        None,
    );
    out.assert_success();
    assert!(out.stderr.is_empty(), "stderr: {}", out.stderr);
    assert!(out.stdout.ends_with('\n'));
    let message = out.json();
    check_message(&message);

    assert_eq!(
        message["content"],
        "I'll add the parser test first, then run the suite.\n\n"
    );
    let calls = message["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["id"], "call_0");
    assert_eq!(calls[1]["id"], "call_1");
    assert_eq!(calls[0]["function"]["name"], "write_file");
    assert_eq!(calls[1]["function"]["name"], "run_shell");

    let write = arguments(&calls[0]);
    assert_eq!(write["path"], "tests/test_parser.py");
    let content = write["content"].as_str().unwrap();
    assert!(content.starts_with("def test_closing_tag_inside_value():\n"));
    // The `</parameter>` inside the file is kept (lookahead termination).
    assert!(content.contains(r#"text = "<parameter=x>a </parameter> b</parameter>""#));
    assert!(content.ends_with(r#"assert parse(text)["x"] == "a </parameter> b""#));

    assert_eq!(
        arguments(&calls[1]),
        json!({
            "command": "pytest -q tests/test_parser.py && echo \"ok\" > /tmp/status",
            "timeout": "120",
        })
    );
    // Arguments text is written as vLLM writes it.
    assert_eq!(
        calls[1]["function"]["arguments"],
        r#"{"command": "pytest -q tests/test_parser.py && echo \"ok\" > /tmp/status", "timeout": "120"}"#
    );

    let diagnostics = message["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["kind"], "closer_in_value");
    assert_eq!(diagnostics[0]["index"], 0);
}

#[test]
fn parse_makes_random_vllm_style_ids_by_default() {
    let message = run(&["parse", path_str(&transcript())], None)
        .assert_success()
        .json();
    let calls = message["tool_calls"].as_array().unwrap();
    for call in calls {
        let id = call["id"].as_str().unwrap();
        let hex = id
            .strip_prefix("chatcmpl-tool-")
            .unwrap_or_else(|| panic!("{id}"));
        assert!(
            hex.len() == 16 && hex.bytes().all(|b| b.is_ascii_hexdigit()),
            "{id}"
        );
    }
    assert_ne!(calls[0]["id"], calls[1]["id"]);
}

#[test]
fn parse_reads_stdin_without_input_or_with_dash() {
    let input = std::fs::read(transcript()).unwrap();
    let from_file = run(
        &["parse", "--sequential-ids", path_str(&transcript())],
        None,
    );
    from_file.assert_success();
    for args in [
        &["parse", "--sequential-ids"][..],
        &["parse", "--sequential-ids", "-"][..],
    ] {
        let from_stdin = run(args, Some(&input));
        from_stdin.assert_success();
        assert_eq!(from_stdin.stdout, from_file.stdout, "{args:?}");
    }
}

#[test]
fn parse_of_empty_input_is_an_empty_message() {
    let message = run(&["parse"], Some(b"")).assert_success().json();
    assert_eq!(
        message,
        json!({"content": null, "tool_calls": [], "diagnostics": []})
    );
}

#[test]
fn the_qwen3_xml_name_is_accepted() {
    let a = run(
        &["parse", "--sequential-ids", "--format", "qwen3_xml"],
        Some(UNCLOSED_PARAMETER.as_bytes()),
    );
    let b = run(
        &["parse", "--sequential-ids", "-f", "qwen3_coder"],
        Some(UNCLOSED_PARAMETER.as_bytes()),
    );
    a.assert_success();
    b.assert_success();
    assert_eq!(a.stdout, b.stdout);
}

#[test]
fn format_names_ignore_case_and_dash_versus_underscore() {
    for command in ["parse", "stream"] {
        let expected = run(
            &[command, "--sequential-ids"],
            Some(UNCLOSED_PARAMETER.as_bytes()),
        );
        expected.assert_success();
        for name in ["QWEN3-CODER", "Qwen3_Xml", "qwen3-xml", "Qwen3_Coder"] {
            let out = run(
                &[command, "--sequential-ids", "--format", name],
                Some(UNCLOSED_PARAMETER.as_bytes()),
            );
            out.assert_success();
            assert_eq!(out.stdout, expected.stdout, "{command} --format {name}");
        }
    }
}

#[test]
fn model_names_pick_the_format() {
    for command in ["parse", "stream"] {
        for (model, format, fixture) in [
            ("zai-org/GLM-4.7", "glm47", "two_calls"),
            ("zai-org/GLM-4.5-Air", "glm45", "two_calls"),
            ("moonshotai/Kimi-K2-Instruct-0905", "kimi_k2", "two_calls"),
            ("openai/gpt-oss-120b", "openai", "two_calls"),
            ("NousResearch/Hermes-3-Llama-3.1-8B", "hermes", "two_calls"),
            ("qwen3-coder:30b", "qwen3_coder", "two_calls"),
        ] {
            let path = repo_root()
                .join("tests/fixtures")
                .join(format)
                .join(format!("{fixture}.txt"));
            let path = path_str(&path);
            let by_format = run(
                &[command, "--sequential-ids", "--format", format, path],
                None,
            );
            by_format.assert_success();
            let by_model = run(&[command, "--sequential-ids", "--model", model, path], None);
            by_model.assert_success();
            assert_eq!(
                by_model.stdout, by_format.stdout,
                "{command} --model {model}"
            );
            let calls = match command {
                "parse" => by_model.json()["tool_calls"].as_array().unwrap().len(),
                _ => by_model
                    .stdout
                    .matches("\"type\":\"tool_call_end\"")
                    .count(),
            };
            assert_eq!(calls, 2, "{command} --model {model}");
        }
    }
    // `--format` wins, and `--model` still names an `--openai` response.
    let glm = repo_root().join("tests/fixtures/glm47/two_calls.txt");
    let out = run(
        &[
            "parse",
            "--openai",
            "--format",
            "glm47",
            "--model",
            "my-deployment",
            path_str(&glm),
        ],
        None,
    );
    out.assert_success();
    let completion = out.json();
    assert_eq!(completion["model"], "my-deployment");
    assert_eq!(
        completion["choices"][0]["message"]["tool_calls"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let out = run(
        &[
            "parse",
            "--openai",
            "--model",
            "zai-org/GLM-4.7",
            path_str(&glm),
        ],
        None,
    );
    assert_eq!(out.assert_success().json()["model"], "zai-org/GLM-4.7");
}

#[test]
fn an_unknown_model_is_a_usage_error_that_lists_the_names() {
    for command in ["parse", "stream"] {
        let out = run(&[command, "--model", "my-org/my-model"], Some(b"hello"));
        out.assert_usage_error();
        for wanted in [
            "my-org/my-model",
            "--format",
            "qwen3-coder (qwen3_coder)",
            "gpt-oss (openai)",
        ] {
            assert!(out.stderr.contains(wanted), "{wanted}: {}", out.stderr);
        }
    }
}

#[test]
fn help_lists_every_format_with_its_aliases() {
    assert!(!Format::ALL.is_empty());
    for command in ["parse", "stream"] {
        let out = run(&[command, "--help"], None);
        out.assert_success();
        for format in Format::ALL {
            // One line per format, its aliases on it.
            let prefix = format!("- {}", format.name());
            let line = out
                .stdout
                .lines()
                .find(|line| line.trim_start().starts_with(&prefix))
                .unwrap_or_else(|| panic!("{command} --help lacks {prefix}: {}", out.stdout));
            for alias in format.aliases() {
                assert!(
                    line.contains(alias),
                    "{command} --help: {line:?} lacks {alias}"
                );
            }
        }
    }
    // A wrong name is told what the right ones are.
    let out = run(&["parse", "--format", "qwen2"], None);
    out.assert_usage_error();
    for format in Format::ALL {
        assert!(out.stderr.contains(format.name()), "{}", out.stderr);
        for alias in format.aliases() {
            assert!(out.stderr.contains(alias), "{}", out.stderr);
        }
    }
}

#[test]
fn tools_file_reports_calls_to_undeclared_tools() {
    let tools = scratch(
        "tools.json",
        r#"[{"type": "function", "function": {"name": "write_file", "description": "Write a file",
             "parameters": {"type": "object", "properties": {"path": {"type": "string"},
             "content": {"type": "string"}}, "required": ["path", "content"]}}}]"#,
    );
    let message = parse_file(&["--tools", path_str(&tools)], &transcript());
    // The call is kept: the diagnostic is for the caller to act on.
    let calls = message["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2);
    let unknown: Vec<&Value> = message["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["kind"] == "unknown_tool")
        .collect();
    assert_eq!(unknown.len(), 1, "{message}");
    assert_eq!(unknown[0]["index"], 1);
    assert!(unknown[0]["message"]
        .as_str()
        .unwrap()
        .contains("run_shell"));

    // Without --tools nothing is unknown.
    let message = parse_file(&[], &transcript());
    assert!(!diagnostic_kinds(&message).contains(&"unknown_tool"));
}

#[test]
fn tools_file_listing_every_tool_reports_nothing_unknown() {
    let tools = scratch(
        "tools-all.json",
        r#"[{"type": "function", "function": {"name": "write_file"}},
            {"type": "function", "function": {"name": "run_shell"}}]"#,
    );
    let message = parse_file(&["--tools", path_str(&tools)], &transcript());
    assert!(
        !diagnostic_kinds(&message).contains(&"unknown_tool"),
        "{message}"
    );
}

#[test]
fn badly_formed_output_exits_zero_with_a_diagnostic() {
    let out = run(
        &["parse", "--sequential-ids"],
        Some(UNCLOSED_PARAMETER.as_bytes()),
    );
    out.assert_success();
    let message = out.json();
    check_message(&message);
    assert_eq!(diagnostic_kinds(&message), ["unclosed_parameter"]);
    assert_eq!(
        arguments(&message["tool_calls"][0]),
        json!({"city": "Paris"})
    );

    // A call cut off by the end of the stream: kept, reported, incomplete.
    let truncated = b"<tool_call>\n<function=f>\n<parameter=a>\n1\n</param";
    let message = run(&["parse"], Some(truncated)).assert_success().json();
    assert!(
        diagnostic_kinds(&message).contains(&"truncated"),
        "{message}"
    );
    let events = stream_events(&run(&["stream"], Some(truncated)));
    let end = events
        .iter()
        .find(|e| e["type"] == "tool_call_end")
        .unwrap();
    assert_eq!(end["complete"], false);
    assert_eq!(end["arguments"], r#"{"a": "1"}"#);

    // Invalid UTF-8 is replaced and reported, not an error.
    let message = run(&["parse"], Some(b"a\xffb")).assert_success().json();
    assert_eq!(message["content"], "a\u{FFFD}b");
    assert_eq!(diagnostic_kinds(&message), ["invalid_utf8"]);
}

#[test]
fn value_termination_vllm_cuts_values_at_the_first_closer() {
    let path = fixture("closer_inside_value.txt");
    let lookahead = parse_file(&[], &path);
    let default_explicit = parse_file(&["--value-termination", "lookahead"], &path);
    let vllm = parse_file(&["--value-termination", "vllm"], &path);
    assert_eq!(lookahead, default_explicit);

    let kept = arguments(&lookahead["tool_calls"][0]);
    let cut = arguments(&vllm["tool_calls"][0]);
    assert_ne!(kept, cut);
    assert_eq!(kept["path"], "parser.py");
    assert_eq!(
        kept["content"],
        "A block ends with </parameter> here.\nAnd </function> or </tool_call> too."
    );
    assert_eq!(
        cut,
        json!({"path": "parser.py", "content": "A block ends with "})
    );
    assert!(diagnostic_kinds(&lookahead).contains(&"closer_in_value"));
    assert!(diagnostic_kinds(&vllm).contains(&"stray_text"));
}

// ---------------------------------------------------------------- stream

fn stream_events(out: &Run) -> Vec<Value> {
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
struct Merged {
    content: String,
    /// `(index, id, name, arguments, complete)`.
    calls: Vec<(u64, String, String, String, bool)>,
    diagnostics: Vec<(Option<u64>, String)>,
}

/// Merges the events, checking that each call's `arguments_delta`s add up
/// to its `tool_call_end` arguments.
fn merge(events: &[Value]) -> Merged {
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

#[test]
fn stream_prints_one_event_per_line_whatever_the_chunk_size() {
    let path = transcript();
    let parsed = parse_file(&[], &path);
    let mut first: Option<Merged> = None;
    let mut lines_at = BTreeMap::new();
    for size in [1, 4, 7, 4096] {
        let size_arg = size.to_string();
        let out = run(
            &[
                "stream",
                "--sequential-ids",
                "--chunk-size",
                &size_arg,
                path_str(&path),
            ],
            None,
        );
        assert!(out.stderr.is_empty(), "stderr: {}", out.stderr);
        let events = stream_events(&out);
        lines_at.insert(size, events.len());
        let merged = merge(&events);
        match &first {
            None => {
                // The stream adds up to what `parse` prints.
                assert_eq!(Some(merged.content.as_str()), parsed["content"].as_str());
                let calls = parsed["tool_calls"].as_array().unwrap();
                assert_eq!(merged.calls.len(), calls.len());
                for (ours, call) in merged.calls.iter().zip(calls) {
                    assert_eq!(ours.1, call["id"].as_str().unwrap());
                    assert_eq!(ours.2, call["function"]["name"].as_str().unwrap());
                    assert_eq!(ours.3, call["function"]["arguments"].as_str().unwrap());
                    assert!(ours.4, "complete");
                }
                let kinds: Vec<&str> = merged.diagnostics.iter().map(|d| d.1.as_str()).collect();
                assert_eq!(kinds, diagnostic_kinds(&parsed));
                first = Some(merged);
            }
            Some(first) => assert_eq!(&merged, first, "chunk size {size}"),
        }
    }
    // The chunk size is honoured: smaller chunks, more (smaller) events.
    assert!(lines_at[&1] > lines_at[&4096], "{lines_at:?}");
}

#[test]
fn stream_reads_stdin_without_input_or_with_dash() {
    let input = std::fs::read(transcript()).unwrap();
    let from_file = run(
        &[
            "stream",
            "--sequential-ids",
            "--chunk-size",
            "5",
            path_str(&transcript()),
        ],
        None,
    );
    let expected = merge(&stream_events(&from_file));
    for args in [
        &["stream", "--sequential-ids", "--chunk-size", "5"][..],
        &["stream", "--sequential-ids", "--chunk-size", "5", "-"][..],
    ] {
        let out = run(args, Some(&input));
        assert_eq!(merge(&stream_events(&out)), expected, "{args:?}");
    }
}

fn summary(out: &Run) -> Value {
    out.assert_success();
    let line = out.json();
    assert_eq!(
        keys(&line),
        set(&[
            "bytes",
            "chunks",
            "events",
            "tool_calls",
            "seconds",
            "mb_per_s"
        ]),
        "{line}"
    );
    for key in ["bytes", "chunks", "events", "tool_calls"] {
        assert!(line[key].is_u64(), "{key}: {line}");
    }
    for key in ["seconds", "mb_per_s"] {
        let value = line[key]
            .as_f64()
            .unwrap_or_else(|| panic!("{key}: {line}"));
        assert!(value >= 0.0 && value.is_finite(), "{key}: {line}");
    }
    line
}

#[test]
fn stream_summary_counts_a_file() {
    let path = transcript();
    let size = std::fs::metadata(&path).unwrap().len();
    for chunk in [1, 7, 64, size, 1 << 20] {
        let chunk_arg = chunk.to_string();
        let out = run(
            &[
                "stream",
                "--summary",
                "--chunk-size",
                &chunk_arg,
                path_str(&path),
            ],
            None,
        );
        let line = summary(&out);
        assert_eq!(line["bytes"], size, "chunk {chunk}");
        assert_eq!(line["chunks"], size.div_ceil(chunk), "chunk {chunk}");
        assert_eq!(line["tool_calls"], 2, "chunk {chunk}");
        // As many events as the same stream prints.
        let events = run(
            &["stream", "--chunk-size", &chunk_arg, path_str(&path)],
            None,
        );
        assert_eq!(line["events"], events.lines().len() as u64, "chunk {chunk}");
    }
}

#[test]
fn stream_summary_counts_stdin() {
    let input = std::fs::read(transcript()).unwrap();
    let size = input.len() as u64;
    for args in [
        &["stream", "--summary", "--chunk-size", "7"][..],
        &["stream", "--summary", "--chunk-size", "7", "-"][..],
    ] {
        let line = summary(&run(args, Some(&input)));
        assert_eq!(line["bytes"], size, "{args:?}");
        // A pipe may deliver the bytes in several reads, each cut into chunks.
        let chunks = line["chunks"].as_u64().unwrap();
        assert!(chunks >= size.div_ceil(7) && chunks <= size, "{line}");
        assert_eq!(line["tool_calls"], 2);
        assert!(line["events"].as_u64().unwrap() > 0);
    }
    let empty = summary(&run(&["stream", "--summary"], Some(b"")));
    assert_eq!(empty["bytes"], 0);
    assert_eq!(empty["chunks"], 0);
    assert_eq!(empty["tool_calls"], 0);
}

#[test]
fn stream_summary_counts_calls_whose_values_span_many_chunks() {
    // `--summary` keeps no arguments (its memory stays flat); what it
    // counts must not depend on them.
    let value = "a line of a long file\n".repeat(2000);
    let call = |name: &str| {
        format!(
            "<tool_call>\n<function={name}>\n<parameter=text>\n{value}</parameter>\n</function>\n</tool_call>\n"
        )
    };
    let input = format!("Three calls:\n{}{}{}done.", call("a"), call("b"), call("c"));
    let path = scratch("summary-long-values.txt", &input);
    for size in [1, 5, 4096] {
        // A file is read whole and cut into exact chunks: as many events as
        // a parser that keeps the arguments makes from the same chunks.
        let mut parser = Parser::new(Format::Qwen3Coder);
        let mut events = 0;
        for piece in input.as_bytes().chunks(size) {
            events += parser.feed(piece).count();
        }
        events += parser.finish().count();
        let chunk = size.to_string();
        let chunk = chunk.as_str();
        let line = summary(&run(
            &[
                "stream",
                "--summary",
                "--chunk-size",
                chunk,
                path_str(&path),
            ],
            None,
        ));
        assert_eq!(line["bytes"], input.len() as u64, "chunk {chunk}");
        assert_eq!(line["tool_calls"], 3, "chunk {chunk}");
        assert_eq!(line["events"], events as u64, "chunk {chunk}");

        let line = summary(&run(
            &["stream", "--summary", "--chunk-size", chunk],
            Some(input.as_bytes()),
        ));
        assert_eq!(line["bytes"], input.len() as u64, "chunk {chunk}");
        assert_eq!(line["tool_calls"], 3, "chunk {chunk}");
    }
}

#[test]
fn stream_lean_prints_the_same_events_without_whole_arguments() {
    let dir = repo_root().join("tests/fixtures/qwen3_coder");
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    inputs.sort();
    inputs.push(transcript());
    assert!(inputs.len() > 20, "fixtures not found in {}", dir.display());
    for path in &inputs {
        let mode = if path_str(path).ends_with(".vllm.txt") {
            "vllm"
        } else {
            "lookahead"
        };
        let parsed = parse_file(&["--value-termination", mode], path);
        let parsed_calls = parsed["tool_calls"].as_array().unwrap();
        for chunk in ["1", "4096"] {
            let args = |lean: bool| {
                let mut args = vec![
                    "stream",
                    "--sequential-ids",
                    "--value-termination",
                    mode,
                    "--chunk-size",
                    chunk,
                ];
                if lean {
                    args.push("--lean");
                }
                args.push(path_str(path));
                args
            };
            let full = stream_events(&run(&args(false), None));
            let lean = stream_events(&run(&args(true), None));
            let context = format!("{} at chunk size {chunk}", path.display());

            // The same events, less the two whole fields.
            let mut stripped = full.clone();
            for event in &mut stripped {
                let object = event.as_object_mut().unwrap();
                object.remove("arguments");
                object.remove("value");
            }
            assert_eq!(lean, stripped, "{context}");

            // The fragments still say it all: they add up to `parse`'s
            // arguments, call by call.
            let mut deltas: BTreeMap<u64, String> = BTreeMap::new();
            for event in &lean {
                if event["type"] == "tool_call_start" {
                    deltas.insert(event["index"].as_u64().unwrap(), String::new());
                }
                if event["type"] == "arguments_delta" {
                    let index = event["index"].as_u64().unwrap();
                    deltas
                        .get_mut(&index)
                        .unwrap_or_else(|| panic!("{context}: delta before its call"))
                        .push_str(event["delta"].as_str().unwrap());
                }
            }
            assert_eq!(deltas.len(), parsed_calls.len(), "{context}");
            for (arguments, call) in deltas.values().zip(parsed_calls) {
                assert_eq!(arguments, &call["function"]["arguments"], "{context}");
            }
        }
    }
    // The inputs do exercise the fields left out.
    let full = stream_events(&run(&["stream", path_str(&transcript())], None));
    assert!(full
        .iter()
        .any(|e| e["type"] == "tool_call_end" && e["arguments"].is_string()));
    assert!(full
        .iter()
        .any(|e| e["type"] == "parameter_end" && e["value"].is_string()));
}

/// Lines of a child's stdout, read on a thread and handed over a channel so
/// that a test can wait for them with a timeout.
fn line_channel(from: impl Read + Send + 'static) -> mpsc::Receiver<String> {
    let (send, receive) = mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(from).lines() {
            let Ok(line) = line else { break };
            if send.send(line).is_err() {
                break;
            }
        }
    });
    receive
}

#[test]
fn stream_from_a_live_pipe_prints_events_as_bytes_arrive() {
    let mut child = toolcall()
        .args(["stream", "--sequential-ids", "--chunk-size", "1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn toolcall");
    let lines = line_channel(child.stdout.take().unwrap());
    let mut stdin = child.stdin.take().unwrap();
    let deadline = Instant::now() + TIMEOUT;
    let next_line = |child: &mut Child| -> Option<String> {
        let left = deadline.saturating_duration_since(Instant::now());
        match lines.recv_timeout(left) {
            Ok(line) => Some(line),
            Err(mpsc::RecvTimeoutError::Disconnected) => None,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("no output from toolcall within {TIMEOUT:?}");
            }
        }
    };

    stdin.write_all(b"Hello ").unwrap();
    stdin.flush().unwrap();
    // Stdin is still open: the content must arrive now, not at the end.
    let mut content = String::new();
    while content != "Hello " {
        let line = next_line(&mut child).expect("toolcall ended early");
        let event: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(event["type"], "content", "{line}");
        content.push_str(event["text"].as_str().unwrap());
        assert!("Hello ".starts_with(&content), "{content:?}");
    }
    assert!(child.try_wait().unwrap().is_none(), "toolcall exited early");

    stdin
        .write_all(
            b"<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>",
        )
        .unwrap();
    drop(stdin);
    let mut rest = Vec::new();
    while let Some(line) = next_line(&mut child) {
        rest.push(serde_json::from_str::<Value>(&line).unwrap());
    }
    assert!(wait(&mut child).success());

    let merged = merge(&rest);
    assert_eq!(merged.content, "");
    assert_eq!(
        merged.calls,
        [(0, "call_0".into(), "f".into(), r#"{"a": "1"}"#.into(), true)]
    );
    assert!(merged.diagnostics.is_empty(), "{:?}", merged.diagnostics);
    assert_eq!(rest[0]["type"], "tool_call_start");
}

#[test]
fn stream_into_a_closed_pipe_exits_quietly() {
    // Far more output than a pipe holds: the writer is still busy when the
    // reader goes away.
    let big = "word ".repeat(400_000);
    let input = scratch("big.txt", &big);
    let mut child = toolcall()
        .args(["stream", "--chunk-size", "1", path_str(&input)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn toolcall");
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert_eq!(first, "{\"type\":\"content\",\"text\":\"w\"}\n");
    drop(stdout);
    let stderr = spawn_reader(child.stderr.take().unwrap());
    let status = wait(&mut child);
    assert_eq!(status.code(), Some(0));
    assert!(stderr.join().unwrap().is_empty());
}

// ---------------------------------------------------------------- limits

fn parse_stdin(extra: &[&str], input: &str) -> Value {
    let mut args = vec!["parse", "--sequential-ids"];
    args.extend_from_slice(extra);
    let message = run(&args, Some(input.as_bytes())).assert_success().json();
    check_message(&message);
    message
}

fn stream_stdin(extra: &[&str], input: &str) -> Merged {
    let mut args = vec!["stream", "--sequential-ids", "--chunk-size", "3"];
    args.extend_from_slice(extra);
    merge(&stream_events(&run(&args, Some(input.as_bytes()))))
}

fn call_names(message: &Value) -> Vec<&str> {
    message["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|call| call["function"]["name"].as_str().unwrap())
        .collect()
}

fn merged_kinds(merged: &Merged) -> Vec<&str> {
    merged.diagnostics.iter().map(|d| d.1.as_str()).collect()
}

const CALL_F: &str =
    "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>";
const CALL_G: &str = "<tool_call>\n<function=g>\n</function>\n</tool_call>";

#[test]
fn max_calls_turns_later_calls_into_content() {
    let input = format!("{CALL_F}{CALL_G}");
    for flags in [&[][..], &["--max-calls", "2"][..]] {
        let message = parse_stdin(flags, &input);
        assert_eq!(call_names(&message), ["f", "g"], "{flags:?}");
        assert!(diagnostic_kinds(&message).is_empty(), "{message}");
    }

    let message = parse_stdin(&["--max-calls", "1"], &input);
    assert_eq!(call_names(&message), ["f"]);
    assert_eq!(message["content"], CALL_G);
    assert_eq!(diagnostic_kinds(&message), ["limit_exceeded"]);

    let merged = stream_stdin(&["--max-calls", "1"], &input);
    assert_eq!(merged.calls.len(), 1);
    assert_eq!(merged.content, CALL_G);
    assert_eq!(merged_kinds(&merged), ["limit_exceeded"]);
}

#[test]
fn max_parameters_ignores_further_parameters() {
    let input = "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n\
                 <parameter=b>\n2\n</parameter>\n</function>\n</tool_call>";
    for flags in [&[][..], &["--max-parameters", "2"][..]] {
        let message = parse_stdin(flags, input);
        assert_eq!(
            arguments(&message["tool_calls"][0]),
            json!({"a": "1", "b": "2"})
        );
        assert!(diagnostic_kinds(&message).is_empty(), "{message}");
    }

    let message = parse_stdin(&["--max-parameters", "1"], input);
    assert_eq!(arguments(&message["tool_calls"][0]), json!({"a": "1"}));
    assert_eq!(diagnostic_kinds(&message), ["limit_exceeded", "stray_text"]);

    // Arguments are missing, so the call is not complete.
    let merged = stream_stdin(&["--max-parameters", "1"], input);
    assert_eq!(merged.calls.len(), 1);
    assert_eq!(merged.calls[0].3, r#"{"a": "1"}"#);
    assert!(!merged.calls[0].4, "complete");
    assert_eq!(merged_kinds(&merged), ["limit_exceeded", "stray_text"]);
}

#[test]
fn max_name_len_makes_longer_names_text() {
    let input = "<tool_call>\n<function=get_weather>\n</function>\n</tool_call>";
    // "get_weather" is 11 bytes.
    for flags in [&[][..], &["--max-name-len", "11"][..]] {
        let message = parse_stdin(flags, input);
        assert_eq!(call_names(&message), ["get_weather"], "{flags:?}");
    }
    let message = parse_stdin(&["--max-name-len", "10"], input);
    assert!(call_names(&message).is_empty(), "{message}");
    assert_eq!(message["content"], input);

    let merged = stream_stdin(&["--max-name-len", "10"], input);
    assert!(merged.calls.is_empty());
    assert_eq!(merged.content, input);
}

#[test]
fn lookahead_bounds_the_wait_for_a_function_after_tool_call() {
    // 100 bytes of text between `<tool_call>` and `<function=`.
    let input = format!(
        "<tool_call>\n{}\n{}",
        "x".repeat(98),
        &CALL_F["<tool_call>\n".len()..]
    );
    let hold = "--hold-text-after-wrapper";
    for flags in [&[hold][..], &[hold, "--lookahead", "120"][..]] {
        // Within the window: the wrapper holds, the text is stray.
        let message = parse_stdin(flags, &input);
        assert_eq!(call_names(&message), ["f"], "{flags:?}");
        assert_eq!(diagnostic_kinds(&message), ["stray_text"], "{flags:?}");
    }
    // Past it, or by default (nothing held): `<tool_call>` was text, and
    // the call starts at `<function=`.
    for flags in [&[hold, "--lookahead", "50"][..], &[][..]] {
        let message = parse_stdin(flags, &input);
        assert_eq!(call_names(&message), ["f"]);
        assert!(message["content"]
            .as_str()
            .unwrap()
            .starts_with("<tool_call>\n"));
        assert_eq!(diagnostic_kinds(&message), ["missing_tool_call_open"]);

        let merged = stream_stdin(flags, &input);
        assert!(merged.content.starts_with("<tool_call>\n"));
        assert_eq!(merged_kinds(&merged), ["missing_tool_call_open"]);
    }
}

#[test]
fn limit_flags_default_to_limits_default() {
    let defaults = Limits::default();
    let flags = [
        ("--max-name-len", defaults.max_name_len),
        ("--lookahead", defaults.lookahead),
        ("--max-calls", defaults.max_calls),
        ("--max-parameters", defaults.max_parameters),
    ];
    for command in ["parse", "stream"] {
        let help = run(&[command, "-h"], None);
        help.assert_success();
        for (flag, value) in flags {
            let line = help
                .stdout
                .lines()
                .find(|line| line.trim_start().starts_with(flag))
                .unwrap_or_else(|| panic!("{command} -h lacks {flag}: {}", help.stdout));
            assert!(line.contains(&format!("[default: {value}]")), "{line}");
        }
    }
    // Given explicitly, the defaults change nothing.
    let values: Vec<String> = flags.iter().map(|(_, value)| value.to_string()).collect();
    let mut explicit = Vec::new();
    for ((flag, _), value) in flags.iter().zip(&values) {
        explicit.extend([*flag, value.as_str()]);
    }
    assert_eq!(
        parse_file(&explicit, &transcript()),
        parse_file(&[], &transcript())
    );
}

// ---------------------------------------------------------------- errors

#[test]
fn unreadable_input_is_a_fatal_error() {
    let missing = repo_root().join("tests/fixtures/no-such-file.txt");
    for args in [
        &["parse", path_str(&missing)][..],
        &["stream", path_str(&missing)][..],
        &["stream", "--summary", path_str(&missing)][..],
    ] {
        let out = run(args, None);
        out.assert_fatal();
        assert!(out.stderr.contains("no-such-file.txt"), "{}", out.stderr);
    }
    // A directory is not readable as input either.
    run(&["parse", path_str(repo_root())], None).assert_fatal();
}

#[test]
fn bad_tools_files_are_fatal_errors() {
    let missing = repo_root().join("tests/fixtures/no-such-tools.json");
    let not_json = scratch("tools-not-json.json", "{ not json");
    let not_array = scratch("tools-not-array.json", r#"{"type": "function"}"#);
    let no_name = scratch(
        "tools-no-name.json",
        r#"[{"type": "function", "function": {}}]"#,
    );
    for tools in [&missing, &not_json, &not_array, &no_name] {
        for command in ["parse", "stream"] {
            let out = run(
                &[command, "--tools", path_str(tools), path_str(&transcript())],
                None,
            );
            out.assert_fatal();
            let name = tools.file_name().unwrap().to_str().unwrap();
            assert!(out.stderr.contains(name), "{}", out.stderr);
        }
    }
}

#[test]
fn bad_arguments_are_usage_errors() {
    let input = path_str(&transcript()).to_owned();
    for args in [
        &["parse", "--format", "nope", &input][..],
        &["stream", "--format", "nope", &input][..],
        &["parse", "--value-termination", "sometimes", &input][..],
        &["stream", "--chunk-size", "0", &input][..],
        &["stream", "--chunk-size", "-3", &input][..],
        &["stream", "--chunk-size", "many", &input][..],
        &["parse", "--no-such-flag", &input][..],
        &["parse", "--chunk-size", "4", &input][..],
        &["parse", "--lean", &input][..],
        &["parse", "--format", "qwen3 coder", &input][..],
        &["parse", "--max-calls", "-1", &input][..],
        &["stream", "--max-parameters", "many", &input][..],
        &["parse", "--lookahead", "1.5", &input][..],
        &["stream", "--max-name-len", "", &input][..],
        &["frobnicate"][..],
        &[][..],
    ] {
        let out = run(args, None);
        out.assert_usage_error();
    }
    let out = run(&["parse", "--format", "nope", &input], None);
    assert!(out.stderr.contains("nope"), "{}", out.stderr);
}

// ---------------------------------------------------------------- --openai

/// The diagnostics `--openai` wrote to stderr, one JSON line each, as
/// `(index, kind)`.
fn stderr_diagnostics(out: &Run) -> Vec<(Value, String)> {
    out.stderr
        .lines()
        // The format `--model` chose is no diagnostic.
        .filter(|line| !line.contains(r#""type":"format_chosen""#))
        .map(|line| {
            let event: Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line:?}"));
            assert_eq!(event["type"], "diagnostic", "{line}");
            assert!(event["message"].is_string(), "{line}");
            (
                event["index"].clone(),
                event["kind"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// The same diagnostics from a plain `parse` message.
fn message_diagnostics(message: &Value) -> Vec<(Value, String)> {
    message["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["index"].clone(), d["kind"].as_str().unwrap().to_owned()))
        .collect()
}

/// Checks a `chat.completion` and returns its one choice.
fn check_completion<'a>(completion: &'a Value, model: &str) -> &'a Value {
    assert_eq!(
        keys(completion),
        set(&["id", "object", "created", "model", "choices"])
    );
    assert_eq!(completion["object"], "chat.completion");
    assert_eq!(completion["model"], model);
    assert!(completion["created"].is_u64());
    assert!(completion["id"].as_str().unwrap().starts_with("chatcmpl-"));
    let choices = completion["choices"].as_array().unwrap();
    assert_eq!(choices.len(), 1);
    let choice = &choices[0];
    assert_eq!(
        keys(choice),
        set(&["index", "message", "finish_reason", "logprobs"])
    );
    assert_eq!(choice["index"], 0);
    assert_eq!(choice["message"]["role"], "assistant");
    choice
}

#[test]
fn parse_openai_prints_one_chat_completion_with_the_parse_calls() {
    let path = transcript();
    let plain = parse_file(&[], &path);
    let out = run(
        &[
            "parse",
            "--openai",
            "--ids",
            "sequential",
            "--model",
            "qwen3-coder",
            path_str(&path),
        ],
        None,
    );
    out.assert_success();
    let completion = out.json();
    let choice = check_completion(&completion, "qwen3-coder");
    let message = &choice["message"];
    assert_eq!(
        keys(message),
        set(&["role", "content", "refusal", "tool_calls"])
    );
    assert_eq!(message["content"], json!(openai_content(&path)));
    assert_eq!(message["tool_calls"], plain["tool_calls"]);
    assert_eq!(choice["finish_reason"], "tool_calls");
    // Diagnostics are not OpenAI's: they go to stderr.
    assert_eq!(stderr_diagnostics(&out), message_diagnostics(&plain));
    assert!(!out.stderr.is_empty());
}

/// What an OpenAI client makes of `stream --openai` output: checks the
/// framing and the chunks, and returns the joined message (`content`,
/// `tool_calls` as `parse` prints them) and the `finish_reason`.
fn join_sse(stdout: &str) -> (Value, Value) {
    assert!(stdout.ends_with("data: [DONE]\n\n"), "{stdout:?}");
    let frames: Vec<&str> = stdout.split_terminator("\n\n").collect();
    let (done, frames) = frames.split_last().unwrap();
    assert_eq!(*done, "data: [DONE]");
    assert!(!frames.is_empty());
    let mut content: Option<String> = None;
    let mut calls: Vec<Value> = Vec::new();
    let mut finish_reason = Value::Null;
    let mut id = None;
    for (position, frame) in frames.iter().enumerate() {
        let last = position + 1 == frames.len();
        let json = frame
            .strip_prefix("data: ")
            .unwrap_or_else(|| panic!("not a data frame: {frame:?}"));
        assert!(!json.contains('\n'), "one line per frame: {frame:?}");
        let chunk: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {json}"));
        assert_eq!(chunk["object"], "chat.completion.chunk");
        assert_eq!(id.get_or_insert_with(|| chunk["id"].clone()), &chunk["id"]);
        let choice = &chunk["choices"][0];
        let delta = &choice["delta"];
        assert_eq!(delta["role"].is_string(), position == 0, "{json}");
        assert_eq!(!choice["finish_reason"].is_null(), last, "{json}");
        if !last {
            assert!(
                delta["content"].is_string() || delta["tool_calls"].is_array(),
                "an empty chunk: {json}"
            );
        }
        if let Some(text) = delta["content"].as_str() {
            content.get_or_insert_with(String::new).push_str(text);
        }
        for call in delta["tool_calls"].as_array().into_iter().flatten() {
            let index = call["index"].as_u64().unwrap() as usize;
            let fragment = call["function"]["arguments"].as_str().unwrap();
            if index == calls.len() {
                assert_eq!(call["type"], "function", "{json}");
                calls.push(json!({
                    "id": call["id"],
                    "type": "function",
                    "function": {"name": call["function"]["name"], "arguments": fragment},
                }));
            } else {
                assert!(call.get("id").is_none() && call["function"].get("name").is_none());
                let arguments = &mut calls[index]["function"]["arguments"];
                *arguments = Value::from(arguments.as_str().unwrap().to_owned() + fragment);
            }
        }
        finish_reason = choice["finish_reason"].clone();
    }
    (
        json!({"content": content, "tool_calls": calls}),
        finish_reason,
    )
}

#[test]
fn stream_openai_prints_sse_chunks_that_join_into_the_parse_output() {
    let path = transcript();
    let plain = parse_file(&[], &path);
    let expected = json!({"content": openai_content(&path), "tool_calls": plain["tool_calls"]});
    let mut frames_at = BTreeMap::new();
    for size in ["1", "7", "64", "100000"] {
        let out = run(
            &[
                "stream",
                "--openai",
                "--ids",
                "sequential",
                "--chunk-size",
                size,
                path_str(&path),
            ],
            None,
        );
        out.assert_success();
        let (joined, finish_reason) = join_sse(&out.stdout);
        assert_eq!(joined, expected, "--chunk-size {size}");
        assert_eq!(finish_reason, "tool_calls");
        assert_eq!(stderr_diagnostics(&out), message_diagnostics(&plain));
        frames_at.insert(size, out.stdout.matches("\n\n").count());
    }
    // One chunk per piece that completed something: more for smaller pieces.
    assert!(frames_at["1"] > frames_at["64"], "{frames_at:?}");
    assert_eq!(frames_at["100000"], 3, "{frames_at:?}"); // chunk, last, [DONE]
}

#[test]
fn openai_finish_length_model_and_seeded_ids() {
    let path = transcript();
    let args = |extra: &[&str]| {
        let mut args = vec!["parse", "--openai"];
        args.extend_from_slice(extra);
        args.push(path_str(&path));
        run(&args, None).assert_success().json()
    };
    let cut = args(&["--finish-length"]);
    assert_eq!(
        check_completion(&cut, "toolcall")["finish_reason"],
        "length"
    );

    let one = args(&["--ids", "openai", "--seed", "5"]);
    let again = args(&["--ids", "openai", "--seed", "5"]);
    let other = args(&["--ids", "openai", "--seed", "6"]);
    let call_ids = |completion: &Value| -> Vec<String> {
        completion["choices"][0]["message"]["tool_calls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(one["id"], again["id"]);
    assert_eq!(call_ids(&one), call_ids(&again));
    assert_ne!(one["id"], other["id"]);
    assert_ne!(call_ids(&one), call_ids(&other));
    for id in call_ids(&one) {
        let rest = id.strip_prefix("call_").unwrap_or_else(|| panic!("{id}"));
        assert!(rest.len() == 24 && rest.bytes().all(|b| b.is_ascii_alphanumeric()));
    }
    // Unseeded: a new response id and new call ids on every run.
    let (a, b) = (args(&["--ids", "openai"]), args(&["--ids", "openai"]));
    assert_ne!(a["id"], b["id"]);
    assert_ne!(call_ids(&a), call_ids(&b));
    // Seeded vLLM-style ids for the event output too.
    let seeded = || {
        let message = run(
            &["parse", "--seed", "5"],
            Some(UNCLOSED_PARAMETER.as_bytes()),
        )
        .assert_success()
        .json();
        message["tool_calls"][0]["id"].as_str().unwrap().to_owned()
    };
    let id = seeded();
    assert_eq!(id, seeded());
    assert!(id.starts_with("chatcmpl-tool-"), "{id}");

    let stream = run(
        &[
            "stream",
            "--openai",
            "--format",
            "qwen3_coder",
            "--model",
            "m",
            "--finish-length",
            path_str(&path),
        ],
        None,
    );
    let (_, finish_reason) = join_sse(&stream.assert_success().stdout);
    assert_eq!(finish_reason, "length");
    assert!(stream.stdout.contains(r#""model":"m""#));
}

#[test]
fn openai_diagnostics_go_to_stderr_and_stdout_stays_valid() {
    let parse = run(
        &["parse", "--openai", "--ids", "sequential"],
        Some(UNCLOSED_PARAMETER.as_bytes()),
    );
    parse.assert_success();
    let completion = parse.json();
    let call = &check_completion(&completion, "toolcall")["message"]["tool_calls"][0];
    assert_eq!(arguments(call), json!({"city": "Paris"}));
    assert_eq!(
        stderr_diagnostics(&parse),
        vec![(json!(0), "unclosed_parameter".to_owned())]
    );

    let stream = run(
        &["stream", "--openai", "--chunk-size", "3"],
        Some(UNCLOSED_PARAMETER.as_bytes()),
    );
    stream.assert_success();
    let (joined, finish_reason) = join_sse(&stream.stdout);
    assert_eq!(
        arguments(&joined["tool_calls"][0]),
        json!({"city": "Paris"})
    );
    assert_eq!(finish_reason, "tool_calls");
    assert_eq!(stderr_diagnostics(&stream), stderr_diagnostics(&parse));
}

#[test]
fn openai_flags_are_checked() {
    let path = transcript();
    let path = path_str(&path);
    for args in [
        &["parse", "--finish-length", path][..],
        &["stream", "--openai", "--summary", path],
        &["parse", "--sequential-ids", "--ids", "openai", path],
        &["parse", "--ids", "uuid", path],
        &["parse", "--seed", "-1", path],
    ] {
        run(args, None).assert_usage_error();
    }
    let help = run(&["stream", "--help"], None);
    for flag in ["--openai", "--model", "--finish-length", "--ids", "--seed"] {
        assert!(help.stdout.contains(flag), "{flag} in --help");
    }
}

#[test]
fn stream_openai_of_empty_input_is_one_stop_chunk() {
    let out = run(&["stream", "--openai"], Some(b""));
    out.assert_success();
    let (joined, finish_reason) = join_sse(&out.stdout);
    assert_eq!(joined, json!({"content": null, "tool_calls": []}));
    assert_eq!(finish_reason, "stop");
    assert_eq!(out.stdout.matches("\n\n").count(), 2);
}

// ---------------------------------------------------------------- typing

fn typed_fixture() -> (PathBuf, PathBuf) {
    (
        fixture("typed_invalid.txt"),
        fixture("typed_invalid.tools.json"),
    )
}

#[test]
fn tools_type_values_and_strings_turns_it_off() {
    let (input, tools) = typed_fixture();
    let typed = parse_file(&["--tools", path_str(&tools)], &input);
    let args = arguments(&typed["tool_calls"][0]);
    assert_eq!(args["id"], json!(2.5));
    assert_eq!(args["days"], "three");
    assert!(diagnostic_kinds(&typed).contains(&"invalid_value"));

    let strings = parse_file(
        &["--tools", path_str(&tools), "--typing", "strings"],
        &input,
    );
    let args = arguments(&strings["tool_calls"][0]);
    assert_eq!(args["id"], "2.5");
    assert!(!diagnostic_kinds(&strings).contains(&"invalid_value"));
}

#[test]
fn infer_types_values_without_a_schema() {
    let path = scratch(
        "infer.txt",
        "<tool_call>\n<function=f>\n<parameter=n>\n3\n</parameter>\n<parameter=x>\n2.5\n</parameter>\n\
         <parameter=b>\nFalse\n</parameter>\n<parameter=s>\nhi\n</parameter>\n</function>\n</tool_call>",
    );
    let message = parse_file(&["--typing", "infer"], &path);
    assert_eq!(
        arguments(&message["tool_calls"][0]),
        json!({"n": 3, "x": 2.5, "b": false, "s": "hi"})
    );
}

#[test]
fn strict_returns_a_call_that_failed_as_content() {
    let (input, tools) = typed_fixture();
    let message = parse_file(&["--tools", path_str(&tools), "--strict"], &input);
    assert_eq!(message["tool_calls"], json!([]));
    let text = std::fs::read_to_string(&input).unwrap();
    assert_eq!(message["content"], text);
    assert!(diagnostic_kinds(&message).contains(&"rejected_call"));
}

#[test]
fn an_unknown_typing_is_a_usage_error() {
    let out = run(
        &["parse", "--typing", "json", path_str(&transcript())],
        None,
    );
    assert_eq!(out.status.code(), Some(2), "{}", out.stderr);
    assert!(out.stderr.contains("schema"), "{}", out.stderr);
}
