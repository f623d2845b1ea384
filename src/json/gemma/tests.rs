use serde_json::{json, Value};

use super::*;
use crate::json::test_support::{build, read_in_pieces, Owned};

const GEMMA4: &str = "<|\"|>";
const FUNCTION_GEMMA: &str = "<escape>";

fn read(
    delimiter: &'static str,
    text: &str,
    cuts: &[usize],
) -> Result<(Vec<Owned>, Option<usize>), GemmaError> {
    read_in_pieces(
        &mut GemmaReader::new(delimiter, 16, 64),
        text,
        cuts,
        |reader, piece, events| reader.feed(piece, &mut |e| Owned::push(events, e)),
        |reader, _| reader.finish(),
    )
}

/// The arguments' JSON value, the same at every split in two and byte by
/// byte; and where they ended.
fn value(delimiter: &'static str, text: &str) -> (Value, Option<usize>) {
    let (whole, ended) = read(delimiter, text, &[]).unwrap_or_else(|e| panic!("{text:?}: {e}"));
    for cut in 0..=text.len() {
        assert_eq!(
            read(delimiter, text, &[cut]).unwrap(),
            (whole.clone(), ended),
            "{text:?} at {cut}"
        );
    }
    let every: Vec<usize> = (0..text.len()).collect();
    assert_eq!(
        read(delimiter, text, &every).unwrap(),
        (whole.clone(), ended),
        "{text:?} bytewise"
    );
    (build(&whole), ended)
}

fn error(text: &str) -> GemmaErrorKind {
    read(GEMMA4, text, &[]).expect_err(text).kind
}

#[test]
fn gemma4_arguments_as_the_conformance_cases_write_them() {
    let text = "{count:5,ratio:0.5,enabled:true,label:null,meta:{depth:2},items:[1,2],mode:<|\"|>fast<|\"|>}<tool_call|>";
    let (got, ended) = value(GEMMA4, text);
    assert_eq!(
        got,
        json!({"count": 5, "ratio": 0.5, "enabled": true, "label": null,
               "meta": {"depth": 2}, "items": [1, 2], "mode": "fast"})
    );
    assert_eq!(ended, Some(text.find("<tool_call|>").unwrap()));
    let (got, _) = value(
        GEMMA4,
        "{items:[<|\"|>1<|\"|>,<|\"|>2<|\"|>],meta:{depth:<|\"|>2<|\"|>}}",
    );
    assert_eq!(got, json!({"items": ["1", "2"], "meta": {"depth": "2"}}));
    assert_eq!(value(GEMMA4, "{}").0, json!({}));
    assert_eq!(
        value(GEMMA4, " { a : 1 , b : [ ] } ").0,
        json!({"a": 1, "b": []})
    );
}

#[test]
fn a_string_holds_anything_but_its_delimiter() {
    let text = "{path:<|\"|>notes.txt<|\"|>,content:<|\"|>the closer <tool_call|> in text, } ] { <|x <|\" \"|> 東京 🌧️<|\"|>}";
    assert_eq!(
        value(GEMMA4, text).0,
        json!({"path": "notes.txt", "content": "the closer <tool_call|> in text, } ] { <|x <|\" \"|> 東京 🌧️"})
    );
    let text = "{query:<escape>a <escap <b> \"q\"<escape>}";
    assert_eq!(
        value(FUNCTION_GEMMA, text).0,
        json!({"query": "a <escap <b> \"q\""})
    );
}

#[test]
fn a_bare_value_that_is_no_literal_is_a_string_reported() {
    let (events, _) = read(GEMMA4, "{unit:cm,n:-1.5e3}", &[]).unwrap();
    assert!(events.contains(&Owned::Event("Lenient(BareText)".into())));
    assert_eq!(build(&events), json!({"unit": "cm", "n": -1.5e3}));
}

#[test]
fn a_number_past_json_range_is_a_string_reported_as_such() {
    let (events, _) = read(GEMMA4, "{x:1e999,y:-1e400,z:1e308}", &[]).unwrap();
    assert!(events.contains(&Owned::Event("Lenient(NumberOutOfRange)".into())));
    assert!(!events.contains(&Owned::Event("Lenient(BareText)".into())));
    assert_eq!(
        value(GEMMA4, "{x:1e999,y:-1e400,z:1e308}").0,
        json!({"x": "1e999", "y": "-1e400", "z": 1e308})
    );
}

#[test]
fn a_value_in_json_quotes_is_read_to_its_closing_quote_with_json_escapes() {
    let text = r#"{q:"keep , oldText: literal",old:"x = 1, y = 2",a:"a} b ]",e:"\"q\" \u00e9\n\\",l:["x]", "y,z"],note:<|"|>ok<|"|>}<tool_call|>"#;
    let (events, _) = read(GEMMA4, text, &[]).unwrap();
    assert!(events.contains(&Owned::Event("Lenient(JsonQuoted)".into())));
    let (got, ended) = value(GEMMA4, text);
    assert_eq!(
        got,
        json!({"q": "keep , oldText: literal", "old": "x = 1, y = 2", "a": "a} b ]",
               "e": "\"q\" \u{e9}\n\\", "l": ["x]", "y,z"], "note": "ok"})
    );
    assert_eq!(ended, Some(text.find("<tool_call|>").unwrap()));
    let text = r#"{q:"a,b"}"#;
    assert_eq!(value(FUNCTION_GEMMA, text).0, json!({"q": "a,b"}));
}

#[test]
fn a_bad_escape_in_json_quotes_is_an_error_at_its_byte_however_cut() {
    let text = r#"{q:"ab \q cd"}"#;
    let at = text.find("q cd").unwrap() as u64;
    for cut in 0..=text.len() {
        let error = read(GEMMA4, text, &[cut]).expect_err(text);
        assert_eq!(
            error,
            GemmaError {
                kind: GemmaErrorKind::BadEscape,
                at
            },
            "cut at {cut}"
        );
    }
    assert_eq!(error(r#"{q:"open"#), GemmaErrorKind::Truncated);
    assert_eq!(error(r#"{q:"a"b}"#), GemmaErrorKind::Unexpected('b'));
}

#[test]
fn what_is_not_arguments_is_an_error() {
    assert_eq!(error("city:1}"), GemmaErrorKind::Unexpected('c'));
    assert_eq!(error("{:1}"), GemmaErrorKind::Unexpected(':'));
    assert_eq!(error("{a:1]"), GemmaErrorKind::Unexpected(']'));
    assert_eq!(error("{a:,}"), GemmaErrorKind::Unexpected(','));
    assert_eq!(error("{a}"), GemmaErrorKind::Unexpected('}'));
    assert_eq!(error("{a:<|\"|>open"), GemmaErrorKind::Truncated);
    assert_eq!(error("{a:1"), GemmaErrorKind::Truncated);
    assert_eq!(error(&"{a:[".repeat(9)), GemmaErrorKind::TooDeep);
    assert_eq!(
        error(&format!("{{{}:1}}", "k".repeat(65))),
        GemmaErrorKind::TooLong
    );
}

#[test]
fn a_long_string_streams() {
    let long = "x".repeat(100_000);
    let (events, _) = read(GEMMA4, &format!("{{s:<|\"|>{long}<|\"|>}}"), &[]).unwrap();
    assert_eq!(build(&events), json!({"s": long}));
}
