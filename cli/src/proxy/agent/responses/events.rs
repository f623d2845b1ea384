//! Responses streaming events, framed as server-sent events: each is
//! `event: <type>` and `data: <json>`, the JSON holding the same `type`
//! (Codex reads the type from the data, not from the `event:` line) and a
//! `sequence_number` that rises by one from 0. The stream has no `[DONE]`.
//!
//! The deltas, written once per upstream chunk, are borrowed structs
//! serialized as they stand; the rarer events are built as `Value`s.

use serde::Serialize;
use serde_json::{json, Value};

use super::super::sse::SseFramer;

/// What the client's connection gets while the upstream is silent: an SSE
/// comment, which no client reads as an event.
pub const KEEPALIVE: &str = ": keepalive\n\n";

/// `response.output_text.delta` and `response.reasoning_text.delta`.
#[derive(Debug, Serialize)]
pub struct TextDelta<'a> {
    pub item_id: &'a str,
    pub output_index: usize,
    pub content_index: u32,
    pub delta: &'a str,
    /// `[]` for output text (whose delta carries `logprobs`), absent for
    /// reasoning.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logprobs: Option<[(); 0]>,
}

/// `response.function_call_arguments.delta`.
#[derive(Debug, Serialize)]
pub struct ArgumentsDelta<'a> {
    pub item_id: &'a str,
    pub output_index: usize,
    pub delta: &'a str,
}

/// An event's fields behind its `type` and `sequence_number`.
#[derive(Serialize)]
struct Framed<'a, T: ?Sized> {
    #[serde(rename = "type")]
    kind: &'a str,
    sequence_number: u64,
    #[serde(flatten)]
    fields: &'a T,
}

/// Numbers and frames one response's events.
#[derive(Debug, Default)]
pub struct EventFramer {
    next_sequence: u64,
    sse: SseFramer,
}

impl EventFramer {
    /// Appends the event `kind` with `fields` (an object; plus its `type`
    /// and `sequence_number`) to `out`.
    pub fn write(&mut self, out: &mut String, kind: &str, fields: Value) {
        match fields {
            Value::Object(_) => self.write_fields(out, kind, &fields),
            // Every caller passes an object; anything else would not be an
            // event, so it is kept under a key rather than lost.
            other => self.write_fields(out, kind, &json!({ "value": other })),
        }
    }

    /// Appends the event `kind` with the members `fields` serializes to
    /// (a struct or a map; plus its `type` and `sequence_number`) to
    /// `out`.
    pub fn write_fields<T: Serialize + ?Sized>(&mut self, out: &mut String, kind: &str, fields: &T) {
        let framed = Framed {
            kind,
            sequence_number: self.next_sequence,
            fields,
        };
        self.sse.write(out, kind, &framed);
        self.next_sequence += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(out: &str) -> Vec<(&str, Value)> {
        out.split_terminator("\n\n")
            .map(|frame| {
                let (head, data) = frame.split_once('\n').expect("two lines");
                let kind = head.strip_prefix("event: ").expect("an event line");
                let data = data.strip_prefix("data: ").expect("a data line");
                (kind, serde_json::from_str(data).expect("the data is JSON"))
            })
            .collect()
    }

    #[test]
    fn events_carry_their_type_and_a_rising_sequence_number() {
        let mut framer = EventFramer::default();
        let mut out = String::new();
        framer.write(
            &mut out,
            "response.created",
            json!({"response": {"id": "resp_0"}}),
        );
        framer.write(&mut out, "response.in_progress", json!({}));
        framer.write(&mut out, "odd", json!("not an object"));
        assert_eq!(
            frames(&out),
            [
                (
                    "response.created",
                    json!({"type": "response.created", "sequence_number": 0,
                        "response": {"id": "resp_0"}})
                ),
                (
                    "response.in_progress",
                    json!({"type": "response.in_progress", "sequence_number": 1})
                ),
                (
                    "odd",
                    json!({"type": "odd", "sequence_number": 2, "value": "not an object"})
                ),
            ]
        );
    }

    #[test]
    fn deltas_serialize_their_members() {
        let mut framer = EventFramer::default();
        let mut out = String::new();
        let text = TextDelta {
            item_id: "msg_1",
            output_index: 2,
            content_index: 0,
            delta: "a \"b\"\n",
            logprobs: Some([]),
        };
        framer.write_fields(&mut out, "response.output_text.delta", &text);
        let reasoning = TextDelta {
            logprobs: None,
            ..text
        };
        framer.write_fields(&mut out, "response.reasoning_text.delta", &reasoning);
        let arguments = ArgumentsDelta {
            item_id: "fc_1",
            output_index: 3,
            delta: "{\"x\":",
        };
        framer.write_fields(&mut out, "response.function_call_arguments.delta", &arguments);
        assert_eq!(
            frames(&out),
            [
                (
                    "response.output_text.delta",
                    json!({"type": "response.output_text.delta", "sequence_number": 0,
                        "item_id": "msg_1", "output_index": 2, "content_index": 0,
                        "delta": "a \"b\"\n", "logprobs": []})
                ),
                (
                    "response.reasoning_text.delta",
                    json!({"type": "response.reasoning_text.delta", "sequence_number": 1,
                        "item_id": "msg_1", "output_index": 2, "content_index": 0,
                        "delta": "a \"b\"\n"})
                ),
                (
                    "response.function_call_arguments.delta",
                    json!({"type": "response.function_call_arguments.delta",
                        "sequence_number": 2, "item_id": "fc_1", "output_index": 3,
                        "delta": "{\"x\":"})
                ),
            ]
        );
    }
}
