//! Generators for the formats that write calls in a call syntax: Python's
//! (`pythonic`, `olmo3`, `lfm2`: `f(city='Paris', n=[1, (2,)])`) and
//! Gemma's (`gemma4`, `functiongemma`: `call:f{city:<|"|>Paris<|"|>,n:3}`).
//! Marker soup (the format's markers, their near misses, the syntax's
//! tokens), and well-formed calls whose arguments are random literals:
//! Python strings in every quoting (one and three quotes of either kind,
//! raw, `u`-prefixed, `\u` escapes) holding closers, commas, quotes of the
//! other kind and markers; numbers in Python's spellings; nested lists,
//! tuples and dicts; Gemma objects whose delimited strings hold `}`, `]`
//! and the closers. Text around them, and one output in four cut off.
//!
//! Also the properties that such a string comes back intact, whatever
//! splits the text.

use super::*;
use serde_json::{json, Map, Value};

/// Tokens of Python's call syntax and literals.
const PYTHON_PIECES: &[&str] = &[
    "[",
    "]",
    "(",
    ")",
    "{",
    "}",
    "=",
    ",",
    ", ",
    ":",
    "'",
    "\"",
    "'''",
    "\"\"\"",
    "r'",
    "R\"",
    "u'",
    "\\",
    "\\'",
    "\\\"",
    "\\n",
    "\\x41",
    "\\u00e9",
    "True",
    "False",
    "None",
    "null",
    "1_000",
    "0x1F",
    "-2.5e3",
    ".5",
    "42",
    "f(",
    "get_weather(",
    "get_time()",
    "city=",
    "city='Paris'",
    "n=3",
    "=(",
    "[f(a=1)]",
    " ",
    "\n",
    "\t",
    "é",
    "🌧️",
    "東京",
    "text ",
];

/// Tokens of Gemma's call syntax.
const GEMMA_PIECES: &[&str] = &[
    "call:",
    "call:f{",
    "call:get_weather",
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    "city:",
    "n:3",
    "true",
    "null",
    "-1.5e3",
    "cm",
    "<|\"|>",
    "<|\"",
    "<escape>",
    "<escape",
    "<esc",
    "\"",
    "'",
    "\\",
    " ",
    "\n",
    "é",
    "🌧️",
    "東京",
    "text ",
];

/// The format's markers, and a near miss of each.
fn markers(format: Format) -> &'static [&'static str] {
    match format {
        Format::Pythonic => &[
            "<|python_start|>",
            "<|python_end|>",
            "<|python_",
            "\n[",
            "\n[f(",
            "[get_weather(city='Paris'), get_time()]",
        ],
        Format::Olmo3 => &[
            "<function_calls>",
            "</function_calls>",
            "<function_",
            "</function",
            "<think>",
            "</think>",
        ],
        Format::Lfm2 => &[
            "<|tool_call_start|>",
            "<|tool_call_end|>",
            "<|tool_call",
            "<think>",
            "</think>",
        ],
        Format::Gemma4 => &[
            "<|tool_call>",
            "<tool_call|>",
            "<|tool_",
            "<tool_call",
            "<|channel>thought\n",
            "<channel|>",
            "<|channel>",
        ],
        Format::FunctionGemma => &[
            "<start_function_call>",
            "<end_function_call>",
            "<start_function",
            "<end_function",
        ],
        other => panic!("{other} does not write a call syntax"),
    }
}

fn is_python(format: Format) -> bool {
    matches!(format, Format::Pythonic | Format::Olmo3 | Format::Lfm2)
}

/// Gemma's string delimiter in `format`.
fn delimiter(format: Format) -> &'static str {
    match format {
        Format::Gemma4 => "<|\"|>",
        _ => "<escape>",
    }
}

/// Marker soup for `format`.
pub fn soup(format: Format) -> impl Strategy<Value = Vec<u8>> + Clone {
    let syntax = if is_python(format) {
        PYTHON_PIECES
    } else {
        GEMMA_PIECES
    };
    let pieces = prop::sample::select(
        markers(format)
            .iter()
            .chain(syntax)
            .copied()
            .collect::<Vec<_>>(),
    );
    prop::collection::vec(pieces, 0..48).prop_map(|p| p.concat().into_bytes())
}

