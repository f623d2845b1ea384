//! The shortcuts past the driver: a token of plain value text, plain
//! content or a JSON string's plain text, read with the driver's exact
//! effects but without its decisions (see [`Engine::run`]).

use super::{markers, Engine, SHORT_CHUNK};
use crate::sink::Sink;

/// Whether value chunks other than plain text take a shortcut too (a
/// held line end, a `<` ruled out by the next byte, a match begun or ended
/// at the chunk's edge). Not in the browser package, whose size is
/// budgeted: they cost it 2.3 KB gzipped (a copy per sink type), and its
/// engine measured no faster with them.
const BEYOND_PLAIN: bool = !cfg!(target_arch = "wasm32");

/// What a token-sized chunk read in state `Value` needs (see
/// [`Engine::value_chunk`]).
pub(super) enum ValueChunk {
    /// Value text that goes out as it is, at once; `escaped`: JSON
    /// escapes some of it.
    Plain { escaped: bool },
    /// Value text, with the layout's line end or a held value to mind;
    /// `escaped` as for `Plain`.
    Text { escaped: bool },
    /// A match that an earlier chunk began may end at this chunk's start.
    MarkerUnderWay,
    /// Value text, then a match that begins at the last byte (`Vec<`).
    MarkerStartAtEnd(usize),
    /// Anything else.
    Driven,
}

impl Engine {
    /// What `s`, token-sized and read in state `Value`, needs: the driver,
    /// or (no marker under way or able to start in it, no detector
    /// deciding, no foreign-format report waiting) only the call writer.
    /// Then it is [`ValueChunk::Plain`] when nothing of the value is held
    /// and no line end of `s` is held by the layout, else
    /// [`ValueChunk::Text`].
    #[inline(always)]
    pub(super) fn value_chunk(&self, s: &str) -> ValueChunk {
        let ready = !s.is_empty()
            && s.len() <= SHORT_CHUNK
            && !self.detect.as_deref().is_some_and(|d| !d.decided)
            && !self
                .foreign
                .as_deref()
                .is_some_and(|f| !f.nothing_pending());
        if !ready {
            return ValueChunk::Driven;
        }
        if self.marker.is_active() {
            return match BEYOND_PLAIN {
                true => ValueChunk::MarkerUnderWay,
                false => ValueChunk::Driven,
            };
        }
        let class = self.format.value_bytes(s.as_bytes());
        if class & markers::compiled::MAY_START_MARKER != 0 {
            if !BEYOND_PLAIN {
                return ValueChunk::Driven;
            }
            match self.start_at_end_only(s) {
                Some(None) => {}
                Some(Some(at)) => return ValueChunk::MarkerStartAtEnd(at),
                None => return ValueChunk::Driven,
            }
        }
        let escaped = class & markers::compiled::ESCAPED != 0;
        if self.call.takes_plain_value() && !(escaped && self.holds_line_end(s)) {
            ValueChunk::Plain { escaped }
        } else if BEYOND_PLAIN {
            ValueChunk::Text { escaped }
        } else {
            ValueChunk::Driven
        }
    }

    /// Whether a chunk ending `s` leaves its line end held by the layout
    /// (the one before the closer is not the value's).
    #[inline(always)]
    fn holds_line_end(&self, s: &str) -> bool {
        self.desc().strip_one_newline && s.ends_with('\n')
    }

    /// [`MarkerSet::start_at_end_only`](markers::MarkerSet::start_at_end_only)
    /// of `s`: at each place ruled out, the driver would step one byte,
    /// find no marker, and keep the byte in the value's text.
    #[inline(never)]
    fn start_at_end_only(&self, s: &str) -> Option<Option<usize>> {
        if self.one_byte_may_miss_closer() {
            return None;
        }
        self.format.markers.start_at_end_only(s.as_bytes())
    }

    /// Whether one byte stepped could be a near miss of the closer (were it
    /// two bytes long), which the driver holds rather than keeps as text.
    fn one_byte_may_miss_closer(&self) -> bool {
        self.marker(crate::format::Role::ParamClose).len() == 2
    }

    /// A [`ValueChunk::MarkerStartAtEnd`] chunk, as the driver reads it:
    /// value text up to the last byte, where a match begins.
    #[inline(never)]
    pub(super) fn value_then_marker_start<S: Sink>(&mut self, s: &str, at: usize, sink: &mut S) {
        let (text, start) = s.split_at(at);
        if !text.is_empty() {
            self.call.message.at = self.fed;
            self.value_text(text, sink);
            Self::tee(sink, text);
        }
        self.marker.state = Some(self.format.markers.after_first(start.as_bytes()[0]));
        self.marker.pending.push_str(start);
        self.fed += s.len() as u64;
    }

    /// A [`ValueChunk::Plain`] chunk, out at once.
    #[inline(always)]
    pub(super) fn plain_value_out<S: Sink>(&mut self, s: &str, escaped: bool, sink: &mut S) {
        self.call.message.at = self.fed;
        self.call
            .plain_value_text(s, escaped, self.opts.retain_arguments, sink);
        Self::tee(sink, s);
        self.fed += s.len() as u64;
    }

