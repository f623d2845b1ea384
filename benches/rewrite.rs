//! The proxy's cost per upstream chunk: [`Rewriter::push_json`] over a
//! stream of vLLM-style `chat.completion.chunk`s, one token of text each,
//! through a rewriter built as `toolcall proxy` builds one (Qwen3-Coder,
//! the request's tools, no retained arguments).
//!
//! * `prose`: a 400-token answer of plain prose with paragraph breaks
//!   (the text passes unchanged, or changes slightly around the breaks).
//! * `tool_call`: a short answer, then a `get_weather` call streamed as
//!   tokens (the call's chunks are rewritten into `tool_calls`).
//!
//! Each iteration is one whole response (a new rewriter, a role chunk
//! first, a `stop` chunk last, then `finish`); the figure is per chunk.
//!
//! ```text
//! cargo bench --bench rewrite
//! ```
//!
//! For instruction counts, which do not move with the machine's load:
//! `TOOLCALL_REWRITE_RUNS=N` runs each stream (or the one named) N times
//! without criterion.
//!
//! ```text
//! cargo bench --bench rewrite --no-run     # prints the binary's path
//! TOOLCALL_REWRITE_RUNS=200 valgrind --tool=callgrind \
//!     --callgrind-out-file=cg.out target/release/deps/rewrite-HASH prose
//! callgrind_annotate cg.out | head -40
//! ```

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, Throughput};
use serde_json::json;
use toolcall_stream::openai::Rewriter;
use toolcall_stream::{Format, Ids, Parser, ParserBuilder, Tools};

#[path = "support/transcript/mod.rs"]
#[allow(dead_code)]
mod transcript;

const CALL: &str = "\n\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n\
                    </parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>";

/// Text cut as a tokenizer would about: a word with the space before it,
/// punctuation, a run of newlines, a tag's brackets.
fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut prev = '\0';
    for (at, c) in text.char_indices() {
        let cut = at > start
            && match c {
                ' ' => true,
                '\n' => prev != '\n',
                '<' | '>' | '=' | '.' | '!' | '?' | ':' => true,
                _ => prev == '\n' || prev == '>' || prev == '=',
            };
        if cut {
            out.push(&text[start..at]);
            start = at;
        }
        prev = c;
    }
    out.push(&text[start..]);
    out
}

/// An upstream chunk as vLLM writes it.
fn chunk(delta: serde_json::Value, finish: Option<&str>) -> String {
    json!({
        "id": "chatcmpl-x", "object": "chat.completion.chunk", "created": 1, "model": "m",
        "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}]
    })
    .to_string()
}

/// A whole response's chunks for `text`.
fn stream(text: &str) -> Vec<String> {
    let mut chunks = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
    chunks.extend(
        tokens(text)
            .into_iter()
            .map(|token| chunk(json!({"content": token}), None)),
    );
    chunks.push(chunk(json!({"content": ""}), Some("stop")));
    chunks
}

fn streams() -> [(&'static str, Vec<String>); 2] {
    let prose = transcript::content_only(4000).text;
    let words = tokens(&prose);
    let prose: String = words[..400].concat();
    let answer: String = words[..40].concat();
    [
        ("prose", stream(&prose)),
        ("tool_call", stream(&format!("{answer}{CALL}"))),
    ]
}

fn builder() -> ParserBuilder {
    let tools = Arc::new(Tools::from_json(transcript::TOOLS).unwrap());
    // As the proxy builds it; sequential ids: the same output every run.
    Parser::builder()
        .format(Format::Qwen3Coder)
        .tools(tools)
        .ids(Ids::sequential("call_"))
        .retain_arguments(false)
}

/// One response through a new rewriter; the bytes written.
fn rewrite(builder: &ParserBuilder, chunks: &[String], out: &mut String) -> usize {
    let mut rewriter = Rewriter::new(builder.clone());
    let mut written = 0;
    for chunk in chunks {
        out.clear();
        rewriter.push_json(chunk, out).unwrap();
        written += black_box(out.as_str()).len();
    }
    let mut last = Vec::new();
    rewriter.finish(&mut last);
    black_box(last);
    written
}

fn bench(c: &mut Criterion) {
    let builder = builder();
    let mut group = c.benchmark_group("push_json");
    for (name, chunks) in streams() {
        group.throughput(Throughput::Elements(chunks.len() as u64));
        let mut out = String::new();
        group.bench_function(name, |b| {
            b.iter(|| rewrite(&builder, &chunks, &mut out));
        });
    }
    group.finish();
}

fn main() {
    if let Some(runs) = std::env::var_os("TOOLCALL_REWRITE_RUNS") {
        let runs: usize = runs.to_str().and_then(|r| r.parse().ok()).expect("a count");
        // A name as the first argument: that stream only.
        let only = std::env::args().nth(1);
        let builder = builder();
        let mut out = String::new();
        for (name, chunks) in streams() {
            if only.as_deref().is_some_and(|only| only != name) {
                continue;
            }
            let mut written = 0;
            for _ in 0..runs {
                written += rewrite(&builder, &chunks, &mut out);
            }
            println!(
                "{name}: {} chunks, {written} bytes out",
                chunks.len() * runs
            );
        }
        return;
    }
    let mut criterion = Criterion::default().configure_from_args();
    bench(&mut criterion);
    criterion.final_summary();
}
