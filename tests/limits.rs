//! Adversarial inputs and the configurable bounds: whatever arrives, the
//! parser holds a bounded number of bytes, loses no text and never panics.

mod common;

use common::{check_contract, feed_cut, message_of, one_shot};
use toolcall_stream::{
    coalesce, DiagnosticKind, Event, Format, Ids, Limits, Message, OwnedEvent, Parser,
};

/// Held bytes never exceed this with default limits: the most a tentative
/// opening holds (`<tool_call>`, the look-ahead window of whitespace,
/// `<function=` and the longest name), a partial marker and an incomplete
/// UTF-8 character. A name is counted once (it was counted twice before).
const HELD_BOUND: usize = "<tool_call>".len()
    + 256 // Limits::lookahead
    + "<function=".len()
    + 256 // Limits::max_name_len
    + "</parameter>".len()
    + 3;

fn parser_with(limits: Limits) -> Parser {
    Parser::builder()
        .format(Format::Qwen3Coder)
        .ids(Ids::sequential("call_"))
        .limits(limits)
        .build()
}

/// Streams `parts` (repeated `times`) in `chunk`-byte pieces, checking the
/// hold-back bound after every feed; returns the message and the most bytes
/// held once the parts before `measure_from` were fed.
fn stream_bounded(parts: &[(&[u8], usize)], chunk: usize, measure_from: usize) -> (Message, usize) {
    struct Run {
        parser: Parser,
        message: toolcall_stream::MessageBuilder,
        max_held: Option<usize>,
    }
    impl Run {
        fn feed(&mut self, bytes: &[u8]) {
            self.message.extend(self.parser.feed(bytes));
            let held = self.parser.held_back();
            assert!(held <= HELD_BOUND, "held {held} bytes");
            if let Some(max) = &mut self.max_held {
                *max = (*max).max(held);
            }
        }
    }
    let mut run = Run {
        parser: parser_with(Limits::default()),
        message: toolcall_stream::MessageBuilder::new(),
        max_held: None,
    };
    let mut pending: Vec<u8> = Vec::with_capacity(chunk);
    for (i, &(part, times)) in parts.iter().enumerate() {
        if i == measure_from {
            run.feed(&pending);
            pending.clear();
            run.max_held = Some(0);
        }
        for _ in 0..times {
            for &byte in part {
                pending.push(byte);
                if pending.len() == chunk {
                    run.feed(&pending);
                    pending.clear();
                }
            }
        }
    }
    run.feed(&pending);
    run.message.extend(run.parser.finish());
    (run.message.finish(), run.max_held.unwrap_or(0))
}

fn kinds(message: &Message) -> Vec<DiagnosticKind> {
    message.diagnostics.iter().map(|d| d.kind).collect()
}

#[test]
fn a_100_mb_value_without_closer_streams_with_bounded_hold_back() {
    const LINE: &[u8] = b"let x = a < b && c > d; // </parameter x> <function=no>\n";
    let repeats = 100 * 1024 * 1024 / LINE.len();
    let head: &[u8] = b"<tool_call>\n<function=write_file>\n<parameter=content>\n";
    let (message, max_held) = stream_bounded(&[(head, 1), (LINE, repeats)], 4096, 1);
    assert_eq!(message.tool_calls.len(), 1);
    let call = &message.tool_calls[0];
    assert!(!call.complete, "a value cut off by the end is incomplete");
    assert!(call.arguments.len() > 100 * 1000 * 1000);
    let arguments: serde_json::Value = serde_json::from_str(&call.arguments).unwrap();
    let value = arguments["content"].as_str().unwrap();
    assert_eq!(
        value.len(),
        LINE.len() * repeats - 1,
        "all but the layout newline"
    );
    assert!(kinds(&message).contains(&DiagnosticKind::Truncated));
    assert!(max_held <= HELD_BOUND);
}

