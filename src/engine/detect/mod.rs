//! Detection: `Format::Auto`, where the format is found from the output
//! (here), and the watch for another format's calls in a known format's
//! content (`foreign`), which uses the same openers.
//!
//! Until a format is known, a scout reads the text with one marker set:
//! every detected format's openers (and the reasoning markers). Text is
//! content (or reasoning), at content speed. At an opener, every format
//! that opens with it gets a candidate: an engine of that format, fed the
//! opener and what follows. A candidate that goes back to content with
//! nothing held and no call made is dropped; the first candidate, in the
//! order of [`DETECTED`], that starts a call while no candidate before it
//! is left wins, is reported as `format_detected`, and reads the rest of
//! the stream. When every candidate is dropped, the opener was text: it is
//! content, and the scout reads again what the candidates read after it
//! (another opener may be in it: `<tool_call> here.` in prose, then a
//! call), unless the last one's events say more than that text.
//!
//! An opener only one format has (`[TOOL_CALLS]`, `<|channel|>`, …) gets
//! one candidate, whose events go out as each piece it is fed ends. An
//! opener several formats share (`<tool_call>`, `<tool_calls>`,
//! DeepSeek's) holds its candidates' events until one wins, or until all
//! are dropped, without the diagnostics of formats that did not read it.
//! A watch reads on past what its candidates read: its text is content
//! placed piece by piece, with the parser's own markup cut out. Candidates are fed in pieces cut before
//! every byte that may start a marker, so a decision never depends on how
//! the input was split: between two such bytes no candidate can start a
//! new opening, so none can be dropped and come back.

use std::mem;

use aho_corasick::automaton::StateID;

use crate::engine::grammar::fence::CodeFences;
use crate::engine::markers::{MarkerSet, Step};
mod tap;
use crate::engine::Engine;
use crate::event::Span;
use crate::format::Role;
use crate::options::{Options, Reasoning};
use crate::sink::Sink;
use tap::{gives_back, read_as_winner, replay, Candidate, Spares};
pub(super) mod foreign;
mod openers;
mod refusals;
use refusals::Refusal;
mod winner;
pub(crate) use openers::opener_markers;
use openers::openers;
#[cfg(test)]
use openers::{opener_list, DETECTED};

/// What `auto` keeps while it looks for the format, and after (to start
/// over on `reset`).
pub(crate) struct Detect {
    /// The format was found: the engine is the winner's now.
    pub decided: bool,
    /// The options the parser was built with (`format: Auto`).
    opts: Options,
    /// A scout's marker match in progress, and its bytes from earlier
    /// chunks.
    marker: Option<StateID>,
    pending: String,
    /// Whether the scout is inside reasoning.
    reasoning: bool,
    candidates: Vec<Candidate>,
    /// Dropped candidates, for the next opener.
    spares: Spares,
    /// The opener has one format: its candidate's events go out as they
    /// come.
    sole: bool,
    /// Watching another format's content for calls of other formats
    /// (`foreign_format`): the parser's own format gets no candidate.
    watch: bool,
    /// The text fed to the candidates of a shared opener, which is content
    /// if none reads it as a call (bounded: candidates that have made no
    /// call are tentative, within their lookahead window).
    fed: String,
    /// The input offset of the text `run` is given next.
    pos: u64,
    /// Raw bytes of `fed` that stood for fewer input bytes (U+FFFD for
    /// invalid UTF-8): text and input lengths.
    fed_skew: (usize, usize),
    /// How much of `fed` is the opener.
    opener_len: usize,
    /// Whether the sole candidate has given out nothing yet, so that what
    /// it was fed (kept in `fed`) may still be read again.
    rereadable: bool,
    /// What followed a shared opener that no format read as a call, to be
    /// read again by the scout: it may hold another opener.
    again: String,
    /// Where the candidates' opener is in the input.
    opened: Span,
    /// Code blocks in the scout's text (`calls_in_code_blocks(false)`).
    fences: Option<CodeFences>,
    /// For each shared opener met (and whether in reasoning), the bytes
    /// after which every format that shares it reads it as text.
    refusals: Vec<Refusal>,
}

impl Detect {
    pub(crate) fn new(opts: Options) -> Detect {
        let fences = (!opts.calls_in_code_blocks).then(CodeFences::default);
        let reasoning = opts.reasoning == Reasoning::Started;
        Detect {
            decided: false,
            opts,
            marker: None,
            pending: String::new(),
            reasoning,
            candidates: Vec::new(),
            spares: Spares::default(),
            sole: false,
            watch: false,
            fed: String::new(),
            pos: 0,
            fed_skew: (0, 0),
            opener_len: 0,
            rereadable: false,
            again: String::new(),
            opened: Span::default(),
            fences,
            refusals: Vec::new(),
        }
    }

