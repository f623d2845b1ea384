//! `Format::Auto`: on every fixture of every detected format, `auto` gives
//! the calls the fixture's own format gives, says which format it found,
//! and keeps split invariance; output with no call is all content.

mod common;

use common::{feed_cut, fixtures, message_of, one_shot};
use toolcall_stream::{coalesce, DiagnosticKind, Format, Ids, Message, Parser, Reasoning};

/// Fixtures whose calls `auto` reads differently from their own format,
/// with the reason. Kept exact: a listed fixture must still differ.
const DIFFERENT: &[(&str, &str)] = &[
    (
        "pythonic/bare_json_call_after_prose",
        "as `pythonic/bare_two_calls`",
    ),
    (
        "pythonic/bare_two_calls",
        "a bare Python list at a line's start is a call only when the format is known: `auto` \
         finds pythonic by `<|python_start|>`, and Python lists in content look the same",
    ),
    (
        "pythonic/bare_after_prose_line",
        "as `pythonic/bare_two_calls`",
    ),
    (
        "pythonic/bare_call_in_argument",
        "as `pythonic/bare_two_calls`",
    ),
    (
        "pythonic/bare_content_after",
        "as `pythonic/bare_two_calls`",
    ),
    ("pythonic/bare_empty_args", "as `pythonic/bare_two_calls`"),
    (
        "pythonic/bare_multiline_list",
        "as `pythonic/bare_two_calls`",
    ),
    (
        "pythonic/bare_name_as_value",
        "as `pythonic/bare_two_calls`",
    ),
    (
        "pythonic/bare_named_unicode_escape",
        "as `pythonic/bare_two_calls`",
    ),
    (
        "pythonic/bare_nested_values",
        "as `pythonic/bare_two_calls`",
    ),
    (
        "pythonic/bare_positional_argument",
        "as `pythonic/bare_two_calls`",
    ),
    (
        "pythonic/bare_python_and_json_literals",
        "as `pythonic/bare_two_calls`",
    ),
    (
        "pythonic/bare_string_quotings",
        "as `pythonic/bare_two_calls`",
    ),
    (
        "pythonic/bare_truncated_in_string",
        "as `pythonic/bare_two_calls`",
    ),
    ("pythonic/bare_typed_ladder", "as `pythonic/bare_two_calls`"),
    (
        "pythonic/bare_underscore_name",
        "as `pythonic/bare_two_calls`",
    ),
    ("pythonic/bare_unicode", "as `pythonic/bare_two_calls`"),
    (
        "llama3_json/half_a_number",
        "as `llama3_json/bare_at_start`",
    ),
    (
        "xlam/list_unreadable_then_readable",
        "as `xlam/bare_at_start`",
    ),
    (
        "pythonic/unreadable_call_then_readable_sibling",
        "as `pythonic/bare_two_calls`",
    ),
    (
        "pythonic/unreadable_word_then_more_arguments",
        "as `pythonic/bare_two_calls`",
    ),
    (
        "pythonic/positional_name_with_spaces",
        "as `pythonic/bare_two_calls`",
    ),
    (
        "pythonic/bare_values_with_delimiters",
        "as `pythonic/bare_two_calls`",
    ),
    (
        "llama3_json/bare_at_start",
        "a bare JSON object opening the output is Llama 3's call only when the format is known: \
         `auto` has no marker to find it by, and JSON content looks the same",
    ),
    (
        "llama3_json/bare_two_calls",
        "as `llama3_json/bare_at_start`",
    ),
    (
        "llama3_json/separator_then_text",
        "as `llama3_json/bare_at_start`",
    ),
    (
        "llama3_json/end_of_turn_after_call",
        "as `llama3_json/bare_at_start`",
    ),
    (
        "llama3_json/end_of_turn_inside_arguments",
        "as `llama3_json/bare_at_start`",
    ),
    (
        "xlam/end_of_turn_after_call",
        "as `xlam/bare_at_start`",
    ),
    (
        "pythonic/end_of_turn_after_call",
        "as `pythonic/bare_two_calls`",
    ),
    (
        "openai/first_header_from_prompt",
        "the rest of the header the prompt opened (` to=functions.NAME` before `<|channel|>`) is a \
         gpt-oss call only when the format is known: `auto` finds gpt-oss by `<|channel|>`, and \
         text before it is content",
    ),
    (
        "xlam/bare_at_start",
        "a bare JSON list opening the output is xLAM's call only when the format is known: \
         `auto` has no marker to find it by, as for `llama3_json/bare_at_start`",
    ),
    (
        "xlam/fenced_list",
        "as `xlam/bare_at_start`: a code fence at the start is no marker",
    ),
    (
        "deepseek_v3/v31_layout",
        "V3.1's layout (`NAME<｜tool▁sep｜>{…}`) is not a V3 call, so `deepseek_v3` keeps it as \
         content; `auto` reads it as the V3.1 call it is",
    ),
    (
        "step3/deepseek_spelling_is_text",
        "DeepSeek V3's markers (`▁`, not Step-3's `_`) are text to `step3`, which reports \
         `foreign_format`; `auto` reads the DeepSeek V3 call it is",
    ),
    (
        "pythonic/number_out_of_range",
        "as `pythonic/bare_two_calls`",
    ),
    (
        "deepseek_v41/v4_shape",
        "V4's unspaced DSML is text to `deepseek_v41` (as to vLLM's parser), which reports \
         `foreign_format`; `auto` reads the V4 call it is",
    ),
    (
        "deepseek_v4/v41_shape",
        "V4.1's spaced DSML is text to `deepseek_v4`, which reports `foreign_format`; `auto` \
         reads the V4.1 call it is",
    ),
    (
        "llama3_json/llama4_type_function_key",
        "as `llama3_json/bare_at_start`",
    ),
    (
        "iquest_q1/glm_wrapper_is_text",
        "GLM's `<tool_call>` is text to `iquest_q1` (`foreign_format`); `auto` reads the GLM call it is",
    ),
];

