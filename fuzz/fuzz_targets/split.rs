//! Split invariance: any chunking gives the same events once coalesced.
//!
//! Input layout: a header of two bytes picking the format, the
//! value-termination mode and the limits, as for `feed` (`common::Header`);
//! then a byte giving `k = byte % 16`, the number of chunk lengths that
//! follow (`k = 0` means single bytes); then `k` bytes, the chunk lengths,
//! used in a cycle (a 0 feeds an empty chunk; all zeros mean single
//! bytes); the rest is the model output.
//!
//! Checks: `coalesce(chunked) == coalesce(one_shot)`, and the chunked
//! events keep the event contract.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolcall_stream::coalesce;

mod common;

fuzz_target!(|data: &[u8]| {
    let Some((header, rest)) = common::Header::split(data) else {
        return;
    };
    let Some((input, chunks)) = common::chunked(rest) else {
        return;
    };
    if common::skip_open(header.format, input) {
        return;
    }
    let one_shot = common::feed_chunks(&mut header.parser(), [input]);
    let chunked = common::feed_chunks(&mut header.parser(), chunks.iter().copied());
    common::check_contract(&chunked, &header, input);

    let one_shot = coalesce(one_shot);
    let chunked = coalesce(chunked);
    let context = format!(
        "{header}, chunk lengths {:?}, input {:?}",
        chunks.iter().map(|c| c.len()).collect::<Vec<_>>(),
        String::from_utf8_lossy(input),
    );
    common::assert_same_events(&one_shot, &chunked, &context);
});
