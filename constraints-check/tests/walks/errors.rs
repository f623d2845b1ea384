//! Requests no grammar can answer: typed errors, never a grammar that
//! cannot end.

use super::TOOLS;
use toolcall_stream::{Constraint, ConstraintError, Format, FormatBuilder, Role, Tools};

#[test]
fn shapes_without_a_grammar_and_bad_requests_are_typed_errors() {
    let tools = Tools::from_json(TOOLS).expect("tools");
    let err = Format::Qwen3Coder.constraint(&tools, &Constraint::named("nope"));
    assert_eq!(err, Err(ConstraintError::UnknownTool("nope".into())));
    let none = Tools::from_json("[]").expect("tools");
    let err = Format::Qwen3Coder.constraint(&none, &Constraint::required());
    assert_eq!(err, Err(ConstraintError::NoTools));
    // No value satisfies `mode`: the tool cannot be called, and calls that
    // are required would have no way to end.
    let stuck = Tools::from_json(
        r#"[{"type": "function", "function": {"name": "f", "parameters": {"type": "object",
            "properties": {"mode": {"enum": []}, "x": {"type": "string"}}, "required": ["mode"]}}}]"#,
    )
    .expect("tools");
    let err = Format::Qwen3Coder.constraint(&stuck, &Constraint::required());
    assert_eq!(err, Err(ConstraintError::Unsatisfiable));
    let lazy = Format::Qwen3Coder
        .constraint(&stuck, &Constraint::lazy())
        .expect("text only");
    assert!(!lazy.contains("<function=f>"), "{lazy}");
    // Optional, it is left out.
    let optional = Tools::from_json(
        r#"[{"type": "function", "function": {"name": "f", "parameters": {"type": "object",
            "properties": {"mode": {"enum": []}, "x": {"type": "string"}}}}}]"#,
    )
    .expect("tools");
    let grammar = Format::Qwen3Coder
        .constraint(&optional, &Constraint::required())
        .expect("grammar");
    assert!(
        !grammar.contains("<parameter=mode>") && grammar.contains("<parameter=x>"),
        "{grammar}"
    );
    // A format of one's own in a shape with no grammar: JSON calls in a
    // wrapper, or bare at any line's start.
    let unwritten = FormatBuilder::new("lines_and_tags")
        .marker(Role::CallOpen, "<tool_call>")
        .marker(Role::CallClose, "</tool_call>")
        .json_body(["name"], ["arguments"], false)
        .json_open_unmarked(false, true)
        .build()
        .expect("format");
    let err = unwritten
        .constraint(&tools, &Constraint::required())
        .unwrap_err();
    assert!(matches!(err, ConstraintError::Unsupported { .. }), "{err}");
}
