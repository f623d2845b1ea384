//! Dead matches in a marker set where a marker holds another marker's
//! first byte after its own (Kimi's `◁think▷`): the bytes the match
//! stepped may hold the start of a marker, and the match starts over
//! there. Sets without such a marker never come here.

use super::Engine;
use crate::sink::Sink;

impl Engine {
    /// A match died after stepping `here` (in the chunk being read, after
    /// its bytes from earlier chunks): see [`MarkerSet::reanchor`]. The
    /// text before the new start that came in earlier chunks is handed
    /// over now (that of `here` stays in the run). Returns where the match
    /// starts in `here`.
    ///
    /// [`MarkerSet::reanchor`]: super::driver::MarkerSet::reanchor
    #[inline(never)]
    pub(super) fn reanchor<S: Sink>(&mut self, here: &[u8], sink: &mut S) -> Option<usize> {
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
}
