//! `foreign_format`: a parser of a known format that meets, in its
//! content, a call written in another known format (a Hermes call under
//! `qwen3_coder`, a model served with the wrong parser) returns it as
//! content, as it must, and says so: the content is watched with `auto`'s
//! detector, which gives the parser's own format no candidate, and a call
//! another format would read is reported once per format and stream.
//!
//! The watch sits between the engine and the parser's sink, sees only
//! content, and costs a scan for the openers' first bytes in it. A find is
//! reported after the run of content it was found in (before the next
//! other event, or at the end): where in the run the other format's call
//! became certain depends on how the input was split, the run's end does
//! not.

use super::{opener_markers, Detect};
use crate::engine::markers::MarkerSet;
use crate::engine::Engine;
use crate::event::{DiagnosticKind as Kind, Event, Span};
use crate::format::Format;
use crate::sink::{Piece, Sink};

/// The watch on one parser's content.
pub(crate) struct Foreign {
    detect: Detect,
    /// The openers' marker set, looked up once.
    openers: &'static MarkerSet,
    /// Formats already reported, by their place in `Format::ALL`.
    reported: u64,
    /// Reports waiting for the end of their run of content (at most one
    /// per format), with the place of the call's opener.
    pending: Vec<(String, Span)>,
    /// The name of the first call the detector's candidates started.
    first_name: Option<String>,
    /// The bytes that start no marker of the parser's own format and no
    /// opener of another's: content made of them is content with nothing
    /// to read (see [`Foreign::is_plain_content`]).
    plain: [bool; 256],
}

impl Foreign {
    /// The watch over the content of a parser whose own markers are `own`.
    pub(crate) fn new(detect: Detect, own: &MarkerSet) -> Foreign {
        let openers = opener_markers();
        Foreign {
            detect,
            openers,
            reported: 0,
            pending: Vec::new(),
            first_name: None,
            plain: std::array::from_fn(|b| {
                !own.starts_marker(b as u8) && !openers.starts_marker(b as u8)
            }),
        }
    }

    /// Whether `text`, read in content, starts no marker of the parser's
    /// own format and leaves the watch nothing to do: no opener's first
    /// byte in it, nothing under way, no report waiting. One table lookup
    /// a byte for both searches.
    #[inline(always)]
    pub(crate) fn is_plain_content(&self, text: &[u8]) -> bool {
        self.detect.is_quiet()
            && self.pending.is_empty()
            && text.iter().all(|&b| self.plain[usize::from(b)])
    }

    /// Text that [`is_plain_content`](Foreign::is_plain_content), placed at
    /// input offset `at`: what the watch does with it, as content or (not
    /// `content`) as reasoning.
    #[inline(always)]
    pub(crate) fn plain_content(&mut self, text: &str, at: u64, content: bool) {
        self.detect.place(at);
        if content {
            self.detect.note_text(text);
        }
    }

    pub(crate) fn reset(&mut self) {
        self.detect.reset();
        self.reported = 0;
        self.pending.clear();
        self.first_name = None;
    }

    /// Whether no report waits for its run of content to end.
    #[inline]
    pub(crate) fn nothing_pending(&self) -> bool {
        self.pending.is_empty()
    }

    /// Sends the report waiting for its run of content to end.
    #[inline]
    pub(crate) fn flush<S: Sink>(&mut self, out: &mut S) {
        // Every event but content passes here: nothing waits, nearly always.
        if !self.pending.is_empty() {
            self.send_pending(out);
        }
    }

    #[inline(never)]
    fn send_pending<S: Sink>(&mut self, out: &mut S) {
        for (message, span) in self.pending.drain(..) {
            out.event(Event::Diagnostic {
                index: None,
                kind: Kind::ForeignFormat,
                message: &message,
                span,
            });
        }
    }

    /// Content text, read for other formats' calls. Most content holds no
    /// opener's first byte, or only where no opener goes on (`a < b`), and
    /// nothing is under way: then there is nothing to do.
    #[inline]
    fn content(&mut self, text: &str) {
        if !self.detect.is_quiet() {
            return self.read(text);
        }
        let bytes = text.as_bytes();
        let live = match self.openers.any_start(bytes) {
            true => self.openers.live_start(bytes),
            false => None,
        };
        // Code blocks still open and close in the text before.
        let Some(at) = live else {
            return self.detect.note_text(text);
        };
        self.detect.note_text(&text[..at]);
        let pos = self.detect.input_offset();
        self.detect.place(pos + at as u64);
        self.read(&text[at..]);
    }

