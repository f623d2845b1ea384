//! `--tools`: calls to tools the file does not declare are reported.

use serde_json::Value;

use crate::{diagnostic_kinds, parse_file, path_str, scratch, transcript};

#[test]
fn tools_file_reports_calls_to_undeclared_tools() {
    let tools = scratch(
        "tools.json",
        r#"[{"type": "function", "function": {"name": "write_file", "description": "Write a file",
             "parameters": {"type": "object", "properties": {"path": {"type": "string"},
             "content": {"type": "string"}}, "required": ["path", "content"]}}}]"#,
    );
    let message = parse_file(&["--tools", path_str(&tools)], &transcript());
    // The call is kept: the diagnostic is for the caller to act on.
    let calls = message["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2);
    let unknown: Vec<&Value> = message["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["kind"] == "unknown_tool")
        .collect();
    assert_eq!(unknown.len(), 1, "{message}");
    assert_eq!(unknown[0]["index"], 1);
    assert!(unknown[0]["message"]
        .as_str()
        .unwrap()
        .contains("run_shell"));

    // Without --tools nothing is unknown.
    let message = parse_file(&[], &transcript());
    assert!(!diagnostic_kinds(&message).contains(&"unknown_tool"));
}

#[test]
fn tools_file_listing_every_tool_reports_nothing_unknown() {
    let tools = scratch(
        "tools-all.json",
        r#"[{"type": "function", "function": {"name": "write_file"}},
            {"type": "function", "function": {"name": "run_shell"}}]"#,
    );
    let message = parse_file(&["--tools", path_str(&tools)], &transcript());
    assert!(
        !diagnostic_kinds(&message).contains(&"unknown_tool"),
        "{message}"
    );
}
