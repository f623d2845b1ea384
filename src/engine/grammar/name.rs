//! Reading function and parameter names: the bytes up to the name's end,
//! bounded by `max_name_len`, trimmed, and refused when they cannot be a
//! name (empty, or whitespace or control characters inside).

/// A name being read.
#[derive(Default)]
pub(crate) struct Name {
    pub text: String,
    /// A character other than whitespace was read.
    started: bool,
    /// Whitespace came after the name's first characters: one more
    /// non-whitespace character makes it two words.
    gap: bool,
    /// Two words (whitespace inside the name).
    spaced: bool,
    /// A control character was seen.
    invalid: bool,
    /// The call's type was read before this name (DeepSeek V3's
    /// `function<｜tool▁sep｜>`).
    pub typed: bool,
    /// The text read was followed by `ArgsOpen` and is the call's type
    /// word, or the name where the type may be left out: what follows the
    /// marker decides (`Json::call_type_optional`).
    pub type_pending: bool,
    /// The function name, when `text` is the call's id that followed it
    /// (Mistral's `NAME[CALL_ID]ID`).
    pub func: Option<String>,
    /// The input offset of the name's first byte (diagnostics' spans).
    pub at: u64,
    /// Where, in `text`, the character that made it two words ends.
    spaced_end: usize,
    /// Where, in `text`, the first control character ends.
    invalid_end: usize,
    /// Names are attribute values (the format's `quoted_names`): set once,
    /// kept by `clear`.
    quoted: bool,
    /// The quote a quoted name opened with, while it is open.
    open_quote: Option<u8>,
    /// The quoted name closed: attributes may follow, spaces and all.
    in_attributes: bool,
    /// After [`finish`](Name::finish): the attributes written after a
    /// quoted name (DSML's `string="false"`), trimmed.
    pub attributes: String,
    /// A parameter's type, written between its key and its value
    /// (`Role::TypeOpen`); empty when none was.
    pub value_type: String,
}

/// How a piece of name text ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stop {
    /// The piece was all name; the name goes on.
    More,
    /// The name ended at the byte at this offset (not part of the name).
    At(usize),
}

impl Name {
    /// A name reader; `quoted` for a format whose names are attribute
    /// values.
    pub(crate) fn new(quoted: bool) -> Name {
        Name {
            quoted,
            ..Name::default()
        }
    }

    pub(crate) fn clear(&mut self) {
        self.text.clear();
        self.started = false;
        self.gap = false;
        self.spaced = false;
        self.invalid = false;
        self.typed = false;
        self.type_pending = false;
        self.func = None;
        self.spaced_end = 0;
        self.invalid_end = 0;
        self.open_quote = None;
        self.in_attributes = false;
        self.attributes.clear();
        self.value_type.clear();
    }

    /// Where, in `text`, the character that decided it could not be a name
    /// ends (names longer than `max_len` are decided past `max_len`
    /// bytes), whatever the chunking.
    pub(crate) fn refused_at(&self, spaces_allowed: bool, max_len: usize) -> usize {
        // The character holding the first byte over the bound.
        let mut end = self.text.len().min(max_len + 1);
        while !self.text.is_char_boundary(end) {
            end += 1;
        }
        if self.invalid {
            end = end.min(self.invalid_end);
        }
        if self.spaced && !spaces_allowed {
            end = end.min(self.spaced_end);
        }
        end
    }

    /// Appends `s`, noting as it goes whether it can still be a name.
    pub(crate) fn push(&mut self, s: &str) {
        if s.is_ascii() {
            // Names are nearly always ASCII: the same rules, per byte.
            let base = self.text.len();
            for (i, b) in s.bytes().enumerate() {
                if self.quoted && self.quote(b) {
                    // Attributes after a quoted name hold spaces.
                } else if b.is_ascii_whitespace() || b == 0x0b {
                    self.gap |= self.started;
                } else {
                    if b.is_ascii_control() && !self.invalid {
                        self.invalid = true;
                        self.invalid_end = base + i + 1;
                    }
                    if self.gap && !self.spaced {
                        self.spaced = true;
                        self.spaced_end = base + i + 1;
                    }
                    self.started = true;
                }
            }
            self.text.push_str(s);
            return;
        }
        self.push_chars(s);
    }

