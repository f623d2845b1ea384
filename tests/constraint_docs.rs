//! `docs/constraints.md` shows one format's grammar in each dialect, for the
//! tools of its example: each block is what the crate writes today.
//! `TOOLCALL_BLESS=1 cargo test --test constraint_docs` writes them anew.

use std::path::Path;

use toolcall_stream::{Constraint, Dialect, Format, Tools};

const PAGE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/constraints.md");

/// The example's tools, as the page's Rust example declares them.
const TOOLS: &str = r#"[{"type": "function", "function": {"name": "get_weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"},
    "days": {"type": "integer"}}, "required": ["city"]}}}]"#;

/// The text of the block after `<!-- generated: NAME -->`.
fn generated(dialect: Dialect) -> String {
    let tools = Tools::from_json(TOOLS).expect("tools");
    let constraint = Constraint {
        dialect,
        ..Constraint::required()
    };
    let grammar = Format::Qwen3Coder
        .constraint(&tools, &constraint)
        .expect("a grammar");
    match dialect {
        // Shown indented; the CLI prints it on one line.
        Dialect::StructuralTag => {
            let tag: serde_json::Value = serde_json::from_str(&grammar).expect("JSON");
            serde_json::to_string_pretty(&tag).expect("JSON") + "\n"
        }
        _ => grammar,
    }
}

/// `page` with the block after each marker replaced by `text` of its
/// dialect; the blocks it found.
fn with_blocks(page: &str, blocks: &[(&str, String)]) -> (String, usize) {
    let mut out = String::new();
    let mut rest = page;
    let mut found = 0;
    for (name, text) in blocks {
        let marker = format!("<!-- generated: {name} -->\n");
        let Some(at) = rest.find(&marker) else {
            continue;
        };
        let body_start = at + marker.len();
        let fence_end = rest[body_start..].find('\n').map(|i| body_start + i + 1);
        let close = fence_end.and_then(|s| rest[s..].find("```\n").map(|i| s + i));
        let (Some(fence_end), Some(close)) = (fence_end, close) else {
            continue;
        };
        out.push_str(&rest[..fence_end]);
        out.push_str(text);
        rest = &rest[close..];
        found += 1;
    }
    out.push_str(rest);
    (out, found)
}

#[test]
fn the_pages_grammars_are_the_ones_the_crate_writes() {
    let page = std::fs::read_to_string(PAGE).expect("the page");
    let blocks = [
        ("lark", generated(Dialect::Lark)),
        ("structural-tag", generated(Dialect::StructuralTag)),
        ("gbnf", generated(Dialect::Gbnf)),
    ];
    let (expected, found) = with_blocks(&page, &blocks);
    assert_eq!(
        found,
        blocks.len(),
        "a `<!-- generated: … -->` block is missing"
    );
    if std::env::var_os("TOOLCALL_BLESS").is_some() {
        std::fs::write(Path::new(PAGE), &expected).expect("write the page");
        return;
    }
    assert!(
        page == expected,
        "docs/constraints.md's grammars are not the crate's: \
         TOOLCALL_BLESS=1 cargo test --test constraint_docs writes them"
    );
}
