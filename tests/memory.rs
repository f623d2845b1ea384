//! Peak heap while streaming a huge string value: with
//! `retain_arguments(false)` the parser holds only what it must to decide,
//! so its memory does not grow with the value. (The 100 MB figure is
//! `cargo bench --bench bounds`; this is the same measurement, smaller, so
//! that the test suite runs it.)
//!
//! The allocator counts per thread (see `benches/support/alloc.rs`): the
//! parser lives on the test's thread, so the figure is what the parser
//! allocated, never what the harness's other threads did meanwhile, and the
//! same input gives the same figure on every run. That is why the values
//! of different sizes must give exactly the same peak: no tolerance is
//! needed, and any growth with the value fails.

use std::sync::Arc;

use toolcall_stream::{DiagnosticKind, Event, Format, Limits, Parser, ParserBuilder, Tools};

#[path = "../benches/support/alloc.rs"]
mod alloc;

#[global_allocator]
static HEAP: alloc::Counting = alloc::Counting::new();

/// What one streamed call cost: the parser's peak heap over the stream and
/// the argument bytes it produced.
struct Measured {
    peak: isize,
    arguments: usize,
}

/// Streams a `write_file` call whose value is `lines` lines, in 4-byte
/// chunks, every event consumed as it comes.
fn stream_value(lines: usize, retain_arguments: bool) -> Measured {
    stream_value_with(lines, retain_arguments, Parser::builder())
}

/// [`stream_value`] with a parser of `builder`.
fn stream_value_with(lines: usize, retain_arguments: bool, builder: ParserBuilder) -> Measured {
    let mut parser = builder.retain_arguments(retain_arguments).build();
    let mut arguments = 0;
    let mut feed = |parser: &mut Parser, bytes: &[u8]| {
        for piece in bytes.chunks(4) {
            for event in parser.feed(piece) {
                match event {
                    Event::ArgumentsDelta { delta, .. } => arguments += delta.len(),
                    Event::ToolCallEnd { arguments, .. } if !retain_arguments => {
                        assert_eq!(arguments, None)
                    }
                    Event::ParameterEnd { value, .. } if !retain_arguments => {
                        assert_eq!(value, None)
                    }
                    _ => {}
                }
            }
        }
    };
    // Made before the measurement starts: the input is the test's memory,
    // not the parser's.
    let line = "a line, with \"quotes\", <tags>, </parameter-ish> text & a tab\t\n".repeat(4);
    let before = HEAP.reset_peak();
    feed(
        &mut parser,
        b"<tool_call>\n<function=write_file>\n<parameter=content>\n",
    );
    for _ in 0..lines {
        feed(&mut parser, line.as_bytes());
    }
    feed(&mut parser, b"\n</parameter>\n</function>\n</tool_call>");
    for event in parser.finish() {
        assert!(!matches!(event, Event::Diagnostic { .. }), "{event:?}");
    }
    Measured {
        peak: HEAP.peak() - before,
        arguments,
    }
}

#[test]
fn a_huge_value_streams_in_bounded_memory() {
    let sizes = [2_000, 10_000, 20_000];
    let runs = sizes.map(|lines| stream_value(lines, false));
    let [small, _, large] = &runs;
    assert!(
        large.arguments > 5_000_000,
        "{} argument bytes",
        large.arguments
    );
    assert!(large.arguments > 9 * small.arguments);
    // The goal: under 1 MB for any size; in fact a few hundred bytes.
    assert!(large.peak < 1_000_000, "peak heap {} bytes", large.peak);
    // And independent of the size: ten times the value, not a byte more.
    for (lines, run) in sizes.iter().zip(&runs) {
        assert_eq!(
            run.peak, small.peak,
            "peak heap grew with the value: {lines} lines"
        );
    }
}

/// The measurement can fail: when the parser does keep the arguments (the
/// default, for `tool_call_end`), the same check sees the peak grow with
/// the value.
#[test]
fn the_measurement_sees_a_peak_that_grows_with_the_value() {
    let small = stream_value(2_000, true);
    let large = stream_value(20_000, true);
    assert!(
        large.peak > small.peak + 4 * small.arguments as isize,
        "kept arguments: peak {} bytes for {} argument bytes, {} for {}",
        small.peak,
        small.arguments,
        large.peak,
        large.arguments
    );
}

