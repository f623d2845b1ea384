//! Shared by the fuzz targets: the header that picks the parser (format,
//! value termination, limits), feeding helpers and the event contract every
//! output must keep.
#![allow(dead_code)]

use toolcall_stream::{
    DiagnosticKind, Event, Format, Ids, Limits, OwnedEvent, Parser, ParserBuilder, Reasoning,
    ValueTermination,
};

/// The value-termination mode chosen by a header's mode byte (its low
/// bit).
pub fn mode(byte: u8) -> ValueTermination {
    if byte & 1 == 0 {
        ValueTermination::Lookahead
    } else {
        ValueTermination::Vllm
    }
}

/// The limits chosen by a header's mode byte: the defaults when bit 1 is
/// clear; otherwise tight ones taken from the upper bits, so that short
/// inputs reach every bound.
pub fn limits(byte: u8) -> Limits {
    let mut limits = Limits::default();
    if byte & 2 != 0 {
        let bits = usize::from(byte >> 2);
        limits.max_calls = bits & 3;
        limits.max_parameters = (bits >> 2) & 3;
        limits.max_name_len = 1 + ((bits >> 4) & 3) * 3;
        limits.lookahead = 1 + ((bits >> 4) & 3) * 8;
    }
    limits
}

/// How many formats the format byte picks from: every format of
/// `Format::ALL`, then `Format::Auto` (not in `ALL`) at index
/// `Format::ALL.len()`.
pub const FORMATS: usize = Format::ALL.len() + 1;

/// The formats the format byte picks from, by index: `Format::ALL`, then
/// `Format::Auto`.
pub fn formats() -> impl Iterator<Item = Format> {
    Format::ALL.iter().copied().chain([Format::Auto])
}

/// The format chosen by a header's format byte: `Format::ALL` by index,
/// and `Format::Auto` at index `Format::ALL.len()`, wrapping around
/// (`byte % FORMATS`), so that every format the crate knows (also those
/// added later) is fuzzed. A byte below `Format::ALL.len()` keeps its
/// format as long as new formats are appended to `ALL`; a larger one
/// wraps, and picks another format whenever one is added (seeds use the
/// index itself; auto's seeds name it by its name, `seed.sh` looks the
/// index up).
pub fn format(byte: u8) -> Format {
    let index = usize::from(byte) % FORMATS;
    Format::ALL.get(index).copied().unwrap_or(Format::Auto)
}

/// The index of `format` in `formats()`: the format byte that picks it.
pub fn format_byte(format: Format) -> u8 {
    let index = formats()
        .position(|f| f == format)
        .expect("a format of Format::ALL, or Format::Auto");
    u8::try_from(index).expect("at most 256 formats")
}

/// The reasoning mode and `calls_in_reasoning` chosen by a header's mode
/// byte: with the default limits (bit 1 clear), bits 2-3 pick the mode
/// (`00` off, `01` on, `10` started, `11` on) and bit 4 set turns
/// `calls_in_reasoning` off; with tight limits (bit 1 set), whose bits
/// 2-7 are the limits, reasoning is off (`features` can turn it on).
/// Bits 5-7 are unused. A mode byte of the time before reasoning was a
/// choice had bits 2-7 clear without tight limits: reasoning off, as then.
pub fn reasoning(byte: u8) -> (Reasoning, bool) {
    if byte & 2 != 0 {
        return (Reasoning::Off, true);
    }
    let reasoning = match (byte >> 2) & 3 {
        0 => Reasoning::Off,
        2 => Reasoning::Started,
        _ => Reasoning::On,
    };
    (reasoning, byte & 0x10 == 0)
}

/// The mode byte bits (2-4, default limits only) that pick `reasoning`
/// and `calls_in_reasoning`, as `reasoning` reads them.
pub fn reasoning_bits(reasoning: Reasoning, calls_in_reasoning: bool) -> u8 {
    let mode = match reasoning {
        Reasoning::Off => 0,
        Reasoning::Started => 2,
        _ => 1,
    };
    (mode << 2) | if calls_in_reasoning { 0 } else { 0x10 }
}

