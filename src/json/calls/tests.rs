use serde_json::{json, Value};

use super::*;
use crate::json::gemma::GemmaReader;
use crate::json::python::PyReader;
use crate::json::test_support::{build, read_in_pieces, Owned};

const PY: CallShape = CallShape {
    prefix: "",
    open: b'(',
    open_is_args: false,
    list: true,
};

const GEMMA: CallShape = CallShape {
    prefix: "call:",
    open: b'{',
    open_is_args: true,
    list: false,
};

type Read = Result<(Vec<Owned>, Option<usize>), String>;

fn read_py(text: &str, cuts: &[usize]) -> Read {
    let mut reader = Calls::new(PY, PyReader::arguments(16, 64), 32);
    read(&mut reader, text, cuts)
}

fn read_gemma(text: &str, cuts: &[usize]) -> Read {
    let mut reader = Calls::new(GEMMA, GemmaReader::new("<|\"|>", 16, 64), 32);
    read(&mut reader, text, cuts)
}

fn read<R: Stepper + Clone>(reader: &mut Calls<R>, text: &str, cuts: &[usize]) -> Read
where
    R::Kind: std::fmt::Debug,
{
    read_in_pieces(
        reader,
        text,
        cuts,
        |reader, piece, events| {
            crate::json::stepper::feed_until(reader, piece, &mut |e, _| {
                Owned::push(events, e);
                false
            })
            .map_err(|(kind, at, ..)| format!("{kind:?} at {at}"))
        },
        |reader, _| {
            if reader.finished() {
                Ok(())
            } else {
                Err("truncated".to_owned())
            }
        },
    )
}

/// The body the calls stand for, the same at every split in two and byte
/// by byte; and where they ended.
fn body(read: fn(&str, &[usize]) -> Read, text: &str) -> (Value, Option<usize>) {
    let (whole, ended) = read(text, &[]).unwrap_or_else(|e| panic!("{text:?}: {e}"));
    for cut in 0..=text.len() {
        assert_eq!(
            read(text, &[cut]),
            Ok((whole.clone(), ended)),
            "{text:?} at {cut}"
        );
    }
    let every: Vec<usize> = (0..text.len()).collect();
    assert_eq!(read(text, &every), Ok((whole.clone(), ended)), "{text:?}");
    (build(&whole), ended)
}

fn error(read: fn(&str, &[usize]) -> Read, text: &str) -> String {
    let whole = read(text, &[]).expect_err(text);
    for cut in 0..=text.len() {
        assert_eq!(read(text, &[cut]), Err(whole.clone()), "{text:?} at {cut}");
    }
    whole
}

#[test]
fn a_list_of_python_calls_is_a_list_of_bodies() {
    let text = "[get_weather(city='Paris', days=3), get_time()] and text";
    let (value, ended) = body(read_py, text);
    assert_eq!(
        value,
        json!([
            {"name": "get_weather", "arguments": {"city": "Paris", "days": 3}},
            {"name": "get_time", "arguments": {}},
        ])
    );
    assert_eq!(ended, Some(text.find(" and").unwrap()));
}

#[test]
fn one_call_without_a_list_ends_at_its_parenthesis() {
    let text = "web.search_v2 (q=\"a)b]c,d'\")\nnext(x=1)";
    let (value, ended) = body(read_py, text);
    assert_eq!(
        value,
        json!({"name": "web.search_v2", "arguments": {"q": "a)b]c,d'"}})
    );
    assert_eq!(ended, Some(text.find('\n').unwrap()));
}

#[test]
fn an_empty_list_and_a_trailing_comma_are_read() {
    assert_eq!(body(read_py, "[]").0, json!([]));
    assert_eq!(
        body(read_py, "[ f(a=[1, (2, 3)]) , ]").0,
        json!([{"name": "f", "arguments": {"a": [1, [2, 3]]}}])
    );
}

#[test]
fn what_is_not_a_call_is_an_error() {
    assert_eq!(error(read_py, "[1, 2]"), "Unexpected('1') at 1");
    assert_eq!(error(read_py, "[f(a=1) g()]"), "Unexpected('g') at 8");
    assert_eq!(error(read_py, "[f = 1]"), "Unexpected('=') at 3");
    let positional = error(read_py, "[f(x)]");
    assert!(positional.starts_with("Args("), "{positional}");
    assert_eq!(read_py("[f(a=1)", &[]), Err("truncated".to_owned()));
}

#[test]
fn a_long_name_fails_at_the_byte_past_the_bound() {
    let text = format!("[{}(a=1)]", "n".repeat(40));
    assert_eq!(error(read_py, &text), "NameTooLong at 33");
}

#[test]
fn gemma_calls_have_their_prefix_and_object() {
    let text = "call:get_weather{city:<|\"|>Par}is<|\"|>,days:3}<tool_call|>";
    let (value, ended) = body(read_gemma, text);
    assert_eq!(
        value,
        json!({"name": "get_weather", "arguments": {"city": "Par}is", "days": 3}})
    );
    assert_eq!(ended, Some(text.find("<tool").unwrap()));
    assert_eq!(error(read_gemma, "cal get{}"), "Unexpected(' ') at 3");
    assert_eq!(error(read_gemma, "call:{}"), "Unexpected('{') at 5");
}
