//! Diagnostics' byte spans: where in the input each one points. That they
//! are the same however the input is split is checked with every other
//! event (`tests/split.rs`, `tests/properties/`); here, what they point
//! at.

mod common;

use toolcall_stream::{parse, Diagnostic, DiagnosticKind as Kind, Format, Parser, Span};

fn diagnostics(parser: &mut Parser, input: &[u8]) -> Vec<Diagnostic> {
    parser.parse(input).diagnostics
}

fn only(diagnostics: &[Diagnostic], kind: Kind) -> &Diagnostic {
    let found: Vec<_> = diagnostics.iter().filter(|d| d.kind == kind).collect();
    assert_eq!(found.len(), 1, "{kind:?} in {diagnostics:#?}");
    found[0]
}

#[test]
fn every_fixture_has_spans_inside_its_input_on_character_boundaries() {
    for fixture in common::fixtures() {
        let message = fixture.parser().parse(&fixture.input);
        for d in &message.diagnostics {
            let Span { start, end } = d.span;
            assert!(
                start <= end && end as usize <= fixture.input.len(),
                "{}: {d:?}",
                fixture.name
            );
            // A UI slices the output there: both ends fall between
            // characters (bytes that are not UTF-8 aside).
            if let Ok(text) = std::str::from_utf8(&fixture.input) {
                assert!(
                    text.get(d.span.range()).is_some(),
                    "{}: {d:?} cuts a character",
                    fixture.name
                );
            }
        }
    }
}

#[test]
fn invalid_json_points_from_the_call_to_the_byte_that_is_not_json() {
    let text = "Sure.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1]}}\n</tool_call>";
    let message = parse(Format::Hermes, text);
    let d = only(&message.diagnostics, Kind::InvalidJson);
    assert_eq!(&text[d.span.range()], &text[6..text.find(']').unwrap() + 1]);
}

#[test]
fn a_missing_closer_points_from_the_call_to_the_marker_that_ended_the_value() {
    let text = "<tool_call>\n<function=f>\n<parameter=a>\n1\n<parameter=b>\n2\n</parameter>\n</function>\n</tool_call>";
    let message = parse(Format::Qwen3Coder, text);
    let d = only(&message.diagnostics, Kind::UnclosedParameter);
    // Decided when the next parameter's name proved to be one: at its `>`.
    let second = text.find("<parameter=b>").unwrap() + "<parameter=b>".len();
    assert_eq!(d.span, Span::new(0, second as u64));
}

#[test]
fn truncation_points_from_the_call_to_the_end_of_the_input() {
    let text = "Let me look.\n<tool_call>\n<function=search>\n<parameter=q>rust";
    let message = parse(Format::Qwen3Coder, text);
    let d = only(&message.diagnostics, Kind::Truncated);
    assert_eq!(d.span, Span::new(13, text.len() as u64));
}

#[test]
fn a_name_kept_with_its_spaces_points_from_the_call_to_the_names_end() {
    // Inside the wrapper a name with spaces is kept as written, which its
    // `>` decides.
    let text = "<tool_call>\n<function=get weather and more>\n</function>\n</tool_call>";
    let message = parse(Format::Qwen3Coder, text);
    let d = only(&message.diagnostics, Kind::InvalidName);
    let end = text.find("more>").unwrap() + "more>".len();
    assert_eq!(d.span, Span::new(0, end as u64));
}

#[test]
fn a_refused_name_points_at_the_character_that_refused_it() {
    // Past `max_name_len`, whatever the chunking: at the first byte over.
    let mut limits = toolcall_stream::Limits::default();
    limits.max_name_len = 4;
    let text = "<tool_call>\n<function=abcdefgh>\n</function>\n</tool_call>";
    let message = Parser::builder()
        .format(Format::Qwen3Coder)
        .limits(limits)
        .build()
        .parse(text.as_bytes());
    let d = only(&message.diagnostics, Kind::InvalidName);
    let name = text.find("abcd").unwrap();
    assert_eq!(d.span.end as usize, name + 5, "{d:?}");
}