#[test]
fn a_value_streamed_in_token_sized_chunks_holds_almost_nothing() {
    let head: &[u8] = b"<tool_call>\n<function=f>\n<parameter=v>\n";
    let line: &[u8] = "fn main() { println!(\"<é>\"); }\n".as_bytes();
    let (message, max_held) = stream_bounded(&[(head, 1), (line, 20_000)], 4, 1);
    assert_eq!(message.tool_calls.len(), 1);
    // The longest thing held inside a value is a closer-like marker.
    assert!(max_held <= 16, "held {max_held} bytes inside a value");
}

#[test]
fn a_million_open_angles_come_back_as_content() {
    let input = vec![b'<'; 1_000_000];
    let (message, max_held) = stream_bounded(&[(&input, 1)], 7, 0);
    assert_eq!(message.content.as_deref().map(str::len), Some(input.len()));
    assert!(message.tool_calls.is_empty() && message.diagnostics.is_empty());
    assert!(max_held <= 2);
}

#[test]
fn a_million_tool_call_openings_come_back_as_content() {
    let (message, max_held) = stream_bounded(&[(b"<tool_call>", 100_000)], 13, 0);
    assert_eq!(message.content.as_deref().map(str::len), Some(1_100_000));
    assert!(message.tool_calls.is_empty());
    assert!(max_held <= HELD_BOUND);
}

#[test]
fn a_function_name_that_never_ends_comes_back_as_content() {
    let head = b"<tool_call>\n<function=";
    let (message, max_held) = stream_bounded(&[(head, 1), (b"a", 10_000_000)], 64, 1);
    assert!(message.tool_calls.is_empty());
    assert_eq!(
        message.content.as_deref().map(str::len),
        Some(head.len() + 10_000_000)
    );
    assert!(max_held <= HELD_BOUND);
}

#[test]
fn a_parameter_name_that_never_ends_is_stray_text() {
    let head = b"<tool_call>\n<function=f>\n<parameter=";
    let (message, max_held) = stream_bounded(&[(head, 1), (b"k", 1_000_000)], 64, 1);
    assert_eq!(message.tool_calls.len(), 1);
    assert_eq!(message.tool_calls[0].arguments, "{}");
    let kinds = kinds(&message);
    assert!(kinds.contains(&DiagnosticKind::StrayText), "{kinds:?}");
    assert!(kinds.contains(&DiagnosticKind::Truncated), "{kinds:?}");
    assert!(max_held <= HELD_BOUND);
}

#[test]
fn deeply_nested_json_in_a_value_stays_a_string() {
    let depth = 100_000;
    let value = "[".repeat(depth) + &"]".repeat(depth) + &"{\"a\":".repeat(depth);
    let input = format!("<tool_call>\n<function=f>\n<parameter=v>\n{value}\n</parameter>\n</function>\n</tool_call>");
    let message = parser_with(Limits::default()).parse(&input);
    assert!(message.diagnostics.is_empty());
    // serde_json would refuse this depth; the arguments are checked as text.
    let expected = format!("{{\"v\": \"{}\"}}", value.replace('"', "\\\""));
    assert_eq!(message.tool_calls[0].arguments, expected);
}

#[test]
fn invalid_utf8_is_replaced_and_reported_once() {
    let mut input = Vec::new();
    for i in 0..50_000u32 {
        input.extend_from_slice(&[0xff, b'a', 0xc3, b'<', 0xe2, 0x82]);
        input.extend_from_slice(&i.to_le_bytes());
    }
    let mut parser = parser_with(Limits::default());
    let whole = one_shot(&mut parser, &input);
    check_contract(&whole, "invalid utf-8");
    let message = message_of(&whole);
    assert_eq!(kinds(&message), [DiagnosticKind::InvalidUtf8]);
    let content = message.content.unwrap();
    assert_eq!(content, String::from_utf8_lossy(&input));
    let cuts: Vec<usize> = (3..input.len()).step_by(5).collect();
    assert_eq!(
        coalesce(feed_cut(&mut parser, &input, &cuts)),
        coalesce(whole)
    );
}