fn calls(message: &Message) -> Vec<(String, String, bool)> {
    message
        .tool_calls
        .iter()
        .map(|c| (c.name.clone(), c.arguments.clone(), c.complete))
        .collect()
}

#[test]
fn auto_reads_every_fixture_as_its_own_format_does() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for fixture in fixtures() {
        // Not detected: their openers are words that prose holds
        // (`functools`, `function call`), or there is none (`bare_json`,
        // opt-in: JSON content would be calls; Inkling's output starts
        // inside the header its prompt opened; TeleChat4 opens with GLM's
        // and Hermes's `<tool_call>`, and is named rather than detected; so
        // is Laguna, whose tags are GLM's and bare JSON has no opener;
        // Muse's output starts in its prompt's header, gpt-oss's markers).
        // openPangu V2 writes LFM2's markers, which `auto` gives to LFM2.
        if matches!(
            fixture.format,
            Format::Phi4MiniJson
                | Format::GigaChat3
                | Format::BareJson
                | Format::OpenPanguV2
                | Format::Inkling
                | Format::TeleChat4
                | Format::PoolsideV1
                | Format::Muse
                // Qwen3-Coder's `<function=`; a list with no marker.
                | Format::FunctionaryV31
                | Format::Sarashina
                // `>>>` is plain text; the output starts in a header.
                | Format::FunctionaryV32
        ) {
            continue;
        }
        let label = format!("{}/{}", fixture.format, fixture.name);
        let own = message_of(&one_shot(&mut fixture.parser(), &fixture.input));
        let mut auto = fixture.builder().format(Format::Auto).build();
        let found = message_of(&one_shot(&mut auto, &fixture.input));
        checked += 1;
        let listed = DIFFERENT.iter().any(|(name, _)| *name == label);
        let same = calls(&found) == calls(&own);
        if same == listed {
            failures.push(format!(
                "{label} ({}):\n  own:  {:?}\n  auto: {:?}\n  auto diagnostics: {:?}",
                if listed {
                    "listed but agrees"
                } else {
                    "differs"
                },
                calls(&own),
                calls(&found),
                found
                    .diagnostics
                    .iter()
                    .map(|d| d.kind.as_str())
                    .collect::<Vec<_>>()
            ));
            continue;
        }
        if !own.tool_calls.is_empty() && !listed {
            let detected: Vec<&str> = found
                .diagnostics
                .iter()
                .filter(|d| d.kind == DiagnosticKind::FormatDetected)
                .map(|d| d.message.as_str())
                .collect();
            assert_eq!(detected.len(), 1, "{label}: {detected:?}");
        }
    }
    assert!(checked > 300, "only {checked} fixtures");
    assert!(
        failures.is_empty(),
        "{} of {checked}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn auto_is_split_invariant_on_every_fixture() {
    for fixture in fixtures() {
        let mut auto = fixture.builder().format(Format::Auto).build();
        let whole = coalesce(one_shot(&mut auto, &fixture.input));
        for size in [1, 3, 7] {
            let cuts: Vec<usize> = (size..fixture.input.len()).step_by(size).collect();
            let split = coalesce(feed_cut(&mut auto, &fixture.input, &cuts));
            assert_eq!(
                split, whole,
                "{}/{} in {size}-byte pieces",
                fixture.format, fixture.name
            );
        }
    }
}

