//! The documentation's relative links lead to a file that exists, and to a
//! heading in it when they name one.

use super::*;

/// GitHub's anchors for a page's headings: lower case, punctuation other than
/// `-` and `_` dropped, spaces as `-`; a repeated one gets `-1`, `-2`, ….
pub(crate) fn anchors(text: &str) -> BTreeSet<String> {
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
pub(crate) fn links(text: &str) -> Vec<String> {
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
