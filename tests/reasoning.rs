//! Reasoning: `<think>…</think>` (and each family's own markers) split from
//! content when asked, calls from inside reasoning, the template case
//! where the prompt opened reasoning, gpt-oss's channels, and reasoning in
//! the OpenAI output and the rewriter.

mod common;

use common::{feed_cut, one_shot};
use toolcall_stream::openai::{ChunkEncoder, CompletionMeta, Rewriter};
use toolcall_stream::{coalesce, Format, Ids, Message, OwnedEvent, Parser, Reasoning};

fn parser(format: Format, reasoning: Reasoning, calls: bool) -> Parser {
    Parser::builder()
        .format(format)
        .reasoning(reasoning)
        .calls_in_reasoning(calls)
        .ids(Ids::sequential("call_"))
        .build()
}

fn parse(format: Format, reasoning: Reasoning, text: &str) -> Message {
    parser(format, reasoning, true).parse(text)
}

/// Every split of `text` in two, and byte by byte, gives the events of
/// one shot.
fn assert_split_invariant(mut parser: Parser, text: &str) {
    let input = text.as_bytes();
    let whole = coalesce(one_shot(&mut parser, input));
    for cut in 0..=input.len() {
        let split = coalesce(feed_cut(&mut parser, input, &[cut]));
        assert_eq!(split, whole, "cut at {cut} of {text:?}");
    }
    let bytewise: Vec<usize> = (1..input.len()).collect();
    assert_eq!(coalesce(feed_cut(&mut parser, input, &bytewise)), whole);
}

const HERMES_CALL: &str =
    "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";

#[test]
fn think_blocks_are_reasoning_when_asked_and_content_by_default() {
    let text = format!("<think>Paris, then.</think>Checking.{HERMES_CALL}");
    let on = parse(Format::Hermes, Reasoning::On, &text);
    assert_eq!(on.reasoning.as_deref(), Some("Paris, then."));
    assert_eq!(on.content.as_deref(), Some("Checking."));
    assert_eq!(on.tool_calls.len(), 1);
    assert!(on.diagnostics.is_empty());

    let off = parse(Format::Hermes, Reasoning::Off, &text);
    assert_eq!(off.reasoning, None);
    assert_eq!(
        off.content.as_deref(),
        Some("<think>Paris, then.</think>Checking.")
    );
}

#[test]
fn started_reasoning_ends_at_the_closer_alone() {
    let text = format!("The user wants Paris.\n</think>\n\n{HERMES_CALL}");
    let message = parse(Format::Hermes, Reasoning::Started, &text);
    assert_eq!(
        message.reasoning.as_deref(),
        Some("The user wants Paris.\n")
    );
    assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris"}"#);
    // Without the closer, all of it is reasoning.
    let message = parse(Format::Hermes, Reasoning::Started, "Still thinking");
    assert_eq!(message.reasoning.as_deref(), Some("Still thinking"));
    assert_eq!(message.content, None);
}

#[test]
fn a_call_opener_inside_reasoning_ends_it_and_its_closer_after_the_call_is_structure() {
    let text = format!("<think>I need the weather {HERMES_CALL}</think>Done.");
    let message = parse(Format::Hermes, Reasoning::On, &text);
    assert_eq!(message.reasoning.as_deref(), Some("I need the weather "));
    assert_eq!(message.tool_calls.len(), 1);
    assert_eq!(message.content.as_deref(), Some("Done."));
    assert!(message.diagnostics.is_empty());
}

#[test]
fn calls_inside_reasoning_can_be_reasoning_text() {
    let text = format!("<think>The syntax is {HERMES_CALL}, I think.</think>No call.");
    let message = parser(Format::Hermes, Reasoning::On, false).parse(&text);
    assert!(message.tool_calls.is_empty());
    assert_eq!(
        message.reasoning.as_deref(),
        Some(format!("The syntax is {HERMES_CALL}, I think.").as_str())
    );
    assert_eq!(message.content.as_deref(), Some("No call."));
}

