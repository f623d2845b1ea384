//! The conformance fixtures `constraints-check/xgrammar_builtins.py`
//! compares our structural tags with xgrammar's built-in ones on: every
//! fixture of a format with a grammar that the parser reads as clean,
//! complete calls, with its tools and our structural tag for it (`lazy`
//! with a reasoning block, the constraint `walks.rs` admits fixtures
//! under). Written to `target/constraint-fixtures.json`.

use serde_json::Value;
use toolcall_stream::{Constraint, Dialect, Format, Parser, Tools};

const FIXTURES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../target/constraint-fixtures.json"
);

#[test]
fn fixtures_for_the_builtin_comparison() {
    let corpus: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/conformance/corpus.json"
        ))
        .expect("the conformance corpus"),
    )
    .expect("JSON");
    let constraint = Constraint {
        reasoning: true,
        dialect: Dialect::StructuralTag,
        ..Constraint::lazy()
    };
    let mut out = Vec::new();
    for case in &corpus {
        let Ok(format) = case["parser"]
            .as_str()
            .unwrap_or_default()
            .parse::<Format>()
        else {
            continue;
        };
        let tools = Tools::from_value(&case["tools"]).expect("tools");
        let Ok(tag) = format.constraint(&tools, &constraint) else {
            continue;
        };
        let text = case["text"].as_str().expect("text");
        // As walks.rs reads them: another format's call in free text is
        // not this grammar's concern.
        let message = Parser::builder()
            .format(format)
            .tools(tools.clone())
            .watch_foreign_formats(false)
            .build()
            .parse(text);
        let clean = !message.tool_calls.is_empty()
            && message.diagnostics.is_empty()
            && message.tool_calls.iter().all(|c| c.complete);
        if clean {
            out.push(serde_json::json!({
                "id": case["id"],
                "format": format.name(),
                "tools": case["tools"],
                "text": text,
                "structural_tag": serde_json::from_str::<Value>(&tag).expect("a tag is JSON"),
            }));
        }
    }
    assert!(out.len() >= 20, "only {} fixtures", out.len());
    let json = serde_json::to_string_pretty(&out).expect("JSON");
    std::fs::write(FIXTURES, json).expect("write the fixtures");
}
