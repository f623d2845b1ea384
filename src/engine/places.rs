//! Where the engine is in the input: the offset read so far, which an
//! invalid UTF-8 sequence read as U+FFFD skews, and the diagnostics the
//! grammar reports, placed there.

use crate::event::DiagnosticKind as Kind;
use crate::sink::{diagnostic, emit_diagnostic, Sink};

use super::Engine;

impl Engine {
    /// Reports something worth knowing.
    pub(crate) fn diag<S: Sink>(
        &mut self,
        sink: &mut S,
        kind: Kind,
        index: Option<usize>,
        message: std::fmt::Arguments<'_>,
    ) {
        diagnostic(sink, &mut self.call.message, kind, index, message);
    }

    /// Reports something about the input at `span`.
    pub(crate) fn diag_at<S: Sink>(
        &mut self,
        sink: &mut S,
        kind: Kind,
        index: Option<usize>,
        span: crate::event::Span,
        message: std::fmt::Arguments<'_>,
    ) {
        emit_diagnostic(
            sink,
            &mut self.call.message.text,
            kind,
            index,
            span,
            message,
        );
    }

    /// The held text's length (see `replaced`).
    pub(crate) fn held_text_len(&self) -> usize {
        self.hold.text.len()
    }

    /// How many bytes of input have been read.
    pub(crate) fn input_offset(&self) -> u64 {
        match self.detect.as_deref().filter(|d| !d.decided) {
            Some(detect) => detect.input_offset(),
            None => self.fed,
        }
    }

    /// `text` bytes just read stood for `input` bytes of input (an invalid
    /// UTF-8 sequence read as U+FFFD): offsets go on from the input's.
    /// A sink that counts raw bytes is told so, after the raw text.
    /// `held_before`: the held text's length before the replacement was
    /// read (`held_text_len`).
    pub(crate) fn replaced<S: Sink>(
        &mut self,
        text: usize,
        input: usize,
        held_before: usize,
        sink: &mut S,
    ) {
        // A replacement that went into held text: its place, for when the
        // text is released as content.
        let hold = &mut self.hold;
        // (Held text before it may have come out of a marker's first bytes
        // in the same step: the replacement is the held text's end.)
        if hold.text.len() >= held_before + text && hold.text.ends_with('\u{FFFD}') {
            hold.note_replaced(hold.text.len() - text, input);
        }
        let skew = |at: &mut u64| *at = (*at + input as u64).saturating_sub(text as u64);
        skew(&mut self.fed);
        match self.detect.as_deref_mut().filter(|d| !d.decided) {
            Some(detect) => detect.replaced(&skew, text, input, sink),
            None => sink.replaced(text, input),
        }
    }

    /// While the U+FFFD that stands for the invalid bytes ending at input
    /// offset `cap` is read, nothing is placed past them (`u64::MAX`: no
    /// cap).
    pub(crate) fn cap_places(&mut self, cap: u64) {
        self.call.message.cap = cap;
        if let Some(detect) = self.detect.as_deref_mut().filter(|d| !d.decided) {
            detect.cap_places(cap);
        }
    }
}
