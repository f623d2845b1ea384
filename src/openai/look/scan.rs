//! The look's fast path: the common chunk (one choice, its delta's text,
//! `null`s, no escapes outside the text) read by hand in one pass, without
//! serde's visitors. It takes only what it can read whole; on anything
//! else (another shape, a field it does not know with a value that is not
//! `null`, a key twice, an escape in a key, a number it does not expect)
//! it gives up and the serde look decides, so that it never takes a chunk
//! that look would take otherwise.

use std::borrow::Cow;

use super::{Look, Text};
use crate::json::{first_escape, needs_escape};

/// `Some` only for a [`Look::Text`] the serde look would give the same.
pub(crate) fn scan(json: &str) -> Option<Look<'_>> {
    let mut s = Scan {
        s: json.as_bytes(),
        at: 0,
    };
    let choice = s.top()?;
    s.ws();
    if s.at != s.s.len() {
        return None;
    }
    Some(Look::Text {
        index: choice.index,
        content: text(json, choice.span.clone(), choice.escaped)?,
        span: choice.span,
        other: choice.other,
        calls_key: choice.calls_key,
    })
}

/// Where a [`Look::Text`] found its text in a chunk's JSON: a later chunk
/// that is the same outside its text is the same look with its own text.
/// An upstream's chunks differ only there (same id, model, time, fields),
/// so one comparison with the last chunk replaces the scan of its keys.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Frame {
    /// The bytes before the text's string.
    head: usize,
    /// The bytes after it.
    tail: usize,
    index: usize,
    other: bool,
    calls_key: bool,
}

impl Frame {
    /// The frame of `look`, of the chunk `json`.
    pub(crate) fn of(json: &str, look: &Look<'_>) -> Option<Frame> {
        match *look {
            Look::Text {
                index,
                ref span,
                other,
                calls_key,
                ..
            } => Some(Frame {
                head: span.start,
                tail: json.len() - span.end,
                index,
                other,
                calls_key,
            }),
            _ => None,
        }
    }

    /// The look at `json` when it is `last` (the chunk of this frame) with
    /// another string in the text's place. Replacing one JSON string with
    /// another changes nothing else the look checks, so this is the look
    /// [`scan`] (or the serde look) would give.
    pub(crate) fn look<'a>(&self, last: &str, json: &'a str) -> Option<Look<'a>> {
        let end = json.len().checked_sub(self.tail)?;
        if end < self.head
            || json.as_bytes()[..self.head] != last.as_bytes()[..self.head]
            || json.as_bytes()[end..] != last.as_bytes()[last.len() - self.tail..]
        {
            return None;
        }
        let mut s = Scan {
            s: json.as_bytes(),
            at: self.head,
        };
        // Exactly one string in the place: the scan's own check of it.
        let (span, escaped) = s.string()?;
        if span.start != self.head || span.end != end {
            return None;
        }
        Some(Look::Text {
            index: self.index,
            content: text(json, span.clone(), escaped)?,
            span,
            other: self.other,
            calls_key: self.calls_key,
        })
    }
}

/// The text of the JSON string at `span`.
fn text(json: &str, span: std::ops::Range<usize>, escaped: bool) -> Option<Cow<'_, str>> {
    let raw = &json[span];
    Some(if escaped {
        // serde checks the escapes (and unescapes).
        let Text(content) = serde_json::from_str(raw).ok()?;
        content
    } else {
        Cow::Borrowed(&raw[1..raw.len() - 1])
    })
}

struct Choice {
    index: usize,
    span: std::ops::Range<usize>,
    escaped: bool,
    other: bool,
    calls_key: bool,
}

struct Scan<'a> {
    s: &'a [u8],
    at: usize,
}

/// Marks `bit` in `seen`; `None` if it was (a key twice: serde's error).
fn once(seen: &mut u8, bit: u8) -> Option<()> {
    if *seen & bit != 0 {
        return None;
    }
    *seen |= bit;
    Some(())
}

