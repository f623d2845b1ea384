//! The chat chunks and their SSE frames: joined, they are the completion
//! for every fixture; frames end with `[DONE]`; an error cuts the chunks;
//! the usage chunk follows the last one.

use super::*;

/// A call as a client accumulates it from its deltas.
#[derive(Default)]
pub(crate) struct CallSoFar {
    id: String,
    name: String,
    arguments: String,
}

/// Joins chunks as an OpenAI client does: content (and reasoning)
/// concatenated, calls
/// accumulated by `index` (id and name from their first delta, arguments
/// concatenated), the finish reason from the last chunk. Checks on the way
/// that only the last chunk has a finish reason and only the first a role.
pub(crate) fn reassemble(chunks: &[ChatCompletionChunk], context: &str) -> ChatCompletion {
    let mut content: Option<String> = None;
    let mut reasoning: Option<String> = None;
    let mut calls: BTreeMap<usize, CallSoFar> = BTreeMap::new();
    let mut finish_reason = None;
    for (position, chunk) in chunks.iter().enumerate() {
        assert_eq!(chunk.id, meta().id, "{context}");
        let choice = &chunk.choices[0];
        let last = position + 1 == chunks.len();
        assert_eq!(
            choice.finish_reason.is_some(),
            last,
            "{context}: chunk {position}"
        );
        assert_eq!(
            choice.delta.role.is_some(),
            position == 0,
            "{context}: chunk {position}"
        );
        if let Some(text) = &choice.delta.content {
            content.get_or_insert_with(String::new).push_str(text);
        }
        if let Some(text) = &choice.delta.reasoning_content {
            reasoning.get_or_insert_with(String::new).push_str(text);
        }
        for call in choice.delta.tool_calls.iter().flatten() {
            let so_far = calls.entry(call.index).or_default();
            if let Some(id) = &call.id {
                so_far.id = id.clone();
            }
            let function = call.function.as_ref().expect("a delta has a function");
            if let Some(name) = &function.name {
                so_far.name = name.clone();
            }
            so_far
                .arguments
                .push_str(function.arguments.as_deref().unwrap_or(""));
        }
        finish_reason = choice.finish_reason.clone();
    }
    // The client's view, written into the completion the whole output gives.
    let mut completion = toolcall_stream::Message::default().to_chat_completion(&meta(), false);
    let message = &mut completion.choices[0].message;
    message.content = content;
    message.reasoning_content = reasoning;
    let tool_calls: Vec<_> = calls
        .into_values()
        .map(|call| toolcall_stream::openai::ToolCall {
            id: call.id,
            kind: "function".to_owned(),
            function: toolcall_stream::openai::FunctionCall {
                name: call.name,
                arguments: call.arguments,
                extra: Default::default(),
            },
            extra: Default::default(),
        })
        .collect();
    message.tool_calls = (!tool_calls.is_empty()).then_some(tool_calls);
    completion.choices[0].finish_reason = finish_reason;
    completion
}

pub(crate) fn check_chat_chunks(fixture: &Fixture) {
    let message = fixture.parser().parse(&fixture.input);
    for cut_off in [false, true] {
        let expected = message.to_chat_completion(&meta(), cut_off);
        for size in CHUNK_SIZES {
            let context = format!(
                "{}/{} in {size}-byte chunks, cut off {cut_off}",
                fixture.format.name(),
                fixture.name
            );
            // Unreadable calls as content, as in `parse`.
            let lean = fixture
                .builder()
                .retain_arguments(false)
                .unreadable_calls_as_content(true)
                .build();
            let chunks: Vec<ChatCompletionChunk> = block_on(
                stream::iter(pieces(&fixture.input, size))
                    .chat_chunks(lean, meta())
                    .cut_off(cut_off)
                    .collect(),
            );
            assert_eq!(reassemble(&chunks, &context), expected, "{context}");
        }
    }
}

#[test]
fn chat_chunks_joined_are_the_completion_for_every_fixture() {
    for fixture in fixtures() {
        check_chat_chunks(&fixture);
    }
}

#[test]
fn sse_frames_are_the_chunks_then_done() {
    let input = stream::iter(pieces(CALL.as_bytes(), 5));
    let chunks: Vec<ChatCompletionChunk> =
        block_on(input.clone().chat_chunks(parser(), meta()).collect());
    let frames: Vec<String> = block_on(input.chat_chunks(parser(), meta()).sse().collect());
    let mut expected: Vec<String> = chunks
        .iter()
        .map(|chunk| {
            let mut frame = String::new();
            write_sse(chunk, &mut frame).unwrap();
            frame
        })
        .collect();
    expected.push(SSE_DONE.to_owned());
    assert_eq!(frames, expected);
    assert_eq!(
        chunks.last().unwrap().choices[0].finish_reason,
        Some(FinishReason::ToolCalls)
    );
}