/// Openers written as words before the call: each gets candidates that
/// read a few characters and drop, and a later call of any format must be
/// read as it is without them (a dropped candidate is reused, reset).
#[test]
fn openers_written_as_words_before_a_call_change_nothing_in_it() {
    let openers = [
        "<tool_call>",
        "<tool_calls>",
        "[TOOL_CALLS]",
        "<function_calls>",
        "<|tool_calls_section_begin|>",
        "<\u{ff5c}tool\u{2581}calls\u{2581}begin\u{ff5c}>",
        "<|python_start|>",
        "<invoke name=",
    ];
    let mut prose = String::new();
    for round in 0..3 {
        for opener in openers {
            prose.push_str(&format!("Say {opener} ({round}) as a word.\n"));
        }
    }
    let mut checked = 0;
    for fixture in fixtures() {
        let mut auto = fixture.builder().format(Format::Auto).build();
        let alone = message_of(&one_shot(&mut auto, &fixture.input));
        if alone.tool_calls.is_empty() || alone.reasoning.is_some() {
            continue;
        }
        let mut input = prose.clone().into_bytes();
        input.extend_from_slice(&fixture.input);
        let after = message_of(&one_shot(&mut auto, &input));
        assert_eq!(
            calls(&after),
            calls(&alone),
            "{}/{}",
            fixture.format,
            fixture.name
        );
        checked += 1;
    }
    assert!(checked > 200, "only {checked} fixtures");
}

/// A shared opener whose next byte rules out every format that shares it
/// is passed over at once when that byte is in the same chunk, and read by
/// candidates when it is not: the events must not tell the two apart.
#[test]
fn a_shared_opener_refused_by_its_next_byte_reads_the_same_at_every_split() {
    let mut text = String::new();
    for after in [
        " (plural)",
        "\n\t* item",
        "[x]",
        "{y}",
        "</tool_calls>",
        "`z`",
        "é",
    ] {
        text.push_str(&format!(
            "Say <tool_calls>{after} and <tool_call>{after} here.\n"
        ));
    }
    text.push_str("Say <tool_calls>  \n here.\n");
    text.push_str("<tool_calls>[{\"name\": \"f\", \"arguments\": {\"a\": 1}}]</tool_calls>");
    for format in [Format::Auto, Format::Qwen3Coder, Format::Hermes] {
        let mut parser = Parser::builder()
            .format(format)
            .ids(Ids::sequential("call_"))
            .build();
        let whole = coalesce(one_shot(&mut parser, text.as_bytes()));
        for size in [1, 2, 5, 13] {
            let cuts: Vec<usize> = (size..text.len()).step_by(size).collect();
            let split = coalesce(feed_cut(&mut parser, text.as_bytes(), &cuts));
            assert_eq!(split, whole, "{format} in {size}-byte pieces");
        }
        let message = message_of(&whole);
        if format == Format::Auto {
            assert_eq!(message.tool_calls.len(), 1, "{message:?}");
        } else {
            // Jamba's call, in another format's content.
            // (Hermes reads `<tool_call>{y}` as a body that is not JSON.)
            assert!(kinds(&message).contains(&"foreign_format"), "{format}");
        }
    }
}

