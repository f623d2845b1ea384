use proptest::prelude::*;
use serde_json::{json, Value};

use super::*;
use crate::json::stepper::Stepper;
use crate::json::test_support::{build, read_in_pieces, Owned};

/// Reads `text` in the pieces cut at `cuts`: the events, merged; where the
/// value ended in the whole text; or the error.
fn read(text: &str, cuts: &[usize]) -> Result<(Vec<Owned>, Option<usize>), JsonError> {
    read_in_pieces(
        &mut JsonReader::default(),
        text,
        cuts,
        |reader, piece, events| reader.feed(piece, &mut |e| Owned::push(events, e)),
        |reader, events| reader.finish(&mut |e| Owned::push(events, e)),
    )
}

fn kind(text: &str) -> JsonErrorKind {
    read(text, &[]).expect_err(text).kind
}

#[test]
fn a_value_ends_where_its_text_does_and_no_later() {
    let text = r#"{"city": "Paris", "days": [1, 2.5e3, -7], "ok": true, "x": null}</tool_call>"#;
    let (events, ended) = read(text, &[]).unwrap();
    assert_eq!(ended, Some(text.find("</tool_call>").unwrap()));
    assert_eq!(
        build(&events),
        json!({"city": "Paris", "days": [1, 2.5e3, -7], "ok": true, "x": null})
    );
}

#[test]
fn a_closing_marker_inside_a_string_is_text() {
    let text = r#"{"code": "print('</tool_call>')\n}"}"#;
    let (events, ended) = read(text, &[9, 20]).unwrap();
    assert_eq!(ended, Some(text.len()));
    assert_eq!(build(&events), json!({"code": "print('</tool_call>')\n}"}));
}

#[test]
fn a_top_level_number_waits_for_what_follows_it() {
    let mut reader = JsonReader::default();
    let mut numbers = Vec::new();
    let mut sink = |event: JsonEvent<'_>| {
        if let JsonEvent::Number(n) = event {
            numbers.push(n.to_owned());
        }
    };
    assert_eq!(reader.feed("12", &mut sink), Ok(Fed::More));
    assert_eq!(reader.feed("34 ", &mut sink), Ok(Fed::Done(2)));
    assert_eq!(numbers, ["1234"]);
    let (events, _) = read("-0.5E+2", &[3]).unwrap();
    assert_eq!(build(&events), json!(-50.0));
}

#[test]
fn a_number_past_json_range_is_a_string_reported() {
    let huge = format!("1{}", "0".repeat(309));
    let text = format!("{{\"x\": 1e999, \"y\": [-1E+400, 1e308, 1e-999], \"n\": {huge}}}");
    for cuts in [vec![], vec![7], vec![8, 9, 10, 11]] {
        let (events, _) = read(&text, &cuts).unwrap();
        assert!(events.contains(&Owned::Event("Lenient(NumberOutOfRange)".into())));
        assert_eq!(
            build(&events),
            json!({"x": "1e999", "y": ["-1E+400", 1e308, 0.0], "n": huge})
        );
    }
    // At the top level, a number ends with the text.
    let (events, _) = read("1e999", &[]).unwrap();
    assert_eq!(build(&events), json!("1e999"));
    assert!(is_number_grammar("-0.5e+3") && is_number_grammar("1e999"));
    assert!(!is_number_grammar("01") && !is_number_grammar("1.") && !is_number_grammar("-"));
}

#[test]
fn escapes_and_surrogate_pairs_split_anywhere() {
    let text = r#"["a\"b\\c\/d\b\f\n\r\t", "\u00e9\ud83d\ude00\u4E2D"]"#;
    let expected = json!(["a\"b\\c/d\u{8}\u{c}\n\r\t", "é😀中"]);
    for cut in 0..=text.len() {
        let (events, _) = read(text, &[cut]).unwrap();
        assert_eq!(build(&events), expected, "cut at {cut}");
    }
}

