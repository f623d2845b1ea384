//! The shortcuts past the driver: a token of plain value text, plain
//! content or a JSON string's plain text, read with the driver's exact
//! effects but without its decisions (see [`Engine::run`]).

use super::{markers, Engine, SHORT_CHUNK};
use crate::sink::Sink;

impl Engine {
    /// Whether `s`, token-sized and read in state `Value`, is value text
    /// with nothing to decide: no marker under way or able to start in it,
    /// no line end of it held by the layout, the value not held, no
    /// detector deciding, no foreign-format report waiting. `Some(true)`
    /// when JSON escapes some of it.
    #[inline(always)]
    pub(super) fn plain_value_chunk(&self, s: &str) -> Option<bool> {
        let ready = !s.is_empty()
            && s.len() <= SHORT_CHUNK
            && !self.marker.is_active()
            && self.call.takes_plain_value()
            && !self.detect.as_deref().is_some_and(|d| !d.decided)
            && !self
                .foreign
                .as_deref()
                .is_some_and(|f| !f.nothing_pending());
        if !ready {
            return None;
        }
        match self.format.value_bytes(s.as_bytes()) {
            0 => Some(false),
            markers::compiled::ESCAPED if !(self.desc().strip_one_newline && s.ends_with('\n')) => {
                Some(true)
            }
            _ => None,
        }
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
