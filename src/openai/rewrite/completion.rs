//! Rewriting a whole `chat.completion` (not streamed): each choice's
//! text parsed at once.

use crate::openai::{ChatCompletion, FinishReason, FunctionCall, ResponseMessage, ToolCall};
use crate::{DiagnosticKind, ParserBuilder};

/// Rewrites a whole `chat.completion`: each choice's `message.content` is
/// parsed into `content` and `tool_calls` (after any the upstream made
/// itself), and its `finish_reason` follows the rule of [`Rewriter`](crate::openai::Rewriter).
/// Returns the completion and the number of complete calls made.
///
/// ```
/// use toolcall_stream::openai::{rewrite_completion, ChatCompletion, FinishReason};
/// use toolcall_stream::Parser;
///
/// let completion: ChatCompletion = serde_json::from_value(serde_json::json!({
///     "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
///     "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant",
///         "content": "<tool_call>\n<function=ls>\n<parameter=path>\n.\n</parameter>\n</function>\n</tool_call>"}}]
/// })).unwrap();
/// let (completion, calls) = rewrite_completion(&Parser::builder(), completion);
/// assert_eq!(calls, 1);
/// let choice = &completion.choices[0];
/// assert_eq!(choice.finish_reason, Some(FinishReason::ToolCalls));
/// assert_eq!(choice.message.content, None);
/// assert_eq!(choice.message.tool_calls.as_ref().unwrap()[0].function.arguments, r#"{"path": "."}"#);
/// ```
pub fn rewrite_completion(
    builder: &ParserBuilder,
    completion: ChatCompletion,
) -> (ChatCompletion, usize) {
    rewrite_completion_with(builder, completion, |_| {})
}

/// [`rewrite_completion`], telling `on_diagnostic` the kind of each
/// diagnostic (lenient recovery) the parsers made: a proxy counts them.
///
/// ```
/// use toolcall_stream::openai::{rewrite_completion_with, ChatCompletion};
/// use toolcall_stream::{DiagnosticKind, Parser};
///
/// let completion: ChatCompletion = serde_json::from_value(serde_json::json!({
///     "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
///     "choices": [{"index": 0, "finish_reason": "length", "message": {"role": "assistant",
///         "content": "<tool_call>\n<function=ls>\n<parameter=path>\n."}}]
/// })).unwrap();
/// let mut kinds = Vec::new();
/// let (_, calls) = rewrite_completion_with(&Parser::builder(), completion, |kind| kinds.push(kind));
/// assert_eq!(calls, 0);
/// assert!(kinds.contains(&DiagnosticKind::Truncated), "{kinds:?}");
/// ```
pub fn rewrite_completion_with(
    builder: &ParserBuilder,
    mut completion: ChatCompletion,
    mut on_diagnostic: impl FnMut(DiagnosticKind),
) -> (ChatCompletion, usize) {
    let mut calls = 0;
    for choice in &mut completion.choices {
        let Some(text) = choice.message.content.take() else {
            continue;
        };
        let message = builder.clone().build().parse(&text);
        for diagnostic in &message.diagnostics {
            on_diagnostic(diagnostic.kind);
        }
        let complete = message.tool_calls.iter().filter(|c| c.complete).count();
        calls += complete;
        rewrite_message(&mut choice.message, message);
        choice.finish_reason = match choice.finish_reason.take() {
            Some(FinishReason::Stop) | Some(FinishReason::ToolCalls) | None => {
                Some(if complete > 0 {
                    FinishReason::ToolCalls
                } else {
                    FinishReason::Stop
                })
            }
            Some(other) => Some(other),
        };
    }
    (completion, calls)
}

fn rewrite_message(message: &mut ResponseMessage, parsed: crate::Message) {
    // Without the layout whitespace next to calls, as the streamed form.
    message.content = parsed.openai_content();
    if let Some(ours) = &parsed.reasoning {
        // After the upstream's own reasoning, if it split some itself.
        message
            .reasoning_content
            .get_or_insert_with(String::new)
            .push_str(ours);
    }
    if parsed.tool_calls.is_empty() {
        return;
    }
    let calls = message.tool_calls.get_or_insert_with(Vec::new);
    for call in parsed.tool_calls {
        calls.push(ToolCall {
            id: call.id,
            kind: "function".to_owned(),
            function: FunctionCall {
                name: call.name,
                arguments: call.arguments,
                extra: Default::default(),
            },
            extra: Default::default(),
        });
    }
}
