//! One-shot parsing of arbitrary bytes, checked against the event contract.
//!
//! Input layout: a header of two bytes (`common::Header`): the format,
//! `Format::ALL[byte % Format::ALL.len()]`, then the value-termination
//! mode (bit 0: 0 `lookahead`, 1 `vllm`) and the limits (bit 1 set: tight
//! ones from bits 2-7); the rest is the model output.
//!
//! Checks: no panic; the event contract (`common::check_contract`): per
//! call, the `arguments_delta`s joined equal `tool_call_end.arguments`, which
//! is a JSON object; parameter deltas equal the value (in a JSON format, a
//! value that is not a string: its deltas read as JSON equal the value);
//! ids are sequential (Kimi K2: the id as written, holding the name); every
//! event serializes; `coalesce` runs; and
//! `Parser::parse` (reset, feed, finish) gives the same `Message` as the
//! events collected with `MessageBuilder`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolcall_stream::{coalesce, MessageBuilder, OwnedEvent};

mod common;

fuzz_target!(|data: &[u8]| {
    let Some((header, input)) = common::Header::split(data) else {
        return;
    };
    if common::skip_open(header.format, input) {
        return;
    }
    let mut parser = header.parser();

    let events = common::feed_chunks(&mut parser, [input]);
    common::check_contract(&events, &header, input);

    let mut builder = MessageBuilder::new();
    builder.extend(events.iter().map(OwnedEvent::as_event));
    let built = builder.finish();

    let coalesced = coalesce(events);
    common::check_contract(&coalesced, &header, input);

    // `parse` resets the parser: this also checks that reuse after
    // `finish` starts from a clean state.
    let parsed = parser.parse(input);
    assert_eq!(
        parsed,
        built,
        "Parser::parse differs from MessageBuilder over the events; {header}, input {:?}",
        String::from_utf8_lossy(input)
    );
});
