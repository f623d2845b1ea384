//! The front door's lists against the crate: every format of
//! [`Format::ALL`] has a row in the README's format table naming it and its
//! aliases, a page that names it, and an entry in `docs/README.md` linking
//! to the same page; no row or entry names a format the crate does not
//! read; and every page under `docs/` is reachable from the lists. Each
//! failure names what is missing and where.

use super::*;
use crate::relative_links::links;

/// One line of a list: the format names in backticks before its link, and
/// where the link leads (relative to the repository's root, anchor kept).
struct Entry {
    names: Vec<String>,
    target: String,
}

/// Names as the crate compares them: any case, `-` or `_` alike.
fn normal(name: &str) -> String {
    name.to_ascii_lowercase().replace('-', "_")
}

/// The code spans of `text` that could be format names, in order (not
/// `<invoke>` or `[TOOL_CALLS]`).
fn code_spans(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|span| {
            span.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b))
        })
        .map(normal)
        .collect()
}

/// The first link target of `text`, resolved against `base` (the page's
/// folder, relative to the root, with a trailing `/` or empty).
fn first_link(text: &str, base: &str) -> Option<String> {
    let (_, rest) = text.split_once("](")?;
    let (target, _) = rest.split_once(')')?;
    Some(format!("{base}{target}"))
}

/// The lines of `page` under the heading `## {section}`, up to the next
/// heading of that level.
fn section(page: &str, heading: &str) -> Vec<String> {
    let text = read_page(page);
    let wanted = format!("## {heading}");
    prose_lines(&text)
        .into_iter()
        .skip_while(|line| line.trim() != wanted)
        .skip(1)
        .take_while(|line| !line.starts_with("## "))
        .map(str::to_owned)
        .collect()
}

/// The README's format table: the names in a row's first cell, its page in
/// the last.
fn readme_table() -> Vec<Entry> {
    section("README.md", "Formats")
        .iter()
        .filter(|line| line.starts_with("| `"))
        .map(|line| {
            let first = line[1..].split(" | ").next().unwrap_or_default();
            let last = line
                .trim_end_matches('|')
                .rsplit(" | ")
                .next()
                .unwrap_or_default();
            Entry {
                names: code_spans(first),
                target: first_link(last, "")
                    .unwrap_or_else(|| panic!("README.md: the row `{first}` links to no page")),
            }
        })
        .collect()
}

/// `docs/README.md`'s format list: the names in an entry's link text.
fn docs_index() -> Vec<Entry> {
    section("docs/README.md", "Formats")
        .iter()
        .filter(|line| line.starts_with("- ["))
        .map(|line| {
            let text = line.split_once("](").map_or("", |(text, _)| text);
            Entry {
                names: code_spans(text),
                target: first_link(line, "docs/")
                    .unwrap_or_else(|| panic!("docs/README.md: `{line}` links nowhere")),
            }
        })
        .collect()
}

fn naming<'a>(entries: &'a [Entry], name: &str) -> Option<&'a Entry> {
    entries
        .iter()
        .find(|entry| entry.names.iter().any(|n| n == name))
}

fn without_anchor(target: &str) -> &str {
    target.split('#').next().unwrap_or(target)
}

/// Every format has its row, its aliases in it, a page that names it, and
/// an index entry leading to the row's page.
#[test]
fn every_format_has_a_row_a_page_and_an_index_entry() {
    let table = readme_table();
    let index = docs_index();
    let mut missing = Vec::new();
    for format in Format::ALL {
        let name = normal(format.name());
        let Some(row) = naming(&table, &name) else {
            missing.push(format!("README.md's format table has no row for `{name}`"));
            continue;
        };
        for alias in format.aliases() {
            let alias = normal(alias);
            if !row.names.contains(&alias) {
                missing.push(format!(
                    "README.md's format table: the row of `{name}` lacks its alias `{alias}`"
                ));
            }
        }
        let page = without_anchor(&row.target);
        if !page.starts_with("docs/") {
            missing.push(format!(
                "README.md's format table: `{name}` links to {page}, not a page under docs/"
            ));
        } else if !code_spans(&read_page(page)).contains(&name) {
            missing.push(format!("{page} never names `{name}`"));
        }
        let entries: Vec<&Entry> = index
            .iter()
            .filter(|entry| entry.names.contains(&name))
            .collect();
        if entries.is_empty() {
            missing.push(format!(
                "docs/README.md's format list has no entry for `{name}`"
            ));
        } else if !entries
            .iter()
            .any(|entry| without_anchor(&entry.target) == page)
        {
            missing.push(format!(
                "docs/README.md's entries for `{name}` lead elsewhere than README.md's row ({page})"
            ));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

/// No row or entry names a format the crate does not read (a stale name
/// after a rename, a typo), and every page of `docs/formats/` is reached
/// from both lists.
#[test]
fn the_lists_name_only_formats_the_crate_reads_and_reach_every_page() {
    // Read by name, though not formats of `Format::ALL`: `auto`, and the
    // response-template parsers (`Format::from_response_template`).
    let not_in_all = ["auto", "hf", "beam"];
    let mut wrong = Vec::new();
    for (list, entries) in [
        ("README.md's format table", readme_table()),
        ("docs/README.md's format list", docs_index()),
    ] {
        for name in entries.iter().flat_map(|entry| &entry.names) {
            if name.parse::<Format>().is_err() && !not_in_all.contains(&name.as_str()) {
                wrong.push(format!("{list} names `{name}`, which no format is called"));
            }
        }
        let reached: BTreeSet<&str> = entries
            .iter()
            .map(|entry| without_anchor(&entry.target))
            .collect();
        for page in pages() {
            if page.starts_with("docs/formats/") && !reached.contains(page.as_str()) {
                wrong.push(format!("{list} has no entry leading to {page}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Every page directly under `docs/` is in the README's documentation list
/// and in `docs/README.md`, so a new page is not left for readers to find.
#[test]
fn every_page_is_in_both_documentation_lists() {
    let readme: BTreeSet<String> = section("README.md", "Documentation")
        .iter()
        .flat_map(|line| links(line))
        .map(|target| without_anchor(&target).to_owned())
        .collect();
    let index: BTreeSet<String> = read_page("docs/README.md")
        .lines()
        .flat_map(links)
        .map(|target| format!("docs/{}", without_anchor(&target)))
        .collect();
    let mut missing = Vec::new();
    for page in pages() {
        let Some(name) = page.strip_prefix("docs/") else {
            continue;
        };
        if name.contains('/') {
            continue;
        }
        if !readme.contains(&page) {
            missing.push(format!("README.md's documentation list lacks {page}"));
        }
        if name != "README.md" && !index.contains(&page) {
            missing.push(format!("docs/README.md lacks {page}"));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}