/// What other threads allocate is not counted: a thread holding 64 MiB
/// through the whole stream leaves the parser's figure unchanged.
#[test]
fn other_threads_allocations_are_not_counted() {
    let quiet = stream_value(2_000, false);
    let (started, release) = (std::sync::Barrier::new(2), std::sync::Barrier::new(2));
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let held = vec![1u8; 64 << 20];
            started.wait();
            release.wait();
            drop(held);
        });
        started.wait();
        let busy = stream_value(2_000, false);
        release.wait();
        assert_eq!(busy.peak, quiet.peak);
    });
}

/// The request's tools, giving `write_file`'s `content` the type `kind`.
fn tools(kind: &str) -> Arc<Tools> {
    let text = format!(
        r#"[{{"type": "function", "function": {{"name": "write_file", "parameters": {{
            "type": "object", "properties": {{"content": {{"type": "{kind}"}}}}}}}}}}]"#
    );
    Arc::new(Tools::from_json(&text).unwrap())
}

/// With the request's tools, a string-typed value still streams: the same
/// peak whatever its size.
#[test]
fn a_string_value_typed_by_the_tools_streams_in_bounded_memory() {
    let builder = || Parser::builder().tools(tools("string"));
    let small = stream_value_with(2_000, false, builder());
    let large = stream_value_with(20_000, false, builder());
    assert!(large.arguments > 9 * small.arguments);
    assert_eq!(large.peak, small.peak, "peak heap grew with the value");
}

/// A value whose schema wants another type is held to be typed, but never
/// past `max_held_value`: from there on it streams as a string, so the
/// peak is the bound, whatever the value's size.
#[test]
fn a_typed_value_is_held_no_further_than_its_bound() {
    let mut limits = Limits::default();
    limits.max_held_value = 64 << 10;
    let builder = || Parser::builder().tools(tools("object")).limits(limits);
    let small = stream_value_with(2_000, false, builder());
    let large = stream_value_with(20_000, false, builder());
    assert!(large.arguments > 9 * small.arguments);
    assert_eq!(large.peak, small.peak, "peak heap grew with the value");
    assert!(
        small.peak >= 64 << 10,
        "the value was held: peak {}",
        small.peak
    );
    assert!(small.peak < 3 * (64 << 10), "peak {} bytes", small.peak);
    // And the spill is reported.
    let mut parser = builder().build();
    let value = "x".repeat(100 << 10);
    let text = format!("<tool_call>\n<function=write_file>\n<parameter=content>\n{value}\n</parameter>\n</function>\n</tool_call>");
    let message = parser.parse(text);
    let kinds: Vec<_> = message.diagnostics.iter().map(|d| d.kind).collect();
    assert_eq!(kinds, [DiagnosticKind::LimitExceeded]);
    let arguments: serde_json::Value =
        serde_json::from_str(&message.tool_calls[0].arguments).unwrap();
    assert_eq!(
        arguments["content"].as_str().map(str::len),
        Some(value.len())
    );
}