/// Whether `format` splits reasoning out of the text even with
/// `Reasoning::Off`: gpt-oss's channels are the format's own structure
/// (the `analysis` channel is reasoning whatever the option says), and
/// `auto` may find gpt-oss.
pub fn always_reasoning(format: Format) -> bool {
    matches!(format, Format::OpenAi | Format::Auto)
}

/// Whether `format` marks parameters up (the XML formats), so that,
/// without a schema, every value is a string and streams as its raw text.
/// In every other format the call is JSON, and a value the model wrote as
/// a number, boolean, null, object or array streams as its JSON text.
pub fn markup(format: Format) -> bool {
    matches!(
        format,
        Format::Qwen3Coder
            | Format::Glm45
            | Format::Glm47
            | Format::SeedOss
            | Format::MiniMaxM2
            | Format::DeepSeekV32
            | Format::DeepSeekV4
            | Format::XmlInvoke
            | Format::KimiK3
            | Format::Step3
            | Format::SolarOpen2
            | Format::DeepSeekV41
            | Format::GigaChat35
            | Format::HyV3
            | Format::HyV4
            | Format::IquestQ1
            | Format::TeleChat4
            | Format::K2Horizon
            | Format::PoolsideV1
            | Format::Muse
            | Format::MiniCpm5
    )
}

/// Whether a marked-up value may say it is JSON (DSML's `string="false"`,
/// Kimi K3's `type="integer"`): then, without a schema, it is typed from
/// its raw text, which is not the value's JSON text (`05.` is `5`).
pub fn json_attribute(format: Format) -> bool {
    matches!(
        format,
        Format::DeepSeekV32
            | Format::DeepSeekV4
            | Format::KimiK3
            | Format::DeepSeekV41
            | Format::GigaChat35
    )
}

/// Whether `format`'s call ids are made by the parser (`Ids`). Kimi K2
/// writes its own (`functions.NAME:0`), which are kept; a format added
/// after this list was written is not assumed to make its ids either.
pub fn generated_ids(format: Format) -> bool {
    // Every marked-up format makes its ids.
    markup(format)
        || matches!(
            format,
            Format::Hermes
                | Format::DeepSeekV31
                | Format::DeepSeekV3
                | Format::LongCat
                | Format::InternLm
                | Format::Jamba
                | Format::HunyuanA13b
                | Format::Granite
                | Format::Phi4MiniJson
                | Format::Llama3Json
                | Format::MiniMax
                | Format::CohereCommand3
                | Format::Xlam
                | Format::Apertus
                | Format::GigaChat3
                | Format::XmlToolUse
                | Format::XmlFunctionCall
                | Format::Granite20bFc
                | Format::BareJson
                | Format::Ernie45
                | Format::NemotronJson
                | Format::OpenPanguV2
                | Format::MiniMaxM3
                | Format::Plamo3
                | Format::Inkling
                // Marked-up invokes, or a JSON body: its values stream as
                // the JSON formats' do.
                | Format::Dots
                | Format::Sarashina
                | Format::FunctionaryV31
                | Format::FunctionaryV32
        )
}

/// What the header at the start of a target's input picks: two bytes.
///
/// ```text
/// byte 0             the format: formats()[byte % FORMATS] (Format::ALL,
///                    then Format::Auto)
/// byte 1  bit 0      value termination: 0 lookahead, 1 vllm
///         bit 1 = 1  tight limits from bits 2-7 (`limits`); reasoning off
///         bit 1 = 0  default limits; bits 2-3 reasoning (00 off, 01 on,
///                    10 started, 11 on), bit 4 no calls in reasoning
/// ```
///
/// Byte 1 is the one header byte of the time before formats were a choice
/// (Qwen3-Coder alone), so such an input is this header's with a `0x00`
/// (Qwen3-Coder) in front.
#[derive(Clone, Debug)]
pub struct Header {
    pub format: Format,
    pub mode: ValueTermination,
    pub limits: Limits,
    pub reasoning: Reasoning,
    pub calls_in_reasoning: bool,
    /// The header's bytes, for failure messages.
    pub bytes: Vec<u8>,
}

impl Header {
    /// How many bytes the header takes.
    pub const LEN: usize = 2;

