//! Throughput benchmarks (criterion): how fast the parser eats model output,
//! one-shot and at every chunk size a server or a client feeds it.
//!
//! Inputs are deterministic synthetic transcripts (`benches/support/
//! transcript/`: a fixed-seed xorshift, no `rand`), so every run and every
//! machine parses the same bytes. Each comes in two sizes, 1 MiB and 10 MiB,
//! to show that the cost per byte does not depend on the length:
//!
//! * `prose`: chat content with no `<` at all: the content fast path.
//! * `code`: content with fenced source code full of `<` that is not a
//!   marker: every `<` starts a marker match that fails.
//! * `tool_dense`: an agentic Qwen3-Coder transcript: prose, large
//!   `write_file` calls whose values are multi-line source code, small calls
//!   with several parameters, in the chat template's layout.
//! * `large_value`: one call whose `content` value is the whole input.
//! * `tool_dense_glm`: the `tool_dense` session in GLM-4.5's layout, parsed
//!   as `glm45`: the same values, only the markup differs, so the two
//!   formats compare per byte.
//! * `tool_dense_hermes`: the same session's calls in Hermes's JSON
//!   (`{"name": …, "arguments": {…}}`, values JSON-escaped, integers as
//!   numbers), parsed as `hermes`: the streaming JSON reader per byte next
//!   to the XML formats' marker scanner.
//! * `tool_dense_openai`: the same calls as gpt-oss's Harmony messages,
//!   parsed as `openai`: headers held and read, then the JSON reader.
//! * `tool_dense_FORMAT`, for every other JSON-argument format (`kimi_k2`,
//!   `deepseek_v31`, …, `xml_function_call`; [`JSON_INPUTS`]): the same
//!   calls in that format's markup (`transcript::JsonLayout`), 1 MiB only,
//!   measured through `push` whole and `push/4` only, to compare the
//!   formats per byte at about a token a chunk without making the run half
//!   an hour longer.
//! * `tool_dense_FORMAT` for the other XML-parameter formats (`seed_oss`,
//!   `minimax_m2`, `deepseek_v32`, `kimi_k3`, `step3`, `xml_invoke`;
//!   [`XML_INPUTS`]): the `tool_dense` session in that format's markup
//!   (`transcript::XmlLayout`), measured as the JSON rows are.
//! * `tool_dense_FORMAT` for the call-syntax formats (`pythonic`, `olmo3`,
//!   `lfm2`, `gemma4`, `functiongemma`; [`CALL_INPUTS`]): the same calls
//!   as Python calls (`write_file(path='…', content='…')`, strings as
//!   Python's `repr` writes them) or Gemma's (`call:write_file{path:<|"|>…
//!   <|"|>,…}`), in that format's wrapper (`transcript::CallLayout`),
//!   checked against `tool_dense_hermes`'s calls and measured as the JSON
//!   rows are.
//! * `tool_dense_minimax_m3`, `tool_dense_cohere_cofl` ([`ELEMENT_INPUTS`]):
//!   the same calls as nested elements (`<invoke name="…">` holding
//!   `<path>…</path>`, or Cohere's `<cofl:value name="path" type="raw">`,
//!   text entity-escaped), checked against `tool_dense`'s calls.
//!
//! Each input is fed through one reused [`Parser`] (`reset()` between
//! iterations, as a server reuses one per response): `one_shot` feeds it
//! whole, `chunk/N` in N-byte pieces (1: the worst case, every marker and
//! UTF-8 character split; 4 and 16: about a token; 64; 4096: a network
//! read). Every event is drained. Each is measured through both APIs:
//! `one_shot` and `chunk/N` iterate the events `feed` returns; `push` and
//! `push/N` hand them to a closure with `feed_with` (no event buffer).
//! `parse_fn/tool_dense` is the free
//! function [`toolcall_stream::parse`]: a new parser per call and the
//! events collected into a `Message`.
//!
//! ```text
//! cargo bench --bench parse                       # everything (about 19 minutes, 2 of them the JSON rows)
//! cargo bench --bench parse -- tool_dense/1MiB    # a name filter
//! python3 scripts/bench_table.py                  # the medians as the tables of docs/performance.md
//! ```
//!
//! Wall-clock figures are noisy on a shared machine; instruction counts are
//! not. `TOOLCALL_BENCH_DUMP=DIR cargo bench --bench parse -- --list` writes
//! the inputs to `DIR/NAME-SIZE.txt` without measuring; then
//!
//! ```text
//! cargo build --release
//! valgrind --tool=callgrind --callgrind-out-file=cg.out \
//!     target/release/toolcall stream --summary --chunk-size 4 DIR/tool_dense-1MiB.txt
//! callgrind_annotate cg.out | head -30
//! ```

