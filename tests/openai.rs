//! OpenAI wire output: for every fixture of every format, the chunks of a
//! stream, joined the way an OpenAI client joins them, are the
//! `chat.completion` of the whole output, whatever the chunk size and
//! through either API; every chunk reads back as itself from its JSON.

mod common;

use std::collections::BTreeMap;

use common::{chunk_cuts, fixtures, Fixture};
use serde_json::Map;
use toolcall_stream::openai::{
    ChatCompletion, ChatCompletionChunk, Choice, ChunkEncoder, CompletionMeta, FinishReason,
    FunctionCall, ResponseMessage, ToolCall, CHAT_COMPLETION, CHAT_COMPLETION_CHUNK,
};
use toolcall_stream::{Format, Parser, ValueTermination};

/// Bytes per piece fed; `usize::MAX` is the whole output at once.
const PIECE_SIZES: [usize; 5] = [1, 3, 7, 64, usize::MAX];

fn meta() -> CompletionMeta {
    CompletionMeta::seeded("test-model", 11)
        .with_created(1_700_000_000)
        .with_system_fingerprint("fp_test")
}

/// The streaming side as a proxy runs it: the whole arguments are not
/// kept, since the chunks need only the fragments.
/// A parser that keeps no copy of a call, with unreadable calls as content
/// (as `parse`, whose completion the streams are compared with).
fn lean_parser(fixture: &Fixture) -> Parser {
    fixture
        .builder()
        .retain_arguments(false)
        .unreadable_calls_as_content(true)
        .build()
}

/// Streams `input` in pieces of `size` bytes, taking a chunk after each
/// piece, through the iterator API or the push API.
fn stream(
    parser: &mut Parser,
    input: &[u8],
    size: usize,
    push: bool,
    cut_off: bool,
) -> Vec<ChatCompletionChunk> {
    parser.reset();
    let mut encoder = ChunkEncoder::new(meta());
    let mut chunks = Vec::new();
    let mut start = 0;
    let cuts = chunk_cuts(input.len(), size.min(input.len().max(1)));
    for end in cuts.into_iter().chain(std::iter::once(input.len())) {
        let piece = &input[start..end];
        start = end;
        if push {
            parser.feed_with(piece, |event| encoder.push(&event));
        } else {
            for event in parser.feed(piece) {
                encoder.push(&event);
            }
        }
        chunks.extend(encoder.take_chunk());
    }
    if push {
        parser.finish_with(|event| encoder.push(&event));
    } else {
        for event in parser.finish() {
            encoder.push(&event);
        }
    }
    chunks.push(encoder.finish(cut_off));
    chunks
}

/// A call as a client accumulates it from its deltas.
#[derive(Default)]
struct CallSoFar {
    id: Option<String>,
    kind: Option<String>,
    name: Option<String>,
    arguments: String,
}

