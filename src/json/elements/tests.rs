use serde_json::{json, Value};

use super::*;
use crate::json::reader::Fed;
use crate::json::stepper::feed_until;
use crate::json::test_support::{build, read_in_pieces, Owned};

const M3: Spelling = Spelling {
    prefix: "]<]minimax[>[",
    ..Spelling::tags("invoke")
};

const BARE: Spelling = Spelling { prefix: "", ..M3 };

fn read(spelling: Spelling, text: &str, cuts: &[usize]) -> (Vec<Owned>, Option<usize>) {
    read_in_pieces(
        &mut ElementsReader::new(spelling, 8, 64),
        text,
        cuts,
        |reader, piece, events| {
            feed_until(reader, piece, &mut |e, _| {
                Owned::push(events, e);
                false
            })
            .map_err(|(kind, ..)| kind)
        },
        |_, _| Ok::<(), ElementsErrorKind>(()),
    )
    .unwrap_or_else(|e| panic!("{text:?}: {e:?}"))
}

/// The call's JSON and the leniencies, the same at every split in two
/// and byte by byte.
fn call(spelling: Spelling, text: &str) -> (Value, Vec<String>) {
    let whole = read(spelling, text, &[]);
    for cut in 0..=text.len() {
        assert_eq!(read(spelling, text, &[cut]), whole, "{text:?} at {cut}");
    }
    let every: Vec<usize> = (0..text.len()).collect();
    assert_eq!(read(spelling, text, &every), whole, "{text:?} bytewise");
    let lenient = whole
        .0
        .iter()
        .filter_map(|e| match e {
            Owned::Event(e) if e.starts_with("Lenient") => Some(e.clone()),
            _ => None,
        })
        .collect();
    (build(&whole.0), lenient)
}

fn m3(body: &str) -> String {
    format!("]<]minimax[>[<invoke name=\"f\">{body}]<]minimax[>[</invoke>")
        .replace('^', "]<]minimax[>[")
}

#[test]
fn parameters_are_elements_named_by_their_tag() {
    let (value, lenient) = call(M3, &m3("\n^<city>Paris^</city>\n^<days>3^</days>\n"));
    assert_eq!(
        value,
        json!({"name": "f", "arguments": {"city": "Paris", "days": "3"}})
    );
    assert!(lenient.is_empty());
}

#[test]
fn nested_elements_are_objects_and_items_arrays() {
    let text = m3(
        "^<opts>\n  ^<days>3^</days>\n  ^<tags>^<item>a^</item>^<item>b^</item>^</tags>\n^</opts>",
    );
    let (value, _) = call(M3, &text);
    assert_eq!(
        value,
        json!({"name": "f", "arguments": {"opts": {"days": "3", "tags": ["a", "b"]}}})
    );
}

#[test]
fn a_tag_without_the_prefix_is_text() {
    let (value, _) = call(M3, &m3("^<q>a <b>x</b> ]< ]<]minimax b^</q>"));
    assert_eq!(value["arguments"]["q"], "a <b>x</b> ]< ]<]minimax b");
}

#[test]
fn whitespace_may_follow_the_prefix() {
    let text = "]<]minimax[>[ <invoke name=\"f\">]<]minimax[>[\n<a>1]<]minimax[>[ </a>]<]minimax[>[  </invoke>";
    let (value, _) = call(M3, text);
    assert_eq!(value["arguments"], json!({"a": "1"}));
}

#[test]
fn entities_are_decoded_and_a_bare_ampersand_kept() {
    let (value, lenient) = call(
        M3,
        &m3("^<c>&lt;b&gt; &amp;&quot;&apos;&#65;&#x42; && x &bogus y^</c>"),
    );
    assert_eq!(value["arguments"]["c"], "<b> &\"'AB && x &bogus y");
    assert_eq!(lenient, ["Lenient(RawAmpersand)"; 3]);
}

#[test]
fn a_closer_in_text_ends_the_value_and_the_rest_is_dropped() {
    let (value, lenient) = call(M3, &m3("^<c>the closer ^</c> in text^</c>\n"));
    assert_eq!(value["arguments"], json!({"c": "the closer "}));
    assert_eq!(
        lenient,
        ["Lenient(TextBetweenElements)", "Lenient(StrayCloser)"]
    );
}

#[test]
fn an_element_closed_by_its_parent_ends_there() {
    let (value, lenient) = call(M3, &m3("^<o>^<a>1^</o>^<b>^</b>"));
    assert_eq!(value["arguments"], json!({"o": {"a": "1"}, "b": ""}));
    assert_eq!(lenient, ["Lenient(UnclosedElement)"]);
}

#[test]
fn without_a_prefix_tags_are_bare_and_other_angles_text() {
    let (value, _) = call(
        BARE,
        "<invoke name='f'><q>a < b > c</q><n><item>1</item></n></invoke>",
    );
    assert_eq!(value["arguments"], json!({"q": "a < b > c", "n": ["1"]}));
}

#[test]
fn the_call_ends_at_its_closer() {
    let text = m3("^<a>1^</a>") + "\n]<]minimax[>[</tool_call>";
    let (_, ended) = read(M3, &text, &[]);
    assert_eq!(ended, Some(text.find('\n').unwrap()));
}

#[test]
fn what_is_not_a_call_element_is_an_error() {
    let mut reader = ElementsReader::new(M3, 8, 64);
    let result = feed_until(&mut reader, "hello", &mut |_, _| false);
    assert!(result.is_err());
    let mut reader = ElementsReader::new(M3, 8, 64);
    let result = feed_until(&mut reader, "]<]minimax[>[<other>", &mut |_, _| false);
    assert!(result.is_err());
}

#[test]
fn nesting_is_bounded() {
    let deep = "^<a>".repeat(9);
    let mut reader = ElementsReader::new(M3, 8, 64);
    let text = m3(&deep);
    let result = feed_until(&mut reader, &text, &mut |_, _| false);
    assert!(matches!(result, Err((ElementsErrorKind::TooDeep, ..))));
    let _ = Fed::More;
}

const COFL: Spelling = Spelling {
    item: "",
    values: &["p", "v"],
    id_attribute: "id",
    holds: &[
        ("string", "true", ElementValue::String),
        ("string", "false", ElementValue::Json),
        ("type", "dict", ElementValue::Object),
        ("type", "list", ElementValue::Array),
    ],
    ..Spelling::tags("c")
};

#[test]
fn values_named_by_an_attribute_say_what_they_hold() {
    let text = "<c name=\"f&amp;g\" id=\"7\"><p name=\"q\" string=\"true\"> a &lt; b </p>\
                <p name=\"n\" string=\"false\">[1]</p><v name=\"d\" type=\"dict\">\n  \
                <v name=\"l\" type=\"list\"><v string=\"true\">x</v></v></v></c>";
    let (value, lenient) = call(COFL, text);
    assert_eq!(value["id"], "7");
    assert_eq!(value["name"], "f&g");
    assert_eq!(
        value["arguments"],
        json!({"q": " a < b ", "n": "[1]", "d": {"l": ["x"]}})
    );
    assert!(lenient.is_empty());
}

#[test]
fn unnamed_values_make_an_array_and_an_unnamed_key_is_empty() {
    let (value, lenient) = call(COFL, "<c name=\"f\"><v name=\"l\"><v>a</v></v><v>b</v></c>");
    assert_eq!(value["arguments"], json!({"l": ["a"], "": "b"}));
    assert_eq!(lenient, ["Lenient(UnnamedElement)"]);
}
