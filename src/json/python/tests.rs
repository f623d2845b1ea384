use proptest::prelude::*;
use serde_json::{json, Value};

use super::*;
use crate::json::test_support::{build, read_in_pieces, Owned};

/// Reads `text` (one literal, or keyword arguments when `args`) in the
/// pieces cut at `cuts`: the events merged, where the value ended, or the
/// error.
fn read_with(
    args: bool,
    text: &str,
    cuts: &[usize],
) -> Result<(Vec<Owned>, Option<usize>), PyError> {
    let mut reader = if args {
        PyReader::arguments(64, 256)
    } else {
        PyReader::value(64, 256)
    };
    read_in_pieces(
        &mut reader,
        text,
        cuts,
        |reader, piece, events| reader.feed(piece, &mut |e| Owned::push(events, e)),
        |reader, events| reader.finish(&mut |e| Owned::push(events, e)),
    )
}

/// The JSON value of a Python literal, the same at every split in two and
/// byte by byte.
fn value(text: &str) -> Value {
    value_of(false, text)
}

/// The JSON object of keyword arguments (`a=1, b='x')`), likewise.
fn arguments(text: &str) -> Value {
    value_of(true, text)
}

fn value_of(args: bool, text: &str) -> Value {
    let (whole, _) = read_with(args, text, &[]).unwrap_or_else(|e| panic!("{text:?}: {e}"));
    for cut in 0..=text.len() {
        assert_eq!(
            read_with(args, text, &[cut]).unwrap().0,
            whole,
            "{text:?} cut at {cut}"
        );
    }
    let every: Vec<usize> = (0..text.len()).collect();
    assert_eq!(
        read_with(args, text, &every).unwrap().0,
        whole,
        "{text:?} byte by byte"
    );
    build(&whole)
}

fn error(text: &str) -> PyErrorKind {
    read_with(false, text, &[]).expect_err(text).kind
}

fn args_error(text: &str) -> PyErrorKind {
    read_with(true, text, &[]).expect_err(text).kind
}

