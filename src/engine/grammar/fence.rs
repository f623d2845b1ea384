//! Fenced code blocks in the text outside calls, for
//! [`calls_in_code_blocks(false)`](crate::ParserBuilder::calls_in_code_blocks):
//! a model that shows tool syntax in a Markdown code block is not calling
//! the tool.
//!
//! The rule is CommonMark's, reduced to what decides a block: a line that
//! starts (after at most three spaces) with three or more backticks or
//! tildes opens a block; inside it, a line that starts with at least as
//! many of the same character closes it. The tracker reads the text a
//! byte at a time and keeps its state across pieces, so the decision does
//! not depend on how the input was split. It only runs when the option is
//! on.

/// Where the tracker is in the current line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Line {
    /// At the line's start, after this many spaces.
    Start(u8),
    /// In a run of this fence character, this long, at the line's start.
    Run(u8, u32),
    /// After a run that closes the open block if only spaces follow it.
    Closing,
    /// Past anything that could open or close a block.
    Rest,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CodeFences {
    line: Line,
    /// The open block's fence: its character and length.
    open: Option<(u8, u32)>,
}

impl Default for CodeFences {
    fn default() -> CodeFences {
        CodeFences {
            line: Line::Start(0),
            open: None,
        }
    }
}

impl CodeFences {
    /// Whether markers here are inside a code block (an opening fence
    /// counts from its third character: a marker may follow it on its
    /// line, as an info string would).
    pub(crate) fn is_open(&self) -> bool {
        match (self.open, self.line) {
            (None, Line::Run(_, n)) => n >= 3,
            (open, _) => open.is_some(),
        }
    }

    /// Reads text outside calls.
    pub(crate) fn push(&mut self, text: &str) {
        for &b in text.as_bytes() {
            self.line = match (self.line, b) {
                (Line::Run(c, n), b) if b == c => Line::Run(c, n.saturating_add(1)),
                (Line::Run(c, n), b) => self.run_ended(c, n, b),
                (Line::Closing, b'\n') => {
                    self.open = None;
                    Line::Start(0)
                }
                (Line::Closing, b' ' | b'\t') => Line::Closing,
                (_, b'\n') => Line::Start(0),
                (Line::Start(n), b' ') if n < 3 => Line::Start(n + 1),
                (Line::Start(_), b'`' | b'~') => Line::Run(b, 1),
                _ => Line::Rest,
            };
        }
    }

    /// A run of `n` fence characters `c` ended at byte `b`.
    fn run_ended(&mut self, c: u8, n: u32, b: u8) -> Line {
        match self.open {
            None if n >= 3 => self.open = Some((c, n)),
            // A closing fence has nothing but spaces after it.
            Some((o, len)) if o == c && n >= len => {
                return match b {
                    b'\n' => {
                        self.open = None;
                        Line::Start(0)
                    }
                    b' ' | b'\t' => Line::Closing,
                    _ => Line::Rest,
                }
            }
            _ => {}
        }
        if b == b'\n' {
            Line::Start(0)
        } else {
            Line::Rest
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open_after(pieces: &[&str]) -> bool {
        let mut fences = CodeFences::default();
        for piece in pieces {
            fences.push(piece);
        }
        fences.is_open()
    }

    #[test]
    fn a_fence_at_a_line_start_opens_and_a_matching_one_closes() {
        assert!(open_after(&["Here:\n```python\n"]));
        assert!(open_after(&["```"]));
        assert!(!open_after(&["```\ncode\n```\n"]));
        assert!(!open_after(&["~~~\ncode\n~~~  \n"]));
        // Not closed until the line shows it holds only the fence.
        assert!(open_after(&["~~~\ncode\n~~~"]));
        assert!(open_after(&["```\ncode\n```python\n"]));
        assert!(open_after(&["~~~\ncode\n```\n"]));
        assert!(open_after(&["````\ncode\n```\n"]));
        assert!(!open_after(&["````\ncode\n`````\n"]));
        assert!(open_after(&["   ```\n"]));
    }

    #[test]
    fn backticks_elsewhere_are_text() {
        assert!(!open_after(&["Use ``` to fence.\n"]));
        assert!(!open_after(&["    ```\n"]));
        assert!(!open_after(&["``\n`x`\n"]));
    }

    #[test]
    fn any_split_decides_the_same() {
        let text = "a\n  ```json\n{}\n`````\nb\n~~~~\nc\n~~~\n~~~~~\n```";
        let whole = open_after(&[text]);
        for cut in 0..=text.len() {
            let (a, b) = text.split_at(cut);
            assert_eq!(open_after(&[a, b]), whole, "cut at {cut}");
        }
        let mut fences = CodeFences::default();
        for c in text.chars() {
            fences.push(c.encode_utf8(&mut [0; 4]));
        }
        assert_eq!(fences.is_open(), whole);
    }
}
