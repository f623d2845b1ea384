//! The README's recovery table must keep saying what the parser does: each
//! row names a fixture, the calls it makes and the diagnostics it reports.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use common::{fixtures, message_of, one_shot};

struct Row {
    fixture: String,
    outputs: String,
    diagnostics: BTreeSet<String>,
}

/// Table rows look like
/// ``| [`NAME`](tests/fixtures/…) | `INPUT` | `CALL` `ARGS`; content `…` | `kind`, `kind` |``.
fn recovery_rows(readme: &str) -> Vec<Row> {
    readme
        .lines()
        .filter(|line| line.starts_with("| [`"))
        .map(|line| {
            let fixture = line["| [`".len()..].split('`').next().unwrap().to_owned();
            let cells: Vec<&str> = line.trim_end_matches('|').rsplitn(3, " | ").collect();
            let diagnostics = cells[0]
                .split(", ")
                .map(|kind| kind.trim().trim_matches('`').to_owned())
                .filter(|kind| kind != "—")
                .collect();
            Row {
                fixture,
                outputs: cells[1].to_owned(),
                diagnostics,
            }
        })
        .collect()
}

#[test]
fn recovery_table_matches_the_parser() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let rows = recovery_rows(&readme);
    assert!(rows.len() >= 30, "recovery table not found in README.md");
    let all = fixtures();
    for row in rows {
        let fixture = all
            .iter()
            .find(|f| f.name == row.fixture)
            .unwrap_or_else(|| panic!("README row `{}` has no fixture", row.fixture));
        let mut parser = fixture.parser();
        let message = message_of(&one_shot(&mut parser, &fixture.input));
        let kinds: BTreeSet<String> = message
            .diagnostics
            .iter()
            .map(|d| d.kind.as_str().to_owned())
            .collect();
        assert_eq!(
            kinds, row.diagnostics,
            "README row `{}`: diagnostics (regenerate with scripts/recovery_table.py)",
            row.fixture
        );
        let mut rest = row.outputs.as_str();
        for call in &message.tool_calls {
            let named = format!("`{}`", call.name);
            let at = rest.find(&named).unwrap_or_else(|| {
                panic!(
                    "README row `{}` lacks call {} in order (regenerate with scripts/recovery_table.py)",
                    row.fixture, named
                )
            });
            rest = &rest[at + named.len()..];
        }
        assert_eq!(
            message.content.is_some(),
            row.outputs.contains("content `"),
            "README row `{}`: content presence",
            row.fixture
        );
    }
}
