//! What the tests share (`tests/walks.rs` walks every format's generated
//! grammar with llguidance and parses what it admits; `tests/
//! builtin_samples.rs` writes the fixtures xgrammar's built-in tags are
//! compared on): the conformance fixtures the parser reads as clean calls.

mod not_admitted;

pub use not_admitted::NOT_ADMITTED;
use serde_json::Value;
use toolcall_stream::{Format, Parser, Tools};

/// A conformance fixture whose calls the parser reads as complete, to
/// declared tools, with no diagnostic.
pub struct CleanFixture {
    pub id: String,
    pub format: Format,
    /// The fixture's `tools`, as written.
    pub tools_json: Value,
    pub tools: Tools,
    pub text: String,
}

/// The parser a grammar's strings are read with: free text may spell
/// another format's call, and whether the model's format is right is not
/// the grammar's to say.
pub fn parser(format: Format, tools: &Tools) -> Parser {
    Parser::builder()
        .format(format)
        .tools(tools.clone())
        .watch_foreign_formats(false)
        .build()
}

/// Every clean fixture of `tests/conformance/corpus.json`.
pub fn clean_fixtures() -> Vec<CleanFixture> {
    let corpus: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/conformance/corpus.json"
        ))
        .expect("the conformance corpus"),
    )
    .expect("JSON");
    let mut out = Vec::new();
    for case in corpus {
        let Ok(format) = case["parser"]
            .as_str()
            .unwrap_or_default()
            .parse::<Format>()
        else {
            continue;
        };
        let tools = Tools::from_value(&case["tools"]).expect("tools");
        let text = case["text"].as_str().expect("text").to_owned();
        let message = parser(format, &tools).parse(&text);
        let clean = !message.tool_calls.is_empty()
            && message.diagnostics.is_empty()
            && message.tool_calls.iter().all(|c| c.complete);
        if clean {
            out.push(CleanFixture {
                id: case["id"].as_str().unwrap_or_default().to_owned(),
                format,
                tools_json: case["tools"].clone(),
                tools,
                text,
            });
        }
    }
    out
}
