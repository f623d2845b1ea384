//! A format of one's own, end to end: read from a format file, streamed
//! in token-sized chunks, and the same format said in Rust.
//!
//! ```text
//! cargo run --example custom_format --features toml
//! ```

use std::error::Error;
use std::sync::Arc;

use toolcall_stream::{Format, FormatBuilder, Ids, OwnedEvent, Parser, Reasoning, Role, Tools};

const FILE: &str = include_str!("formats/acme_coder.toml");
const OUTPUT: &str = include_str!("formats/acme_coder.txt");

fn main() -> Result<(), Box<dyn Error>> {
    // The format file: Qwen3-Coder's grammar in the fine-tune's tokens.
    let format = Format::from_toml(FILE)?;

    // The same description in Rust is the same format.
    let built = FormatBuilder::based_on("acme_coder", Format::Qwen3Coder)
        .alias("acme")
        .marker(Role::CallOpen, "<|acme_call|>")
        .marker(Role::CallClose, "<|/acme_call|>")
        .marker(Role::FuncOpen, "<fn name=")
        .marker(Role::FuncClose, "</fn>")
        .marker(Role::ParamOpen, "<arg name=")
        .marker(Role::ParamClose, "</arg>")
        .marker(Role::ReasoningOpen, "<|thinking|>")
        .marker(Role::ReasoningClose, "<|/thinking|>")
        .quoted_names(true)
        .build()?;
    assert_eq!(format, built);

    let tools = Tools::from_json(
        r#"[{"type": "function", "function": {"name": "get_weather", "parameters":
            {"type": "object", "properties": {"city": {"type": "string"},
             "days": {"type": "integer"}}}}}]"#,
    )?;
    let mut parser = Parser::builder()
        .format(format)
        .reasoning(Reasoning::On)
        .tools(Arc::new(tools))
        .ids(Ids::sequential("call_"))
        .build();

    // Token-sized chunks, as a server streams them.
    let mut events = Vec::new();
    let bytes = OUTPUT.as_bytes();
    for chunk in bytes.chunks(5) {
        parser.feed_with(chunk, |event| events.push(event.into_owned()));
    }
    parser.finish_with(|event| events.push(event.into_owned()));
    for event in &events {
        println!("{}", serde_json::to_string(event)?);
    }

    // Streaming and parsing at once agree.
    let message = parser.parse(OUTPUT);
    assert_eq!(message.tool_calls.len(), 2);
    assert_eq!(
        message.tool_calls[0].arguments,
        r#"{"city": "Paris", "days": 3}"#
    );
    assert_eq!(message.tool_calls[1].arguments, r#"{"city": "São Paulo"}"#);
    assert!(message.diagnostics.is_empty(), "{:?}", message.diagnostics);
    let calls = events
        .iter()
        .filter(|e| matches!(e, OwnedEvent::ToolCallEnd { .. }))
        .count();
    assert_eq!(calls, 2);
    eprintln!(
        "{}: {} calls, content {:?}",
        format.name(),
        calls,
        message.content
    );
    Ok(())
}