#[test]
fn invalid_utf8_points_at_the_invalid_bytes_and_later_offsets_count_input_bytes() {
    let mut input = b"ok \xff\xfe then ".to_vec();
    let call_at = input.len();
    input.extend_from_slice(b"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1]}}");
    let message = Parser::builder()
        .format(Format::Hermes)
        .build()
        .parse(&input);
    let utf8 = only(&message.diagnostics, Kind::InvalidUtf8);
    assert_eq!(&input[utf8.span.range()], b"\xff");
    let json = only(&message.diagnostics, Kind::InvalidJson);
    assert_eq!(json.span.start as usize, call_at);
    assert_eq!(input[json.span.end as usize - 1], b']');
}

#[test]
fn format_detected_points_at_the_opener_that_decided() {
    let text = "Checking.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>";
    let message = parse(Format::Auto, text);
    let d = only(&message.diagnostics, Kind::FormatDetected);
    assert_eq!(&text[d.span.range()], "<tool_call>");
    assert_eq!(d.span.start, 10);
}

#[test]
fn foreign_format_points_at_the_other_formats_opener() {
    let text = "Here: [TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"} done.";
    let message = parse(Format::Qwen3Coder, text);
    let d = only(&message.diagnostics, Kind::ForeignFormat);
    assert_eq!(&text[d.span.range()], "[TOOL_CALLS]");
    // After openers' first bytes that start nothing.
    let text = "If a < b, [x] <div> → ok: [TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"}";
    let message = parse(Format::Qwen3Coder, text);
    let d = only(&message.diagnostics, Kind::ForeignFormat);
    assert_eq!(&text[d.span.range()], "[TOOL_CALLS]");
}

#[test]
fn a_rejected_call_spans_the_call_strict_mode_returned_as_content() {
    let text = "A.\n<tool_call>\n<function=f>\n<parameter=a>1\n</function>\n</tool_call>\nB.";
    let message = Parser::builder()
        .format(Format::Qwen3Coder)
        .strict(true)
        .build()
        .parse(text.as_bytes());
    let d = only(&message.diagnostics, Kind::RejectedCall);
    assert_eq!(d.span.start, 3, "{d:?}");
    assert!(d.span.end > d.span.start && d.span.end as usize <= text.len());
}

#[test]
fn spans_start_again_at_zero_after_a_reset() {
    let text = b"<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1]}}";
    let mut parser = Parser::builder().format(Format::Hermes).build();
    let first = diagnostics(&mut parser, text);
    parser.reset();
    let again = diagnostics(&mut parser, text);
    assert_eq!(first, again);
    assert_eq!(first[0].span.start, 0);
}

#[test]
fn a_rejected_call_under_auto_spans_the_call_too() {
    let text = "Some text first.\n<tool_call>\n<function=f>\n<parameter=a>1\n</function>\n</tool_call>\nB.";
    for format in [Format::Qwen3Coder, Format::Auto] {
        let message = Parser::builder()
            .format(format)
            .strict(true)
            .build()
            .parse(text.as_bytes());
        let d = only(&message.diagnostics, Kind::RejectedCall);
        assert_eq!(
            d.span.start as usize,
            text.find("<tool_call>").unwrap(),
            "{format}: {d:?}"
        );
    }
}

#[test]
fn foreign_format_after_invalid_utf8_in_held_text_counts_input_bytes() {
    let mut input = b"[TOOL_CALLS]get_weather[CALL_ID]\xffl_call>\n".to_vec();
    let opener = input.len();
    input.extend_from_slice(
        b"<function=get_weather>\n<parameter=City>\nParis\n</parameter>\n</function>\n</tool",
    );
    let foreign = |chunk: usize| {
        let mut parser = Parser::builder().format(Format::Mistral).build();
        let mut message = toolcall_stream::MessageBuilder::new();
        for piece in input.chunks(chunk) {
            message.extend(parser.feed(piece));
        }
        message.extend(parser.finish());
        let message = message.finish();
        only(&message.diagnostics, Kind::ForeignFormat).span
    };
    let whole = foreign(input.len());
    assert_eq!(whole.start as usize, opener, "{whole:?}");
    for chunk in [1, 2, 3, 4, 7] {
        assert_eq!(foreign(chunk), whole, "chunks of {chunk}");
    }
}