    /// Splits the header off `data`; `None` when `data` is too short to
    /// hold it.
    pub fn split(data: &[u8]) -> Option<(Header, &[u8])> {
        if data.len() < Header::LEN {
            return None;
        }
        let (bytes, rest) = data.split_at(Header::LEN);
        let (reasoning, calls_in_reasoning) = reasoning(bytes[1]);
        let header = Header {
            format: format(bytes[0]),
            mode: mode(bytes[1]),
            limits: limits(bytes[1]),
            reasoning,
            calls_in_reasoning,
            bytes: bytes.to_vec(),
        };
        Some((header, rest))
    }

    /// A header for `format` with `mode`, tight limits from `tight` (a
    /// mode byte as `limits` reads it) or the defaults.
    pub fn new(format: Format, mode: ValueTermination, tight: Option<u8>) -> Header {
        Header::with_reasoning(format, mode, tight, Reasoning::Off, true)
    }

    /// As `new`, with a reasoning mode (only with the default limits: the
    /// header has no room for both).
    pub fn with_reasoning(
        format: Format,
        mode: ValueTermination,
        tight: Option<u8>,
        reasoning: Reasoning,
        calls_in_reasoning: bool,
    ) -> Header {
        let mode_bit = u8::from(mode == ValueTermination::Vllm);
        let second = match tight {
            None => mode_bit | reasoning_bits(reasoning, calls_in_reasoning),
            Some(t) => (t & !1) | 2 | mode_bit,
        };
        let bytes = [format_byte(format), second];
        let (header, rest) = Header::split(&bytes).expect("a whole header");
        debug_assert!(rest.is_empty() && header.format == format && header.mode == mode);
        debug_assert!(tight.is_some() || header.reasoning == reasoning);
        header
    }

    /// A parser for the header's choices, with sequential ids, so that two
    /// runs over the same input give identical events.
    pub fn parser(&self) -> Parser {
        self.builder().build()
    }

    /// A builder for the header's choices, with sequential ids.
    pub fn builder(&self) -> ParserBuilder {
        Parser::builder()
            .format(self.format)
            .value_termination(self.mode)
            .limits(self.limits)
            .reasoning(self.reasoning)
            .calls_in_reasoning(self.calls_in_reasoning)
            .ids(Ids::sequential("call_"))
    }
}

impl std::fmt::Display for Header {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "header {:02x?} ({}, {:?}, {:?}, reasoning {}{})",
            self.bytes,
            self.format.name(),
            self.mode,
            self.limits,
            self.reasoning.name(),
            if self.calls_in_reasoning {
                ""
            } else {
                ", no calls in reasoning"
            }
        )
    }
}

