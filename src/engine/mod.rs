//! The engine: one state machine shared by every format, in parts with one
//! job each, a folder each:
//!
//! * `markers`: finds markers (`memchr` over their first bytes, then an
//!   anchored DFA whose state survives chunk borders), the description
//!   compiled for that, and matches that die;
//! * `grammar`: the states and transitions, written in terms of marker
//!   roles and read from the format's description: held tentative text,
//!   names, what an opening begins, where a value begins and ends, items,
//!   headers, the end of the stream;
//! * `body`: call bodies and arguments written as JSON (or in a call
//!   syntax read as JSON), inside the grammar;
//! * `detect`: `Format::Auto` (the format found from the output) and the
//!   watch for another format's calls in a known format's content;
//! * `call`: the call writer (calls, parameters, arguments JSON, typing,
//!   limits);
//! * `places`: where the engine is in the input (offsets that invalid
//!   UTF-8 skews), and the diagnostics placed there;
//! * the [`Sink`](crate::sink::Sink) the events go to.
//!
//! ADVICE FOR HACKERS. `run` alternates between text runs (in states that
//! look for markers, the text before the next marker's first byte goes to
//! `grammar::text`, which acts on it according to the state) and marker
//! recognition (from a first byte, the DFA is stepped byte by byte; a whole
//! marker goes to `grammar::on_marker`, a dead end hands the bytes stepped
//! to `text`). Decisions that need to see past a marker are tentative
//! states that keep the undecided raw text in `hold`, bounded by
//! `Limits::lookahead`. A byte is therefore decided once, when enough bytes
//! have arrived, which is what makes the events independent of how the
//! input is split. When adding a state: give it a `text` arm and an
//! `on_marker` arm, and say in `finish` what the end of the stream means
//! there.

mod body;
mod call;
mod detect;
mod grammar;
pub(crate) mod markers;
mod places;
mod shortcuts;

pub(crate) use markers::compiled::Compiled;

use std::mem;

use crate::event::Event;
use crate::format::Description;
use crate::options::Options;
use crate::sink::{diagnostic, Sink};

use crate::json::syntax::SyntaxReader;
use body::state::JsonCall;
use call::CallWriter;
use grammar::hold::{Hold, Stray};
use grammar::name::Name;
use grammar::state::State;
pub(crate) use grammar::state::WS;
use markers::{Match, Step};

/// The longest chunk read by the shortcuts past the driver (plain value
/// text, plain content): they look at each byte once, which beats the
/// driver's searches and decisions on a token, not on a long text, which
/// the driver reads at memchr's speed.
const SHORT_CHUNK: usize = 64;

pub(crate) struct Engine {
    format: &'static Compiled,
    opts: Options,
    state: State,
    marker: Match,
    hold: Hold,
    name: Name,
    call: CallWriter,
    stray: Stray,
    /// The JSON value being read (formats that write calls as JSON).
    json_reader: SyntaxReader,
    json: JsonCall,
    /// The input offset of the start of the text `run_format` is given
    /// (after it returns: of the end of the input read), for diagnostics'
    /// spans.
    fed: u64,
    /// Reasoning is open, since the call count was this: a call that
    /// starts inside reasoning ends it.
    reasoning_at: Option<usize>,
    /// Inside the body of a message that is not a call (formats with
    /// headers), which a `BodyClose` or `FuncClose` ends.
    in_message: bool,
    /// That message is addressed to a function, in a format whose calls
    /// are marked up inside messages: its body holds them.
    tool_message: bool,
    /// In the header the prompt opened (`<|start|>assistant`, formats
    /// with headers), while its text is only what may begin one:
    /// whitespace, then the start of the recipient (`to=`).
    prompt_header: bool,
    /// The marker just read was dropped (the end of the turn), for a sink
    /// that wants the raw input.
    dropped_marker: bool,
    /// The end-of-turn token that is ending the output, while it does
    /// (diagnostics say so rather than that the stream ended).
    turn_end: Option<&'static str>,
    /// The open wrapper has no closer, in a format whose others do: its
    /// opener is one of `Json::unclosed_openers`, or it is a body that
    /// opened the output without a marker.
    unclosed_wrapper: bool,
    /// The current call's item (formats with `Role::ItemOpen`).
    item: grammar::item::Item,
    /// `Format::Auto`: looking for the format, or (decided) how to start
    /// over.
    detect: Option<Box<detect::Detect>>,
    /// A known format's watch on its content for other formats' calls.
    foreign: Option<Box<detect::foreign::Foreign>>,
    /// Code blocks in the text outside calls, whose markers are text
    /// (`calls_in_code_blocks(false)`).
    fences: Option<grammar::fence::CodeFences>,
    /// The misspelled openers (`Description::misspellings`) of the call and
    /// of the parameter being opened, reported once each is.
    misspelled: grammar::misspelled::Misspelled,
}

