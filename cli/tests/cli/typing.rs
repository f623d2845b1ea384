//! Typing argument values: by a `--tools` schema, `--typing infer` or
//! `strings`, and `--strict`.

use std::path::PathBuf;

use serde_json::json;

use crate::{arguments, diagnostic_kinds, fixture, parse_file, path_str, run, scratch, transcript};

fn typed_fixture() -> (PathBuf, PathBuf) {
    (
        fixture("typed_invalid.txt"),
        fixture("typed_invalid.tools.json"),
    )
}

#[test]
fn tools_type_values_and_strings_turns_it_off() {
    let (input, tools) = typed_fixture();
    let typed = parse_file(&["--tools", path_str(&tools)], &input);
    let args = arguments(&typed["tool_calls"][0]);
    assert_eq!(args["id"], json!(2.5));
    assert_eq!(args["days"], "three");
    assert!(diagnostic_kinds(&typed).contains(&"invalid_value"));

    let strings = parse_file(
        &["--tools", path_str(&tools), "--typing", "strings"],
        &input,
    );
    let args = arguments(&strings["tool_calls"][0]);
    assert_eq!(args["id"], "2.5");
    assert!(!diagnostic_kinds(&strings).contains(&"invalid_value"));
}

#[test]
fn infer_types_values_without_a_schema() {
    let path = scratch(
        "infer.txt",
        "<tool_call>\n<function=f>\n<parameter=n>\n3\n</parameter>\n<parameter=x>\n2.5\n</parameter>\n\
         <parameter=b>\nFalse\n</parameter>\n<parameter=s>\nhi\n</parameter>\n</function>\n</tool_call>",
    );
    let message = parse_file(&["--typing", "infer"], &path);
    assert_eq!(
        arguments(&message["tool_calls"][0]),
        json!({"n": 3, "x": 2.5, "b": false, "s": "hi"})
    );
}

#[test]
fn strict_returns_a_call_that_failed_as_content() {
    let (input, tools) = typed_fixture();
    let message = parse_file(&["--tools", path_str(&tools), "--strict"], &input);
    assert_eq!(message["tool_calls"], json!([]));
    let text = std::fs::read_to_string(&input).unwrap();
    assert_eq!(message["content"], text);
    assert!(diagnostic_kinds(&message).contains(&"rejected_call"));
}

#[test]
fn an_unknown_typing_is_a_usage_error() {
    let out = run(
        &["parse", "--typing", "json", path_str(&transcript())],
        None,
    );
    assert_eq!(out.status.code(), Some(2), "{}", out.stderr);
    assert!(out.stderr.contains("schema"), "{}", out.stderr);
}
