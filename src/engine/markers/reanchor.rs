//! Marker matches that die: the bytes of earlier chunks they held go to
//! the current state as text, and in a marker set where a marker holds
//! another marker's first byte after its own (Kimi's `◁think▷`), the bytes
//! a match stepped may hold the start of a marker, and the match starts
//! over there (sets without such a marker never re-anchor).

use std::mem;

use crate::engine::Engine;
use crate::sink::Sink;

impl Engine {
    /// A match died after stepping `here` (in the chunk being read, after
    /// its bytes from earlier chunks): see [`MarkerSet::reanchor`]. The
    /// text before the new start that came in earlier chunks is handed
    /// over now (that of `here` stays in the run). Returns where the match
    /// starts in `here`.
    ///
    /// [`MarkerSet::reanchor`]: crate::engine::markers::MarkerSet::reanchor
    #[inline(never)]
    pub(in crate::engine) fn reanchor<S: Sink>(
        &mut self,
        here: &[u8],
        sink: &mut S,
    ) -> Option<usize> {
        let found = self.format.markers.reanchor(&self.marker.pending, here)?;
        if found.text > 0 {
            let mut pending = std::mem::take(&mut self.marker.pending);
            self.reached_text_before(pending.len());
            self.text_all(&pending[..found.text], sink, true);
            pending.drain(..found.text);
            self.marker.pending = pending;
            if !self.marker.pending.is_empty() && !self.scans_markers() {
                // That text began a state that reads no markers (a JSON
                // value): the rest is its text too (see `run_chunk`).
                self.flush_pending(sink);
                return None;
            }
        }
        self.marker.state = Some(found.state);
        Some(found.at)
    }

    pub(in crate::engine) fn next_starts_with_format<S: Sink>(&mut self, lead: u8, sink: &mut S) {
        if self.marker.is_active() && !self.marker.continues_with(&self.format.markers, lead) {
            self.marker.state = None;
            if self.format.markers.reanchors() {
                while self.reanchor(&[], sink).is_some() {
                    if self.marker.continues_with(&self.format.markers, lead) {
                        return;
                    }
                    self.marker.state = None;
                }
            }
            self.flush_pending(sink);
        }
    }

    /// Hands the bytes of a failed marker match that arrived in earlier
    /// chunks to the current state (those of this chunk are still in its
    /// run).
    #[inline]
    pub(in crate::engine) fn flush_pending<S: Sink>(&mut self, sink: &mut S) {
        if !self.marker.pending.is_empty() {
            self.flush_pending_text(sink);
        }
    }

    #[inline(never)]
    fn flush_pending_text<S: Sink>(&mut self, sink: &mut S) {
        let pending = mem::take(&mut self.marker.pending);
        // The bytes of earlier chunks, up to the current one's start.
        self.reached_text_before(pending.len());
        self.text_all(&pending, sink, true);
        self.marker.pending = pending;
        self.marker.pending.clear();
    }
}