impl Engine {
    #[cfg(test)]
    pub(crate) fn new(opts: Options) -> Engine {
        Engine::with_format(Compiled::of(opts.format), opts)
    }

    /// An engine for a compiled description that need not be one of the
    /// built-in formats (tests use their own).
    pub(crate) fn with_format(format: &'static Compiled, opts: Options) -> Engine {
        let detect = Engine::detecting(opts.clone());
        Engine {
            format,
            opts,
            state: State::initial(format.desc),
            marker: Match::default(),
            hold: Hold::new(),
            name: Name::new(format.desc.quoted_names),
            call: CallWriter::new(),
            stray: Stray::default(),
            json_reader: SyntaxReader::default(),
            json: JsonCall::default(),
            fed: 0,
            reasoning_at: None,
            in_message: false,
            tool_message: false,
            prompt_header: false,
            dropped_marker: false,
            turn_end: None,
            unclosed_wrapper: false,
            item: grammar::item::Item::Closed,
            detect,
            foreign: None,
            fences: None,
            misspelled: grammar::misspelled::Misspelled::default(),
        }
        .started()
    }

    /// Where a stream starts: inside reasoning when the prompt opened it.
    fn started(mut self) -> Engine {
        self.start_stream();
        self
    }

    /// Whether a marker here is inside a fenced code block of the text
    /// outside calls, with `calls_in_code_blocks(false)`.
    #[inline]
    pub(super) fn in_code_block(&self) -> bool {
        self.fences.is_some_and(|f| f.is_open())
    }

    fn start_stream(&mut self) {
        self.begin_prompt_header();
        self.fences = (!self.opts.calls_in_code_blocks).then(grammar::fence::CodeFences::default);
        self.reasoning_at =
            (self.opts.reasoning == crate::Reasoning::Started).then_some(self.call.count());
    }

    /// Whether text outside calls is reasoning now.
    #[inline]
    pub(super) fn in_reasoning(&self) -> bool {
        self.reasoning_at.is_some_and(|at| at == self.call.count())
    }

    pub(crate) fn options(&self) -> &Options {
        &self.opts
    }

