//! Reads Messages events the way the anthropic SDKs' stream accumulators
//! do (text and thinking deltas appended, `partial_json` joined per block
//! and parsed at its `content_block_stop`, `message_delta` merged into
//! the message), and checks what Claude Code relies on: one
//! `message_start` first; block indexes counting from 0; one
//! `content_block_stop` per start; no interleaving; deltas of the block's
//! own kind; `message_delta` and `message_stop` last, with nothing after;
//! `stop_reason: tool_use` whenever complete tool uses were sent.

use serde_json::{json, Value};

/// One event: its `event:` name and its `data:`.
pub(super) fn events(sse: &str) -> Vec<(String, Value)> {
    sse.split_terminator("\n\n")
        .map(|event| {
            let (name, data) = event
                .strip_prefix("event: ")
                .and_then(|rest| rest.split_once("\ndata: "))
                .unwrap_or_else(|| panic!("not an event: {event:?}"));
            let data: Value = serde_json::from_str(data).expect("data is JSON");
            assert_eq!(data["type"], name, "the event's name is its type");
            (name.to_owned(), data)
        })
        .collect()
}

/// What a client made of a stream: the message, or the error event that
/// ended it (with the message as it was).
#[derive(Debug)]
pub(super) struct Read {
    pub message: Value,
    pub error: Option<Value>,
    /// `message_stop` came.
    pub stopped: bool,
}

/// Reads `sse` as an SDK does; panics where a client would fail or
/// where a rule above is broken.
pub(super) fn read(sse: &str) -> Read {
    let mut message: Option<Value> = None;
    let mut open: Option<usize> = None;
    let mut json_buffer = String::new();
    let mut read = Read {
        message: Value::Null,
        error: None,
        stopped: false,
    };
    let mut delta_seen = false;
    for (name, data) in events(sse) {
        assert!(
            !read.stopped && read.error.is_none(),
            "`{name}` after the end"
        );
        if name == "ping" {
            continue;
        }
        if name == "error" {
            read.error = Some(data["error"].clone());
            continue;
        }
        if name == "message_start" {
            assert!(message.is_none(), "a second message_start");
            let start = data["message"].clone();
            assert_eq!(start["content"], json!([]));
            assert!(start["stop_reason"].is_null());
            assert!(
                start["usage"]["input_tokens"].is_u64(),
                "input tokens: {start}"
            );
            assert!(start["usage"]["output_tokens"].is_u64());
            message = Some(start);
            continue;
        }
        let message = message.as_mut().expect("an event before message_start");
        let content = message["content"].as_array_mut().unwrap();
        match name.as_str() {
            "content_block_start" => {
                assert!(!delta_seen, "a block after message_delta");
                assert_eq!(open, None, "a block started while another is open");
                let index = data["index"].as_u64().unwrap() as usize;
                assert_eq!(index, content.len(), "block indexes count from 0");
                content.push(data["content_block"].clone());
                open = Some(index);
                json_buffer.clear();
            }
            "content_block_delta" => {
                let index = data["index"].as_u64().unwrap() as usize;
                assert_eq!(Some(index), open, "a delta for a block not open");
                let block = &mut content[index];
                let delta = &data["delta"];
                match (
                    block["type"].as_str().unwrap(),
                    delta["type"].as_str().unwrap(),
                ) {
                    ("text", "text_delta") => append(&mut block["text"], &delta["text"]),
                    ("thinking", "thinking_delta") => {
                        append(&mut block["thinking"], &delta["thinking"])
                    }
                    ("thinking", "signature_delta") => {
                        block["signature"] = delta["signature"].clone()
                    }
                    ("tool_use", "input_json_delta") => {
                        json_buffer.push_str(delta["partial_json"].as_str().unwrap())
                    }
                    (block, delta) => panic!("a {delta} in a {block} block"),
                }
            }
            "content_block_stop" => {
                let index = data["index"].as_u64().unwrap() as usize;
                assert_eq!(Some(index), open, "a stop for a block not open");
                let block = &mut content[index];
                if block["type"] == "tool_use" {
                    // Parsed here, as the SDKs do; a cut call's text does
                    // not parse and stays as text for the test to see.
                    block["input"] = if json_buffer.is_empty() {
                        json!({})
                    } else {
                        serde_json::from_str(&json_buffer)
                            .unwrap_or_else(|_| Value::String(json_buffer.clone()))
                    };
                }
                if block["type"] == "thinking" {
                    assert!(
                        !block["signature"].as_str().unwrap().is_empty(),
                        "a thinking block without its signature"
                    );
                }
                open = None;
            }
            "message_delta" => {
                assert_eq!(open, None, "message_delta with a block open");
                assert!(!delta_seen, "a second message_delta");
                delta_seen = true;
                message["stop_reason"] = data["delta"]["stop_reason"].clone();
                message["stop_sequence"] = data["delta"]["stop_sequence"].clone();
                for (key, value) in data["usage"].as_object().unwrap() {
                    message["usage"][key] = value.clone();
                }
            }
            "message_stop" => {
                assert!(delta_seen, "message_stop without message_delta");
                read.stopped = true;
            }
            other => panic!("unknown event `{other}`"),
        }
    }
    let message = message.unwrap_or(Value::Null);
    if read.stopped {
        let tool_uses = message["content"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|block| block["type"] == "tool_use")
            .count();
        match message["stop_reason"].as_str().unwrap() {
            "tool_use" => assert!(tool_uses > 0, "tool_use without a tool use"),
            // A call cut off, or left unfinished by the model: streamed,
            // but not to be run.
            "max_tokens" | "end_turn" => {}
            other => assert_eq!(tool_uses, 0, "tool uses sent, but stop_reason {other}"),
        }
    }
    read.message = message;
    read
}

fn append(to: &mut Value, more: &Value) {
    let text = format!("{}{}", to.as_str().unwrap(), more.as_str().unwrap());
    *to = Value::String(text);
}
