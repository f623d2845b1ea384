//! The README's recovery tables must keep saying what the parser does: each
//! row names a fixture, the calls it makes and the diagnostics it reports.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use common::{fixtures, message_of, one_shot};
use toolcall_stream::Format;

/// Formats whose recovery table has a row for every fixture. The Qwen3-Coder
/// table shows a selection (fixtures such as `empty` or the fuzz findings
/// add nothing to read there).
/// Qwen3-Coder's table in the README lists a selection; every other
/// format's table (in the README or `docs/formats/`) lists every fixture.
fn every_fixture_has_a_row(format: Format) -> bool {
    format != Format::Qwen3Coder
}

struct Row {
    /// The format's directory under `tests/fixtures/`, from the row's link.
    format: String,
    fixture: String,
    outputs: String,
    diagnostics: BTreeSet<String>,
}

/// Table rows look like
/// ``| [`NAME`](tests/fixtures/FORMAT/NAME.txt) | `INPUT` | `CALL` `ARGS`; content `…` | `kind`, `kind` |``.
/// Fixture names repeat across formats (`one_call`), so the link says which
/// format's fixture the row shows.
fn recovery_rows(readme: &str) -> Vec<Row> {
    readme
        .lines()
        .filter(|line| line.starts_with("| [`"))
        .map(|line| {
            let fixture = line["| [`".len()..].split('`').next().unwrap().to_owned();
            let link = line
                .split_once("](")
                .and_then(|(_, rest)| rest.split_once(')'))
                .map(|(link, _)| link)
                .unwrap_or_else(|| panic!("README row `{fixture}` has no link"));
            // Rows in `docs/formats/` link up to the repository's root.
            let format = link
                .trim_start_matches("../../")
                .strip_prefix("tests/fixtures/")
                .and_then(|rest| rest.strip_suffix(&format!("/{fixture}.txt")))
                .unwrap_or_else(|| {
                    panic!(
                        "README row `{fixture}` links to {link}, not tests/fixtures/FORMAT/{fixture}.txt"
                    )
                })
                .to_owned();
            let cells: Vec<&str> = line.trim_end_matches('|').rsplitn(3, " | ").collect();
            let diagnostics = cells[0]
                .split(", ")
                .map(|kind| kind.trim().trim_matches('`').to_owned())
                .filter(|kind| kind != "—")
                .collect();
            Row {
                format,
                fixture,
                outputs: cells[1].to_owned(),
                diagnostics,
            }
        })
        .collect()
}

/// The recovery tables: the README's, and each format's page in
/// `docs/formats/`.
fn readme_rows() -> Vec<Row> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut text = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let mut pages: Vec<_> = std::fs::read_dir(root.join("docs/formats"))
        .expect("docs/formats")
        .map(|entry| entry.expect("docs/formats entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    for page in pages {
        text.push_str(&std::fs::read_to_string(&page).expect("format page"));
    }
    recovery_rows(&text)
}

#[test]
fn recovery_table_matches_the_parser() {
    let rows = readme_rows();
    for format in Format::ALL {
        let count = rows.iter().filter(|r| r.format == format.name()).count();
        let min = if *format == Format::Qwen3Coder {
            30
        } else {
            10
        };
        assert!(
            count >= min,
            "recovery table of {format} not found in README.md or docs/formats/ ({count} rows)"
        );
    }
    let all = fixtures();
    let mut seen = BTreeSet::new();
    for row in rows {
        let label = format!("{}/{}", row.format, row.fixture);
        assert!(
            seen.insert(label.clone()),
            "README row `{label}` is there twice"
        );
        let fixture = all
            .iter()
            .find(|f| f.format.name() == row.format && f.name == row.fixture)
            .unwrap_or_else(|| panic!("README row `{label}` has no fixture"));
        let mut parser = fixture.parser();
        let message = message_of(&one_shot(&mut parser, &fixture.input));
        let kinds: BTreeSet<String> = message
            .diagnostics
            .iter()
            .map(|d| d.kind.as_str().to_owned())
            .collect();
        assert_eq!(
            kinds, row.diagnostics,
            "README row `{label}`: diagnostics (regenerate with scripts/recovery_table.py --format {})",
            row.format
        );
        let mut rest = row.outputs.as_str();
        for call in &message.tool_calls {
            let named = format!("`{}`", call.name);
            let at = rest.find(&named).unwrap_or_else(|| {
                panic!(
                    "README row `{label}` lacks call {named} in order (regenerate with \
                     scripts/recovery_table.py --format {})",
                    row.format
                )
            });
            rest = &rest[at + named.len()..];
        }
        assert_eq!(
            message.content.is_some(),
            row.outputs.contains("content `"),
            "README row `{label}`: content presence",
        );
    }
}

#[test]
fn every_glm_fixture_has_a_row() {
    let rows: BTreeSet<(String, String)> = readme_rows()
        .into_iter()
        .map(|r| (r.format, r.fixture))
        .collect();
    let missing: Vec<String> = fixtures()
        .iter()
        .filter(|f| every_fixture_has_a_row(f.format))
        // Typed fixtures (with tools) are in the typed-arguments section.
        .filter(|f| f.tools.is_none())
        .filter(|f| !rows.contains(&(f.format.name().to_owned(), f.name.clone())))
        .map(|f| format!("{}/{}", f.format.name(), f.name))
        .collect();
    assert!(
        missing.is_empty(),
        "fixtures without a README recovery-table row (print them with \
         scripts/recovery_table.py --format FORMAT NAME): {missing:?}"
    );
}
