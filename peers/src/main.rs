//! Speed of toolcall-stream next to SGLang's Rust parser (the crates.io
//! crate `tool-parser`, `QwenXmlParser`) on the same transcripts, fed the
//! same way: in pieces of 4 bytes (a token's size; a piece is widened to the
//! next character boundary because SGLang's parser takes `&str`), every
//! result consumed.
//!
//! ```text
//! toolcall-peers dump DIR     # the transcripts and tools.json, for vLLM's harness
//! toolcall-peers measure DIR  # one JSON line per parser and transcript
//! ```
//!
//! `scripts/compare_peers.sh` runs both, vLLM's harness in between, and
//! prints the table.

use std::hint::black_box;
use std::path::Path;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use std::time::Instant;

use openai_protocol::common::Tool;
use tool_parser::parsers::QwenXmlParser;
use tool_parser::ToolParser;
use toolcall_stream::{Event, Parser};

#[path = "../../benches/support/transcript/mod.rs"]
#[allow(dead_code)]
mod transcript;

/// The transcripts compared: the mixed agentic one, and a single large
/// value (SGLang's parser re-scans the open call on every chunk).
fn transcripts() -> Vec<(&'static str, transcript::Transcript)> {
    vec![
        ("mixed", transcript::mixed(200_000)),
        ("large_value", transcript::value_heavy(200_000)),
    ]
}

/// Every function and parameter the generator writes, all strings, so that
/// no parser coerces types (toolcall-stream does not yet).
fn tools_json() -> serde_json::Value {
    let functions: &[(&str, &[&str])] = &[
        ("write_file", &["path", "content"]),
        ("read_file", &["path"]),
        ("run_shell", &["command", "timeout", "cwd"]),
        ("search", &["query", "path", "max_results"]),
        ("get_weather", &["city", "days", "units"]),
        ("edit_file", &["path", "old", "new"]),
    ];
    functions
        .iter()
        .map(|(name, params)| {
            let properties: serde_json::Map<String, serde_json::Value> = params
                .iter()
                .map(|p| (p.to_string(), serde_json::json!({"type": "string"})))
                .collect();
            serde_json::json!({
                "type": "function",
                "function": {
                    "name": name,
                    "description": "",
                    "parameters": {"type": "object", "properties": properties, "required": params},
                },
            })
        })
        .collect()
}

/// `text` in pieces of `size` bytes, each widened to a character boundary.
fn pieces(text: &str, size: usize) -> Vec<&str> {
    let mut out = Vec::with_capacity(text.len() / size + 1);
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        out.push(&text[start..end]);
        start = end;
    }
    out
}

/// What a parser made of a transcript: its calls' names, in order.
struct Outcome {
    names: Vec<String>,
}

fn ours(pieces: &[&str]) -> Outcome {
    let mut parser = Parser::builder().build();
    let mut names = Vec::new();
    let mut consume = |event: Event<'_>| {
        if let Event::ToolCallStart { name, .. } = event {
            names.push(name.to_owned());
        }
        black_box(event);
    };
    // The push API: the fastest way to stream with this crate.
    for piece in pieces {
        parser.feed_with(piece, &mut consume);
    }
    parser.finish_with(&mut consume);
    Outcome { names }
}

/// Runs a future that never waits (SGLang's parser is `async` but does no
/// I/O) to completion without an executor's overhead.
fn ready<T>(future: impl std::future::Future<Output = T>) -> T {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(value) => value,
        Poll::Pending => panic!("the parser awaited something"),
    }
}

fn sglang(pieces: &[&str], tools: &[Tool]) -> Outcome {
    let mut parser = QwenXmlParser::new();
    let mut names = Vec::new();
    for piece in pieces {
        let result = ready(parser.parse_incremental(piece, tools)).expect("sglang parse");
        for call in &result.calls {
            if let Some(name) = &call.name {
                names.push(name.clone());
            }
        }
        black_box(result);
    }
    Outcome { names }
}

/// Median seconds of `runs` runs of `f`, and its last outcome.
fn time(runs: usize, mut f: impl FnMut() -> Outcome) -> (f64, Outcome) {
    let mut seconds = Vec::with_capacity(runs);
    let mut outcome = None;
    for _ in 0..runs {
        let start = Instant::now();
        let result = f();
        seconds.push(start.elapsed().as_secs_f64());
        outcome = Some(result);
    }
    seconds.sort_by(f64::total_cmp);
    (seconds[runs / 2], outcome.expect("runs > 0"))
}

fn expected_names(text: &str) -> Vec<String> {
    toolcall_stream::parse(toolcall_stream::Format::Qwen3Coder, text)
        .tool_calls
        .into_iter()
        .map(|c| c.name)
        .collect()
}

fn measure(dir: &Path) {
    let tools: Vec<Tool> =
        serde_json::from_value(tools_json()).expect("tools deserialize as openai-protocol Tools");
    for (name, transcript) in transcripts() {
        let text = std::fs::read_to_string(dir.join(format!("{name}.txt")))
            .unwrap_or_else(|e| panic!("{name}.txt in {}: {e} (run `dump` first)", dir.display()));
        let expected = expected_names(&text);
        assert_eq!(
            expected.len(),
            transcript.calls,
            "{name}: toolcall-stream's own count"
        );
        let pieces = pieces(&text, 4);
        let runs: [(&str, usize, &dyn Fn() -> Outcome); 2] = [
            ("toolcall-stream", 21, &|| ours(&pieces)),
            ("sglang", 3, &|| sglang(&pieces, &tools)),
        ];
        for (parser, count, run) in runs {
            let (seconds, outcome) = time(count, run);
            let agrees = outcome.names == expected;
            println!(
                "{}",
                serde_json::json!({
                    "parser": parser,
                    "transcript": name,
                    "bytes": text.len(),
                    "chunk_bytes": 4,
                    "seconds": seconds,
                    "mb_per_s": text.len() as f64 / 1e6 / seconds,
                    "calls": outcome.names.len(),
                    "expected_calls": expected.len(),
                    "agrees": agrees,
                })
            );
        }
    }
}

fn dump(dir: &Path) {
    std::fs::create_dir_all(dir).expect("create the dump directory");
    for (name, transcript) in transcripts() {
        std::fs::write(dir.join(format!("{name}.txt")), &transcript.text).expect("write");
    }
    let tools = serde_json::to_string_pretty(&tools_json()).expect("tools JSON");
    std::fs::write(dir.join("tools.json"), tools).expect("write tools.json");
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match (args.get(1).map(String::as_str), args.get(2)) {
        (Some("dump"), Some(dir)) => dump(Path::new(dir)),
        (Some("measure"), Some(dir)) => measure(Path::new(dir)),
        _ => {
            eprintln!("usage: toolcall-peers dump DIR | measure DIR");
            std::process::exit(2);
        }
    }
}
