//! Server-sent event frames for the agent routes: `event: <kind>` and
//! `data: <json>`.
//!
//! Two ways to write one: [`SseFramer::write`] serializes any value into
//! a buffer reused across events (no `serde_json::Value` needed); for the
//! deltas written once per upstream chunk, [`write_object_event`] writes
//! the object member by member straight into `out`, since through
//! serde_json every member costs a map entry whose key is escaped byte by
//! byte, which was most of a delta's cost.

use serde::Serialize;
use toolcall_stream::openai::write_json_string;

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

/// Appends `event: {kind}\ndata: {object}\n\n` to `out`, the object's
/// members written by `members`.
pub fn write_object_event(out: &mut String, kind: &str, members: impl FnOnce(&mut ObjectWriter)) {
    out.push_str("event: ");
    out.push_str(kind);
    out.push_str("\ndata: ");
    write_object(out, members);
    out.push_str("\n\n");
}

fn write_object(out: &mut String, members: impl FnOnce(&mut ObjectWriter)) {
    out.push('{');
    members(&mut ObjectWriter {
        out,
        needs_comma: false,
    });
    out.push('}');
}

/// Writes a JSON object's members. Keys are literals that need no
/// escaping (letters, digits, `_`).
pub struct ObjectWriter<'a> {
    out: &'a mut String,
    needs_comma: bool,
}

impl ObjectWriter<'_> {
    fn key(&mut self, key: &'static str) {
        debug_assert!(key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'));
        if self.needs_comma {
            self.out.push(',');
        }
        self.needs_comma = true;
        self.out.push('"');
        self.out.push_str(key);
        self.out.push_str("\":");
    }

    /// A string member.
    pub fn str(&mut self, key: &'static str, value: &str) -> &mut Self {
        self.key(key);
        push_json_str(self.out, value);
        self
    }

    /// A number member.
    pub fn uint(&mut self, key: &'static str, value: u64) -> &mut Self {
        self.key(key);
        push_uint(self.out, value);
        self
    }

    /// A member whose value is a JSON literal (`[]`, `null`).
    pub fn literal(&mut self, key: &'static str, json: &'static str) -> &mut Self {
        self.key(key);
        self.out.push_str(json);
        self
    }

    /// An object member, its members written by `members`.
    pub fn object(
        &mut self,
        key: &'static str,
        members: impl FnOnce(&mut ObjectWriter),
    ) -> &mut Self {
        self.key(key);
        write_object(self.out, members);
        self
    }
}

/// Appends `value` as a JSON string, escaped as serde_json escapes it
/// (the library's own string writer).
pub fn push_json_str(out: &mut String, value: &str) {
    write_json_string(value, out);
}

/// Appends `value` in decimal.
fn push_uint(out: &mut String, value: u64) {
    out.push_str(itoa::Buffer::new().format(value));
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
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let mut every_control: String = (0u8..0x20).map(char::from).collect();
        every_control.push('\u{7f}');
        for value in [
            "",
            "plain text",
            "\"quoted\" and \\back\\slashed\\",
            "line\nbreak\r\ttab",
            every_control.as_str(),
            "é ü 漢字 😀 \u{2028}",
            "\"",
            "end\\",
        ] {
            let mut out = String::new();
            push_json_str(&mut out, value);
            assert_eq!(out, serde_json::to_string(value).unwrap(), "{value:?}");
        }
    }

    #[test]
    fn every_byte_and_position_escapes_as_serde_json_does() {
        // Each ASCII byte at each position of a word, among clean bytes
        // and a multi-byte character, so the word-at-a-time scan is
        // checked against the byte-by-byte rule.
        for byte in 0u8..0x80 {
            for at in 0..17 {
                let mut value = "abcdefghijklmnopq".to_owned();
                value.insert(at, char::from(byte));
                value.push('é');
                let mut out = String::new();
                push_json_str(&mut out, &value);
                assert_eq!(out, serde_json::to_string(&value).unwrap(), "{value:?}");
            }
        }
    }

    #[test]
    fn numbers_are_written_in_decimal() {
        for value in [0, 7, 10, 99, 12_345, u64::MAX] {
            let mut out = String::new();
            push_uint(&mut out, value);
            assert_eq!(out, value.to_string());
        }
    }

    #[test]
    fn an_object_event_is_its_members_in_order() {
        let mut out = String::from("before\n\n");
        write_object_event(&mut out, "kind", |data| {
            data.str("type", "kind")
                .uint("index", 2)
                .object("delta", |delta| {
                    delta.str("text", "a\"b").literal("logprobs", "[]");
                });
        });
        write_object_event(&mut out, "empty", |_| {});
        assert_eq!(
            out,
            "before\n\nevent: kind\ndata: {\"type\":\"kind\",\"index\":2,\
             \"delta\":{\"text\":\"a\\\"b\",\"logprobs\":[]}}\n\n\
             event: empty\ndata: {}\n\n"
        );
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