/// What strings hold: closers, commas, both quotes, backslashes, line
/// ends, markers of every call-syntax format, non-ASCII text.
const STRING_PIECES: &[&str] = &[
    ")",
    "]",
    "}",
    "(",
    "[",
    "{",
    ",",
    ", ",
    "'",
    "\"",
    "'''",
    "\\",
    "\n",
    "\r",
    "\t",
    "\u{1}",
    "=",
    ":",
    "f(a=1), g()",
    "</function_calls>",
    "<|tool_call_end|>",
    "<|python_end|>",
    "<tool_call|>",
    "<end_function_call>",
    "<|\"",
    "<escape",
    "<|\"|",
    "call:f{",
    "é",
    "😀",
    "東京",
    "a",
    " ",
];

fn string() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(STRING_PIECES), 0..6).prop_map(|p| p.concat())
}

/// `text` escaped for a Python string closed by `quote`, line ends kept
/// where `lines` (a triple-quoted string); non-ASCII as `\u` escapes where
/// `unicode`.
fn python_escaped(text: &str, quote: char, lines: bool, unicode: bool) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' if lines => out.push('\n'),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push('\t'),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if unicode && (c as u32) > 0xffff => out.push_str(&format!("\\U{:08x}", c as u32)),
            c if unicode && !c.is_ascii() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// `text` as a Python string literal in quoting `style` (any number: it is
/// taken modulo the styles); a raw string only where one can hold it.
pub fn python_string(text: &str, style: u8) -> String {
    let raw_fits = |quote: char| {
        !text.contains([quote, '\n', '\r'])
            && !text.ends_with('\\')
            && !text.contains(|c: char| (c as u32) < 0x20 && c != '\t')
    };
    match style % 8 {
        0 => format!("'{}'", python_escaped(text, '\'', false, false)),
        1 => format!("\"{}\"", python_escaped(text, '"', false, false)),
        2 => format!("'''{}'''", python_escaped(text, '\'', true, false)),
        3 => format!("\"\"\"{}\"\"\"", python_escaped(text, '"', true, false)),
        4 if raw_fits('\'') => format!("r'{text}'"),
        5 if raw_fits('"') => format!("R\"{text}\""),
        6 => format!("u'{}'", python_escaped(text, '\'', false, false)),
        7 => format!("\"{}\"", python_escaped(text, '"', false, true)),
        _ => python_string(text, 0),
    }
}

/// A literal value, and how it is written: choices drawn from `style` as
/// it goes (a string's quoting, a list as a tuple, a number's spelling).
fn python_of(value: &Value, style: &mut impl Iterator<Item = u8>) -> String {
    let mut next = || style.next().unwrap_or(0);
    match value {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => match (n.as_i64(), next() % 4) {
            (Some(i), 0) if i >= 1000 => format!("{}_{:03}", i / 1000, i % 1000),
            (Some(i), 1) if (0..4096).contains(&i) => format!("{i:#x}"),
            (Some(i), 2) if i >= 0 => format!("+{i}"),
            _ => n.to_string(),
        },
        Value::String(s) => python_string(s, next()),
        Value::Array(items) => {
            let tuple = next() % 3 == 0;
            let mut inner: Vec<String> = items.iter().map(|v| python_of(v, style)).collect();
            if tuple {
                // `(x,)`: a one-item tuple needs its comma.
                if inner.len() == 1 {
                    inner[0].push(',');
                }
                format!("({})", inner.join(", "))
            } else {
                format!("[{}]", inner.join(", "))
            }
        }
        Value::Object(map) => {
            let inner: Vec<String> = map
                .iter()
                .map(|(k, v)| {
                    let key = python_string(k, style.next().unwrap_or(0));
                    format!("{key}: {}", python_of(v, style))
                })
                .collect();
            format!("{{{}}}", inner.join(", "))
        }
    }
}