/// A string inside a JSON value whose shape wants another type is held
/// with its key until it ends, but never past `max_held_value`: from there
/// on it streams as a string, reported; one cut off by the end of the
/// output is typed from what came.
#[test]
fn a_nested_typed_string_is_held_no_further_than_its_bound() {
    let tools = Arc::new(
        Tools::from_json(
            r#"[{"name": "sum", "parameters": {"type": "object", "properties":
            {"items": {"type": "array", "items": {"type": "integer"}}}}}]"#,
        )
        .unwrap(),
    );
    let mut limits = Limits::default();
    limits.max_held_value = 1 << 10;
    let builder = || {
        Parser::builder()
            .format(Format::Hermes)
            .tools(tools.clone())
            .limits(limits)
    };
    let long = "7".repeat(4 << 10);
    let text = format!(
        r#"<tool_call>{{"name": "sum", "arguments": {{"items": ["1", "{long}", "2"]}}}}</tool_call>"#
    );
    let message = builder().build().parse(text);
    let kinds: Vec<_> = message.diagnostics.iter().map(|d| d.kind).collect();
    assert_eq!(kinds, [DiagnosticKind::LimitExceeded]);
    let arguments: serde_json::Value =
        serde_json::from_str(&message.tool_calls[0].arguments).unwrap();
    assert_eq!(arguments["items"][0], 1);
    assert_eq!(arguments["items"][1].as_str(), Some(long.as_str()));
    assert_eq!(arguments["items"][2], 2);

    let message = builder()
        .build()
        .parse(r#"<tool_call>{"name": "sum", "arguments": {"items": ["1", "12"#);
    assert_eq!(message.tool_calls[0].arguments, r#"{"items": [1, 12]}"#);
}

/// A proxy's path: an upstream's chunks through `openai::Rewriter` (lean
/// parsers, calls not held) keep the same peak heap however long the value
/// they carry.
#[test]
fn rewriting_an_upstream_stream_takes_constant_memory() {
    use toolcall_stream::openai::{ChatCompletionChunk, Rewriter};
    let chunk = |content: &str| -> ChatCompletionChunk {
        serde_json::from_value(serde_json::json!({
            "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
            "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": null}]
        }))
        .unwrap()
    };
    let run = |lines: usize| -> isize {
        let mut rewriter = Rewriter::new(Parser::builder().retain_arguments(false));
        let mut out = Vec::new();
        let open = chunk("<tool_call>\n<function=write_file>\n<parameter=content>\n");
        let line = chunk("a line of \"code\" <b>\t\n");
        let close = chunk("</parameter>\n</function>\n</tool_call>");
        let before = HEAP.reset_peak();
        rewriter.push(open.clone(), &mut out);
        out.clear();
        for _ in 0..lines {
            rewriter.push(line.clone(), &mut out);
            out.clear();
        }
        rewriter.push(close.clone(), &mut out);
        rewriter.finish(&mut out);
        assert_eq!(rewriter.calls(), 1);
        HEAP.peak() - before
    };
    let small = run(2_000);
    let large = run(20_000);
    assert_eq!(large, small, "peak heap grew with the value");
    assert!(small < 64 << 10, "peak {small} bytes");
}

