//! Conformance with vLLM 0.33.0's parsers of the formats this crate reads
//! ([`PARSERS`]), on the reference outputs vendored in `tests/conformance/`
//! (see its README.md for where they come from and how to refresh them).
//!
//! Every selected case is parsed and compared with vLLM's non-streaming
//! result: content (whitespace-trimmed, `null` = `""`), call count, names and
//! arguments (as JSON values), and reasoning where vLLM reports it. A case that differs must be listed in
//! `divergences.json` with its reason (read and pinned in `divergences.rs`), and a listed case must still differ,
//! so the table stays exactly the set of deliberate differences.
//!
//! Values are typed from each case's `tools` (the schema ladder), so typed
//! values are compared too: numbers, booleans, nulls, objects and arrays.

#[path = "../common/mod.rs"]
mod common;

mod compare;
mod divergences;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use compare::*;
use divergences::*;
use serde_json::Value;
use toolcall_stream::{
    DiagnosticKind, Format, Ids, Message, Parser, ParserBuilder, Reasoning, Tools, ValueTermination,
};

/// The vLLM parser names this crate implements, with the format each one
/// selects.
const PARSERS: &[(&str, Format)] = &[
    ("qwen3_coder", Format::Qwen3Coder),
    ("qwen3_xml", Format::Qwen3Coder),
    ("glm45", Format::Glm45),
    ("glm47", Format::Glm47),
    ("hermes", Format::Hermes),
    ("kimi_k2", Format::KimiK2),
    ("deepseek_v31", Format::DeepSeekV31),
    ("deepseek_v3", Format::DeepSeekV3),
    ("longcat", Format::LongCat),
    ("internlm", Format::InternLm),
    ("jamba", Format::Jamba),
    ("hunyuan_a13b", Format::HunyuanA13b),
    ("openai", Format::OpenAi),
    ("granite", Format::Granite),
    ("phi4_mini_json", Format::Phi4MiniJson),
    ("mistral", Format::Mistral),
    ("llama3_json", Format::Llama3Json),
    ("xlam", Format::Xlam),
    ("seed_oss", Format::SeedOss),
    ("minimax_m2", Format::MiniMaxM2),
    ("deepseek_v32", Format::DeepSeekV32),
    ("step3", Format::Step3),
    ("pythonic", Format::Pythonic),
    ("llama4_pythonic", Format::Pythonic),
    ("olmo3", Format::Olmo3),
    ("lfm2", Format::Lfm2),
    ("gemma4", Format::Gemma4),
    ("ernie45", Format::Ernie45),
    ("granite4", Format::Hermes),
    ("step5", Format::Qwen3Coder),
    ("step3p5", Format::Qwen3Coder),
    ("mimo", Format::Qwen3Coder),
    ("deepseek_v4", Format::DeepSeekV4),
    ("deepseek_v41", Format::DeepSeekV41),
    ("minimax_m3", Format::MiniMaxM3),
    ("plamo3", Format::Plamo3),
    ("cohere_command3", Format::CohereCommand3),
    ("cohere_command4", Format::CohereCommand3),
    ("inkling", Format::Inkling),
    ("ling3", Format::Glm47),
    ("hy_v3", Format::HyV3),
    ("hy_v4", Format::HyV4),
    ("k2_horizon", Format::K2Horizon),
    ("poolside_v1", Format::PoolsideV1),
    ("dots", Format::Dots),
    ("muse", Format::Muse),
    ("muse_glimmer", Format::Muse),
    ("minicpm5", Format::MiniCpm5),
];

/// The marker suffix of the checkpoint vLLM's parser was run with, where a
/// format has one: the oracle's stand-in vocabulary spells Hy's markers
/// without a suffix (Hy3-preview's), not the shipping checkpoints'.
const ORACLE_SUFFIX: &[(&str, &str)] = &[("hy_v3", ""), ("hy_v4", "")];