/// `features`: tools typing the names the dictionaries and fixtures use,
/// and two whose parameters are root `oneOf` (tagged by `action`) and
/// `anyOf` branches (`edit`, `g`).
const TOOLS: &str = r#"[{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"},
    "x": {"type": ["number", "null"]}, "a": {"type": "boolean"}, "b": {"type": "object"},
    "path": {"type": "array"}, "q": {"anyOf": [{"type": "integer"}, {"type": "string"}]}},
    "required": ["city"]}}},
    {"type": "function", "function": {"name": "f", "parameters": {"type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "number"}}}}},
    {"type": "function", "function": {"name": "edit", "parameters": {"type": "object",
    "properties": {"note": {"type": "string"}}, "required": ["action"], "oneOf": [
    {"properties": {"action": {"const": "add"}, "x": {"type": "integer"}}, "required": ["x"]},
    {"properties": {"action": {"const": "remove"}, "x": {"type": "string"},
    "force": {"type": "boolean"}}, "required": ["x", "force"]},
    {"properties": {"action": {"const": 7}, "x": {"type": "boolean"}}}]}}},
    {"type": "function", "function": {"name": "g", "parameters": {"anyOf": [
    {"type": "object", "properties": {"a": {"type": "integer"}, "city": {"type": "null"}}},
    {"type": "object", "properties": {"a": {"type": "array"}, "b": {"type": "string"}},
    "required": ["b"]}]}}}]"#;

/// The parser of the `features` target: the header's, with the options
/// byte's (see `fuzz_targets/features.rs`).
pub fn features_parser(header: &Header, options: u8) -> Parser {
    let mut builder = header
        .builder()
        .strict(options & 0x02 != 0)
        .unknown_tools_as_content(options & 0x04 != 0)
        .python_literals(options & 0x08 != 0)
        .incomplete_calls_as_content(options & 0x20 != 0)
        .hold_text_after_wrapper(options & 0x40 != 0);
    if options & 0x80 != 0 && header.reasoning == Reasoning::Off {
        builder = builder.reasoning(Reasoning::On);
    }
    if options & 0x10 != 0 {
        builder = builder.typing(toolcall_stream::Typing::Infer);
    }
    if options & 0x01 != 0 {
        builder = builder.tools(std::sync::Arc::new(
            toolcall_stream::Tools::from_json(TOOLS).unwrap(),
        ));
    } else if options & 0x04 != 0 {
        builder = builder.tools(std::sync::Arc::new(
            toolcall_stream::Tools::from_json("[]").unwrap(),
        ));
    }
    builder.build()
}

/// Feeds `chunks` in order, then finishes; returns every event, owned.
pub fn feed_chunks<'a>(
    parser: &mut Parser,
    chunks: impl IntoIterator<Item = &'a [u8]>,
) -> Vec<OwnedEvent> {
    let mut events = Vec::new();
    for chunk in chunks {
        events.extend(parser.feed(chunk).map(Event::into_owned));
    }
    events.extend(parser.finish().map(Event::into_owned));
    events
}

/// The documented contract of an event stream; panics with a description
/// of the breach (and the input, escaped) when it does not hold.
pub fn check_contract(events: &[OwnedEvent], header: &Header, input: &[u8]) {
    let ctx = || format!("{header}, input {:?}", String::from_utf8_lossy(input));
    // (index, arguments so far) of the open call.
    let mut open: Option<(usize, String)> = None;
    // (name, raw deltas) of the open parameter.
    let mut param: Option<(String, String)> = None;
    let mut next_index = 0;
    // The format the calls are in: the header's, or, for `auto`, the one
    // its `format_detected` names (none before it).
    let mut format = (header.format != Format::Auto).then_some(header.format);
    for event in events {
        // Every event serializes (ParameterEnd's value must be valid JSON).
        if let Err(e) = serde_json::to_string(event) {
            panic!("event {event:?} does not serialize: {e}; {}", ctx());
        }
        match event {
            OwnedEvent::Content { text } => {
                assert!(open.is_none(), "content {text:?} inside a call; {}", ctx());
            }
            OwnedEvent::Reasoning { text } => {
                assert!(
                    open.is_none(),
                    "reasoning {text:?} inside a call; {}",
                    ctx()
                );
                assert!(
                    header.reasoning != Reasoning::Off || always_reasoning(header.format),
                    "reasoning {text:?} with reasoning off; {}",
                    ctx()
                );
            }
            OwnedEvent::ToolCallStart { index, id, name } => {
                assert!(open.is_none(), "call started inside a call; {}", ctx());
                let Some(format) = format else {
                    panic!("auto started a call before `format_detected`; {}", ctx());
                };
                assert_eq!(*index, next_index, "indexes must count calls; {}", ctx());
                assert!(!name.is_empty(), "empty function name; {}", ctx());
                assert!(!id.is_empty(), "empty call id; {}", ctx());
                if generated_ids(format) {
                    assert_eq!(*id, format!("call_{index}"), "sequential id; {}", ctx());
                } else if format == Format::KimiK2 {
                    // The id as written, `functions.NAME:0`, holds the name.
                    assert!(
                        id.contains(name.as_str()),
                        "id {id:?} does not hold the name {name:?}; {}",
                        ctx()
                    );
                }
                next_index += 1;
                open = Some((*index, String::new()));
            }
            OwnedEvent::ParameterStart { index, name } => {
                let current = open.as_ref().map(|o| o.0);
                assert_eq!(
                    current,
                    Some(*index),
                    "parameter outside its call; {}",
                    ctx()
                );
                assert!(
                    param.is_none(),
                    "parameter started inside a parameter; {}",
                    ctx()
                );
                param = Some((name.clone(), String::new()));
            }
            OwnedEvent::ParameterDelta { index, text } => {
                let current = open.as_ref().map(|o| o.0);
                assert_eq!(
                    current,
                    Some(*index),
                    "parameter delta outside its call; {}",
                    ctx()
                );
                match param.as_mut() {
                    Some((_, raw)) => raw.push_str(text),
                    None => panic!("parameter delta outside a parameter; {}", ctx()),
                }
            }
            OwnedEvent::ParameterEnd { index, name, value } => {
                let current = open.as_ref().map(|o| o.0);
                assert_eq!(
                    current,
                    Some(*index),
                    "parameter end outside its call; {}",
                    ctx()
                );
                let Some((started, raw)) = param.take() else {
                    panic!("parameter end without start; {}", ctx());
                };
                assert_eq!(&started, name, "parameter end names another; {}", ctx());
                let Some(value) = value.as_deref() else {
                    panic!("a retaining parser left out a value; {}", ctx());
                };
                let parsed: serde_json::Value = serde_json::from_str(value)
                    .unwrap_or_else(|e| panic!("parameter value {value:?}: {e}; {}", ctx()));
                // No schema: a string value is its raw text. In the XML
                // formats every value is a string; in a JSON format (every
                // other one) a value the model wrote as a number, boolean,
                // null, object or array streams as its JSON text, which
                // reads back as the value.
                let format = format.expect("a call's format");
                if markup(format) && json_attribute(format) && !parsed.is_string() {
                    // Typed from its raw text: checked valid JSON above.
                } else if !markup(format) && !parsed.is_string() {
                    let streamed: serde_json::Value =
                        serde_json::from_str(&raw).unwrap_or_else(|e| {
                            panic!("parameter deltas {raw:?} are not JSON: {e}; {}", ctx())
                        });
                    assert_eq!(
                        streamed,
                        parsed,
                        "parameter deltas differ from the value; {}",
                        ctx()
                    );
                } else {
                    assert_eq!(
                        parsed.as_str(),
                        Some(raw.as_str()),
                        "parameter deltas differ from the value; {}",
                        ctx()
                    );
                }
            }
            OwnedEvent::ArgumentsDelta { index, delta } => match open.as_mut() {
                Some((current, args)) if current == index => args.push_str(delta),
                _ => panic!("arguments delta for call {index} outside it; {}", ctx()),
            },
            OwnedEvent::ToolCallEnd {
                index, arguments, ..
            } => {
                let Some((current, args)) = open.take() else {
                    panic!("call end without start; {}", ctx());
                };
                assert_eq!(*index, current, "call end for another call; {}", ctx());
                assert!(param.is_none(), "call ended inside a parameter; {}", ctx());
                let Some(arguments) = arguments.as_deref() else {
                    panic!("a retaining parser left out the arguments; {}", ctx());
                };
                assert_eq!(
                    args,
                    arguments,
                    "arguments_delta concatenation differs from tool_call_end arguments; {}",
                    ctx()
                );
                let parsed: serde_json::Value =
                    serde_json::from_str(arguments).unwrap_or_else(|e| {
                        panic!("arguments {arguments:?} are not JSON: {e}; {}", ctx())
                    });
                assert!(
                    parsed.is_object(),
                    "arguments {arguments:?} are not an object; {}",
                    ctx()
                );
            }
            OwnedEvent::Diagnostic { message, kind, .. } => {
                assert!(!message.is_empty(), "empty diagnostic message; {}", ctx());
                if *kind == DiagnosticKind::FormatDetected {
                    assert!(
                        header.format == Format::Auto,
                        "format_detected outside auto; {}",
                        ctx()
                    );
                    assert!(format.is_none(), "a second format_detected; {}", ctx());
                    assert!(open.is_none(), "format_detected inside a call; {}", ctx());
                    // "the output is in the `NAME` format …"
                    let name = message.split('`').nth(1).unwrap_or_default();
                    let detected: Format = name.parse().unwrap_or_else(|_| {
                        panic!("format_detected names no format: {message:?}; {}", ctx())
                    });
                    assert!(detected != Format::Auto, "auto detected as auto; {}", ctx());
                    format = Some(detected);
                }
            }
            _ => {}
        }
    }
    assert!(open.is_none(), "a call was never ended; {}", ctx());
    assert!(param.is_none(), "a parameter was never ended; {}", ctx());
}

/// Reads a count byte `k` (`% 16`), then `k` chunk lengths, off `data`,
/// and cuts the rest, the model output, into chunks of those lengths in a
/// cycle (a 0 is an empty chunk; all zeros mean single bytes). Returns the
/// output and its chunks; `None` when there is no count byte.
pub fn chunked(data: &[u8]) -> Option<(&[u8], Vec<&[u8]>)> {
    let (k, rest) = data.split_first()?;
    let k = usize::from(*k % 16).min(rest.len());
    let (lengths, input) = rest.split_at(k);
    let mut lengths: Vec<usize> = lengths.iter().map(|&l| usize::from(l)).collect();
    if lengths.iter().all(|&l| l == 0) {
        // Keep any empty chunks, but make progress.
        lengths.push(1);
    }
    let mut chunks = Vec::new();
    let mut start = 0;
    for &len in lengths.iter().cycle() {
        if start >= input.len() {
            break;
        }
        let end = (start + len).min(input.len());
        chunks.push(&input[start..end]);
        start = end;
    }
    Some((input, chunks))
}

/// Whether to pass over `input`, because it could hit a finding that is
/// known and still open (`README.md`, "Open"): only when the environment
/// variable `TOOLCALL_FUZZ_SKIP_OPEN` is set, so that a campaign gets past
/// a shallow crash to deeper ones. Without it every input runs.
pub fn skip_open(format: Format, input: &[u8]) -> bool {
    static SKIP: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if !*SKIP.get_or_init(|| std::env::var_os("TOOLCALL_FUZZ_SKIP_OPEN").is_some()) {
        return false;
    }
    deepseek_partial_char(format, input)
}

/// DeepSeek's markers, whose `｜` and `▁` are multi-byte characters.
const DEEPSEEK_MARKERS: [&str; 5] = [
    "<｜tool▁calls▁begin｜>",
    "<｜tool▁calls▁end｜>",
    "<｜tool▁call▁begin｜>",
    "<｜tool▁call▁end｜>",
    "<｜tool▁sep｜>",
];

/// Open finding `deepseek-partial-char` (a panic): in a DeepSeek format,
/// a character (or the U+FFFD that stands for invalid bytes) whose first
/// bytes go on a marker begun before it, but not its last ones (`<～`,
/// `<�`, `<｜tool▖`).
pub fn deepseek_partial_char(format: Format, input: &[u8]) -> bool {
    if !matches!(format, Format::DeepSeekV31 | Format::DeepSeekV3) {
        return false;
    }
    let text = String::from_utf8_lossy(input);
    text.char_indices().any(|(at, c)| {
        let mut buf = [0; 4];
        let c = c.encode_utf8(&mut buf).as_bytes();
        c.len() > 1
            && DEEPSEEK_MARKERS.iter().any(|marker| {
                let m = marker.as_bytes();
                (1..m.len()).any(|k| {
                    text.as_bytes()[..at].ends_with(&m[..k])
                        && m[k..].len() >= 2
                        && m[k] == c[0]
                        && !m[k..].starts_with(c)
                })
            })
    })
}

/// Panics, showing the first event where a split changed the output, when
/// the one-shot and chunked events (both coalesced) differ; `context`
/// says what was fed.
pub fn assert_same_events(one_shot: &[OwnedEvent], chunked: &[OwnedEvent], context: &str) {
    if one_shot == chunked {
        return;
    }
    let first = one_shot
        .iter()
        .zip(chunked)
        .position(|(a, b)| a != b)
        .unwrap_or(one_shot.len().min(chunked.len()));
    panic!(
        "split changes the events: first difference at event {first}\n\
         one-shot: {:?}\n chunked: {:?}\n {context}\n \
         one-shot (all): {one_shot:?}\n chunked (all): {chunked:?}",
        one_shot.get(first),
        chunked.get(first),
    );
}
