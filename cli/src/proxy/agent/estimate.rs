//! The input-token estimate: what `count_tokens` answers, and what an
//! answer reports as its input when the upstream sends no usage.
//!
//! No tokenizer of the upstream's model is at hand, so it is counted as
//! tokenizers of English and code average: about four bytes of text a
//! token. The text counted is what the chat request holds: every
//! message's text (content, reasoning, tool-call names and arguments),
//! the tools' JSON, plus four tokens per message for the chat template's
//! own markers.

use serde_json::{Map, Value};

/// Bytes of text per token, on average.
const BYTES_PER_TOKEN: u64 = 4;
/// What a chat template adds around each message.
const TOKENS_PER_MESSAGE: u64 = 4;

/// The estimated input tokens of a chat completions request.
pub fn input_tokens(chat: &Map<String, Value>) -> u64 {
    let mut bytes = 0u64;
    let mut messages = 0u64;
    if let Some(Value::Array(list)) = chat.get("messages") {
        for message in list {
            messages += 1;
            bytes += text_bytes(message);
        }
    }
    if let Some(tools @ Value::Array(_)) = chat.get("tools") {
        bytes += tools.to_string().len() as u64;
    }
    bytes.div_ceil(BYTES_PER_TOKEN) + messages * TOKENS_PER_MESSAGE
}

/// The estimated tokens of `bytes` bytes of output text (an answer the
/// upstream sent no usage for).
pub fn output_tokens(bytes: u64) -> u64 {
    bytes.div_ceil(BYTES_PER_TOKEN)
}

/// The bytes of every string in `value` (keys excepted: a message's keys
/// are the template's, not text).
fn text_bytes(value: &Value) -> u64 {
    match value {
        Value::String(text) => text.len() as u64,
        Value::Array(items) => items.iter().map(text_bytes).sum(),
        Value::Object(members) => members.values().map(text_bytes).sum(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn four_bytes_a_token_and_four_a_message() {
        let chat = json!({"model": "m", "messages": [
            {"role": "system", "content": "12345678"},
            {"role": "user", "content": [{"type": "text", "text": "1234"}]},
        ]});
        // 8 + 4 + the roles' 10 bytes ("system", "user") + the part's
        // type (4) = 26 → 7, + 2 × 4.
        assert_eq!(input_tokens(chat.as_object().unwrap()), 15);
        let empty = json!({});
        assert_eq!(input_tokens(empty.as_object().unwrap()), 0);
    }
}
