//! `toolcall stream`: its events at any chunk size, `--summary`,
//! `--lean`, and live and closed pipes.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Instant;

use serde_json::Value;
use toolcall_stream::{Format, Parser};

use crate::{
    diagnostic_kinds, keys, merge, parse_file, path_str, repo_root, run, scratch, set,
    spawn_reader, stream_events, toolcall, transcript, wait, Merged, Run, TIMEOUT,
};

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
