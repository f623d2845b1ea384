//! Typed values, strict mode, unknown tools as content and the partial
//! view: any chunking gives the same events, the arguments fragments of
//! each call join into its final arguments and are a JSON object, and the
//! partial view after every chunk is a JSON object.
//!
//! Input layout: the header of `feed` and `split` (`common::Header`, two
//! bytes: the format, `Format::ALL[byte % Format::ALL.len()]`; then the
//! value termination in bit 0 and tight limits when bit 1 is set), an
//! options byte, then a byte giving `k = byte % 16` chunk lengths that
//! follow (used in a cycle, as in `split`), then the output.
//!
//! ```text
//! options bit 0  typed: the tools below
//!         bit 1  strict mode
//!         bit 2  unknown tools as content (with the tools, or none)
//!         bit 3  Python literals
//!         bit 4  Typing::Infer
//!         bit 5  incomplete calls as content
//!         bit 6  hold text after the wrapper
//!         bit 7  reasoning on when the header leaves it off (tight
//!                limits, whose mode byte has no room for it)
//! ```
//!
//! The options and the tools are in `common::features_parser`, so that
//! `examples/replay.rs` builds the same parser.
//!
//! Before the header was shared, this target read one byte: the format in
//! bits 0-1 (`00` qwen3_coder, `01` glm45, `10` glm47, `11` hermes),
//! `vllm` in bit 2 and the options of bits 0-4 above in bits 3-7. Such an
//! input `[b, …]` reads as now as `[b & 3, (b >> 2) & 1, b >> 3, …]`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolcall_stream::{coalesce, OwnedEvent, Parser};

mod common;

/// Feeds `chunks`, checking the partial view after each; returns the events.
fn feed(parser: &mut Parser, chunks: &[&[u8]], ctx: &dyn Fn() -> String) -> Vec<OwnedEvent> {
    let mut events = Vec::new();
    for chunk in chunks {
        events.extend(parser.feed(chunk).map(|e| e.into_owned()));
        if let Some(view) = parser.partial_call() {
            let text = view.arguments();
            let parsed: serde_json::Value = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("partial view {text:?} is not JSON: {e}; {}", ctx()));
            assert!(parsed.is_object(), "partial view {text:?}; {}", ctx());
        }
    }
    events.extend(parser.finish().map(|e| e.into_owned()));
    events
}

fn check_arguments(events: &[OwnedEvent], ctx: &dyn Fn() -> String) {
    let mut open: Option<(usize, String)> = None;
    for event in events {
        serde_json::to_string(event).expect("every event serializes");
        match event {
            OwnedEvent::ToolCallStart { index, .. } => {
                assert!(open.is_none(), "call inside a call; {}", ctx());
                open = Some((*index, String::new()));
            }
            OwnedEvent::ArgumentsDelta { index, delta } => match open.as_mut() {
                Some((current, args)) if current == index => args.push_str(delta),
                _ => panic!("arguments delta outside its call; {}", ctx()),
            },
            OwnedEvent::ToolCallEnd { arguments, .. } => {
                let (_, args) = open
                    .take()
                    .unwrap_or_else(|| panic!("call end without start; {}", ctx()));
                assert_eq!(
                    arguments.as_deref(),
                    Some(args.as_str()),
                    "fragments vs arguments; {}",
                    ctx()
                );
                let parsed: serde_json::Value = serde_json::from_str(&args)
                    .unwrap_or_else(|e| panic!("arguments {args:?} are not JSON: {e}; {}", ctx()));
                assert!(parsed.is_object(), "arguments {args:?}; {}", ctx());
            }
            OwnedEvent::Content { .. } => {
                assert!(open.is_none(), "content inside a call; {}", ctx())
            }
            OwnedEvent::Reasoning { .. } => {
                assert!(open.is_none(), "reasoning inside a call; {}", ctx())
            }
            _ => {}
        }
    }
    assert!(open.is_none(), "a call never ended; {}", ctx());
}

fuzz_target!(|data: &[u8]| {
    let Some((header, rest)) = common::Header::split(data) else {
        return;
    };
    let Some((&options, rest)) = rest.split_first() else {
        return;
    };
    let Some((input, chunks)) = common::chunked(rest) else {
        return;
    };
    if common::skip_open(header.format, input) {
        return;
    }
    let ctx = || {
        format!(
            "{header}, options {options:#04x}, chunk lengths {:?}, input {:?}",
            chunks.iter().map(|c| c.len()).collect::<Vec<_>>(),
            String::from_utf8_lossy(input),
        )
    };
    let one_shot = feed(
        &mut common::features_parser(&header, options),
        &[input],
        &ctx,
    );
    let chunked = feed(
        &mut common::features_parser(&header, options),
        &chunks,
        &ctx,
    );
    check_arguments(&chunked, &ctx);
    let (one_shot, chunked) = (coalesce(one_shot), coalesce(chunked));
    common::assert_same_events(&one_shot, &chunked, &ctx());
});