#[test]
fn half_a_surrogate_pair_is_u_fffd_and_reported() {
    for (text, expected) in [
        (r#""\ud83dx""#, "\u{FFFD}x"),
        (r#""\ude00""#, "\u{FFFD}"),
        (r#""\ud83d\u0041""#, "\u{FFFD}A"),
        (r#""\ud83d""#, "\u{FFFD}"),
    ] {
        let (events, _) = read(text, &[]).unwrap();
        assert_eq!(build(&events), json!(expected), "{text}");
        assert!(
            events.contains(&Owned::Event("Lenient(LoneSurrogate)".into())),
            "{text}"
        );
    }
}

#[test]
fn a_raw_line_end_in_a_string_is_kept_and_reported() {
    let (events, _) = read("{\"code\": \"a\n\tb\"}", &[]).unwrap();
    assert_eq!(build(&events), json!({"code": "a\n\tb"}));
    assert!(events.contains(&Owned::Event("Lenient(ControlInString)".into())));
}

#[test]
fn what_is_not_json_is_an_error_at_its_byte() {
    for (text, expected) in [
        (r#"{"a" 1}"#, JsonErrorKind::Unexpected('1')),
        ("[1,]", JsonErrorKind::Unexpected(']')),
        ("[1}", JsonErrorKind::Unexpected('}')),
        (r#"{"a":tru}"#, JsonErrorKind::Unexpected('}')),
        (r#""\x""#, JsonErrorKind::BadEscape),
        (r#""\u12g4""#, JsonErrorKind::BadEscape),
        ("[01]", JsonErrorKind::Unexpected('1')),
        ("[1.]", JsonErrorKind::Unexpected(']')),
        ("[-]", JsonErrorKind::Unexpected(']')),
        (".5", JsonErrorKind::Unexpected('.')),
        ("{'a': 1}", JsonErrorKind::Unexpected('\'')),
        ("é", JsonErrorKind::Unexpected('é')),
        (r#"{"a": 1"#, JsonErrorKind::Truncated),
        (r#""open"#, JsonErrorKind::Truncated),
        ("", JsonErrorKind::Truncated),
    ] {
        assert_eq!(kind(text), expected, "{text}");
    }
    let error = read(r#"{"a" 1}"#, &[]).unwrap_err();
    assert_eq!(error.at, 5);
    assert_eq!(error.to_string(), "unexpected '1' at byte 5 of the JSON");
}

#[test]
fn nesting_keys_and_numbers_are_bounded() {
    let mut reader = JsonReader::new(3, 4, 5);
    let mut sink = |_: JsonEvent<'_>| {};
    assert_eq!(reader.feed("[[[", &mut sink), Ok(Fed::More));
    assert_eq!(
        reader.feed("[", &mut sink).unwrap_err().kind,
        JsonErrorKind::TooDeep
    );
    let mut reader = JsonReader::new(3, 4, 5);
    assert_eq!(reader.feed(r#"{"abcd":1}"#, &mut sink), Ok(Fed::Done(10)));
    let mut reader = JsonReader::new(3, 4, 5);
    let error = reader.feed(r#"{"abcde":1}"#, &mut sink).unwrap_err();
    assert_eq!(error.kind, JsonErrorKind::KeyTooLong);
    let mut reader = JsonReader::new(3, 4, 5);
    let error = reader.feed("123456", &mut sink).unwrap_err();
    assert_eq!(error.kind, JsonErrorKind::NumberTooLong);
}

#[test]
fn nothing_is_read_after_the_end_or_an_error() {
    let mut reader = JsonReader::default();
    let mut count = 0;
    let mut sink = |_: JsonEvent<'_>| count += 1;
    assert_eq!(reader.feed("true false", &mut sink), Ok(Fed::Done(4)));
    assert!(reader.is_done());
    assert_eq!(reader.feed("null", &mut sink), Ok(Fed::Done(0)));
    let mut failed = JsonReader::default();
    assert!(failed.feed("[x", &mut sink).is_err());
    assert_eq!(failed.feed("1]", &mut sink), Ok(Fed::More));
    assert_eq!(count, 2, "true, then [");
}

fn any_value() -> impl Strategy<Value = Value> {
    let text = prop::collection::vec(
        prop::sample::select(vec![
            "a",
            " ",
            "\"",
            "\\",
            "/",
            "\n",
            "\t",
            "\u{1}",
            "é",
            "😀",
            "中",
            "</tool_call>",
            "}",
            "]",
        ]),
        0..6,
    )
    .prop_map(|parts| parts.concat());
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        text.clone().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 5, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((text.clone(), inner), 0..5)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn any_value_read_in_any_pieces_is_the_value(
        value in any_value(),
        pretty in any::<bool>(),
        cuts in prop::collection::vec(any::<usize>(), 0..8),
    ) {
        let text = if pretty {
            serde_json::to_string_pretty(&value).unwrap()
        } else {
            serde_json::to_string(&value).unwrap()
        };
        let whole = read(&text, &[]).unwrap();
        let split = read(&text, &cuts).unwrap();
        prop_assert_eq!(&split, &whole);
        // As serde reads the same text (its float parsing may differ from
        // the value's last bit).
        prop_assert_eq!(build(&whole.0), serde_json::from_str::<Value>(&text).unwrap());
        // A top-level number ends only with the text.
        let end = if matches!(whole.0.first(), Some(Owned::Number(_))) {
            None
        } else {
            Some(text.len())
        };
        prop_assert_eq!(whole.1, end);
    }

    #[test]
    fn text_that_serde_refuses_is_refused_or_read_leniently(
        text in prop::collection::vec(
            prop::sample::select(vec![
                "{", "}", "[", "]", ":", ",", "\"", "\\", "a", "1", "-", ".", "e", "0", " ",
                "true", "nul", "\\u", "d83d", "\n",
            ]),
            0..12,
        ).prop_map(|parts| parts.concat()),
        cuts in prop::collection::vec(any::<usize>(), 0..4),
    ) {
        let whole = read(&text, &[]);
        prop_assert_eq!(&read(&text, &cuts), &whole);
        let Ok((events, ended)) = whole else {
            return Ok(());
        };
        // What the reader took whole, serde takes the same, but for the
        // leniencies it reports.
        let lenient = events.iter().any(|e| matches!(e, Owned::Event(e) if e.starts_with("Lenient")));
        let taken = &text[..ended.unwrap_or(text.len())];
        match serde_json::from_str::<Value>(taken) {
            Ok(value) => prop_assert_eq!(build(&events), value),
            Err(_) => prop_assert!(lenient, "{:?}", taken),
        }
    }
}

#[test]
fn an_entity_quote_before_structure_ends_a_string_when_asked() {
    let text = r#"{"url":"https://a.example/?q=1&quot;,"note":"say &quot;hi&quot; & bye&quot;}"#;
    for cut in 0..=text.len() {
        let (a, b) = text.split_at(cut);
        let mut reader = JsonReader::default().entity_quotes(true);
        let (mut texts, mut lenient, mut keys) = (String::new(), 0, 0);
        let mut sink = |e: JsonEvent<'_>| match e {
            JsonEvent::Text(t) => texts.push_str(t),
            JsonEvent::EndString => texts.push('|'),
            JsonEvent::Key(_) => keys += 1,
            JsonEvent::Lenient(Leniency::EntityQuote) => lenient += 1,
            _ => {}
        };
        reader.feed(a, &mut sink).unwrap();
        reader.feed(b, &mut sink).unwrap();
        reader.finish(&mut sink).unwrap();
        assert_eq!(
            texts, "https://a.example/?q=1|say &quot;hi&quot; & bye|",
            "cut {cut}"
        );
        assert_eq!((lenient, keys), (2, 2), "cut {cut}");
    }
    // Without the option, `&quot;` is text and the string goes on.
    let mut reader = JsonReader::default();
    let mut sink = |_: JsonEvent<'_>| {};
    assert!(reader.feed(r#"{"u":"a&quot;}"#, &mut sink).is_ok());
    assert!(reader.finish(&mut sink).is_err());
}
