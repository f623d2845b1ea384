//! Server-sent event framing of OpenAI responses.

use serde::Serialize;

/// The last event of an OpenAI stream.
pub const SSE_DONE: &str = "data: [DONE]\n\n";

/// Appends `value` as one server-sent event: `data: {json}` and a blank
/// line. On an error (a value JSON cannot hold) nothing is appended.
///
/// ```
/// use toolcall_stream::openai::write_sse;
/// let mut body = String::new();
/// write_sse(&serde_json::json!({"a": 1}), &mut body).unwrap();
/// assert_eq!(body, "data: {\"a\":1}\n\n");
/// ```
pub fn write_sse(value: &impl Serialize, out: &mut String) -> serde_json::Result<()> {
    let json = serde_json::to_string(value)?;
    out.reserve("data: ".len() + json.len() + 2);
    out.push_str("data: ");
    out.push_str(&json);
    out.push_str("\n\n");
    Ok(())
}

/// Appends an event's data as it came, `data: ` before each of its lines
/// (an upstream may spread its JSON over several), and the blank line:
/// for passing an upstream's event on without decoding it.
///
/// ```
/// use toolcall_stream::openai::write_sse_data;
/// let mut body = String::new();
/// write_sse_data("{\"a\":\n1}", &mut body);
/// assert_eq!(body, "data: {\"a\":\ndata: 1}\n\n");
/// ```
pub fn write_sse_data(data: &str, out: &mut String) {
    out.reserve(data.len() + 8);
    let mut rest = data;
    // A chunk's JSON is most often one line: one search, no splitting.
    while let Some(at) = memchr::memchr(b'\n', rest.as_bytes()) {
        let (line, tail) = rest.split_at(at + 1);
        out.push_str("data: ");
        out.push_str(line);
        rest = tail;
    }
    out.push_str("data: ");
    out.push_str(rest);
    out.push_str("\n\n");
}

/// Appends `text` to `out` as a JSON string: quoted, and escaped as
/// `serde_json` escapes it (`"`, `\` and the control characters; `\n`,
/// `\r`, `\t`, `\b`, `\f` short, the others `\u00XX`). For a server that
/// writes its own events around the crate's text without building a
/// value for each.
///
/// ```
/// use toolcall_stream::openai::write_json_string;
/// let mut out = String::from("{\"delta\":");
/// write_json_string("say \"hi\"\n", &mut out);
/// out.push('}');
/// assert_eq!(out, r#"{"delta":"say \"hi\"\n"}"#);
/// ```
pub fn write_json_string(text: &str, out: &mut String) {
    out.reserve(text.len() + 2);
    out.push('"');
    crate::json::escape_into(out, text);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn sse_frames_and_done() {
        let mut body = String::new();
        write_sse(&json!({"x": "a\nb"}), &mut body).unwrap();
        body.push_str(SSE_DONE);
        assert_eq!(body, "data: {\"x\":\"a\\nb\"}\n\ndata: [DONE]\n\n");
        // A value JSON cannot hold leaves the output as it was.
        let bad: std::collections::HashMap<Vec<u8>, u8> = [(vec![1], 1)].into();
        assert!(write_sse(&bad, &mut body).is_err());
        assert!(body.ends_with(SSE_DONE));
    }
}
