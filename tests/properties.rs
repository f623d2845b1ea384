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
//! the JSON formats' generators are in `properties/json.rs`, the
//! call-syntax formats' (Python's, Gemma's) in `properties/call_syntax.rs`;
//! that no byte is lost, unreadable arguments included, is stated in
//! `properties/no_byte_lost.rs`.

mod common;

use common::{check_contract, feed_cut, feed_cut_batches, message_of, one_shot, Api};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use std::fmt::Debug;
use std::ops::Range;
use toolcall_stream::{
    coalesce, DiagnosticKind, Format, Ids, Limits, OwnedEvent, Parser, ParserBuilder, Role,
    ValueTermination,
};

/// Pieces that Qwen3-Coder output is made of, well formed or not.
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

/// Pieces that GLM-4.5 and GLM-4.7 output is made of, well formed or not:
/// the markers, their prefixes (a marker cut short, or split by the
/// generator across pieces), near misses, layout, names, values, UTF-8, and
/// bytes that are not UTF-8 (a lone continuation byte, a character cut
/// short, a byte that never starts one).
const GLM_PIECES: &[&[u8]] = &[
    b"<tool_call>",
    b"</tool_call>",
    b"<arg_key>",
    b"</arg_key>",
    b"<arg_value>",
    b"</arg_value>",
    b"<tool_",
    b"<tool_call",
    b"</tool_",
    b"<arg_",
    b"<arg_key",
    b"</arg_k",
    b"<arg_val",
    b"</arg_value",
    b"</",
    b"<tool_calls>",
    b"</arg_values>",
    b"<think>",
    b"</think>",
    b"<|observation|>",
    b"<",
    b">",
    b"/",
    b"\n",
    b"\n\n",
    b"\r\n",
    b" ",
    b"  ",
    b"\t",
    b"get_weather",
    b"calendar.read",
    b"city",
    b"Paris",
    b"x",
    b"a b",
    b"{\"k\": 1}",
    b"\"q\"",
    b"\\",
    b"&amp;",
    "é".as_bytes(),
    "🌧️".as_bytes(),
    "東京".as_bytes(),
    b"\xff",
    b"\x80",
    b"\xf0\x9f",
];

/// Function names in generated GLM calls (surrounding whitespace is
/// trimmed; a name with inner spaces is not taken for a call).
const GLM_FUNCTIONS: &[&str] = &[
    "get_weather",
    "f",
    "calendar.read",
    "mcp__gmail-cleanup__list_filters",
    " get_weather ",
];

/// Argument keys in generated GLM calls.
const GLM_KEYS: &[&str] = &["city", "path", "a b", "東京", " city ", "x"];

