//! Deterministic synthetic transcripts for the benchmarks, in Qwen3-Coder's
//! layout, GLM-4.5's, or any JSON-argument format's ([`JsonLayout`]: Hermes,
//! Harmony, Kimi K2, DeepSeek, the JSON lists, …), or a call syntax's
//! ([`CallLayout`]: Python's, Gemma's): the same session, the
//! same values, only the markup differs, so the formats' figures compare
//! per byte.
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
//!
//! The layouts are in `xml.rs`, `json.rs` and `call.rs`, the writing of a
//! call in any of them in `markup.rs`, the prose and code in `content.rs`;
//! this file makes the sessions and the one-call transcripts.

mod call;
mod content;
mod json;
mod markup;
mod rng;
mod xml;

// The submodules' `pub` items are this module's, as its includers name
// them (`transcript::JsonLayout`); their `pub(super)` helpers come in with
// them, for this file's generators only.
pub use call::*;
pub use content::*;
pub use json::*;
pub use markup::*;
pub use rng::*;
pub use xml::*;

/// A generated transcript and what it holds.
pub struct Transcript {
    pub text: String,
    /// Tool calls written.
    pub calls: usize,
}

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

fn write_file_call(layout: Layout, rng: &mut Rng, out: &mut String, lines: usize, index: usize) {
    open_call(layout, out, "write_file", index);
    parameter(layout, out, "path", rng.pick(PATHS));
    let mut source = String::new();
    code(rng, &mut source, lines);
    // The value's last newline is layout.
    source.pop();
    parameter(layout, out, "content", &source);
    close_call(layout, out);
}

fn small_call(layout: Layout, rng: &mut Rng, out: &mut String, index: usize) {
    let (name, keys) = SMALL_CALLS[rng.below(SMALL_CALLS.len())];
    open_call(layout, out, name, index);
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
    mixed_in(Layout::Xml(&QWEN), len)
}

/// The same transcript as [`mixed`], in GLM-4.5's layout.
pub fn mixed_glm(len: usize) -> Transcript {
    mixed_in(Layout::Xml(&GLM), len)
}

/// The same transcript as [`mixed`], its calls in Hermes's JSON.
pub fn mixed_hermes(len: usize) -> Transcript {
    mixed_in(Layout::Json(&HERMES), len)
}

/// The same session's calls as gpt-oss writes them (Harmony).
pub fn mixed_harmony(len: usize) -> Transcript {
    mixed_in(Layout::Json(&HARMONY), len)
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
        open_group(layout, &mut text);
        for i in 0..n {
            if i > 0 {
                separate_calls(layout, &mut text);
            }
            if rng.chance(40) {
                let lines = 10 + rng.below(120);
                write_file_call(layout, &mut rng, &mut text, lines, i);
            } else {
                small_call(layout, &mut rng, &mut text, i);
            }
            calls += 1;
        }
        close_group(layout, &mut text);
        text.push('\n');
    }
    Transcript { text, calls }
}

/// One `write_file` call whose `content` value is at least `len` bytes of
/// source code, in Qwen3-Coder's layout.
pub fn value_heavy(len: usize) -> Transcript {
    value_heavy_in(Layout::Xml(&QWEN), len)
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
    open_call(layout, &mut text, "write_file", 0);
    parameter(layout, &mut text, "path", "src/generated.rs");
    parameter(layout, &mut text, "content", &source);
    close_call(layout, &mut text);
    Transcript { text, calls: 1 }
}