    /// A detector that looks, in the content of a parser of a known
    /// format, for calls other formats would read.
    pub(crate) fn watching(opts: Options) -> Detect {
        Detect {
            watch: true,
            ..Detect::new(opts)
        }
    }

    /// Nothing under way: no candidate, no marker begun.
    #[inline]
    pub(crate) fn is_quiet(&self) -> bool {
        self.candidates.is_empty() && self.marker.is_none()
    }

    /// The input offset of the text given next (a watch is given content,
    /// which the parser places).
    pub(crate) fn place(&mut self, at: u64) {
        self.pos = at;
    }

    /// How many bytes of input the detector has read.
    pub(crate) fn input_offset(&self) -> u64 {
        self.pos
    }

    /// Offsets move on by `skew` (see `Engine::replaced`).
    pub(crate) fn replaced<S: Sink>(
        &mut self,
        skew: &impl Fn(&mut u64),
        text: usize,
        input: usize,
        sink: &mut S,
    ) {
        skew(&mut self.pos);
        let sole = self.sole;
        let opened = self.opened;
        if sole {
            // The notice follows the output it is about.
            self.flush_sole(sink);
        }
        for candidate in &mut self.candidates {
            skew(&mut candidate.engine.fed);
            // After the raw text the candidate held, if it holds it.
            let (_, mut tap) = candidate.tap(sole, opened, sink);
            if !sole {
                tap.replaced(text, input);
            }
        }
        if sole || self.candidates.is_empty() {
            sink.replaced(text, input);
        } else {
            // Should no candidate read it, the text goes out as written.
            self.fed_skew.0 += text;
            self.fed_skew.1 += input;
        }
    }

    /// Sends the sole candidate's held output; what it was fed is no
    /// longer read again.
    fn flush_sole<S: Sink>(&mut self, sink: &mut S) {
        if let [one] = self.candidates.as_mut_slice() {
            replay(mem::take(&mut one.held), None, sink);
        }
        self.rereadable = false;
        self.fed.clear();
    }

    pub(crate) fn cap_places(&mut self, cap: u64) {
        for candidate in &mut self.candidates {
            candidate.engine.call.message.cap = cap;
        }
    }

    /// Where the opener of the last find is in the input.
    pub(crate) fn opened(&self) -> Span {
        self.opened
    }

    /// After a find while watching: look for the next.
    pub(crate) fn look_again(&mut self) {
        self.decided = false;
    }

    pub(crate) fn options(&self) -> &Options {
        &self.opts
    }

    pub(crate) fn held_len(&self) -> usize {
        self.pending.len()
            + self.fed.len()
            + self
                .candidates
                .iter()
                .map(|c| c.engine.held_len() + c.held_len())
                .sum::<usize>()
    }