/// Up to `len` pieces, concatenated.
fn soup<T>(pieces: &'static [T], len: Range<usize>) -> impl Strategy<Value = Vec<u8>> + Clone
where
    T: AsRef<[u8]> + Clone + Debug + 'static,
{
    prop::collection::vec(prop::sample::select(pieces), len)
        .prop_map(|p| p.iter().flat_map(|piece| piece.as_ref()).copied().collect())
}

/// Qwen3-Coder marker soup.
fn qwen_output() -> impl Strategy<Value = Vec<u8>> {
    soup(PIECES, 0..48)
}

/// A well-formed Qwen3-Coder call or two, with arbitrary text around and
/// inside values.
fn qwen_calls() -> impl Strategy<Value = Vec<u8>> {
    let value = soup(PIECES, 0..6).prop_map(|v| String::from_utf8(v).unwrap());
    (value.clone(), value.clone(), value, any::<bool>()).prop_map(|(before, v1, v2, two)| {
        let call = |v: &str| {
            format!(
                "<tool_call>\n<function=f>\n<parameter=a>\n{v}\n</parameter>\n\
                 <parameter=b>\n1\n</parameter>\n</function>\n</tool_call>"
            )
        };
        let second = if two { call(&v2) } else { String::new() };
        format!("{before}{}{second}", call(&v1)).into_bytes()
    })
}

/// Qwen3-Coder's output in Seed-OSS's spelling: its wrapper and reasoning
/// tags (near misses such as `<tool_ca` stay Qwen's, a near miss here too).
fn seed_spelling(qwen: Vec<u8>) -> Vec<u8> {
    respell(
        &qwen,
        &[
            (b"tool_call>", b"seed:tool_call>"),
            (b"think>", b"seed:think>"),
        ],
    )
}

/// Qwen3-Coder's output in MiniMax-M2's spelling: names unquoted (the
/// soup's `"q"` piece quotes some), values on lines of their own (verbatim
/// here: the newlines are the values').
fn minimax_spelling(qwen: Vec<u8>) -> Vec<u8> {
    respell(
        &qwen,
        &[
            (b"tool_call>", b"minimax:tool_call>"),
            (b"<function=", b"<invoke name="),
            (b"</function>", b"</invoke>"),
            (b"<parameter=", b"<parameter name="),
        ],
    )
}

/// Qwen3-Coder's output in DSML (DeepSeek V3.2): parameters unquoted
/// (attributes come only after a quoted name), and the soup's `"q"` piece
/// quotes some names, some followed by `string="false"` (a JSON value).
fn dsml_spelling(qwen: Vec<u8>) -> Vec<u8> {
    respell(
        &qwen,
        &[
            (b"<tool_call>", "<｜DSML｜function_calls>".as_bytes()),
            (b"</tool_call>", "</｜DSML｜function_calls>".as_bytes()),
            (b"<function=", "<｜DSML｜invoke name=".as_bytes()),
            (b"</function>", "</｜DSML｜invoke>".as_bytes()),
            (b"<parameter=", "<｜DSML｜parameter name=".as_bytes()),
            (b"</parameter>", "</｜DSML｜parameter>".as_bytes()),
            (b"\"q\"", "\"q\" string=\"false\"".as_bytes()),
        ],
    )
}

/// Qwen3-Coder's output in Kimi K3's XTML: every `>` is a `<|sep|>` (the
/// end of names, and of closers), and the soup's `"q"` piece quotes some
/// names, some followed by `type="integer"` (a JSON value).
fn k3_spelling(qwen: Vec<u8>) -> Vec<u8> {
    respell(
        &qwen,
        &[
            (b"<tool_call>", b"<|open|>tools<|sep|>"),
            (b"</tool_call>", b"<|close|>tools<|sep|>"),
            (b"<function=", b"<|open|>call tool="),
            (b"</function>", b"<|close|>call<|sep|>"),
            (b"<parameter=", b"<|open|>argument key="),
            (b"</parameter>", b"<|close|>argument<|sep|>"),
            (b"<think>", b"<|open|>think<|sep|>"),
            (b"</think>", b"<|close|>think<|sep|>"),
            (b"\"q\"", b"\"q\" type=\"integer\""),
            (b">", b"<|sep|>"),
        ],
    )
}

/// Leaked self-closing calls, `<invoke name="N" args='{…}'/>` (or
/// `<tool name=…>`, or ended by `>` and the closer), among Qwen soup
/// respelled as the leaked `<invoke>` shape, sometimes cut off.
fn invoke_args_calls() -> impl Strategy<Value = Vec<u8>> {
    let element = (
        prop::sample::select(vec!["<invoke name=", "<tool name="]),
        prop::sample::select(vec!["\"shell\"", "'f'"]),
        prop::sample::select(vec![" args=\"", " args='", " args="]),
        json::arguments(),
        any::<bool>(),
        prop::sample::select(vec![
            "\"/>",
            "'/>",
            "/>",
            "\" />",
            "\">\n</invoke>",
            "'></tool>",
        ]),
    )
        .prop_map(|(open, name, attr, args, pretty, end)| {
            format!("{open}{name}{attr}{}{end}", json::written(&args, pretty))
        });
    (
        qwen_output().prop_map(|v| respell(&minimax_spelling(v), INVOKE_BLOCK)),
        prop::collection::vec(element, 1..3),
        any::<bool>(),
        0usize..64,
    )
        .prop_map(|(before, elements, cut, at)| {
            let mut out = before;
            out.extend(elements.concat().into_bytes());
            if cut {
                out.truncate(out.len().saturating_sub(at));
            }
            out
        })
}

/// DeepSeek V4's block, after [`dsml_spelling`].
const V4_BLOCK: &[(&[u8], &[u8])] = &[("｜function_calls>".as_bytes(), "｜tool_calls>".as_bytes())];

/// DeepSeek V4.1's spaced tags, after [`dsml_spelling`]; the block's
/// opener also without its `>` before a line end, and some invokes with
/// their bars doubled.
const V41_SPACED: &[(&[u8], &[u8])] = &[
    (
        "｜DSML｜function_calls>\n".as_bytes(),
        "｜DSML｜ calls\n".as_bytes(),
    ),
    (
        "｜DSML｜function_calls>".as_bytes(),
        "｜DSML｜ calls>".as_bytes(),
    ),
    (
        "<｜DSML｜invoke name=\"".as_bytes(),
        "<｜｜DSML｜｜ invoke name=\"".as_bytes(),
    ),
    ("｜DSML｜invoke".as_bytes(), "｜DSML｜ invoke".as_bytes()),
    (
        "｜DSML｜parameter".as_bytes(),
        "｜DSML｜ parameter".as_bytes(),
    ),
];

/// GigaChat 3.5's spelling of V4's DSML.
const GCML: &[(&[u8], &[u8])] = &[("｜DSML｜".as_bytes(), "｜GCML｜".as_bytes())];

/// The leaked `<invoke>` shape's block, after [`minimax_spelling`].
const INVOKE_BLOCK: &[(&[u8], &[u8])] = &[(b"minimax:tool_call>", b"function_calls>")];

/// The generic `<tool name=…>` element in place of `<invoke name=…>`, after
/// [`INVOKE_BLOCK`].
const TOOL_ELEMENT: &[(&[u8], &[u8])] = &[
    (b"<invoke name=", b"<tool name="),
    (b"</invoke>", b"</tool>"),
];
/// Qwen3-Coder's output in Step-3's spelling: each function in an item
/// (`<｜tool_call_begin｜>function<｜tool_sep｜>` … `<｜tool_call_end｜>`), and
/// the soup's near misses as a lone item opener (`<tool_`), a lone
/// separator (`<func`) and a cut closer (`</param`).
fn step3_spelling(qwen: Vec<u8>) -> Vec<u8> {
    respell(
        &qwen,
        &[
            (b"<tool_call>", "<｜tool_calls_begin｜>".as_bytes()),
            (b"</tool_call>", "<｜tool_calls_end｜>".as_bytes()),
            (
                b"<function=",
                "<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=".as_bytes(),
            ),
            (
                b"</function>",
                "</steptml:invoke><｜tool_call_end｜>".as_bytes(),
            ),
            (b"<parameter=", b"<steptml:parameter name="),
            (b"</parameter>", b"</steptml:parameter>"),
            (b"<tool_", "<｜tool_call_begin｜>".as_bytes()),
            (b"<func", "<｜tool_sep｜>".as_bytes()),
            (b"</param", b"</steptml:param"),
        ],
    )
}

/// `bytes` with each `from` replaced by its `to`, left to right.
fn respell(bytes: &[u8], pairs: &[(&[u8], &[u8])]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + 16);
    let mut rest = bytes;
    while let Some(&b) = rest.first() {
        match pairs.iter().find(|(from, _)| rest.starts_with(from)) {
            Some((from, to)) => {
                out.extend_from_slice(to);
                rest = &rest[from.len()..];
            }
            None => {
                out.push(b);
                rest = &rest[1..];
            }
        }
    }
    out
}