use std::hint::black_box;
use std::time::Duration;

use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use toolcall_stream::{parse, Event, Format, Ids, Limits, Parser, ParserBuilder, Tools};

#[path = "support/transcript/mod.rs"]
mod transcript;

use transcript::{CallLayout, JsonLayout, Layout, Transcript, XmlLayout};

const SIZES: [(&str, usize); 2] = [("1MiB", 1 << 20), ("10MiB", 10 << 20)];

const CHUNK_SIZES: [usize; 5] = [1, 4, 16, 64, 4096];

type Generator = fn(usize) -> Transcript;

const INPUTS: [(&str, Generator, Format); 7] = [
    ("prose", transcript::content_only, Format::Qwen3Coder),
    ("code", transcript::content_code, Format::Qwen3Coder),
    ("tool_dense", transcript::mixed, Format::Qwen3Coder),
    ("large_value", transcript::value_heavy, Format::Qwen3Coder),
    ("tool_dense_glm", transcript::mixed_glm, Format::Glm45),
    (
        "tool_dense_hermes",
        transcript::mixed_hermes,
        Format::Hermes,
    ),
    (
        "tool_dense_openai",
        transcript::mixed_harmony,
        Format::OpenAi,
    ),
];

/// The JSON-argument formats without a row in [`INPUTS`]: each one's
/// markup for the `tool_dense` session (`tool_dense_hermes`'s calls, its
/// prose and values), benched as `tool_dense_NAME/1MiB`. xLAM and Llama 3
/// write their marker forms (`<tool_call>[…]</tool_call>`,
/// `<|python_tag|>{…}; {…}`): their bare list or object opens a call only
/// at the start of the output, so one stream could hold one group.
const JSON_INPUTS: [(&JsonLayout, Format); 28] = [
    (&transcript::KIMI_K2, Format::KimiK2),
    (&transcript::DEEPSEEK_V31, Format::DeepSeekV31),
    (&transcript::DEEPSEEK_V3, Format::DeepSeekV3),
    (&transcript::LONGCAT, Format::LongCat),
    (&transcript::INTERNLM, Format::InternLm),
    (&transcript::JAMBA, Format::Jamba),
    (&transcript::JAMBA, Format::HunyuanA13b),
    (&transcript::GRANITE, Format::Granite),
    (&transcript::PHI4_MINI_JSON, Format::Phi4MiniJson),
    (&transcript::MISTRAL, Format::Mistral),
    (&transcript::LLAMA3_JSON, Format::Llama3Json),
    (&transcript::MINIMAX, Format::MiniMax),
    (&transcript::COHERE_COMMAND3, Format::CohereCommand3),
    (&transcript::GRANITE_20B_FC, Format::Granite20bFc),
    (&transcript::XLAM, Format::Xlam),
    (&transcript::APERTUS, Format::Apertus),
    (&transcript::GIGACHAT3, Format::GigaChat3),
    (&transcript::XML_TOOL_USE, Format::XmlToolUse),
    (&transcript::XML_FUNCTION_CALL, Format::XmlFunctionCall),
    (&transcript::ERNIE45, Format::Ernie45),
    (&transcript::NEMOTRON_JSON, Format::NemotronJson),
    (&transcript::OPENPANGU_V2, Format::OpenPanguV2),
    (&transcript::PLAMO3, Format::Plamo3),
    (&transcript::INKLING, Format::Inkling),
    (&transcript::SARASHINA, Format::Sarashina),
    (&transcript::FUNCTIONARY_V31, Format::FunctionaryV31),
    (&transcript::SOLAR_OPEN, Format::SolarOpen),
    (&transcript::FUNCTIONARY_V32, Format::FunctionaryV32),
];

