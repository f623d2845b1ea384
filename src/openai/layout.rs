//! Layout whitespace: the newlines a chat template puts around tool calls
//! are not content in the OpenAI output.
//!
//! One rule for every OpenAI output (streamed or whole), so that they
//! agree whatever the chunk sizes: whitespace is held until what follows it
//! is known. Text that is not whitespace takes the held whitespace with it
//! (nothing the model wrote between two words is lost); a call drops it;
//! the end drops it when a call came before, and keeps it otherwise (a
//! message of only whitespace keeps it as content). A run of whitespace
//! longer than [`MAX_LEADING_BLANK`] is content, all of it: the hold is
//! bounded.

use crate::message::Message;

/// The most whitespace the OpenAI output holds while it is not known to be
/// layout (next to a call) or content: holding is for the usual newline or
/// two around calls, and must stay bounded whatever the model writes. A run
/// of whitespace longer than this is content, all of it, in every form.
pub const MAX_LEADING_BLANK: usize = 4096;

/// The layout rule over one message's content as it streams: what
/// [`ChunkEncoder`](super::ChunkEncoder) and
/// [`Message::openai_content`] apply, for a consumer of the events that
/// shows content as OpenAI's output would (a chat UI built on
/// [`Parser::feed`](crate::Parser::feed)). Feed it the text of every
/// `content` event and tell it where each call starts; it gives the content
/// without the layout whitespace around calls, in the same pieces however
/// the text was split.
///
/// ```
/// use toolcall_stream::openai::ContentLayout;
///
/// let mut layout = ContentLayout::new();
/// let mut shown = String::new();
/// layout.text("Checking.\n", &mut shown); // the newline may be layout: held
/// assert_eq!(shown, "Checking.");
/// layout.call(); // it was
/// layout.text("\n", &mut shown);
/// layout.finish(&mut shown); // whitespace after the last call is layout too
/// assert_eq!(shown, "Checking.");
///
/// // Without a call, nothing is layout.
/// layout.text("Hello.\n", &mut shown);
/// layout.finish(&mut shown);
/// assert_eq!(shown, "Checking.Hello.\n");
/// ```
#[derive(Clone, Debug, Default)]
pub struct ContentLayout {
    /// Whitespace whose fate is not known yet.
    held: String,
    /// The current run of whitespace outgrew the bound: the rest of it is
    /// sent as it comes.
    overflowed: bool,
    call_seen: bool,
}

impl ContentLayout {
    /// A layout for a new message.
    pub fn new() -> ContentLayout {
        ContentLayout::default()
    }

    /// Content text; what is known to be content is appended to `out`
    /// (whitespace at its end is held until what follows shows whether it
    /// is layout).
    pub fn text(&mut self, text: &str, out: &mut String) {
        let end = match text.as_bytes().last() {
            // Most text ends in ASCII that is not whitespace (as
            // `char::is_whitespace` has it): all of it is content, without
            // decoding chars from the end.
            Some(&b) if b.is_ascii() && !matches!(b, b'\t'..=b'\r' | b' ') => text.len(),
            _ => match text.rfind(|c: char| !c.is_whitespace()) {
                // `last` is a char boundary and the char there is not
                // whitespace: everything up to its end is content.
                Some(last) => text[last..]
                    .chars()
                    .next()
                    .map_or(text.len(), |c| last + c.len_utf8()),
                None => return self.hold(text, out),
            },
        };
        out.push_str(&self.held);
        self.held.clear();
        out.push_str(&text[..end]);
        self.overflowed = false;
        self.hold(&text[end..], out);
    }

    fn hold(&mut self, blank: &str, out: &mut String) {
        if blank.is_empty() {
            return;
        }
        if self.overflowed {
            out.push_str(blank);
        } else if self.held.len() + blank.len() > MAX_LEADING_BLANK {
            out.push_str(&self.held);
            out.push_str(blank);
            // Give the memory back: the bound is the point.
            self.held = String::new();
            self.overflowed = true;
        } else {
            self.held.push_str(blank);
        }
    }

    /// A tool call starts: the whitespace held before it was layout.
    pub fn call(&mut self) {
        self.held.clear();
        self.overflowed = false;
        self.call_seen = true;
    }

    /// The end of the message: held whitespace is content only when no call
    /// came at all. The layout is then ready for the next message.
    pub fn finish(&mut self, out: &mut String) {
        if !self.call_seen {
            out.push_str(&self.held);
        }
        *self = ContentLayout::default();
    }
}

