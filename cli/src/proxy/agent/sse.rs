//! Server-sent event frames for the agent routes: `event: <kind>` and
//! `data: <json>`, the JSON serialized straight from a (usually borrowed)
//! value into a buffer reused across events, so a hot event costs no
//! `serde_json::Value` and no allocation once the buffer has grown.

use serde::Serialize;

/// Frames events; holds the buffer each event's JSON is serialized into.
#[derive(Debug, Default)]
pub struct SseFramer {
    scratch: Vec<u8>,
}

impl SseFramer {
    /// Appends `event: {kind}\ndata: {data as JSON}\n\n` to `out`.
    pub fn write<T: Serialize + ?Sized>(&mut self, out: &mut String, kind: &str, data: &T) {
        self.scratch.clear();
        let json = match serde_json::to_writer(&mut self.scratch, data) {
            Ok(()) => std::str::from_utf8(&self.scratch).ok(),
            Err(_) => None,
        };
        out.push_str("event: ");
        out.push_str(kind);
        out.push_str("\ndata: ");
        // What the writers pass (strings, numbers, maps with string keys)
        // always serializes to UTF-8; the fallback only keeps the frame
        // well-formed.
        out.push_str(json.unwrap_or("{}"));
        out.push_str("\n\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};
    use std::collections::HashMap;

    #[derive(Serialize)]
    struct Delta<'a> {
        text: &'a str,
        index: usize,
    }

    fn data_of(frame: &str) -> Value {
        let data = frame.strip_prefix("data: ").expect("a data line");
        serde_json::from_str(data).expect("the data is JSON")
    }

    #[test]
    fn frames_an_event_with_its_json() {
        let mut framer = SseFramer::default();
        let mut out = String::from("before\n\n");
        let text = "é \"quoted\"\n😀";
        framer.write(&mut out, "delta", &Delta { text, index: 3 });
        framer.write(&mut out, "value", &json!({"a": [1, null]}));
        let rest = out.strip_prefix("before\n\n").expect("kept what was there");
        let frames: Vec<&str> = rest.split_terminator("\n\n").collect();
        assert_eq!(frames.len(), 2);
        let (head, data) = frames[0].split_once('\n').expect("two lines");
        assert_eq!(head, "event: delta");
        assert_eq!(data_of(data), json!({"text": text, "index": 3}));
        let (head, data) = frames[1].split_once('\n').expect("two lines");
        assert_eq!(head, "event: value");
        assert_eq!(data_of(data), json!({"a": [1, null]}));
        assert!(out.ends_with("\n\n"));
    }

    #[test]
    fn a_value_that_does_not_serialize_is_an_empty_object() {
        // JSON objects need string keys: a map keyed by a pair fails.
        let unserializable = HashMap::from([((1, 2), "x")]);
        let mut framer = SseFramer::default();
        let mut out = String::new();
        framer.write(&mut out, "odd", &unserializable);
        assert_eq!(out, "event: odd\ndata: {}\n\n");
        // The buffer holds nothing of the failed event for the next one.
        framer.write(&mut out, "next", &json!({"b": 1}));
        assert!(out.ends_with("event: next\ndata: {\"b\":1}\n\n"));
    }
}
