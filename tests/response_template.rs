//! Formats read from models' `response_template` metadata (vLLM's `hf` and
//! `beam` parsers): tokenizer configurations as checkpoints ship them, in
//! tests/model_configs/, read into formats that parse the models' outputs,
//! whole and at every chunk size.

mod common;

use std::sync::Arc;

use common::{check_contract, chunked, message_of, one_shot};
use toolcall_stream::{Format, Ids, Parser, Reasoning, ResponseTemplateError, Role, Tools};

/// The model configs (`tokenizer_config.json`s) and their sample outputs.
fn configs_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/model_configs")
}

fn read(file: &str) -> String {
    std::fs::read_to_string(configs_dir().join(file)).unwrap()
}

fn parser(format: Format, reasoning: Reasoning) -> Parser {
    let tools = Tools::from_json(&read("tools.json")).unwrap();
    Parser::builder()
        .format(format)
        .reasoning(reasoning)
        .tools(Arc::new(tools))
        .ids(Ids::sequential("call_"))
        .build()
}

/// The calls, reasoning and content of `output`, the same at every chunk
/// size.
fn parse_everyhow(format: Format, reasoning: Reasoning, output: &str) -> toolcall_stream::Message {
    let whole = one_shot(&mut parser(format, reasoning), output.as_bytes());
    check_contract(&whole, "whole");
    let message = message_of(&whole);
    for size in 1..=9 {
        let events = chunked(&mut parser(format, reasoning), output.as_bytes(), size);
        check_contract(&events, &format!("chunks of {size}"));
        let chunked = message_of(&events);
        assert_eq!(chunked.tool_calls, message.tool_calls, "chunks of {size}");
        assert_eq!(chunked.content, message.content, "chunks of {size}");
        assert_eq!(chunked.reasoning, message.reasoning, "chunks of {size}");
    }
    message
}

#[test]
fn an_xml_template_reads_the_models_calls_typed_by_the_tools() {
    let format =
        Format::from_response_template("hf", &read("qwen_xml.tokenizer_config.json")).unwrap();
    assert_eq!(format.name(), "hf");
    assert!(format
        .markers()
        .any(|m| m == (Role::FuncOpen, "<function=")));
    // The prompt opened the reasoning (`<think>\n` ends the generation prompt).
    let message = parse_everyhow(format, Reasoning::Started, &read("qwen_xml.txt"));
    let calls: Vec<(&str, &str)> = message
        .tool_calls
        .iter()
        .map(|c| (c.name.as_str(), c.arguments.as_str()))
        .collect();
    assert_eq!(
        calls,
        [
            ("get_weather", r#"{"city": "Paris", "days": 3}"#),
            ("get_weather", r#"{"city": "Tokyo", "days": 1}"#)
        ]
    );
    assert!(message
        .reasoning
        .as_deref()
        .is_some_and(|r| r.contains("call the tool twice")));
    assert_eq!(
        message.content.as_deref().map(str::trim),
        Some("I'll check both cities.")
    );
    assert!(message.diagnostics.is_empty(), "{:?}", message.diagnostics);
}

#[test]
fn a_json_template_reads_the_models_calls() {
    let format =
        Format::from_response_template("beam", &read("json_calls.tokenizer_config.json")).unwrap();
    let message = parse_everyhow(format, Reasoning::On, &read("json_calls.txt"));
    assert_eq!(message.tool_calls.len(), 1);
    assert_eq!(message.tool_calls[0].name, "get_weather");
    assert_eq!(
        message.tool_calls[0].arguments,
        r#"{"city": "Paris", "days": 3}"#
    );
    assert_eq!(
        message.reasoning.as_deref().map(str::trim),
        Some("The user wants Paris.")
    );
    assert_eq!(message.content.as_deref().map(str::trim).unwrap_or(""), "");
}

#[test]
fn a_template_that_cannot_be_described_is_a_typed_error() {
    let error =
        Format::from_response_template("hf", &read("harmony.tokenizer_config.json")).unwrap_err();
    match &error {
        ResponseTemplateError::Unsupported { at, what } => {
            assert_eq!(at, "tool_calls.open_pattern");
            assert!(what.contains(".*?"), "{what}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        Format::from_response_template("hf", &read("no_template.tokenizer_config.json")),
        Err(ResponseTemplateError::NoTemplate)
    );
}

#[test]
fn the_names_hf_and_beam_ask_for_the_model_config() {
    for name in ["hf", "beam", "HF"] {
        let error = name.parse::<Format>().unwrap_err();
        assert!(error.needs_response_template(), "{name}");
        assert!(error.to_string().contains("response_template"), "{error}");
    }
    assert!(!"hermes2"
        .parse::<Format>()
        .unwrap_err()
        .needs_response_template());
}

/// Every output in tests/model_configs/ gives the calls vLLM 0.33's `hf`
/// parser gives with the same config (its non-streaming results, in
/// `vllm_hf_expected.json`), whole and at every chunk size.
#[test]
fn the_calls_agree_with_vllms_hf_parser() {
    let expected: serde_json::Value = serde_json::from_str(&read("vllm_hf_expected.json")).unwrap();
    let cases = expected["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 4);
    for case in cases {
        let name = case["case"].as_str().unwrap();
        let config = read(&format!("{name}.tokenizer_config.json"));
        let format = Format::from_response_template("hf", &config).unwrap();
        // vLLM ran without a reasoning parser: reasoning markers are text.
        let message = parse_everyhow(format, Reasoning::Off, &read(&format!("{name}.txt")));
        let ours: Vec<serde_json::Value> = message
            .tool_calls
            .iter()
            .map(|c| {
                serde_json::json!({
                    "name": c.name,
                    "arguments": serde_json::from_str::<serde_json::Value>(&c.arguments).unwrap(),
                })
            })
            .collect();
        assert_eq!(
            &serde_json::Value::from(ours),
            &case["tool_calls"],
            "{name}"
        );
    }
}