/// A literal: `None`, booleans, ints, floats (as Python and JSON both
/// write them), strings; lists and dicts of them, a few levels deep.
fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        1 => Just(Value::Null),
        1 => any::<bool>().prop_map(Value::Bool),
        1 => (-1000i64..100_000).prop_map(Value::from),
        1 => prop::sample::select(vec![0.5, -2.5e-3, 1e21, 3.25]).prop_map(Value::from),
        2 => string().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((string(), inner), 0..4)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Argument names (so that duplicates happen too).
const KEYS: &[&str] = &["city", "path", "x", "n", "data", "東京"];

/// An arguments object's pairs, in order, keys possibly repeated.
fn arguments() -> impl Strategy<Value = Vec<(&'static str, Value)>> {
    prop::collection::vec((prop::sample::select(KEYS), value()), 0..4)
}

/// A Python call: `name(key=value, …)`.
fn python_call(name: &str, args: &[(&str, Value)], style: &[u8]) -> String {
    let mut style = style.iter().copied().cycle();
    let spaced = style.next().unwrap_or(0) % 4 == 0;
    let args: Vec<String> = args
        .iter()
        .map(|(k, v)| {
            let v = python_of(v, &mut style);
            if spaced {
                format!("{k} = {v}")
            } else {
                format!("{k}={v}")
            }
        })
        .collect();
    format!("{name}({})", args.join(", "))
}

/// A Gemma value: strings between `delimiter`s, everything else bare.
fn gemma_of(value: &Value, delimiter: &str) -> String {
    match value {
        Value::String(s) => format!("{delimiter}{s}{delimiter}"),
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(|v| gemma_of(v, delimiter)).collect();
            format!("[{}]", inner.join(","))
        }
        Value::Object(map) => {
            let inner: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}:{}", gemma_key(k), gemma_of(v, delimiter)))
                .collect();
            format!("{{{}}}", inner.join(","))
        }
        other => other.to_string(),
    }
}

/// A bare key for a generated dict key: its letters, or `k`.
fn gemma_key(key: &str) -> String {
    let bare: String = key.chars().filter(char::is_ascii_alphanumeric).collect();
    if bare.is_empty() || bare.starts_with(|c: char| c.is_ascii_digit()) {
        format!("k{bare}")
    } else {
        bare
    }
}

