//! Throughput benchmarks for the Qwen3-Coder parser (criterion).
//!
//! The inputs are deterministic synthetic transcripts of about 1 MiB, made
//! by `benches/support/transcript.rs` (fixed-seed xorshift, no `rand`), so
//! every run parses the same bytes. Every group reports bytes per second.
//!
//! * `parse/mixed`: one-shot [`toolcall_stream::parse`] of a mixed agentic
//!   transcript (prose with non-marker `<`, large `write_file` calls full of
//!   source code, small calls with several parameters), events collected
//!   into a `Message`.
//! * `stream/chunk/{1,4,16,4096}`: the same transcript fed through one
//!   reused `Parser` (`reset()` between iterations) in chunks of that many
//!   bytes, every event drained and dropped. Chunk size 1 is the worst case
//!   (per-call overhead, markers and UTF-8 characters split everywhere);
//!   4 and 16 are about a token; 4096 is a network read.
//! * `content_only/{parse,chunk_16}`: 1 MiB of prose with no `<` at all:
//!   the content fast path.
//! * `value_heavy/{parse,chunk_16}`: one call whose `content` value is 1 MiB
//!   of source code: the in-value scan and JSON string escaping.
//!
//!   In these two groups `parse` is `Parser::parse` on a reused parser (its
//!   buffers already grown), unlike `parse/mixed`, which builds a new parser
//!   every time as the free function does.
//!
//! Run all of them (a minute or two):
//!
//! ```text
//! cargo bench --bench parse
//! cargo bench --bench parse -- stream        # one group (a name filter)
//! cargo bench --bench parse -- --quick       # a quick, rougher pass
//! ```
//!
//! Wall-clock figures are noisy on shared machines. For stable instruction
//! counts, write the inputs to files (`TOOLCALL_BENCH_DUMP=DIR` writes
//! `DIR/{mixed,content_only,value_heavy}.txt`; `--list` skips measuring)
//! and run the CLI on one under callgrind:
//!
//! ```text
//! TOOLCALL_BENCH_DUMP=/tmp/tc cargo bench --bench parse -- --list
//! cargo build --release
//! valgrind --tool=callgrind --callgrind-out-file=callgrind.out \
//!     target/release/toolcall stream --summary --chunk-size 16 /tmp/tc/mixed.txt
//! callgrind_annotate callgrind.out | head -40
//! ```
//!
//! The total `Ir` (instructions executed) is the figure to compare between
//! revisions; it barely moves from run to run.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use toolcall_stream::{parse, Format, Ids, Parser};

#[path = "support/transcript.rs"]
mod transcript;

use transcript::Transcript;

/// About 1 MiB per input.
const SIZE: usize = 1 << 20;

const CHUNK_SIZES: [usize; 4] = [1, 4, 16, 4096];

fn parser() -> Parser {
    // Sequential ids: no hashing per call, identical output every run.
    Parser::builder()
        .format(Format::Qwen3Coder)
        .ids(Ids::sequential("call_"))
        .build()
}

/// Feeds `input` in `chunk`-byte pieces and drains every event; returns
/// the number of events so the work cannot be optimized away.
fn stream(parser: &mut Parser, input: &[u8], chunk: usize) -> usize {
    parser.reset();
    let mut events = 0;
    for piece in input.chunks(chunk) {
        events += parser.feed(piece).count();
    }
    events + parser.finish().count()
}

/// Checks that a generated input parses as intended: the expected number
/// of calls, all complete, and no diagnostics. A benchmark of malformed
/// input would measure recovery paths instead.
fn checked(name: &str, transcript: Transcript) -> Vec<u8> {
    if let Some(dir) = std::env::var_os("TOOLCALL_BENCH_DUMP") {
        let dir = std::path::PathBuf::from(dir);
        std::fs::create_dir_all(&dir).expect("TOOLCALL_BENCH_DUMP: create dir");
        let path = dir.join(format!("{name}.txt"));
        std::fs::write(&path, &transcript.text).expect("TOOLCALL_BENCH_DUMP: write");
        eprintln!("wrote {}", path.display());
    }
    let message = parser().parse(&transcript.text);
    assert_eq!(
        message.tool_calls.len(),
        transcript.calls,
        "{name}: generated calls"
    );
    assert!(
        message.tool_calls.iter().all(|c| c.complete),
        "{name}: incomplete call"
    );
    assert!(
        message.diagnostics.is_empty(),
        "{name}: unexpected diagnostics: {:?}",
        &message.diagnostics[..message.diagnostics.len().min(3)]
    );
    transcript.text.into_bytes()
}

fn configure<'a>(
    c: &'a mut Criterion,
    name: &str,
) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut group = c.benchmark_group(name);
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    group
}

fn bench_mixed(c: &mut Criterion) {
    let input = checked("mixed", transcript::mixed(SIZE));

    let mut group = configure(c, "parse");
    group.throughput(Throughput::Bytes(input.len() as u64));
    group.bench_function("mixed", |b| {
        b.iter(|| parse(Format::Qwen3Coder, black_box(&input)))
    });
    group.finish();

    let mut group = configure(c, "stream");
    group.throughput(Throughput::Bytes(input.len() as u64));
    let mut p = parser();
    for chunk in CHUNK_SIZES {
        group.bench_with_input(BenchmarkId::new("chunk", chunk), &chunk, |b, &chunk| {
            b.iter(|| stream(&mut p, black_box(&input), chunk))
        });
    }
    group.finish();
}

fn bench_shape(c: &mut Criterion, name: &str, input: &[u8]) {
    let mut group = configure(c, name);
    group.throughput(Throughput::Bytes(input.len() as u64));
    let mut p = parser();
    group.bench_function("parse", |b| b.iter(|| p.parse(black_box(input))));
    group.bench_function("chunk_16", |b| {
        b.iter(|| stream(&mut p, black_box(input), 16))
    });
    group.finish();
}

fn bench_content_only(c: &mut Criterion) {
    let input = checked("content_only", transcript::content_only(SIZE));
    bench_shape(c, "content_only", &input);
}

fn bench_value_heavy(c: &mut Criterion) {
    let input = checked("value_heavy", transcript::value_heavy(SIZE));
    bench_shape(c, "value_heavy", &input);
}

criterion_group!(benches, bench_mixed, bench_content_only, bench_value_heavy);
criterion_main!(benches);