    /// The call of an opener's only candidate, if any.
    pub(crate) fn partial_call(&self) -> Option<crate::PartialCall<'_>> {
        match self.candidates.as_slice() {
            [one] if self.sole => one.engine.partial_call(),
            _ => None,
        }
    }

    pub(crate) fn begin_output(&mut self) {
        for candidate in &mut self.candidates {
            candidate.engine.begin_output();
        }
    }

    /// Reads `s`; returns the winner when a call decided the format, with
    /// the text after the piece that decided it.
    pub(crate) fn run<'s, S: Sink>(
        &mut self,
        mut s: &'s str,
        sink: &mut S,
    ) -> Option<(Engine, &'s str)> {
        while !s.is_empty() {
            if self.candidates.is_empty() {
                let n = self.scan(s, sink);
                s = &s[n..];
                self.pos += n as u64;
                continue;
            }
            let n = piece_len(s);
            let (piece, rest) = s.split_at(n);
            s = rest;
            self.pos += n as u64;
            self.feed(piece, sink);
            if let Some(winner) = self.decide(sink).or_else(|| self.read_again(sink)) {
                return Some((winner, s));
            }
        }
        None
    }

    /// Reads again, as the scout, the text a shared opener's candidates
    /// were fed after it when none read a call there: an opener in it
    /// (`<tool_call>` as a word, then a real call) is one. When a call in
    /// it decides the format, the winner has read the rest of it. The
    /// text is at most what the candidates held within their window and
    /// the piece that dropped the last of them.
    fn read_again<S: Sink>(&mut self, sink: &mut S) -> Option<Engine> {
        if self.again.is_empty() {
            return None;
        }
        let again = mem::take(&mut self.again);
        let end = self.pos;
        self.pos = end.saturating_sub(again.len() as u64);
        let winner = self.run(&again, sink).map(|(mut winner, rest)| {
            read_as_winner(&mut winner, rest, sink);
            winner
        });
        self.pos = end;
        winner
    }

    /// The next chunk starts with a character whose first byte is `lead`.
    pub(crate) fn next_starts_with<S: Sink>(&mut self, lead: u8, sink: &mut S) -> Option<Engine> {
        if self.candidates.is_empty() {
            if let Some(sid) = self.marker {
                let set = &openers().markers;
                if matches!(set.step(sid, lead), Step::Dead) {
                    self.marker = None;
                    while self.reanchor(set, &[], sink).is_some() {
                        if self
                            .marker
                            .is_some_and(|sid| set.step(sid, lead) != Step::Dead)
                        {
                            return None;
                        }
                        self.marker = None;
                    }
                    let pending = mem::take(&mut self.pending);
                    self.out(sink, &pending);
                }
            }
            return None;
        }
        let sole = self.sole;
        let opened = self.opened;
        for candidate in &mut self.candidates {
            let (engine, mut tap) = candidate.tap(sole, opened, sink);
            engine.next_starts_with_format(lead, &mut tap);
        }
        self.decide(sink).or_else(|| self.read_again(sink))
    }

    /// The end of the stream before a format was found. Returns the
    /// winner when the text read again at the end holds a call: it has
    /// read the rest, and the end is its to read.
    pub(crate) fn finish<S: Sink>(&mut self, sink: &mut S) -> Option<Engine> {
        if self.candidates.is_empty() {
            self.marker = None;
            let pending = mem::take(&mut self.pending);
            self.out(sink, &pending);
            return None;
        }
        let sole = self.sole;
        let opened = self.opened;
        for candidate in &mut self.candidates {
            let (engine, mut tap) = candidate.tap(sole, opened, sink);
            engine.finish_format(&mut tap);
        }
        let mut candidates = mem::take(&mut self.candidates);
        if sole {
            let one = &mut candidates[0];
            let held = mem::take(&mut one.held);
            if !one.started && self.rereadable && gives_back(&held, &self.fed) {
                self.release_fed(sink);
            } else {
                replay(held, None, sink);
            }
        } else {
            // The first that made a call wins; without one, the text.
            match candidates.into_iter().find(|c| c.started) {
                Some(winner) => {
                    let format = winner.engine.options().format;
                    replay(winner.held, Some((format, opened)), sink);
                }
                None => self.release_fed(sink),
            }
        }
        self.sole = false;
        self.fed.clear();
        self.fed_skew = (0, 0);
        if self.again.is_empty() {
            return None;
        }
        // What followed the opener, to its end, then the end again.
        self.read_again(sink).or_else(|| self.finish(sink))
    }

    /// Back to the start of a stream.
    pub(crate) fn reset(&mut self) {
        self.pos = 0;
        self.fences = (!self.opts.calls_in_code_blocks).then(CodeFences::default);
        self.decided = false;
        self.marker = None;
        self.pending.clear();
        self.reasoning = self.opts.reasoning == Reasoning::Started;
        self.candidates.clear();
        self.sole = false;
        self.fed.clear();
        self.fed_skew = (0, 0);
        self.again.clear();
    }

    /// Text the scout need not scan (it holds no opener), for its code
    /// blocks.
    pub(crate) fn note_text(&mut self, text: &str) {
        if let Some(fences) = &mut self.fences {
            fences.push(text);
        }
    }

    /// The scout's text: content or reasoning, read for code blocks, and
    /// raw input for a sink that wants it.
    fn out<S: Sink>(&mut self, sink: &mut S, text: &str) {
        if let Some(fences) = &mut self.fences {
            fences.push(text);
        }
        Engine::text_out(sink, self.reasoning, text);
        if S::WANTS_RAW && !text.is_empty() {
            sink.raw(text, false);
        }
    }

    /// A dead match that may go on from a later byte (see
    /// [`MarkerSet::reanchor`]): the text before it from earlier chunks
    /// goes out now. Returns where the match starts in `here`.
    #[inline(never)]
    fn reanchor<S: Sink>(&mut self, set: &MarkerSet, here: &[u8], sink: &mut S) -> Option<usize> {
        if !set.reanchors() {
            return None;
        }
        let found = set.reanchor(&self.pending, here)?;
        if found.text > 0 {
            let mut pending = mem::take(&mut self.pending);
            self.out(sink, &pending[..found.text]);
            pending.drain(..found.text);
            self.pending = pending;
        }
        self.marker = Some(found.state);
        Some(found.at)
    }

    /// A marker the scout read as structure: raw input for a sink that
    /// wants it.
    fn structure<S: Sink>(sink: &mut S, marker: &str) {
        if S::WANTS_RAW {
            sink.raw(marker, false);
        }
    }

    /// The text of a shared opener that no format read as a call: the
    /// opener is content, and what followed it is read again (see
    /// [`read_again`](Detect::read_again)); all of it is content as
    /// written when some of it replaced invalid input.
    fn release_fed<S: Sink>(&mut self, sink: &mut S) {
        let fed = mem::take(&mut self.fed);
        let (text, input) = std::mem::take(&mut self.fed_skew);
        if text == 0 && self.opener_len <= fed.len() && !self.watch {
            self.out(sink, &fed[..self.opener_len]);
            self.again.push_str(&fed[self.opener_len..]);
        } else {
            self.out(sink, &fed);
            if text > 0 {
                sink.replaced(text, input);
            }
        }
        self.fed = fed;
        self.fed.clear();
    }

    /// The scout: text to content (or reasoning) until an opener, whose
    /// formats then get candidates. Returns the bytes consumed.
    fn scan<S: Sink>(&mut self, s: &str, sink: &mut S) -> usize {
        let set = &openers().markers;
        let bytes = s.as_bytes();
        let (mut i, mut run, mut marker_at) = (0, 0, 0);
        while i < bytes.len() {
            if let Some(sid) = self.marker {
                let (kept, step) = set.walk(sid, &bytes[i..]);
                i += kept;
                match step {
                    Step::Partial(next) => self.marker = Some(next),
                    Step::Done(role, spelled) => {
                        self.marker = None;
                        self.pending.clear();
                        self.out(sink, &s[run..marker_at.max(run)]);
                        i += 1;
                        run = i;
                        let split = self.opts.reasoning != Reasoning::Off;
                        match role {
                            // In a code block, with the option: text.
                            Role::CallOpen if self.fences.is_some_and(|f| f.is_open()) => {
                                self.out(sink, spelled)
                            }
                            Role::CallOpen => {
                                let end = self.pos + i as u64;
                                // (A watch's content may be placed short of
                                // a marker that began in the text before.)
                                let start = end.saturating_sub(spelled.len() as u64);
                                self.opened = Span::new(start, end);
                                if self.spawn(spelled, &s[i..], sink) {
                                    return i;
                                }
                                self.out(sink, spelled);
                            }
                            Role::ReasoningOpen if split && !self.reasoning => {
                                self.reasoning = true;
                                Self::structure(sink, spelled);
                            }
                            Role::ReasoningClose if split && self.reasoning => {
                                self.reasoning = false;
                                Self::structure(sink, spelled);
                            }
                            // Any detected format's end of turn, before the
                            // format is known; a watch's content is its
                            // format's, which kept what it did not drop.
                            Role::EndOfTurn if !self.watch => {
                                if S::WANTS_RAW {
                                    sink.dropped(spelled);
                                }
                            }
                            _ => self.out(sink, spelled),
                        }
                    }
                    Step::Dead => {
                        self.marker = None;
                        let start = marker_at.max(run);
                        // As in the engine: one byte stepped holds no
                        // other start.
                        let stepped = i - start + self.pending.len();
                        if set.reanchors() && stepped > 1 {
                            if let Some(at) = self.reanchor(set, &bytes[start..i], sink) {
                                marker_at = start + at;
                                continue;
                            }
                        }
                        // The bytes stepped are text, after those of
                        // earlier chunks.
                        let pending = mem::take(&mut self.pending);
                        self.out(sink, &pending);
                        self.pending = pending;
                        self.pending.clear();
                    }
                }
            } else if let Some(k) = set.find(&bytes[i..]) {
                marker_at = i + k;
                self.marker = Some(set.after_first(bytes[marker_at]));
                i = marker_at + 1;
            } else {
                i = bytes.len();
            }
        }
        if self.marker.is_some() {
            self.out(sink, &s[run..marker_at.max(run)]);
            self.pending.push_str(&s[marker_at.max(run)..]);
        } else {
            self.out(sink, &s[run..]);
        }
        s.len()
    }

    /// A candidate for each format that opens with `opener`, fed it;
    /// `after` is the text after the opener in this chunk. Returns false,
    /// spawning none, when the opener is text: no other format opens with
    /// it, or the byte after it shows at once that none reads a call there.
    fn spawn<S: Sink>(&mut self, opener: &'static str, after: &str, sink: &mut S) -> bool {
        let owners = openers()
            .owners
            .iter()
            .find(|(text, _)| *text == opener)
            .map_or(&[][..], |(_, formats)| formats.as_slice());
        let own = self.watch.then_some(self.opts.format);
        let formats = || owners.iter().copied().filter(move |f| Some(*f) != own);
        let count = formats().count();
        if count == 0 || (count > 1 && self.refused_at_once(opener, formats, after, sink)) {
            return false;
        }
        for format in formats() {
            let mut candidate = self.spares.candidate(format, &self.opts);
            candidate.engine.reasoning_at = self.reasoning.then_some(0);
            // It reads from the opener on: its spans are the stream's.
            candidate.engine.fed = self.opened.start;
            self.candidates.push(candidate);
        }
        self.sole = count == 1;
        self.fed.clear();
        self.fed_skew = (0, 0);
        self.opener_len = opener.len();
        // A watch reads on without: its text is content, placed piece by
        // piece, with the parser's own markup cut out between the pieces.
        self.rereadable = !self.watch;
        self.feed(opener, sink);
        // Nothing can be decided yet: a call needs more than its opener.
        true
    }

    /// Feeds a piece to every candidate.
    fn feed<S: Sink>(&mut self, piece: &str, sink: &mut S) {
        let sole = self.sole;
        if !sole || self.rereadable {
            self.fed.push_str(piece);
        }
        let opened = self.opened;
        for candidate in &mut self.candidates {
            let (engine, mut tap) = candidate.tap(sole, opened, sink);
            engine.run_format(piece, None, &mut tap);
        }
    }

    /// Drops the candidates that read their opener as text, and returns the
    /// winner if one is found.
    fn decide<S: Sink>(&mut self, sink: &mut S) -> Option<Engine> {
        // The sole candidate's output of the piece, held until now.
        let sole_held = match self.candidates.as_mut_slice() {
            [one] if self.sole => mem::take(&mut one.held),
            _ => Vec::new(),
        };
        let (reasoning_after, fences_after) = self
            .spares
            .take_idle(&mut self.candidates, self.reasoning)
            .unwrap_or((self.reasoning, self.fences));
        if self.candidates.is_empty() {
            // The opener was text.
            if self.sole && self.rereadable && gives_back(&sole_held, &self.fed) {
                self.release_fed(sink);
            } else if self.sole {
                replay(sole_held, None, sink);
                // A message's end may have closed its reasoning; its text
                // may have opened a code block.
                self.reasoning = reasoning_after;
                self.fences = fences_after;
            } else {
                self.release_fed(sink);
            }
            self.sole = false;
            return None;
        }
        if !sole_held.is_empty() {
            // Out as the piece ends; what follows is no longer read again.
            replay(sole_held, None, sink);
            self.rereadable = false;
            self.fed.clear();
        }
        if !self.candidates[0].started {
            return None;
        }
        // Of two formats that read the same call, one whose template puts
        // parameter openers on lines of their own does not win a call
        // written inline (GLM-4.5 and GLM-4.7 differ only there).
        if self.candidates.len() > 1
            && self.candidates[1].started
            && !self.candidates[0].engine.fits_layout(&self.fed)
        {
            self.candidates.remove(0);
        }
        let winner = self.candidates.remove(0);
        self.candidates.clear();
        if !self.sole {
            let format = winner.engine.options().format;
            replay(winner.held, Some((format, self.opened)), sink);
        }
        self.sole = false;
        self.fed.clear();
        self.fed_skew = (0, 0);
        self.decided = true;
        Some(*winner.engine)
    }
}

/// How much of `s` goes to the candidates at once: one character when it
/// may start a marker, else the run up to the next such byte.
fn piece_len(s: &str) -> usize {
    let set = &openers().markers;
    let bytes = s.as_bytes();
    if set.starts_marker(bytes[0]) || !bytes[0].is_ascii() {
        // A marker may also start with a multi-byte character: one whole
        // character.
        return s.chars().next().map_or(1, char::len_utf8);
    }
    let run = bytes
        .iter()
        .position(|&b| set.starts_marker(b) || !b.is_ascii())
        .unwrap_or(bytes.len());
    run.max(1)
}

#[cfg(test)]
mod tests;
