//! Property tests over generated, marker-rich model outputs: split
//! invariance, the event contract, `parse` agreeing with the stream, and no
//! text lost when there is no call. Sized to keep CI quick; the fuzz targets
//! in `fuzz/` run the same properties for longer.

mod common;

use common::{check_contract, feed_cut, message_of, one_shot, parser};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use toolcall_stream::{
    coalesce, DiagnosticKind, Format, Ids, Limits, OwnedEvent, Parser, ValueTermination,
};

/// Pieces that model output is made of, well formed or not.
const PIECES: &[&str] = &[
    "<tool_call>",
    "</tool_call>",
    "<function=",
    "</function>",
    "<parameter=",
    "</parameter>",
    "<tool_",
    "</param",
    "<func",
    "<",
    ">",
    "=",
    "/",
    "\n",
    "\n\n",
    " ",
    "  ",
    "get_weather",
    "city",
    "Paris",
    "x",
    "a b",
    "{\"k\": 1}",
    "\"q\"",
    "\\",
    "é",
    "🌧️",
    "東京",
    "\t",
    "&amp;",
    "</think>",
];

fn output() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(PIECES), 0..48).prop_map(|p| p.concat())
}

/// A well-formed call or two, with arbitrary text around and inside values.
fn calls() -> impl Strategy<Value = String> {
    let value = prop::collection::vec(prop::sample::select(PIECES), 0..6).prop_map(|p| p.concat());
    (value.clone(), value.clone(), value, any::<bool>()).prop_map(|(before, v1, v2, two)| {
        let call = |v: &str| {
            format!(
                "<tool_call>\n<function=f>\n<parameter=a>\n{v}\n</parameter>\n\
                 <parameter=b>\n1\n</parameter>\n</function>\n</tool_call>"
            )
        };
        let second = if two { call(&v2) } else { String::new() };
        format!("{before}{}{second}", call(&v1))
    })
}

fn mode() -> impl Strategy<Value = ValueTermination> {
    prop_oneof![
        Just(ValueTermination::Lookahead),
        Just(ValueTermination::Vllm)
    ]
}

fn cuts(len: usize) -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0..=len, 0..24).prop_map(|mut c| {
        c.sort_unstable();
        c
    })
}

fn input_and_cuts(
    source: impl Strategy<Value = String>,
) -> impl Strategy<Value = (Vec<u8>, Vec<usize>)> {
    source.prop_flat_map(|text| {
        let bytes = text.into_bytes();
        let len = bytes.len();
        (Just(bytes), cuts(len))
    })
}

/// The same cases on every run, so that the suite's outcome depends on the
/// code alone: a failure here is reproducible by anyone, and CI never fails
/// by the luck of the draw. Exploration is explicit: `PROPTEST_RNG_SEED=N`
/// picks other cases (proptest reads it), and the fuzz targets search far
/// more widely.
const DEFAULT_SEED: u64 = 0x746f_6f6c_6361_6c6c;

fn rng_seed() -> RngSeed {
    if std::env::var_os("PROPTEST_RNG_SEED").is_some() {
        ProptestConfig::default().rng_seed
    } else {
        RngSeed::Fixed(DEFAULT_SEED)
    }
}

/// 256 cases per property in CI; `PROPTEST_CASES=N` for a longer run.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(256)
}

/// Tight limits, so that short inputs reach every bound.
fn tight_limits() -> impl Strategy<Value = Limits> {
    (0usize..4, 0usize..4, 1usize..10, 1usize..40).prop_map(
        |(calls, parameters, name, lookahead)| {
            let mut limits = Limits::default();
            limits.max_calls = calls;
            limits.max_parameters = parameters;
            limits.max_name_len = name;
            limits.lookahead = lookahead;
            limits
        },
    )
}

fn check_split(input: &[u8], cuts: &[usize], mode: ValueTermination) -> Result<(), TestCaseError> {
    check_split_with(parser(Format::Qwen3Coder, mode), input, cuts)
}

