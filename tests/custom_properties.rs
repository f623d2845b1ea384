//! Any description the rules accept is safe to run: built-in formats with
//! markers, name ends and quoting changed at random keep the event
//! contract and the split invariant, and never panic, on generated output
//! made of their own markers, pieces of them and text.

mod common;

use std::sync::OnceLock;

use common::{check_contract, feed_cut, fixtures, message_of, one_shot};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use toolcall_stream::{coalesce, Format, FormatBuilder, Ids, NameEnd, Parser, Role};

/// Built-in formats of every layout: marked-up parameters, JSON after a
/// name, JSON bodies (wrapped, listed, bare), headers.
const BASES: &[Format] = &[
    Format::Qwen3Coder,
    Format::Glm45,
    Format::Glm47,
    Format::MiniMaxM2,
    Format::DeepSeekV32,
    Format::Hermes,
    Format::KimiK2,
    Format::DeepSeekV31,
    Format::DeepSeekV3,
    Format::Jamba,
    Format::Mistral,
    Format::OpenAi,
    Format::Llama3Json,
    Format::Xlam,
    Format::Apertus,
    Format::XmlToolUse,
    Format::Step3,
    Format::KimiK3,
    Format::XmlInvoke,
    Format::HyV3,
    Format::HyV4,
    Format::IquestQ1,
    Format::TeleChat4,
    Format::K2Horizon,
    Format::PoolsideV1,
    // Marked-up invokes, or a JSON body in their place.
    Format::Dots,
];

const TEXT: &[&str] = &[
    "f",
    "city",
    "Paris",
    " ",
    "\n",
    "=",
    "\"",
    "'",
    ">",
    "<",
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    "\"name\"",
    "\"arguments\"",
    "\"f\"",
    "1",
    "é",
    "東",
    "{\"k\": 1}",
    "functions.f:0",
    "function",
    " to=functions.f",
    "analysis",
    "```json\n",
    "```",
    "; ",
];

/// A marker spelling: an opening character, letters, a closing one.
fn spelling() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["<", "[", "{", "《", "|", "<|"]),
        "[a-d/]{1,4}",
        prop::sample::select(vec![">", "]", "|>", "》", ""]),
    )
        .prop_map(|(open, letters, close)| format!("{open}{letters}{close}"))
}

fn name_end() -> impl Strategy<Value = Option<NameEnd>> {
    prop::sample::select(vec![
        None,
        Some(NameEnd::Byte(b'>')),
        Some(NameEnd::Byte(b'\n')),
        Some(NameEnd::Byte(b'=')),
        Some(NameEnd::Marker { line: false }),
        Some(NameEnd::Marker { line: true }),
    ])
}

/// A respelled built-in format that the rules accept, or `None`.
fn format() -> impl Strategy<Value = Option<Format>> {
    (
        prop::sample::select(BASES),
        prop::collection::vec(prop::option::weighted(0.5, spelling()), Role::ALL.len()),
        name_end(),
        name_end(),
        prop::option::of(any::<bool>()),
    )
        .prop_map(|(base, spellings, function_end, parameter_end, quoted)| {
            let mut builder = FormatBuilder::based_on("respelled", base);
            let own: Vec<Role> = base.markers().map(|(role, _)| role).collect();
            for (role, spelling) in Role::ALL.into_iter().zip(spellings) {
                // Respell the base's roles only: others would change its
                // layout, which the rules may allow but this test's text
                // would not exercise.
                if let (Some(text), true) = (spelling, own.contains(&role)) {
                    builder = builder.marker(role, text);
                }
            }
            if let Some(end) = function_end {
                builder = builder.function_name_end(end);
            }
            if let Some(end) = parameter_end {
                builder = builder.parameter_name_end(end);
            }
            if let Some(quoted) = quoted {
                builder = builder.quoted_names(quoted);
            }
            builder.build().ok()
        })
}

/// Output of `format`: its markers, their first halves, and text.
fn output(format: Format) -> impl Strategy<Value = Vec<u8>> {
    let mut pieces: Vec<String> = TEXT.iter().map(|s| (*s).to_owned()).collect();
    for (_, marker) in format.markers() {
        pieces.push(marker.to_owned());
        pieces.push(marker.to_owned());
        let half = marker.char_indices().nth(marker.chars().count() / 2);
        if let Some((at, _)) = half.filter(|(at, _)| *at > 0) {
            pieces.push(marker[..at].to_owned());
        }
    }
    prop::collection::vec(prop::sample::select(pieces), 0..40).prop_map(|p| p.concat().into_bytes())
}

