//! The parser's bounds, in bytes rather than seconds (not a criterion
//! bench). Run with
//!
//! ```text
//! cargo bench --bench bounds
//! ```
//!
//! **Latency**: the most content held back at any time (fed, not yet
//! released as an event) over the generated prose and code transcripts, at
//! chunk sizes 1 to 4096: at most the longest marker's length minus one.
//!
//! **Memory**: a `write_file` call whose `content` value is 100 MB is fed in 4-byte
//! chunks, every event drained, and the counting allocator reports the peak
//! heap the parser used, with `retain_arguments(false)` (the parser holds only
//! what it must to decide: bounded whatever the value's size) and with the
//! default `retain_arguments(true)` (it keeps the call's arguments to put
//! them whole in `tool_call_end`: proportional to the call). The allocator
//! counts what the measuring thread allocates, so the figure is the
//! parser's alone and the same on every run; the MB/s figure beside it is
//! wall-clock and only indicative.

use std::hint::black_box;

use toolcall_stream::{Event, Format, Parser};

#[path = "support/alloc.rs"]
mod alloc;

#[path = "support/transcript/mod.rs"]
#[allow(dead_code)]
mod transcript;

#[global_allocator]
static HEAP: alloc::Counting = alloc::Counting::new();

const VALUE_BYTES: usize = 100_000_000;
const CHUNK: usize = 4;

/// Streams the call in `CHUNK`-byte pieces, generated on the fly so that
/// the input itself is not on the heap; returns the value bytes fed.
fn stream(parser: &mut Parser) -> usize {
    let mut feed = |bytes: &[u8]| {
        for piece in bytes.chunks(CHUNK) {
            for event in parser.feed(piece) {
                black_box(event);
            }
        }
    };
    feed(b"Writing it.\n<tool_call>\n<function=write_file>\n<parameter=path>\nbig.txt\n</parameter>\n<parameter=content>\n");
    let line = b"a line of the file, with \"quotes\", <tags> & a tab\t\n";
    let mut fed = 0;
    while fed + line.len() <= VALUE_BYTES {
        feed(line);
        fed += line.len();
    }
    feed(b"\n</parameter>\n</function>\n</tool_call>");
    for event in parser.finish() {
        black_box(event);
    }
    fed
}

fn measure(retain: bool) {
    let mut parser = Parser::builder().retain_arguments(retain).build();
    let before = HEAP.reset_peak();
    let start = std::time::Instant::now();
    let fed = stream(&mut parser);
    let seconds = start.elapsed().as_secs_f64();
    let peak = HEAP.peak() - before;
    println!(
        "retain_arguments({retain}): a {:.0} MB value in {CHUNK}-byte chunks: \
         peak heap {} bytes ({:.3} MB), {:.0} MB/s",
        fed as f64 / 1e6,
        peak,
        peak as f64 / 1e6,
        fed as f64 / 1e6 / seconds
    );
}

/// The most content bytes fed but not yet released, after any chunk.
fn most_held_back(input: &str, chunk: usize) -> usize {
    let mut parser = Parser::new(Format::Qwen3Coder);
    let (mut fed, mut released, mut most) = (0, 0, 0);
    for piece in input.as_bytes().chunks(chunk) {
        for event in parser.feed(piece) {
            if let Event::Content { text } = event {
                released += text.len();
            }
        }
        fed += piece.len();
        most = most.max(fed - released);
    }
    most
}

fn latency() {
    let inputs = [
        ("prose", transcript::content_only(1 << 20).text),
        ("code", transcript::content_code(1 << 20).text),
    ];
    for (name, input) in &inputs {
        let most = [1, 4, 16, 64, 4096]
            .map(|chunk| most_held_back(input, chunk))
            .into_iter()
            .max()
            .unwrap_or(0);
        println!(
            "latency: {name} (1 MiB, chunks of 1 to 4096 bytes): at most {most} bytes of \
             content held back (longest marker `</parameter>`: 12 bytes)"
        );
    }
}

fn main() {
    // `cargo test --benches` runs this with `--list`-like test flags; only
    // `cargo bench` (`--bench`) measures.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    latency();
    measure(false);
    measure(true);
}