/// Candidates may read on past another opener before the last of them
/// gives up: GLM's reads `here.` after `<tool_call>` as a name and waits
/// for what confirms it; with `hold_text_after_wrapper`, Kimi-K2's (the
/// only format that opens with `<|tool_calls_section_begin|>`) holds what
/// follows its opener to the end of the stream. The opener is then text,
/// and what they read after it is read again: the call that follows is
/// found, at every split, and at the end of the stream too.
#[test]
fn an_opener_inside_text_that_candidates_gave_up_on_is_read() {
    let call = "<tool_calls>[{\"name\": \"f\", \"arguments\": {\"a\": 1}}]</tool_calls>";
    for (prose, hold) in [
        ("Say <tool_call>  \n here.\n", false),
        ("Say <tool_call>  \n here.\n", true),
        ("Say <|tool_calls_section_begin|> as a word.\n", true),
    ] {
        let text = format!("{prose}{call}");
        let mut auto = Parser::builder()
            .format(Format::Auto)
            .hold_text_after_wrapper(hold)
            .ids(Ids::sequential("call_"))
            .build();
        let whole = coalesce(one_shot(&mut auto, text.as_bytes()));
        let message = message_of(&whole);
        assert_eq!(
            message.content.as_deref(),
            Some(prose),
            "{prose:?} hold {hold}"
        );
        assert_eq!(
            message.tool_calls.len(),
            1,
            "{prose:?} hold {hold}: {message:?}"
        );
        assert_eq!(message.tool_calls[0].arguments, "{\"a\": 1}");
        let detected = &message.diagnostics[0];
        assert_eq!(detected.kind, DiagnosticKind::FormatDetected);
        assert_eq!(
            detected.span.start as usize,
            prose.len(),
            "the opener's place"
        );
        for size in 1..=9 {
            let cuts: Vec<usize> = (size..text.len()).step_by(size).collect();
            let split = coalesce(feed_cut(&mut auto, text.as_bytes(), &cuts));
            assert_eq!(split, whole, "{prose:?} hold {hold}, {size}-byte pieces");
        }
    }
}

#[test]
fn text_without_a_call_is_all_content() {
    let text = "Use <tool_call> tags, [TOOL_CALLS] or <|channel|> here; <tool_calls> too.";
    let message = Parser::new(Format::Auto).parse(text);
    assert!(message.tool_calls.is_empty());
    assert_eq!(message.content.as_deref(), Some(text));
}

#[test]
fn the_first_call_decides_the_format_for_the_rest() {
    let text = "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>\
                <tool_call>\n<function=g>\n</function>\n</tool_call>";
    let mut parser = Parser::builder()
        .format(Format::Auto)
        .ids(Ids::sequential("call_"))
        .build();
    let message = parser.parse(text);
    assert_eq!(message.tool_calls.len(), 1, "{message:?}");
    assert_eq!(message.tool_calls[0].name, "f");
    assert_eq!(parser.format(), Format::Hermes);
    // A reset parser looks again.
    parser.reset();
    let message = parser.parse("[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"}");
    assert_eq!(message.tool_calls[0].name, "get_weather");
    assert_eq!(parser.format(), Format::Mistral);
}

#[test]
fn reasoning_before_the_call_is_split_before_the_format_is_known() {
    let text =
        "<think>Paris.</think>Ok.<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>";
    let message = Parser::builder()
        .format(Format::Auto)
        .reasoning(Reasoning::On)
        .build()
        .parse(text);
    assert_eq!(message.reasoning.as_deref(), Some("Paris."));
    assert_eq!(message.content.as_deref(), Some("Ok."));
    assert_eq!(message.tool_calls.len(), 1);
}

#[test]
fn auto_is_a_name_the_parser_knows() {
    assert_eq!("auto".parse::<Format>(), Ok(Format::Auto));
    assert_eq!(Format::Auto.name(), "auto");
    assert!(!Format::ALL.contains(&Format::Auto));
}

fn kinds(message: &Message) -> Vec<&'static str> {
    message
        .diagnostics
        .iter()
        .map(|d| d.kind.as_str())
        .collect()
}

