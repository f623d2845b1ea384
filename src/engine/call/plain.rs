//! Value text that goes out at once: the call writer's side of the
//! engine's shortcut for plain value text.

use super::CallWriter;
use crate::json::escape_into;
use crate::sink::Sink;

impl CallWriter {
    /// Whether value text with no marker in it can go out at once, through
    /// [`plain_value_text`](CallWriter::plain_value_text): the value has
    /// begun and nothing of it is held (a layout line end, an inline
    /// value's trailing space, a value typed when it ends, a wrapped
    /// parameter) or kept to choose a schema branch by.
    #[inline(always)]
    pub(crate) fn takes_plain_value(&self) -> bool {
        self.value.tail.is_empty() && self.takes_plain_value_after_layout()
    }

    /// [`takes_plain_value`](CallWriter::takes_plain_value) but for a
    /// layout line end held from the text before (an outer value's only
    /// tail).
    #[inline(always)]
    fn takes_plain_value_after_layout(&self) -> bool {
        self.value.started
            && !self.value.inline
            && !self.value.holding
            && !self.wrapped.active
            && self.value.probe.room == 0
    }

    /// [`value_text`](CallWriter::value_text) of text with no marker in
    /// it, by way of [`plain_value_text`](CallWriter::plain_value_text)
    /// where the value takes it past a held line end and one that `s` ends
    /// with (`strip_one_newline`): the same events. Returns false, having
    /// done nothing, where it does not.
    pub(crate) fn plain_value_text_in_layout<S: Sink>(
        &mut self,
        s: &str,
        escaped: bool,
        strip_one_newline: bool,
        retain: bool,
        sink: &mut S,
    ) -> bool {
        if !self.takes_plain_value_after_layout() || !matches!(self.value.tail.as_str(), "" | "\n")
        {
            return false;
        }
        if !self.value.tail.is_empty() {
            self.value.tail.clear();
            self.plain_value_text("\n", true, retain, sink);
        }
        let body = match strip_one_newline {
            true => s.strip_suffix('\n').unwrap_or(s),
            false => s,
        };
        if !body.is_empty() {
            self.plain_value_text(body, escaped, retain, sink);
        }
        if body.len() < s.len() {
            self.value.tail.push('\n');
        }
        self.value.line_start = s.ends_with('\n');
        true
    }

    /// [`value_text`](CallWriter::value_text) of text with no marker in it,
    /// when [`takes_plain_value`](CallWriter::takes_plain_value) and no
    /// line end of it is held (`piece` does not end in one the layout may
    /// strip): the same events, without the decisions. `escaped`: some of
    /// its bytes are escaped in JSON.
    #[inline(always)]
    pub(crate) fn plain_value_text<S: Sink>(
        &mut self,
        piece: &str,
        escaped: bool,
        retain: bool,
        sink: &mut S,
    ) {
        let json = match (escaped, retain) {
            (false, true) => {
                self.args.push_str(piece);
                piece
            }
            (false, false) => piece,
            (true, true) => {
                let start = self.args.len();
                escape_into(&mut self.args, piece);
                &self.args[start..]
            }
            (true, false) => {
                self.scratch.clear();
                escape_into(&mut self.scratch, piece);
                &self.scratch
            }
        };
        sink.value_piece(self.calls - 1, piece, json);
        self.value.emitted += piece.len();
        self.value.line_start = escaped && piece.ends_with('\n');
    }
}
