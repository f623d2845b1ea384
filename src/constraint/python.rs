//! Python literals against a JSON schema, for the formats that write calls
//! in Python call syntax (`get_weather(city="Paris", days=3)`), as the
//! engine's Python reader (`json::python`) reads them back. The rules are
//! `gbnf_json`'s, with Python's leaves: strings in double quotes with
//! Python's escapes, `True`, `False`, `None`. Lark gets the same rules,
//! respelled ([`lark_of`]): one grammar, written once.

use std::fmt::Write;

use serde_json::Value;

use super::gbnf_json::Words;

/// Python's words: the rules [`shared`] writes.
pub(super) static PYTHON: Words = Words {
    any: "py-any",
    key: "py-string",
    bare_keys: false,
    args: ["(", ")", "="],
    quotes: &[("\"\\\"\"", "py-char"), ("\"'\"", "py-char1")],
    unsigned: "py-unsigned",
    never: "py-never",
    true_: "\"True\"",
    false_: "\"False\"",
    null: "\"None\"",
    literal,
    shared,
};

/// The rules Python values share. A string is in double or single quotes:
/// a character as written (no quote, backslash, control character or
/// character a marker starts with: `plain`), or one of the escapes every
/// model writes. A one-quote string holds no line end, as in Python.
fn shared(out: &mut String, plain: &str, _delimiter: &str) {
    // Bounded, as JSON's: a model that prefers a line end to the next
    // token would otherwise write them until `max_tokens`.
    let _ = writeln!(out, "ws ::= [ \\t\\n\\r]{{0,8}}");
    let _ = writeln!(out, "py-char ::= [^{plain}] | \"\\\\\" [\"'\\\\nrt]");
    // In single quotes, `'` for `"`.
    let single = plain.replacen('"', "'", 1);
    let _ = writeln!(out, "py-char1 ::= [^{single}] | \"\\\\\" [\"'\\\\nrt]");
    let _ = writeln!(
        out,
        "py-string ::= \"\\\"\" py-char* \"\\\"\" | \"'\" py-char1* \"'\""
    );
    // JSON's number is a Python one.
    super::gbnf_json::write_any(out, &PYTHON, "py-string", "\"-\"? py-unsigned");
}

/// `value` as a Python literal, as a GBNF literal: a JSON string is a
/// Python string of the same text (serde's escapes are Python's too).
fn literal(value: &Value) -> String {
    super::gbnf_text::literal(&text(value))
}

/// `value`'s Python text.
fn text(value: &Value) -> String {
    match value {
        Value::Null => "None".to_owned(),
        Value::Bool(true) => "True".to_owned(),
        Value::Bool(false) => "False".to_owned(),
        Value::Number(_) | Value::String(_) => value.to_string(),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(text).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(map) => {
            let items: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", Value::from(k.as_str()), text(v)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
    }
}

/// Whether `key` can be written as a keyword argument (`key=`), as the
/// reader reads an argument's name: a Python name.
pub(super) fn is_keyword(key: &str) -> bool {
    let mut bytes = key.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_' || b >= 0x80)
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80)
}

/// GBNF rules as llguidance's Lark rules: `::=` is `:`, names take `_` for
/// `-`, and a character class is a regex.
pub(super) fn lark_of(gbnf: &str) -> String {
    let mut out = String::with_capacity(gbnf.len() + gbnf.len() / 8);
    let mut chars = gbnf.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                // GBNF's string escapes are Lark's (JSON's) but `\uHHHH`
                // above U+FFFF, which is not written here.
                out.push('"');
                while let Some(c) = chars.next() {
                    out.push(c);
                    match c {
                        '\\' => out.extend(chars.next()),
                        '"' => break,
                        _ => {}
                    }
                }
            }
            '[' => {
                out.push_str("/[");
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => {
                            out.push('\\');
                            out.extend(chars.next());
                        }
                        '/' => out.push_str("\\/"),
                        ']' => break,
                        c => out.push(c),
                    }
                }
                out.push_str("]/");
            }
            ':' if chars.peek() == Some(&':') => {
                let mut ahead = chars.clone();
                ahead.next();
                if ahead.next() == Some('=') {
                    chars.next();
                    chars.next();
                }
                out.push(':');
            }
            '-' => out.push('_'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_are_written_as_python_literals() {
        assert_eq!(text(&json!(null)), "None");
        assert_eq!(
            text(&json!({"a": [true, 1.5, "x\"y"]})),
            "{\"a\": [True, 1.5, \"x\\\"y\"]}"
        );
        assert!(is_keyword("city") && is_keyword("_x1") && is_keyword("été"));
        assert!(!is_keyword("my-key") && !is_keyword("1st") && !is_keyword(""));
    }

    #[test]
    fn keyword_arguments_are_python_literals_by_their_schema() {
        let mut rules = super::super::gbnf_json::JsonRules::new("<", &PYTHON);
        let mut out = String::new();
        let schema = json!({"type": "object", "required": ["city"], "additionalProperties": false,
            "properties": {"city": {"type": "string"}, "dry": {"type": "boolean"},
                "unit": {"enum": ["c", null]}}});
        rules.write_kwargs(&mut out, "args", &schema);
        assert!(out.starts_with("args ::= args-object"), "{out}");
        assert!(
            out.contains(r#""(" ws ("city" ws "=" ws ("\"" py-char* "\"" | "'" py-char1* "'") "#)
        );
        assert!(
            out.contains(r#""dry" ws "=" ws ("True" | "False")"#),
            "{out}"
        );
        assert!(out.contains(r#"("\"c\"" | "None")"#), "{out}");
        rules.finish(&mut out);
        assert!(
            out.contains("py-char ::= [^\"\\\\\\u0000-\\u001F<]"),
            "{out}"
        );
    }

    #[test]
    fn gbnf_rules_are_respelled_for_lark() {
        assert_eq!(
            lark_of("py-char ::= [^\"\\\\/<] | \"-\" a-b\n"),
            "py_char : /[^\"\\\\\\/<]/ | \"-\" a_b\n"
        );
    }
}
