//! A harness for profiling the parser under callgrind: feeds a file in
//! chunks of N bytes (0: whole) through `feed` (iterator) or `feed_with`
//! (push), three passes through one reused parser, every event consumed.
//!
//! ```text
//! TOOLCALL_BENCH_DUMP=/tmp/tc cargo bench --bench parse -- --list   # the bench inputs
//! cargo build --profile bench --example profile
//! valgrind --tool=callgrind --callgrind-out-file=cg.out \
//!     target/release/examples/profile /tmp/tc/tool_dense-1MiB.txt 4 push
//! callgrind_annotate cg.out | head -40
//! ```
//!
//! `@prose`, `@code`, `@tool_dense` or `@tool_dense_glm` for FILE makes
//! that bench input (1 MiB) instead of reading one.
//!
//! Instruction counts do not move with the machine's load, unlike
//! wall-clock time: divide the total by three times the file's size for
//! instructions per byte.

use std::hint::black_box;
use std::process::ExitCode;

use toolcall_stream::{Event, Format, Ids, Limits, Parser};

#[path = "../benches/support/transcript/mod.rs"]
#[allow(dead_code)]
mod transcript;

/// The bench inputs the harness can make itself (`@NAME` for FILE), 1 MiB
/// each, as `cargo bench --bench parse` makes them: what the instruction
/// budget (`scripts/instruction_budget.py`) measures without a bench build.
fn generated(name: &str) -> Option<(Vec<u8>, Format)> {
    const SIZE: usize = 1 << 20;
    let (transcript, format) = match name {
        "prose" => (transcript::content_only(SIZE), Format::Qwen3Coder),
        "code" => (transcript::content_code(SIZE), Format::Qwen3Coder),
        "tool_dense" => (transcript::mixed(SIZE), Format::Qwen3Coder),
        "tool_dense_glm" => (transcript::mixed_glm(SIZE), Format::Glm45),
        _ => return None,
    };
    Some((transcript.text.into_bytes(), format))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: profile FILE|@NAME CHUNK_SIZE (0 = whole) iter|push [FORMAT]");
        return ExitCode::from(2);
    }
    let mut default_format = Format::Qwen3Coder;
    let input = if let Some(name) = args[1].strip_prefix('@') {
        let Some((input, format)) = generated(name) else {
            eprintln!(
                "profile: no generated input {name:?} (prose, code, tool_dense, tool_dense_glm)"
            );
            return ExitCode::from(2);
        };
        default_format = format;
        input
    } else {
        match std::fs::read(&args[1]) {
            Ok(input) => input,
            Err(e) => {
                eprintln!("profile: cannot read {}: {e}", args[1]);
                return ExitCode::from(2);
            }
        }
    };
    let chunk = match args[2].parse::<usize>() {
        Ok(0) => input.len().max(1),
        Ok(n) => n,
        Err(e) => {
            eprintln!("profile: bad chunk size {:?}: {e}", args[2]);
            return ExitCode::from(2);
        }
    };
    let push = match args[3].as_str() {
        "push" => true,
        "iter" => false,
        other => {
            eprintln!("profile: expected `iter` or `push`, not {other:?}");
            return ExitCode::from(2);
        }
    };
    let format = match args.get(4).map(|name| name.parse::<Format>()) {
        None => default_format,
        Some(Ok(format)) => format,
        Some(Err(e)) => {
            eprintln!("profile: {e}");
            return ExitCode::from(2);
        }
    };
    // Many responses' worth of calls: lift the per-stream bound.
    let mut limits = Limits::default();
    limits.max_calls = usize::MAX;
    let mut parser = Parser::builder()
        .format(format)
        .ids(Ids::sequential("call_"))
        .limits(limits)
        .build();
    let events = passes(&mut parser, &input, chunk, push);
    println!("{events} events, {} bytes", input.len());
    ExitCode::SUCCESS
}

/// The three passes, all a profile should count (callgrind
/// `--toggle-collect='*passes*'` counts only them, without reading or
/// making the input).
#[inline(never)]
fn passes(parser: &mut Parser, input: &[u8], chunk: usize, push: bool) -> usize {
    let mut events = 0usize;
    for _ in 0..3 {
        parser.reset();
        let mut consume = |event: Event<'_>| {
            black_box(event);
            events += 1;
        };
        for piece in input.chunks(chunk) {
            if push {
                parser.feed_with(piece, &mut consume);
            } else {
                for event in parser.feed(piece) {
                    consume(event);
                }
            }
        }
        for event in parser.finish() {
            consume(event);
        }
    }
    events
}