impl Message {
    /// The content as the OpenAI output sends it
    /// ([`to_chat_completion`](Message::to_chat_completion), and the chunks
    /// of the same output joined): [`content`](Message::content) without
    /// the layout whitespace around tool calls. Whitespace right before a
    /// call, and at the end when a call came before, is left out; all
    /// other text is kept as it is, with the whitespace before it. `None`
    /// when nothing is left.
    ///
    /// ```
    /// use toolcall_stream::{parse, Format};
    ///
    /// let call = "<tool_call>\n<function=f>\n</function>\n</tool_call>";
    /// let message = parse(Format::Qwen3Coder, format!("Checking.\n{call}\n{call}\n"));
    /// assert!(message.content.as_deref().unwrap().starts_with("Checking.\n\n"));
    /// assert_eq!(message.openai_content().as_deref(), Some("Checking."));
    ///
    /// // Text after a call keeps the whitespace before it.
    /// let message = parse(Format::Qwen3Coder, format!("A\n\n{call}\n\nB"));
    /// assert_eq!(message.openai_content().as_deref(), Some("A\n\nB"));
    ///
    /// // No call: nothing is layout.
    /// let message = parse(Format::Qwen3Coder, "Hello.\n");
    /// assert_eq!(message.openai_content().as_deref(), Some("Hello.\n"));
    /// ```
    pub fn openai_content(&self) -> Option<String> {
        let content = self.content.as_deref()?;
        let mut layout = ContentLayout::default();
        let mut out = String::with_capacity(content.len());
        let mut from = 0;
        // Calls whose place in the content is not known (a message put
        // together by hand) count as coming after all of it.
        let known = self.call_offsets.iter().copied();
        let unknown = self
            .tool_calls
            .len()
            .saturating_sub(self.call_offsets.len());
        let places = known.chain(std::iter::repeat(content.len()).take(unknown));
        for at in places {
            // An offset that does not fall inside the content (which the
            // caller may have changed) is skipped, never a panic.
            let Some(piece) = content.get(from..at) else {
                continue;
            };
            layout.text(piece, &mut out);
            layout.call();
            from = at;
        }
        layout.text(content.get(from..).unwrap_or(""), &mut out);
        layout.finish(&mut out);
        (!out.is_empty()).then_some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs pieces (`None` for a call) through the rule.
    fn run(pieces: &[Option<&str>]) -> String {
        let mut layout = ContentLayout::default();
        let mut out = String::new();
        for piece in pieces {
            match piece {
                Some(text) => layout.text(text, &mut out),
                None => layout.call(),
            }
        }
        layout.finish(&mut out);
        out
    }

    #[test]
    fn whitespace_next_to_calls_is_layout() {
        assert_eq!(
            run(&[Some("Let me check.\n"), None, Some("\n"), None, Some("\n")]),
            "Let me check."
        );
        assert_eq!(run(&[Some("A\n\n"), None, Some("\n\nB")]), "A\n\nB");
        assert_eq!(run(&[Some("A "), Some(" \n"), Some("B\n")]), "A  \nB\n");
        assert_eq!(run(&[None, Some("B \n")]), "B");
        assert_eq!(run(&[Some(" \n\t")]), " \n\t");
        assert_eq!(run(&[Some("\u{a0}x\u{3000}"), None]), "\u{a0}x");
    }

    #[test]
    fn a_run_past_the_bound_is_content_whatever_the_pieces() {
        let long = " ".repeat(MAX_LEADING_BLANK + 10);
        let whole = run(&[Some("A"), Some(&long), None]);
        assert_eq!(whole.len(), 1 + long.len());
        let mut layout = ContentLayout::default();
        let mut out = String::from("A");
        for _ in 0..long.len() {
            layout.text(" ", &mut out);
            assert!(layout.held.len() <= MAX_LEADING_BLANK);
        }
        layout.call();
        layout.finish(&mut out);
        assert_eq!(out, whole);
        // Exactly the bound is still held, and dropped by a call.
        let bound = " ".repeat(MAX_LEADING_BLANK);
        assert_eq!(run(&[Some("A"), Some(&bound), None]), "A");
    }

    #[test]
    fn offsets_that_do_not_fit_the_content_do_not_panic() {
        let mut message = crate::parse(
            crate::Format::Qwen3Coder,
            "é\n<tool_call>\n<function=f>\n</function>\n</tool_call>\n",
        );
        assert_eq!(message.openai_content().as_deref(), Some("é"));
        message.content = Some("é".into());
        message.call_offsets = vec![1, 99];
        assert_eq!(message.openai_content().as_deref(), Some("é"));
    }
}
