//! The conformance fixtures `constraints-check/xgrammar_builtins.py`
//! compares our structural tags with xgrammar's built-in ones on: every
//! fixture of a format with a grammar that the parser reads as clean,
//! complete calls, with its tools and our structural tag for it (`lazy`
//! with a reasoning block, the constraint `walks.rs` admits fixtures
//! under). Written to `target/constraint-fixtures.json`.

use serde_json::Value;
use toolcall_constraints_check::clean_fixtures;
use toolcall_stream::{Constraint, Dialect};

const FIXTURES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../target/constraint-fixtures.json"
);

#[test]
fn fixtures_for_the_builtin_comparison() {
    let constraint = Constraint {
        reasoning: true,
        dialect: Dialect::StructuralTag,
        ..Constraint::lazy()
    };
    let mut out = Vec::new();
    for fixture in clean_fixtures() {
        let Ok(tag) = fixture.format.constraint(&fixture.tools, &constraint) else {
            continue;
        };
        out.push(serde_json::json!({
            "id": fixture.id,
            "format": fixture.format.name(),
            "tools": fixture.tools_json,
            "text": fixture.text,
            "structural_tag": serde_json::from_str::<Value>(&tag).expect("a tag is JSON"),
        }));
    }
    assert!(out.len() >= 20, "only {} fixtures", out.len());
    let json = serde_json::to_string_pretty(&out).expect("JSON");
    std::fs::write(FIXTURES, json).expect("write the fixtures");
}
