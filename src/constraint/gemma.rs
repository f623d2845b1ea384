//! Gemma's object syntax against a JSON schema, for the formats that write
//! calls as `call:NAME{key:value,…}` (Gemma 4, FunctionGemma), as the
//! engine's Gemma reader (`json::gemma`) reads them back. The rules are
//! `gbnf_json`'s, with Gemma's leaves: bare keys, strings between two
//! delimiters taken as they are, bare numbers, `true`, `false`, `null`.
//! Lark gets the same rules, respelled (`python::lark_of`).

use std::fmt::Write;

use serde_json::Value;

use super::gbnf_json::Words;
use super::gbnf_text::{class_char, literal};

/// Gemma's words: the rules [`shared`] writes. A string's delimiter is a
/// rule of its own (`gemma-delim`), the format's.
pub(super) static GEMMA: Words = Words {
    any: "gemma-any",
    key: "gemma-key",
    bare_keys: true,
    args: ["{", "}", ":"],
    quotes: &[("gemma-delim", "gemma-char")],
    unsigned: "gemma-unsigned",
    never: "gemma-never",
    true_: "\"true\"",
    false_: "\"false\"",
    null: "\"null\"",
    literal: value,
    shared,
};

/// What no bare key holds: the bytes that end one in the reader (`:` and
/// the structure's), a quote (a key in quotes is read as JSON, reported),
/// and whitespace and control characters (the reader trims a key's).
const KEY_EXCLUDES: &str = ":,{}[]\"";

/// The rules Gemma values share. A string is any text between two
/// delimiters but a control character (tabs and line ends aside) or a
/// character a marker or the delimiter starts with; `plain` is the JSON
/// string's class, whose marker starts are taken from it.
fn shared(out: &mut String, plain: &str, delimiter: &str) {
    let starts = plain
        .strip_prefix("\"\\\\\\u0000-\\u001F")
        .unwrap_or(plain)
        .to_owned();
    let mut starts = starts;
    if let Some(c) = delimiter.chars().next() {
        let c = class_char(c);
        if !starts.contains(&c) {
            starts.push_str(&c);
        }
    }
    // Bounded, as JSON's: a model that prefers a line end to the next
    // token would otherwise write them until `max_tokens`.
    let _ = writeln!(out, "ws ::= [ \\t\\n\\r]{{0,8}}");
    let _ = writeln!(out, "gemma-delim ::= {}", literal(delimiter));
    let _ = writeln!(
        out,
        "gemma-char ::= [^\\u0000-\\u0008\\u000B-\\u001F{starts}]"
    );
    let _ = writeln!(out, "gemma-string ::= gemma-delim gemma-char* gemma-delim");
    let keys: String = KEY_EXCLUDES.chars().map(class_char).collect();
    let _ = writeln!(out, "gemma-key ::= [^{keys}\\u0000-\\u0020{starts}]+");
    // A bare number is read as JSON's.
    super::gbnf_json::write_any(out, &GEMMA, "gemma-string", "\"-\"? gemma-unsigned");
}

/// `value` in Gemma's syntax, as a GBNF expression: a string between the
/// delimiters (the rule), the rest as written, keys bare.
fn value(value: &Value) -> String {
    match value {
        Value::String(text) => format!("gemma-delim {} gemma-delim", literal(text)),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(self::value).collect();
            format!("\"[\" {} \"]\"", join(items))
        }
        Value::Object(map) => {
            let items = map
                .iter()
                .map(|(k, v)| format!("{} {}", literal(&format!("{k}:")), self::value(v)))
                .collect();
            format!("\"{{\" {} \"}}\"", join(items))
        }
        _ => literal(&value.to_string()),
    }
}

/// Items with a comma between them; an empty literal for none.
fn join(items: Vec<String>) -> String {
    match items.is_empty() {
        true => "\"\"".to_owned(),
        false => items.join(" \",\" "),
    }
}

/// Whether `key` can be written bare, as the reader reads a key back: not
/// empty, none of the bytes that end it, no whitespace or control
/// character, and no character a marker starts with (`starts`).
pub(super) fn is_key(key: &str, starts: &str) -> bool {
    !key.is_empty()
        && key.chars().all(|c| {
            !KEY_EXCLUDES.contains(c)
                && !c.is_whitespace()
                && !c.is_control()
                && !starts.contains(c)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn constants_are_written_in_gemmas_syntax() {
        assert_eq!(
            value(&json!({"a": [true, 1.5, "x"]})),
            r#""{" "a:" "[" "true" "," "1.5" "," gemma-delim "x" gemma-delim "]" "}""#
        );
        assert_eq!(value(&json!([])), r#""[" "" "]""#);
        assert!(is_key("city", "<") && is_key("my-key", "<") && is_key("été", "<"));
        assert!(!is_key("a b", "<") && !is_key("a:b", "<") && !is_key("", "<"));
        assert!(!is_key("x<y", "<") && !is_key("\"k\"", "<"));
    }

    #[test]
    fn arguments_are_gemma_objects_by_their_schema() {
        let mut rules = super::super::gbnf_json::JsonRules::new("<", &GEMMA).delimited("<|\"|>");
        let mut out = String::new();
        let schema = json!({"type": "object", "required": ["city"], "additionalProperties": false,
            "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1,
                "maximum": 9}, "unit": {"enum": ["c", null]},
                "meta": {"type": "object", "properties": {"deep": {"type": "boolean"}}}}});
        rules.write_kwargs(&mut out, "args", &schema);
        assert!(out.starts_with("args ::= args-object"), "{out}");
        assert!(
            out.contains(r#""{" ws ("city" ws ":" ws gemma-delim gemma-char* gemma-delim "#),
            "{out}"
        );
        assert!(out.contains(r#""days" ws ":" ws [1-9]"#), "{out}");
        assert!(
            out.contains(r#"(gemma-delim "c" gemma-delim | "null")"#),
            "{out}"
        );
        // Nested keys are bare too; extra ones are `gemma-key`s.
        assert!(
            out.contains(r#""deep" ws ":" ws ("true" | "false")"#),
            "{out}"
        );
        assert!(out.contains("gemma-key ws \":\""), "{out}");
        rules.finish(&mut out);
        assert!(out.contains("gemma-delim ::= \"<|\\\"|>\""), "{out}");
        assert!(
            out.contains("gemma-char ::= [^\\u0000-\\u0008\\u000B-\\u001F<]"),
            "{out}"
        );
    }
}