#[test]
fn an_opener_that_is_not_a_call_stays_reasoning() {
    let text = "<think>Use <tool_call> tags here.</think>Ok.";
    let message = parse(Format::Qwen3Coder, Reasoning::On, text);
    assert_eq!(
        message.reasoning.as_deref(),
        Some("Use <tool_call> tags here.")
    );
    assert_eq!(message.content.as_deref(), Some("Ok."));
}

#[test]
fn reasoning_markers_inside_a_value_are_value_text() {
    let text = "<tool_call>\n<function=write>\n<parameter=text>\n<think>x</think>\n\
                </parameter>\n</function>\n</tool_call>";
    let message = parse(Format::Qwen3Coder, Reasoning::On, text);
    assert_eq!(
        message.tool_calls[0].arguments,
        r#"{"text": "<think>x</think>"}"#
    );
    assert_eq!(message.reasoning, None);
}

#[test]
fn each_family_splits_its_own_markers() {
    let cases = [
        (
            Format::Qwen3Coder,
            "<think>q</think>a<tool_call>\n<function=f>\n</function>\n</tool_call>",
        ),
        (
            Format::Glm47,
            "<think>q</think>a<tool_call>f<arg_key>k</arg_key><arg_value>v</arg_value></tool_call>",
        ),
        (
            Format::KimiK2,
            "<think>q</think>a<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0\
             <|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>",
        ),
        (
            Format::DeepSeekV31,
            "<think>q</think>a<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{}\
             <｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        ),
        (
            Format::KimiK2,
            "◁think▷q◁/think▷a<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0\
             <|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>",
        ),
        (Format::Mistral, "[THINK]q[/THINK]a[TOOL_CALLS]f[ARGS]{}"),
        (
            Format::CohereCommand3,
            "<|START_THINKING|>q<|END_THINKING|>a<|START_ACTION|>[{\"tool_name\": \"f\", \"parameters\": {}}]<|END_ACTION|>",
        ),
        (
            Format::HunyuanA13b,
            "<think>q</think>a<tool_calls>[{\"name\": \"f\", \"arguments\": {}}]</tool_calls>",
        ),
        (
            Format::Gemma4,
            "<|channel>thought\nq<channel|>a<|tool_call>call:f{k:<|\"|><channel|><|\"|>}<tool_call|>",
        ),
        (Format::Olmo3, "<think>q</think>a<function_calls>f(k='</think>')</function_calls>"),
        (
            Format::Lfm2,
            "<think>q</think>a<|tool_call_start|>[f(k=\"<think>\")]<|tool_call_end|>",
        ),
    ];
    for (format, text) in cases {
        let message = parse(format, Reasoning::On, text);
        assert_eq!(message.reasoning.as_deref(), Some("q"), "{format}");
        assert_eq!(message.content.as_deref(), Some("a"), "{format}");
        assert_eq!(message.tool_calls.len(), 1, "{format}");
        assert_split_invariant(parser(format, Reasoning::On, true), text);
    }
}

/// `◁` and `▷` begin with the same UTF-8 byte, so a match of `◁think▷`
/// that fails at `▷` may have stepped over the start of the next marker.
#[test]
fn kimis_arrow_markers_start_over_where_a_failed_one_holds_another() {
    let call = "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0\
                <|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>";
    let cases: [(&str, Option<&str>, Option<&str>); 7] = [
        ("◁think◁think▷q◁/think▷a", Some("q"), Some("◁thinka")),
        ("◁think▷q◁/think◁/think▷a", Some("q◁/think"), Some("a")),
        (
            "◁thin◁think▷q◁/thi◁/think▷a",
            Some("q◁/thi"),
            Some("◁thina"),
        ),
        ("◁think◁/think▷a", None, Some("◁think◁/think▷a")),
        ("◁◁◁think▷▷q◁/think▷", Some("▷q"), Some("◁◁")),
        ("◁think▷◁think▷q◁/think▷", Some("◁think▷q"), None),
        (
            "◁think\u{25b6}q◁/think▷",
            None,
            Some("◁think\u{25b6}q◁/think▷"),
        ),
    ];
    for (text, reasoning, content) in cases {
        let message = parse(Format::KimiK2, Reasoning::On, text);
        assert_eq!(message.reasoning.as_deref(), reasoning, "{text}");
        assert_eq!(message.content.as_deref(), content, "{text}");
        let with_call = format!("{text}{call}");
        for format in [Format::KimiK2, Format::Auto, Format::Hermes] {
            for mode in [Reasoning::Off, Reasoning::On, Reasoning::Started] {
                assert_split_invariant(parser(format, mode, true), text);
                assert_split_invariant(parser(format, mode, true), &with_call);
            }
        }
        let found = parse(Format::Auto, Reasoning::On, &with_call);
        assert_eq!(found.reasoning.as_deref(), reasoning, "auto: {text}");
        assert_eq!(found.tool_calls.len(), 1, "auto: {text}");
    }
}

/// Text that opens a JSON value (`[` after the opener) before a marker:
/// the marker is the value's text, whether or not a chunk ends between
/// the two, and after the JSON fails it is read again as a marker.
#[test]
fn a_marker_right_after_a_json_values_first_byte_is_read_the_same_at_every_cut() {
    let cases = [
        (
            Format::CohereCommand3,
            "<|START_ACTION|>[<|START_THINKING|>q<|END_THINKING|>a",
        ),
        (
            Format::Apertus,
            "<|tools_prefix|>{<|inner_prefix|>q<|inner_suffix|>a",
        ),
        (Format::Hermes, "<tool_call>[<think>q</think>a"),
    ];
    for (format, text) in cases {
        let message = parse(format, Reasoning::On, text);
        assert_eq!(message.reasoning.as_deref(), Some("q"), "{format}");
        assert!(message
            .content
            .as_deref()
            .is_some_and(|c| c.ends_with("[a") || c.ends_with("{a")));
        for mode in [Reasoning::Off, Reasoning::On] {
            assert_split_invariant(parser(format, mode, true), text);
        }
    }
}

#[test]
fn reasoning_is_split_the_same_at_every_cut() {
    let texts = [
        format!("<think>a</think>b{HERMES_CALL}c"),
        format!("<think>a {HERMES_CALL} b</think>c<think>d</think>"),
        "<think><think></think></think><tool_call>x".to_owned(),
        "</think>a<think>".to_owned(),
    ];
    for text in &texts {
        for reasoning in [Reasoning::Off, Reasoning::On, Reasoning::Started] {
            for calls in [true, false] {
                assert_split_invariant(parser(Format::Hermes, reasoning, calls), text);
            }
        }
    }
}

#[test]
fn gpt_oss_channels_are_reasoning_whatever_the_option() {
    let text = "<|channel|>analysis<|message|>Paris.<|end|><|start|>assistant<|channel|>final\
                <|message|>Sunny.<|return|>";
    for reasoning in [Reasoning::Off, Reasoning::On] {
        let message = parse(Format::OpenAi, reasoning, text);
        assert_eq!(message.reasoning.as_deref(), Some("Paris."));
        assert_eq!(message.content.as_deref(), Some("Sunny."));
    }
    assert_split_invariant(parser(Format::OpenAi, Reasoning::Off, true), text);
}

#[test]
fn the_openai_output_carries_reasoning_content() {
    let text = format!("<think>Hmm.</think>Sure.{HERMES_CALL}");
    let mut parser = parser(Format::Hermes, Reasoning::On, true);
    let mut encoder = ChunkEncoder::new(CompletionMeta::new("m"));
    let mut reasoning = String::new();
    for piece in text.as_bytes().chunks(3) {
        parser.feed_with(piece, |event| encoder.push(&event));
        if let Some(chunk) = encoder.take_chunk() {
            if let Some(r) = &chunk.choices[0].delta.reasoning_content {
                reasoning.push_str(r);
            }
        }
    }
    parser.finish_with(|event| encoder.push(&event));
    assert_eq!(reasoning, "Hmm.");

    let message = parse(Format::Hermes, Reasoning::On, &text);
    let completion = message.to_chat_completion(&CompletionMeta::new("m"), false);
    let choice = &completion.choices[0].message;
    assert_eq!(choice.reasoning_content.as_deref(), Some("Hmm."));
    assert_eq!(choice.content.as_deref(), Some("Sure."));
}

#[test]
fn the_rewriter_moves_reasoning_out_of_the_content() {
    let upstream = |content: &str, finish: Option<&str>| {
        serde_json::from_value(serde_json::json!({
            "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
            "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": finish}]
        }))
        .unwrap()
    };
    let builder = Parser::builder()
        .format(Format::Hermes)
        .reasoning(Reasoning::Started);
    // Both ways in: decoded chunks, and the SSE JSON the proxy passes.
    let mut rewriter = Rewriter::new(builder.clone());
    let mut out = Vec::new();
    rewriter.push(upstream("Let me ", None), &mut out);
    rewriter.push(upstream("see.</think>Hi", Some("stop")), &mut out);
    rewriter.finish(&mut out);
    let (mut reasoning, mut content) = (String::new(), String::new());
    for chunk in &out {
        for choice in &chunk.choices {
            reasoning.push_str(choice.delta.reasoning_content.as_deref().unwrap_or(""));
            content.push_str(choice.delta.content.as_deref().unwrap_or(""));
        }
    }
    assert_eq!(
        (reasoning.as_str(), content.as_str()),
        ("Let me see.", "Hi")
    );

    let mut rewriter = Rewriter::new(builder);
    let mut sse = String::new();
    for (text, finish) in [("Let me ", None), ("see.</think>Hi", Some("stop"))] {
        let chunk: toolcall_stream::openai::ChatCompletionChunk = upstream(text, finish);
        let json = serde_json::to_string(&chunk).unwrap();
        rewriter.push_json(&json, &mut sse).unwrap();
    }
    assert!(sse.contains(r#""reasoning_content":"Let me ""#), "{sse}");
    assert!(sse.contains(r#""reasoning_content":"see.""#), "{sse}");
    assert!(sse.contains(r#""content":"Hi""#), "{sse}");
}

#[test]
fn events_serialize_with_their_type() {
    let events = one_shot(
        &mut parser(Format::Hermes, Reasoning::On, true),
        b"<think>a</think>",
    );
    assert_eq!(
        events,
        [OwnedEvent::Reasoning {
            text: "a".to_owned()
        }]
    );
    assert_eq!(
        serde_json::to_string(&events[0]).unwrap(),
        r#"{"type":"reasoning","text":"a"}"#
    );
}

/// Where the prompt opened reasoning (`Reasoning::Started`), an output
/// that opens it again at its very start (Command A, whose templates differ
/// on which side writes `<|START_THINKING|>`) has one reasoning block, not
/// the opener as reasoning text; later, a second opener is text.
#[test]
fn an_opener_the_prompt_already_wrote_is_structure_at_the_start() {
    let text = "<|START_THINKING|>The user wants the weather.<|END_THINKING|><|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}]<|END_ACTION|>";
    let message = parse(Format::CohereCommand3, Reasoning::Started, text);
    assert_eq!(
        message.reasoning.as_deref(),
        Some("The user wants the weather.")
    );
    assert_eq!(message.content, None);
    assert_eq!(message.tool_calls.len(), 1);
    assert_split_invariant(
        parser(Format::CohereCommand3, Reasoning::Started, true),
        text,
    );
    let later = parse(
        Format::CohereCommand3,
        Reasoning::Started,
        "Thinking <|START_THINKING|> here.<|END_THINKING|>Answer.",
    );
    assert_eq!(
        later.reasoning.as_deref(),
        Some("Thinking <|START_THINKING|> here.")
    );
    assert_eq!(later.content.as_deref(), Some("Answer."));
}