fn calls(n: usize, params: usize) -> String {
    let mut text = String::from("Start.\n");
    for call in 0..n {
        text.push_str(&format!("<tool_call>\n<function=f{call}>\n"));
        for p in 0..params {
            text.push_str(&format!("<parameter=p{p}>\n{p}\n</parameter>\n"));
        }
        text.push_str("</function>\n</tool_call>\n");
    }
    text + "End."
}

/// Every split of `input` gives the same events as one chunk.
fn split_invariant(parser: &mut Parser, input: &str) -> Vec<OwnedEvent> {
    let whole = one_shot(parser, input.as_bytes());
    check_contract(&whole, input);
    for size in [1, 2, 3, 5, 8, 13] {
        let cuts: Vec<usize> = (size..input.len()).step_by(size).collect();
        let split = feed_cut(parser, input.as_bytes(), &cuts);
        assert_eq!(
            coalesce(split),
            coalesce(whole.clone()),
            "chunk size {size}"
        );
    }
    whole
}

#[test]
fn calls_past_max_calls_come_back_as_content() {
    let mut limits = Limits::default();
    limits.max_calls = 2;
    let mut parser = parser_with(limits);
    let input = calls(4, 1);
    let message = message_of(&split_invariant(&mut parser, &input));
    let names: Vec<_> = message.tool_calls.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["f0", "f1"]);
    assert!(message.tool_calls.iter().all(|c| c.complete));
    assert_eq!(kinds(&message), [DiagnosticKind::LimitExceeded]);
    let content = message.content.unwrap();
    assert!(content.starts_with("Start.\n"), "{content:?}");
    assert!(content.contains("<function=f2>") && content.contains("<function=f3>"));
    assert!(content.ends_with("End."));
    assert_eq!(
        parser.parse(&input).diagnostics[0].message,
        "more than 2 calls (`max_calls`); the rest of the calls are returned as content"
    );
}

#[test]
fn parameters_past_max_parameters_are_ignored_and_the_call_is_incomplete() {
    let mut limits = Limits::default();
    limits.max_parameters = 2;
    let mut parser = parser_with(limits);
    let input = calls(2, 4);
    let message = message_of(&split_invariant(&mut parser, &input));
    assert_eq!(message.tool_calls.len(), 2);
    for call in &message.tool_calls {
        assert_eq!(call.arguments, r#"{"p0": "0", "p1": "1"}"#);
        assert!(!call.complete, "a call that lost parameters must not run");
    }
    let limit_reports = kinds(&message)
        .iter()
        .filter(|k| **k == DiagnosticKind::LimitExceeded)
        .count();
    assert_eq!(limit_reports, 1, "{:?}", message.diagnostics);
    assert!(kinds(&message).contains(&DiagnosticKind::StrayText));
    // The newline after the last call is content; between calls it is layout.
    assert_eq!(message.content.as_deref(), Some("Start.\n\nEnd."));
}

#[test]
fn the_default_limits_are_generous_and_documented() {
    let limits = Limits::default();
    assert_eq!(limits.max_name_len, 256);
    assert_eq!(limits.lookahead, 256);
    assert_eq!(limits.max_calls, 1024);
    assert_eq!(limits.max_parameters, 256);
    let message = parser_with(limits).parse(calls(1024, 3));
    assert_eq!(message.tool_calls.len(), 1024);
    assert!(message.diagnostics.is_empty());
}

#[test]
fn events_borrowed_and_owned_agree_on_adversarial_input() {
    let input = "<tool_call><function=<tool_call><function=a><parameter=<parameter=b>x</parameter></function>";
    let mut parser = parser_with(Limits::default());
    let owned: Vec<OwnedEvent> = parser.feed(input).map(Event::into_owned).collect();
    let json: Vec<String> = owned
        .iter()
        .map(|e| serde_json::to_string(e).unwrap())
        .collect();
    parser.reset();
    let borrowed: Vec<String> = parser
        .feed(input)
        .map(|e| serde_json::to_string(&e).unwrap())
        .collect();
    assert_eq!(json, borrowed);
}
