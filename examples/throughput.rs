//! Wall-clock throughput as an SSE server sees it: a file fed through
//! `feed_with` in fixed-size chunks, values typed by the request's tools,
//! arguments not retained, every event consumed; the best of several
//! timed passes through one reused parser.
//!
//! ```text
//! cargo build --profile bench --example throughput
//! target/release/examples/throughput FILE CHUNK_SIZE (0 = whole) FORMAT [TOOLS_JSON] [PASSES]
//! ```
//!
//! Prints `MB/s events`. `--no-watch` turns the `foreign_format` watch
//! off. Past that flag it uses only API the crate has had since its
//! three-format engine, so `scripts/against_baseline.py` builds this same
//! file against an older commit (with `--cfg baseline`, which leaves the
//! flag out) and compares the two in one run.

// `baseline` is set only by scripts/against_baseline.py's older build.
#![allow(unexpected_cfgs)]

use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

use toolcall_stream::{Event, Format, Ids, Limits, Parser, Tools};

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().collect();
    let watch = !args.iter().any(|a| a == "--no-watch");
    args.retain(|a| a != "--no-watch");
    if args.len() < 4 {
        eprintln!("usage: throughput [--no-watch] FILE CHUNK_SIZE (0 = whole) FORMAT [TOOLS_JSON] [PASSES]");
        return ExitCode::from(2);
    }
    let input = match std::fs::read(&args[1]) {
        Ok(input) => input,
        Err(e) => {
            eprintln!("throughput: cannot read {}: {e}", args[1]);
            return ExitCode::from(2);
        }
    };
    let chunk = match args[2].parse::<usize>() {
        Ok(0) => input.len().max(1),
        Ok(n) => n,
        Err(e) => {
            eprintln!("throughput: bad chunk size {:?}: {e}", args[2]);
            return ExitCode::from(2);
        }
    };
    let format = match args[3].parse::<Format>() {
        Ok(format) => format,
        Err(e) => {
            eprintln!("throughput: {e}");
            return ExitCode::from(2);
        }
    };
    // Many responses' worth of calls: lift the per-stream bound.
    let mut limits = Limits::default();
    limits.max_calls = usize::MAX;
    let mut builder = Parser::builder()
        .format(format)
        .ids(Ids::sequential("call_"))
        .limits(limits)
        .retain_arguments(false);
    #[cfg(not(baseline))]
    {
        builder = builder.watch_foreign_formats(watch);
    }
    #[cfg(baseline)]
    if !watch {
        eprintln!("throughput: --no-watch needs a build with the watch");
        return ExitCode::from(2);
    }
    if let Some(path) = args.get(4) {
        let tools = std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|text| Tools::from_json(&text).map_err(|e| e.to_string()));
        match tools {
            Ok(tools) => builder = builder.tools(tools),
            Err(e) => {
                eprintln!("throughput: tools {path}: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let passes = match args.get(5).map(|n| n.parse::<usize>()) {
        None => 5,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => {
            eprintln!("throughput: PASSES must be a positive number");
            return ExitCode::from(2);
        }
    };
    let mut parser = builder.build();
    let mut best = f64::INFINITY;
    let mut events = 0;
    for _ in 0..passes {
        let start = Instant::now();
        events = pass(&mut parser, &input, chunk);
        best = best.min(start.elapsed().as_secs_f64());
    }
    println!("{:.1} {events}", input.len() as f64 / best / 1e6);
    ExitCode::SUCCESS
}

#[inline(never)]
fn pass(parser: &mut Parser, input: &[u8], chunk: usize) -> usize {
    let mut events = 0usize;
    parser.reset();
    let mut consume = |event: Event<'_>| {
        black_box(event);
        events += 1;
    };
    for piece in input.chunks(chunk) {
        parser.feed_with(piece, &mut consume);
    }
    parser.finish_with(&mut consume);
    events
}
