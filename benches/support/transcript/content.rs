//! Prose and source code: the words and lines a transcript is made of,
//! and the transcripts that are content only, no tool call.

use super::{Rng, Transcript};

const WORDS: &[&str] = &[
    "the",
    "parser",
    "test",
    "file",
    "function",
    "value",
    "module",
    "buffer",
    "stream",
    "chunk",
    "error",
    "result",
    "config",
    "server",
    "client",
    "request",
    "response",
    "index",
    "check",
    "update",
    "first",
    "then",
    "now",
    "and",
    "with",
    "from",
    "into",
    "because",
    "should",
    "will",
    "let",
    "me",
    "look",
    "at",
    "fix",
    "run",
    "again",
    "failing",
    "passes",
    "naïve",
    "café",
    "résumé",
    "über",
    "größe",
    "日本語",
    "données",
    "señal",
    "→",
    "✓",
];

/// Fragments of prose that hold a `<` which is not a marker.
const PROSE_ANGLES: &[&str] = &[
    "when a < b",
    "if len<max",
    "the <div> wrapper",
    "a `Vec<String>`",
    "the `Option<&str>` return",
    "x <- y in R",
    "<br/> tags",
    "1 << 4",
    "a <= b && c >= d",
    "the <T> parameter",
    "<tool_calls> (plural, not a marker)",
    "the `<parameter` prefix alone",
];

pub(super) const PATHS: &[&str] = &[
    "src/lib.rs",
    "src/main.rs",
    "src/parser/mod.rs",
    "src/util/escape.rs",
    "web/index.html",
    "web/app.tsx",
    "tests/test_parser.py",
    "scripts/build.sh",
    "docs/guide.md",
    "src/config/loader.rs",
];

/// Source lines with `<`, `>`, `&`, quotes, backslashes, tabs and unicode.
const CODE_LINES: &[&str] = &[
    "use std::collections::HashMap;",
    "pub fn parse<'a>(input: &'a str) -> Result<Vec<Token<'a>>, Error> {",
    "    let mut out: Vec<Option<&str>> = Vec::with_capacity(n);",
    "    if a < b && b > c || !done {",
    "    for (i, ch) in text.char_indices().filter(|&(_, c)| c != '\\n') {",
    "        println!(\"{i}: {ch:?} -> \\\"escaped\\\" & more\");",
    "        return Err(Error::new(\"unexpected '<' at {}\", pos));",
    "    }",
    "}",
    "    let greeting = \"héllo wörld — ✓ 日本語 🚀\";",
    "    map.entry(key).or_insert_with(Vec::new).push(value);",
    "<div class=\"card\" data-id='42'>&amp; &lt;escaped&gt; text</div>",
    "  <span style=\"color: red\">a &lt; b</span>",
    "const x = a<b ? c>>1 : d<<2; // shifts & comparisons",
    "if (x < 10 && y > 3) { return `${x} & ${y}`; }",
    "def check(a, b):\n\treturn a <= b and b >= 0  # tab-indented",
    "    assert text == \"<parameter x>\"  # not a real marker",
    "echo \"$HOME\" > /tmp/out 2>&1 && cat < /tmp/in",
    "    let re = r\"^\\s*<(\\w+)>$\";",
    "type Handler = Box<dyn Fn(&Request) -> Response + Send + Sync>;",
    "    // TODO: handle the \\r\\n case ¯\\_(ツ)_/¯",
    "",
];

pub(super) fn prose_sentence(rng: &mut Rng, out: &mut String, angles: bool) {
    let words = 6 + rng.below(14);
    for i in 0..words {
        if i > 0 {
            out.push(' ');
        }
        if angles && rng.chance(6) {
            out.push_str(rng.pick(PROSE_ANGLES));
        } else {
            let word = rng.pick(WORDS);
            if i == 0 {
                let mut chars = word.chars();
                if let Some(first) = chars.next() {
                    out.extend(first.to_uppercase());
                    out.push_str(chars.as_str());
                }
            } else {
                out.push_str(word);
            }
        }
    }
    out.push_str(rng.pick(&[".", ".", ".", "!", "?", ":"]));
}

/// A prose turn: a few sentences, sometimes several paragraphs.
pub(super) fn prose(rng: &mut Rng, out: &mut String, angles: bool) {
    let paragraphs = 1 + rng.below(3);
    for p in 0..paragraphs {
        if p > 0 {
            out.push_str("\n\n");
        }
        let sentences = 1 + rng.below(5);
        for s in 0..sentences {
            if s > 0 {
                out.push(' ');
            }
            prose_sentence(rng, out, angles);
        }
    }
}

pub(super) fn code(rng: &mut Rng, out: &mut String, lines: usize) {
    for _ in 0..lines {
        out.push_str(rng.pick(CODE_LINES));
        out.push('\n');
    }
}

/// At least `len` bytes of prose without any `<`: only content, on the
/// parser's fastest path.
pub fn content_only(len: usize) -> Transcript {
    let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
    let mut text = String::with_capacity(len + 4096);
    while text.len() < len {
        prose(&mut rng, &mut text, false);
        text.push_str("\n\n");
    }
    Transcript { text, calls: 0 }
}

/// At least `len` bytes of content that is code: a chat answer with fenced
/// source blocks (`<`, `>`, `&`, quotes, tags that are not markers) and
/// some prose around them, no tool call. Every `<` starts a marker attempt
/// that fails, so this measures the scanner's slow path in content.
pub fn content_code(len: usize) -> Transcript {
    let mut rng = Rng::new(0x853c_49e6_748f_ea9b);
    let mut text = String::with_capacity(len + 8192);
    while text.len() < len {
        prose(&mut rng, &mut text, true);
        text.push_str("\n\n```\n");
        let lines = 8 + rng.below(40);
        code(&mut rng, &mut text, lines);
        text.push_str("```\n\n");
    }
    Transcript { text, calls: 0 }
}