#[test]
fn an_empty_stream_gives_the_last_chunk_and_done() {
    let empty = stream::iter(Vec::<String>::new());
    assert!(block_on(empty.clone().tool_calls(parser()).collect::<Vec<_>>()).is_empty());
    let frames: Vec<String> = block_on(empty.chat_chunks(parser(), meta()).sse().collect());
    assert_eq!(frames.len(), 2);
    assert!(frames[0].contains(r#""delta":{"role":"assistant"},"finish_reason":"stop""#));
    assert_eq!(frames[1], SSE_DONE);
}

/// An error of the wrapped stream is a cut: the chunks end as cut off
/// (`length`, the parser finished as at a token limit), then the error,
/// and the wrapped stream is not read again.
#[test]
fn an_error_cuts_the_chat_chunks_and_their_frames() {
    let (before, after) = CALL.split_at(70);
    let items = || {
        stream::iter([
            Ok(before.to_owned()),
            Err(Reset(1)),
            Err(Reset(2)),
            Ok(after.to_owned()),
        ])
    };
    let chunks: Vec<Result<ChatCompletionChunk, Reset>> =
        block_on(items().chat_chunks(parser(), meta()).collect());
    assert_eq!(chunks.last(), Some(&Err(Reset(1))), "{chunks:?}");
    let oks: Vec<ChatCompletionChunk> = chunks
        .iter()
        .filter_map(|c| c.as_ref().ok().cloned())
        .collect();
    assert_eq!(oks.len() + 1, chunks.len(), "one error, the last item");
    // What was read, as a whole completion cut off.
    let cut = parser().parse(before).to_chat_completion(&meta(), true);
    assert_eq!(reassemble(&oks, "cut"), cut);
    assert_eq!(cut.choices[0].finish_reason, Some(FinishReason::Length));
    let call = &cut.choices[0].message.tool_calls.as_ref().unwrap()[0];
    assert_eq!(call.function.name, "get_weather");

    // Held calls: the call that never ended is content.
    let held = Parser::builder()
        .format(Format::Qwen3Coder)
        .incomplete_calls_as_content(true)
        .build();
    let chunks: Vec<Result<ChatCompletionChunk, Reset>> =
        block_on(items().chat_chunks(held, meta()).collect());
    let oks: Vec<ChatCompletionChunk> = chunks.into_iter().filter_map(Result::ok).collect();
    let joined = reassemble(&oks, "held");
    assert_eq!(joined.choices[0].message.content.as_deref(), Some(before));
    assert_eq!(joined.choices[0].message.tool_calls, None);
    assert_eq!(joined.choices[0].finish_reason, Some(FinishReason::Length));

    // The frames: the chunks, an OpenAI error event, `[DONE]`; no `Err`.
    let frames: Vec<Result<String, Reset>> =
        block_on(items().chat_chunks(parser(), meta()).sse().collect());
    let frames: Vec<String> = frames.into_iter().map(Result::unwrap).collect();
    assert_eq!(frames.len(), oks.len() + 2, "{frames:?}");
    assert_eq!(frames.last().map(String::as_str), Some(SSE_DONE));
    let error = &frames[frames.len() - 2];
    let json = error.strip_prefix("data: ").unwrap().trim_end();
    let error: ErrorResponse = serde_json::from_str(json).unwrap();
    assert_eq!(error.error.kind, "server_error");
    assert!(!error.error.message.contains("Reset"), "{json}");
    assert!(frames[frames.len() - 3].contains(r#""finish_reason":"length""#));

    // The event the server chooses.
    let frames: Vec<Result<String, Reset>> = block_on(
        items()
            .chat_chunks(parser(), meta())
            .sse()
            .error_event(ErrorResponse::new("upstream_stream_error", "cut").with_code("reset"))
            .collect(),
    );
    let error = frames[frames.len() - 2].as_ref().unwrap();
    assert_eq!(
        error.as_str(),
        "data: {\"error\":{\"message\":\"cut\",\"type\":\"upstream_stream_error\",\"param\":null,\"code\":\"reset\"}}\n\n"
    );
}

/// A clean end gives no error event; a usage chunk, when asked for, comes
/// after the last chunk (also after a cut), with no choices.
#[test]
fn the_usage_chunk_follows_the_last_chunk() {
    let usage: Usage = serde_json::from_value(
        serde_json::json!({"prompt_tokens": 4, "completion_tokens": 9, "total_tokens": 13}),
    )
    .unwrap();
    let chunks: Vec<ChatCompletionChunk> = block_on(
        stream::iter(pieces(CALL.as_bytes(), 9))
            .chat_chunks(parser(), meta())
            .usage(usage.clone())
            .collect(),
    );
    let (last, finish) = (&chunks[chunks.len() - 1], &chunks[chunks.len() - 2]);
    assert_eq!(
        finish.choices[0].finish_reason,
        Some(FinishReason::ToolCalls)
    );
    assert!(last.choices.is_empty());
    assert_eq!(last.usage.as_ref(), Some(&usage));
    assert_eq!(
        (last.id.as_str(), last.created),
        (meta().id.as_str(), meta().created)
    );
    assert_eq!(
        reassemble(&chunks[..chunks.len() - 1], "usage"),
        parser().parse(CALL).to_chat_completion(&meta(), false)
    );
    // Its frame comes before `[DONE]`; no error event on a clean end.
    let frames: Vec<String> = block_on(
        stream::iter([CALL])
            .chat_chunks(parser(), meta())
            .usage(usage.clone())
            .sse()
            .collect(),
    );
    assert!(frames[frames.len() - 2].starts_with(r#"data: {"id""#));
    assert!(frames[frames.len() - 2].contains(r#""choices":[],"usage":{"prompt_tokens":4"#));
    assert!(frames.iter().all(|f| !f.contains(r#""error""#)));

    // After a cut: finish, usage, then the error.
    let items = stream::iter([Ok("Hi"), Err(Reset(3))]);
    let chunks: Vec<Result<ChatCompletionChunk, Reset>> = block_on(
        items
            .chat_chunks(parser(), meta())
            .usage_with(move || usage)
            .collect(),
    );
    let n = chunks.len();
    assert_eq!(
        chunks[n - 3].as_ref().unwrap().choices[0].finish_reason,
        Some(FinishReason::Length)
    );
    assert!(chunks[n - 2].as_ref().unwrap().usage.is_some());
    assert_eq!(chunks[n - 1], Err(Reset(3)));
}