/// Streams one call of a JSON format whose arguments object holds a huge
/// string (escapes included) and a huge array of mixed values, in 4-byte
/// chunks; returns the parser's peak heap and the argument bytes.
fn stream_json_arguments(format: Format, repeats: usize) -> Measured {
    let (open, close) = match format {
        Format::Hermes => (
            "<tool_call>\n{\"name\": \"write_file\", \"arguments\": ",
            "}\n</tool_call>",
        ),
        Format::KimiK2 => (
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.write_file:0\
             <|tool_call_argument_begin|>",
            "<|tool_call_end|><|tool_calls_section_end|>",
        ),
        Format::DeepSeekV31 => (
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>write_file<｜tool▁sep｜>",
            "<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        ),
        Format::DeepSeekV3 => (
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>write_file\n```json\n",
            "\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        ),
        Format::LongCat => (
            "<longcat_tool_call>{\"name\": \"write_file\", \"arguments\": ",
            "}</longcat_tool_call>",
        ),
        Format::InternLm => (
            "<|action_start|><|plugin|>\n{\"name\": \"write_file\", \"parameters\": ",
            "}<|action_end|>",
        ),
        Format::Jamba | Format::HunyuanA13b => (
            "<tool_calls>[{\"name\": \"write_file\", \"arguments\": ",
            "}]</tool_calls>",
        ),
        Format::Granite => (
            "<|tool_call|>[{\"name\": \"write_file\", \"arguments\": ",
            "}]",
        ),
        Format::Phi4MiniJson => ("functools[{\"name\": \"write_file\", \"arguments\": ", "}]"),
        Format::Mistral => ("[TOOL_CALLS]write_file[ARGS]", ""),
        Format::Llama3Json => (
            "<|python_tag|>{\"name\": \"write_file\", \"parameters\": ",
            "}",
        ),
        Format::MiniMax => (
            "<tool_calls>\n{\"name\": \"write_file\", \"arguments\": ",
            "}\n</tool_calls>",
        ),
        Format::CohereCommand3 => (
            "<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"write_file\", \"parameters\": ",
            "}]<|END_ACTION|>",
        ),
        Format::Granite20bFc => (
            "<function_call> {\"name\": \"write_file\", \"arguments\": ",
            "}",
        ),
        Format::Xlam => (
            "<tool_call>[{\"name\": \"write_file\", \"arguments\": ",
            "}]</tool_call>",
        ),
        Format::Apertus => ("<|tools_prefix|>[{\"write_file\": ", "}]<|tools_suffix|>"),
        Format::GigaChat3 => (
            "function call<|role_sep|>\n{\"name\": \"write_file\", \"arguments\": ",
            "}",
        ),
        Format::XmlToolUse => (
            "<tool_use><name>write_file</name><input>",
            "</input></tool_use>",
        ),
        Format::XmlFunctionCall => (
            "<function_call><name>write_file</name><arguments>",
            "</arguments></function_call>",
        ),
        // The arguments in an attribute of a leaked self-closing call.
        Format::XmlInvoke => ("<function_calls><invoke name=\"write_file\" args='", "'/></function_calls>"),
        // After a line of prose, the seed's shape.
        Format::BareJson => (
            "Writing it.\n{\"tool\": \"write_file\", \"args\": ",
            "}\n",
        ),
        Format::OpenAi => (
            "<|channel|>commentary to=functions.write_file <|constrain|>json<|message|>",
            "<|call|>",
        ),
        Format::Ernie45 => (
            "<response>\nWriting it.\n</response>\n<tool_call>\n{\"name\": \"write_file\", \"arguments\": ",
            "}\n</tool_call>",
        ),
        Format::NemotronJson => (
            "<TOOLCALL>[{\"name\": \"write_file\", \"arguments\": ",
            "}]</TOOLCALL>",
        ),
        Format::OpenPanguV2 => (
            "<|tool_call_start|>[{\"name\": \"write_file\", \"arguments\": ",
            "}]<|tool_call_end|>",
        ),
        // Arguments written as the invoke's body.
        Format::DeepSeekV41 => (
            "<｜DSML｜ calls>\n<｜DSML｜ invoke name=\"write_file\">",
            "</｜DSML｜ invoke>\n</｜DSML｜ calls>",
        ),
        Format::Plamo3 => (
            "<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|>\
             <|plamo:begin_tool_name:plamo|>write_file<|plamo:end_tool_name:plamo|>\
             <|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>",
            "<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>\
             <|plamo:end_tool_requests:plamo|>",
        ),
        Format::Inkling => (
            "<|message_model|>write_file<|content_invoke_tool_json|>{\"name\": \"write_file\", \"args\": ",
            "}<|end_message|>",
        ),
        // A JSON body in the block, in the function's place.
        Format::Dots => (
            "<dots_function_call>\n{\"name\": \"write_file\", \"arguments\": ",
            "}\n</dots_function_call>",
        ),
        Format::FunctionaryV31 => ("<function=write_file>", "</function>"),
        Format::FunctionaryV32 => ("all\nWriting.>>>write_file\n", ">>>all\nDone."),
        Format::SolarOpen => (
            "<|tool_calls|><|tool_call:begin|>a1b2c3d4e5<|tool_call:name|>write_file<|tool_call:args|>",
            "<|tool_call:end|><|calls|>",
        ),
        other => panic!("{other} is not a JSON format"),
    };
    let text =
        r#"a line, with \"quotes\", <tags>, </tool_call> text \u00e9 \ud83d\ude00 & a tab\t\n"#
            .repeat(4);
    let element = r#"[1, -2.5e3, true, null, {"k": "v\n</tool_call>", "n": []}], "#.repeat(4);
    let parts = [
        (open, 1),
        (r#"{"path": "big.txt", "content": ""#, 1),
        (&text, repeats),
        (r#"", "data": ["#, 1),
        (&element, repeats),
        ("0]}", 1),
        (close, 1),
    ];
    stream_parts(format, &parts)
}

/// Streams `parts` to a parser of `format` that keeps no arguments, each
/// part `count` times in 4-byte chunks, every event consumed as it comes;
/// the parser's peak heap and the argument bytes. A cut or invalid call
/// would say so in a diagnostic: none may come.
fn stream_parts(format: Format, parts: &[(&str, usize)]) -> Measured {
    let mut parser = Parser::builder()
        .format(format)
        .retain_arguments(false)
        .build();
    let mut arguments = 0;
    let mut feed = |parser: &mut Parser, bytes: &[u8]| {
        for piece in bytes.chunks(4) {
            for event in parser.feed(piece) {
                match event {
                    Event::ArgumentsDelta { delta, .. } => arguments += delta.len(),
                    Event::Diagnostic { .. } => panic!("{format}: {event:?}"),
                    _ => {}
                }
            }
        }
    };
    let before = HEAP.reset_peak();
    for &(part, count) in parts {
        for _ in 0..count {
            feed(&mut parser, part.as_bytes());
        }
    }
    for event in parser.finish() {
        assert!(
            !matches!(event, Event::Diagnostic { .. }),
            "{format}: {event:?}"
        );
    }
    Measured {
        peak: HEAP.peak() - before,
        arguments,
    }
}

#[test]
fn a_huge_json_arguments_object_streams_in_bounded_memory() {
    // Every JSON format: the reader is one, the ways into it are not.
    let formats = Format::ALL.iter().filter(|f| {
        !matches!(
            f,
            Format::Qwen3Coder
                | Format::SeedOss
                | Format::MiniMaxM2
                | Format::DeepSeekV32
                | Format::DeepSeekV4
                | Format::GigaChat35
                | Format::Step3
                | Format::KimiK3
                | Format::Glm45
                | Format::Glm47
                | Format::SolarOpen2
                // Call syntax: `a_ten_megabyte_call_syntax_string_…` below.
                | Format::Pythonic
                | Format::Olmo3
                | Format::Lfm2
                | Format::Gemma4
                | Format::FunctionGemma
                | Format::MiniMaxM3
                | Format::HyV3
                | Format::HyV4
                | Format::IquestQ1
                | Format::TeleChat4
                | Format::K2Horizon
                // GLM-4.5's markup; its bare JSON calls need the request's tools.
                | Format::PoolsideV1
                | Format::Muse
                | Format::Sarashina
                | Format::MiniCpm5
                | Format::CohereCofl
        )
    });
    for &format in formats {
        let sizes = [2_000, 20_000];
        let runs = sizes.map(|repeats| stream_json_arguments(format, repeats));
        let [small, large] = &runs;
        assert!(
            large.arguments > 10_000_000,
            "{format}: {} argument bytes",
            large.arguments
        );
        assert!(
            large.peak < 1_000_000,
            "{format}: peak heap {} bytes",
            large.peak
        );
        for (repeats, run) in sizes.iter().zip(&runs) {
            assert_eq!(
                run.peak, small.peak,
                "{format}: peak heap grew with the arguments: {repeats} repeats"
            );
        }
    }
}

/// One call of a call-syntax format whose string argument is `repeats`
/// lines holding the syntax's hard bytes (the other quote kind, escapes,
/// the list's and call's closers, the format's closer), then a list of
/// `repeats` small values.
fn stream_call_syntax(format: Format, repeats: usize) -> Measured {
    let python = |open: &'static str, close: &'static str| {
        [
            (open.to_owned(), 1),
            ("write_file(path='big.txt', content='".to_owned(), 1),
            (
                "a line, with \\'quotes\\', \"double\", ) ] , <tags> \\u00e9 \\t & more\\n"
                    .to_owned(),
                repeats,
            ),
            ("', data=[".to_owned(), 1),
            (
                "(1, -2.5e3), True, None, {'k': 'v)]'}, ".to_owned(),
                repeats,
            ),
            ("0])".to_owned(), 1),
            (close.to_owned(), 1),
        ]
    };
    let gemma = |open: &'static str, quote: &'static str, close: &'static str| {
        [
            (open.to_owned(), 1),
            (
                format!("call:write_file{{path:{quote}big.txt{quote},content:{quote}"),
                1,
            ),
            (
                "a line, with \"quotes\", } ] , <tool_call|> <end_function_call> & more\n"
                    .to_owned(),
                repeats,
            ),
            (format!("{quote},data:["), 1),
            (
                format!("1,-2.5e3,true,null,{{k:{quote}v}}{quote}}},"),
                repeats,
            ),
            ("0]}".to_owned(), 1),
            (close.to_owned(), 1),
        ]
    };
    let parts = match format {
        Format::Pythonic => python("[", "]"),
        Format::Olmo3 => python("<function_calls>", "</function_calls>"),
        Format::Lfm2 => python("<|tool_call_start|>[", "]<|tool_call_end|>"),
        Format::Gemma4 => gemma("<|tool_call>", "<|\"|>", "<tool_call|>"),
        Format::FunctionGemma => gemma("<start_function_call>", "<escape>", "<end_function_call>"),
        // Nested elements: a text element, then an array of `repeats` items.
        Format::MiniMaxM3 => {
            let t = "]<]minimax[>[";
            [
                (format!("{t}<tool_call>\n"), 1),
                (format!("{t}<invoke name=\"write_file\">"), 1),
                (format!("{t}<path>big.txt{t}</path>{t}<content>"), 1),
                (
                    "a line, with <tags> &amp; &lt;b&gt; ]<] [ \"q\" </content> more\n".to_owned(),
                    repeats,
                ),
                (format!("{t}</content>{t}<data>"), 1),
                (format!("{t}<item>{t}<k>v</k>{t}</k>{t}</item>"), repeats),
                (format!("{t}</data>{t}</invoke>\n{t}</tool_call>"), 1),
            ]
        }
        // A Python-literal call body: the same hard bytes in a dict.
        Format::Sarashina => {
            let mut parts = python("<|tool_calls|>[", "}}]");
            parts[1].0 =
                "{'name': 'write_file', 'arguments': {'path': 'big.txt', 'content': '".into();
            parts[3].0 = "', 'data': [".into();
            parts[5].0 = "0]".into();
            parts
        }
        // Cohere's values: a raw string, then a list of `repeats` dicts.
        Format::CohereCofl => [
            ("<cofl:tool_calls>".to_owned(), 1),
            (
                "<cofl:tool_call id=\"0\" name=\"write_file\">".to_owned(),
                1,
            ),
            (
                "<cofl:value name=\"path\" type=\"raw\">big.txt</cofl:value>\
                 <cofl:value name=\"content\" type=\"raw\">"
                    .to_owned(),
                1,
            ),
            (
                "a line, with <tags> &amp; &lt;b&gt; [ \"q\" </cofl:tool_param> more\n".to_owned(),
                repeats,
            ),
            (
                "</cofl:value><cofl:value name=\"data\" type=\"list\">".to_owned(),
                1,
            ),
            (
                "<cofl:value type=\"dict\"><cofl:value name=\"n\" type=\"json\">1\
                 </cofl:value></cofl:value>"
                    .to_owned(),
                repeats,
            ),
            (
                "</cofl:value></cofl:tool_call></cofl:tool_calls>".to_owned(),
                1,
            ),
        ],
        other => panic!("{other} does not write a call syntax"),
    };
    let parts: Vec<(&str, usize)> = parts.iter().map(|(p, n)| (p.as_str(), *n)).collect();
    stream_parts(format, &parts)
}

#[test]
fn a_ten_megabyte_call_syntax_string_streams_in_constant_memory() {
    for format in [
        Format::Pythonic,
        Format::Olmo3,
        Format::Lfm2,
        Format::Gemma4,
        Format::FunctionGemma,
        Format::MiniMaxM3,
        Format::Sarashina,
        Format::CohereCofl,
    ] {
        let runs = [15_000, 150_000].map(|repeats| stream_call_syntax(format, repeats));
        let [small, large] = &runs;
        assert!(
            large.arguments > 10_000_000,
            "{format}: {} argument bytes",
            large.arguments
        );
        assert!(
            large.peak < 100_000,
            "{format}: peak heap {} bytes",
            large.peak
        );
        assert_eq!(
            large.peak, small.peak,
            "{format}: peak heap grew with the value"
        );
    }
}

#[test]
fn a_huge_cdata_value_with_closers_inside_streams_in_bounded_memory() {
    // MiniCPM5's CDATA section: the closers inside it are value text, and
    // none of them is held.
    let line = "a line, with </param> and <function name=\"f\"> & ]] > text\n".repeat(4);
    let parts = |repeats| {
        [
            (
                "<function name=\"write_file\"><param name=\"content\"><![CDATA[",
                1,
            ),
            (line.as_str(), repeats),
            ("]]></param></function>", 1),
        ]
    };
    let sizes = [2_000, 20_000];
    let runs = sizes.map(|repeats| stream_parts(Format::MiniCpm5, &parts(repeats)));
    let [small, large] = &runs;
    assert!(
        large.arguments > 4_000_000,
        "{} argument bytes",
        large.arguments
    );
    assert!(large.peak < 1_000_000, "peak heap {} bytes", large.peak);
    assert_eq!(large.peak, small.peak, "peak heap grew with the value");
}
