//! One-shot parsing of arbitrary bytes, checked against the event contract.
//!
//! Input layout: byte 0 picks the value-termination mode (low bit: 0
//! `lookahead`, 1 `vllm`) and, with bit 1 set, tight limits from its upper
//! bits (`common::limits`); the rest is the model output.
//!
//! Checks: no panic; the event contract (`common::check_contract`): per
//! call, the `arguments_delta`s joined equal `tool_call_end.arguments`, which
//! is a JSON object; every event serializes; `coalesce` runs; and
//! `Parser::parse` (reset, feed, finish) gives the same `Message` as the
//! events collected with `MessageBuilder`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolcall_stream::{coalesce, MessageBuilder, OwnedEvent};

mod common;

fuzz_target!(|data: &[u8]| {
    let Some((&header, input)) = data.split_first() else {
        return;
    };
    let mut parser = common::parser(header);

    let events = common::feed_chunks(&mut parser, [input]);
    common::check_contract(&events, input);

    let mut builder = MessageBuilder::new();
    builder.extend(events.iter().map(OwnedEvent::as_event));
    let built = builder.finish();

    let coalesced = coalesce(events);
    common::check_contract(&coalesced, input);

    // `parse` resets the parser: this also checks that reuse after
    // `finish` starts from a clean state.
    let parsed = parser.parse(input);
    assert_eq!(
        parsed,
        built,
        "Parser::parse differs from MessageBuilder over the events; input {:?}",
        String::from_utf8_lossy(input)
    );
});
