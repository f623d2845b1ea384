//! SGLang's GLM-4.7 schema-typing cases, run against this crate: every case
//! of its tests whose tools' `parameters` use `anyOf`/`oneOf` (at the root or
//! per property) or `const`, transcribed into `tests/sglang_glm47/cases.json`
//! (see its README.md for the upstream files, commit and license).
//!
//! Each case is parsed with its tools, at once and fed a byte at a time, and
//! its calls' arguments (as JSON values, so `7` and `"7"` and `7.0` differ)
//! are compared with SGLang's. A case that differs must be listed in
//! [`KNOWN_DIFFERENCES`] with its reason, and a listed case must still
//! differ, so the table stays exactly the set of deliberate differences.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

use serde_json::Value;
use toolcall_stream::{Format, Message, MessageBuilder, Parser, Tools};

/// `value` (`7`) comes before the tag `kind` (`text`). We type a value when
/// it ends, by the branches the call may still be in then: all of them, so
/// `7` is an integer or a string and becomes `7`; the tag chooses for what
/// follows it, and the value has already been streamed. SGLang holds the
/// value and types it with the siblings the call completed, `"7"`.
const VALUE_BEFORE_TAG: &str = "a value before the tag is typed by every branch (`7`), \
     not retyped by the later tag (SGLang: `\"7\"`), so values stream when they end";

/// The call chose the `other` branch, which does not declare `payload`; only
/// the branch it left behind (`acme`) does, as an object.
const LEFT_BEHIND_NAME: &str = "a name only a branch the call left behind declares keeps that \
     branch's type (the tool still declares it): `{\"x\":1}` becomes an object; SGLang reads \
     it as undeclared in the chosen branch, a string";

/// Cases where this crate deliberately differs from SGLang, with the reason.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[
    (
        "test_completed_siblings_disambiguate_root_union/02",
        VALUE_BEFORE_TAG,
    ),
    (
        "test_completed_siblings_disambiguate_root_union/06",
        VALUE_BEFORE_TAG,
    ),
    (
        "test_completed_siblings_disambiguate_root_union/10",
        VALUE_BEFORE_TAG,
    ),
    (
        "test_completed_siblings_disambiguate_root_union/14",
        VALUE_BEFORE_TAG,
    ),
    (
        "test_completed_siblings_disambiguate_root_union/18",
        VALUE_BEFORE_TAG,
    ),
    (
        "test_completed_siblings_disambiguate_root_union/22",
        VALUE_BEFORE_TAG,
    ),
    (
        "test_completed_siblings_disambiguate_root_union/26",
        VALUE_BEFORE_TAG,
    ),
    (
        "test_completed_siblings_disambiguate_root_union/30",
        VALUE_BEFORE_TAG,
    ),
    (
        "test_completed_siblings_disambiguate_root_union/34",
        VALUE_BEFORE_TAG,
    ),
    (
        "test_completed_siblings_disambiguate_root_union/38",
        VALUE_BEFORE_TAG,
    ),
    (
        "test_completed_siblings_disambiguate_root_union/42",
        VALUE_BEFORE_TAG,
    ),
    (
        "test_completed_siblings_disambiguate_root_union/46",
        VALUE_BEFORE_TAG,
    ),
    (
        "test_completed_siblings_disambiguate_root_union/50",
        VALUE_BEFORE_TAG,
    ),
    (
        "test_completed_siblings_disambiguate_root_union/54",
        VALUE_BEFORE_TAG,
    ),
    (
        "test_completed_siblings_disambiguate_root_union/58",
        VALUE_BEFORE_TAG,
    ),
    (
        "test_completed_siblings_disambiguate_root_union/62",
        VALUE_BEFORE_TAG,
    ),
    (
        "test_completed_siblings_disambiguate_root_union/66",
        VALUE_BEFORE_TAG,
    ),
    (
        "test_completed_siblings_disambiguate_root_union/70",
        VALUE_BEFORE_TAG,
    ),
    (
        "test_completed_siblings_disambiguate_root_union/74",
        VALUE_BEFORE_TAG,
    ),
    (
        "test_completed_siblings_disambiguate_root_union/78",
        VALUE_BEFORE_TAG,
    ),
    (
        "test_completed_siblings_disambiguate_root_union/82",
        VALUE_BEFORE_TAG,
    ),
    (
        "test_completed_siblings_disambiguate_root_union/86",
        VALUE_BEFORE_TAG,
    ),
    (
        "test_completed_siblings_disambiguate_root_union/90",
        VALUE_BEFORE_TAG,
    ),
    (
        "test_completed_siblings_disambiguate_root_union/94",
        VALUE_BEFORE_TAG,
    ),
    (
        "test_completed_arguments_reset_between_tool_calls/00",
        VALUE_BEFORE_TAG,
    ),
    ("root_combinator/glm47_other", LEFT_BEHIND_NAME),
    ("root_combinator/glm_other", LEFT_BEHIND_NAME),
];