/// The XML-parameter formats without a row in [`INPUTS`]: the
/// `tool_dense` session's calls in each one's markup, benched and checked
/// as [`JSON_INPUTS`] are, against `tool_dense`'s calls.
const XML_INPUTS: [(&XmlLayout, Format); 18] = [
    (&transcript::SEED_OSS, Format::SeedOss),
    (&transcript::MINIMAX_M2, Format::MiniMaxM2),
    (&transcript::DEEPSEEK_V32, Format::DeepSeekV32),
    (&transcript::KIMI_K3, Format::KimiK3),
    (&transcript::XML_INVOKE, Format::XmlInvoke),
    (&transcript::STEP3, Format::Step3),
    (&transcript::SOLAR_OPEN2, Format::SolarOpen2),
    (&transcript::DEEPSEEK_V41, Format::DeepSeekV41),
    (&transcript::GIGACHAT35, Format::GigaChat35),
    (&transcript::HY_V3, Format::HyV3),
    (&transcript::HY_V4, Format::HyV4),
    (&transcript::IQUEST_Q1, Format::IquestQ1),
    (&transcript::TELECHAT4, Format::TeleChat4),
    (&transcript::K2_HORIZON, Format::K2Horizon),
    (&transcript::GLM, Format::PoolsideV1),
    (&transcript::DOTS, Format::Dots),
    (&transcript::MUSE, Format::Muse),
    (&transcript::MINICPM5, Format::MiniCpm5),
];

/// The call-syntax formats: `tool_dense_hermes`'s calls as Python calls
/// or Gemma's `call:NAME{…}`, benched and checked as [`JSON_INPUTS`] are.
/// `pythonic` writes its bare list, which opens calls at a line's start.
const CALL_INPUTS: [(&CallLayout, Format); 5] = [
    (&transcript::PYTHONIC, Format::Pythonic),
    (&transcript::OLMO3, Format::Olmo3),
    (&transcript::LFM2, Format::Lfm2),
    (&transcript::GEMMA4, Format::Gemma4),
    (&transcript::FUNCTIONGEMMA, Format::FunctionGemma),
];

/// The nested-element formats: the session's calls as elements, whose
/// integers are text like the XML formats' (no schema types them), so
/// checked against `tool_dense`'s calls.
const ELEMENT_INPUTS: [(&CallLayout, Format); 2] = [
    (&transcript::MINIMAX_M3, Format::MiniMaxM3),
    (&transcript::COHERE_COFL, Format::CohereCofl),
];

/// The chunk sizes [`JSON_INPUTS`] are pushed in, besides whole.
const JSON_CHUNK_SIZES: [usize; 1] = [4];

fn parser(format: Format) -> Parser {
    parser_builder(format).build()
}

fn parser_builder(format: Format) -> ParserBuilder {
    // A 10 MiB transcript is many responses' worth of calls: lift the
    // per-stream bound so that all of them are parsed as calls.
    let mut limits = Limits::default();
    limits.max_calls = usize::MAX;
    // Sequential ids: no hashing per call, identical output every run.
    Parser::builder()
        .format(format)
        .ids(Ids::sequential("call_"))
        .limits(limits)
}

/// Feeds `input` in `chunk`-byte pieces and hands every event to
/// `black_box`, as a consumer would look at each; returns the number of
/// events.
fn stream(parser: &mut Parser, input: &[u8], chunk: usize) -> usize {
    parser.reset();
    let mut events = 0;
    for piece in input.chunks(chunk) {
        for event in parser.feed(piece) {
            black_box(event);
            events += 1;
        }
    }
    for event in parser.finish() {
        black_box(event);
        events += 1;
    }
    events
}

/// [`stream`] through the push API: every event to a closure.
fn push(parser: &mut Parser, input: &[u8], chunk: usize) -> usize {
    parser.reset();
    let mut events = 0;
    let mut consume = |event: Event<'_>| {
        black_box(event);
        events += 1;
    };
    for piece in input.chunks(chunk) {
        parser.feed_with(piece, &mut consume);
    }
    parser.finish_with(&mut consume);
    events
}

