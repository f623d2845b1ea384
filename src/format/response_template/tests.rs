use serde_json::json;

use super::pattern::{expand, Chars, Piece};
use super::ResponseTemplateError;
use crate::{parse, Format, Role};

fn format(template: serde_json::Value) -> Result<Format, ResponseTemplateError> {
    Format::from_response_template(
        "hf_test",
        &json!({ "response_template": template }).to_string(),
    )
}

fn calls(format: Format, text: &str) -> Vec<(String, String)> {
    parse(format, text)
        .tool_calls
        .into_iter()
        .map(|c| (c.name, c.arguments))
        .collect()
}

fn lit(s: &str) -> Piece {
    Piece::Lit(s.into())
}

#[test]
fn patterns_expand_to_literals_layout_and_groups() {
    assert_eq!(
        expand(r"\s*(?:<\|im_end\|>|<\|endoftext\|>)").unwrap(),
        vec![
            vec![Piece::Space, lit("<|im_end|>")],
            vec![Piece::Space, lit("<|endoftext|>")]
        ]
    );
    let open = expand(r"<tool_call>\s*<function=(?P<name>[^>\n]+)>").unwrap();
    let [alternative] = open.as_slice() else {
        panic!("{open:?}")
    };
    assert_eq!(alternative[0], lit("<tool_call>"));
    assert_eq!(alternative[1], Piece::Space);
    assert_eq!(alternative[2], lit("<function="));
    let Piece::Group {
        name,
        chars: Chars::Class(class),
    } = &alternative[3]
    else {
        panic!("{alternative:?}")
    };
    assert_eq!(name, "name");
    assert!(class.contains('a') && !class.contains('>') && !class.contains('\n'));
    assert_eq!(alternative[4], lit(">"));
    assert_eq!(
        expand(r"<\|im_end\|>\s*|$").unwrap(),
        vec![vec![lit("<|im_end|>"), Piece::Space], vec![Piece::End]]
    );
    assert_eq!(
        expand(r"(?:^|<think>\s*)").unwrap(),
        vec![vec![Piece::Start], vec![lit("<think>"), Piece::Space]]
    );
}

#[test]
fn patterns_that_cannot_be_said_are_refused_with_what_they_hold() {
    assert!(expand(r"to=functions\.(?P<name>\w+).*?<\|message\|>")
        .unwrap_err()
        .contains(".*?"));
    assert!(expand(r"(?=<tool_call>)").is_err());
    assert!(expand(r"(\w+)").unwrap_err().contains("unnamed"));
    assert!(expand(r"(?P<name>.+)")
        .unwrap_err()
        .contains("rest of the text"));
    assert!(expand(r"[^<]*<\|x\|>").is_err());
}

