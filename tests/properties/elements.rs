//! Generators for the formats that write calls as nested elements
//! (`minimax_m3`: `]<]minimax[>[<invoke name="f">]<]minimax[>[<city>Paris…`;
//! `cohere_cofl`: `<cofl:tool_call id="0" name="f"><cofl:value name="city"`
//! ` type="raw">Paris…`, values named by an attribute, typed by another):
//! marker soup (the format's markers, near misses, tags with and without
//! the prefix token, entities), and well-formed calls whose arguments are
//! random values written as elements (objects as children, arrays as
//! `<item>`s, text entity-escaped), laid out with and without whitespace
//! after the token. Text around them, and one output in four cut off.
//!
//! Also the property that such arguments come back as the value they
//! stand for (leaves as strings, no schema), whatever splits the text.

use super::*;
use serde_json::{Map, Value};

const TOKEN: &str = "]<]minimax[>[";

/// The format's markers, and near misses of each.
fn markers(format: Format) -> &'static [&'static str] {
    match format {
        Format::MiniMaxM3 => &[
            "]<]minimax[>[<tool_call>",
            "]<]minimax[>[</tool_call>",
            "]<]minimax[>[ <tool_call>",
            "]<]minimax[>[<invoke name=\"f\">",
            "]<]minimax[>[</invoke>",
            "]<]minimax[>[<city>",
            "]<]minimax[>[</city>",
            "]<]minimax[>[<item>",
            "]<]minimax[>[",
            "]<]mini",
            "]<]",
            "<tool_call>",
            "<mm:think>",
            "</mm:think>",
        ],
        Format::CohereCofl => &[
            "<cofl:tool_calls>",
            "</cofl:tool_calls>",
            "<cofl:tool_call id=\"0\" name=\"f\">",
            "<cofl:tool_call name=\"f\">",
            "</cofl:tool_call>",
            "<cofl:tool_param name=\"q\" string=\"true\">",
            "<cofl:tool_param name=\"n\" string=\"false\">",
            "</cofl:tool_param>",
            "<cofl:value name=\"d\" type=\"dict\">",
            "<cofl:value type=\"list\">",
            "<cofl:value type=\"json\">",
            "</cofl:value>",
            "<cofl:",
            "<|START_THINKING|>",
            "<|END_THINKING|>",
            // (Not `<|START_TEXT|>`, layout dropped as content is read, nor
            // `<|END_OF_TURN_TOKEN|>`, text inside a call as every marker is:
            // the no-byte-lost properties model neither.)
        ],
        other => panic!("{other} does not write elements"),
    }
}

/// What else the soup holds: angles, entities, brackets, text.
const PIECES: &[&str] = &[
    "<", ">", "</", "/>", "&", "&amp;", "&lt;", "&#65;", "&bogus;", "]", "[", "\"", "=", " ", "\n",
    "é", "東京", "text ", "<city>",
];

/// Marker soup for `format`.
pub fn soup(format: Format) -> impl Strategy<Value = Vec<u8>> + Clone {
    let pieces = prop::sample::select(
        markers(format)
            .iter()
            .chain(PIECES)
            .copied()
            .collect::<Vec<_>>(),
    );
    prop::collection::vec(pieces, 0..48).prop_map(|p| p.concat().into_bytes())
}

/// What text holds: markup-like bytes, entities' characters, markers of
/// the format without their token, non-ASCII text.
const STRING_PIECES: &[&str] = &[
    "<",
    ">",
    "&",
    "\"",
    "'",
    "]",
    "[",
    "<b>",
    "</city>",
    "<tool_call>",
    "]<]",
    "\n",
    "\t",
    "é",
    "😀",
    "東京",
    "a",
    " ",
    "{",
    "}",
];

fn string() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(STRING_PIECES), 1..6).prop_map(|p| p.concat())
}

/// Keys that are tag names (never `item`, which makes an array).
const KEYS: &[&str] = &["city", "path", "x", "n", "data", "東京"];

/// A value: strings (non-empty, so that a leaf is never read as an empty
/// object), objects and non-empty arrays of them, a few levels deep.
fn value() -> impl Strategy<Value = Value> {
    string()
        .prop_map(Value::String)
        .prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 1..4).prop_map(Value::Array),
                prop::collection::btree_map(prop::sample::select(KEYS), inner, 1..4).prop_map(
                    |pairs| {
                        Value::Object(
                            pairs
                                .into_iter()
                                .map(|(k, v)| (k.to_owned(), v))
                                .collect::<Map<_, _>>(),
                        )
                    }
                ),
            ]
        })
}