impl<'a> Scan<'a> {
    /// JSON's whitespace, as serde_json skips it.
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.s.get(self.at) {
            self.at += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.at).copied()
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        // Most JSON on the wire has no whitespace between its tokens.
        if self.s.get(self.at) != Some(&c) && self.peek()? != c {
            return None;
        }
        self.at += 1;
        Some(())
    }

    fn null(&mut self) -> Option<()> {
        self.ws();
        self.s[self.at..].starts_with(b"null").then(|| self.at += 4)
    }

    /// `null`: false; a plain string: true.
    fn null_or_plain(&mut self) -> Option<bool> {
        if self.peek()? == b'n' {
            self.null().map(|_| false)
        } else {
            self.plain().map(|_| true)
        }
    }

    /// A string without escapes or control characters.
    fn plain(&mut self) -> Option<&'a [u8]> {
        self.eat(b'"')?;
        let start = self.at;
        // The first byte JSON escapes must be the closing quote.
        let end = start + first_escape(&self.s[start..])?;
        if self.s[end] != b'"' {
            return None;
        }
        self.at = end + 1;
        Some(&self.s[start..end])
    }

    /// A string that may have escapes: its span, quotes included, and
    /// whether it has any (then serde checks them).
    fn string(&mut self) -> Option<(std::ops::Range<usize>, bool)> {
        self.eat(b'"')?;
        let start = self.at - 1;
        let mut escaped = false;
        let mut at = self.at;
        // Byte by byte: a chunk's text is a token or two, shorter than a
        // search's setup.
        while let Some(&b) = self.s.get(at) {
            if needs_escape(b) {
                match b {
                    b'"' => {
                        self.at = at + 1;
                        return Some((start..self.at, escaped));
                    }
                    // The escaped byte is never the end (serde checks
                    // what it is).
                    b'\\' => {
                        escaped = true;
                        at += 1;
                    }
                    _ => return None,
                }
            }
            at += 1;
        }
        None
    }

    /// A non-negative integer of at most `max` digits, no leading zero.
    fn number(&mut self, max: usize) -> Option<u64> {
        self.ws();
        let start = self.at;
        let mut n = 0u64;
        while let Some(&b) = self.s.get(self.at) {
            if !b.is_ascii_digit() {
                break;
            }
            n = n.wrapping_mul(10).wrapping_add(u64::from(b - b'0'));
            self.at += 1;
        }
        let digits = self.at - start;
        if digits == 0 || digits > max || (digits > 1 && self.s[start] == b'0') {
            return None;
        }
        // A fraction or an exponent: not an integer to serde.
        if let Some(b'.' | b'e' | b'E') = self.s.get(self.at) {
            return None;
        }
        Some(n)
    }

    /// A plain string, a number, `true`, `false` or `null`: a value the
    /// serde look ignores, checked as its parser checks it.
    fn scalar(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => self.plain().map(drop),
            b'n' => self.null(),
            b't' => self.word(b"true"),
            b'f' => self.word(b"false"),
            b'-' | b'0'..=b'9' => self.any_number(),
            _ => None,
        }
    }

    fn word(&mut self, word: &[u8]) -> Option<()> {
        self.s[self.at..]
            .starts_with(word)
            .then(|| self.at += word.len())
    }

    /// A JSON number: `-`, an integer without leading zeros, a fraction,
    /// an exponent.
    fn any_number(&mut self) -> Option<()> {
        let s = self.s;
        let mut at = self.at;
        let digits = |mut at: usize| {
            let start = at;
            while s.get(at).is_some_and(u8::is_ascii_digit) {
                at += 1;
            }
            (at > start).then_some(at)
        };
        if s.get(at) == Some(&b'-') {
            at += 1;
        }
        at = match s.get(at)? {
            b'0' => at + 1,
            _ => digits(at)?,
        };
        if s.get(at) == Some(&b'.') {
            at = digits(at + 1)?;
        }
        if let Some(b'e' | b'E') = s.get(at) {
            at += 1;
            if let Some(b'+' | b'-') = s.get(at) {
                at += 1;
            }
            at = digits(at)?;
        }
        self.at = at;
        Some(())
    }

    /// After a member: more (`true`) or the end of the object.
    fn next(&mut self) -> Option<bool> {
        match self.peek()? {
            b',' => {
                self.at += 1;
                Some(true)
            }
            b'}' => {
                self.at += 1;
                Some(false)
            }
            _ => None,
        }
    }

    fn key(&mut self) -> Option<&'a [u8]> {
        self.eat(b'"')?;
        let rest = &self.s[self.at..];
        // The names the scan knows, matched whole with their closing quote
        // (constant lengths: a compare or two each), without a search for
        // that quote; any other name is read as a plain string.
        let known = |name: &[u8]| rest.starts_with(name).then(|| name.len() - 1);
        let len = match rest.first()? {
            b'c' => known(b"content\"")
                .or_else(|| known(b"choices\""))
                .or_else(|| known(b"created\"")),
            b'i' => known(b"index\"").or_else(|| known(b"id\"")),
            b'o' => known(b"object\""),
            b'm' => known(b"model\""),
            b'd' => known(b"delta\""),
            b'l' => known(b"logprobs\""),
            b'f' => known(b"finish_reason\""),
            b'r' => known(b"role\""),
            _ => None,
        };
        let key = match len {
            Some(len) => {
                self.at += len + 1;
                &rest[..len]
            }
            None => {
                self.at -= 1;
                self.plain()?
            }
        };
        self.eat(b':')?;
        Some(key)
    }

    fn top(&mut self) -> Option<Choice> {
        self.eat(b'{')?;
        let mut seen = 0u8;
        let mut choice = None;
        loop {
            match self.key()? {
                b"id" => {
                    once(&mut seen, 1)?;
                    self.plain()?;
                }
                b"object" => {
                    once(&mut seen, 2)?;
                    self.plain()?;
                }
                b"created" => {
                    once(&mut seen, 4)?;
                    self.number(19)?;
                }
                b"model" => {
                    once(&mut seen, 8)?;
                    self.plain()?;
                }
                b"choices" => {
                    once(&mut seen, 16)?;
                    self.eat(b'[')?;
                    choice = Some(self.choice()?);
                    self.eat(b']')?;
                }
                b"system_fingerprint" => {
                    once(&mut seen, 32)?;
                    self.null_or_plain()?;
                }
                b"usage" => {
                    once(&mut seen, 64)?;
                    self.null()?;
                }
                // An error event goes the full way.
                b"error" => return None,
                // A field the look ignores (OpenAI's `obfuscation`, a
                // server's own): skipped when its value is one the scan
                // can check whole.
                _ => self.scalar()?,
            }
            if !self.next()? {
                break;
            }
        }
        // id, object, created, model and choices are required.
        if seen & 31 != 31 {
            return None;
        }
        choice
    }

    fn choice(&mut self) -> Option<Choice> {
        self.eat(b'{')?;
        let mut seen = 0u8;
        let mut choice = Choice {
            index: 0,
            span: 0..0,
            escaped: false,
            other: false,
            calls_key: false,
        };
        loop {
            match self.key()? {
                b"index" => {
                    once(&mut seen, 1)?;
                    // Fits a usize on any target.
                    choice.index = self.number(9)? as usize;
                }
                b"delta" => {
                    once(&mut seen, 2)?;
                    self.delta(&mut choice)?;
                }
                b"finish_reason" => {
                    once(&mut seen, 4)?;
                    self.null()?;
                }
                b"logprobs" => {
                    once(&mut seen, 8)?;
                    self.null()?;
                }
                // A field the crate does not know is kept, so it says
                // something, even as `null` (vLLM's `stop_reason`).
                _ => {
                    self.null()?;
                    choice.other = true;
                }
            }
            if !self.next()? {
                break;
            }
        }
        (seen & 3 == 3).then_some(choice)
    }

    fn delta(&mut self, choice: &mut Choice) -> Option<()> {
        self.eat(b'{')?;
        let mut seen = 0u8;
        loop {
            match self.key()? {
                b"content" => {
                    once(&mut seen, 1)?;
                    (choice.span, choice.escaped) = self.string()?;
                }
                b"role" => {
                    once(&mut seen, 2)?;
                    choice.other |= self.null_or_plain()?;
                }
                b"reasoning_content" => {
                    once(&mut seen, 4)?;
                    choice.other |= self.null_or_plain()?;
                }
                b"tool_calls" => {
                    once(&mut seen, 8)?;
                    self.null()?;
                    choice.calls_key = true;
                }
                _ => {
                    self.null()?;
                    choice.other = true;
                }
            }
            if !self.next()? {
                break;
            }
        }
        // Without text the chunk is not one the look sends as it came.
        (seen & 1 == 1).then_some(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::visit::look_serde;
    use super::super::Look;
    use super::{scan, Frame};

    /// The fields of a look, to compare.
    type Fields = (usize, String, std::ops::Range<usize>, bool, bool);

    fn fields(look: Option<Look<'_>>) -> Option<Fields> {
        match look? {
            Look::Text {
                index,
                content,
                span,
                other,
                calls_key,
            } => Some((index, content.into_owned(), span, other, calls_key)),
            _ => None,
        }
    }

    const SHAPES: &[&str] = &[
        r#"{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":{"content":"Hello"},"logprobs":null,"finish_reason":null}]}"#,
        r#"{"id":"c","object":"chat.completion.chunk","created":0,"model":"Qwen/Qwen3","system_fingerprint":null,"choices":[{"index":3,"delta":{"role":"assistant","content":"a \"b\"\n\u00e9"},"logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null}"#,
        r#"{"choices":[{"delta":{"reasoning_content":null,"content":"x","tool_calls":null,"refusal":null},"finish_reason":null,"index":0}],"created":7,"id":"u","model":"up","object":"chat.completion.chunk","system_fingerprint":"fp"}"#,
        r#"{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"t"},"logprobs":null,"finish_reason":null}],"obfuscation":"aB3xY","x_sent_ns":1764000000123456789,"x_f":-0.5e+3,"x_b":true,"x_n":null,"x_z":false}"#,
        "{\n  \"id\": \"c\",\n  \"object\": \"chat.completion.chunk\",\n  \"created\": 7,\n  \"model\": \"m\",\n  \"choices\": [\n    {\n      \"index\": 0,\n      \"delta\": {\n        \"content\": \"é ok\"\n      }\n    }\n  ]\n}\r\n",
    ];

    #[test]
    fn the_common_shapes_are_scanned() {
        for shape in SHAPES {
            assert!(scan(shape).is_some(), "{shape}");
            assert_eq!(fields(scan(shape)), fields(look_serde(shape)), "{shape}");
        }
    }

    /// Every shape with a byte deleted, replaced or inserted at each place:
    /// what the scan takes, the serde look takes the same.
    #[test]
    fn what_the_scan_takes_the_serde_look_takes_the_same() {
        let bytes = [
            "\"", "\\", ",", "}", "]", "{", " ", "0", "1", "-", ".", "e", "n", "x", "\u{1}", "é",
            ":", "null",
        ];
        let mut scanned = 0;
        for shape in SHAPES {
            let mut variants = Vec::new();
            for (at, _) in shape.char_indices() {
                let next = at + shape[at..].chars().next().unwrap().len_utf8();
                variants.push(format!("{}{}", &shape[..at], &shape[next..]));
                for b in bytes {
                    variants.push(format!("{}{b}{}", &shape[..at], &shape[next..]));
                    variants.push(format!("{}{b}{}", &shape[..at], &shape[at..]));
                }
            }
            for variant in &variants {
                let fast = fields(scan(variant));
                if fast.is_some() {
                    scanned += 1;
                    assert_eq!(fast, fields(look_serde(variant)), "{variant}");
                }
            }
        }
        assert!(scanned > 100);
    }

    /// Every shape with another text, or a byte changed anywhere: what the
    /// frame of the shape takes, the serde look takes the same.
    #[test]
    fn what_the_frame_takes_the_serde_look_takes_the_same() {
        let texts = [
            "",
            "x",
            "a b",
            "\\\"",
            "\\n\\u00e9",
            "\\u12",
            "\\",
            "\\\\",
            "\n",
            "é",
            "\"",
            "\",\"",
        ];
        let mut framed = 0;
        for shape in SHAPES {
            let look = scan(shape).unwrap();
            let frame = Frame::of(shape, &look).unwrap();
            let Look::Text { span, .. } = look else {
                unreachable!()
            };
            let mut variants = Vec::new();
            for text in texts {
                let string = format!("\"{text}\"");
                variants.push(format!(
                    "{}{string}{}",
                    &shape[..span.start],
                    &shape[span.end..]
                ));
                variants.push(format!(
                    "{} {string}{}",
                    &shape[..span.start],
                    &shape[span.end..]
                ));
                variants.push(format!(
                    "{}{string} {}",
                    &shape[..span.start],
                    &shape[span.end..]
                ));
                variants.push(format!(
                    "{}{text}{}",
                    &shape[..span.start],
                    &shape[span.end..]
                ));
            }
            for (at, _) in shape.char_indices() {
                let next = at + shape[at..].chars().next().unwrap().len_utf8();
                for b in ["\"", "\\", "x", " ", "}", "é"] {
                    variants.push(format!("{}{b}{}", &shape[..at], &shape[next..]));
                    variants.push(format!("{}{b}{}", &shape[..at], &shape[at..]));
                }
            }
            for variant in &variants {
                let fast = fields(frame.look(shape, variant));
                if fast.is_some() {
                    framed += 1;
                    assert_eq!(fast, fields(look_serde(variant)), "{variant}");
                }
            }
        }
        assert!(framed > 40, "{framed}");
    }
}