    /// The same rules, character by character.
    fn push_chars(&mut self, s: &str) {
        let base = self.text.len();
        for (i, c) in s.char_indices() {
            let end = base + i + c.len_utf8();
            if self.quoted && c.is_ascii() && self.quote(c as u8) {
                // As in `push`.
            } else if c.is_whitespace() {
                self.gap |= self.started;
            } else {
                if c.is_control() && !self.invalid {
                    self.invalid = true;
                    self.invalid_end = end;
                }
                if self.gap && !self.spaced {
                    self.spaced = true;
                    self.spaced_end = end;
                }
                self.started = true;
            }
        }
        self.text.push_str(s);
    }

    /// Follows a quoted name's quotes; true when `b` needs no other rule
    /// (a quote, or whitespace among the attributes).
    fn quote(&mut self, b: u8) -> bool {
        if self.in_attributes {
            return b.is_ascii_whitespace();
        }
        match self.open_quote {
            Some(q) if b == q => {
                self.open_quote = None;
                self.in_attributes = true;
                true
            }
            None if !self.started && (b == b'"' || b == b'\'') => {
                self.open_quote = Some(b);
                self.started = true;
                true
            }
            _ => false,
        }
    }

    /// Whether the text read so far can no longer be a name: two words
    /// (unless `spaces_allowed`), a control character. Checked as bytes
    /// arrive, so that prose that only looks like the start of a call goes
    /// back to content at once.
    pub(crate) fn is_invalid(&self, spaces_allowed: bool) -> bool {
        self.invalid || (self.spaced && !spaces_allowed)
    }

    /// The value of attribute `key` among the [`attributes`](Name::attributes)
    /// (`key="v"`, `key='v'` or `key=v`).
    pub(crate) fn attribute(&self, key: &str) -> Option<&str> {
        let mut rest = self.attributes.as_str();
        while !rest.is_empty() {
            let (pair, after) = match rest.find('=') {
                Some(eq) => (&rest[..eq], &rest[eq + 1..]),
                None => return None,
            };
            let (value, tail) = match after.chars().next() {
                Some(q @ ('"' | '\'')) => after[1..].split_once(q).unwrap_or((&after[1..], "")),
                _ => after.split_once(char::is_whitespace).unwrap_or((after, "")),
            };
            if pair.trim() == key {
                return Some(value);
            }
            rest = tail.trim_start();
        }
        None
    }

    /// Where, in `s` (read next), JSON arguments written in attribute
    /// `attr` after this quoted name begin (`args='{`), and the quote
    /// around them if any. A `{` begins them when the text before it ends
    /// with `attr=` and an optional quote, after the name's closing quote.
    pub(crate) fn json_attribute_start(&self, s: &str, attr: &str) -> Option<(usize, Option<u8>)> {
        if !self.quoted {
            return None;
        }
        s.match_indices('{').find_map(|(k, _)| {
            let before = format!("{}{}", self.text, &s[..k]);
            let (rest, quote) = match before.as_bytes().last() {
                Some(&q @ (b'"' | b'\'')) => (&before[..before.len() - 1], Some(q)),
                _ => (before.as_str(), None),
            };
            let rest = rest.strip_suffix('=')?.strip_suffix(attr)?;
            // An attribute of its own, after the closed quoted name.
            let name = rest.trim_start();
            let open = name.as_bytes().first().copied()?;
            let boundary = rest.ends_with(|c: char| c.is_ascii_whitespace());
            let closed = (open == b'"' || open == b'\'') && name[1..].contains(open as char);
            (boundary && closed).then_some((k, quote))
        })
    }

    /// Whether the name holds whitespace between words.
    pub(crate) fn is_spaced(&self) -> bool {
        self.spaced
    }

    /// Whether nothing but whitespace has been read.
    pub(crate) fn is_blank(&self) -> bool {
        !self.started
    }

