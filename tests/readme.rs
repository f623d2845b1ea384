//! The documentation's recovery tables must keep saying what the parser does:
//! each row names a fixture, the calls it makes and the diagnostics it
//! reports. The tables are read from README.md and every page under `docs/`
//! (`docs/**/*.md`), so a table moved to another page is still checked. The
//! documentation's relative links must lead to a file that exists, and to a
//! heading in it when they name one.
mod common;

use std::collections::BTreeSet;
use std::path::Path;

use common::fixtures;
use toolcall_stream::Format;

/// Formats whose recovery table has a row for every fixture. The Qwen3-Coder
/// table shows a selection (fixtures such as `empty` or the fuzz findings
/// add nothing to read there).
fn every_fixture_has_a_row(format: Format) -> bool {
    format != Format::Qwen3Coder
}

struct Row {
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
fn recovery_rows(page: &str, text: &str) -> Vec<Row> {
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

/// The recovery tables of README.md and of every page under `docs/`.
fn readme_rows() -> Vec<Row> {
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

/// GitHub's anchors for a page's headings: lower case, punctuation other than
/// `-` and `_` dropped, spaces as `-`; a repeated one gets `-1`, `-2`, ….
fn anchors(text: &str) -> BTreeSet<String> {
    let mut count = std::collections::BTreeMap::<String, usize>::new();
    let mut out = BTreeSet::new();
    for line in prose_lines(text) {
        let hashes = line.len() - line.trim_start_matches('#').len();
        if !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let slug: String = line[hashes..]
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let n = count.entry(slug.clone()).or_insert(0);
        out.insert(if *n == 0 { slug } else { format!("{slug}-{n}") });
        *n += 1;
    }
    out
}

/// The targets of a page's inline links, outside code.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in prose_lines(text) {
        let line = without_code_spans(line);
        let mut rest = line.as_str();
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            if let Some(end) = rest.find(')') {
                out.push(rest[..end].to_owned());
                rest = &rest[end..];
            }
        }
    }
    out
}

/// Every relative link in README.md and `docs/` leads to a file of the
/// repository, and to one of its headings when it names an anchor: a page
/// moved, a heading renamed or a path outside the repository (which a reader
/// of the published crate cannot follow) fails here.
#[test]
fn relative_links_lead_somewhere() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .canonicalize()
        .expect("root");
    let mut broken = Vec::new();
    for page in pages() {
        let text = read_page(&page);
        for link in links(&text) {
            if link.contains("://") || link.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = match link.split_once('#') {
                Some((path, anchor)) => (path, Some(anchor)),
                None => (link.as_str(), None),
            };
            let target = if path.is_empty() {
                root.join(&page)
            } else {
                root.join(&page)
                    .parent()
                    .expect("a page's folder")
                    .join(path)
            };
            let Ok(target) = target.canonicalize() else {
                broken.push(format!("{page}: ({link}): no such file"));
                continue;
            };
            if !target.starts_with(&root) {
                broken.push(format!("{page}: ({link}): outside the repository"));
                continue;
            }
            if let Some(anchor) = anchor {
                let is_markdown = target.extension().is_some_and(|e| e == "md");
                let text = std::fs::read_to_string(&target).unwrap_or_default();
                if !is_markdown || !anchors(&text).contains(anchor) {
                    broken.push(format!("{page}: ({link}): no heading #{anchor}"));
                }
            }
        }
    }
    assert!(
        broken.is_empty(),
        "broken links in the documentation:\n{}",
        broken.join("\n")
    );
}