#[test]
fn a_call_in_another_format_is_content_and_said_to_be() {
    let hermes = "Sure.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";
    let message = Parser::new(Format::Qwen3Coder).parse(hermes);
    assert!(message.tool_calls.is_empty());
    assert_eq!(message.content.as_deref(), Some(hermes));
    assert_eq!(kinds(&message), ["foreign_format"]);
    assert!(message.diagnostics[0].message.contains("`hermes`"));
    assert!(message.diagnostics[0].message.contains("`get_weather`"));

    let qwen =
        "<tool_call>\n<function=ls>\n<parameter=path>\n/\n</parameter>\n</function>\n</tool_call>";
    let message = Parser::new(Format::Hermes).parse(qwen);
    assert!(message.tool_calls.is_empty());
    assert_eq!(kinds(&message), ["foreign_format"]);
    assert!(message.diagnostics[0].message.contains("`qwen3_coder`"));

    let mistral = "Calling.[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"}";
    let message = Parser::new(Format::Glm47).parse(mistral);
    assert_eq!(kinds(&message), ["foreign_format"]);

    // The XML-parameter formats under another format (the user's report:
    // MiniMax calls came back as content under Qwen3-Coder with no word).
    // (Seed-OSS's `<function=` is Qwen3-Coder's own, which reads it.)
    for (text, under, name) in [
        (
            "<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"a\">1</parameter>\n\
             </invoke>\n</minimax:tool_call>",
            Format::Qwen3Coder,
            "minimax_m2",
        ),
        (
            "<seed:tool_call>\n<function=f>\n<parameter=a>1</parameter>\n</function>\n\
             </seed:tool_call>",
            Format::Hermes,
            "seed_oss",
        ),
        (
            "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter \
             name=\"a\" string=\"true\">1</｜DSML｜parameter>\n</｜DSML｜invoke>\n\
             </｜DSML｜function_calls>",
            Format::Qwen3Coder,
            "deepseek_v32",
        ),
        (
            "<|open|>tools<|sep|><|open|>call tool=\"f\" index=\"0\"<|sep|><|open|>argument \
             key=\"a\" type=\"integer\"<|sep|>1<|close|>argument<|sep|><|close|>call<|sep|>\
             <|close|>tools<|sep|>",
            Format::KimiK2,
            "kimi_k3",
        ),
        (
            "<tool_calls:6124c78e><tool_call:6124c78e>f<arg_key:6124c78e>a</arg_key:6124c78e>\
             <arg_value:6124c78e>1</arg_value:6124c78e></tool_call:6124c78e></tool_calls:6124c78e>",
            Format::Glm47,
            "hy_v4",
        ),
        (
            "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke \
             name=\"f\"><steptml:parameter name=\"a\">1</steptml:parameter></steptml:invoke>\
             <｜tool_call_end｜><｜tool_calls_end｜>",
            Format::MiniMaxM2,
            "step3",
        ),
    ] {
        let message = Parser::new(under).parse(text);
        assert!(message.tool_calls.is_empty(), "{name}");
        assert_eq!(message.content.as_deref(), Some(text));
        assert_eq!(kinds(&message), ["foreign_format"], "{name}");
        assert!(
            message.diagnostics[0]
                .message
                .contains(&format!("`{name}`")),
            "{name}"
        );
        let found = Parser::new(Format::Auto).parse(text);
        assert_eq!(found.tool_calls.len(), 1, "auto: {name}");
        assert!(
            found.diagnostics[0].message.contains(&format!("`{name}`")),
            "auto: {name}"
        );
    }
}

#[test]
fn prose_and_the_formats_own_calls_are_not_foreign() {
    for (format, text) in [
        (
            Format::Qwen3Coder,
            "Use <tool_call> tags and [TOOL_CALLS] markers.",
        ),
        (
            Format::Qwen3Coder,
            "<tool_call>\n<function=ls>\n</function>\n</tool_call>",
        ),
        (
            Format::Hermes,
            "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>",
        ),
    ] {
        let message = Parser::new(format).parse(text);
        assert!(kinds(&message).is_empty(), "{format}: {message:?}");
    }
}

#[test]
fn each_foreign_format_is_reported_once_per_stream_and_at_the_same_place_for_every_split() {
    let call = "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>";
    let text = format!("a {call} b {call} c[TOOL_CALLS]g[ARGS]{{}} d");
    let mut parser = Parser::new(Format::Qwen3Coder);
    let message = parser.parse(&text);
    assert_eq!(kinds(&message), ["foreign_format", "foreign_format"]);
    let whole = coalesce(one_shot(&mut parser, text.as_bytes()));
    for cut in 0..=text.len() {
        let split = coalesce(feed_cut(&mut parser, text.as_bytes(), &[cut]));
        assert_eq!(split, whole, "cut at {cut}");
    }
    let bytewise: Vec<usize> = (1..text.len()).collect();
    assert_eq!(
        coalesce(feed_cut(&mut parser, text.as_bytes(), &bytewise)),
        whole
    );
}

