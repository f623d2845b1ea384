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
    /// The function name, when `text` is the call's id that followed it
    /// (Mistral's `NAME[CALL_ID]ID`).
    pub func: Option<String>,
    /// The input offset of the name's first byte (diagnostics' spans).
    pub at: u64,
    /// Where, in `text`, the character that made it two words ends.
    spaced_end: usize,
    /// Where, in `text`, the first control character ends.
    invalid_end: usize,
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
    pub(crate) fn clear(&mut self) {
        self.text.clear();
        self.started = false;
        self.gap = false;
        self.spaced = false;
        self.invalid = false;
        self.typed = false;
        self.func = None;
        self.spaced_end = 0;
        self.invalid_end = 0;
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
                if b.is_ascii_whitespace() || b == 0x0b {
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
            if c.is_whitespace() {
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

    /// Whether the text read so far can no longer be a name: two words
    /// (unless `spaces_allowed`), a control character. Checked as bytes
    /// arrive, so that prose that only looks like the start of a call goes
    /// back to content at once.
    pub(crate) fn is_invalid(&self, spaces_allowed: bool) -> bool {
        self.invalid || (self.spaced && !spaces_allowed)
    }

    /// Whether the name holds whitespace between words.
    pub(crate) fn is_spaced(&self) -> bool {
        self.spaced
    }

    /// Whether nothing but whitespace has been read.
    pub(crate) fn is_blank(&self) -> bool {
        !self.started
    }

    /// Trims the name in place (and, for `quoted` names, the quotes around
    /// it); false when it is not a name.
    pub(crate) fn finish(&mut self, spaces_allowed: bool, quoted: bool) -> bool {
        let mut trimmed = self.text.trim();
        if quoted {
            // `"NAME"`, `'NAME'`, or a quote the model left unclosed.
            let quote = |c: char| c == '"' || c == '\'';
            trimmed = trimmed.strip_prefix(quote).unwrap_or(trimmed);
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
        let mut name = Name::default();
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
            let mut name = read(&[written]);
            assert!(name.finish(false, true), "{written}");
            assert_eq!(name.text, "get_weather", "{written}");
        }
        assert!(!read(&["\"\""]).finish(false, true));
        let mut kept = read(&["\"f\""]);
        assert!(kept.finish(false, false));
        assert_eq!(kept.text, "\"f\"");
    }

    #[test]
    fn surrounding_whitespace_is_trimmed() {
        let mut name = read(&[" get_", "weather \n"]);
        assert!(!name.is_invalid(false));
        assert!(name.finish(false, false));
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
        assert!(!read(&["  "]).finish(true, false));
        assert!(read(&["  "]).is_blank());
        assert!(read(&["a\u{1}b"]).is_invalid(true));
        let mut spaced = read(&[" get weather "]);
        assert!(spaced.finish(true, false));
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