/// The fewest corpus cases each format must have (all its vLLM names
/// together), so that a corpus refresh that loses cases is noticed.
const MIN_CASES: &[(Format, usize)] = &[
    (Format::Qwen3Coder, 36),
    (Format::Glm45, 10),
    (Format::Glm47, 10),
    (Format::Hermes, 12),
    (Format::KimiK2, 8),
    (Format::DeepSeekV31, 8),
    (Format::DeepSeekV3, 5),
    (Format::LongCat, 4),
    (Format::InternLm, 4),
    (Format::Jamba, 4),
    (Format::HunyuanA13b, 3),
    (Format::Granite, 4),
    (Format::Phi4MiniJson, 4),
    (Format::Mistral, 8),
    (Format::OpenAi, 10),
    (Format::Llama3Json, 9),
    (Format::Xlam, 4),
    (Format::SeedOss, 9),
    (Format::MiniMaxM2, 9),
    (Format::DeepSeekV32, 9),
    (Format::Step3, 4),
    (Format::Pythonic, 14),
    (Format::Olmo3, 4),
    (Format::Lfm2, 4),
    (Format::Gemma4, 9),
    (Format::Ernie45, 5),
    (Format::DeepSeekV4, 3),
    (Format::DeepSeekV41, 2),
    (Format::MiniMaxM3, 4),
    (Format::Plamo3, 5),
    (Format::CohereCommand3, 7),
    (Format::Inkling, 5),
    (Format::HyV3, 4),
    (Format::HyV4, 5),
    (Format::K2Horizon, 5),
    (Format::PoolsideV1, 4),
    (Format::Dots, 5),
    (Format::Muse, 7),
    (Format::MiniCpm5, 5),
];

struct Case {
    id: String,
    /// vLLM's parser name (one of [`PARSERS`]).
    parser: String,
    format: Format,
    text: String,
    tools: Value,
    /// vLLM's non-streaming result: `{content, tool_calls: [{name, arguments}]}`.
    expected: Value,
}

fn conformance_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance")
}

fn read_json(name: &str) -> Value {
    let path = conformance_dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read the vendored vLLM conformance material {}: {e}\n\
             (tests/conformance/README.md says how to refresh it)",
            path.display()
        )
    });
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The corpus cases of the parsers in [`PARSERS`], each with vLLM's
/// non-streaming result.
fn cases() -> Vec<Case> {
    let corpus = read_json("corpus.json");
    let expected = read_json("expected.json");
    let expected: BTreeMap<&str, &Value> = expected["cases"]
        .as_array()
        .expect("expected.json: `cases` is a list")
        .iter()
        .map(|c| (c["id"].as_str().expect("expected case id"), c))
        .collect();
    let mut cases = Vec::new();
    for entry in corpus.as_array().expect("corpus.json is a list") {
        let parser = entry["parser"].as_str().expect("corpus parser");
        if !PARSERS.iter().any(|(name, _)| *name == parser) {
            continue;
        }
        let id = entry["id"].as_str().expect("corpus id").to_owned();
        let format: Format = parser
            .parse()
            .unwrap_or_else(|e| panic!("{id}: format {parser:?}: {e}"));
        let reference = expected
            .get(id.as_str())
            .unwrap_or_else(|| panic!("{id}: no entry in expected.json"));
        cases.push(Case {
            parser: parser.to_owned(),
            format,
            text: entry["text"].as_str().expect("corpus text").to_owned(),
            tools: entry["tools"].clone(),
            expected: reference["nonstream"].clone(),
            id,
        });
    }
    for &(format, min) in MIN_CASES {
        let found = cases.iter().filter(|c| c.format == format).count();
        assert!(
            found >= min,
            "only {found} {format} cases found in the conformance corpus (expected at least {min})"
        );
    }
    cases
}

fn parser_for(case: &Case, mode: ValueTermination) -> Parser {
    builder_for(case, mode).build()
}

/// vLLM names whose parser always splits reasoning (a reasoning parser
/// and a tool parser in one), with the reasoning option that does the
/// same here: Command A's thinking block; `cohere_command4`'s prompt
/// opens it, so its output starts inside reasoning.
const REASONING_SPLIT: &[(&str, Reasoning)] = &[
    ("cohere_command3", Reasoning::On),
    ("cohere_command4", Reasoning::Started),
];

