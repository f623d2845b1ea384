//! Property tests over generated, marker-rich model outputs, for every
//! format: split invariance, the event contract, `parse` agreeing with the
//! stream, the push API giving exactly the iterator API's events, and no
//! text lost when there is no call. Sized to keep CI quick; the fuzz
//! targets in `fuzz/` run the same properties for longer.
//!
//! Each format has its own pieces of model output (its markers, their
//! prefixes and near misses, names, values, UTF-8, and for GLM invalid
//! bytes) and its own generator of well-formed calls; the properties are
//! written once (`properties!`) and instantiated per format, in modules
//! named after the formats (`qwen3_coder::…`, `glm45::…`, `hermes::…`, …);
//! the markup formats' generators are in `markup.rs`, the JSON formats' in
//! `json.rs`, the call-syntax formats' (Python's, Gemma's) in
//! `call_syntax.rs`, the element formats' in `elements.rs`; what every
//! property shares (modes, cuts, seeds, the checks) is in `checks.rs`;
//! typed values are checked in `typed.rs`; that no byte is lost,
//! unreadable arguments included, is stated in `no_byte_lost.rs`.

#[path = "../common/mod.rs"]
mod common;

mod checks;
mod markup;
mod typed;

use checks::*;
use common::{check_contract, feed_cut, feed_cut_batches, message_of, one_shot, Api};
use markup::*;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use std::fmt::Debug;
use std::ops::Range;
use toolcall_stream::{
    coalesce, DiagnosticKind, Format, Ids, Limits, OwnedEvent, Parser, ParserBuilder, Role,
    ValueTermination,
};

