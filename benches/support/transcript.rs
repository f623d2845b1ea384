//! Deterministic synthetic transcripts for the benchmarks, in Qwen3-Coder's
//! layout, GLM-4.5's or Hermes's JSON (the same session, the same values:
//! only the markup differs, so the formats' figures compare per byte).
//!
//! No `rand`: a tiny xorshift with a fixed seed, so every run (and every
//! machine) parses exactly the same bytes and figures stay comparable.
//!
//! The mixed transcript looks like an agentic coding session: prose turns
//! (with `<` that is not a marker: `a < b`, `<div>`, `Vec<T>`, `<-`),
//! large `write_file` calls whose `content` is source code full of `<`,
//! `>`, `&`, quotes, backslashes and non-ASCII text, and small calls with
//! several short parameters, all in the chat template's layout
//! (`<tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n…`).
//! Nothing in the generated values looks like a Qwen3-Coder closer, so the
//! text is well formed and parses without diagnostics.

/// Xorshift64: small, fast, deterministic; good enough to pick words.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// One of `items`.
    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    /// `true` with probability `percent`/100.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// A generated transcript and what it holds.
pub struct Transcript {
    pub text: String,
    /// Tool calls written.
    pub calls: usize,
}

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

const PATHS: &[&str] = &[
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

const SMALL_CALLS: &[(&str, &[&str])] = &[
    ("read_file", &["path"]),
    ("run_shell", &["command", "timeout", "cwd"]),
    ("search", &["query", "path", "max_results"]),
    ("get_weather", &["city", "days", "units"]),
    ("edit_file", &["path", "old", "new"]),
];

/// The request's tools for the calls these transcripts make: the numbers
/// are integers, everything else a string.
#[allow(dead_code)] // Not every bench that includes this file types values.
pub const TOOLS: &str = r#"[
  {"type": "function", "function": {"name": "write_file", "parameters": {"type": "object",
    "properties": {"path": {"type": "string"}, "content": {"type": "string"}}, "required": ["path", "content"]}}},
  {"type": "function", "function": {"name": "read_file", "parameters": {"type": "object",
    "properties": {"path": {"type": "string"}}, "required": ["path"]}}},
  {"type": "function", "function": {"name": "run_shell", "parameters": {"type": "object",
    "properties": {"command": {"type": "string"}, "timeout": {"type": "integer"}, "cwd": {"type": "string"}},
    "required": ["command"]}}},
  {"type": "function", "function": {"name": "search", "parameters": {"type": "object",
    "properties": {"query": {"type": "string"}, "path": {"type": "string"}, "max_results": {"type": "integer"}}}}},
  {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer"},
    "units": {"type": "string", "enum": ["metric", "imperial"]}}}}},
  {"type": "function", "function": {"name": "edit_file", "parameters": {"type": "object",
    "properties": {"path": {"type": "string"}, "old": {"type": "string"}, "new": {"type": "string"}}}}}
]"#;