#[test]
fn json_calls_with_the_transform_naming_the_function() {
    let format = format(json!({
        "defaults": {"role": "assistant"},
        "start_anchor": "<|im_start|>assistant\n",
        "fields": {
            "thinking": {"open": "<think>", "close": "</think>", "content": "text"},
            "tool_calls": {"open": "<tool_call>", "close": "</tool_call>", "repeats": true,
                "content": "json", "transform": {"type": "function", "function": "{content}"}},
            "content": {"close": "<|im_end|>", "content": "text"}
        }
    }))
    .unwrap();
    assert!(format
        .markers()
        .any(|m| m == (Role::ReasoningClose, "</think>")));
    assert!(format
        .markers()
        .any(|m| m == (Role::EndOfTurn, "<|im_end|>")));
    assert_eq!(
        calls(
            format,
            "I'll look.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"get_time\", \"arguments\": {}}\n</tool_call><|im_end|>"
        ),
        vec![
            ("get_weather".into(), r#"{"city": "Paris"}"#.into()),
            ("get_time".into(), "{}".into())
        ]
    );
    // `parameters` for `arguments`, as models trained on other templates write.
    assert_eq!(
        calls(
            format,
            r#"<tool_call>{"name": "f", "parameters": {"x": 1}}</tool_call>"#
        ),
        vec![("f".into(), r#"{"x": 1}"#.into())]
    );
}

#[test]
fn json_calls_whose_keys_the_transform_names() {
    // Cohere's list of `{tool_call_id, tool_name, parameters}`; the
    // tokenizer's end-of-sequence token ends the turn.
    let cohere = Format::from_response_template("hf_test", &json!({
      "eos_token": "<|END_OF_TURN_TOKEN|>",
      "response_template": {
        "start_anchor": "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>",
        "fields": {
            "content": {"open": "<|START_RESPONSE|>", "close": "<|END_RESPONSE|>"},
            "thinking": {"open": "<|START_THINKING|>", "close": "<|END_THINKING|>"},
            "tool_calls": {"open": "<|START_ACTION|>", "close": "<|END_ACTION|>", "content": "json",
                "transform_each": true,
                "transform": {"type": "function", "function": {"name": "{tool_name}", "arguments": "{parameters}"}}}
        }
    }}).to_string())
    .unwrap();
    assert!(cohere
        .markers()
        .any(|m| m == (Role::EndOfTurn, "<|END_OF_TURN_TOKEN|>")));
    assert!(cohere
        .markers()
        .any(|m| m == (Role::Layout, "<|START_RESPONSE|>")));
    assert_eq!(
        calls(
            cohere,
            r#"<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "a", "parameters": {"x": 1}}, {"tool_call_id": "1", "tool_name": "b", "parameters": {}}]<|END_ACTION|>"#
        ),
        vec![
            ("a".into(), r#"{"x": 1}"#.into()),
            ("b".into(), "{}".into())
        ]
    );
    // Dotted placeholders name the call object's keys.
    let args = format(json!({
        "start_anchor": "<|m|>",
        "fields": {"tool_calls": {"open": "<|call|>", "close": "<|end|>", "content": "json",
            "transform": {"type": "function", "function": {"name": "{content.name}", "arguments": "{content.args}"}}}}
    }))
    .unwrap();
    assert_eq!(
        calls(args, r#"<|call|>{"name": "f", "args": {"q": "x"}}<|end|>"#),
        vec![("f".into(), r#"{"q": "x"}"#.into())]
    );
}

#[test]
fn a_call_ended_by_the_output_end() {
    let format = format(json!({
        "start_anchor": "A:",
        "fields": {"tool_calls": {"open": "<|tool_call|>", "close": "eos", "content": "json",
            "transform": [{"type": "function", "function": "{content}"}]}}
    }))
    .unwrap();
    assert_eq!(
        calls(format, r#"<|tool_call|>{"name": "f", "arguments": {}}"#),
        vec![("f".into(), "{}".into())]
    );
}

fn qwen35() -> serde_json::Value {
    json!({
        "defaults": {"role": "assistant"},
        "start_anchor": "<|im_start|>assistant\n",
        "fields": {
            "thinking": {"open": "<think>", "close": "</think>", "content": "text"},
            "tool_calls": {
                "open_pattern": "\\s*<tool_call>\\s*<function=(?P<name>[^>\\n]+)>",
                "close_pattern": "</function>\\s*</tool_call>",
                "repeats": true,
                "content": "xml-inline",
                "content_args": {"tag_pattern": "<parameter=(?P<key>[^>\\n]+)>\\s*(?P<value>.*?)\\s*</parameter>"},
                "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}
            },
            "content": {"close_pattern": "\\s*(?:<\\|im_end\\|>|<\\|endoftext\\|>)", "content": "text"}
        }
    })
}

#[test]
fn xml_calls_read_as_qwen3_coder_reads_them() {
    let format = format(qwen35()).unwrap();
    for marker in [
        (Role::CallOpen, "<tool_call>"),
        (Role::FuncOpen, "<function="),
        (Role::FuncClose, "</function>"),
        (Role::CallClose, "</tool_call>"),
        (Role::ParamOpen, "<parameter="),
        (Role::ParamClose, "</parameter>"),
        (Role::EndOfTurn, "<|endoftext|>"),
    ] {
        assert!(format.markers().any(|m| m == marker), "{marker:?}");
    }
    assert_eq!(
        calls(
            format,
            "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=unit>\ncelsius\n</parameter>\n</function>\n</tool_call><|im_end|>"
        ),
        vec![(
            "get_weather".into(),
            r#"{"city": "Paris", "unit": "celsius"}"#.into()
        )]
    );
}

#[test]
fn the_function_closer_follows_from_its_opener_when_the_template_skips_it() {
    let mut template = qwen35();
    let tool = &mut template["fields"]["tool_calls"];
    tool.as_object_mut().unwrap().remove("close_pattern");
    tool["close"] = json!("</tool_call>");
    tool["open_pattern"] = json!("<tool_call>\\s*<function=(?P<name>\\w+)>");
    tool["content_args"]["value_parser"] =
        json!({"name": "json", "args": {"allow_non_json": true}});
    let format = format(template).unwrap();
    assert!(format
        .markers()
        .any(|m| m == (Role::FuncClose, "</function>")));
}

#[test]
fn glm_calls_with_keys_and_values_in_tags_of_their_own() {
    let format = format(json!({
        "start_anchor": "<|assistant|>",
        "fields": {
            "thinking": {"open": "<think>", "close": "</think>"},
            "tool_calls": {
                "open_pattern": "<tool_call>(?P<name>[^\\n<]+)",
                "close": "</tool_call>",
                "repeats": true,
                "content": "xml-inline",
                "content_args": {"tag_pattern": "<arg_key>(?P<key>.*?)</arg_key>\\s*<arg_value>(?P<value>.*?)</arg_value>"},
                "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}
            },
            "content": {"close": ["<|user|>", "<|observation|>", "<|endoftext|>"]}
        }
    }))
    .unwrap();
    assert_eq!(
        calls(
            format,
            "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>"
        ),
        vec![("get_weather".into(), r#"{"city": "Paris"}"#.into())]
    );
}

#[test]
fn what_cannot_be_described_is_named() {
    let gpt_oss = format(json!({
        "start_anchor": "<|start|>assistant",
        "fields": {
            "thinking": {"open": "<|channel|>analysis<|message|>", "close": "<|end|>"},
            "content": {"open": "<|channel|>final<|message|>", "close": "<|end|>"},
            "tool_calls": {"open_pattern": "<\\|channel\\|>commentary to=functions\\.(?P<name>\\w+).*?<\\|message\\|>",
                "close": "<|call|>", "repeats": true, "content": "json",
                "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}}
        }
    }))
    .unwrap_err();
    let ResponseTemplateError::Unsupported { at, what } = &gpt_oss else {
        panic!("{gpt_oss:?}")
    };
    assert_eq!(at, "tool_calls.open_pattern");
    assert!(what.contains(".*?"), "{what}");
    assert!(gpt_oss.to_string().contains("cannot be described"));

    let gemma = format(json!({
        "start_anchor": "<|turn>model\n",
        "fields": {"tool_calls": {"open_pattern": "<\\|tool_call>call:(?P<name>\\w+)", "close": "<tool_call|>",
            "content": "json", "content_args": {"unquoted_keys": true, "string_delims": [["<|\"|>", "<|\"|>"]]},
            "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}}}
    }))
    .unwrap_err();
    assert!(
        matches!(&gemma, ResponseTemplateError::Unsupported { at, .. } if at.starts_with("tool_calls.content_args")),
        "{gemma:?}"
    );
}

#[test]
fn configurations_without_a_template_or_its_tool_calls() {
    assert_eq!(
        Format::from_response_template("hf_test", r#"{"chat_template": "…"}"#),
        Err(ResponseTemplateError::NoTemplate)
    );
    assert!(matches!(
        Format::from_response_template("hf_test", "{"),
        Err(ResponseTemplateError::Json(_))
    ));
    assert_eq!(
        format(json!({"start_anchor": "A:", "fields": {"content": {"close": "</s>"}}})),
        Err(ResponseTemplateError::NoToolCalls)
    );
    // The template alone, not inside a tokenizer configuration.
    let alone = json!({"start_anchor": "A:", "fields": {"tool_calls": {"open": "<c>", "close": "</c>",
        "content": "json", "transform": {"type": "function", "function": "{content}"}}}});
    assert!(Format::from_response_template("hf_test", &alone.to_string()).is_ok());
    // A rule the description breaks is the rule's error.
    let clash = format(json!({"start_anchor": "A:", "fields": {
        "tool_calls": {"open": "<c>", "close": "<c>x", "content": "json",
            "transform": {"type": "function", "function": "{content}"}}}}));
    assert!(
        matches!(clash, Err(ResponseTemplateError::Description(_))),
        "{clash:?}"
    );
}