fn escaped(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// `value` as the content of an element; `gap` between tags.
fn elements_of(value: &Value, gap: &str) -> String {
    match value {
        Value::String(s) => escaped(s),
        Value::Array(items) => items
            .iter()
            .map(|v| format!("{gap}{TOKEN}<item>{}{TOKEN}</item>", elements_of(v, gap)))
            .collect(),
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| format!("{gap}{TOKEN}<{k}>{}{TOKEN}</{k}>", elements_of(v, gap)))
            .collect(),
        other => other.to_string(),
    }
}

fn arguments() -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::btree_map(prop::sample::select(KEYS), value(), 0..4)
        .prop_map(|pairs| pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

fn call(name: &str, args: &Map<String, Value>, gap: &str) -> String {
    format!(
        "{TOKEN}<invoke name=\"{name}\">{}\n{TOKEN}</invoke>",
        elements_of(&Value::Object(args.clone()), gap)
    )
}

/// `value` as Cohere's nested `<cofl:value>`, named when in an object.
fn cofl_value(name: Option<&str>, value: &Value, gap: &str) -> String {
    let name = name.map_or(String::new(), |n| format!(" name=\"{}\"", escaped(n)));
    let (kind, body) = match value {
        Value::String(s) => ("raw", escaped(s)),
        Value::Array(items) => (
            "list",
            items.iter().map(|v| cofl_value(None, v, gap)).collect(),
        ),
        Value::Object(map) => (
            "dict",
            map.iter()
                .map(|(k, v)| cofl_value(Some(k), v, gap))
                .collect(),
        ),
        other => ("json", other.to_string()),
    };
    format!("{gap}<cofl:value{name} type=\"{kind}\">{body}</cofl:value>")
}

fn cofl_call(name: &str, args: &Map<String, Value>, gap: &str) -> String {
    let params: String = args
        .iter()
        .map(|(k, v)| cofl_value(Some(k), v, gap))
        .collect();
    format!("<cofl:tool_call id=\"0\" name=\"{name}\">{params}{gap}</cofl:tool_call>")
}

/// Calls in `format`'s wrapper.
fn wrapped(format: Format, calls: &[(&str, Map<String, Value>)], gap: &str) -> String {
    match format {
        Format::CohereCofl => {
            let calls: Vec<String> = calls.iter().map(|(n, a)| cofl_call(n, a, gap)).collect();
            format!("<cofl:tool_calls>{}</cofl:tool_calls>", calls.join(gap))
        }
        _ => {
            let calls: Vec<String> = calls.iter().map(|(n, a)| call(n, a, gap)).collect();
            format!(
                "{TOKEN}<tool_call>\n{}\n{TOKEN}</tool_call>",
                calls.join("\n")
            )
        }
    }
}

/// One to three calls in one wrapper, marker soup around them, sometimes
/// cut off.
pub fn calls(format: Format) -> impl Strategy<Value = Vec<u8>> {
    let name = prop::sample::select(vec!["get_weather", "f", "mcp.server-x.tool"]);
    let text = soup(format).prop_map(|t| String::from_utf8_lossy(&t).into_owned());
    let cut = prop::option::weighted(0.25, any::<prop::sample::Index>());
    let gap = prop::sample::select(vec!["", "\n", "\n  "]);
    (
        text.clone(),
        prop::collection::vec((name, arguments()), 1..4),
        gap,
        text,
        cut,
    )
        .prop_map(move |(before, calls, gap, after, cut)| {
            let mut out = format!("{before}{}{after}", wrapped(format, &calls, gap)).into_bytes();
            if let Some(cut) = cut {
                out.truncate(cut.index(out.len()));
            }
            out
        })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases() / 4,
        rng_seed: rng_seed(),
        ..ProptestConfig::default()
    })]

    /// Arguments written as nested elements come back as the value they
    /// stand for, at every split, with no diagnostic.
    #[test]
    fn nested_elements_come_back_as_their_value(
        args in arguments(),
        gap in prop::sample::select(vec!["", "\n", " \n\t"]),
    ) {
        for format in [Format::MiniMaxM3, Format::CohereCofl] {
        let input = format!("Sure.\n{}", wrapped(format, &[("f", args.clone())], gap));
        let input = input.as_bytes();
        let mut splits: Vec<Vec<usize>> = (0..=input.len()).step_by(7).map(|at| vec![at]).collect();
        splits.push((1..input.len()).collect());
        for cuts in splits {
            let mut parser = build(format, ValueTermination::Lookahead, true, None);
            let message = message_of(&feed_cut(&mut parser, input, &cuts));
            prop_assert!(message.diagnostics.is_empty(), "{:?}", message.diagnostics);
            prop_assert_eq!(message.tool_calls.len(), 1);
            let arguments: Value = serde_json::from_str(&message.tool_calls[0].arguments).unwrap();
            prop_assert_eq!(&arguments, &Value::Object(args.clone()), "at {:?}", cuts);
        }
        }
    }
}
