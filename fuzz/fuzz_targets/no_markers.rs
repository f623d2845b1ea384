//! Text that cannot hold a marker is all content, unchanged.
//!
//! Input: arbitrary bytes, made valid UTF-8 (`String::from_utf8_lossy`) and
//! marker-free (every `<` replaced by `[`; every marker of every format
//! starts with `<`).
//!
//! Checks, for every format, in both value-termination modes and with
//! tight limits, fed at once and byte by byte: the only events are
//! `content`, and their texts joined equal the input exactly (nothing held
//! back, dropped or altered).
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolcall_stream::{Format, OwnedEvent, ValueTermination};

mod common;

fuzz_target!(|data: &[u8]| {
    let input = String::from_utf8_lossy(data).replace('<', "[");
    let bytes = input.as_bytes();
    for &format in Format::ALL {
        // Both modes with the default limits, and tight limits (those of
        // the Qwen3-Coder header byte 0xff, which this target always ran).
        for (mode, tight) in [
            (ValueTermination::Lookahead, None),
            (ValueTermination::Vllm, None),
            (ValueTermination::Vllm, Some(0xff)),
        ] {
            let header = common::Header::new(format, mode, tight);
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