/// Joins the chunks as an OpenAI client does (content concatenated, calls
/// accumulated by `index`: id, type and name from their first delta,
/// arguments concatenated), checking on the way what a client relies on.
fn reassemble(chunks: &[ChatCompletionChunk], context: &str) -> ChatCompletion {
    let meta = meta();
    let mut content: Option<String> = None;
    let mut reasoning: Option<String> = None;
    let mut calls: BTreeMap<usize, CallSoFar> = BTreeMap::new();
    let mut finish_reason = None;
    for (position, chunk) in chunks.iter().enumerate() {
        let last = position + 1 == chunks.len();
        assert_eq!(chunk.id, meta.id, "{context}");
        assert_eq!(chunk.object, CHAT_COMPLETION_CHUNK, "{context}");
        assert_eq!(chunk.created, meta.created, "{context}");
        assert_eq!(chunk.model, meta.model, "{context}");
        assert_eq!(chunk.system_fingerprint, meta.system_fingerprint);
        assert_eq!(chunk.choices.len(), 1, "{context}");
        let choice = &chunk.choices[0];
        assert_eq!(choice.index, 0, "{context}");
        assert_eq!(
            choice.finish_reason.is_some(),
            last,
            "{context}: chunk {position}"
        );
        let delta = &choice.delta;
        assert_eq!(
            delta.role.as_deref(),
            (position == 0).then_some("assistant"),
            "{context}: chunk {position}"
        );
        if !last {
            assert!(
                delta.content.is_some()
                    || delta.tool_calls.is_some()
                    || delta.reasoning_content.is_some(),
                "{context}: chunk {position} is empty"
            );
        }
        if let Some(text) = &delta.content {
            assert!(!text.is_empty(), "{context}: empty content delta");
            content.get_or_insert_with(String::new).push_str(text);
        }
        if let Some(text) = &delta.reasoning_content {
            assert!(!text.is_empty(), "{context}: empty reasoning delta");
            reasoning.get_or_insert_with(String::new).push_str(text);
        }
        for call in delta.tool_calls.iter().flatten() {
            let first = !calls.contains_key(&call.index);
            let so_far = calls.entry(call.index).or_default();
            assert_eq!(call.id.is_some(), first, "{context}: id only first");
            assert_eq!(call.kind.is_some(), first, "{context}: type only first");
            let function = call
                .function
                .as_ref()
                .unwrap_or_else(|| panic!("{context}: delta without function"));
            assert_eq!(function.name.is_some(), first, "{context}: name only first");
            if first {
                so_far.id = call.id.clone();
                so_far.kind = call.kind.clone();
                so_far.name = function.name.clone();
            }
            let arguments = function
                .arguments
                .as_deref()
                .unwrap_or_else(|| panic!("{context}: delta without arguments"));
            assert!(
                first || !arguments.is_empty(),
                "{context}: an empty arguments fragment"
            );
            so_far.arguments.push_str(arguments);
        }
        finish_reason = choice.finish_reason.clone();
    }
    assert!(
        calls.keys().copied().eq(0..calls.len()),
        "{context}: call indexes"
    );
    let tool_calls: Vec<ToolCall> = calls
        .into_values()
        .map(|call| ToolCall {
            id: call.id.unwrap_or_default(),
            kind: call.kind.unwrap_or_default(),
            function: FunctionCall {
                name: call.name.unwrap_or_default(),
                arguments: call.arguments,
                extra: Map::new(),
            },
            extra: Map::new(),
        })
        .collect();
    ChatCompletion {
        id: meta.id.clone(),
        object: CHAT_COMPLETION.to_owned(),
        created: meta.created,
        model: meta.model.clone(),
        system_fingerprint: meta.system_fingerprint.clone(),
        choices: vec![Choice {
            index: 0,
            message: ResponseMessage {
                role: "assistant".to_owned(),
                content,
                refusal: None,
                tool_calls: (!tool_calls.is_empty()).then_some(tool_calls),
                reasoning_content: reasoning,
                extra: Map::new(),
            },
            finish_reason,
            logprobs: None,
            extra: Map::new(),
        }],
        usage: None,
        extra: Map::new(),
    }
}

fn assert_round_trips(chunks: &[ChatCompletionChunk], context: &str) {
    for chunk in chunks {
        let json = serde_json::to_string(chunk).unwrap();
        let back: ChatCompletionChunk =
            serde_json::from_str(&json).unwrap_or_else(|e| panic!("{context}: {e}: {json}"));
        assert_eq!(&back, chunk, "{context}: {json}");
    }
}

/// Checks one output in every piece size, through both APIs, as cut off
/// or not; returns how many streams were checked.
fn check_output(fixture: &Fixture) -> usize {
    let message = fixture.parser().parse(&fixture.input);
    let mut parser = lean_parser(fixture);
    let mut streams = 0;
    for cut_off in [false, true] {
        let expected = message.to_chat_completion(&meta(), cut_off);
        let json = serde_json::to_string(&expected).unwrap();
        let back: ChatCompletion = serde_json::from_str(&json).unwrap();
        assert_eq!(back, expected, "{}: {json}", fixture.name);
        for size in PIECE_SIZES {
            for push in [false, true] {
                let context = format!(
                    "{}/{} in {size}-byte pieces, push {push}, cut off {cut_off}",
                    fixture.format.name(),
                    fixture.name
                );
                let chunks = stream(&mut parser, &fixture.input, size, push, cut_off);
                assert_round_trips(&chunks, &context);
                let joined = reassemble(&chunks, &context);
                assert_eq!(joined, expected, "{context}");
                streams += 1;
            }
        }
    }
    streams
}

#[test]
fn joined_chunks_are_the_completion_for_every_fixture_and_piece_size() {
    let streams: usize = fixtures().iter().map(check_output).sum();
    assert!(streams >= 100 * PIECE_SIZES.len() * 4, "{streams} streams");
}

/// Outputs whose OpenAI form has a corner the fixtures do not all reach:
/// blank content around calls (`content: null`), blank content alone,
/// nothing at all, a complete call then a cut-off one.
fn corner_cases() -> Vec<Fixture> {
    let qwen = |name: &str, input: &str| Fixture {
        name: name.to_owned(),
        format: Format::Qwen3Coder,
        mode: ValueTermination::Lookahead,
        hold_text_after_wrapper: false,
        strict: false,
        tools: None,
        input: input.as_bytes().to_vec(),
    };
    let glm = |name: &str, input: &str| Fixture {
        format: Format::Glm45,
        ..qwen(name, input)
    };
    let call =
        "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>";
    let glm_call = "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</arg_value>\n</tool_call>";
    vec![
        qwen("blank_around_call", &format!("\n \n{call}\n\n{call}\n")),
        qwen("blank_then_text", &format!("\n\n  Text.\n{call}\n")),
        qwen("only_blank", " \n\t\n"),
        qwen("empty", ""),
        qwen(
            "complete_then_cut_off",
            &format!("{call}\n<tool_call>\n<function=g>\n<parameter=b>\n2"),
        ),
        qwen("cut_off_in_name", "Hi <tool_call>\n<function=get_wea"),
        glm("glm_blank_around_call", &format!("\n{glm_call}\n")),
        glm(
            "glm_complete_then_cut_off",
            &format!("{glm_call}<tool_call>g\n<arg_key>b"),
        ),
    ]
}

