//! GLM-4.5/4.7 fixtures against `tests/fixtures/glm_expected.json`: the
//! behaviour each fixture should have, written down from GLM's template,
//! vLLM's and SGLang's parsers and outputs seen in the wild, independently
//! of this engine (see `tests/fixtures/glm45/NOTES.md`). Content, calls,
//! arguments byte for byte, completeness and diagnostic kinds must match.

mod common;

use common::{fixtures, parser};
use serde_json::Value;
use toolcall_stream::ValueTermination;

#[test]
fn glm_fixtures_behave_as_written_down() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/glm_expected.json");
    let expected: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let cases = expected["cases"].as_array().unwrap();
    let all = fixtures();
    let mut failures = Vec::new();
    let mut checked = 0;
    for case in cases {
        let (format, name) = (
            case["format"].as_str().unwrap(),
            case["name"].as_str().unwrap(),
        );
        let fixture = all
            .iter()
            .find(|f| f.format.name() == format && f.name == name)
            .unwrap_or_else(|| panic!("no fixture {format}/{name}"));
        let message = parser(fixture.format, ValueTermination::Lookahead).parse(&fixture.input);
        let calls: Vec<Value> = message
            .tool_calls
            .iter()
            .map(|c| serde_json::json!({"name": c.name, "arguments_json": c.arguments}))
            .collect();
        let want_calls: Vec<Value> = case["tool_calls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| serde_json::json!({"name": c["name"], "arguments_json": c["arguments_json"]}))
            .collect();
        let complete: Vec<bool> = message.tool_calls.iter().map(|c| c.complete).collect();
        let want_complete: Vec<bool> = serde_json::from_value(case["complete"].clone()).unwrap();
        let kinds: Vec<&str> = message
            .diagnostics
            .iter()
            .map(|d| d.kind.as_str())
            .collect();
        let want_kinds: Vec<&str> = case["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k.as_str().unwrap())
            .collect();
        let content = message.content.clone();
        let want_content = case["content"].as_str().map(str::to_owned);
        if calls != want_calls
            || complete != want_complete
            || kinds != want_kinds
            || content != want_content
        {
            failures.push(format!(
                "{format}/{name}:\n  ours: content {content:?}, calls {calls:?}, complete {complete:?}, diagnostics {kinds:?}\n  want: content {want_content:?}, calls {want_calls:?}, complete {want_complete:?}, diagnostics {want_kinds:?}"
            ));
        }
        checked += 1;
    }
    assert!(checked >= 40, "{checked} cases");
    assert!(
        failures.is_empty(),
        "{} of {checked} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