    /// Trims the name in place (and, for [`quoted`](Name::quoted) names,
    /// the quotes around it); false when it is not a name.
    pub(crate) fn finish(&mut self, spaces_allowed: bool) -> bool {
        let mut trimmed = self.text.trim();
        self.attributes.clear();
        if self.quoted {
            // `"NAME"`, `'NAME'`, or a quote the model left unclosed; what
            // follows the closing quote is attributes.
            let quote = |c: char| c == '"' || c == '\'';
            if let Some(q) = trimmed.chars().next().filter(|&c| quote(c)) {
                let inner = &trimmed[1..];
                let (name, rest) = inner.split_once(q).unwrap_or((inner, ""));
                self.attributes.push_str(rest.trim());
                trimmed = name;
            }
            trimmed = trimmed.strip_suffix(quote).unwrap_or(trimmed).trim();
        }
        if self.is_invalid(spaces_allowed) || trimmed.is_empty() {
            return false;
        }
        let start = trimmed.as_ptr() as usize - self.text.as_ptr() as usize;
        let end = start + trimmed.len();
        self.text.truncate(end);
        self.text.drain(..start);
        true
    }
}

/// Where in `bytes` a name ends: at `end`, at `=` when `equals` ends names
/// too, or at a byte that starts a marker (which means it was not a name).
pub(crate) fn find_end(
    bytes: &[u8],
    end: u8,
    equals: bool,
    starts_marker: impl Fn(u8) -> bool,
) -> Stop {
    match bytes
        .iter()
        .position(|&b| b == end || (equals && b == b'=') || starts_marker(b))
    {
        Some(at) => Stop::At(at),
        None => Stop::More,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(pieces: &[&str]) -> Name {
        read_as(Name::default(), pieces)
    }

    fn read_quoted(pieces: &[&str]) -> Name {
        read_as(Name::new(true), pieces)
    }

    fn read_as(mut name: Name, pieces: &[&str]) -> Name {
        for piece in pieces {
            name.push(piece);
        }
        name
    }

    #[test]
    fn quoted_names_lose_their_quotes() {
        for written in [
            "\"get_weather\"",
            "'get_weather'",
            "get_weather",
            " \"get_weather",
        ] {
            let mut name = read_quoted(&[written]);
            assert!(name.finish(false), "{written}");
            assert_eq!(name.text, "get_weather", "{written}");
        }
        assert!(!read_quoted(&["\"\""]).finish(false));
        let mut kept = read(&["\"f\""]);
        assert!(kept.finish(false));
        assert_eq!(kept.text, "\"f\"");
    }

    #[test]
    fn surrounding_whitespace_is_trimmed() {
        let mut name = read(&[" get_", "weather \n"]);
        assert!(!name.is_invalid(false));
        assert!(name.finish(false));
        assert_eq!(name.text, "get_weather");
    }

    #[test]
    fn two_words_are_refused_as_soon_as_the_second_starts() {
        let name = read(&["tags ", "when"]);
        assert!(name.is_invalid(false));
        assert!(!name.is_invalid(true));
        assert!(name.is_spaced());
        let name = read(&["tags ", " "]);
        assert!(!name.is_invalid(false));
    }

    #[test]
    fn blank_names_and_control_characters_are_refused() {
        assert!(!read(&["  "]).finish(true));
        assert!(read(&["  "]).is_blank());
        assert!(read(&["a\u{1}b"]).is_invalid(true));
        let mut spaced = read(&[" get weather "]);
        assert!(spaced.finish(true));
        assert_eq!(spaced.text, "get weather");
    }

    #[test]
    fn ascii_and_unicode_paths_agree() {
        // Every ASCII byte, alone, between letters and between spaces.
        for b in 0u8..0x80 {
            let c = char::from(b);
            for text in [format!("{c}"), format!("a{c}b"), format!(" {c} ")] {
                let ascii = read(&[&text]);
                let mut chars = Name::default();
                chars.push_chars(&text);
                assert_eq!(
                    (ascii.started, ascii.gap, ascii.spaced, ascii.invalid),
                    (chars.started, chars.gap, chars.spaced, chars.invalid),
                    "{text:?}"
                );
            }
        }
    }

    #[test]
    fn the_end_is_the_first_stop_byte() {
        let lt = |b| b == b'<';
        assert_eq!(find_end(b"city>x", b'>', false, lt), Stop::At(4));
        assert_eq!(find_end(b"city=x>", b'>', true, lt), Stop::At(4));
        assert_eq!(find_end(b"city=x>", b'>', false, lt), Stop::At(6));
        assert_eq!(find_end(b"ci<ty>", b'>', false, lt), Stop::At(2));
        assert_eq!(find_end(b"city", b'>', false, lt), Stop::More);
    }
}
