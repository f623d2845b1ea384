//! Typed values, strict mode, unknown tools as content and the partial
//! view: any chunking gives the same events, the arguments fragments of
//! each call join into its final arguments and are a JSON object, and the
//! partial view after every chunk is a JSON object.
//!
//! Input layout: a header byte, then a byte giving `k = byte % 16` chunk
//! lengths that follow (used in a cycle, as in `split`), then the output.
//!
//! ```text
//! header bits 0-1  format: 00 Qwen3-Coder, 01 GLM-4.5, 10 GLM-4.7,
//!                  11 Hermes (Qwen3-Coder before Hermes was a format)
//!        bit 2     value termination vllm
//!        bit 3     typed: the tools below
//!        bit 4     strict mode
//!        bit 5     unknown tools as content (with the tools, or none)
//!        bit 6     Python literals
//!        bit 7     Typing::Infer
//! ```
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use toolcall_stream::{coalesce, Format, Ids, OwnedEvent, Parser, Tools, Typing, ValueTermination};

mod common;

/// Tools typing the names the dictionaries and fixtures use.
const TOOLS: &str = r#"[{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"},
    "x": {"type": ["number", "null"]}, "a": {"type": "boolean"}, "b": {"type": "object"},
    "path": {"type": "array"}, "q": {"anyOf": [{"type": "integer"}, {"type": "string"}]}},
    "required": ["city"]}}},
    {"type": "function", "function": {"name": "f", "parameters": {"type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "number"}}}}}]"#;

fn parser(header: u8) -> Parser {
    let format = match header & 3 {
        1 => Format::Glm45,
        2 => Format::Glm47,
        3 => Format::Hermes,
        _ => Format::Qwen3Coder,
    };
    let mode = if header & 4 != 0 {
        ValueTermination::Vllm
    } else {
        ValueTermination::Lookahead
    };
    let mut builder = Parser::builder()
        .format(format)
        .value_termination(mode)
        .strict(header & 0x10 != 0)
        .unknown_tools_as_content(header & 0x20 != 0)
        .python_literals(header & 0x40 != 0)
        .ids(Ids::sequential("call_"));
    if header & 0x80 != 0 {
        builder = builder.typing(Typing::Infer);
    }
    if header & 0x08 != 0 {
        builder = builder.tools(Arc::new(Tools::from_json(TOOLS).unwrap()));
    } else if header & 0x20 != 0 {
        builder = builder.tools(Arc::new(Tools::from_json("[]").unwrap()));
    }
    builder.build()
}

/// Feeds `chunks`, checking the partial view after each; returns the events.
fn feed(parser: &mut Parser, chunks: &[&[u8]]) -> Vec<OwnedEvent> {
    let mut events = Vec::new();
    for chunk in chunks {
        events.extend(parser.feed(chunk).map(|e| e.into_owned()));
        if let Some(view) = parser.partial_call() {
            let text = view.arguments();
            let parsed: serde_json::Value = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("partial view {text:?} is not JSON: {e}"));
            assert!(parsed.is_object(), "partial view {text:?}");
        }
    }
    events.extend(parser.finish().map(|e| e.into_owned()));
    events
}

fn check_arguments(events: &[OwnedEvent]) {
    let mut open: Option<(usize, String)> = None;
    for event in events {
        serde_json::to_string(event).expect("every event serializes");
        match event {
            OwnedEvent::ToolCallStart { index, .. } => {
                assert!(open.is_none(), "call inside a call");
                open = Some((*index, String::new()));
            }
            OwnedEvent::ArgumentsDelta { index, delta } => match open.as_mut() {
                Some((current, args)) if current == index => args.push_str(delta),
                _ => panic!("arguments delta outside its call"),
            },
            OwnedEvent::ToolCallEnd { arguments, .. } => {
                let (_, args) = open.take().expect("call end without start");
                assert_eq!(
                    arguments.as_deref(),
                    Some(args.as_str()),
                    "fragments vs arguments"
                );
                let parsed: serde_json::Value = serde_json::from_str(&args)
                    .unwrap_or_else(|e| panic!("arguments {args:?} are not JSON: {e}"));
                assert!(parsed.is_object(), "arguments {args:?}");
            }
            OwnedEvent::Content { .. } => assert!(open.is_none(), "content inside a call"),
            _ => {}
        }
    }
    assert!(open.is_none(), "a call never ended");
}

fuzz_target!(|data: &[u8]| {
    let Some((header, rest)) = data.split_first() else {
        return;
    };
    let Some((input, chunks)) = common::chunked(rest) else {
        return;
    };
    let one_shot = feed(&mut parser(*header), &[input]);
    let chunked = feed(&mut parser(*header), &chunks);
    check_arguments(&chunked);
    let (one_shot, chunked) = (coalesce(one_shot), coalesce(chunked));
    assert!(
        one_shot == chunked,
        "split changes the events: header {header:#04x}, chunk lengths {:?}, input {:?}\n one-shot: {one_shot:?}\n chunked: {chunked:?}",
        chunks.iter().map(|c| c.len()).collect::<Vec<_>>(),
        String::from_utf8_lossy(input),
    );
});
