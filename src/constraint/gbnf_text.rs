//! How GBNF spells text: string literals and the characters of a class,
//! as llama.cpp and xgrammar both read them.

use std::fmt::Write;

/// `text` as a GBNF string literal: llama.cpp reads `\\`, `\"`, `\n`,
/// `\r`, `\t` and `\uHHHH`, and every other character as written.
pub(super) fn literal(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            _ => push_plain(&mut out, c),
        }
    }
    out.push('"');
    out
}

/// `c` inside a character class (`[…]`).
pub(super) fn class_char(c: char) -> String {
    let mut out = String::new();
    match c {
        ']' | '[' | '\\' | '^' | '-' => {
            out.push('\\');
            out.push(c);
        }
        _ => push_plain(&mut out, c),
    }
    out
}

/// `c` with control characters escaped.
fn push_plain(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if (c as u32) < 0x20 || c == '\u{7f}' => {
            // Four digits: xgrammar reads as many as follow a `\x`.
            let _ = write!(out, "\\u{:04X}", c as u32);
        }
        c => out.push(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_and_classes_are_escaped() {
        assert_eq!(literal("say \"hi\"\n\\"), "\"say \\\"hi\\\"\\n\\\\\"");
        assert_eq!(literal("<｜tool▁sep｜>"), "\"<｜tool▁sep｜>\"");
        assert_eq!(class_char(']'), "\\]");
        assert_eq!(class_char('\u{1}'), "\\u0001");
    }
}
