//! Tools whose `parameters` are a tagged union: an `anyOf`/`oneOf` at the
//! root whose branches a `const` property tells apart. A value is typed by
//! the branches the call may still be in: all of them until the tag is
//! given, then the tag's, whatever the format and however the text is cut.

use std::sync::Arc;

use serde_json::{json, Value};
use toolcall_stream::{DiagnosticKind, Format, Ids, Message, MessageBuilder, Parser, Tools};

/// `x` is an integer when adding, a string when removing.
fn tools() -> Arc<Tools> {
    let tools = json!([{"type": "function", "function": {"name": "edit", "parameters": {
        "type": "object",
        "properties": {"note": {"type": "string"}},
        "required": ["action"],
        "oneOf": [
            {"properties": {"action": {"const": "add"}, "x": {"type": "integer"}}, "required": ["x"]},
            {"properties": {"action": {"const": "remove"}, "x": {"type": "string"},
                            "force": {"type": "boolean"}}, "required": ["x", "force"]},
            {"properties": {"action": {"const": 7}, "x": {"type": "boolean"}}}
        ]
    }}}]);
    Arc::new(Tools::from_value(&tools).unwrap())
}

fn parser(format: Format, retain: bool) -> Parser {
    Parser::builder()
        .format(format)
        .tools(tools())
        .retain_arguments(retain)
        .ids(Ids::sequential("c"))
        .build()
}

/// The message, checked to be the same for every cut in two and without
/// retained arguments (the events alone carry the typed values).
fn parse(format: Format, input: &str) -> Message {
    let message = parser(format, true).parse(input);
    for cut in 0..=input.len() {
        if !input.is_char_boundary(cut) {
            continue;
        }
        let mut split = parser(format, false);
        let mut collected = MessageBuilder::new();
        collected.extend(split.feed(&input.as_bytes()[..cut]));
        collected.extend(split.feed(&input.as_bytes()[cut..]));
        collected.extend(split.finish());
        let collected = collected.finish();
        assert_eq!(collected.tool_calls.len(), message.tool_calls.len());
        for (a, b) in collected.tool_calls.iter().zip(&message.tool_calls) {
            assert_eq!(a.arguments, b.arguments, "cut at {cut}");
        }
        assert_eq!(kinds(&collected), kinds(&message), "cut at {cut}");
    }
    message
}

fn arguments(message: &Message) -> Vec<Value> {
    message
        .tool_calls
        .iter()
        .map(|c| serde_json::from_str(&c.arguments).unwrap())
        .collect()
}

fn kinds(message: &Message) -> Vec<DiagnosticKind> {
    message.diagnostics.iter().map(|d| d.kind).collect()
}

fn glm(args: &[(&str, &str)]) -> String {
    let mut text = String::from("<tool_call>edit\n");
    for (key, value) in args {
        text.push_str(&format!(
            "<arg_key>{key}</arg_key>\n<arg_value>{value}</arg_value>\n"
        ));
    }
    text.push_str("</tool_call>");
    text
}

#[test]
fn the_tag_given_first_chooses_the_branch() {
    let add = parse(Format::Glm47, &glm(&[("action", "add"), ("x", "5")]));
    assert_eq!(arguments(&add), [json!({"action": "add", "x": 5})]);
    assert!(add.diagnostics.is_empty(), "{:?}", add.diagnostics);

    let remove = parse(
        Format::Glm47,
        &glm(&[("action", "remove"), ("x", "5"), ("force", "true")]),
    );
    assert_eq!(
        arguments(&remove),
        [json!({"action": "remove", "x": "5", "force": true})]
    );
    assert!(remove.diagnostics.is_empty(), "{:?}", remove.diagnostics);

    // A tag that is not a string: the value typed first, then compared.
    let seven = parse(Format::Glm47, &glm(&[("action", "7"), ("x", "1")]));
    assert_eq!(arguments(&seven), [json!({"action": 7, "x": true})]);
}

#[test]
fn before_the_tag_a_value_has_every_branch_types() {
    // Integer, string or boolean: the ladder takes `5` as an integer.
    let message = parse(Format::Glm47, &glm(&[("x", "5"), ("action", "remove")]));
    assert_eq!(arguments(&message), [json!({"x": 5, "action": "remove"})]);
    // An unknown tag chooses nothing.
    let message = parse(Format::Glm47, &glm(&[("action", "rename"), ("x", "5")]));
    assert_eq!(arguments(&message), [json!({"action": "rename", "x": 5})]);
}

#[test]
fn each_call_chooses_its_own_branch() {
    let two = glm(&[("action", "remove"), ("x", "5"), ("force", "0")])
        + &glm(&[("x", "6"), ("action", "add")]);
    let message = parse(Format::Glm47, &two);
    assert_eq!(
        arguments(&message),
        [
            json!({"action": "remove", "x": "5", "force": false}),
            json!({"x": 6, "action": "add"})
        ]
    );
}

#[test]
fn required_follows_the_chosen_branch() {
    let message = parse(Format::Glm47, &glm(&[("action", "remove"), ("x", "a")]));
    assert_eq!(kinds(&message), [DiagnosticKind::MissingRequired]);
    assert!(message.diagnostics[0].message.contains("`force`"));
    // Before any tag, only what every branch and the root require.
    let message = parse(Format::Glm47, &glm(&[("note", "hi")]));
    assert_eq!(kinds(&message), [DiagnosticKind::MissingRequired]);
    assert!(message.diagnostics[0].message.contains("`action`"));
}

#[test]
fn json_arguments_choose_too() {
    let call = |args: &str| {
        format!("<tool_call>\n{{\"name\": \"edit\", \"arguments\": {args}}}\n</tool_call>")
    };
    let message = parse(Format::Hermes, &call(r#"{"action": "add", "x": "5"}"#));
    assert_eq!(arguments(&message), [json!({"action": "add", "x": 5})]);
    let message = parse(
        Format::Hermes,
        &call(r#"{"action": "remove", "x": "5", "force": "true"}"#),
    );
    assert_eq!(
        arguments(&message),
        [json!({"action": "remove", "x": "5", "force": true})]
    );
    // A raw JSON tag.
    let message = parse(Format::Hermes, &call(r#"{"action": 7.0, "x": "1"}"#));
    assert_eq!(arguments(&message), [json!({"action": 7.0, "x": true})]);
}

#[test]
fn qwen3_coder_chooses_too() {
    let input = "<tool_call>\n<function=edit>\n<parameter=action>\nremove\n</parameter>\n\
                 <parameter=x>\n5\n</parameter>\n<parameter=force>\nfalse\n</parameter>\n\
                 </function>\n</tool_call>";
    let message = parse(Format::Qwen3Coder, input);
    assert_eq!(
        arguments(&message),
        [json!({"action": "remove", "x": "5", "force": false})]
    );
}
