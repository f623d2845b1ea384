//! The deliberate differences from vLLM (`conformance/divergences.json`)
//! and the tests that pin each as documented behaviour, with the agreements
//! reached another way and the cuts `--value-termination vllm` reproduces.

use super::*;

/// Cases where this crate deliberately differs from vLLM's non-streaming
/// output, with the reason: `conformance/divergences.json`, which the Python
/// plugin tests read too (python/tests/test_vllm_plugin.py). The tests fail
/// on a difference not listed there and on a listed case that no longer
/// differs.
pub(crate) fn known_divergences() -> Vec<(String, String)> {
    read_json("divergences.json")
        .as_array()
        .expect("divergences.json is a list")
        .iter()
        .map(|entry| {
            let field = |name: &str| {
                entry[name]
                    .as_str()
                    .unwrap_or_else(|| panic!("divergences.json: {entry} has no {name}"))
                    .to_owned()
            };
            (field("id"), field("reason"))
        })
        .collect()
}

pub(crate) fn case<'a>(cases: &'a [Case], id: &str) -> &'a Case {
    cases
        .iter()
        .find(|c| c.id == id)
        .unwrap_or_else(|| panic!("no case {id} in the corpus"))
}

pub(crate) fn kinds(message: &Message) -> Vec<DiagnosticKind> {
    message.diagnostics.iter().map(|d| d.kind).collect()
}

pub(crate) fn arguments(message: &Message, call: usize) -> Value {
    serde_json::from_str(&message.tool_calls[call].arguments).unwrap()
}

/// The listed divergences are the documented behaviour, not accidents: each
/// gives the answer its reason describes.
#[test]
fn known_divergences_behave_as_documented() {
    let cases = cases();
    let get = |id: &str| ours(case(&cases, id));

    let m = get("q_content_after");
    assert_eq!(
        m.content.as_deref().map(str::trim),
        Some("I have requested the forecast.")
    );
    assert_eq!(arguments(&m, 0), serde_json::json!({"city": "Lima"}));

    let m = get("q_value_param_lookalike");
    assert_eq!(m.tool_calls.len(), 1);
    assert_eq!(
        arguments(&m, 0)["content"],
        "To call use <parameter=city>Paris</parameter> inside <function=x>."
    );
    assert!(kinds(&m).contains(&DiagnosticKind::CloserInValue));

    let m = get("q_value_function_end_lookalike");
    assert_eq!(arguments(&m, 0)["content"], "before </function> after");
    assert!(kinds(&m).contains(&DiagnosticKind::CloserInValue));

    let m = get("q_missing_param_close_last");
    assert_eq!(arguments(&m, 0), serde_json::json!({"city": "Paris"}));
    assert!(m.tool_calls[0].complete);
    assert_eq!(kinds(&m), [DiagnosticKind::UnclosedParameter]);

    for id in ["q_truncated_in_value", "qx_truncated_in_value"] {
        let m = get(id);
        assert_eq!(
            arguments(&m, 0),
            serde_json::json!({"path": "a.py", "content": "print('hel"}),
            "{id}"
        );
        assert!(!m.tool_calls[0].complete, "{id}");
        assert!(kinds(&m).contains(&DiagnosticKind::Truncated), "{id}");
    }

    let m = get("q_truncated_in_closing_tag");
    assert_eq!(arguments(&m, 0), serde_json::json!({"city": "Paris"}));
    assert!(!m.tool_calls[0].complete);
    assert!(kinds(&m).contains(&DiagnosticKind::Truncated));

    let m = get("q_function_name_with_spaces");
    assert_eq!(m.tool_calls[0].name, "get_weather");
    assert_eq!(arguments(&m, 0), serde_json::json!({"city": "Paris"}));

    // Text after `<tool_call>` shows at once that it was not a wrapper: it
    // is content without delay, and the call after it is recovered.
    let m = get("q_text_inside_tool_call");
    assert_eq!(
        m.content.as_deref().map(str::trim),
        Some("<tool_call>\nhmm let me think")
    );
    assert_eq!(m.tool_calls[0].name, "get_time");
    assert!(kinds(&m).contains(&DiagnosticKind::MissingToolCallOpen));

    let m = get("st3_typed_schema");
    assert_eq!(
        arguments(&m, 0),
        serde_json::json!({"count": 5, "enabled": true, "meta": {"depth": 2}})
    );
    assert!(m.diagnostics.is_empty());

    for format in ["g45", "g47"] {
        let id = format!("{format}_missing_arg_value_close");
        let m = get(&id);
        assert_eq!(
            arguments(&m, 0),
            serde_json::json!({"city": "Paris\n"}),
            "{id}"
        );
        assert!(m.tool_calls[0].complete, "{id}");
        assert_eq!(kinds(&m), [DiagnosticKind::UnclosedParameter], "{id}");

        let id = format!("{format}_tool_not_in_tools");
        let m = get(&id);
        assert_eq!(m.tool_calls.len(), 1, "{id}");
        assert_eq!(m.tool_calls[0].name, "unknown_tool", "{id}");
        assert_eq!(arguments(&m, 0), serde_json::json!({"x": "1"}), "{id}");
        assert!(m.tool_calls[0].complete, "{id}");
        assert_eq!(kinds(&m), [DiagnosticKind::UnknownTool], "{id}");

        let id = format!("{format}_name_with_json_args");
        let c = case(&cases, &id);
        let m = ours(c);
        assert!(m.tool_calls.is_empty(), "{id}");
        assert_eq!(m.content.as_deref(), Some(c.text.as_str()), "{id}");
        assert!(m.diagnostics.is_empty(), "{id}");
    }
}

/// Agreements worth pinning where the outputs match but the way there
/// differs: vLLM says nothing, we report.
#[test]
fn glm_agreements_with_a_diagnostic() {
    let cases = cases();
    for id in ["g45_key_without_value", "g47_key_without_value"] {
        // `<arg_key>city</arg_key>` then `</tool_call>`: vLLM's pair regex
        // finds nothing; we leave the key out and say so.
        let c = case(&cases, id);
        let m = ours(c);
        assert!(differences(c, &m).is_empty(), "{id}");
        assert_eq!(arguments(&m, 0), serde_json::json!({}), "{id}");
        // `city` is required: its absence is reported too.
        assert_eq!(
            kinds(&m),
            [
                DiagnosticKind::MissingValue,
                DiagnosticKind::MissingRequired
            ],
            "{id}"
        );
    }
}

/// `--value-termination vllm` reproduces vLLM's cut at the first closer-like
/// marker inside a value.
#[test]
fn vllm_value_termination_reproduces_vllm_cuts() {
    let cases = cases();
    let vllm = |id: &str| parser_for(case(&cases, id), ValueTermination::Vllm);

    let c = case(&cases, "q_value_param_lookalike");
    let message = vllm(&c.id).parse(&c.text);
    let diffs = differences(c, &message);
    assert!(diffs.is_empty(), "{}", describe(c, &message, &diffs));

    // vLLM ends this value at the inner `</function>` too; its non-streaming
    // path then drops the unclosed parameter, while its streaming path sends
    // `"content": "before ` (our value, recovered as `unclosed_parameter`).
    let c = case(&cases, "q_value_function_end_lookalike");
    let message = vllm(&c.id).parse(&c.text);
    assert_eq!(
        arguments(&message, 0),
        serde_json::json!({"path": "x.xml", "content": "before "})
    );
    assert!(kinds(&message).contains(&DiagnosticKind::UnclosedParameter));
}
