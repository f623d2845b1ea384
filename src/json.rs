//! JSON string escaping with the byte-exact output of Python's
//! `json.dumps(..., ensure_ascii=False)`, which is what vLLM serializes
//! arguments with: `"`, `\` and control characters are escaped (the short
//! forms where JSON has them, `\u00XX` in lowercase hex otherwise);
//! everything else, non-ASCII included, is copied as is.

/// Appends `text`, escaped for the inside of a JSON string, to `out`.
pub(crate) fn escape_into(out: &mut String, text: &str) {
    let bytes = text.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let short = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0x00..=0x1f => "",
            _ => continue,
        };
        out.push_str(&text[start..i]);
        if short.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(HEX[usize::from(b >> 4)] as char);
            out.push(HEX[usize::from(b & 0xf)] as char);
        } else {
            out.push_str(short);
        }
        start = i + 1;
    }
    out.push_str(&text[start..]);
}

#[cfg(test)]
mod tests {
    use super::escape_into;

    fn escaped(text: &str) -> String {
        let mut out = String::new();
        escape_into(&mut out, text);
        out
    }

    #[test]
    fn matches_python_json_dumps() {
        assert_eq!(escaped("plain"), "plain");
        assert_eq!(escaped("say \"hi\"\t\\n"), "say \\\"hi\\\"\\t\\\\n");
        assert_eq!(escaped("a\nb\r\u{8}\u{c}"), "a\\nb\\r\\b\\f");
        assert_eq!(escaped("\u{1}\u{1f}\u{7f}"), "\\u0001\\u001f\u{7f}");
        assert_eq!(escaped("東京 🌧️"), "東京 🌧️");
    }

    #[test]
    fn agrees_with_serde_json_on_every_ascii_byte() {
        for b in 0u8..0x80 {
            let text = (b as char).to_string();
            let mut expected = serde_json::to_string(&text).unwrap();
            expected.pop();
            expected.remove(0);
            assert_eq!(escaped(&text), expected, "byte {b:#x}");
        }
    }
}