    #[inline(never)]
    fn read(&mut self, mut text: &str) {
        loop {
            let mut names = FirstName(&mut self.first_name);
            let Some((found, rest)) = self.detect.run(text, &mut names) else {
                break;
            };
            self.report(&found);
            self.first_name = None;
            self.detect.look_again();
            text = rest;
        }
    }

    fn report(&mut self, found: &Engine) {
        let format = found.options().format;
        let bit = Format::ALL
            .iter()
            .position(|f| *f == format)
            .map_or(0, |at| 1u64 << (at % 64));
        if self.reported & bit != 0 {
            return;
        }
        self.reported |= bit;
        let own = self.detect.options().format;
        // The first call's name: by the time the find is returned the
        // candidate may have read further, as far as the chunking let it.
        let name = self.first_name.as_deref().unwrap_or(&found.call.name);
        let message = format!(
            "content holds what the `{}` format reads as a call to `{name}`; this parser reads \
             `{}`, so it stays content (is the format right?)",
            format.name(),
            own.name()
        );
        self.pending.push((message, self.detect.opened()));
    }
}

/// The watch's candidates' sink: only the first call's name is kept.
struct FirstName<'a>(&'a mut Option<String>);

impl Sink for FirstName<'_> {
    const CALL_STARTS_ONLY: bool = true;

    fn event(&mut self, event: Event<'_>) {
        if let (None, Event::ToolCallStart { name, .. }) = (&self.0, event) {
            *self.0 = Some(name.to_owned());
        }
    }
}

/// The parser's sink, with the watch on its content.
pub(crate) struct Watch<'a, S> {
    pub foreign: &'a mut Foreign,
    pub out: &'a mut S,
}

impl<S: Sink> Watch<'_, S> {
    /// Sends the reports still waiting (the end of the stream).
    pub(crate) fn flush(&mut self) {
        self.foreign.flush(self.out);
    }
}

impl<S: Sink> Sink for Watch<'_, S> {
    const WANTS_RAW: bool = S::WANTS_RAW;
    const PLACES_CONTENT: bool = true;

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Content { text } => {
                self.out.event(event);
                self.foreign.content(text);
            }
            // Content on either side of a call is not one text.
            Event::ToolCallStart { .. } => {
                self.foreign.flush(self.out);
                self.foreign.detect.reset();
                self.foreign.first_name = None;
                self.out.event(event);
            }
            _ => {
                self.foreign.flush(self.out);
                self.out.event(event);
            }
        }
    }

    #[inline(always)]
    fn raw(&mut self, text: &str, opening: bool) {
        self.out.raw(text, opening);
    }

    #[inline(always)]
    fn content_at(&mut self, at: u64) {
        self.foreign.detect.place(at);
    }

    #[inline(always)]
    fn dropped(&mut self, text: &str) {
        self.out.dropped(text);
    }

    #[inline(always)]
    fn not_a_call(&mut self) {
        self.out.not_a_call();
    }

    #[inline(always)]
    fn replaced(&mut self, text: usize, input: usize) {
        self.out.replaced(text, input);
    }

    #[inline]
    fn value_piece(&mut self, index: usize, text: &str, delta: &str) {
        self.out.value_piece(index, text, delta);
    }

    #[inline]
    fn event_with_whole(&mut self, event: Event<'_>, whole: Piece) {
        self.out.event_with_whole(event, whole);
    }
}

impl Engine {
    /// Runs `f` with the sink behind the foreign watch.
    pub(in crate::engine) fn watched<S: Sink>(
        &mut self,
        sink: &mut S,
        f: impl FnOnce(&mut Engine, &mut Watch<'_, S>),
    ) {
        let Some(mut foreign) = self.foreign.take() else {
            return;
        };
        let mut watch = Watch {
            foreign: &mut foreign,
            out: sink,
        };
        f(self, &mut watch);
        self.foreign = Some(foreign);
    }

    /// A parser's engine of a known format watches its content for calls
    /// of other formats (`foreign_format`).
    pub(crate) fn watch_foreign(&mut self) {
        if self.opts.format != crate::Format::Auto && self.opts.watch_foreign_formats {
            let detect = Detect::watching(self.opts.clone());
            self.foreign = Some(Box::new(Foreign::new(detect, &self.format.markers)));
        }
    }
}
