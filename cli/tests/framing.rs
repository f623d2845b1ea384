//! The `toolcall` binary's framing: every line it writes to a JSON-lines
//! output is one JSON value, whatever the model wrote (a typed value laid
//! out over lines included), and every output ends with a newline.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;
use toolcall_stream::{Format, Typing};

/// The repository root, where the fixtures are (this package is its
/// `cli/` directory).
fn repo_root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// Runs `toolcall ARGS` on no stdin and checks that it succeeded.
fn run(args: &[&str]) -> (String, String) {
    let Output {
        status,
        stdout,
        stderr,
    } = Command::new(env!("CARGO_BIN_EXE_toolcall"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("spawn toolcall");
    let stderr = String::from_utf8(stderr).expect("stderr is UTF-8");
    assert!(status.success(), "{args:?}: exit {status:?}, {stderr}");
    let stdout = String::from_utf8(stdout).expect("stdout is UTF-8");
    (stdout, stderr)
}

/// `text` as JSON lines: each line alone is one JSON value (so none is
/// empty), and the last ends with a newline. Returns the values.
#[track_caller]
fn json_lines(text: &str, what: &str) -> Vec<Value> {
    // No lines at all (no events) is a valid JSON-lines output too.
    assert!(
        text.is_empty() || text.ends_with('\n'),
        "{what}: no final newline: {text:?}"
    );
    text.lines()
        .map(|line| {
            serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{what}: a line is not one JSON value ({e}): {line:?}"))
        })
        .collect()
}

/// `text` as server-sent events: `data: JSON` and a blank line, again and
/// again, the last `data: [DONE]`.
#[track_caller]
fn sse_frames(text: &str, what: &str) {
    let frames = text
        .strip_suffix("\n\n")
        .unwrap_or_else(|| panic!("{what}: does not end with a blank line: {text:?}"));
    let frames: Vec<&str> = frames.split("\n\n").collect();
    let (done, chunks) = frames.split_last().unwrap();
    assert_eq!(*done, "data: [DONE]", "{what}");
    assert!(!chunks.is_empty(), "{what}: no chunk before [DONE]");
    for frame in chunks {
        let json = frame
            .strip_prefix("data: ")
            .unwrap_or_else(|| panic!("{what}: not a data line: {frame:?}"));
        let chunk: Value = serde_json::from_str(json)
            .unwrap_or_else(|e| panic!("{what}: a chunk is not one JSON line ({e}): {frame:?}"));
        assert_eq!(chunk["object"], "chat.completion.chunk", "{what}");
    }
}

/// Every fixture, `tests/fixtures/<format>/*.txt`, with its format, its
/// `*.tools.json` when there is one, and `--strict` for a `*.strict.txt`.
fn fixtures() -> Vec<(Format, PathBuf, Option<PathBuf>, bool)> {
    let mut found = Vec::new();
    let root = repo_root().join("tests/fixtures");
    for dir in std::fs::read_dir(&root).unwrap() {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        let name = dir.file_name().unwrap().to_str().unwrap();
        let format: Format = name
            .parse()
            .unwrap_or_else(|e| panic!("fixture directory {name} is not a format: {e}"));
        for file in std::fs::read_dir(&dir).unwrap() {
            let path = file.unwrap().path();
            let Some(stem) = path.to_str().unwrap().strip_suffix(".txt") else {
                continue;
            };
            let tools = PathBuf::from(format!("{stem}.tools.json"));
            let strict = stem.ends_with(".strict");
            found.push((
                format,
                path.clone(),
                tools.exists().then_some(tools),
                strict,
            ));
        }
    }
    found.sort_by(|a, b| a.1.cmp(&b.1));
    found
}

#[test]
fn every_output_line_of_every_fixture_is_one_json_value() {
    let fixtures = fixtures();
    assert!(fixtures.len() > 50, "fixtures not found");
    // At least one fixture lays a typed value out over lines, so the
    // schema typing below does write such a value.
    assert!(fixtures
        .iter()
        .any(|f| f.1.ends_with("typed_split_value.txt")));
    for (format, path, tools, strict) in &fixtures {
        let mut common = vec![
            "--format",
            format.name(),
            "--sequential-ids",
            path.to_str().unwrap(),
        ];
        if let Some(tools) = tools {
            common.extend(["--tools", tools.to_str().unwrap()]);
        }
        if *strict {
            common.push("--strict");
        }
        // The typings that can change the values written. Without tools,
        // `schema` types nothing (as `strings`) and there is no schema for
        // a Python literal to satisfy: `infer` is the one other typing.
        let typings: Vec<Vec<&str>> = match tools {
            Some(_) => Typing::ALL
                .iter()
                .map(|t| vec!["--typing", t.name()])
                .chain([vec!["--python-literals"]])
                .collect(),
            None => vec![vec!["--typing", "schema"], vec!["--typing", "infer"]],
        };
        for (i, typing) in typings.iter().enumerate() {
            let mut modes = vec![
                &["stream"][..],
                &["stream", "--openai"],
                &["parse"],
                &["parse", "--openai"],
            ];
            if i == 0 {
                // Modes that write no value, or the same one in smaller
                // pieces: once is enough.
                modes.extend([
                    &["stream", "--chunk-size", "1"][..],
                    &["stream", "--lean"],
                    &["stream", "--summary"],
                ]);
            }
            for mode in modes {
                let args: Vec<&str> = mode.iter().chain(&common).chain(typing).copied().collect();
                let what = format!("{args:?}");
                let (stdout, stderr) = run(&args);
                if mode == ["stream", "--openai"] {
                    sse_frames(&stdout, &what);
                } else {
                    let lines = json_lines(&stdout, &what);
                    if mode[0] == "parse" || mode.contains(&"--summary") {
                        assert_eq!(lines.len(), 1, "{what}");
                    }
                }
                // Only `--openai` writes to stderr: diagnostics, one JSON
                // line each.
                if mode.contains(&"--openai") {
                    json_lines(&stderr, &what);
                } else {
                    assert!(stderr.is_empty(), "{what}: stderr {stderr}");
                }
            }
        }
    }
}

/// A typed object the model wrote over lines, as models often do.
const MULTI_LINE_OBJECT: &str = "<tool_call>\n<function=resize>\n<parameter=dimensions>\n\
    {\"width\": 10,\n \"height\": 20}\n</parameter>\n</function>\n</tool_call>";

const RESIZE_TOOLS: &str = r#"[{"type": "function", "function": {"name": "resize",
    "parameters": {"type": "object", "properties": {"dimensions": {"type": "object"}}}}}]"#;

