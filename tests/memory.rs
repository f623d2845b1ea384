//! Peak heap while streaming a huge string value: with
//! `retain_arguments(false)` the parser holds only what it must to decide,
//! so its memory does not grow with the value. (The 100 MB figure is
//! `cargo bench --bench bounds`; this is the same measurement, smaller, so
//! that the test suite runs it.)

use toolcall_stream::{Event, Parser};

#[path = "../benches/support/alloc.rs"]
mod alloc;

#[global_allocator]
static HEAP: alloc::Counting = alloc::Counting::new();

/// Streams a call whose value is `lines` lines, in 4-byte chunks, and
/// returns the peak heap and the number of argument bytes seen.
fn stream_value(lines: usize) -> (usize, usize) {
    let mut parser = Parser::builder().retain_arguments(false).build();
    let mut arguments = 0;
    let mut feed = |parser: &mut Parser, bytes: &[u8]| {
        for piece in bytes.chunks(4) {
            for event in parser.feed(piece) {
                match event {
                    Event::ArgumentsDelta { delta, .. } => arguments += delta.len(),
                    Event::ToolCallEnd { arguments, .. } => assert_eq!(arguments, None),
                    Event::ParameterEnd { value, .. } => assert_eq!(value, None),
                    _ => {}
                }
            }
        }
    };
    let before = HEAP.reset_peak();
    feed(
        &mut parser,
        b"<tool_call>\n<function=write_file>\n<parameter=content>\n",
    );
    let line = "a line, with \"quotes\", <tags>, </parameter-ish> text & a tab\t\n".repeat(4);
    for _ in 0..lines {
        feed(&mut parser, line.as_bytes());
    }
    feed(&mut parser, b"\n</parameter>\n</function>\n</tool_call>");
    for event in parser.finish() {
        assert!(!matches!(event, Event::Diagnostic { .. }), "{event:?}");
    }
    (HEAP.peak() - before, arguments)
}

#[test]
fn a_huge_value_streams_in_bounded_memory() {
    let (small_peak, small_args) = stream_value(2_000);
    let (large_peak, large_args) = stream_value(20_000);
    assert!(large_args > 5_000_000, "{large_args} argument bytes");
    assert!(large_args > 9 * small_args);
    // The goal: under 1 MB for any size; in fact a few hundred bytes.
    assert!(large_peak < 1_000_000, "peak heap {large_peak} bytes");
    // And independent of the size: ten times the value, not a byte more.
    assert_eq!(small_peak, large_peak, "peak heap grew with the value");
}