/// Each base's fixtures: real, mostly well-formed output.
fn base_fixtures(base: Format) -> &'static [Vec<u8>] {
    static ALL: OnceLock<Vec<(Format, Vec<Vec<u8>>)>> = OnceLock::new();
    let all = ALL.get_or_init(|| {
        let fixtures = fixtures();
        BASES
            .iter()
            .map(|&base| {
                let inputs = fixtures
                    .iter()
                    .filter(|f| f.format == base)
                    .map(|f| f.input.clone())
                    .collect();
                (base, inputs)
            })
            .collect()
    });
    &all.iter().find(|(f, _)| *f == base).unwrap().1
}

/// `input` with each of `base`'s markers written as `format` spells its
/// role (the leftmost, longest marker first, as the engine reads them).
fn respell(input: &[u8], base: Format, format: Format) -> Vec<u8> {
    let pairs: Vec<(&str, &str)> = base
        .markers()
        .filter_map(|(role, old)| {
            let new = format.markers().find(|(r, _)| *r == role)?.1;
            Some((old, new))
        })
        .collect();
    let mut out = Vec::with_capacity(input.len());
    let mut at = 0;
    while at < input.len() {
        let rest = &input[at..];
        match pairs
            .iter()
            .filter(|(old, _)| rest.starts_with(old.as_bytes()))
            .max_by_key(|(old, _)| old.len())
        {
            Some((old, new)) => {
                out.extend_from_slice(new.as_bytes());
                at += old.len();
            }
            None => {
                out.push(input[at]);
                at += 1;
            }
        }
    }
    out
}

/// A base's fixture in a respelled format's markers (its name ends and
/// quoting kept, so that calls stay calls).
fn respelled_fixture() -> impl Strategy<Value = Option<(Format, Vec<u8>)>> {
    (
        prop::sample::select(BASES),
        prop::collection::vec(prop::option::weighted(0.5, spelling()), Role::ALL.len()),
        any::<prop::sample::Index>(),
    )
        .prop_map(|(base, spellings, which)| {
            let mut builder = FormatBuilder::based_on("respelled", base);
            let own: Vec<Role> = base.markers().map(|(role, _)| role).collect();
            for (role, spelling) in Role::ALL.into_iter().zip(spellings) {
                if let (Some(text), true) = (spelling, own.contains(&role)) {
                    builder = builder.marker(role, text);
                }
            }
            let format = builder.build().ok()?;
            let inputs = base_fixtures(base);
            let input = respell(&inputs[which.index(inputs.len())], base, format);
            Some((format, input))
        })
}

fn parser(format: Format) -> Parser {
    Parser::builder()
        .format(format)
        .ids(Ids::sequential("call_"))
        .build()
}

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(512);
    let mut config = ProptestConfig::with_cases(cases);
    if std::env::var_os("PROPTEST_RNG_SEED").is_none() {
        // The same cases on every run (see tests/properties/).
        config.rng_seed = RngSeed::Fixed(0x6375_7374_6f6d);
    }
    config
}

fn check(format: Format, input: &[u8], cuts: &[usize]) -> Result<(), TestCaseError> {
    let mut parser = parser(format);
    let whole = one_shot(&mut parser, input);
    check_contract(&whole, "one shot");
    let split = feed_cut(&mut parser, input, cuts);
    check_contract(&split, "split");
    prop_assert_eq!(coalesce(split.clone()), coalesce(whole));
    // `parse` is the stream with unreadable calls as content.
    let mut whole_output = Parser::builder()
        .format(format)
        .ids(Ids::sequential("call_"))
        .unreadable_calls_as_content(true)
        .build();
    let gated = feed_cut(&mut whole_output, input, cuts);
    prop_assert_eq!(parser.parse(input), message_of(&gated));
    Ok(())
}

fn sorted(mut cuts: Vec<usize>) -> Vec<usize> {
    cuts.sort_unstable();
    cuts
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn respelled_fixtures_keep_the_contract_at_every_split(
        (format, input, cuts) in respelled_fixture().prop_filter_map("refused by the rules", |f| f)
            .prop_flat_map(|(format, input)| {
                let len = input.len();
                (Just(format), Just(input), prop::collection::vec(0..=len, 0..12))
            })
    ) {
        check(format, &input, &sorted(cuts))?;
    }

    #[test]
    fn respelled_formats_keep_the_contract_at_every_split(
        (format, input, cuts) in format().prop_filter_map("refused by the rules", |f| f)
            .prop_flat_map(|format| (Just(format), output(format)))
            .prop_flat_map(|(format, input)| {
                let len = input.len();
                (Just(format), Just(input), prop::collection::vec(0..=len, 0..12))
            })
    ) {
        check(format, &input, &sorted(cuts))?;
    }
}
