//! Text that cannot hold a marker is all content, unchanged.
//!
//! Input: arbitrary bytes, made valid UTF-8 (`String::from_utf8_lossy`) and
//! marker-free: every `<`, `[` and `{` replaced by `(`. Every marker of
//! every format starts with `<` (`<tool_call>`, `<|tool_call_begin|>`,
//! `<｜tool▁calls▁begin｜>`, …), except Phi-4-mini's `functools`, which is a
//! call only with a list (`[`) after it, so the word alone is prose to
//! keep; `[` and `{` also start calls in formats without an opener of
//! `<` (Mistral's `[TOOL_CALLS]`, bare JSON calls), so that a format added
//! later needs no change here unless its calls can start otherwise.
//!
//! Checks, for every format (`Format::ALL`, and `Format::Auto`), in both
//! value-termination modes and with tight limits, fed at once and byte by
//! byte: the only events are `content`, and their texts joined equal the
//! input exactly (nothing held back, dropped or altered). With
//! `Reasoning::Started` (the stream begins inside reasoning) the only
//! events are `content` and `reasoning`, whose texts joined, in order,
//! equal the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolcall_stream::{OwnedEvent, Reasoning, ValueTermination};

mod common;

fuzz_target!(|data: &[u8]| {
    let input = String::from_utf8_lossy(data).replace(['<', '[', '{'], "(");
    let bytes = input.as_bytes();
    for format in common::formats() {
        // Both modes with the default limits, and tight limits (those of
        // the mode byte 0xff, which this target always ran); reasoning on,
        // and started.
        for (mode, tight, reasoning) in [
            (ValueTermination::Lookahead, None, Reasoning::Off),
            (ValueTermination::Vllm, None, Reasoning::On),
            (ValueTermination::Vllm, Some(0xff), Reasoning::Off),
            (ValueTermination::Lookahead, None, Reasoning::Started),
        ] {
            let header = common::Header::with_reasoning(format, mode, tight, reasoning, true);
            let whole = [bytes];
            let bytewise = bytes.chunks(1);
            for (how, events) in [
                ("one-shot", common::feed_chunks(&mut header.parser(), whole)),
                (
                    "bytewise",
                    common::feed_chunks(&mut header.parser(), bytewise),
                ),
            ] {
                let mut content = String::new();
                for event in &events {
                    match event {
                        OwnedEvent::Content { text } => content.push_str(text),
                        OwnedEvent::Reasoning { text } if reasoning == Reasoning::Started => {
                            content.push_str(text)
                        }
                        other => {
                            panic!("{how} ({header}): unexpected event {other:?}; input {input:?}")
                        }
                    }
                }
                assert_eq!(
                    content, input,
                    "{how} ({header}): content differs from the input"
                );
            }
        }
    }
});