struct Case {
    id: String,
    sglang_test: String,
    format: Format,
    tools: Arc<Tools>,
    tools_json: Value,
    output: String,
    expected: Vec<Value>,
}

fn cases() -> Vec<Case> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sglang_glm47/cases.json");
    let text = std::fs::read_to_string(&path).expect("tests/sglang_glm47/cases.json");
    let cases: Vec<Value> = serde_json::from_str(&text).expect("cases.json is JSON");
    cases
        .iter()
        .map(|case| {
            let field = |name: &str| case[name].as_str().unwrap_or_else(|| panic!("{name}"));
            Case {
                id: field("id").to_owned(),
                sglang_test: field("sglang_test").to_owned(),
                format: field("format").parse().expect("a format name"),
                tools: Arc::new(Tools::from_value(&case["tools"]).expect("tools")),
                tools_json: case["tools"].clone(),
                output: field("output").to_owned(),
                expected: case["expected"].as_array().expect("expected").clone(),
            }
        })
        .collect()
}

fn parser(case: &Case) -> Parser {
    Parser::builder()
        .format(case.format)
        .tools(case.tools.clone())
        .build()
}

fn arguments(message: &Message) -> Vec<Value> {
    message
        .tool_calls
        .iter()
        .map(|call| {
            serde_json::from_str(&call.arguments).unwrap_or(Value::String(call.arguments.clone()))
        })
        .collect()
}

/// The arguments parsed at once and fed a byte at a time (the two must be
/// the same whatever SGLang says).
fn ours(case: &Case) -> Vec<Value> {
    let whole = arguments(&parser(case).parse(&case.output));
    let mut split = parser(case);
    let mut collected = MessageBuilder::new();
    for byte in case.output.as_bytes() {
        collected.extend(split.feed(std::slice::from_ref(byte)));
    }
    collected.extend(split.finish());
    assert_eq!(
        arguments(&collected.finish()),
        whole,
        "{}: fed a byte at a time",
        case.id
    );
    whole
}

#[test]
fn the_cases_are_all_there() {
    let cases = cases();
    assert_eq!(cases.len(), 119);
    let ids: BTreeSet<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids.len(), cases.len(), "duplicate case id");
    let tests: BTreeSet<&str> = cases.iter().map(|c| c.sglang_test.as_str()).collect();
    assert!(tests.len() >= 7, "{tests:?}");
}

#[test]
fn agrees_with_sglang_except_known_differences() {
    let known: BTreeMap<&str, &str> = KNOWN_DIFFERENCES.iter().copied().collect();
    assert_eq!(
        known.len(),
        KNOWN_DIFFERENCES.len(),
        "duplicate id in KNOWN_DIFFERENCES"
    );
    let cases = cases();
    let ids: BTreeSet<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    let mut failures = String::new();
    for id in known.keys() {
        if !ids.contains(id) {
            let _ = writeln!(failures, "--- {id}: listed, but not a case");
        }
    }
    let mut agree = 0;
    for case in &cases {
        let ours = ours(case);
        let same = ours == case.expected;
        agree += usize::from(same);
        match (same, known.get(case.id.as_str())) {
            (false, None) => {
                let _ = writeln!(
                    failures,
                    "UNEXPECTED DIFFERENCE {} ({}):\n  output:   {}\n  tools:    {}\n  sglang:   {}\n  ours:     {}",
                    case.id,
                    case.sglang_test,
                    case.output,
                    case.tools_json,
                    Value::Array(case.expected.clone()),
                    Value::Array(ours),
                );
            }
            (true, Some(reason)) => {
                let _ = writeln!(
                    failures,
                    "STALE KNOWN_DIFFERENCES ENTRY: {} now agrees with SGLang; remove it \
                     (reason was: {reason})",
                    case.id
                );
            }
            _ => {}
        }
    }
    eprintln!(
        "{agree} of {} cases agree with SGLang, {} listed differences",
        cases.len(),
        known.len()
    );
    assert!(failures.is_empty(), "SGLang GLM-4.7 cases:\n{failures}");
}