fn builder_for(case: &Case, mode: ValueTermination) -> ParserBuilder {
    let tools = Tools::from_value(&case.tools)
        .unwrap_or_else(|e| panic!("{}: tools rejected: {e}", case.id));
    let reasoning = REASONING_SPLIT
        .iter()
        .find(|(name, _)| *name == case.parser)
        .map_or(Reasoning::Off, |&(_, reasoning)| reasoning);
    let format = match ORACLE_SUFFIX.iter().find(|(name, _)| *name == case.parser) {
        Some((_, suffix)) => case
            .format
            .with_marker_suffix(suffix)
            .expect("a valid suffix"),
        None => case.format,
    };
    Parser::builder()
        .format(format)
        .reasoning(reasoning)
        .value_termination(mode)
        .tools(Arc::new(tools))
        .ids(Ids::sequential("call_"))
}

#[test]
fn conformance_material_is_present() {
    let dir = conformance_dir();
    for name in ["README.md", "corpus.json", "expected.json"] {
        assert!(
            dir.join(name).is_file(),
            "missing {} (the vendored vLLM conformance material; see tests/conformance/README.md)",
            dir.join(name).display()
        );
    }
}

#[test]
fn every_vllm_name_is_accepted() {
    for &(name, format) in PARSERS {
        assert_eq!(name.parse::<Format>(), Ok(format), "{name}");
    }
    let cases = cases();
    for &(name, _) in PARSERS {
        assert!(
            cases.iter().any(|c| c.parser == name),
            "no {name} case selected"
        );
    }
}

/// Formats whose vLLM parser has no case in the vendored corpus yet, by
/// vLLM's name. A corpus refresh that brings cases for one must move it
/// to [`PARSERS`] and [`MIN_CASES`] (a test fails until it does).
const NOT_IN_CORPUS: &[(&str, Format)] = &[
    ("minimax", Format::MiniMax),
    ("granite-20b-fc", Format::Granite20bFc),
    ("apertus", Format::Apertus),
    ("gigachat3", Format::GigaChat3),
    // Compared with vLLM's own parser in tests/kimi_k3_vllm.rs instead.
    ("kimi_k3", Format::KimiK3),
    ("functiongemma", Format::FunctionGemma),
    // SGLang's: vLLM 0.33 registers no `gigachat35`.
    ("gigachat35", Format::GigaChat35),
];

/// Formats that are not vLLM parsers at all (calls that leak into text,
/// seed 002): nothing to compare with.
const NOT_VLLM: &[Format] = &[
    // SGLang's names for GLM's shape under other tags.
    Format::IquestQ1,
    Format::TeleChat4,
    Format::XmlToolUse,
    Format::XmlFunctionCall,
    // Seed 002's `<function_calls><invoke …>` (Anthropic's older XML).
    Format::XmlInvoke,
    // Seed 002's `{"tool": …, "args": …}`: vLLM has no such parser.
    Format::BareJson,
    // Read by other servers (llama.cpp, SGLang, smg, Hugging Face plugins),
    // not by vLLM 0.33.
    Format::NemotronJson,
    Format::OpenPanguV2,
    Format::SolarOpen2,
    // smg's `sarashina`; llama.cpp's Functionary v3.1 and v3.2 and Solar Open (a
    // vLLM `solar_open` parser exists only on a branch).
    Format::Sarashina,
    Format::FunctionaryV31,
    Format::SolarOpen,
    Format::FunctionaryV32,
    // Cohere's cofl XML: Melody's `cmd5` and xgrammar's `cohere`; vLLM
    // registers only `cohere_command3`/`cohere_command4`.
    Format::CohereCofl,
];

#[test]
fn formats_not_in_the_corpus_have_no_case_there() {
    let corpus = read_json("corpus.json");
    for &(name, format) in NOT_IN_CORPUS {
        assert_eq!(name.parse::<Format>(), Ok(format), "{name}");
        let found = corpus
            .as_array()
            .expect("corpus.json is a list")
            .iter()
            .filter(|entry| entry["parser"].as_str() == Some(name))
            .count();
        assert_eq!(
            found, 0,
            "the corpus now has {name} cases: move it to PARSERS"
        );
    }
}