/// A file under Cargo's per-test-target scratch directory.
fn scratch(name: &str, contents: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("framing-{name}"));
    std::fs::write(&path, contents).unwrap();
    path
}

#[test]
fn a_typed_object_written_over_lines_stays_on_one_event_line() {
    let input = scratch("multi-line-object.txt", MULTI_LINE_OBJECT);
    let tools = scratch("resize.tools.json", RESIZE_TOOLS);
    let (stdout, _) = run(&[
        "stream",
        "--tools",
        tools.to_str().unwrap(),
        input.to_str().unwrap(),
    ]);
    let events = json_lines(&stdout, "stream");
    let ends: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "parameter_end")
        .collect();
    assert_eq!(ends.len(), 1, "{stdout}");
    // The value is the object itself, not a string, and the same JSON.
    assert_eq!(
        ends[0]["value"],
        serde_json::json!({"width": 10, "height": 20})
    );
    let end = events
        .iter()
        .find(|e| e["type"] == "tool_call_end")
        .unwrap();
    let arguments: Value = serde_json::from_str(end["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(arguments["dimensions"], ends[0]["value"]);
}

#[test]
fn parse_openai_ends_with_a_newline() {
    let input = scratch("multi-line-object-openai.txt", MULTI_LINE_OBJECT);
    let (stdout, _) = run(&["parse", "--openai", input.to_str().unwrap()]);
    assert!(stdout.ends_with('\n'), "{stdout:?}");
    assert_eq!(json_lines(&stdout, "parse --openai").len(), 1);
}