fn check_split_with(mut parser: Parser, input: &[u8], cuts: &[usize]) -> Result<(), TestCaseError> {
    let whole = one_shot(&mut parser, input);
    check_contract(&whole, "one shot");
    let split = feed_cut(&mut parser, input, cuts);
    check_contract(&split, "split");
    prop_assert_eq!(coalesce(split.clone()), coalesce(whole));
    prop_assert_eq!(parser.parse(input), message_of(&split));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        // The no-call property rejects the inputs that do make a call.
        max_global_rejects: cases().saturating_mul(4),
        rng_seed: rng_seed(),
        ..ProptestConfig::default()
    })]

    #[test]
    fn any_split_of_marker_soup_gives_the_same_events(
        (input, cuts) in input_and_cuts(output()), mode in mode()
    ) {
        check_split(&input, &cuts, mode)?;
    }

    #[test]
    fn any_split_of_real_calls_gives_the_same_events(
        (input, cuts) in input_and_cuts(calls()), mode in mode()
    ) {
        check_split(&input, &cuts, mode)?;
    }

    #[test]
    fn limits_keep_split_invariance_and_the_contract(
        (input, cuts) in input_and_cuts(prop_oneof![calls(), output()]),
        mode in mode(),
        limits in tight_limits(),
    ) {
        let parser = Parser::builder()
            .value_termination(mode)
            .limits(limits)
            .ids(Ids::sequential("call_"))
            .build();
        check_split_with(parser, &input, &cuts)?;
    }

    #[test]
    fn splits_through_utf8_characters_and_invalid_bytes_agree(
        bytes in prop::collection::vec(prop::sample::select(vec![
            b'<', b'>', b'a', b'\n', 0xe6, 0x9d, 0xb1, 0xf0, 0x9f, 0x8c, 0xa7, 0xff, 0xc3, 0xa9,
        ]), 0..64),
        seed in any::<u64>(),
    ) {
        let mut rng = common::Rng(seed | 1);
        let cuts = rng.cuts(bytes.len());
        check_split(&bytes, &cuts, ValueTermination::Lookahead)?;
    }

    #[test]
    fn not_retaining_arguments_changes_nothing_but_the_whole_fields(
        (input, cuts) in input_and_cuts(prop_oneof![calls(), output()]), mode in mode()
    ) {
        let build = |retain| Parser::builder()
            .value_termination(mode)
            .ids(Ids::sequential("call_"))
            .retain_arguments(retain)
            .build();
        let retained = one_shot(&mut build(true), &input);
        let lean = feed_cut(&mut build(false), &input, &cuts);
        let stripped: Vec<OwnedEvent> = retained.into_iter().map(|e| match e {
            OwnedEvent::ToolCallEnd { index, complete, .. } =>
                OwnedEvent::ToolCallEnd { index, arguments: None, complete },
            OwnedEvent::ParameterEnd { index, name, .. } =>
                OwnedEvent::ParameterEnd { index, name, value: None },
            e => e,
        }).collect();
        prop_assert_eq!(coalesce(stripped), coalesce(lean));
    }

    #[test]
    fn without_a_call_every_byte_comes_back_as_content(
        text in output(), size in 1usize..9
    ) {
        let mut parser = parser(Format::Qwen3Coder, ValueTermination::Lookahead);
        let events = common::chunked(&mut parser, text.as_bytes(), size);
        let calls = events.iter().any(|e| matches!(e, OwnedEvent::ToolCallStart { .. }));
        let dropped = events.iter().any(|e| matches!(e,
            OwnedEvent::Diagnostic { kind: DiagnosticKind::EmptyToolCall, .. }));
        prop_assume!(!calls && !dropped);
        let content: String = events.iter().filter_map(|e| match e {
            OwnedEvent::Content { text } => Some(text.as_str()),
            _ => None,
        }).collect();
        prop_assert_eq!(content, text);
    }
}
