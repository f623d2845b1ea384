//! Python literals as JSON, for the opt-in leniency: models trained on
//! Python write `{'k': True, 'xs': (1, 2,)}` where JSON is wanted.
//!
//! Handles what `repr` of JSON-like data produces: dicts, lists, tuples
//! (as arrays), single- or double-quoted strings with Python's escapes,
//! numbers, `True`/`False`/`None` (JSON's `true`/`false`/`null` too, for
//! mixed output), trailing commas. Nothing else: no sets, no string
//! prefixes, no implicit concatenation. Nesting is bounded and no input
//! panics.

use super::is_python_space;
use super::number::{write_f64, PythonFloat, PythonInt};
use crate::json::escape_into;

/// As serde_json's default recursion limit.
const MAX_DEPTH: usize = 128;

/// Appends the JSON form of `text`, one Python literal with white space
/// around, to `out` and returns true; returns false and leaves `out` as it
/// was when `text` is not such a literal.
pub(crate) fn convert_into(text: &str, out: &mut String) -> bool {
    let mark = out.len();
    let mut reader = Reader { text, at: 0 };
    let converted = reader.value(out, 0).is_some() && {
        reader.skip_space();
        reader.at == text.len()
    };
    if !converted {
        out.truncate(mark);
    }
    converted
}

struct Reader<'a> {
    text: &'a str,
    at: usize,
}

impl Reader<'_> {
    fn rest(&self) -> &str {
        &self.text[self.at..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn skip_space(&mut self) {
        let rest = self.rest();
        self.at += rest.len() - rest.trim_start_matches(is_python_space).len();
    }

    /// Skips white space, then `c` if it comes next.
    fn eat(&mut self, c: char) -> bool {
        self.skip_space();
        if self.peek() == Some(c) {
            self.at += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn value(&mut self, out: &mut String, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.skip_space();
        match self.peek()? {
            '{' => self.dict(out, depth),
            '[' => {
                self.at += 1;
                self.sequence(']', out, depth)
            }
            '(' => self.parenthesized(out, depth),
            quote @ ('\'' | '"') => self.string(quote, out),
            _ => self.scalar(out),
        }
    }

    fn dict(&mut self, out: &mut String, depth: usize) -> Option<()> {
        self.at += 1;
        out.push('{');
        let mut first = true;
        while !self.eat('}') {
            if !first {
                out.push_str(", ");
            }
            first = false;
            self.key(out)?;
            if !self.eat(':') {
                return None;
            }
            out.push_str(": ");
            self.value(out, depth + 1)?;
            if !self.eat(',') {
                if self.eat('}') {
                    break;
                }
                return None;
            }
        }
        out.push('}');
        Some(())
    }

    /// A dict key: a string, or a number or name that JSON writes as a
    /// string (as Python's `json.dumps` does: `{1: x}` → `{"1": x}`).
    fn key(&mut self, out: &mut String) -> Option<()> {
        self.skip_space();
        match self.peek()? {
            quote @ ('\'' | '"') => self.string(quote, out),
            _ => {
                let mark = out.len();
                self.scalar(out)?;
                let key = out.split_off(mark);
                out.push('"');
                out.push_str(&key);
                out.push('"');
                Some(())
            }
        }
    }

    /// The items of a list or tuple up to `close`, the opening already
    /// read; written as a JSON array.
    fn sequence(&mut self, close: char, out: &mut String, depth: usize) -> Option<()> {
        out.push('[');
        let mut first = true;
        while !self.eat(close) {
            if !first {
                out.push_str(", ");
            }
            first = false;
            self.value(out, depth + 1)?;
            if !self.eat(',') {
                if self.eat(close) {
                    break;
                }
                return None;
            }
        }
        out.push(']');
        Some(())
    }

    /// `(1, 2)` and `(1,)` are tuples, written as arrays; `(1)` is just 1.
    fn parenthesized(&mut self, out: &mut String, depth: usize) -> Option<()> {
        self.at += 1;
        let mark = out.len();
        if self.eat(')') {
            out.push_str("[]");
            return Some(());
        }
        self.value(out, depth + 1)?;
        if self.eat(')') {
            return Some(());
        }
        if !self.eat(',') {
            return None;
        }
        let first = out.split_off(mark);
        out.push('[');
        out.push_str(&first);
        if self.eat(')') {
            out.push(']');
            return Some(());
        }
        out.push_str(", ");
        // The rest reads like a list's items, after the first.
        let mark = out.len();
        self.sequence(')', out, depth)?;
        // `sequence` wrote its own brackets: drop them.
        let rest = out.split_off(mark);
        out.push_str(&rest[1..rest.len() - 1]);
        out.push(']');
        Some(())
    }

    fn string(&mut self, quote: char, out: &mut String) -> Option<()> {
        self.at += 1;
        let mut decoded = String::new();
        let mut chars = self.rest().char_indices();
        loop {
            let (i, c) = chars.next()?;
            match c {
                c if c == quote => {
                    self.at += i + 1;
                    break;
                }
                '\\' => {
                    let (_, escaped) = chars.next()?;
                    match escaped {
                        '\n' => {} // a line continuation
                        'n' => decoded.push('\n'),
                        't' => decoded.push('\t'),
                        'r' => decoded.push('\r'),
                        'b' => decoded.push('\u{8}'),
                        'f' => decoded.push('\u{c}'),
                        'v' => decoded.push('\u{b}'),
                        'a' => decoded.push('\u{7}'),
                        '\\' | '\'' | '"' => decoded.push(escaped),
                        'x' => decoded.push(hex_char(&mut chars, 2)?),
                        'u' => decoded.push(hex_char(&mut chars, 4)?),
                        'U' => decoded.push(hex_char(&mut chars, 8)?),
                        '0'..='7' => {
                            let mut code = escaped.to_digit(8)?;
                            for _ in 0..2 {
                                let next = chars.clone().next().and_then(|(_, c)| c.to_digit(8));
                                let Some(digit) = next else { break };
                                chars.next();
                                code = code * 8 + digit;
                            }
                            decoded.push(char::from_u32(code)?);
                        }
                        // Python keeps an unknown escape as written.
                        other => {
                            decoded.push('\\');
                            decoded.push(other);
                        }
                    }
                }
                c => decoded.push(c),
            }
        }
        out.push('"');
        escape_into(out, &decoded);
        out.push('"');
        Some(())
    }

    /// A number or a name, up to the next delimiter.
    fn scalar(&mut self, out: &mut String) -> Option<()> {
        let rest = self.rest();
        let len = rest
            .find(|c: char| is_python_space(c) || ",:)]}".contains(c))
            .unwrap_or(rest.len());
        let token = &rest[..len];
        match token {
            "True" | "true" => out.push_str("true"),
            "False" | "false" => out.push_str("false"),
            "None" | "null" => out.push_str("null"),
            _ => {
                if let Some(integer) = PythonInt::parse(token) {
                    integer.write(out);
                } else {
                    let float = PythonFloat::parse(token).filter(|f| f.value.is_finite())?;
                    write_f64(float.value, out);
                }
            }
        }
        self.at += len;
        Some(())
    }
}

fn hex_char(chars: &mut std::str::CharIndices<'_>, digits: usize) -> Option<char> {
    let mut code: u32 = 0;
    for _ in 0..digits {
        let (_, c) = chars.next()?;
        code = code * 16 + c.to_digit(16)?;
    }
    char::from_u32(code)
}