/// A format this crate parses is compared with vLLM as soon as it exists
/// (or, while vLLM's corpus has no case of it, listed in
/// [`NOT_IN_CORPUS`]).
#[test]
fn every_format_is_compared() {
    for &format in Format::ALL {
        if NOT_IN_CORPUS.iter().any(|&(_, f)| f == format) || NOT_VLLM.contains(&format) {
            continue;
        }
        assert!(
            PARSERS.iter().any(|&(_, f)| f == format),
            "{format} has no vLLM parser name in PARSERS"
        );
        assert!(
            MIN_CASES.iter().any(|&(f, _)| f == format),
            "{format} has no entry in MIN_CASES"
        );
    }
}

/// The cases where vLLM returns non-string values are compared in full,
/// and agree: the schema ladder is vLLM's. (A listed divergence is one
/// where vLLM's call itself is wrong, such as a whole body as arguments.)
#[test]
fn typed_values_agree_with_vllm() {
    let cases = cases();
    let divergences = known_divergences();
    let listed = |c: &&Case| divergences.iter().any(|(id, _)| *id == c.id);
    let typed: Vec<&Case> = cases.iter().filter(|c| is_typed(c) && !listed(c)).collect();
    assert!(typed.len() >= 11, "only {} typed cases", typed.len());
    for case in typed {
        let message = ours(case);
        let diffs = differences(case, &message);
        assert!(diffs.is_empty(), "{}", describe(case, &message, &diffs));
    }
}

#[test]
fn matches_vllm_except_known_divergences() {
    let divergences = known_divergences();
    let known: BTreeMap<&str, &str> = divergences
        .iter()
        .map(|(id, reason)| (id.as_str(), reason.as_str()))
        .collect();
    assert_eq!(
        known.len(),
        divergences.len(),
        "duplicate id in divergences.json"
    );
    let cases = cases();
    let ids: BTreeSet<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    let mut failures = String::new();
    for id in known.keys() {
        if !ids.contains(id) {
            let _ = writeln!(
                failures,
                "--- {id}: listed, but not a case of a parser in PARSERS"
            );
        }
    }
    for case in &cases {
        let message = ours(case);
        let diffs = differences(case, &message);
        match (diffs.is_empty(), known.get(case.id.as_str())) {
            (false, None) => {
                failures.push_str("UNEXPECTED DIVERGENCE (fix it, or list it with a reason)\n");
                failures.push_str(&describe(case, &message, &diffs));
            }
            (true, Some(reason)) => {
                let _ = writeln!(
                    failures,
                    "STALE divergences.json ENTRY: {} now matches vLLM; remove it \
                     (reason was: {reason})",
                    case.id
                );
            }
            _ => {}
        }
    }
    assert!(failures.is_empty(), "conformance with vLLM:\n{failures}");
}

/// Prints every difference, listed or not (`cargo test --test conformance
/// -- --nocapture report`).
#[test]
fn report() {
    for case in &cases() {
        let message = ours(case);
        let diffs = differences(case, &message);
        if !diffs.is_empty() {
            print!("{}", describe(case, &message, &diffs));
        }
    }
}

/// Where vLLM's streaming and non-streaming paths disagree, we do not: any
/// split of every case gives exactly `parse()`'s message (which holds no
/// call whose arguments could not be read: the stream with
/// `unreadable_calls_as_content`).
#[test]
fn stream_equals_parse_for_every_case() {
    for case in &cases() {
        let whole = parser_for(case, ValueTermination::default()).parse(&case.text);
        let mut parser = builder_for(case, ValueTermination::default())
            .unreadable_calls_as_content(true)
            .build();
        for size in [1, 3, 7] {
            let events = common::chunked(&mut parser, case.text.as_bytes(), size);
            let context = format!("{} at chunk size {size}", case.id);
            common::check_contract(&events, &context);
            assert_eq!(common::message_of(&events), whole, "{context}");
        }
    }
}

#[test]
fn every_call_has_json_object_arguments() {
    for case in &cases() {
        for call in ours(case).tool_calls {
            let value: Value = serde_json::from_str(&call.arguments)
                .unwrap_or_else(|e| panic!("{}: {:?}: {e}", case.id, call.arguments));
            assert!(value.is_object(), "{}: {}", case.id, call.arguments);
        }
    }
}
