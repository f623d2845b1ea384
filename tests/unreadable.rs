//! A call whose arguments could not be read: never a call in a whole-output
//! result (its text is content, in place), and in the event stream a call
//! that ends incomplete, the text after it as content. A call cut off by the
//! end of the output is not one of them.

mod common;

use common::{feed_cut, message_of, one_shot, Rng};
use toolcall_stream::{coalesce, DiagnosticKind, Format, Ids, Message, OwnedEvent, Parser};

/// `(format, text, the calls parse() keeps)`.
const UNREADABLE: &[(Format, &str, &[&str])] = &[
    (
        Format::Hermes,
        r#"<tool_call>{"name": "get_weather", "arguments": {"city": Paris}}</tool_call>"#,
        &[],
    ),
    (Format::Pythonic, "[get_weather(city=Paris, days=3)]", &[]),
    (Format::Pythonic, "[get_weather('Paris')]", &[]),
    (
        Format::Hermes,
        r#"<tool_call>{"name": "f", "arguments": {"s": "a\qb"}}</tool_call>"#,
        &[],
    ),
    (
        Format::Mistral,
        r#"[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": Paris}}]"#,
        &[],
    ),
    (
        Format::KimiK2,
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0\
         <|tool_call_argument_begin|>{\"city\": Paris}<|tool_call_end|><|tool_calls_section_end|>",
        &[],
    ),
];

fn kinds(message: &Message) -> Vec<DiagnosticKind> {
    message.diagnostics.iter().map(|d| d.kind).collect()
}

#[test]
fn parse_returns_an_unreadable_call_as_its_text() {
    for &(format, text, kept) in UNREADABLE {
        let message = Parser::new(format).parse(text);
        let names: Vec<_> = message.tool_calls.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, kept, "{format} {text}");
        assert_eq!(message.content.as_deref(), Some(text), "{format} {text}");
        let kinds = kinds(&message);
        assert!(kinds.contains(&DiagnosticKind::InvalidJson), "{kinds:?}");
        assert!(kinds.contains(&DiagnosticKind::RejectedCall), "{kinds:?}");
        let invalid = message
            .diagnostics
            .iter()
            .find(|d| d.kind == DiagnosticKind::InvalidJson)
            .unwrap();
        assert!(
            !invalid.span.is_empty() && invalid.span.end <= text.len() as u64,
            "{format} {text}: {:?}",
            invalid.span
        );
        // The free function and a parser built for streaming agree.
        assert_eq!(toolcall_stream::parse(format, text), message);
    }
}

#[test]
fn streaming_keeps_the_call_incomplete_unless_asked() {
    for &(format, text, _) in UNREADABLE {
        let mut parser = Parser::new(format);
        let events = one_shot(&mut parser, text.as_bytes());
        let message = message_of(&events);
        assert!(
            message.tool_calls.iter().any(|c| !c.complete),
            "{format} {text}: {message:?}"
        );
        let whole = Parser::builder()
            .format(format)
            .unreadable_calls_as_content(true)
            .build();
        let mut whole = whole;
        let expected = coalesce(one_shot(&mut whole, text.as_bytes()));
        assert_eq!(message_of(&expected), whole.parse(text), "{format} {text}");
        let mut rng = Rng(text.len() as u64);
        for _ in 0..50 {
            let cuts = rng.cuts(text.len());
            let events: Vec<OwnedEvent> = coalesce(feed_cut(&mut whole, text.as_bytes(), &cuts));
            assert_eq!(events, expected, "{format} {text} cut at {cuts:?}");
        }
    }
}

#[test]
fn a_call_cut_off_by_the_end_is_kept() {
    let text = r#"<tool_call>{"name": "get_weather", "arguments": {"city": "Par"#;
    let message = Parser::new(Format::Hermes).parse(text);
    assert_eq!(message.tool_calls.len(), 1);
    assert!(!message.tool_calls[0].complete);
    assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Par"}"#);
    assert!(kinds(&message).contains(&DiagnosticKind::Truncated));
}

