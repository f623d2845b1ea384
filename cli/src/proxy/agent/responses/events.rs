//! Responses streaming events, framed as server-sent events: each is
//! `event: <type>` and `data: <json>`, the JSON holding the same `type`
//! (Codex reads the type from the data, not from the `event:` line) and a
//! `sequence_number` that rises by one from 0. The stream has no `[DONE]`.
//!
//! The deltas, written once per upstream chunk, are written member by
//! member from what they borrow; the rarer events are built as `Value`s.

use serde::Serialize;
use serde_json::{json, Value};

use super::super::sse::{write_object_event, SseFramer};

/// What the client's connection gets while the upstream is silent: an SSE
/// comment, which no client reads as an event.
pub const KEEPALIVE: &str = ": keepalive\n\n";

/// `response.output_text.delta` or `response.reasoning_text.delta`.
#[derive(Debug)]
pub struct TextDelta<'a> {
    pub item_id: &'a str,
    pub output_index: usize,
    pub delta: &'a str,
    /// Output text: its delta carries `logprobs: []`.
    pub output_text: bool,
}

/// `response.function_call_arguments.delta`.
#[derive(Debug)]
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
    pub fn write_fields<T: Serialize + ?Sized>(
        &mut self,
        out: &mut String,
        kind: &str,
        fields: &T,
    ) {
        let framed = Framed {
            kind,
            sequence_number: self.take_sequence(),
            fields,
        };
        self.sse.write(out, kind, &framed);
    }

    pub fn write_text_delta(&mut self, out: &mut String, delta: &TextDelta) {
        let kind = if delta.output_text {
            "response.output_text.delta"
        } else {
            "response.reasoning_text.delta"
        };
        let sequence = self.take_sequence();
        write_object_event(out, kind, |data| {
            data.str("type", kind)
                .uint("sequence_number", sequence)
                .str("item_id", delta.item_id)
                .uint("output_index", delta.output_index as u64)
                .uint("content_index", 0)
                .str("delta", delta.delta);
            if delta.output_text {
                data.literal("logprobs", "[]");
            }
        });
    }

    pub fn write_arguments_delta(&mut self, out: &mut String, delta: &ArgumentsDelta) {
        let kind = "response.function_call_arguments.delta";
        let sequence = self.take_sequence();
        write_object_event(out, kind, |data| {
            data.str("type", kind)
                .uint("sequence_number", sequence)
                .str("item_id", delta.item_id)
                .uint("output_index", delta.output_index as u64)
                .str("delta", delta.delta);
        });
    }

    fn take_sequence(&mut self) -> u64 {
        self.next_sequence += 1;
        self.next_sequence - 1
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
    fn deltas_carry_their_members() {
        let mut framer = EventFramer::default();
        let mut out = String::new();
        framer.write(&mut out, "response.created", json!({}));
        let text = TextDelta {
            item_id: "msg_1",
            output_index: 2,
            delta: "a \"b\"\n",
            output_text: true,
        };
        framer.write_text_delta(&mut out, &text);
        let reasoning = TextDelta {
            output_text: false,
            ..text
        };
        framer.write_text_delta(&mut out, &reasoning);
        let arguments = ArgumentsDelta {
            item_id: "fc_1",
            output_index: 3,
            delta: "{\"x\":",
        };
        framer.write_arguments_delta(&mut out, &arguments);
        assert_eq!(
            frames(&out)[1..],
            [
                (
                    "response.output_text.delta",
                    json!({"type": "response.output_text.delta", "sequence_number": 1,
                        "item_id": "msg_1", "output_index": 2, "content_index": 0,
                        "delta": "a \"b\"\n", "logprobs": []})
                ),
                (
                    "response.reasoning_text.delta",
                    json!({"type": "response.reasoning_text.delta", "sequence_number": 2,
                        "item_id": "msg_1", "output_index": 2, "content_index": 0,
                        "delta": "a \"b\"\n"})
                ),
                (
                    "response.function_call_arguments.delta",
                    json!({"type": "response.function_call_arguments.delta",
                        "sequence_number": 3, "item_id": "fc_1", "output_index": 3,
                        "delta": "{\"x\":"})
                ),
            ]
        );
    }
}