/// `value` as Gemma's call reads it back: dict keys made bare.
fn gemma_read(value: &Value) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.iter().map(gemma_read).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (gemma_key(k), gemma_read(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// A Gemma call: `call:name{key:value,…}`.
fn gemma_call(name: &str, args: &[(&str, Value)], delimiter: &str) -> String {
    let args: Vec<String> = args
        .iter()
        .map(|(k, v)| format!("{}:{}", gemma_key(k), gemma_of(v, delimiter)))
        .collect();
    format!("call:{name}{{{}}}", args.join(","))
}

/// One to three calls, each written in `format`'s syntax, laid out in its
/// wrappers (`choice` picks among the layouts a format has).
fn wrapped(format: Format, calls: &[String], choice: u8) -> String {
    match format {
        // A list at a line's start, or after `<|python_start|>` (a list, or
        // one bare call).
        Format::Pythonic => match choice % 3 {
            0 => format!("\n[{}]\n", calls.join(", ")),
            1 => format!("<|python_start|>[{}]<|python_end|>", calls.join(", ")),
            _ if calls.len() == 1 => format!("<|python_start|>{}<|python_end|>", calls[0]),
            _ => format!("\n[\n  {}\n]", calls.join(",\n  ")),
        },
        Format::Olmo3 => format!("<function_calls>{}</function_calls>", calls.join("\n")),
        Format::Lfm2 => format!("<|tool_call_start|>[{}]<|tool_call_end|>", calls.join(", ")),
        Format::Gemma4 => {
            let calls: Vec<String> = calls
                .iter()
                .map(|c| format!("<|tool_call>{c}<tool_call|>"))
                .collect();
            if choice % 2 == 0 {
                format!(
                    "<|channel>thought\nLet me check.<channel|>{}",
                    calls.concat()
                )
            } else {
                calls.concat()
            }
        }
        Format::FunctionGemma => calls
            .iter()
            .map(|c| format!("<start_function_call>{c}<end_function_call>"))
            .collect(),
        other => panic!("{other} does not write a call syntax"),
    }
}

/// One to three calls in `format`'s syntax and wrappers, marker soup
/// around them, sometimes cut off.
pub fn calls(format: Format) -> impl Strategy<Value = Vec<u8>> {
    let name = prop::sample::select(vec!["get_weather", "f", "mcp.server-x.tool", "get_time"]);
    let call = (name, arguments(), prop::collection::vec(any::<u8>(), 1..16));
    let text = soup(format).prop_map(|t| String::from_utf8_lossy(&t).into_owned());
    let cut = prop::option::weighted(0.25, any::<prop::sample::Index>());
    (
        text.clone(),
        prop::collection::vec(call, 1..4),
        any::<u8>(),
        text,
        cut,
    )
        .prop_map(move |(before, calls, choice, after, cut)| {
            let calls: Vec<String> = calls
                .iter()
                .map(|(name, args, style)| {
                    if is_python(format) {
                        python_call(name, args, style)
                    } else {
                        gemma_call(name, args, delimiter(format))
                    }
                })
                .collect();
            let mut out = before;
            out += &wrapped(format, &calls, choice);
            out += &after;
            let mut out = out.into_bytes();
            if let Some(cut) = cut {
                out.truncate(cut.index(out.len()));
            }
            out
        })
}

/// Prose around the calls of the intact-value properties: no marker.
const PROSE: &[&str] = &["", "Sure.\n", "Let me look that up: ", "Checking é 東京.\n"];

/// The call's arguments, whatever splits `input`: each split in two,
/// and byte by byte; each must be one complete call with no diagnostic.
fn arguments_at_every_split(format: Format, input: &[u8]) -> Result<Value, TestCaseError> {
    let mut splits: Vec<Vec<usize>> = (0..=input.len()).map(|at| vec![at]).collect();
    splits.push((1..input.len()).collect());
    let mut seen = None;
    for cuts in splits {
        let mut parser = build(format, ValueTermination::Lookahead, true, None);
        let message = message_of(&feed_cut(&mut parser, input, &cuts));
        prop_assert!(
            message.diagnostics.is_empty(),
            "{:?} at {:?}: {:?}",
            String::from_utf8_lossy(input),
            cuts,
            message.diagnostics
        );
        prop_assert_eq!(message.tool_calls.len(), 1, "at {:?}", cuts);
        let call = &message.tool_calls[0];
        prop_assert!(call.complete, "at {:?}", cuts);
        let arguments: Value = serde_json::from_str(&call.arguments)
            .map_err(|e| TestCaseError::fail(format!("{:?}: {e}", call.arguments)))?;
        match &seen {
            None => seen = Some(arguments),
            Some(first) => prop_assert_eq!(first, &arguments, "at {:?}", cuts),
        }
    }
    Ok(seen.expect("at least one split"))
}

/// A string holding at least one of `)`, `]`, `,`, `}` or a quote.
fn tricky_string() -> impl Strategy<Value = String> {
    (
        string(),
        prop::sample::select(vec![")", "]", ",", "}", "'", "\"", "'''", "\"\"\""]),
        string(),
    )
        .prop_map(|(a, tricky, b)| format!("{a}{tricky}{b}"))
}

fn call_syntax_format() -> impl Strategy<Value = Format> {
    prop::sample::select(vec![
        Format::Pythonic,
        Format::Olmo3,
        Format::Lfm2,
        Format::Gemma4,
        Format::FunctionGemma,
    ])
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases() / 4,
        rng_seed: rng_seed(),
        ..ProptestConfig::default()
    })]

    /// A Python string holding closers, commas or quotes, in any quoting,
    /// comes back as the text it stands for at every split.
    #[test]
    fn a_python_string_with_closers_and_quotes_comes_back_intact(
        format in prop::sample::select(vec![Format::Pythonic, Format::Olmo3]),
        text in tricky_string(),
        style in any::<u8>(),
        list in prop::collection::vec(tricky_string(), 0..3),
        before in prop::sample::select(PROSE),
        after in prop::sample::select(PROSE),
    ) {
        let list_text: Vec<String> = list
            .iter()
            .enumerate()
            .map(|(i, s)| python_string(s, style.wrapping_add(i as u8 + 1)))
            .collect();
        let call = format!(
            "f(s={}, items=[{}], n=3)",
            python_string(&text, style),
            list_text.join(", ")
        );
        let input = match format {
            Format::Pythonic => format!("{before}\n[{call}]\n{after}"),
            _ => format!("{before}<function_calls>{call}</function_calls>{after}"),
        };
        let arguments = arguments_at_every_split(format, input.as_bytes())?;
        prop_assert_eq!(arguments, json!({"s": text, "items": list, "n": 3}));
    }

    /// A Gemma string holding `}`, `]`, `,` or a closer comes back as it
    /// is at every split.
    #[test]
    fn a_gemma_string_with_braces_and_closers_comes_back_intact(
        format in prop::sample::select(vec![Format::Gemma4, Format::FunctionGemma]),
        text in (
            string(),
            prop::sample::select(vec!["}", "]", ",", "<tool_call|>", "<end_function_call>", "}<tool_call|>"]),
            string(),
        ).prop_map(|(a, tricky, b)| format!("{a}{tricky}{b}")),
        nested in any::<bool>(),
        before in prop::sample::select(PROSE),
        after in prop::sample::select(PROSE),
    ) {
        let d = delimiter(format);
        let (args, want) = if nested {
            (
                format!("{{s:{d}{text}{d},meta:{{items:[{d}{text}{d},1]}},n:3}}"),
                json!({"s": text, "meta": {"items": [text, 1]}, "n": 3}),
            )
        } else {
            (format!("{{s:{d}{text}{d},n:3}}"), json!({"s": text, "n": 3}))
        };
        let call = format!("call:f{args}");
        let input = match format {
            Format::Gemma4 => format!("{before}<|tool_call>{call}<tool_call|>{after}"),
            _ => format!("{before}<start_function_call>{call}<end_function_call>{after}"),
        };
        let arguments = arguments_at_every_split(format, input.as_bytes())?;
        prop_assert_eq!(arguments, want);
    }

    /// Well-formed calls between prose, in every wrapper a format has:
    /// each call's arguments are the literals generated, whatever split
    /// the text (any literal: strings in every quoting, numbers in
    /// Python's spellings, tuples, dicts, nesting).
    #[test]
    fn well_formed_calls_are_the_arguments_written(
        format in call_syntax_format(),
        calls in prop::collection::vec((arguments(), prop::collection::vec(any::<u8>(), 1..16)), 1..4),
        choice in any::<u8>(),
        before in prop::sample::select(PROSE),
        after in prop::sample::select(PROSE),
        seed in any::<u64>(),
    ) {
        let mut written = Vec::new();
        let mut wanted = Vec::new();
        for (args, style) in &calls {
            // One value a key: a repeated key is a diagnostic.
            let mut args = args.clone();
            let mut seen = std::collections::HashSet::new();
            args.retain(|(k, _)| seen.insert(if is_python(format) { (*k).to_owned() } else { gemma_key(k) }));
            let (call, want): (String, Map<String, Value>) = if is_python(format) {
                (
                    python_call("f", &args, style),
                    args.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect(),
                )
            } else {
                (
                    gemma_call("f", &args, delimiter(format)),
                    args.iter().map(|(k, v)| (gemma_key(k), gemma_read(v))).collect(),
                )
            };
            written.push(call);
            wanted.push(Value::Object(want));
        }
        let input = format!("{before}{}{after}", wrapped(format, &written, choice));
        let mut rng = common::Rng(seed | 1);
        let cuts = rng.cuts(input.len());
        let mut parser = build(format, ValueTermination::Lookahead, true, None);
        let message = message_of(&feed_cut(&mut parser, input.as_bytes(), &cuts));
        prop_assert!(message.diagnostics.is_empty(), "{:?}: {:?}", input, message.diagnostics);
        let got: Vec<Value> = message
            .tool_calls
            .iter()
            .map(|c| serde_json::from_str(&c.arguments).unwrap())
            .collect();
        prop_assert_eq!(got, wanted, "{:?}", input);
    }
}