    fn desc(&self) -> &'static Description {
        self.format.desc
    }

    /// Back to the start of a stream, keeping allocations and options.
    pub(crate) fn reset(&mut self) {
        if let Some(detect) = &mut self.detect {
            if detect.decided {
                // The winner read this stream; the next starts looking.
                let opts = detect.options().clone();
                let format = Compiled::of(opts.format);
                *self = Engine::with_format(format, opts);
                return;
            }
            detect.reset();
        }
        if let Some(foreign) = &mut self.foreign {
            foreign.reset();
        }
        self.state = State::initial(self.desc());
        self.marker.state = None;
        self.marker.pending.clear();
        self.hold.text.clear();
        self.name.clear();
        self.call.reset();
        self.stray.clear();
        self.json.reset();
        self.in_message = false;
        self.tool_message = false;
        self.unclosed_wrapper = false;
        self.item = grammar::item::Item::Closed;
        self.misspelled = grammar::misspelled::Misspelled::default();
        self.dropped_marker = false;
        self.fed = 0;
        self.start_stream();
    }

    /// Makes the arguments buffer ready for the events of the next `feed`.
    #[inline]
    pub(crate) fn begin_output(&mut self) {
        if let Some(detect) = &mut self.detect {
            detect.begin_output();
        }
        self.call.begin_output(self.opts.retain_arguments);
    }

    /// The call writer's arguments buffer, which recorded whole-argument
    /// fields are spans of.
    pub(crate) fn arguments_buffer(&self) -> &str {
        &self.call.args
    }

    /// The call being read, as it stands.
    pub(crate) fn partial_call(&self) -> Option<crate::PartialCall<'_>> {
        if let Some(detect) = self.detect.as_deref().filter(|d| !d.decided) {
            return detect.partial_call();
        }
        let p = self.call.partial(&self.opts, &self.json.args.closing())?;
        Some(crate::PartialCall::new(
            p.index,
            p.id,
            p.name,
            p.arguments,
            p.closing,
        ))
    }

    /// The call the engine is inside, if any.
    pub(crate) fn current_call(&self) -> Option<usize> {
        self.call.current()
    }

    /// Bytes held back (undecided). A name being read is in `hold` too.
    pub(crate) fn held_len(&self) -> usize {
        self.detect
            .as_deref()
            .filter(|d| !d.decided)
            .map_or(0, detect::Detect::held_len)
            + self.marker.pending.len()
            + self.hold.len()
            + self.call.value.tail.len()
            + self.call.held_len()
            + self.json.held_len()
    }

    /// Content made of the text being handed over in a state other than
    /// `Content` (the rest of an unreadable call, its list's element): it
    /// starts where that text does, not where the construct before it
    /// began, whatever the chunking.
    pub(super) fn content_here<S: Sink>(&mut self, sink: &mut S, text: &str) {
        let at = self.call.message.at;
        self.content_placed(sink, text, at);
    }

    /// Text outside calls that starts at input offset `at`.
    pub(super) fn content_placed<S: Sink>(&mut self, sink: &mut S, text: &str, at: u64) {
        if let Some(fences) = &mut self.fences {
            fences.push(text);
        }
        if S::PLACES_CONTENT {
            sink.content_at(at);
        }
        Self::text_out(sink, self.in_reasoning(), text);
    }

    /// Text outside calls: content, or reasoning while reasoning is open.
    #[inline]
    fn content<S: Sink>(&mut self, sink: &mut S, text: &str) {
        if let Some(fences) = &mut self.fences {
            fences.push(text);
        }
        if S::PLACES_CONTENT {
            // Content starts where what it was began: the text handed
            // over, a marker that was text, or the opening that was not a
            // call.
            sink.content_at(self.call.message.from);
        }
        Self::text_out(sink, self.in_reasoning(), text);
    }

    #[inline]
    fn text_out<S: Sink>(sink: &mut S, reasoning: bool, text: &str) {
        if text.is_empty() {
        } else if reasoning {
            sink.event(Event::Reasoning { text });
        } else {
            sink.event(Event::Content { text });
        }
    }

    // ----- driving -------------------------------------------------------

    /// Processes valid UTF-8 text.
    ///
    /// Text of the current state accumulates as a run, `s[run..]`, and is
    /// handed over only when a marker ends it or the chunk ends: a marker
    /// match that dies stays inside the run (the bytes stepped hold no
    /// marker's first byte after the first, so no marker starts among
    /// them), which keeps the text of a value or of content in as few
    /// pieces, and events, as possible.
    ///
    /// A token of plain value text or plain content takes a shortcut here,
    /// inlined where the parser is fed, and the driver is a call of its
    /// own: most chunks then never pay for the driver's frame. (Not forced
    /// in the browser package, whose size is budgeted: inlined at every
    /// feeding site, the shortcuts cost it about 8 KB gzipped.)
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    #[cfg_attr(target_arch = "wasm32", inline)]
    pub(crate) fn run<S: Sink>(&mut self, s: &str, sink: &mut S) {
        if self.state == grammar::state::State::Value {
            match self.value_chunk(s) {
                // What the driver below does with such a chunk, without its
                // decisions: the bulk of a tool-dense stream.
                shortcuts::ValueChunk::Plain { escaped } => {
                    return self.plain_value_out(s, escaped, sink)
                }
                shortcuts::ValueChunk::Text { escaped } => {
                    return self.value_text_chunk(s, escaped, sink)
                }
                shortcuts::ValueChunk::MarkerUnderWay => {
                    return self.value_after_marker_start(s, sink)
                }
                shortcuts::ValueChunk::MarkerStartAtEnd(at) => {
                    return self.value_then_marker_start(s, at, sink)
                }
                shortcuts::ValueChunk::Driven => {}
            }
        }
        if self.state == grammar::state::State::Content && self.is_plain_content_chunk(s) {
            return self.plain_content(s, sink);
        }
        if self.state == grammar::state::State::Json && self.is_plain_json_string_chunk(s) {
            return self.plain_json_string(s, sink);
        }
        self.drive(s, sink);
    }

    /// [`run`](Engine::run) past the shortcuts.
    #[inline(never)]
    fn drive<S: Sink>(&mut self, s: &str, sink: &mut S) {
        if self.detect.as_deref().is_some_and(|d| !d.decided) {
            return self.detect_run(s, sink);
        }
        // The first marker byte, looked for once (when markers are looked
        // for): the chunk's fate hangs on it.
        let first = (!self.marker.is_active() && self.scans_markers())
            .then(|| self.format.markers.find(s.as_bytes()));
        // The watch sees only content: a chunk wholly inside a value,
        // the bulk of a tool-dense stream, makes none, and goes without it.
        // (A report waiting for its run of content to end goes out before
        // the next event: it needs the watch.)
        let watched = self.foreign.as_deref().is_some_and(|foreign| {
            !(self.state == grammar::state::State::Value
                && first == Some(None)
                && foreign.nothing_pending())
        });
        if watched {
            self.watched(sink, |engine, watch| engine.run_format(s, first, watch));
        } else {
            self.run_format(s, first, sink);
        }
    }

    /// [`run`](Engine::run) once the format is known.
    #[inline]
    fn run_format<S: Sink>(&mut self, s: &str, first: Option<Option<usize>>, sink: &mut S) {
        self.run_chunk(s, first, sink);
        self.fed += s.len() as u64;
    }

    /// Reads a chunk. `first` is where a marker may start in it, when the
    /// caller looked (`None`: this looks itself).
    #[inline(always)]
    fn run_chunk<S: Sink>(&mut self, s: &str, first: Option<Option<usize>>, sink: &mut S) {
        let bytes = s.as_bytes();
        let format: &'static Compiled = self.format;
        let markers = &format.markers;
        // The first marker byte, looked for once: none at all is the
        // common case at token-sized chunks, and then the whole chunk is
        // text.
        let looked = match first {
            Some(found) => Some(found),
            None if !self.marker.is_active() && self.scans_markers() => Some(markers.find(bytes)),
            None => None,
        };
        if looked == Some(None) {
            // Value text is the bulk of a tool-dense stream: straight to
            // the call writer.
            if self.state == grammar::state::State::Value {
                self.call.message.at = self.fed;
                self.value_text(s, sink);
            } else {
                self.text_tee(s, 0, sink);
                return;
            }
            return Self::tee(sink, s);
        }
        let mut first = looked.flatten();
        let mut i = 0;
        let mut run = 0;
        // Where the marker being matched starts in `s`; 0 when it started
        // in an earlier chunk (its bytes so far are in `pending`).
        let mut marker_at = 0;
        while i < bytes.len() {
            if let Some(sid) = self.marker.state {
                let (kept, step) = markers.walk(sid, &bytes[i..]);
                i += kept;
                match step {
                    // Every byte left kept the match going.
                    Step::Partial(next) => self.marker.state = Some(next),
                    Step::Done(role, spelled) => {
                        self.marker.state = None;
                        let earlier = !self.marker.pending.is_empty();
                        self.marker.pending.clear();
                        let last = self.marker.last.replace((role, spelled));
                        self.text_tee(&s[run..marker_at], run, sink);
                        if !earlier && !self.scans_markers() {
                            // That text began a state that reads no
                            // markers (a JSON value): the marker is its
                            // text, as when a chunk ends between the two.
                            self.marker.last = last;
                            (i, run) = (marker_at, marker_at);
                            continue;
                        }
                        i += 1;
                        run = i;
                        self.reached_marker(i, spelled.len());
                        self.on_marker(role, sink);
                        if S::WANTS_RAW {
                            // An opener that went to content opened nothing;
                            // a marker after which a call body begins (a
                            // typed block's opener) opens one.
                            let opening = (role.opens()
                                || self.state == grammar::state::State::JsonStart { body: true })
                                && self.state != grammar::state::State::Content;
                            if mem::take(&mut self.dropped_marker) {
                                sink.dropped(spelled);
                            } else {
                                sink.raw(spelled, opening);
                            }
                        }
                    }
                    Step::Dead => {
                        // The byte is not consumed: it may start a marker.
                        self.marker.state = None;
                        let start = marker_at.max(run);
                        // One byte stepped holds no other start: most dead
                        // matches (`<` then text) never call.
                        let stepped = i - start + self.marker.pending.len();
                        if markers.reanchors() && stepped > 1 {
                            if let Some(at) = self.reanchor(&bytes[start..i], sink) {
                                marker_at = start + at;
                                continue;
                            }
                        }
                        if run < start && !self.state.accumulates_text() {
                            // The text before the match may change the state
                            // (a tentative closer or name inside a value may
                            // go back to the value): hand it over first, as
                            // a chunk ending there would, so that the
                            // near-miss test sees the state that text leaves.
                            self.text_tee(&s[run..start], run, sink);
                            run = start;
                        }
                        // A match of a non-ASCII marker can die inside a
                        // character; near misses are ASCII closers.
                        let stepped = s.get(start..i);
                        if let Some(stepped) = stepped.filter(|t| self.is_near_miss_closer(t)) {
                            // `</parameter` and a byte other than `>`:
                            // held, to see whether structure follows.
                            self.text_tee(&s[run..marker_at.max(run)], run, sink);
                            if S::WANTS_RAW {
                                sink.raw(&self.marker.pending, false);
                                sink.raw(stepped, false);
                            }
                            self.begin_near_miss_closer(stepped);
                            run = i;
                        } else {
                            // The bytes stepped stay in the run, after
                            // those of an earlier chunk.
                            self.flush_pending(sink);
                        }
                    }
                }
            } else if !self.scans_markers() {
                // From the run's start: text that switched the state to
                // one that does not look for markers (a JSON value's
                // start) may leave the bytes of a failed match in the run.
                self.reached_text(run);
                let n = self.text(&s[run..], sink);
                Self::tee(sink, &s[run..run + n]);
                i = run + n;
                run = i;
            } else if let Some(k) = first.take().or_else(|| markers.find(&bytes[i..])) {
                marker_at = i + k;
                self.marker.state = Some(markers.after_first(bytes[marker_at]));
                i = marker_at + 1;
            } else {
                i = bytes.len();
            }
        }
        if self.marker.is_active() {
            self.text_tee(&s[run..marker_at], run, sink);
            if self.marker.pending.is_empty() && !self.scans_markers() {
                // As for a whole marker: the text before it began a state
                // that reads no markers.
                self.marker.state = None;
                return self.run_chunk_from(s, marker_at.max(run), sink);
            }
            self.marker.pending.push_str(&s[marker_at.max(run)..]);
        } else {
            self.text_tee(&s[run..], run, sink);
        }
    }

    /// The rest of a chunk, from `at`, after a marker match there was
    /// dropped.
    #[inline(never)]
    fn run_chunk_from<S: Sink>(&mut self, s: &str, at: usize, sink: &mut S) {
        let fed = self.fed;
        self.fed += at as u64;
        self.run_chunk(&s[at..], None, sink);
        self.fed = fed;
    }

    /// The next input starts with a character whose first byte is `lead`
    /// and whose other bytes have not arrived: when no marker can go on
    /// with it, the bytes of the partial marker are text now, not held
    /// until that character is complete.
    pub(crate) fn next_starts_with<S: Sink>(&mut self, lead: u8, sink: &mut S) {
        if self.detect.as_deref().is_some_and(|d| !d.decided) {
            return self.detect_next_starts_with(lead, sink);
        }
        if self.foreign.is_some() {
            return self.watched(sink, |engine, watch| {
                engine.next_starts_with_format(lead, watch)
            });
        }
        self.next_starts_with_format(lead, sink);
    }

    /// Hands consumed input to a sink that wants it (strict mode).
    #[inline(always)]
    fn tee<S: Sink>(sink: &mut S, text: &str) {
        if S::WANTS_RAW && !text.is_empty() {
            sink.raw(text, false);
        }
    }

    /// Hands text (from `at` in the chunk being read) to the current state,
    /// and to a sink that wants the raw input each piece right after the
    /// events it caused (a JSON value may start or end a call partway
    /// through a run).
    #[inline]
    fn text_tee<S: Sink>(&mut self, mut s: &str, mut at: usize, sink: &mut S) {
        while !s.is_empty() {
            // Content's place matters only to a sink that places it.
            if S::PLACES_CONTENT || self.state != State::Content {
                self.reached_text(at);
            }
            // (A header that ends at its line's end is decided inside the
            // text: the piece that ends it was the prompt header's too.)
            let in_prompt_header = self.prompt_header;
            let n = self.text(s, sink);
            if S::WANTS_RAW && n > 0 && self.may_open_in_prompt_header(in_prompt_header) {
                // The header the prompt opened may open a call.
                sink.raw(&s[..n], true);
            } else {
                Self::tee(sink, &s[..n]);
            }
            s = &s[n..];
            at += n;
        }
    }

    /// Whether text just read was the prompt's header, which may open a
    /// call: it still is, or (a header that ends at its line's end is
    /// decided inside the text) it was until this text ended it, opening
    /// a call (a header whose body is not a call said so already).
    fn may_open_in_prompt_header(&self, was: bool) -> bool {
        self.prompt_header || (was && self.line_end_header() && self.state != State::Content)
    }

    /// Hands text to the current state, from the place `reached_*` (or the
    /// caller) set; `tee`: it is input no sink has seen yet (not a marker
    /// the driver hands over after its events).
    #[inline]
    fn text_all<S: Sink>(&mut self, mut s: &str, sink: &mut S, tee: bool) {
        let mut at = self.call.message.at;
        while !s.is_empty() {
            self.place_text(at);
            let in_prompt_header = self.prompt_header;
            let n = self.text(s, sink);
            if S::WANTS_RAW && tee {
                if n > 0 && self.may_open_in_prompt_header(in_prompt_header) {
                    sink.raw(&s[..n], true);
                } else {
                    Self::tee(sink, &s[..n]);
                }
            }
            s = &s[n..];
            at += n as u64;
        }
    }
}

#[cfg(test)]
mod tests;