#[test]
fn joined_chunks_are_the_completion_in_corner_cases() {
    let cases = corner_cases();
    for case in &cases {
        check_output(case);
    }
    // What the cases are for, so that a change in the parser that moves
    // them away from their corner shows.
    let completion = |name: &str| {
        let case = cases.iter().find(|c| c.name == name).unwrap();
        case.parser()
            .parse(&case.input)
            .to_chat_completion(&meta(), false)
            .choices
            .remove(0)
    };
    assert_eq!(completion("blank_around_call").message.content, None);
    assert_eq!(completion("glm_blank_around_call").message.content, None);
    assert_eq!(
        completion("blank_then_text").message.content.as_deref(),
        Some("\n\n  Text.")
    );
    assert_eq!(
        completion("only_blank").message.content.as_deref(),
        Some(" \n\t\n")
    );
    assert_eq!(completion("empty").message.content, None);
    assert_eq!(completion("empty").finish_reason, Some(FinishReason::Stop));
    for name in ["complete_then_cut_off", "glm_complete_then_cut_off"] {
        let choice = completion(name);
        assert_eq!(
            choice.message.tool_calls.map(|c| c.len()),
            Some(2),
            "{name}"
        );
        assert_eq!(
            choice.finish_reason,
            Some(FinishReason::ToolCalls),
            "{name}"
        );
    }
}

#[test]
fn finish_reason_is_tool_calls_exactly_when_a_call_is_complete() {
    let mut seen = BTreeMap::new();
    for fixture in fixtures() {
        let message = fixture.parser().parse(&fixture.input);
        let complete = message.tool_calls.iter().any(|call| call.complete);
        let mut parser = lean_parser(&fixture);
        let chunks = stream(&mut parser, &fixture.input, 5, false, false);
        let reason = chunks.last().unwrap().choices[0].finish_reason.clone();
        let expected = if complete {
            FinishReason::ToolCalls
        } else {
            FinishReason::Stop
        };
        assert_eq!(reason, Some(expected.clone()), "{}", fixture.name);
        *seen.entry(expected.to_string()).or_insert(0) += 1;
    }
    // The fixtures cover both reasons.
    assert_eq!(seen.len(), 2, "{seen:?}");
}

#[test]
fn a_piece_that_completes_nothing_sends_no_chunk() {
    let fixture = fixtures()
        .into_iter()
        .find(|f| f.name == "content_around_calls")
        .expect("fixture content_around_calls");
    let mut parser = lean_parser(&fixture);
    let bytewise = stream(&mut parser, &fixture.input, 1, false, false);
    // Markers are held while undecided: fewer chunks than bytes.
    assert!(bytewise.len() < fixture.input.len(), "{}", bytewise.len());
    let whole = stream(&mut parser, &fixture.input, usize::MAX, false, false);
    assert!(whole.len() <= 2, "{}", whole.len());
}

/// Layout whitespace (around calls) is not content: for every fixture, the
/// content of the chunks joined, at every piece size, is the whole
/// completion's; it is the model's text less only whitespace, and with a
/// call it ends with no layout whitespace.
#[test]
fn streamed_content_is_the_whole_content_less_layout_for_every_fixture() {
    for fixture in fixtures() {
        let message = fixture.parser().parse(&fixture.input);
        let whole = message.to_chat_completion(&meta(), false).choices[0]
            .message
            .content
            .clone();
        assert_eq!(whole, message.openai_content(), "{}", fixture.name);
        let mut parser = lean_parser(&fixture);
        for size in [1, 2, 5, 13, usize::MAX] {
            let chunks = stream(&mut parser, &fixture.input, size, true, false);
            let streamed: Option<String> = chunks
                .iter()
                .filter_map(|chunk| chunk.choices[0].delta.content.as_deref())
                .fold(None, |joined, text| Some(joined.unwrap_or_default() + text));
            assert_eq!(streamed, whole, "{} in {size}-byte pieces", fixture.name);
        }
        let visible = |text: Option<&str>| -> String {
            text.unwrap_or("")
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect()
        };
        assert_eq!(
            visible(whole.as_deref()),
            visible(message.content.as_deref()),
            "{}: only whitespace is dropped",
            fixture.name
        );
        if !message.tool_calls.is_empty() {
            let text = whole.as_deref().unwrap_or("");
            assert_eq!(text, text.trim_end(), "{}", fixture.name);
        }
    }
}