/// Checks that a generated input parses as intended: the expected number
/// of calls, all complete, no diagnostics, and, without calls, the content
/// back byte for byte. A benchmark of malformed input would measure
/// recovery paths instead.
fn checked(name: &str, format: Format, transcript: Transcript) -> Vec<u8> {
    if let Some(dir) = std::env::var_os("TOOLCALL_BENCH_DUMP") {
        let dir = std::path::PathBuf::from(dir);
        std::fs::create_dir_all(&dir).expect("TOOLCALL_BENCH_DUMP: create dir");
        let path = dir.join(format!("{name}.txt"));
        std::fs::write(&path, &transcript.text).expect("TOOLCALL_BENCH_DUMP: write");
        eprintln!("wrote {}", path.display());
    }
    let message = parser(format).parse(&transcript.text);
    assert_eq!(
        message.tool_calls.len(),
        transcript.calls,
        "{name}: generated calls"
    );
    assert!(
        message.tool_calls.iter().all(|c| c.complete),
        "{name}: incomplete call"
    );
    assert!(
        message.diagnostics.is_empty(),
        "{name}: unexpected diagnostics: {:?}",
        &message.diagnostics[..message.diagnostics.len().min(3)]
    );
    if transcript.calls == 0 {
        assert_eq!(message.content.as_deref(), Some(transcript.text.as_str()));
    }
    transcript.text.into_bytes()
}

fn bench_inputs(c: &mut Criterion) {
    for (name, generate, format) in INPUTS {
        for (size_name, size) in SIZES {
            let input = checked(&format!("{name}-{size_name}"), format, generate(size));
            let mut group = c.benchmark_group(format!("{name}/{size_name}"));
            group
                .throughput(Throughput::Bytes(input.len() as u64))
                .sampling_mode(SamplingMode::Flat)
                .sample_size(10)
                .warm_up_time(Duration::from_millis(500))
                .measurement_time(Duration::from_secs(if size > SIZES[0].1 { 4 } else { 2 }));
            let mut p = parser(format);
            group.bench_function("one_shot", |b| {
                b.iter(|| stream(&mut p, black_box(&input), input.len()))
            });
            for chunk in CHUNK_SIZES {
                group.bench_with_input(BenchmarkId::new("chunk", chunk), &chunk, |b, &chunk| {
                    b.iter(|| stream(&mut p, black_box(&input), chunk))
                });
            }
            group.bench_function("push", |b| {
                b.iter(|| push(&mut p, black_box(&input), input.len()))
            });
            for chunk in CHUNK_SIZES {
                group.bench_with_input(BenchmarkId::new("push", chunk), &chunk, |b, &chunk| {
                    b.iter(|| push(&mut p, black_box(&input), chunk))
                });
            }
            group.finish();
        }
    }
}

/// A message's calls as (name, arguments) pairs.
fn calls(format: Format, input: &[u8]) -> Vec<(String, String)> {
    let message = parser(format).parse(input);
    message
        .tool_calls
        .into_iter()
        .map(|call| (call.name, call.arguments))
        .collect()
}

/// [`JSON_INPUTS`], [`XML_INPUTS`], [`CALL_INPUTS`] and [`ELEMENT_INPUTS`]: 1 MiB each, through `feed_with`,
/// whole and in 4-byte pieces. Each input must parse to the same calls as
/// `tool_dense_hermes` (a JSON or call-syntax format) or `tool_dense` (an XML one), names
/// and arguments (as many as both hold), so that only the markup differs.
fn bench_format_inputs(c: &mut Criterion) {
    let (size_name, size) = SIZES[0];
    let hermes = calls(
        Format::Hermes,
        transcript::mixed_hermes(size).text.as_bytes(),
    );
    let qwen = calls(Format::Qwen3Coder, transcript::mixed(size).text.as_bytes());
    let json = JSON_INPUTS
        .iter()
        .map(|&(layout, format)| (Layout::Json(layout), format, &hermes, "tool_dense_hermes"));
    let xml = XML_INPUTS
        .iter()
        .map(|&(layout, format)| (Layout::Xml(layout), format, &qwen, "tool_dense"));
    let call = CALL_INPUTS
        .iter()
        .map(|&(layout, format)| (Layout::Call(layout), format, &hermes, "tool_dense_hermes"));
    let elements = ELEMENT_INPUTS
        .iter()
        .map(|&(layout, format)| (Layout::Call(layout), format, &qwen, "tool_dense"));
    for (layout, format, expected, like) in json.chain(xml).chain(call).chain(elements) {
        let name = format!("tool_dense_{}", format.name());
        let transcript = transcript::mixed_in(layout, size);
        let input = checked(&format!("{name}-{size_name}"), format, transcript);
        // The transcripts end at the first turn past `size`: one with
        // shorter markup holds a few more calls.
        let same = calls(format, &input)
            .iter()
            .zip(expected)
            .all(|(call, expected)| call == expected);
        assert!(same, "{name}: not the calls of {like}");
        let mut group = c.benchmark_group(format!("{name}/{size_name}"));
        group
            .throughput(Throughput::Bytes(input.len() as u64))
            .sampling_mode(SamplingMode::Flat)
            .sample_size(10)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2));
        let mut p = parser(format);
        group.bench_function("push", |b| {
            b.iter(|| push(&mut p, black_box(&input), input.len()))
        });
        for chunk in JSON_CHUNK_SIZES {
            group.bench_with_input(BenchmarkId::new("push", chunk), &chunk, |b, &chunk| {
                b.iter(|| push(&mut p, black_box(&input), chunk))
            });
        }
        group.finish();
    }
}

