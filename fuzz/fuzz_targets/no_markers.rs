//! Text that cannot hold a marker is all content, unchanged.
//!
//! Input: arbitrary bytes, made valid UTF-8 (`String::from_utf8_lossy`) and
//! marker-free (every `<` replaced by `[`; every marker starts with `<`).
//!
//! Checks, in both value-termination modes and with tight limits, fed at
//! once and byte by byte:
//! the only events are `content`, and their texts joined equal the input
//! exactly (nothing held back, dropped or altered).
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolcall_stream::OwnedEvent;

mod common;

fuzz_target!(|data: &[u8]| {
    let input = String::from_utf8_lossy(data).replace('<', "[");
    let bytes = input.as_bytes();
    // Both modes, default and tight limits.
    for header in [0u8, 1, 0xff] {
        let whole = [bytes];
        let bytewise = bytes.chunks(1);
        for (how, events) in [
            (
                "one-shot",
                common::feed_chunks(&mut common::parser(header), whole),
            ),
            (
                "bytewise",
                common::feed_chunks(&mut common::parser(header), bytewise),
            ),
        ] {
            let mut content = String::new();
            for event in &events {
                match event {
                    OwnedEvent::Content { text } => content.push_str(text),
                    other => panic!(
                        "{how} (header {header:#04x}): unexpected event {other:?}; input {input:?}"
                    ),
                }
            }
            assert_eq!(
                content, input,
                "{how} (header {header:#04x}): content differs from the input"
            );
        }
    }
});
