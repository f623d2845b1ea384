//! Peak heap while streaming a call written in a call syntax (Python's,
//! Gemma's) whose string argument is over 10 MB: the parser's memory does
//! not grow with the value, as for the JSON and XML formats
//! (tests/memory.rs, whose per-thread measurement this shares: the same
//! input gives the same figure on every run, so sizes must give exactly
//! the same peak).

use toolcall_stream::{Event, Format, Parser};

#[path = "../benches/support/alloc.rs"]
mod alloc;

#[global_allocator]
static HEAP: alloc::Counting = alloc::Counting::new();

struct Measured {
    peak: isize,
    arguments: usize,
}

/// Streams one `write_file` call of `format`, its `content` `repeats`
/// times a line of text with the syntax's hard bytes, then a list of
/// `repeats` small values, in 4-byte chunks.
fn stream(format: Format, repeats: usize) -> Measured {
    let python = |open: &'static str, close: &'static str| {
        (
            open,
            "write_file(path='big.txt', content='",
            // Quotes of the other kind, escapes, and the list's and
            // call's closers: all text inside the string.
            "a line, with \\'quotes\\', \"double\", ) ] , <tags> \\u00e9 \\t & more\\n",
            "', data=[",
            "(1, -2.5e3), True, None, {'k': 'v)]'}, ",
            "0])",
            close,
        )
    };
    let gemma = |open: &'static str, delimiter: &'static str, close: &'static str| {
        let line: &'static str = Box::leak(
            "a line, with \"quotes\", } ] , <tool_call|> <end_function_call> & more\n"
                .to_owned()
                .into_boxed_str(),
        );
        let head: &'static str = Box::leak(
            format!("call:write_file{{path:{delimiter}big.txt{delimiter},content:{delimiter}")
                .into_boxed_str(),
        );
        let middle: &'static str = Box::leak(format!("{delimiter},data:[").into_boxed_str());
        let element: &'static str = Box::leak(
            format!("1,-2.5e3,true,null,{{k:{delimiter}v}}{delimiter}}},").into_boxed_str(),
        );
        (open, head, line, middle, element, "0]}", close)
    };
    let (open, head, line, middle, element, end, close) = match format {
        Format::Pythonic => python("[", "]"),
        Format::Olmo3 => python("<function_calls>", "</function_calls>"),
        Format::Lfm2 => python("<|tool_call_start|>[", "]<|tool_call_end|>"),
        Format::Gemma4 => gemma("<|tool_call>", "<|\"|>", "<tool_call|>"),
        Format::FunctionGemma => gemma("<start_function_call>", "<escape>", "<end_function_call>"),
        other => panic!("{other} does not write a call syntax"),
    };
    let mut parser = Parser::builder()
        .format(format)
        .retain_arguments(false)
        .build();
    let mut arguments = 0;
    let mut feed = |parser: &mut Parser, bytes: &[u8]| {
        for piece in bytes.chunks(4) {
            for event in parser.feed(piece) {
                match event {
                    Event::ArgumentsDelta { delta, .. } => arguments += delta.len(),
                    Event::Diagnostic { .. } => panic!("{format}: {event:?}"),
                    _ => {}
                }
            }
        }
    };
    let before = HEAP.reset_peak();
    feed(&mut parser, open.as_bytes());
    feed(&mut parser, head.as_bytes());
    for _ in 0..repeats {
        feed(&mut parser, line.as_bytes());
    }
    feed(&mut parser, middle.as_bytes());
    for _ in 0..repeats {
        feed(&mut parser, element.as_bytes());
    }
    feed(&mut parser, end.as_bytes());
    feed(&mut parser, close.as_bytes());
    for event in parser.finish() {
        assert!(
            !matches!(event, Event::Diagnostic { .. }),
            "{format}: {event:?}"
        );
    }
    Measured {
        peak: HEAP.peak() - before,
        arguments,
    }
}

#[test]
fn a_ten_megabyte_string_argument_streams_in_constant_memory() {
    for format in [
        Format::Pythonic,
        Format::Olmo3,
        Format::Lfm2,
        Format::Gemma4,
        Format::FunctionGemma,
    ] {
        let sizes = [15_000, 150_000];
        let runs = sizes.map(|repeats| stream(format, repeats));
        let [small, large] = &runs;
        assert!(
            large.arguments > 10_000_000,
            "{format}: {} argument bytes",
            large.arguments
        );
        assert!(
            large.peak < 100_000,
            "{format}: peak heap {} bytes",
            large.peak
        );
        assert_eq!(
            large.peak, small.peak,
            "{format}: peak heap grew with the value"
        );
    }
}