fn bench_parse_fn(c: &mut Criterion) {
    let input = checked(
        "tool_dense-1MiB",
        Format::Qwen3Coder,
        transcript::mixed(SIZES[0].1),
    );
    let mut group = c.benchmark_group("parse_fn");
    group
        .throughput(Throughput::Bytes(input.len() as u64))
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    group.bench_function("tool_dense/1MiB", |b| {
        b.iter(|| parse(Format::Qwen3Coder, black_box(&input)))
    });
    group.finish();
}

/// What typed values, strict mode and the partial view cost on the
/// tool-dense transcript at 4-byte chunks (push API): the plain parser, the
/// same with the request's tools (integers typed, held until they end),
/// with strict mode (each call held until it ends), and with
/// `partial_call()` looked at (its arguments' length and closing) after
/// every chunk, as a UI would.
fn bench_typed_and_views(c: &mut Criterion) {
    let input = checked(
        "tool_dense-1MiB",
        Format::Qwen3Coder,
        transcript::mixed(SIZES[0].1),
    );
    let tools = std::sync::Arc::new(Tools::from_json(transcript::TOOLS).unwrap());
    let typed = || parser_builder(Format::Qwen3Coder).tools(tools.clone());
    let typed_message = typed().build().parse(&input);
    assert!(
        typed_message.diagnostics.is_empty(),
        "typed: {:?}",
        &typed_message.diagnostics[..1]
    );
    assert!(
        typed_message
            .tool_calls
            .iter()
            .any(|c| c.arguments.contains("\"timeout\": ")
                && !c.arguments.contains("\"timeout\": \""))
    );
    let mut group = c.benchmark_group("features/tool_dense/1MiB");
    group
        .throughput(Throughput::Bytes(input.len() as u64))
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    let chunk = 4;
    let mut plain = parser(Format::Qwen3Coder);
    group.bench_function("push/4/plain", |b| {
        b.iter(|| push(&mut plain, black_box(&input), chunk))
    });
    let mut typed_parser = typed().build();
    group.bench_function("push/4/typed", |b| {
        b.iter(|| push(&mut typed_parser, black_box(&input), chunk))
    });
    let mut strict = typed().strict(true).build();
    group.bench_function("push/4/typed_strict", |b| {
        b.iter(|| push(&mut strict, black_box(&input), chunk))
    });
    let mut viewed = typed().build();
    group.bench_function("push/4/typed_partial_view", |b| {
        b.iter(|| {
            let parser = &mut viewed;
            parser.reset();
            let mut seen = 0usize;
            let mut consume = |event: Event<'_>| {
                black_box(event);
            };
            for piece in input.chunks(chunk) {
                parser.feed_with(piece, &mut consume);
                if let Some(call) = parser.partial_call() {
                    seen += call.arguments_so_far().len() + call.closing().len();
                }
            }
            parser.finish_with(&mut consume);
            black_box(seen)
        })
    });
    group.finish();
}

criterion_group!(
    benches,
    bench_inputs,
    bench_format_inputs,
    bench_parse_fn,
    bench_typed_and_views
);
criterion_main!(benches);