#[test]
fn a_call_whose_arguments_were_whole_is_kept() {
    // Only the body's `}` is missing: the arguments were read whole.
    let text = r#"<tool_call>{"name": "f", "arguments": {"a": 1}</tool_call>"#;
    let message = Parser::new(Format::Hermes).parse(text);
    assert_eq!(message.tool_calls.len(), 1);
    assert!(message.tool_calls[0].complete);
    assert_eq!(message.tool_calls[0].arguments, r#"{"a": 1}"#);
}

#[test]
fn readable_calls_around_an_unreadable_one_stay_calls() {
    let text = concat!(
        r#"<tool_call>{"name": "a", "arguments": {}}</tool_call>"#,
        r#"<tool_call>{"name": "b", "arguments": {"x": nope}}</tool_call>"#,
        r#"<tool_call>{"name": "c", "arguments": {}}</tool_call>"#,
    );
    let message = Parser::new(Format::Hermes).parse(text);
    let names: Vec<_> = message.tool_calls.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["a", "c"]);
    assert_eq!(message.tool_calls[1].index, 1);
    assert_eq!(
        message.content.as_deref(),
        Some(r#"<tool_call>{"name": "b", "arguments": {"x": nope}}</tool_call>"#)
    );
}

#[test]
fn readable_siblings_in_a_list_stay_calls() {
    let cases: &[(Format, &str, &str)] = &[
        (
            Format::Pythonic,
            "[bad(x=b'z'), get_weather(city='SF')]",
            "[bad(x=b'z'), ",
        ),
        (
            Format::Pythonic,
            "[bad(s='a', t=[1, (2, x)], u=\"q,]\"), get_weather(city='SF')]",
            "[bad(s='a', t=[1, (2, x)], u=\"q,]\"), ",
        ),
        (
            Format::Mistral,
            r#"[TOOL_CALLS][{"name": "bad", "arguments": {"x": [nope, "],"]}}, {"name": "get_weather", "arguments": {"city": "SF"}}]"#,
            r#"[TOOL_CALLS][{"name": "bad", "arguments": {"x": [nope, "],"]}}, "#,
        ),
    ];
    for &(format, text, content) in cases {
        let message = Parser::new(format).parse(text);
        let names: Vec<_> = message.tool_calls.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["get_weather"], "{format} {text}");
        assert_eq!(message.tool_calls[0].arguments, r#"{"city": "SF"}"#);
        assert_eq!(message.content.as_deref(), Some(content), "{format} {text}");
        // The stream: the unreadable call, its text, then the sibling.
        let mut parser = Parser::builder()
            .format(format)
            .ids(Ids::sequential("call_"))
            .build();
        let expected = coalesce(one_shot(&mut parser, text.as_bytes()));
        let streamed = message_of(&expected);
        assert_eq!(streamed.tool_calls.len(), 2, "{format} {text}");
        assert!(!streamed.tool_calls[0].complete);
        assert!(streamed.tool_calls[1].complete);
        let mut rng = Rng(7);
        for _ in 0..50 {
            let cuts = rng.cuts(text.len());
            let events = coalesce(feed_cut(&mut parser, text.as_bytes(), &cuts));
            assert_eq!(events, expected, "{format} {text} cut at {cuts:?}");
        }
    }
}

/// An escape that turns out unreadable is given back as the model wrote
/// it, digits and their case included, at every split: the stream's
/// content from the escape on is the input's text from there.
#[test]
fn an_unreadable_escape_comes_back_as_written() {
    let cases: &[(Format, &str, &str)] = &[
        (
            Format::Hermes,
            r#"<tool_call>{"name": "f", "arguments": {"s": "\u00AG"}}</tool_call>"#,
            r#"\u00AG"}}"#,
        ),
        (Format::Pythonic, r"[f(s='\x4')]", r"\x4')"),
        (Format::Pythonic, r"[f(s='\u00Ag')]", r"\u00Ag')"),
        (Format::Pythonic, r"[f(s='\U0001F60')]", r"\U0001F60')"),
        (Format::Pythonic, r"[f(s='\N{DASH}')]", r"\N{DASH}')"),
    ];
    for &(format, text, rest) in cases {
        let mut rng = Rng(text.len() as u64 + 7);
        for round in 0..40 {
            let cuts = if round == 0 {
                Vec::new()
            } else {
                rng.cuts(text.len())
            };
            let events = feed_cut(&mut Parser::new(format), text.as_bytes(), &cuts);
            let content: String = events
                .iter()
                .filter_map(|e| match e {
                    OwnedEvent::Content { text } => Some(text.as_str()),
                    _ => None,
                })
                .collect();
            assert_eq!(content, rest, "{format} {text} cut at {cuts:?}");
        }
    }
}

/// The text after the unreadable point (the rest of a list's element, or
/// the rest up to the call's closer) is content placed where it is in the
/// input: another format's call in it is reported at its own bytes, at
/// every split.
#[test]
fn content_after_the_unreadable_point_is_placed_where_it_is() {
    let cases = [
        (
            Format::BareJson,
            "\n[{\"name\": \"f\", \"arguments\": {\"args\"},\n  \"\\u0001```\\t[TOOL_CALLS]g[ARGS]{}",
        ),
        (
            Format::Hermes,
            "<tool_call>{\"name\": \"f\", \"arguments\": {\"city\": Paris}} x [TOOL_CALLS]g[ARGS]{}</tool_call>",
        ),
    ];
    for (format, input) in cases {
        let opener = input.find("[TOOL_CALLS]").unwrap() as u64;
        let mut parser = Parser::builder()
            .format(format)
            .ids(Ids::sequential("call_"))
            .build();
        let whole = coalesce(one_shot(&mut parser, input.as_bytes()));
        let foreign: Vec<_> = whole
            .iter()
            .filter_map(|event| match event {
                OwnedEvent::Diagnostic {
                    kind: DiagnosticKind::ForeignFormat,
                    span,
                    ..
                } => Some(span.start),
                _ => None,
            })
            .collect();
        assert_eq!(foreign, [opener], "{format:?}: {whole:?}");
        for cut in 1..input.len() {
            let split = coalesce(feed_cut(&mut parser, input.as_bytes(), &[cut]));
            assert_eq!(split, whole, "{format:?} cut at {cut}");
        }
    }
}