    /// A [`ValueChunk::MarkerUnderWay`] chunk. Most such matches are one
    /// byte that text began (`a <` at a chunk's end) and that the chunk's
    /// first byte ends (` b`): the byte is value text, and so is the chunk
    /// when it needs no more than the call writer. Else the driver reads it.
    #[inline(never)]
    pub(super) fn value_after_marker_start<S: Sink>(&mut self, s: &str, sink: &mut S) {
        let markers = &self.format.markers;
        let dies = self.marker.pending.len() == 1
            && self
                .marker
                .state
                .is_some_and(|sid| markers.step(sid, s.as_bytes()[0]) == markers::Step::Dead)
            && !self.one_byte_may_miss_closer();
        if !dies {
            return self.drive(s, sink);
        }
        // What the driver does when a match dies at the chunk's first byte.
        self.marker.state = None;
        self.flush_pending(sink);
        match self.value_chunk(s) {
            ValueChunk::Plain { escaped } => self.plain_value_out(s, escaped, sink),
            ValueChunk::Text { escaped } => self.value_text_chunk(s, escaped, sink),
            ValueChunk::MarkerStartAtEnd(at) => self.value_then_marker_start(s, at, sink),
            ValueChunk::MarkerUnderWay | ValueChunk::Driven => self.drive(s, sink),
        }
    }

    /// What the driver does with a [`ValueChunk::Text`] chunk: all of it is
    /// value text, from the chunk's start.
    #[inline(never)]
    pub(super) fn value_text_chunk<S: Sink>(&mut self, s: &str, escaped: bool, sink: &mut S) {
        self.call.message.at = self.fed;
        let strip = self.desc().strip_one_newline;
        let retain = self.opts.retain_arguments;
        if !self
            .call
            .plain_value_text_in_layout(s, escaped, strip, retain, sink)
        {
            self.value_text(s, sink);
        }
        Self::tee(sink, s);
        self.fed += s.len() as u64;
    }

    /// Whether `s`, token-sized and read in state `Json`, is text of a
    /// top-level string argument with nothing to decide: no marker under
    /// way, the JSON reader inside the string with nothing pending and no
    /// byte of `s` ending its run, the call's arguments streaming that
    /// string, no detector deciding, no foreign-format report waiting.
    #[inline(always)]
    pub(super) fn is_plain_json_string_chunk(&self, s: &str) -> bool {
        !s.is_empty()
            && s.len() <= SHORT_CHUNK
            && self.json_reader.takes_plain_string(s.as_bytes())
            && !self.marker.is_active()
            && !self.detect.as_deref().is_some_and(|d| !d.decided)
            && !self
                .foreign
                .as_deref()
                .is_some_and(|f| !f.nothing_pending())
            && self
                .json
                .streams_top_string(self.desc().json.is_some_and(|j| j.body.is_some()))
    }

    /// What the driver and the JSON reader do with a chunk that
    /// [`is_plain_json_string_chunk`](Engine::is_plain_json_string_chunk),
    /// without their decisions: the bulk of a JSON-argument format's
    /// tool-dense stream.
    #[inline(always)]
    pub(super) fn plain_json_string<S: Sink>(&mut self, s: &str, sink: &mut S) {
        self.json_reader.read_plain_string(s.len());
        // A string's text leaves the place at its opening quote.
        self.call.message.at = self.json.event_at;
        self.call.value_text(s, false, &self.opts, sink);
        self.json.args.flush(&mut self.call, &self.opts, sink);
        // The body's text so far: a made call holds none.
        self.hold.text.clear();
        Self::tee(sink, s);
        self.fed += s.len() as u64;
    }

    /// Whether `s`, read in state `Content`, is content with nothing to
    /// decide: no marker under way or able to start in it, no prompt
    /// header open, no detector deciding, and nothing for the foreign
    /// watch to read.
    #[inline(always)]
    pub(super) fn is_plain_content_chunk(&self, s: &str) -> bool {
        !s.is_empty()
            && s.len() <= SHORT_CHUNK
            && !self.marker.is_active()
            && !self.prompt_header
            && !self.format.line_starts
            && !self.detect.as_deref().is_some_and(|d| !d.decided)
            && match self.foreign.as_deref() {
                Some(foreign) => foreign.is_plain_content(s.as_bytes()),
                None => !s.bytes().any(|b| self.format.markers.starts_marker(b)),
            }
    }

    /// What the driver, and the foreign watch behind it, do with a chunk
    /// that [`is_plain_content_chunk`](Engine::is_plain_content_chunk),
    /// without their decisions: prose is most of what a model writes.
    #[inline(always)]
    pub(super) fn plain_content<S: Sink>(&mut self, s: &str, sink: &mut S) {
        let reasoning = self.in_reasoning();
        if self.foreign.is_some() {
            // The watch places the text it is handed, and reads content.
            self.reached_text(0);
            let at = self.call.message.from;
            if let Some(foreign) = self.foreign.as_deref_mut() {
                foreign.plain_content(s, at, !reasoning);
            }
        }
        if let Some(fences) = &mut self.fences {
            fences.push(s);
        }
        Self::text_out(sink, reasoning, s);
        Self::tee(sink, s);
        self.fed += s.len() as u64;
    }
}
