//! Peak heap while streaming one huge string value (not a criterion bench:
//! it measures bytes, not time). Run with
//!
//! ```text
//! cargo bench --bench memory
//! ```
//!
//! A `write_file` call whose `content` value is 100 MB is fed in 4-byte
//! chunks, every event drained, and the counting allocator reports the peak
//! heap the parser used, with `retain_arguments(false)` (the parser holds only
//! what it must to decide: bounded whatever the value's size) and with the
//! default `retain_arguments(true)` (it keeps the call's arguments to put
//! them whole in `tool_call_end`: proportional to the call).

use std::hint::black_box;

use toolcall_stream::Parser;

#[path = "support/alloc.rs"]
mod alloc;

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

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` does not run
    // this file's code at all (harness = false, no tests).
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    measure(false);
    measure(true);
}
