//! Responses streaming events, framed as server-sent events: each is
//! `event: <type>` and `data: <json>`, the JSON holding the same `type`
//! (Codex reads the type from the data, not from the `event:` line) and a
//! `sequence_number` that rises by one from 0. The stream has no `[DONE]`.

use serde_json::{Map, Value};

/// What the client's connection gets while the upstream is silent: an SSE
/// comment, which no client reads as an event.
pub const KEEPALIVE: &str = ": keepalive\n\n";

/// Numbers and frames one response's events.
#[derive(Debug, Default)]
pub struct EventFramer {
    next_sequence: u64,
}

impl EventFramer {
    /// Appends the event `kind` with `fields` (plus its `type` and
    /// `sequence_number`) to `out`.
    pub fn write(&mut self, out: &mut String, kind: &str, fields: Value) {
        let mut data = match fields {
            Value::Object(map) => map,
            // Every caller passes an object; anything else would not be an
            // event, so it is kept under a key rather than lost.
            other => Map::from_iter([("value".to_owned(), other)]),
        };
        data.insert("type".to_owned(), Value::String(kind.to_owned()));
        data.insert("sequence_number".to_owned(), self.next_sequence.into());
        self.next_sequence += 1;
        out.push_str("event: ");
        out.push_str(kind);
        out.push_str("\ndata: ");
        // A Map of Values always serializes; the fallback only keeps the
        // frame well-formed.
        out.push_str(&serde_json::to_string(&data).unwrap_or_else(|_| "{}".to_owned()));
        out.push_str("\n\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
        let frames: Vec<&str> = out.split_terminator("\n\n").collect();
        assert_eq!(frames.len(), 2);
        let (head, data) = frames[0].split_once('\n').unwrap();
        assert_eq!(head, "event: response.created");
        let data: Value = serde_json::from_str(data.strip_prefix("data: ").unwrap()).unwrap();
        assert_eq!(
            data,
            json!({"type": "response.created", "sequence_number": 0,
                "response": {"id": "resp_0"}})
        );
        assert!(frames[1].ends_with(r#""sequence_number":1,"type":"response.in_progress"}"#));
    }
}