#[test]
fn strings_in_every_quoting() {
    for (python, want) in [
        ("'Paris'", "Paris"),
        (r#""it's""#, "it's"),
        ("''", ""),
        (r#""""#, ""),
        ("'''a 'quoted' \"word\"'''", "a 'quoted' \"word\""),
        ("\"\"\"two\nlines\"\"\"", "two\nlines"),
        ("'''ends with a quote\\''''", "ends with a quote'"),
        ("''''''", ""),
        ("'''a''b'''", "a''b"),
        (r"r'C:\new\table'", r"C:\new\table"),
        (r"R'\''", r"\'"),
        (r"u'plain\n'", "plain\n"),
        (r"'tab\tnew\nquote\'back\\'", "tab\tnew\nquote'back\\"),
        (r"'\x41\u00e9\U0001F600\101\0'", "Aé😀A\0"),
        (r"'\q stays'", r"\q stays"),
        ("'line \\\ncontinued'", "line continued"),
        ("'ünïcødé ✓'", "ünïcødé ✓"),
    ] {
        assert_eq!(value(python), json!(want), "{python}");
    }
}

#[test]
fn a_closer_or_quote_of_the_other_kind_inside_a_string_is_text() {
    assert_eq!(value(r#"'a ) ] , " } x'"#), json!("a ) ] , \" } x"));
    assert_eq!(value(r#""f(x=1), [y]""#), json!("f(x=1), [y]"));
}

#[test]
fn numbers_words_and_containers() {
    assert_eq!(value("42"), json!(42));
    assert_eq!(value("-1_000"), json!(-1000));
    assert_eq!(value("0x1F"), json!(31));
    assert_eq!(value("2.5e3"), json!(2500.0));
    assert_eq!(value(".5"), json!(0.5));
    assert_eq!(value("True"), json!(true));
    assert_eq!(value("None"), json!(null));
    assert_eq!(value("[1, 'two', [3.0], {}]"), json!([1, "two", [3.0], {}]));
    assert_eq!(value("(1, 2,)"), json!([1, 2]));
    assert_eq!(value("(1,)"), json!([1]));
    assert_eq!(value("()"), json!([]));
    assert_eq!(
        value("{'a': 1, \"b\": [True, None], 3: 'x', None: 0, 1.5: (), 'c': {},}"),
        json!({"a": 1, "b": [true, null], "3": "x", "null": 0, "1.5": [], "c": {}})
    );
    assert_eq!(value("[\n  1,\n  2\n]"), json!([1, 2]));
}

#[test]
fn keyword_arguments_are_an_object_ending_at_the_parenthesis() {
    let text = "city='Paris', days=3, units=None, tags=['a', 'b'])<|python_end|>";
    let (_, ended) = read_with(true, text, &[]).unwrap();
    assert_eq!(ended, Some(text.find(")<").unwrap() + 1));
    assert_eq!(
        arguments(text),
        json!({"city": "Paris", "days": 3, "units": null, "tags": ["a", "b"]})
    );
    assert_eq!(arguments(")"), json!({}));
    assert_eq!(arguments(" a = 1 , b='x' , )"), json!({"a": 1, "b": "x"}));
    assert_eq!(
        arguments("code='print(\"a)\")', n=1)"),
        json!({"code": "print(\"a)\")", "n": 1})
    );
}

#[test]
fn a_top_level_number_or_word_waits_for_what_follows_it() {
    let (_, ended) = read_with(false, "12, ", &[]).unwrap();
    assert_eq!(ended, Some(2));
    let (events, ended) = read_with(false, "12", &[]).unwrap();
    assert_eq!((build(&events), ended), (json!(12), None));
    let (events, _) = read_with(false, "None", &[]).unwrap();
    assert_eq!(build(&events), json!(null));
    let (events, _) = read_with(false, "''", &[]).unwrap();
    assert_eq!(build(&events), json!(""));
}

#[test]
fn what_is_not_a_literal_is_an_error_never_evaluated() {
    assert_eq!(
        error("os.system('x')"),
        PyErrorKind::NotALiteral("os".into())
    );
    assert_eq!(error("[1, x]"), PyErrorKind::NotALiteral("x".into()));
    assert_eq!(error("[1 + 2]"), PyErrorKind::Unexpected('+'));
    assert_eq!(error("1j"), PyErrorKind::NotALiteral("1j".into()));
    assert_eq!(error("007"), PyErrorKind::NotALiteral("007".into()));
    assert_eq!(error("b'bytes'"), PyErrorKind::NotALiteral("b".into()));
    assert_eq!(error("f'{x}'"), PyErrorKind::NotALiteral("f".into()));
    assert_eq!(error("(1)"), PyErrorKind::Parenthesized);
    assert_eq!(error("{1, 2}"), PyErrorKind::Unexpected(','));
    assert_eq!(error("[1, 2)"), PyErrorKind::Unexpected(')'));
    assert_eq!(error(r"'\N{DASH}'"), PyErrorKind::BadEscape);
    assert_eq!(error(r"'\x4'"), PyErrorKind::BadEscape);
    assert_eq!(error("'open"), PyErrorKind::Truncated);
    assert_eq!(error("[1, 2"), PyErrorKind::Truncated);
    assert_eq!(args_error("'Paris')"), PyErrorKind::Positional);
    assert_eq!(args_error("city)"), PyErrorKind::NotALiteral("city".into()));
    assert_eq!(
        args_error("a=1, **kw)"),
        PyErrorKind::NotALiteral("*".into())
    );
    assert_eq!(args_error("a=f(1))"), PyErrorKind::NotALiteral("f".into()));
    assert_eq!(args_error("a=1"), PyErrorKind::Truncated);
}

#[test]
fn json_words_are_read_and_reported() {
    let (events, _) = read_with(true, "enabled=true, label=null, off=false)", &[]).unwrap();
    assert!(events.contains(&Owned::Event("Lenient(JsonWord)".into())));
    assert_eq!(
        build(&events),
        json!({"enabled": true, "label": null, "off": false})
    );
    assert_eq!(error("[nil]"), PyErrorKind::NotALiteral("nil".into()));
}

#[test]
fn a_number_past_json_range_is_its_text_as_a_string_reported() {
    let text = "x=1e999, y=-1_0e400, z=2.5e300, w=1e-999)";
    let (events, _) = read_with(true, text, &[]).unwrap();
    assert!(events.contains(&Owned::Event("Lenient(NumberOutOfRange)".into())));
    assert_eq!(
        arguments(text),
        json!({"x": "1e999", "y": "-1_0e400", "z": 2.5e300, "w": 0.0})
    );
}

#[test]
fn a_line_end_in_a_one_quote_string_is_kept_and_reported() {
    let (events, _) = read_with(false, "'a\nb'", &[]).unwrap();
    assert!(events.contains(&Owned::Event("Lenient(ControlInString)".into())));
    assert_eq!(build(&events), json!("a\nb"));
}

#[test]
fn nesting_and_held_tokens_are_bounded() {
    assert_eq!(error(&"[".repeat(65)), PyErrorKind::TooDeep);
    assert_eq!(error(&"1".repeat(300)), PyErrorKind::TooLong);
    assert_eq!(
        error(&format!("{{'{}': 1}}", "k".repeat(300))),
        PyErrorKind::TooLong
    );
    // A string value is not held: it streams.
    let long = format!("'{}'", "v".repeat(10_000));
    assert_eq!(value(&long), json!("v".repeat(10_000)));
}

/// Python-literal text for a JSON-like value, in a random quoting.
fn python_of(value: &Value, quoting: &mut impl Iterator<Item = u8>) -> String {
    match value {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => match quoting.next().unwrap_or(0) % 3 {
            0 => format!(
                "'{}'",
                s.replace('\\', "\\\\")
                    .replace('\'', "\\'")
                    .replace('\n', "\\n")
            ),
            // Triple quotes hold line ends and the other quote as they are.
            1 if !s.contains(['\\', '\'']) => format!("'''{s}'''"),
            _ => format!(
                "\"{}\"",
                s.replace('\\', "\\\\")
                    .replace('"', "\\\"")
                    .replace('\n', "\\n")
            ),
        },
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(|v| python_of(v, quoting)).collect();
            format!("[{}]", inner.join(", "))
        }
        Value::Object(map) => {
            let inner: Vec<String> = map
                .iter()
                .map(|(k, v)| {
                    format!(
                        "{}: {}",
                        python_of(&Value::String(k.clone()), quoting),
                        python_of(v, quoting)
                    )
                })
                .collect();
            format!("{{{}}}", inner.join(", "))
        }
    }
}

fn any_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        "[a-z '\"\\\\\n)\\],é]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,6}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn any_literal_read_in_any_pieces_is_its_value(
        value in any_value(),
        quoting in prop::collection::vec(any::<u8>(), 0..64),
        cuts in prop::collection::vec(any::<usize>(), 0..12),
    ) {
        let mut quoting = quoting.into_iter();
        let text = python_of(&value, &mut quoting);
        let (events, _) = read_with(false, &text, &cuts).unwrap();
        let (whole, _) = read_with(false, &text, &[]).unwrap();
        prop_assert_eq!(&events, &whole);
        prop_assert_eq!(build(&events), value);
    }
}