fn prose_sentence(rng: &mut Rng, out: &mut String, angles: bool) {
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
fn prose(rng: &mut Rng, out: &mut String, angles: bool) {
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

fn code(rng: &mut Rng, out: &mut String, lines: usize) {
    for _ in 0..lines {
        out.push_str(rng.pick(CODE_LINES));
        out.push('\n');
    }
}

/// The markup a transcript's calls are written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `<tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n…`
    Qwen,
    /// `<tool_call>NAME\n<arg_key>KEY</arg_key>\n<arg_value>VALUE</arg_value>\n…`
    Glm,
    /// `<tool_call>\n{"name": NAME, "arguments": {KEY: VALUE, …}}\n</tool_call>`,
    /// as the Hermes chat templates write it (`json.dumps` separators,
    /// non-ASCII unescaped); values are JSON strings, properly escaped,
    /// except the integers, written as JSON numbers.
    Hermes,
    /// gpt-oss's Harmony: `<|start|>assistant<|channel|>commentary
    /// to=functions.NAME <|constrain|>json<|message|>{…}<|call|>`, the
    /// arguments as Hermes writes them.
    Harmony,
}

fn open_call(layout: Layout, out: &mut String, name: &str) {
    match layout {
        Layout::Qwen => {
            out.push_str("<tool_call>\n<function=");
            out.push_str(name);
            out.push_str(">\n");
        }
        Layout::Glm => {
            out.push_str("<tool_call>");
            out.push_str(name);
            out.push('\n');
        }
        Layout::Hermes => {
            out.push_str("<tool_call>\n{\"name\": ");
            json_string(out, name);
            // `parameter` writes `, ` before every value but the first.
            out.push_str(", \"arguments\": {");
        }
        Layout::Harmony => {
            out.push_str("<|start|>assistant<|channel|>commentary to=functions.");
            out.push_str(name);
            out.push_str(" <|constrain|>json<|message|>{");
        }
    }
}

fn close_call(layout: Layout, out: &mut String) {
    match layout {
        Layout::Qwen => out.push_str("</function>\n</tool_call>"),
        Layout::Glm => out.push_str("</tool_call>"),
        Layout::Hermes => out.push_str("}}\n</tool_call>"),
        Layout::Harmony => out.push_str("}<|call|>"),
    }
}

/// `text` as a JSON string (quoted and escaped, non-ASCII kept).
fn json_string(out: &mut String, text: &str) {
    out.push_str(&serde_json::to_string(text).expect("a string serializes"));
}

/// Hermes: the separator before an argument, none before the first.
fn hermes_key(out: &mut String, key: &str) {
    if !out.ends_with('{') {
        out.push_str(", ");
    }
    json_string(out, key);
    out.push_str(": ");
}

fn parameter(layout: Layout, out: &mut String, key: &str, value: &str) {
    match layout {
        Layout::Qwen => {
            out.push_str("<parameter=");
            out.push_str(key);
            out.push_str(">\n");
            out.push_str(value);
            out.push_str("\n</parameter>\n");
        }
        Layout::Glm => {
            out.push_str("<arg_key>");
            out.push_str(key);
            out.push_str("</arg_key>\n<arg_value>");
            out.push_str(value);
            out.push_str("</arg_value>\n");
        }
        Layout::Hermes | Layout::Harmony => {
            hermes_key(out, key);
            json_string(out, value);
        }
    }
}

/// An integer argument: text in the XML layouts, a JSON number in Hermes.
fn integer_parameter(layout: Layout, out: &mut String, key: &str, value: usize) {
    match layout {
        Layout::Hermes | Layout::Harmony => {
            hermes_key(out, key);
            out.push_str(&value.to_string());
        }
        _ => parameter(layout, out, key, &value.to_string()),
    }
}

fn write_file_call(layout: Layout, rng: &mut Rng, out: &mut String, lines: usize) {
    open_call(layout, out, "write_file");
    parameter(layout, out, "path", rng.pick(PATHS));
    let mut source = String::new();
    code(rng, &mut source, lines);
    // The value's last newline is layout.
    source.pop();
    parameter(layout, out, "content", &source);
    close_call(layout, out);
}

fn small_call(layout: Layout, rng: &mut Rng, out: &mut String) {
    let (name, keys) = SMALL_CALLS[rng.below(SMALL_CALLS.len())];
    open_call(layout, out, name);
    for key in keys {
        if let "timeout" | "days" | "max_results" = *key {
            integer_parameter(layout, out, key, rng.below(600));
            continue;
        }
        let value = match *key {
            "path" | "cwd" => rng.pick(PATHS).to_string(),
            "units" => rng.pick(&["metric", "imperial"]).to_string(),
            "city" => rng
                .pick(&["Paris", "Tokyo", "São Paulo", "Zürich"])
                .to_string(),
            "command" => rng
                .pick(&[
                    "cargo test -q 2>&1 | tail -n 20",
                    "grep -rn \"a < b\" src/ && echo ok > /tmp/status",
                    "ls -la | head",
                ])
                .to_string(),
            _ => {
                let mut s = String::new();
                prose_sentence(rng, &mut s, true);
                s
            }
        };
        parameter(layout, out, key, &value);
    }
    close_call(layout, out);
}

/// A mixed agentic transcript of at least `len` bytes, in Qwen3-Coder's
/// layout.
pub fn mixed(len: usize) -> Transcript {
    mixed_in(Layout::Qwen, len)
}

/// The same transcript as [`mixed`], in GLM-4.5's layout.
pub fn mixed_glm(len: usize) -> Transcript {
    mixed_in(Layout::Glm, len)
}

/// The same transcript as [`mixed`], its calls in Hermes's JSON.
pub fn mixed_hermes(len: usize) -> Transcript {
    mixed_in(Layout::Hermes, len)
}

/// The same session's calls as gpt-oss writes them (Harmony).
pub fn mixed_harmony(len: usize) -> Transcript {
    mixed_in(Layout::Harmony, len)
}

/// A mixed agentic transcript of at least `len` bytes.
pub fn mixed_in(layout: Layout, len: usize) -> Transcript {
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    let mut text = String::with_capacity(len + 64 * 1024);
    let mut calls = 0;
    while text.len() < len {
        prose(&mut rng, &mut text, true);
        text.push_str("\n\n");
        let n = 1 + rng.below(3);
        for i in 0..n {
            if i > 0 {
                text.push('\n');
            }
            if rng.chance(40) {
                let lines = 10 + rng.below(120);
                write_file_call(layout, &mut rng, &mut text, lines);
            } else {
                small_call(layout, &mut rng, &mut text);
            }
            calls += 1;
        }
        text.push('\n');
    }
    Transcript { text, calls }
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

/// One `write_file` call whose `content` value is at least `len` bytes of
/// source code, in Qwen3-Coder's layout.
pub fn value_heavy(len: usize) -> Transcript {
    value_heavy_in(Layout::Qwen, len)
}

/// One `write_file` call whose `content` value is at least `len` bytes.
pub fn value_heavy_in(layout: Layout, len: usize) -> Transcript {
    let mut rng = Rng::new(0xd1b5_4a32_d192_ed03);
    let mut source = String::with_capacity(len + 4096);
    while source.len() < len {
        code(&mut rng, &mut source, 64);
    }
    source.pop();
    let mut text = String::with_capacity(source.len() + 256);
    text.push_str("I'll write the whole file now.\n\n");
    open_call(layout, &mut text, "write_file");
    parameter(layout, &mut text, "path", "src/generated.rs");
    parameter(layout, &mut text, "content", &source);
    close_call(layout, &mut text);
    Transcript { text, calls: 1 }
}
