//! The recovery tables: each row names a fixture, the calls it makes and
//! the diagnostics it reports, and must keep saying what the parser does.

use super::*;

/// Formats whose recovery table has a row for every fixture. The Qwen3-Coder
/// table shows a selection (fixtures such as `empty` or the fuzz findings
/// add nothing to read there).
pub(crate) fn every_fixture_has_a_row(format: Format) -> bool {
    format != Format::Qwen3Coder
}

pub(crate) struct Row {
    /// The page the row is on, relative to the repository's root.
    page: String,
    /// The format's directory under `tests/fixtures/`, from the row's link.
    format: String,
    fixture: String,
    outputs: String,
    diagnostics: BTreeSet<String>,
}

/// Table rows look like
/// ``| [`NAME`](../../tests/fixtures/FORMAT/NAME.txt) | `INPUT` | `CALL` `ARGS`; content `…` | `kind`, `kind` |``.
/// Fixture names repeat across formats (`one_call`), so the link says which
/// format's fixture the row shows.
pub(crate) fn recovery_rows(page: &str, text: &str) -> Vec<Row> {
    text.lines()
        .filter(|line| line.starts_with("| [`"))
        .map(|line| {
            let fixture = line["| [`".len()..].split('`').next().unwrap().to_owned();
            let link = line
                .split_once("](")
                .and_then(|(_, rest)| rest.split_once(')'))
                .map(|(link, _)| link)
                .unwrap_or_else(|| panic!("{page}: row `{fixture}` has no link"));
            // Rows under `docs/` link up to the repository's root.
            let format = link
                .trim_start_matches("../")
                .strip_prefix("tests/fixtures/")
                .and_then(|rest| rest.strip_suffix(&format!("/{fixture}.txt")))
                .unwrap_or_else(|| {
                    panic!(
                        "{page}: row `{fixture}` links to {link}, not tests/fixtures/FORMAT/{fixture}.txt"
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
                page: page.to_owned(),
                format,
                fixture,
                outputs: cells[1].to_owned(),
                diagnostics,
            }
        })
        .collect()
}

/// The recovery tables of README.md and of every page under `docs/`.
pub(crate) fn readme_rows() -> Vec<Row> {
    pages()
        .iter()
        .flat_map(|page| recovery_rows(page, &read_page(page)))
        .collect()
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
            "recovery table of {format} not found in README.md or docs/ ({count} rows)"
        );
    }
    let all = fixtures();
    let mut seen = BTreeSet::new();
    for row in rows {
        let label = format!("{}: {}/{}", row.page, row.format, row.fixture);
        assert!(
            seen.insert((row.format.clone(), row.fixture.clone())),
            "row `{label}` is there twice (or on two pages)"
        );
        let fixture = all
            .iter()
            .find(|f| f.format.name() == row.format && f.name == row.fixture)
            .unwrap_or_else(|| panic!("row `{label}` has no fixture"));
        // The tables show the whole-output result (`parse`): a call whose
        // arguments could not be read is content there.
        let message = fixture.parser().parse(&fixture.input);
        let kinds: BTreeSet<String> = message
            .diagnostics
            .iter()
            .map(|d| d.kind.as_str().to_owned())
            .collect();
        assert_eq!(
            kinds, row.diagnostics,
            "row `{label}`: diagnostics (regenerate with scripts/regen_tables.py {})",
            row.page
        );
        let mut rest = row.outputs.as_str();
        for call in &message.tool_calls {
            let named = format!("`{}`", call.name);
            let at = rest.find(&named).unwrap_or_else(|| {
                panic!(
                    "row `{label}` lacks call {named} in order (regenerate with \
                     scripts/regen_tables.py {})",
                    row.page
                )
            });
            rest = &rest[at + named.len()..];
        }
        assert_eq!(
            message.content.is_some(),
            row.outputs.contains("content `"),
            "row `{label}`: content presence",
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
        "fixtures without a recovery-table row (print them with \
         scripts/recovery_table.py --format FORMAT NAME): {missing:?}"
    );
}