macro_rules! properties {
    ($module:ident, $format:expr, $soup:expr, $calls:expr) => {
        mod $module {
            use super::*;

            const FORMAT: Format = $format;

            fn check_split(
                input: &[u8],
                cuts: &[usize],
                mode: ValueTermination,
            ) -> Result<(), TestCaseError> {
                check_split_with(builder_of(FORMAT, mode, true, None), input, cuts)?;
                // Reasoning markers are structure then, not text.
                let reasoning = Parser::builder()
                    .format(FORMAT)
                    .value_termination(mode)
                    .reasoning(toolcall_stream::Reasoning::On)
                    .ids(Ids::sequential("call_"));
                check_split_with(reasoning, input, cuts)
            }

            proptest! {
                #![proptest_config(ProptestConfig {
                    cases: cases(),
                    // The no-call property rejects the inputs that do make
                    // a call.
                    max_global_rejects: cases().saturating_mul(4),
                    rng_seed: rng_seed(),
                    ..ProptestConfig::default()
                })]

                #[test]
                fn any_split_of_marker_soup_gives_the_same_events(
                    (input, cuts) in input_and_cuts($soup), mode in mode()
                ) {
                    check_split(&input, &cuts, mode)?;
                }

                #[test]
                fn any_split_of_real_calls_gives_the_same_events(
                    (input, cuts) in input_and_cuts($calls), mode in mode()
                ) {
                    check_split(&input, &cuts, mode)?;
                }

                #[test]
                fn no_byte_is_lost_when_arguments_are_unreadable(
                    (input, cuts) in input_and_cuts(
                        no_byte_lost::with_unreadable(prop_oneof![$calls, $soup])
                    ),
                ) {
                    no_byte_lost::check_no_byte_lost(FORMAT, &input, &cuts)?;
                }

                #[test]
                fn limits_keep_split_invariance_and_the_contract(
                    (input, cuts) in input_and_cuts(prop_oneof![$calls, $soup]),
                    mode in mode(),
                    limits in tight_limits(),
                ) {
                    check_split_with(builder_of(FORMAT, mode, true, Some(limits)), &input, &cuts)?;
                }

                #[test]
                fn splits_through_utf8_characters_and_invalid_bytes_agree(
                    bytes in prop::collection::vec(prop::sample::select(vec![
                        b'<', b'>', b'a', b'\n', 0xe6, 0x9d, 0xb1, 0xf0, 0x9f, 0x8c, 0xa7, 0xff,
                        0xc3, 0xa9,
                    ]), 0..64),
                    seed in any::<u64>(),
                ) {
                    let mut rng = common::Rng(seed | 1);
                    let cuts = rng.cuts(bytes.len());
                    check_split(&bytes, &cuts, ValueTermination::Lookahead)?;
                }

                #[test]
                fn not_retaining_arguments_changes_nothing_but_the_whole_fields(
                    (input, cuts) in input_and_cuts(prop_oneof![$calls, $soup]), mode in mode()
                ) {
                    let retained = one_shot(&mut build(FORMAT, mode, true, None), &input);
                    let lean = feed_cut(&mut build(FORMAT, mode, false, None), &input, &cuts);
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
                    input in $soup, size in 1usize..9
                ) {
                    let mut parser = build(FORMAT, ValueTermination::Lookahead, true, None);
                    let events = common::chunked(&mut parser, &input, size);
                    let calls = events.iter().any(|e| matches!(e, OwnedEvent::ToolCallStart { .. }));
                    let dropped = events.iter().any(|e| matches!(e,
                        OwnedEvent::Diagnostic { kind: DiagnosticKind::EmptyToolCall, .. }));
                    prop_assume!(!calls && !dropped && !has_messages(FORMAT, &input));
                    let content: String = events.iter().filter_map(|e| match e {
                        OwnedEvent::Content { text } => Some(text.as_str()),
                        _ => None,
                    }).collect();
                    prop_assert_eq!(content, as_content(FORMAT, &input));
                }

                #[test]
                fn gated_parsers_keep_split_invariance_and_the_contract(
                    (input, cuts) in input_and_cuts(prop_oneof![$calls, $soup]),
                    mode in mode(),
                    strict in any::<bool>(),
                ) {
                    check_split_with(build_gated(FORMAT, mode, strict), &input, &cuts)?;
                }

                #[test]
                fn with_every_call_rejected_the_input_comes_back_as_content(
                    (input, cuts) in input_and_cuts(prop_oneof![$calls, $soup]),
                    mode in mode(),
                ) {
                    let events = feed_cut(&mut build_gated(FORMAT, mode, false).build(), &input, &cuts);
                    let dropped = events.iter().any(|e| matches!(e,
                        OwnedEvent::Diagnostic { kind: DiagnosticKind::EmptyToolCall, .. }));
                    prop_assume!(!dropped && !has_messages(FORMAT, &input));
                    let calls = events.iter().any(|e| matches!(e, OwnedEvent::ToolCallStart { .. }));
                    prop_assert!(!calls, "a call was returned");
                    let content: String = events.iter().filter_map(|e| match e {
                        OwnedEvent::Content { text } => Some(text.as_str()),
                        _ => None,
                    }).collect();
                    prop_assert_eq!(content, as_content(FORMAT, &input));
                }

                #[test]
                fn partial_views_are_json_and_agree_with_the_final_arguments(
                    (input, cuts) in input_and_cuts(prop_oneof![$calls, $soup]),
                    mode in mode(),
                ) {
                    check_partial_views(build(FORMAT, mode, true, None), &input, &cuts)?;
                }

                #[test]
                fn push_gives_exactly_the_events_of_pull(
                    (input, cuts) in input_and_cuts(prop_oneof![$calls, $soup]),
                    mode in mode(),
                    retain in any::<bool>(),
                    limits in prop::option::of(tight_limits()),
                ) {
                    let mut parser = build(FORMAT, mode, retain, limits);
                    let pull = feed_cut_batches(&mut parser, &input, &cuts, Api::Pull);
                    for api in [Api::Push, Api::Mixed] {
                        let other = feed_cut_batches(&mut parser, &input, &cuts, api);
                        prop_assert_eq!(&other, &pull, "{:?}", api);
                    }
                }
            }
        }
    };
}

properties!(qwen3_coder, Format::Qwen3Coder, qwen_output(), qwen_calls());
properties!(
    seed_oss,
    Format::SeedOss,
    qwen_output().prop_map(seed_spelling),
    qwen_calls().prop_map(seed_spelling)
);
properties!(
    minimax_m2,
    Format::MiniMaxM2,
    qwen_output().prop_map(minimax_spelling),
    qwen_calls().prop_map(minimax_spelling)
);
properties!(
    deepseek_v32,
    Format::DeepSeekV32,
    qwen_output().prop_map(dsml_spelling),
    qwen_calls().prop_map(dsml_spelling)
);
properties!(
    deepseek_v4,
    Format::DeepSeekV4,
    qwen_output().prop_map(|v| respell(&dsml_spelling(v), V4_BLOCK)),
    qwen_calls().prop_map(|v| respell(&dsml_spelling(v), V4_BLOCK))
);
properties!(
    xml_invoke,
    Format::XmlInvoke,
    qwen_output().prop_map(|v| respell(&minimax_spelling(v), INVOKE_BLOCK)),
    qwen_calls().prop_map(|v| respell(&minimax_spelling(v), INVOKE_BLOCK))
);
properties!(
    xml_invoke_args,
    Format::XmlInvoke,
    prop_oneof![
        3 => qwen_output().prop_map(|v| respell(&minimax_spelling(v), INVOKE_BLOCK)),
        1 => invoke_args_calls(),
    ],
    invoke_args_calls()
);
properties!(
    xml_invoke_tool,
    Format::XmlInvoke,
    qwen_output().prop_map(|v| respell(&respell(&minimax_spelling(v), INVOKE_BLOCK), TOOL_ELEMENT)),
    qwen_calls().prop_map(|v| respell(&respell(&minimax_spelling(v), INVOKE_BLOCK), TOOL_ELEMENT))
);
properties!(
    kimi_k3,
    Format::KimiK3,
    qwen_output().prop_map(k3_spelling),
    qwen_calls().prop_map(k3_spelling)
);
properties!(
    step3,
    Format::Step3,
    qwen_output().prop_map(step3_spelling),
    qwen_calls().prop_map(step3_spelling)
);
properties!(glm45, Format::Glm45, glm_output(), glm_calls());
properties!(glm47, Format::Glm47, glm_output(), glm_calls());

