//! Python literals against a JSON schema, for the formats that write calls
//! in Python call syntax (`get_weather(city="Paris", days=3)`), or their
//! call objects as Python literals (Sarashina's `{'name': 'f', …}`), as the
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

/// Python's words where the whole call is a literal: declared keys, names
/// and `enum` strings as `repr` spells them (`{'name': 'f'}`), as the
/// model writes its dicts.
pub(super) static LITERAL: Words = Words {
    literal: repr_literal,
    ..PYTHON
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
    super::gbnf_text::literal(&text(value, &|s| Value::from(s).to_string()))
}

/// `value` as `repr` writes it, as a GBNF literal.
fn repr_literal(value: &Value) -> String {
    super::gbnf_text::literal(&text(value, &repr))
}

/// `value`'s Python text, its strings spelled by `string`.
fn text(value: &Value, string: &dyn Fn(&str) -> String) -> String {
    match value {
        Value::Null => "None".to_owned(),
        Value::Bool(true) => "True".to_owned(),
        Value::Bool(false) => "False".to_owned(),
        Value::Number(_) => value.to_string(),
        Value::String(s) => string(s),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(|v| text(v, string)).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(map) => {
            let items: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", string(k), text(v, string)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
    }
}

/// `s` as Python's `repr` writes it: in single quotes, or in double ones
/// where it holds a single quote and no double one.
fn repr(s: &str) -> String {
    let quote = match s.contains('\'') && !s.contains('"') {
        true => '"',
        false => '\'',
    };
    let mut out = String::from(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
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
        let json = |s: &str| Value::from(s).to_string();
        assert_eq!(text(&json!(null), &json), "None");
        assert_eq!(
            text(&json!({"a": [true, 1.5, "x\"y"]}), &json),
            "{\"a\": [True, 1.5, \"x\\\"y\"]}"
        );
        // As `repr` writes them.
        assert_eq!(
            text(&json!({"a": ["it's", "x'\"\n\u{1}"]}), &repr),
            "{'a': [\"it's\", 'x\\'\"\\n\\x01']}"
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
    fn call_objects_written_as_python_literals_have_their_rules() {
        use super::super::{shape::Shape, Constraint, Dialect};
        use crate::{format::Format, tools::Tools};
        let shape = Shape::of(Format::Sarashina.description()).ok().unwrap();
        assert!(shape.bare && shape.holds_list() && shape.call_syntax());
        assert_eq!(shape.opens_calls, "{[");
        let tools = Tools::from_json(
            r#"[{"type": "function", "function": {"name": "f", "parameters": {"type": "object",
                "properties": {"u": {"enum": ["c", "it's"]}, "d": {"type": "boolean"}}}}}]"#,
        )
        .unwrap();
        let grammar = |dialect| {
            let constraint = Constraint {
                dialect,
                ..Constraint::required()
            };
            Format::Sarashina.constraint(&tools, &constraint).unwrap()
        };
        // Lark's `%json` writes JSON only: the rules, respelled.
        let lark = grammar(Dialect::Lark);
        assert!(!lark.contains("%json"), "{lark}");
        assert!(lark.contains(r#""'name'" ws ":" ws "'f'""#), "{lark}");
        assert!(lark.contains(r#"("'c'" | "\"it's\"")"#), "{lark}");
        assert!(
            lark.contains(r#""'d'" ws ":" ws ("True" | "False")"#),
            "{lark}"
        );
        // No style of xgrammar's reads them: the tag holds the GBNF body.
        let stag = grammar(Dialect::StructuralTag);
        assert!(
            stag.contains(r#""type":"grammar","grammar":"root ::= "#),
            "{stag}"
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
