//! Generators for the formats that write calls in markup: Qwen3-Coder's
//! pieces and well-formed calls, GLM's, and the respellings that carry them
//! into each other format's markers (Seed, MiniMax, DSML, Kimi, Step-3,
//! Solar Open2, Hy, Muse, Dots, MiniCPM5, …).

use super::*;

/// Pieces that Qwen3-Coder output is made of, well formed or not.
pub(crate) const PIECES: &[&str] = &[
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
pub(crate) const GLM_PIECES: &[&[u8]] = &[
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
pub(crate) const GLM_FUNCTIONS: &[&str] = &[
    "get_weather",
    "f",
    "calendar.read",
    "mcp__gmail-cleanup__list_filters",
    " get_weather ",
];

/// Argument keys in generated GLM calls.
pub(crate) const GLM_KEYS: &[&str] = &["city", "path", "a b", "東京", " city ", "x"];

/// Up to `len` pieces, concatenated.
pub(crate) fn soup<T>(
    pieces: &'static [T],
    len: Range<usize>,
) -> impl Strategy<Value = Vec<u8>> + Clone
where
    T: AsRef<[u8]> + Clone + Debug + 'static,
{
    prop::collection::vec(prop::sample::select(pieces), len)
        .prop_map(|p| p.iter().flat_map(|piece| piece.as_ref()).copied().collect())
}

/// Qwen3-Coder marker soup.
pub(crate) fn qwen_output() -> impl Strategy<Value = Vec<u8>> {
    soup(PIECES, 0..48)
}

/// A well-formed Qwen3-Coder call or two, with arbitrary text around and
/// inside values.
pub(crate) fn qwen_calls() -> impl Strategy<Value = Vec<u8>> {
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
pub(crate) fn seed_spelling(qwen: Vec<u8>) -> Vec<u8> {
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
pub(crate) fn minimax_spelling(qwen: Vec<u8>) -> Vec<u8> {
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
pub(crate) fn dsml_spelling(qwen: Vec<u8>) -> Vec<u8> {
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
pub(crate) fn k3_spelling(qwen: Vec<u8>) -> Vec<u8> {
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
pub(crate) fn invoke_args_calls() -> impl Strategy<Value = Vec<u8>> {
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
pub(crate) const V4_BLOCK: &[(&[u8], &[u8])] =
    &[("｜function_calls>".as_bytes(), "｜tool_calls>".as_bytes())];

/// DeepSeek V4.1's spaced tags, after [`dsml_spelling`]; the block's
/// opener also without its `>` before a line end, and some invokes with
/// their bars doubled.
pub(crate) const V41_SPACED: &[(&[u8], &[u8])] = &[
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
pub(crate) const GCML: &[(&[u8], &[u8])] = &[("｜DSML｜".as_bytes(), "｜GCML｜".as_bytes())];

/// The leaked `<invoke>` shape's block, after [`minimax_spelling`].
pub(crate) const INVOKE_BLOCK: &[(&[u8], &[u8])] = &[(b"minimax:tool_call>", b"function_calls>")];

/// The generic `<tool name=…>` element in place of `<invoke name=…>`, after
/// [`INVOKE_BLOCK`].
pub(crate) const TOOL_ELEMENT: &[(&[u8], &[u8])] = &[
    (b"<invoke name=", b"<tool name="),
    (b"</invoke>", b"</tool>"),
];

/// Qwen3-Coder's output in Step-3's spelling: each function in an item
/// (`<｜tool_call_begin｜>function<｜tool_sep｜>` … `<｜tool_call_end｜>`), and
/// the soup's near misses as a lone item opener (`<tool_`), a lone
/// separator (`<func`) and a cut closer (`</param`).
pub(crate) fn step3_spelling(qwen: Vec<u8>) -> Vec<u8> {
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
pub(crate) fn respell(bytes: &[u8], pairs: &[(&[u8], &[u8])]) -> Vec<u8> {
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
pub(crate) fn glm_output() -> impl Strategy<Value = Vec<u8>> {
    soup(GLM_PIECES, 0..48)
}

/// One to three well-formed GLM calls of zero to three arguments, with
/// arbitrary text before, between and inside values; each call laid out
/// as GLM-4.5 writes it (a line per key and value) or as GLM-4.7 does
/// (no newlines). Both formats read both layouts. One output in four is
/// cut off at a random byte, as a stream that stops mid-call.
pub(crate) fn glm_calls() -> impl Strategy<Value = Vec<u8>> {
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

/// GLM's output in Solar Open2's tokens: `<|tool_arg:value|>` ends the key
/// and opens the value, where GLM writes two markers.
pub(crate) fn solar_open2_spelling(glm: Vec<u8>) -> Vec<u8> {
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

/// GLM's output in Tencent Hy's block, every marker with the checkpoint's
/// suffix: `<tool_call>` opens a block and its call, `</tool_call>` closes
/// both (Hy3 reads a name without `<tool_sep>` as Hy4 does).
pub(crate) fn hy_spelling(glm: Vec<u8>, suffix: &str) -> Vec<u8> {
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

/// Qwen3-Coder's output in Muse's ATEM tags, its wrapper a function's
/// message (a header before it, `<|eom|>` after it).
pub(crate) fn muse_spelling(qwen: Vec<u8>) -> Vec<u8> {
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
pub(crate) const K2_HORIZON: &[(&[u8], &[u8])] = &[
    (b"</tool_call>", b"</ifm|tool_call></ifm|tool_calls>"),
    (b"<tool_call>", b"<ifm|tool_calls><ifm|tool_call>"),
    (b"</arg_key>", b"</ifm|arg_key>"),
    (b"<arg_key>", b"<ifm|arg_key>"),
    (b"</arg_value>", b"</ifm|arg_value>"),
    (b"<arg_value>", b"<ifm|arg_value>"),
    (b"</think>", b"</ifm|think>"),
    (b"<think>", b"<ifm|think>"),
];

/// K2-Horizon's `xml_typed` dialect: a type after every key (`string`:
/// a value the ladder types may become a JSON string, which these
/// properties do not expect of a string; the fixtures type the others).
pub(crate) const K2_HORIZON_TYPED: &[(&[u8], &[u8])] = &[
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

/// Hermes's calls as K2-Horizon's `json` dialect: a group around each
/// body.
pub(crate) const K2_HORIZON_JSON: &[(&[u8], &[u8])] = &[
    (b"</tool_call>", b"</ifm|tool_call></ifm|tool_calls>"),
    (b"<tool_call>", b"<ifm|tool_calls><ifm|tool_call>"),
];

/// GLM's output in IQuest Q1's wrapper.
pub(crate) const IQUEST: &[(&[u8], &[u8])] = &[
    (b"</tool_call>", b"</iquest_tool_call>"),
    (b"<tool_call>", b"<iquest_tool_call>"),
];

/// GLM's output with TeleChat4's key and value tags.
pub(crate) const TELECHAT: &[(&[u8], &[u8])] = &[
    (b"</arg_key>", b"</param_key>"),
    (b"<arg_key>", b"<param_key>"),
    (b"</arg_value>", b"</param_value>"),
    (b"<arg_value>", b"<param_value>"),
];

/// Qwen3-Coder's output in dots' block, with MiniMax-M2's invokes.
pub(crate) fn dots_spelling(qwen: Vec<u8>) -> Vec<u8> {
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

/// Qwen3-Coder's output in MiniCPM5's spelling: functions with no wrapper
/// (the wrapper's tags become a CDATA section's, in values and out), the
/// `<arguments>` wrapper and misspelled openers in place of other pieces.
pub(crate) fn minicpm5_spelling(qwen: Vec<u8>) -> Vec<u8> {
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
