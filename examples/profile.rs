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
//! Instruction counts do not move with the machine's load, unlike
//! wall-clock time: divide the total by three times the file's size for
//! instructions per byte.

use std::hint::black_box;
use std::process::ExitCode;

use toolcall_stream::{Event, Format, Ids, Limits, Parser};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: profile FILE CHUNK_SIZE (0 = whole) iter|push [FORMAT]");
        return ExitCode::from(2);
    }
    let input = match std::fs::read(&args[1]) {
        Ok(input) => input,
        Err(e) => {
            eprintln!("profile: cannot read {}: {e}", args[1]);
            return ExitCode::from(2);
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
        None => Format::Qwen3Coder,
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
    println!("{events} events");
    ExitCode::SUCCESS
}
