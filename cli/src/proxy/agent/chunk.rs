//! A whole `chat.completion` as the one chunk that says the same, so that
//! a whole answer is written by the same writer as a streamed one.

use toolcall_stream::openai::{
    ChatCompletion, ChatCompletionChunk, ChunkChoice, Delta, FunctionDelta, ToolCallDelta,
    CHAT_COMPLETION_CHUNK,
};

/// The chunk holding everything `completion` says: each choice's message
/// as its delta, its calls as whole deltas, its finish, the usage.
pub fn completion_as_chunk(completion: ChatCompletion) -> ChatCompletionChunk {
    let choices = completion
        .choices
        .into_iter()
        .map(|choice| {
            let message = choice.message;
            let tool_calls = message.tool_calls.map(|calls| {
                calls
                    .into_iter()
                    .enumerate()
                    .map(|(index, call)| ToolCallDelta {
                        index,
                        id: Some(call.id),
                        kind: Some(call.kind),
                        function: Some(FunctionDelta {
                            name: Some(call.function.name),
                            arguments: Some(call.function.arguments),
                            extra: Default::default(),
                        }),
                        extra: Default::default(),
                    })
                    .collect()
            });
            ChunkChoice {
                index: choice.index,
                delta: Delta {
                    role: Some(message.role),
                    content: message.content,
                    reasoning_content: message.reasoning_content,
                    tool_calls,
                    extra: message.extra,
                },
                finish_reason: choice.finish_reason,
                logprobs: choice.logprobs,
                extra: choice.extra,
            }
        })
        .collect();
    ChatCompletionChunk {
        id: completion.id,
        object: CHAT_COMPLETION_CHUNK.to_owned(),
        created: completion.created,
        model: completion.model,
        system_fingerprint: completion.system_fingerprint,
        choices,
        usage: completion.usage,
        extra: completion.extra,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_completion_becomes_one_chunk() {
        let completion: ChatCompletion = serde_json::from_value(json!({
            "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": "On it.", "reasoning_content": "think",
                "tool_calls": [{"id": "call_1", "type": "function",
                    "function": {"name": "ls", "arguments": "{\"path\":\".\"}"}}]}}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12}
        }))
        .unwrap();
        let chunk = completion_as_chunk(completion);
        let value = serde_json::to_value(&chunk).unwrap();
        assert_eq!(value["object"], "chat.completion.chunk");
        let delta = &value["choices"][0]["delta"];
        assert_eq!(delta["content"], "On it.");
        assert_eq!(delta["reasoning_content"], "think");
        assert_eq!(delta["tool_calls"][0]["index"], 0);
        assert_eq!(
            delta["tool_calls"][0]["function"]["arguments"],
            "{\"path\":\".\"}"
        );
        assert_eq!(value["choices"][0]["finish_reason"], "tool_calls");
        assert_eq!(value["usage"]["prompt_tokens"], 5);
    }
}