mod json;

mod no_byte_lost;
use json::{calls as json_calls, soup as json_soup};
properties!(
    hermes,
    Format::Hermes,
    json_soup(FORMAT),
    json_calls(FORMAT)
);
properties!(
    kimi_k2,
    Format::KimiK2,
    json_soup(FORMAT),
    json_calls(FORMAT)
);
properties!(
    deepseek_v31,
    Format::DeepSeekV31,
    json_soup(FORMAT),
    json_calls(FORMAT)
);
properties!(
    deepseek_v3,
    Format::DeepSeekV3,
    json_soup(FORMAT),
    json_calls(FORMAT)
);
properties!(
    longcat,
    Format::LongCat,
    json_soup(FORMAT),
    json_calls(FORMAT)
);
properties!(
    internlm,
    Format::InternLm,
    json_soup(FORMAT),
    json_calls(FORMAT)
);
properties!(jamba, Format::Jamba, json_soup(FORMAT), json_calls(FORMAT));
properties!(
    granite,
    Format::Granite,
    json_soup(FORMAT),
    json_calls(FORMAT)
);
properties!(
    phi4_mini_json,
    Format::Phi4MiniJson,
    json_soup(FORMAT),
    json_calls(FORMAT)
);
properties!(
    mistral,
    Format::Mistral,
    json_soup(FORMAT),
    json_calls(FORMAT)
);
properties!(
    openai,
    Format::OpenAi,
    json_soup(FORMAT),
    json_calls(FORMAT)
);
properties!(
    cohere_command3,
    Format::CohereCommand3,
    json_soup(FORMAT),
    json_calls(FORMAT)
);
properties!(
    granite_20b_fc,
    Format::Granite20bFc,
    json_soup(FORMAT),
    json_calls(FORMAT)
);
properties!(xlam, Format::Xlam, json_soup(FORMAT), json_calls(FORMAT));
properties!(
    apertus,
    Format::Apertus,
    json_soup(FORMAT),
    json_calls(FORMAT)
);
properties!(
    gigachat3,
    Format::GigaChat3,
    json_soup(FORMAT),
    json_calls(FORMAT)
);
properties!(
    xml_tool_use,
    Format::XmlToolUse,
    json_soup(FORMAT),
    json_calls(FORMAT)
);
properties!(
    xml_function_call,
    Format::XmlFunctionCall,
    json_soup(FORMAT),
    json_calls(FORMAT)
);
properties!(
    minimax,
    Format::MiniMax,
    json_soup(FORMAT),
    json_calls(FORMAT)
);
properties!(
    llama3_json,
    Format::Llama3Json,
    json_soup(FORMAT),
    json_calls(FORMAT)
);
properties!(
    bare_json,
    Format::BareJson,
    json_soup(FORMAT),
    json_calls(FORMAT)
);
properties!(
    plamo3,
    Format::Plamo3,
    json_soup(FORMAT),
    json_calls(FORMAT)
);
properties!(
    inkling,
    Format::Inkling,
    json_soup(FORMAT),
    json_calls(FORMAT)
);