/// GLM marker soup.
fn glm_output() -> impl Strategy<Value = Vec<u8>> {
    soup(GLM_PIECES, 0..48)
}

/// One to three well-formed GLM calls of zero to three arguments, with
/// arbitrary text before, between and inside values; each call laid out
/// as GLM-4.5 writes it (a line per key and value) or as GLM-4.7 does
/// (no newlines). Both formats read both layouts. One output in four is
/// cut off at a random byte, as a stream that stops mid-call.
fn glm_calls() -> impl Strategy<Value = Vec<u8>> {
    let text = soup(GLM_PIECES, 0..6);
    let argument = (prop::sample::select(GLM_KEYS), text.clone());
    let call = (
        prop::sample::select(GLM_FUNCTIONS),
        prop::collection::vec(argument, 0..4),
        any::<bool>(),
        text.clone(),
    );
    let cut = prop::option::weighted(0.25, any::<prop::sample::Index>());
    (text, prop::collection::vec(call, 1..4), cut).prop_map(|(before, calls, cut)| {
        let mut out = before;
        for (name, arguments, lines, after) in calls {
            let nl: &[u8] = if lines { b"\n" } else { b"" };
            out.extend_from_slice(b"<tool_call>");
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(nl);
            for (key, value) in arguments {
                out.extend_from_slice(b"<arg_key>");
                out.extend_from_slice(key.as_bytes());
                out.extend_from_slice(b"</arg_key>");
                out.extend_from_slice(nl);
                out.extend_from_slice(b"<arg_value>");
                out.extend_from_slice(&value);
                out.extend_from_slice(b"</arg_value>");
                out.extend_from_slice(nl);
            }
            out.extend_from_slice(b"</tool_call>");
            out.extend_from_slice(&after);
        }
        if let Some(cut) = cut {
            out.truncate(cut.index(out.len()));
        }
        out
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
    source: impl Strategy<Value = Vec<u8>>,
) -> impl Strategy<Value = (Vec<u8>, Vec<usize>)> {
    source.prop_flat_map(|bytes| {
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

/// 256 cases per property and format in CI; `PROPTEST_CASES=N` for a
/// longer run.
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

/// A parser with sequential ids, so that two runs give identical events.
fn build(format: Format, mode: ValueTermination, retain: bool, limits: Option<Limits>) -> Parser {
    builder_of(format, mode, retain, limits).build()
}

/// [`build`]'s builder.
fn builder_of(
    format: Format,
    mode: ValueTermination,
    retain: bool,
    limits: Option<Limits>,
) -> ParserBuilder {
    let builder = Parser::builder()
        .format(format)
        .value_termination(mode)
        .retain_arguments(retain)
        .ids(Ids::sequential("call_"));
    match limits {
        Some(limits) => builder.limits(limits),
        None => builder,
    }
}

/// Split invariance and the contract, with and without
/// `unreadable_calls_as_content`; `parse` is the stream with it.
fn check_split_with(
    builder: ParserBuilder,
    input: &[u8],
    cuts: &[usize],
) -> Result<(), TestCaseError> {
    let mut parser = builder.clone().build();
    let whole = one_shot(&mut parser, input);
    check_contract(&whole, "one shot");
    let split = feed_cut(&mut parser, input, cuts);
    check_contract(&split, "split");
    prop_assert_eq!(coalesce(split.clone()), coalesce(whole));
    let mut whole_output = builder.unreadable_calls_as_content(true).build();
    let gated = feed_cut(&mut whole_output, input, cuts);
    check_contract(&gated, "split, unreadable calls as content");
    prop_assert_eq!(
        coalesce(gated.clone()),
        coalesce(one_shot(&mut whole_output, input))
    );
    let message = parser.parse(input);
    prop_assert_eq!(&message, &message_of(&gated));
    check_spans(&message, input)
}

/// Diagnostics point inside the input, between characters.
fn check_spans(message: &toolcall_stream::Message, input: &[u8]) -> Result<(), TestCaseError> {
    let text = std::str::from_utf8(input).ok();
    for d in &message.diagnostics {
        prop_assert!(d.span.start <= d.span.end, "{:?}", d);
        prop_assert!(d.span.end as usize <= input.len(), "{:?}", d);
        if let Some(text) = text {
            prop_assert!(
                text.get(d.span.range()).is_some(),
                "{:?} cuts a character",
                d
            );
        }
    }
    Ok(())
}

/// A strict parser, or one that rejects every call (no tool is declared
/// and unknown tools are content).
fn build_gated(format: Format, mode: ValueTermination, strict: bool) -> ParserBuilder {
    let builder = Parser::builder()
        .format(format)
        .value_termination(mode)
        .ids(Ids::sequential("call_"));
    if strict {
        builder.strict(true)
    } else {
        builder
            .tools(std::sync::Arc::new(
                toolcall_stream::Tools::from_json("[]").unwrap(),
            ))
            .unknown_tools_as_content(true)
    }
}

/// Feeds `input` cut at `cuts`; after each chunk, the partial view must be
/// a valid JSON object whose text (less its closing) the call's final
/// arguments start with, and whose completed values the final ones agree
/// with (an open string value may be a prefix of the final one; an open
/// held value is shown raw, so it is not compared).
fn check_partial_views(
    mut parser: Parser,
    input: &[u8],
    cuts: &[usize],
) -> Result<(), TestCaseError> {
    use serde_json::{Map, Value};
    #[derive(Default)]
    struct Seen {
        finals: Vec<Option<String>>,
        open_param: Option<String>,
        duplicates: bool,
    }
    impl Seen {
        fn record(&mut self, events: Vec<OwnedEvent>) {
            for event in events {
                match event {
                    OwnedEvent::ToolCallEnd {
                        index, arguments, ..
                    } => {
                        self.finals.resize(self.finals.len().max(index + 1), None);
                        self.finals[index] = arguments;
                        self.open_param = None;
                    }
                    OwnedEvent::ParameterStart { name, .. } => self.open_param = Some(name),
                    OwnedEvent::ParameterEnd { .. } => self.open_param = None,
                    OwnedEvent::Diagnostic {
                        kind: DiagnosticKind::DuplicateParameter,
                        ..
                    } => {
                        self.duplicates = true;
                    }
                    _ => {}
                }
            }
        }
    }
    let mut seen = Seen::default();
    let mut views: Vec<(usize, String, String, Option<String>)> = Vec::new();
    let mut start = 0;
    for end in cuts.iter().copied().chain([input.len()]) {
        let end = end.max(start);
        let events: Vec<OwnedEvent> = parser
            .feed(&input[start..end])
            .map(|e| e.into_owned())
            .collect();
        start = end;
        seen.record(events);
        if let Some(view) = parser.partial_call() {
            let text = view.arguments();
            let parsed: Value = serde_json::from_str(&text)
                .map_err(|e| TestCaseError::fail(format!("partial view {text:?}: {e}")))?;
            prop_assert!(parsed.is_object(), "{}", text);
            views.push((
                view.index,
                view.arguments_so_far().to_owned(),
                text,
                seen.open_param.clone(),
            ));
        }
    }
    let events: Vec<OwnedEvent> = parser.finish().map(|e| e.into_owned()).collect();
    seen.record(events);
    for (index, so_far, text, open) in views {
        let last = seen.finals.get(index).cloned().flatten();
        let last = last.expect("a call seen open ends");
        prop_assert!(
            last.starts_with(&so_far),
            "{:?} is not a prefix of {:?}",
            so_far,
            last
        );
        if seen.duplicates {
            continue;
        }
        let view: Map<String, Value> = serde_json::from_str(&text).unwrap();
        let last: Map<String, Value> = serde_json::from_str(&last).unwrap();
        for (key, value) in &view {
            let done = &last[key];
            let open_string = matches!((done, value), (Value::String(d), Value::String(v)) if d.starts_with(v.as_str()));
            let held = open.as_deref() == Some(key.as_str()) && !done.is_string();
            prop_assert!(
                done == value || open_string || held,
                "{}: {} vs {}",
                key,
                value,
                done
            );
        }
    }
    Ok(())
}

/// The properties, for one format: `$soup` and `$calls` are its generators
/// of marker soup and of well-formed calls.
/// Whether `input` holds messages of a format with headers (gpt-oss): a
/// message's header and end are structure even when it is not a call, so
/// such input does not come back as content byte for byte.
fn has_messages(format: Format, input: &[u8]) -> bool {
    if format == Format::FunctionaryV32 {
        // Headers end at a line's end: a content message's (`all`), which
        // is structure.
        return input.windows(4).any(|w| w == b"all\n");
    }
    headed(format)
        && format.markers().any(|(role, marker)| {
            role == Role::ArgsOpen && input.windows(marker.len()).any(|w| w == marker.as_bytes())
        })
}

/// Formats whose output is messages with headers (gpt-oss, Inkling).
fn headed(format: Format) -> bool {
    matches!(format, Format::OpenAi | Format::Inkling | Format::Muse)
}

/// The input as content, without the markers a format drops wherever they
/// are outside calls: the model's end of turn and, in formats with
/// headers, the ends of messages.
fn as_content(format: Format, input: &[u8]) -> String {
    let mut text = String::from_utf8_lossy(input).into_owned();
    for (role, marker) in format.markers() {
        // (Muse's `FuncClose` is a marked-up call's, no message's end.)
        let ends = headed(format)
            && (role == Role::BodyClose || (role == Role::FuncClose && format != Format::Muse));
        if role == Role::EndOfTurn || ends {
            text = text.replace(marker, "");
        }
    }
    text
}

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

#[path = "properties/json.rs"]
mod json;

#[path = "properties/no_byte_lost.rs"]
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

#[path = "properties/call_syntax.rs"]
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

/// GLM's output in Solar Open2's tokens: `<|tool_arg:value|>` ends the key
/// and opens the value, where GLM writes two markers.
fn solar_open2_spelling(glm: Vec<u8>) -> Vec<u8> {
    respell(
        &glm,
        &[
            (b"</tool_call>", b"<|tool_call:end|>"),
            (b"<tool_call>", b"<|tool_call:start|>"),
            (b"<arg_key>", b"<|tool_arg:start|>"),
            (b"</arg_key>", b"<|tool_arg:value|>"),
            (b"<arg_value>", b""),
            (b"</arg_value>", b"<|tool_arg:end|>"),
        ],
    )
}
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

#[path = "properties/elements.rs"]
mod elements;
properties!(
    minimax_m3,
    Format::MiniMaxM3,
    elements::soup(FORMAT),
    elements::calls(FORMAT)
);

/// GLM's output in Tencent Hy's block, every marker with the checkpoint's
/// suffix: `<tool_call>` opens a block and its call, `</tool_call>` closes
/// both (Hy3 reads a name without `<tool_sep>` as Hy4 does).
fn hy_spelling(glm: Vec<u8>, suffix: &str) -> Vec<u8> {
    let tag = |name: &str| format!("<{name}{suffix}>").into_bytes();
    let open = [tag("tool_calls"), tag("tool_call")].concat();
    let close = [tag("/tool_call"), tag("/tool_calls")].concat();
    let pairs: Vec<(Vec<u8>, Vec<u8>)> = vec![
        (b"</tool_call>".to_vec(), close),
        (b"<tool_call>".to_vec(), open),
        (b"</arg_key>".to_vec(), tag("/arg_key")),
        (b"<arg_key>".to_vec(), tag("arg_key")),
        (b"</arg_value>".to_vec(), tag("/arg_value")),
        (b"<arg_value>".to_vec(), tag("arg_value")),
        (b"</think>".to_vec(), tag("/think")),
        (b"<think>".to_vec(), tag("think")),
    ];
    let pairs: Vec<(&[u8], &[u8])> = pairs
        .iter()
        .map(|(a, b)| (a.as_slice(), b.as_slice()))
        .collect();
    respell(&glm, &pairs)
}
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

/// Qwen3-Coder's output in Muse's ATEM tags, its wrapper a function's
/// message (a header before it, `<|eom|>` after it).
fn muse_spelling(qwen: Vec<u8>) -> Vec<u8> {
    respell(
        &qwen,
        &[
            (
                b"<tool_call>",
                b"<|start|>assistant to=f<|message|><atem:function_calls>",
            ),
            (b"</tool_call>", b"</atem:function_calls><|eom|>"),
            (b"<function=", b"<atem:invoke name="),
            (b"</function>", b"</atem:invoke>"),
            (b"<parameter=", b"<atem:parameter name="),
            (b"</parameter>", b"</atem:parameter>"),
        ],
    )
}

/// GLM's output in K2-Horizon's `ifm|` tags: `<tool_call>` opens a group
/// and its call, `</tool_call>` closes both.
const K2_HORIZON: &[(&[u8], &[u8])] = &[
    (b"</tool_call>", b"</ifm|tool_call></ifm|tool_calls>"),
    (b"<tool_call>", b"<ifm|tool_calls><ifm|tool_call>"),
    (b"</arg_key>", b"</ifm|arg_key>"),
    (b"<arg_key>", b"<ifm|arg_key>"),
    (b"</arg_value>", b"</ifm|arg_value>"),
    (b"<arg_value>", b"<ifm|arg_value>"),
    (b"</think>", b"</ifm|think>"),
    (b"<think>", b"<ifm|think>"),
];

properties!(
    k2_horizon_typed,
    Format::K2Horizon,
    glm_output().prop_map(|v| respell(&v, K2_HORIZON_TYPED)),
    glm_calls().prop_map(|v| respell(&v, K2_HORIZON_TYPED))
);

/// K2-Horizon's `xml_typed` dialect: a type after every key (`string`:
/// a value the ladder types may become a JSON string, which these
/// properties do not expect of a string; the fixtures type the others).
const K2_HORIZON_TYPED: &[(&[u8], &[u8])] = &[
    (b"</tool_call>", b"</ifm|tool_call></ifm|tool_calls>"),
    (b"<tool_call>", b"<ifm|tool_calls><ifm|tool_call>"),
    (
        b"</arg_key>",
        b"</ifm|arg_key><ifm|arg_type>string</ifm|arg_type>",
    ),
    (b"<arg_key>", b"<ifm|arg_key>"),
    (b"</arg_value>", b"</ifm|arg_value>"),
    (b"<arg_value>", b"<ifm|arg_value>"),
];

properties!(
    k2_horizon_json,
    Format::K2Horizon,
    json_soup(Format::Hermes).prop_map(|v| respell(&v, K2_HORIZON_JSON)),
    json_calls(Format::Hermes).prop_map(|v| respell(&v, K2_HORIZON_JSON))
);

/// Hermes's calls as K2-Horizon's `json` dialect: a group around each
/// body.
const K2_HORIZON_JSON: &[(&[u8], &[u8])] = &[
    (b"</tool_call>", b"</ifm|tool_call></ifm|tool_calls>"),
    (b"<tool_call>", b"<ifm|tool_calls><ifm|tool_call>"),
];

/// GLM's output in IQuest Q1's wrapper.
const IQUEST: &[(&[u8], &[u8])] = &[
    (b"</tool_call>", b"</iquest_tool_call>"),
    (b"<tool_call>", b"<iquest_tool_call>"),
];

/// GLM's output with TeleChat4's key and value tags.
const TELECHAT: &[(&[u8], &[u8])] = &[
    (b"</arg_key>", b"</param_key>"),
    (b"<arg_key>", b"<param_key>"),
    (b"</arg_value>", b"</param_value>"),
    (b"<arg_value>", b"<param_value>"),
];

/// Value texts for typed parameters: each type's forms, its near misses,
/// and text that fits no type.
const TYPED_VALUES: &[&str] = &[
    "3",
    " 7 ",
    "-0",
    "007",
    "1_000",
    "2.5",
    "1.0",
    "1e3",
    "1e400",
    "nan",
    "inf",
    "True",
    "false",
    "0",
    "yes",
    "null",
    "None",
    "[1, 2]",
    "[1,",
    "{\"k\": [1, {\"j\": null}]}",
    "{'k': True}",
    "",
    "abc",
    "12345678901234567890123456789012345678901",
    "é",
    "</parameter>",
];

/// Tools for the typed generators: one parameter per kind of type set.
const TYPED_TOOLS: &str = r#"[{"type": "function", "function": {"name": "f", "parameters": {
    "type": "object",
    "properties": {
        "i": {"type": "integer"}, "n": {"type": ["number", "null"]}, "b": {"type": "boolean"},
        "o": {"type": "object"}, "a": {"type": "array"}, "u": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        "s": {"type": "string"}
    },
    "required": ["i"]}}}]"#;

const TYPED_KEYS: &[&str] = &["i", "n", "b", "o", "a", "u", "s", "zz"];

/// Calls of tool `f` with typed parameters, in the format's layout.
fn typed_calls(format: Format) -> impl Strategy<Value = Vec<u8>> {
    let param = (
        prop::sample::select(TYPED_KEYS),
        prop::sample::select(TYPED_VALUES),
    );
    (prop::collection::vec(param, 0..6), any::<bool>()).prop_map(move |(params, two)| {
        let mut call = String::new();
        if format == Format::Qwen3Coder {
            call.push_str("<tool_call>\n<function=f>\n");
            for (key, value) in &params {
                call.push_str(&format!("<parameter={key}>\n{value}\n</parameter>\n"));
            }
            call.push_str("</function>\n</tool_call>");
        } else {
            call.push_str("<tool_call>f\n");
            for (key, value) in &params {
                call.push_str(&format!(
                    "<arg_key>{key}</arg_key>\n<arg_value>{value}</arg_value>\n"
                ));
            }
            call.push_str("</tool_call>");
        }
        let text = if two {
            format!("Sure.\n{call}\n{call}")
        } else {
            call
        };
        text.into_bytes()
    })
}

fn typed_parser(format: Format, strict: bool, python_literals: bool) -> ParserBuilder {
    Parser::builder()
        .format(format)
        .tools(std::sync::Arc::new(
            toolcall_stream::Tools::from_json(TYPED_TOOLS).unwrap(),
        ))
        .strict(strict)
        .python_literals(python_literals)
        .ids(Ids::sequential("call_"))
}

fn typed_format() -> impl Strategy<Value = Format> {
    prop_oneof![
        Just(Format::Qwen3Coder),
        Just(Format::Glm45),
        Just(Format::Glm47)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        rng_seed: rng_seed(),
        ..ProptestConfig::default()
    })]

    /// Typed values: split invariance, the contract (arguments deltas are
    /// the final arguments and valid JSON), `parse` agreeing, in and out of
    /// strict mode and with Python literals on or off.
    #[test]
    fn typed_values_keep_split_invariance_and_the_contract(
        format in typed_format(),
        (input, cuts) in typed_format().prop_flat_map(|f| input_and_cuts(typed_calls(f))),
        strict in any::<bool>(),
        python_literals in any::<bool>(),
    ) {
        check_split_with(typed_parser(format, strict, python_literals), &input, &cuts)?;
    }

    #[test]
    fn typed_partial_views_are_json_and_agree_with_the_final_arguments(
        format in typed_format(),
        (input, cuts) in typed_format().prop_flat_map(|f| input_and_cuts(typed_calls(f))),
    ) {
        check_partial_views(typed_parser(format, false, false).build(), &input, &cuts)?;
    }

    /// A value whose text fits none of its types never drops the call: every
    /// generated parameter with a value is in the arguments.
    #[test]
    fn a_value_that_fails_its_type_never_drops_the_call(
        input in typed_calls(Format::Qwen3Coder),
    ) {
        let lenient = typed_parser(Format::Qwen3Coder, false, false).build().parse(&input);
        let untyped = Parser::builder().ids(Ids::sequential("call_")).build().parse(&input);
        prop_assert_eq!(lenient.tool_calls.len(), untyped.tool_calls.len());
        for (typed, plain) in lenient.tool_calls.iter().zip(&untyped.tool_calls) {
            let typed: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(&typed.arguments).unwrap();
            let plain: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(&plain.arguments).unwrap();
            prop_assert_eq!(
                typed.keys().collect::<Vec<_>>(),
                plain.keys().collect::<Vec<_>>()
            );
        }
    }
}

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

