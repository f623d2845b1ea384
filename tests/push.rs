//! The push API (`feed_with`, `finish_with`) gives exactly the events of
//! the iterator API (`feed`, `finish`): event for event and call for call,
//! converted with `Event::into_owned`, not only once coalesced. Every
//! fixture of every format, one-shot, in chunks of 1 to 16 bytes and at
//! seeded random splits, in both value terminations, retaining the whole
//! arguments or not; and the two APIs by turns on one stream.
//! `tests/properties/` checks the same on generated inputs.

mod common;

use common::{chunk_cuts, feed_cut_batches, fixtures, Api, Fixture, Rng};
use toolcall_stream::{Event, Format, Ids, OwnedEvent, Parser, ParserBuilder, ValueTermination};

/// Both value terminations (a fixture's own and the other), retaining the
/// whole arguments or not.
const CONFIGS: [(ValueTermination, bool); 4] = [
    (ValueTermination::Lookahead, true),
    (ValueTermination::Lookahead, false),
    (ValueTermination::Vllm, true),
    (ValueTermination::Vllm, false),
];

/// Panics at the first event (or call) where `other` differs from `pull`.
fn assert_same(pull: &[Vec<OwnedEvent>], other: &[Vec<OwnedEvent>], context: &str) {
    assert_eq!(pull.len(), other.len(), "{context}: number of calls");
    for (call, (a, b)) in pull.iter().zip(other).enumerate() {
        if a != b {
            let first = a
                .iter()
                .zip(b)
                .position(|(x, y)| x != y)
                .unwrap_or(a.len().min(b.len()));
            panic!(
                "{context}: call {call} (of {}; the last is `finish`) differs at event \
                 {first}\n  pull: {:?}\n  other: {:?}\n  pull's events: {a:?}\n  other's \
                 events: {b:?}",
                pull.len(),
                a.get(first),
                b.get(first),
            );
        }
    }
}

/// Feeds `input` at `cuts` through the iterator API, the push API and the
/// two by turns, under every configuration; all must agree call for call.
fn check(base: &dyn Fn() -> ParserBuilder, input: &[u8], cuts: &[usize], context: &str) {
    for (mode, retain) in CONFIGS {
        let mut parser = base()
            .value_termination(mode)
            .retain_arguments(retain)
            .build();
        let pull = feed_cut_batches(&mut parser, input, cuts, Api::Pull);
        let context = format!("{context} ({mode:?}, retain_arguments({retain}))");
        if !retain {
            // The setting is in force: no whole-arguments field.
            assert!(
                pull.iter().flatten().all(|e| !matches!(
                    e,
                    OwnedEvent::ToolCallEnd {
                        arguments: Some(_),
                        ..
                    } | OwnedEvent::ParameterEnd { value: Some(_), .. }
                )),
                "{context}: a lean parser kept a whole field"
            );
        }
        for api in [Api::Push, Api::Mixed] {
            let other = feed_cut_batches(&mut parser, input, cuts, api);
            assert_same(&pull, &other, &format!("{context}, {api:?}"));
        }
    }
}

fn name(fixture: &Fixture) -> String {
    format!("{}/{}", fixture.format.name(), fixture.name)
}

#[test]
fn push_equals_pull_one_shot() {
    for fixture in fixtures() {
        check(&|| fixture.builder(), &fixture.input, &[], &name(&fixture));
    }
}

#[test]
fn push_equals_pull_at_chunk_sizes_1_to_16() {
    for fixture in fixtures() {
        for size in 1..=16 {
            let cuts = chunk_cuts(fixture.input.len(), size);
            let context = format!("{} at chunk size {size}", name(&fixture));
            check(&|| fixture.builder(), &fixture.input, &cuts, &context);
        }
    }
}

#[test]
fn push_equals_pull_at_seeded_random_splits() {
    let mut rng = Rng(0x5eed_7075_7368_0001);
    for fixture in fixtures() {
        for round in 0..24 {
            let cuts = rng.cuts(fixture.input.len());
            let context = format!("{} round {round} cuts {cuts:?}", name(&fixture));
            check(&|| fixture.builder(), &fixture.input, &cuts, &context);
        }
    }
}

/// Inputs longer than the parser's 64 KiB decoding block: each format's
/// fixtures one after another, repeated, fed at once and in odd-sized
/// chunks.
#[test]
fn push_equals_pull_past_the_decoding_block() {
    let all = fixtures();
    for &format in Format::ALL {
        let mut input = Vec::new();
        while input.len() < 150 << 10 {
            for fixture in all.iter().filter(|f| f.format == format) {
                input.extend_from_slice(&fixture.input);
                input.push(b'\n');
            }
        }
        for cuts in [Vec::new(), chunk_cuts(input.len(), 40_961)] {
            let context = format!("{} fixtures repeated, cuts {cuts:?}", format.name());
            let base = || {
                Parser::builder()
                    .format(format)
                    .ids(Ids::sequential("call_"))
            };
            check(&base, &input, &cuts, &context);
        }
    }
}

#[test]
fn after_finish_neither_api_gives_events_until_reset() {
    for fixture in fixtures() {
        let mut parser = fixture.parser();
        parser.feed_with(&fixture.input, |_| {});
        parser.finish_with(|_| {});
        let mut pushed = 0;
        parser.feed_with(&fixture.input, |_| pushed += 1);
        parser.finish_with(|_| pushed += 1);
        assert_eq!(pushed, 0, "{}", name(&fixture));
        assert_eq!(parser.feed(&fixture.input).count(), 0, "{}", name(&fixture));
        parser.reset();
        let mut again = Vec::new();
        parser.feed_with(&fixture.input, |e| again.push(e.into_owned()));
        parser.finish_with(|e| again.push(e.into_owned()));
        let mut fresh = fixture.parser();
        let mut expected: Vec<OwnedEvent> =
            fresh.feed(&fixture.input).map(Event::into_owned).collect();
        expected.extend(fresh.finish().map(Event::into_owned));
        assert_eq!(again, expected, "{}", name(&fixture));
    }
}
