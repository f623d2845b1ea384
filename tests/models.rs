//! `docs/models.md` shows `Format::MODEL_PATTERNS`, the table
//! `Format::for_model` reads: the page's table must be the code's, row for
//! row and in its order, so that it cannot go stale.

use std::path::Path;

use toolcall_stream::Format;

/// The table as the page writes it: a header, its rule, one row a pattern.
fn table() -> String {
    let mut table = String::from("| Pattern | Format |\n|---|---|\n");
    for (pattern, format) in Format::MODEL_PATTERNS {
        table.push_str(&format!("| `{pattern}` | `{}` |\n", format.name()));
    }
    table
}

#[test]
fn the_models_page_shows_the_code_table() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/models.md");
    let page = std::fs::read_to_string(path).unwrap();
    let page_table: String = page
        .lines()
        .skip_while(|line| *line != "| Pattern | Format |")
        .take_while(|line| line.starts_with('|'))
        .map(|line| format!("{line}\n"))
        .collect();
    assert_eq!(
        page_table,
        table(),
        "docs/models.md's table is not Format::MODEL_PATTERNS, which reads:\n{}",
        table()
    );
}
