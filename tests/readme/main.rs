//! The documentation must keep agreeing with the crate. README.md and
//! every page under `docs/` (`docs/**/*.md`) are read:
//! - `recovery.rs`: each recovery table's rows say what the parser does;
//! - `relative_links.rs`: every relative link leads to a file and a heading;
//! - `lists.rs`: every format has its row in the README's table, its page,
//!   and its entry in `docs/README.md`, and every page is listed.

#[path = "../common/mod.rs"]
mod common;

mod lists;
mod recovery;
mod relative_links;

use std::collections::BTreeSet;
use std::path::Path;

use common::fixtures;
use toolcall_stream::Format;

/// README.md and every Markdown page under `docs/`, relative to the
/// repository's root, in a stable order.
fn pages() -> Vec<String> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|entry| entry.expect("docs entry").path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, root, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                let page = path.strip_prefix(root).expect("under the root");
                out.push(page.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages = vec!["README.md".to_owned()];
    walk(&root.join("docs"), root, &mut pages);
    pages
}

fn read_page(page: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(root.join(page)).unwrap_or_else(|e| panic!("{page}: {e}"))
}

/// The lines of a Markdown page outside fenced code blocks.
fn prose_lines(text: &str) -> Vec<&str> {
    let mut fence: Option<usize> = None;
    let mut out = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        let ticks = trimmed.len() - trimmed.trim_start_matches('`').len();
        let rest = &trimmed[ticks..];
        match fence {
            Some(open) => {
                if ticks >= open && rest.trim().is_empty() {
                    fence = None;
                }
            }
            // An info string holds no backtick: "```` ``` ````" is a code span.
            None if ticks >= 3 && !rest.contains('`') => fence = Some(ticks),
            None => out.push(line),
        }
    }
    out
}

/// A line with its code spans taken out (a run of N backticks up to the
/// next run of exactly N).
fn without_code_spans(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find('`') {
        out.push_str(&rest[..at]);
        let run = rest[at..].len() - rest[at..].trim_start_matches('`').len();
        let after = &rest[at + run..];
        let mut close = None;
        let mut from = 0;
        while let Some(i) = after[from..].find('`') {
            let start = from + i;
            let len = after[start..].len() - after[start..].trim_start_matches('`').len();
            if len == run {
                close = Some(start + len);
                break;
            }
            from = start + len;
        }
        match close {
            Some(end) => rest = &after[end..],
            None => {
                out.push_str(&rest[at..at + run]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}