/// Qwen3-Coder's output in dots' block, with MiniMax-M2's invokes.
fn dots_spelling(qwen: Vec<u8>) -> Vec<u8> {
    respell(
        &qwen,
        &[
            (b"tool_call>", b"dots_function_call>"),
            (b"<function=", b"<invoke name="),
            (b"</function>", b"</invoke>"),
            (b"<parameter=", b"<parameter name="),
        ],
    )
}

properties!(
    minicpm5,
    Format::MiniCpm5,
    qwen_output().prop_map(minicpm5_spelling),
    qwen_calls().prop_map(minicpm5_spelling)
);

/// Qwen3-Coder's output in MiniCPM5's spelling: functions with no wrapper
/// (the wrapper's tags become a CDATA section's, in values and out), the
/// `<arguments>` wrapper and misspelled openers in place of other pieces.
fn minicpm5_spelling(qwen: Vec<u8>) -> Vec<u8> {
    respell(
        &qwen,
        &[
            (b"<tool_call>", b"<![CDATA["),
            (b"</tool_call>", b"]]>"),
            (b"<function=", b"<function name="),
            (b"<parameter=", b"<param name="),
            (b"</parameter>", b"</param>"),
            (b"<tool_", b"<arguments>"),
            (b"&amp;", b"</arguments>"),
            (b"a b", "<param\u{120}name=".as_bytes()),
            (b"<func", b"<functionname="),
        ],
    )
}

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