mod call_syntax;
use call_syntax::{calls as syntax_calls, soup as syntax_soup};
properties!(
    pythonic,
    Format::Pythonic,
    syntax_soup(FORMAT),
    syntax_calls(FORMAT)
);
properties!(
    olmo3,
    Format::Olmo3,
    syntax_soup(FORMAT),
    syntax_calls(FORMAT)
);
properties!(
    lfm2,
    Format::Lfm2,
    syntax_soup(FORMAT),
    syntax_calls(FORMAT)
);
properties!(
    gemma4,
    Format::Gemma4,
    syntax_soup(FORMAT),
    syntax_calls(FORMAT)
);
properties!(
    functiongemma,
    Format::FunctionGemma,
    syntax_soup(FORMAT),
    syntax_calls(FORMAT)
);
properties!(
    ernie45,
    Format::Ernie45,
    json_soup(FORMAT),
    json_calls(FORMAT)
);
properties!(
    nemotron_json,
    Format::NemotronJson,
    json_soup(FORMAT),
    json_calls(FORMAT)
);
properties!(
    openpangu_v2,
    Format::OpenPanguV2,
    json_soup(FORMAT),
    json_calls(FORMAT)
);
properties!(
    solar_open2,
    Format::SolarOpen2,
    glm_output().prop_map(solar_open2_spelling),
    glm_calls().prop_map(solar_open2_spelling)
);

properties!(
    deepseek_v41,
    Format::DeepSeekV41,
    qwen_output().prop_map(|v| respell(&dsml_spelling(v), V41_SPACED)),
    qwen_calls().prop_map(|v| respell(&dsml_spelling(v), V41_SPACED))
);
properties!(
    gigachat35,
    Format::GigaChat35,
    qwen_output().prop_map(|v| respell(&respell(&dsml_spelling(v), V4_BLOCK), GCML)),
    qwen_calls().prop_map(|v| respell(&respell(&dsml_spelling(v), V4_BLOCK), GCML))
);

mod elements;
properties!(
    minimax_m3,
    Format::MiniMaxM3,
    elements::soup(FORMAT),
    elements::calls(FORMAT)
);

properties!(
    hy_v3,
    Format::HyV3,
    glm_output().prop_map(|v| hy_spelling(v, ":opensource")),
    glm_calls().prop_map(|v| hy_spelling(v, ":opensource"))
);
properties!(
    hy_v4,
    Format::HyV4,
    glm_output().prop_map(|v| hy_spelling(v, ":6124c78e")),
    glm_calls().prop_map(|v| hy_spelling(v, ":6124c78e"))
);
properties!(
    iquest_q1,
    Format::IquestQ1,
    glm_output().prop_map(|v| respell(&v, IQUEST)),
    glm_calls().prop_map(|v| respell(&v, IQUEST))
);
properties!(
    telechat4,
    Format::TeleChat4,
    glm_output().prop_map(|v| respell(&v, TELECHAT)),
    glm_calls().prop_map(|v| respell(&v, TELECHAT))
);

properties!(
    k2_horizon,
    Format::K2Horizon,
    glm_output().prop_map(|v| respell(&v, K2_HORIZON)),
    glm_calls().prop_map(|v| respell(&v, K2_HORIZON))
);
properties!(
    sarashina,
    Format::Sarashina,
    json_soup(FORMAT),
    json_calls(FORMAT)
);
properties!(
    functionary_v31,
    Format::FunctionaryV31,
    json_soup(FORMAT),
    json_calls(FORMAT)
);
properties!(
    solar_open,
    Format::SolarOpen,
    json_soup(FORMAT),
    json_calls(FORMAT)
);

properties!(poolside_v1, Format::PoolsideV1, glm_output(), glm_calls());

properties!(
    muse,
    Format::Muse,
    qwen_output().prop_map(muse_spelling),
    qwen_calls().prop_map(muse_spelling)
);

properties!(
    k2_horizon_typed,
    Format::K2Horizon,
    glm_output().prop_map(|v| respell(&v, K2_HORIZON_TYPED)),
    glm_calls().prop_map(|v| respell(&v, K2_HORIZON_TYPED))
);

properties!(
    k2_horizon_json,
    Format::K2Horizon,
    json_soup(Format::Hermes).prop_map(|v| respell(&v, K2_HORIZON_JSON)),
    json_calls(Format::Hermes).prop_map(|v| respell(&v, K2_HORIZON_JSON))
);

properties!(
    dots,
    Format::Dots,
    qwen_output().prop_map(dots_spelling),
    qwen_calls().prop_map(dots_spelling)
);
properties!(
    dots_json,
    Format::Dots,
    json_soup(FORMAT),
    json_calls(FORMAT)
);

properties!(
    minicpm5,
    Format::MiniCpm5,
    qwen_output().prop_map(minicpm5_spelling),
    qwen_calls().prop_map(minicpm5_spelling)
);

properties!(
    functionary_v32,
    Format::FunctionaryV32,
    json_soup(FORMAT),
    json_calls(FORMAT)
);

properties!(
    cohere_cofl,
    Format::CohereCofl,
    elements::soup(FORMAT),
    elements::calls(FORMAT)
);