#[test]
fn r1_and_step3_share_an_opener_and_their_items_tell_them_apart() {
    let r1 = "Let me check.\n<｜tool_calls_begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n\
              ```json\n{\"city\": \"Paris\"}\n```<｜tool▁call▁end｜><｜tool_calls_end｜>";
    let step3 = "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke \
                 name=\"get_weather\"><steptml:parameter name=\"city\">Paris</steptml:parameter>\
                 </steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>";
    for (text, name) in [(r1, "deepseek_v3"), (step3, "step3")] {
        let mut parser = Parser::builder()
            .format(Format::Auto)
            .ids(Ids::sequential("call_"))
            .build();
        let message = parser.parse(text);
        assert_eq!(
            calls(&message),
            [(
                "get_weather".to_owned(),
                "{\"city\": \"Paris\"}".to_owned(),
                true
            )],
            "{name}: {message:?}"
        );
        assert!(
            message.diagnostics[0]
                .message
                .contains(&format!("`{name}`")),
            "{name}: {message:?}"
        );
        let whole = coalesce(one_shot(&mut parser, text.as_bytes()));
        for (cut, _) in text.char_indices() {
            let split = coalesce(feed_cut(&mut parser, text.as_bytes(), &[cut]));
            assert_eq!(split, whole, "{name}: cut at {cut}");
        }
    }
}

#[test]
fn a_call_far_into_long_prose_is_found_past_characters_that_share_an_openers_first_byte() {
    // `→`, `✓` and `─` share `◁`'s first byte; the call comes after 4 KB
    // of them, in text long enough for the watch's vectorized passes.
    let prose = "an arrow → a check ✓ a rule ──── then some words. ".repeat(80);
    let call = "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>";
    let text = format!("{prose}{call}{prose}");
    let mut parser = Parser::new(Format::Qwen3Coder);
    let message = parser.parse(&text);
    assert_eq!(message.content.as_deref(), Some(text.as_str()));
    assert_eq!(kinds(&message), ["foreign_format"]);
    let whole = coalesce(one_shot(&mut parser, text.as_bytes()));
    for cut in [
        1,
        300,
        prose.len() - 2,
        prose.len() + 1,
        prose.len() + 20,
        text.len() - 1,
    ] {
        let cut = (cut..).find(|&c| text.is_char_boundary(c)).unwrap_or(cut);
        let split = coalesce(feed_cut(&mut parser, text.as_bytes(), &[cut]));
        assert_eq!(split, whole, "cut at {cut}");
    }
    let no_call = Parser::new(Format::Qwen3Coder).parse(format!("{prose}◁ a lone triangle"));
    assert!(kinds(&no_call).is_empty());
}

#[test]
fn turning_the_watch_off_takes_away_only_its_reports() {
    let call = "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>";
    let long = "a line → of prose ✓\n".repeat(30);
    let inputs = [
        format!("a {call} b [TOOL_CALLS]g[ARGS]{{}} c"),
        format!("{long}<tool_call>\n<function=ls>\n</function>\n</tool_call>{long}{call}"),
        "<tool_call>\n<function=ls>\n<parameter=p>\n<tool_call>x</tool_call>\n</parameter>\n</function>\n</tool_call>"
            .to_owned(),
    ];
    for text in &inputs {
        let build = |watch| {
            Parser::builder()
                .format(Format::Qwen3Coder)
                .ids(Ids::sequential("call_"))
                .watch_foreign_formats(watch)
                .build()
        };
        let watched = build(true).parse(text);
        // The third holds another format's call only inside a value.
        let reported = kinds(&watched).contains(&"foreign_format");
        assert_eq!(reported, text != &inputs[2], "{text}");
        let unwatched = build(false).parse(text);
        let mut without_reports = watched.clone();
        without_reports
            .diagnostics
            .retain(|d| d.kind != DiagnosticKind::ForeignFormat);
        assert_eq!(unwatched, without_reports, "{text}");
    }
    // `auto` has no watch to turn off.
    let auto = Parser::builder()
        .format(Format::Auto)
        .watch_foreign_formats(false)
        .build()
        .parse(&inputs[0]);
    assert_eq!(auto.tool_calls.len(), 1);
}
