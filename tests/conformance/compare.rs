//! What is compared with vLLM's result: our message, content as compared,
//! the calls, and the differences described one per line.

use super::*;

pub(crate) fn ours(case: &Case) -> Message {
    parser_for(case, ValueTermination::default()).parse(&case.text)
}

/// Content as compared: whitespace-trimmed, with `null` read as `""`.
pub(crate) fn normal_content(content: Option<&str>) -> &str {
    content.unwrap_or("").trim()
}

/// Whether any of vLLM's argument values in the case is not a string.
pub(crate) fn is_typed(case: &Case) -> bool {
    expected_calls(case).iter().any(|call| {
        call["arguments"]
            .as_object()
            .is_some_and(|args| args.values().any(|v| !v.is_string()))
    })
}

pub(crate) fn expected_calls(case: &Case) -> &[Value] {
    case.expected["tool_calls"]
        .as_array()
        .map_or(&[], Vec::as_slice)
}

/// The differences between our message and vLLM's, one line each; empty
/// when they agree.
pub(crate) fn differences(case: &Case, message: &Message) -> Vec<String> {
    let mut diffs = Vec::new();
    let want_content = normal_content(case.expected["content"].as_str());
    let got_content = normal_content(message.content.as_deref());
    if want_content != got_content {
        diffs.push(format!(
            "content: ours {got_content:?}, vLLM {want_content:?}"
        ));
    }
    // vLLM reports reasoning where its parser splits it (gpt-oss's
    // `analysis` channel); a case without says nothing about it.
    if let Some(want) = case.expected.get("reasoning").and_then(Value::as_str) {
        if message.reasoning.as_deref() != Some(want) {
            diffs.push(format!(
                "reasoning: ours {:?}, vLLM {want:?}",
                message.reasoning
            ));
        }
    }
    let want = expected_calls(case);
    if want.len() != message.tool_calls.len() {
        diffs.push(format!(
            "call count: ours {}, vLLM {}",
            message.tool_calls.len(),
            want.len()
        ));
    }
    for (i, (call, reference)) in message.tool_calls.iter().zip(want).enumerate() {
        let want_name = reference["name"].as_str().unwrap_or_default();
        if call.name != want_name {
            diffs.push(format!(
                "call {i} name: ours {:?}, vLLM {want_name:?}",
                call.name
            ));
        }
        let got: Value = match serde_json::from_str(&call.arguments) {
            Ok(v) => v,
            Err(e) => {
                diffs.push(format!(
                    "call {i} arguments are not JSON ({e}): {:?}",
                    call.arguments
                ));
                continue;
            }
        };
        let want_args = &reference["arguments"];
        if &got != want_args {
            diffs.push(format!("call {i} arguments: ours {got}, vLLM {want_args}"));
        }
    }
    diffs
}

pub(crate) fn describe(case: &Case, message: &Message, diffs: &[String]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "--- {} ({})", case.id, case.parser);
    let _ = writeln!(out, "    input: {:?}", case.text);
    for diff in diffs {
        let _ = writeln!(out, "    {diff}");
    }
    let calls: Vec<String> = message
        .tool_calls
        .iter()
        .map(|c| format!("{} {} (complete: {})", c.name, c.arguments, c.complete))
        .collect();
    let kinds: Vec<&str> = message
        .diagnostics
        .iter()
        .map(|d| d.kind.as_str())
        .collect();
    let _ = writeln!(
        out,
        "    ours: content {:?}, calls {calls:?}, diagnostics {kinds:?}",
        message.content
    );
    let _ = writeln!(out, "    vLLM: {}", case.expected);
    out
}
