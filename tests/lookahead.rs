//! Where a value ends when it holds text that looks like structure, and the
//! request's tools are known: a parameter opener at a line start inside a
//! value starts a new parameter only if the call may have it.

use std::sync::Arc;

use toolcall_stream::{DiagnosticKind, Format, Ids, Message, Parser, Tools};

fn tools() -> Arc<Tools> {
    Arc::new(
        Tools::from_json(
            r#"[{"type": "function", "function": {"name": "write_file", "parameters":
                {"type": "object", "properties": {"path": {"type": "string"},
                 "content": {"type": "string"}}}}}]"#,
        )
        .unwrap(),
    )
}

fn parse(format: Format, input: &str, tools: Option<Arc<Tools>>) -> Message {
    let parser = || {
        let mut builder = Parser::builder().format(format).ids(Ids::sequential("c"));
        if let Some(tools) = &tools {
            builder = builder.tools(tools.clone());
        }
        builder.build()
    };
    let message = parser().parse(input);
    // The same whatever the split: the decision waits for the name.
    for cut in 1..input.len() {
        let mut split = parser();
        let mut collected = toolcall_stream::MessageBuilder::new();
        collected.extend(split.feed(&input.as_bytes()[..cut]));
        collected.extend(split.feed(&input.as_bytes()[cut..]));
        collected.extend(split.finish());
        assert_eq!(collected.finish(), message, "cut at {cut}");
    }
    message
}

fn kinds(message: &Message) -> Vec<DiagnosticKind> {
    message.diagnostics.iter().map(|d| d.kind).collect()
}

const QWEN_VALUE_WITH_UNKNOWN_PARAMETER: &str = "<tool_call>\n<function=write_file>\n\
    <parameter=path>\nREADME.md\n</parameter>\n<parameter=content>\nCall it like this:\n\
    <parameter=city>\nParis\n</parameter>\nand so on.\n</parameter>\n</function>\n</tool_call>";

#[test]
fn an_opener_for_a_parameter_the_tool_lacks_is_value_text() {
    let message = parse(
        Format::Qwen3Coder,
        QWEN_VALUE_WITH_UNKNOWN_PARAMETER,
        Some(tools()),
    );
    assert_eq!(message.tool_calls.len(), 1);
    let arguments: serde_json::Value =
        serde_json::from_str(&message.tool_calls[0].arguments).unwrap();
    assert_eq!(arguments["path"], "README.md");
    assert_eq!(
        arguments["content"],
        "Call it like this:\n<parameter=city>\nParis\n</parameter>\nand so on."
    );
    assert_eq!(kinds(&message), [DiagnosticKind::CloserInValue]);
}

#[test]
fn without_tools_the_same_opener_ends_the_value() {
    // Nothing says `city` is foreign: a missing `</parameter>` is the
    // likelier reading, as before.
    let message = parse(Format::Qwen3Coder, QWEN_VALUE_WITH_UNKNOWN_PARAMETER, None);
    let arguments: serde_json::Value =
        serde_json::from_str(&message.tool_calls[0].arguments).unwrap();
    assert_eq!(arguments["content"], "Call it like this:");
    // The `</parameter>` after it is followed by text: kept in `city`.
    assert_eq!(arguments["city"], "Paris\n</parameter>\nand so on.");
    assert!(kinds(&message).contains(&DiagnosticKind::UnclosedParameter));
}

#[test]
fn a_declared_parameter_after_a_missing_closer_still_starts() {
    let input = "<tool_call>\n<function=write_file>\n<parameter=content>\nhello\n\
        <parameter=path>\na.txt\n</parameter>\n</function>\n</tool_call>";
    let message = parse(Format::Qwen3Coder, input, Some(tools()));
    assert_eq!(
        message.tool_calls[0].arguments,
        r#"{"content": "hello", "path": "a.txt"}"#
    );
    assert_eq!(kinds(&message), [DiagnosticKind::UnclosedParameter]);
}

#[test]
fn glm_keys_the_tool_lacks_are_value_text_too() {
    let input = "<tool_call>write_file\n<arg_key>path</arg_key>\n<arg_value>a.md</arg_value>\n\
        <arg_key>content</arg_key>\n<arg_value>Example:\n<arg_key>city</arg_key>\n\
        <arg_value>Paris</arg_value>\ndone</arg_value>\n</tool_call>";
    let message = parse(Format::Glm45, input, Some(tools()));
    let arguments: serde_json::Value =
        serde_json::from_str(&message.tool_calls[0].arguments).unwrap();
    assert_eq!(
        arguments["content"],
        "Example:\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\ndone"
    );
    assert_eq!(arguments.as_object().unwrap().len(), 2);
}
