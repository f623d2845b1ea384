//! The engine: one state machine shared by every format.
//!
//! ADVICE FOR HACKERS. The machine is driven by `run`, which alternates
//! between two kinds of work:
//!
//! * text runs: in states that look for markers, `memchr` finds the next `<`
//!   and the bytes before it go to `text`, which acts on them according to
//!   the state (content, value text, name bytes, stray text, ...);
//! * marker recognition: from a `<`, the format's anchored DFA is stepped
//!   byte by byte (`scan.rs`). Its state and the bytes stepped so far
//!   (`pending`, at most one marker long) survive across `feed` calls. A
//!   whole marker goes to `on_marker`; a dead end hands `pending` to `text`.
//!
//! Decisions that need to see past a marker (is `<tool_call>` really
//! followed by a function? is this `</parameter>` followed by structure?)
//! are tentative states that keep the undecided raw text in `held`, bounded
//! by `Limits::lookahead`; when the decision falls, `held` is released as
//! content (or value text) or dropped as markup. A byte is therefore decided
//! once, when enough bytes have arrived, which is what makes the events
//! independent of how the input is split.
//!
//! When adding a state: give it a `text` arm and an `on_marker` arm, say in
//! `finish` what the end of the stream means there, and add it to
//! `scans_markers` and `in_call` as appropriate.

use std::collections::hash_map::RandomState;
use std::fmt::Write;
use std::mem;

use aho_corasick::automaton::StateID;
use memchr::{memchr, memchr2, memchr3};

use crate::event::{DiagnosticKind as Kind, Output, RawEvent};
use crate::format::{Compiled, Marker};
use crate::json::{escape_into, first_escape};
use crate::options::{Options, ValueTermination};
use crate::scan::Step;

/// How much stray text a diagnostic quotes.
const STRAY_PREVIEW: usize = 80;

const WS: [char; 4] = [' ', '\t', '\r', '\n'];

/// Where the machine is. Comments say what the state's text means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Outside any call: text is content.
    Content,
    /// After `<tool_call>`, before `<function=`: tentative, text is held
    /// until a function name confirms the call or the window runs out.
    Preamble,
    /// Reading a function name up to `>`; tentative (see `Opening`).
    FuncName,
    /// After a bare `<function=NAME>` (no `<tool_call>`): tentative until
    /// whitespace and then `<parameter=` or `</function>` confirm it.
    BarePending,
    /// Inside a call, between parameters: whitespace is layout, other text
    /// is stray.
    InCall,
    /// Reading a parameter name up to `>` (or `=`, a malformed shape).
    ParamName,
    /// Inside a parameter value: text is value text.
    Value,
    /// `lookahead` mode: a closer was seen inside a value; it ends the
    /// value only if whitespace and a structural marker (or the end)
    /// follow. The closer and the whitespace are held.
    CloserPending(Marker),
    /// `<parameter=KEY></parameter>` was seen: an empty value, unless text
    /// follows (the malformed shape where the value comes after the tag).
    AfterEmptyClose,
    /// After `</function>`: inside the `<tool_call>` wrapper, or after a
    /// bare call (`bare`), where only `</tool_call>` or another function
    /// may follow.
    Between { bare: bool },
    /// After `</tool_call>`: whitespace is held; it is the template's
    /// layout if another `<tool_call>` follows, content otherwise.
    AfterCall,
}

/// What the text in `held` opened, which decides where it goes if the
/// opening turns out not to be a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Opening {
    /// `<tool_call>` and what followed it.
    Preamble,
    /// A bare `<function=`.
    Bare,
    /// `<function=` after an earlier call in the same wrapper.
    Wrapped,
}

/// The parameter value being read.
#[derive(Default)]
struct Value {
    /// A malformed shape's value: it ends at the next marker, whitespace
    /// around it is dropped.
    inline: bool,
    /// Whether any byte of the value has arrived.
    started: bool,
    /// Bytes emitted so far.
    emitted: usize,
    /// Trailing bytes held back: a layout `\n` that a closer may still
    /// prove to be layout, or trailing whitespace of an inline value.
    tail: String,
    /// Where the value's JSON string starts in the call's arguments.
    json_start: usize,
    /// Whether a closer kept as value text was reported already.
    closer_reported: bool,
}

pub(crate) struct Machine {
    format: &'static Compiled,
    opts: Options,
    seed: RandomState,
    state: State,
    /// The DFA state while a marker is being recognized.
    matching: Option<StateID>,
    /// The bytes of the marker being recognized (ASCII).
    pending: String,
    /// Raw text of an undecided opening or closer.
    held: String,
    opening: Opening,
    /// Where the preamble's text ends in `held`.
    inner_end: usize,
    /// The name being read.
    name: String,
    /// Whether the current call (or the last one) had no `<tool_call>`.
    bare: bool,
    /// How many calls have started.
    calls: usize,
    in_call: bool,
    call_name: String,
    /// Where the open call's arguments start in `out.args`.
    call_args_start: usize,
    /// The open call's parameter names, `\n`-separated (names hold no
    /// whitespace).
    param_names: String,
    param_count: usize,
    param: String,
    param_open: bool,
    value: Value,
    /// A preview of stray text inside a call, and its length.
    stray: String,
    stray_len: usize,
    /// Whether the open call lost parameters to `max_parameters`.
    call_cut: bool,
    /// Whether `max_calls` / `max_parameters` were reported already.
    calls_limit_reported: bool,
    params_limit_reported: bool,
    scratch: String,
    pub(crate) out: Output,
}

impl Machine {
    pub(crate) fn new(opts: Options) -> Machine {
        Machine {
            format: opts.format.compiled(),
            opts,
            seed: RandomState::new(),
            state: State::Content,
            matching: None,
            pending: String::new(),
            held: String::new(),
            opening: Opening::Preamble,
            inner_end: 0,
            name: String::new(),
            bare: false,
            calls: 0,
            in_call: false,
            call_name: String::new(),
            call_args_start: 0,
            param_names: String::new(),
            param_count: 0,
            param: String::new(),
            param_open: false,
            value: Value::default(),
            stray: String::new(),
            stray_len: 0,
            call_cut: false,
            calls_limit_reported: false,
            params_limit_reported: false,
            scratch: String::new(),
            out: Output::default(),
        }
    }

    pub(crate) fn options(&self) -> &Options {
        &self.opts
    }

    /// Back to the start of a stream, keeping allocations and options.
    pub(crate) fn reset(&mut self) {
        let opts = self.opts.clone();
        let mut old = mem::replace(self, Machine::new(opts));
        // Keep the buffers' capacity: a reused parser allocates nothing
        // for a response no larger than the ones before it.
        for (new, old) in [
            (&mut self.pending, &mut old.pending),
            (&mut self.held, &mut old.held),
            (&mut self.name, &mut old.name),
            (&mut self.call_name, &mut old.call_name),
            (&mut self.param_names, &mut old.param_names),
            (&mut self.param, &mut old.param),
            (&mut self.value.tail, &mut old.value.tail),
            (&mut self.stray, &mut old.stray),
            (&mut self.scratch, &mut old.scratch),
        ] {
            old.clear();
            mem::swap(new, old);
        }
        self.out = old.out;
        self.out.clear();
        self.out.args.clear();
    }

    /// Makes the output ready for the events of the next `feed`: the
    /// arguments text of calls already ended is dropped, the open call's is
    /// kept (moved to the front once, after the call that preceded it).
    pub(crate) fn begin_output(&mut self) {
        self.out.clear();
        if self.in_call && self.opts.retain_arguments {
            let start = mem::take(&mut self.call_args_start);
            if start > 0 {
                self.out.args.drain(..start);
                self.value.json_start -= start.min(self.value.json_start);
            }
        } else {
            self.out.args.clear();
            self.call_args_start = 0;
        }
    }

    /// The call the machine is inside, if any.
    pub(crate) fn current_call(&self) -> Option<usize> {
        call_index(self.in_call, self.calls)
    }

    /// Bytes held back (undecided).
    pub(crate) fn held_len(&self) -> usize {
        let reading_name = matches!(self.state, State::FuncName | State::ParamName);
        let name = if reading_name { self.name.len() } else { 0 };
        self.pending.len() + self.held.len() + self.value.tail.len() + name
    }

    fn scans_markers(&self) -> bool {
        !matches!(self.state, State::FuncName | State::ParamName)
    }

    fn window(&self) -> usize {
        self.opts.limits.lookahead
    }

    // ----- driving -------------------------------------------------------

    /// Processes valid UTF-8 text.
    ///
    /// Text of the current state accumulates as a run, `s[run..]`, and is
    /// handed over only when a marker ends it or the chunk ends: a `<` whose
    /// marker match dies stays inside the run (the bytes stepped hold no
    /// other `<`, so no marker starts among them), which keeps the text of
    /// a value or of content in as few pieces, and events, as possible.
    #[inline]
    pub(crate) fn run(&mut self, s: &str) {
        let bytes = s.as_bytes();
        // The first `<`, looked for once: none at all is the common case at
        // token-sized chunks, and then the whole chunk is text.
        let mut first_angle = None;
        if self.matching.is_none() && self.scans_markers() {
            first_angle = find_open_angle(bytes);
            if first_angle.is_none() {
                return self.text_all(s);
            }
        }
        let mut i = 0;
        let mut run = 0;
        // Where the marker being matched starts in `s`; 0 when it started
        // in an earlier chunk (its bytes so far are in `pending`).
        let mut marker_at = 0;
        while i < bytes.len() {
            if let Some(sid) = self.matching {
                match self.format.markers.step(sid, bytes[i]) {
                    Step::Partial(next) => {
                        self.matching = Some(next);
                        i += 1;
                    }
                    Step::Done(marker) => {
                        self.matching = None;
                        self.pending.clear();
                        self.text_all(&s[run..marker_at]);
                        i += 1;
                        run = i;
                        self.on_marker(marker);
                    }
                    Step::Dead => {
                        // The byte is not consumed: it may start a marker.
                        // The bytes stepped stay in the run, after those
                        // of an earlier chunk.
                        self.matching = None;
                        self.flush_pending();
                    }
                }
            } else if !self.scans_markers() {
                i += self.text(&s[i..]);
                run = i;
            } else if let Some(k) = first_angle.take().or_else(|| find_open_angle(&bytes[i..])) {
                marker_at = i + k;
                self.matching = Some(self.format.markers.after_open_angle());
                i = marker_at + 1;
            } else {
                i = bytes.len();
            }
        }
        if self.matching.is_some() {
            self.text_all(&s[run..marker_at]);
            self.pending.push_str(&s[marker_at.max(run)..]);
        } else {
            self.text_all(&s[run..]);
        }
    }

    /// Ends a marker match that the next input cannot continue (a
    /// character that is not ASCII is on its way): its bytes are text now,
    /// not held until that character is complete.
    pub(crate) fn end_marker_match(&mut self) {
        if self.matching.take().is_some() {
            self.flush_pending();
        }
    }

    /// The end of the stream: flushes what is held, closes what is open.
    #[inline(never)]
    pub(crate) fn finish(&mut self) {
        let mut cut_marker = None;
        if self.matching.take().is_some() {
            let inside = matches!(
                self.state,
                State::InCall
                    | State::ParamName
                    | State::Value
                    | State::CloserPending(_)
                    | State::AfterEmptyClose
            );
            if inside && self.pending.len() >= 2 {
                // A marker cut by the end of the stream: markup, not value.
                cut_marker = Some(mem::take(&mut self.pending));
            } else {
                self.flush_pending();
            }
        }
        loop {
            match self.state {
                State::Content => {}
                State::Preamble | State::BarePending => self.reject_opening(),
                State::FuncName => {
                    self.out.diag(
                        Kind::Truncated,
                        None,
                        format_args!(
                            "the stream ended inside a function name; \
                             the text is returned as content"
                        ),
                    );
                    self.reject_opening();
                }
                State::InCall | State::ParamName | State::Value | State::AfterEmptyClose => {
                    self.flush_stray();
                    self.truncate_call(cut_marker.as_deref());
                }
                State::CloserPending(closer) => {
                    self.accept_closer(closer);
                    continue;
                }
                State::Between { bare: true } | State::AfterCall => self.release_held(),
                State::Between { bare: false } => {
                    // Trailing whitespace of an unclosed wrapper is layout.
                    self.held.clear();
                    self.out.diag(
                        Kind::UnclosedToolCall,
                        self.calls.checked_sub(1),
                        format_args!("the stream ended before `</tool_call>`"),
                    );
                }
            }
            break;
        }
        self.state = State::Content;
    }

    /// Hands the bytes of a failed marker match to the current state.
    #[inline(never)]
    fn flush_pending(&mut self) {
        let pending = mem::take(&mut self.pending);
        self.text_all(&pending);
        self.pending = pending;
        self.pending.clear();
    }

    #[inline]
    fn text_all(&mut self, mut s: &str) {
        while !s.is_empty() {
            let n = self.text(s);
            s = &s[n..];
        }
    }

    // ----- text ----------------------------------------------------------

    /// Acts on text that holds no marker (or, in the name states, on the
    /// rest of the input). Returns how many bytes were consumed; consumes
    /// none only after changing state, so the caller's loop progresses.
    #[inline]
    fn text(&mut self, s: &str) -> usize {
        match self.state {
            State::Content => {
                self.out.content(s);
                s.len()
            }
            State::Preamble => {
                self.held.push_str(s);
                let open = self.format.spec.text(Marker::CallOpen).len();
                if self.held.len() > open + self.window() {
                    self.reject_opening();
                }
                s.len()
            }
            State::FuncName | State::ParamName => self.name_text(s),
            State::BarePending => {
                let ws = leading_ws(s);
                self.held.push_str(&s[..ws]);
                if ws < s.len() || self.held.len() > self.hold_limit() {
                    self.reject_opening();
                }
                ws
            }
            State::InCall => {
                self.stray_text(s);
                s.len()
            }
            State::Value => {
                self.value_text(s);
                s.len()
            }
            State::CloserPending(_) => {
                let ws = leading_ws(s);
                self.held.push_str(&s[..ws]);
                if ws < s.len() || self.held.len() > self.hold_limit() {
                    self.reject_closer();
                }
                ws
            }
            State::AfterEmptyClose => {
                let ws = leading_ws(s);
                if ws < s.len() {
                    self.out.diag(
                        Kind::EmptyParameterTag,
                        call_index(self.in_call, self.calls),
                        format_args!(
                            "parameter `{}` was closed at once and its value \
                             came after `</parameter>`; that text is the value",
                            self.param
                        ),
                    );
                    self.value.inline = true;
                    self.state = State::Value;
                }
                ws
            }
            State::AfterCall => {
                let ws = leading_ws(s);
                self.held.push_str(&s[..ws]);
                if ws < s.len() || self.held.len() > self.hold_limit() {
                    self.release_held();
                    self.state = State::Content;
                }
                ws
            }
            State::Between { bare } => {
                // Whitespace is layout if a marker follows, content if text
                // does.
                let ws = leading_ws(s);
                self.held.push_str(&s[..ws]);
                if ws < s.len() || self.held.len() > self.hold_limit() {
                    if !bare {
                        self.out.diag(
                            Kind::UnclosedToolCall,
                            self.calls.checked_sub(1),
                            format_args!(
                                "text followed `</function>` without \
                                 `</tool_call>`; the wrapper is taken as closed"
                            ),
                        );
                    }
                    self.release_held();
                    self.state = State::Content;
                }
                ws
            }
        }
    }

    fn hold_limit(&self) -> usize {
        self.window() + 64
    }

    /// Name bytes: up to the name's end, `=` (parameters only) or `<`.
    fn name_text(&mut self, s: &str) -> usize {
        let bytes = s.as_bytes();
        let end_byte = self.format.spec.name_end;
        let param = self.state == State::ParamName;
        let stop = if param {
            memchr3(end_byte, b'=', b'<', bytes)
        } else {
            memchr2(end_byte, b'<', bytes)
        };
        let end = stop.unwrap_or(bytes.len());
        self.name.push_str(&s[..end]);
        self.held.push_str(&s[..end]);
        if self.name.len() > self.opts.limits.max_name_len {
            self.reject_name();
            return end;
        }
        match stop.map(|at| bytes[at]) {
            None => end,
            Some(b'<') => {
                self.reject_name();
                end
            }
            Some(b'=') => {
                self.held.push('=');
                self.param_name_done(true);
                end + 1
            }
            Some(byte) => {
                self.held.push(char::from(byte));
                if param {
                    self.param_name_done(false);
                } else {
                    self.func_name_done();
                }
                end + 1
            }
        }
    }

    /// Trims `name` in place; false when it is empty or holds whitespace
    /// or control characters, which no tool or parameter name does.
    fn trim_name(&mut self) -> bool {
        let trimmed = self.name.trim();
        let valid =
            !trimmed.is_empty() && !trimmed.chars().any(|c| c.is_whitespace() || c.is_control());
        if valid {
            let start = trimmed.as_ptr() as usize - self.name.as_ptr() as usize;
            let end = start + trimmed.len();
            self.name.truncate(end);
            self.name.drain(..start);
        }
        valid
    }

    fn func_name_done(&mut self) {
        if !self.trim_name() {
            return self.reject_name();
        }
        if self.calls >= self.opts.limits.max_calls {
            if !self.calls_limit_reported {
                self.calls_limit_reported = true;
                self.out.diag(
                    Kind::LimitExceeded,
                    None,
                    format_args!(
                        "more than {} calls (`max_calls`); the rest of the \
                         calls are returned as content",
                        self.opts.limits.max_calls
                    ),
                );
            }
            return self.reject_opening();
        }
        match self.opening {
            Opening::Preamble => {
                let open = self.format.spec.text(Marker::CallOpen).len();
                let inner = &self.held[open..self.inner_end];
                if !inner.trim_matches(WS).is_empty() {
                    self.out.content(inner);
                    let call = Some(self.calls);
                    self.out.diag(
                        Kind::StrayText,
                        call,
                        format_args!(
                            "text between `<tool_call>` and `<function=` was \
                             returned as content"
                        ),
                    );
                }
                self.bare = false;
                self.start_call();
            }
            Opening::Wrapped => {
                self.bare = false;
                self.start_call();
            }
            Opening::Bare => self.state = State::BarePending,
        }
    }

    fn param_name_done(&mut self, inline: bool) {
        if !self.trim_name() {
            return self.reject_name();
        }
        if self.param_count >= self.opts.limits.max_parameters {
            self.call_cut = true;
            if !self.params_limit_reported {
                self.params_limit_reported = true;
                self.out.diag(
                    Kind::LimitExceeded,
                    call_index(self.in_call, self.calls),
                    format_args!(
                        "call `{}` has more than {} parameters \
                         (`max_parameters`); the rest are ignored and the \
                         call is marked incomplete",
                        self.call_name, self.opts.limits.max_parameters
                    ),
                );
            }
            return self.reject_name();
        }
        self.held.clear();
        self.start_param(inline);
        if inline {
            self.out.diag(
                Kind::MalformedParameter,
                call_index(self.in_call, self.calls),
                format_args!(
                    "read `<parameter={}=VALUE` as parameter `{}` with the \
                     value after `=`",
                    self.param, self.param
                ),
            );
        }
    }

    #[inline(never)]
    fn reject_name(&mut self) {
        if self.state == State::ParamName {
            let held = mem::take(&mut self.held);
            self.state = State::InCall;
            self.stray_text(&held);
            self.held = held;
            self.held.clear();
        } else {
            self.reject_opening();
        }
    }

    /// An opening that is not a call: its text goes back to content.
    #[inline(never)]
    fn reject_opening(&mut self) {
        if self.state == State::FuncName && self.opening == Opening::Wrapped {
            self.out.diag(
                Kind::UnclosedToolCall,
                self.calls.checked_sub(1),
                format_args!(
                    "text followed `</function>` without `</tool_call>`; \
                     the wrapper is taken as closed"
                ),
            );
        }
        self.release_held();
        self.name.clear();
        self.state = State::Content;
    }

    fn release_held(&mut self) {
        self.out.content(&self.held);
        self.held.clear();
    }

    fn stray_text(&mut self, s: &str) {
        let s = if self.stray_len == 0 {
            s.trim_start_matches(WS)
        } else {
            s
        };
        if s.is_empty() {
            return;
        }
        // The preview must be a prefix of the stray text whatever the
        // chunking: once a character does not fit, nothing more is added.
        let complete = self.stray.len() == self.stray_len;
        self.stray_len += s.len();
        if !complete {
            return;
        }
        for c in s.chars() {
            if self.stray.len() + c.len_utf8() > STRAY_PREVIEW {
                break;
            }
            self.stray.push(c);
        }
    }

    #[inline(never)]
    fn flush_stray(&mut self) {
        if self.stray_len == 0 {
            return;
        }
        let preview = mem::take(&mut self.stray);
        let more = if self.stray_len > preview.len() {
            "…"
        } else {
            ""
        };
        self.out.diag(
            Kind::StrayText,
            call_index(self.in_call, self.calls),
            format_args!(
                "ignored {} bytes of text inside call `{}`: {:?}{more}",
                self.stray_len,
                self.call_name,
                preview.trim_end_matches(WS)
            ),
        );
        self.stray = preview;
        self.stray.clear();
        self.stray_len = 0;
    }

    /// Value text, less the layout newlines (or, for an inline value, the
    /// surrounding whitespace). A trailing `\n` is held until what follows
    /// shows whether it is layout.
    #[inline]
    fn value_text(&mut self, mut s: &str) {
        if self.value.inline {
            if !self.value.started {
                s = s.trim_start_matches(WS);
                if s.is_empty() {
                    return;
                }
                self.value.started = true;
            }
            let body_len = s.trim_end_matches(WS).len();
            let (body, tail) = s.split_at(body_len);
            if !body.is_empty() {
                self.emit_tail();
                self.emit_value(body);
            }
            self.value.tail.push_str(tail);
            if self.value.tail.len() > self.window() {
                self.emit_tail();
            }
            return;
        }
        if !self.value.started {
            self.value.started = true;
            if self.format.spec.strip_one_newline {
                s = s.strip_prefix('\n').unwrap_or(s);
            }
        }
        if s.is_empty() {
            return;
        }
        self.emit_tail();
        let hold = self.format.spec.strip_one_newline && s.ends_with('\n');
        let body = if hold { &s[..s.len() - 1] } else { s };
        self.emit_value(body);
        if hold {
            self.value.tail.push('\n');
        }
    }

    fn emit_tail(&mut self) {
        if !self.value.tail.is_empty() {
            let tail = mem::take(&mut self.value.tail);
            self.emit_value(&tail);
            self.value.tail = tail;
            self.value.tail.clear();
        }
    }

    #[inline]
    fn emit_value(&mut self, piece: &str) {
        if piece.is_empty() {
            return;
        }
        let index = self.calls - 1;
        let out = &mut self.out;
        let raw = out.push_text(piece);
        out.events.push(RawEvent::ParameterDelta {
            index,
            text: raw.clone(),
        });
        // Most pieces need no escaping: the arguments fragment is then the
        // raw text itself, written once.
        let json = match first_escape(piece.as_bytes()) {
            None => raw,
            Some(at) => {
                let start = out.text.len();
                out.text.push_str(&piece[..at]);
                escape_into(&mut out.text, &piece[at..]);
                start..out.text.len()
            }
        };
        if self.opts.retain_arguments {
            out.args.push_str(&out.text[json.clone()]);
        }
        out.events
            .push(RawEvent::ArgumentsDelta { index, delta: json });
        self.value.emitted += piece.len();
    }

    /// Whether the value is at the start of a line, where the template puts
    /// `<parameter=`; `lookahead` mode ends a value there only.
    fn value_at_line_start(&self) -> bool {
        self.value.tail.ends_with('\n') || (self.value.emitted == 0 && self.value.tail.is_empty())
    }

    // ----- markers -------------------------------------------------------

    #[inline(never)]
    fn on_marker(&mut self, marker: Marker) {
        let text = self.format.spec.text(marker);
        match self.state {
            State::Content => match marker {
                Marker::CallOpen => {
                    self.held.clear();
                    self.held.push_str(text);
                    self.opening = Opening::Preamble;
                    self.state = State::Preamble;
                }
                Marker::FuncOpen => self.begin_func_name(Opening::Bare),
                _ => self.out.content(text),
            },
            State::Preamble => match marker {
                Marker::FuncOpen => {
                    self.inner_end = self.held.len();
                    self.held.push_str(text);
                    self.name.clear();
                    self.opening = Opening::Preamble;
                    self.state = State::FuncName;
                }
                Marker::CallOpen => {
                    self.reject_opening();
                    self.on_marker(marker);
                }
                Marker::CallClose => {
                    let open = self.format.spec.text(Marker::CallOpen).len();
                    if self.held[open..].trim_matches(WS).is_empty() {
                        self.out.diag(
                            Kind::EmptyToolCall,
                            None,
                            format_args!("dropped a `<tool_call>` that held no call"),
                        );
                        self.held.clear();
                        self.state = State::Content;
                    } else {
                        self.held.push_str(text);
                        self.reject_opening();
                    }
                }
                _ => self.text_all(text),
            },
            State::FuncName | State::ParamName => self.text_all(text),
            State::BarePending => {
                if matches!(marker, Marker::ParamOpen | Marker::FuncClose) {
                    self.out.diag(
                        Kind::MissingToolCallOpen,
                        Some(self.calls),
                        format_args!(
                            "call `{}` began with `<function=` without \
                             `<tool_call>`",
                            self.name
                        ),
                    );
                    self.held.clear();
                    self.bare = true;
                    self.start_call();
                } else {
                    self.reject_opening();
                }
                self.on_marker(marker);
            }
            State::InCall => {
                if marker == Marker::ParamClose {
                    return self.stray_text(text);
                }
                self.flush_stray();
                match marker {
                    Marker::ParamOpen => {
                        self.held.clear();
                        self.held.push_str(text);
                        self.name.clear();
                        self.state = State::ParamName;
                    }
                    Marker::FuncClose => {
                        self.end_call(true);
                        self.held.clear();
                        self.state = State::Between { bare: self.bare };
                    }
                    _ => {
                        self.out.diag(
                            Kind::UnclosedFunction,
                            call_index(self.in_call, self.calls),
                            format_args!(
                                "call `{}` was not closed with `</function>` \
                                 before `{text}`",
                                self.call_name
                            ),
                        );
                        self.end_call(true);
                        self.held.clear();
                        self.state = State::Between { bare: self.bare };
                        if marker != Marker::FuncOpen {
                            // `</tool_call>` closes the wrapper too;
                            // `<tool_call>` implies it was left open.
                            self.state = State::Content;
                            if marker == Marker::CallOpen && !self.bare {
                                self.out.diag(
                                    Kind::UnclosedToolCall,
                                    self.calls.checked_sub(1),
                                    format_args!(
                                        "a new `<tool_call>` began before \
                                         `</tool_call>`"
                                    ),
                                );
                            }
                            if marker == Marker::CallClose {
                                self.state = State::AfterCall;
                                return;
                            }
                        }
                        self.on_marker(marker);
                    }
                }
            }
            State::Value => self.value_marker(marker, text),
            State::CloserPending(closer) => {
                if follows(closer, marker) {
                    self.accept_closer(closer);
                } else {
                    self.reject_closer();
                }
                self.on_marker(marker);
            }
            State::AfterEmptyClose => {
                self.end_param();
                self.state = State::InCall;
                self.on_marker(marker);
            }
            State::Between { bare } => match marker {
                Marker::CallClose => {
                    self.held.clear();
                    self.state = State::AfterCall;
                }
                Marker::FuncOpen => {
                    let opening = if bare {
                        Opening::Bare
                    } else {
                        Opening::Wrapped
                    };
                    self.begin_func_name(opening);
                }
                Marker::CallOpen => {
                    if bare {
                        self.release_held();
                    } else {
                        self.held.clear();
                        self.out.diag(
                            Kind::UnclosedToolCall,
                            self.calls.checked_sub(1),
                            format_args!("a new `<tool_call>` began before `</tool_call>`"),
                        );
                    }
                    self.state = State::Content;
                    self.on_marker(marker);
                }
                _ => self.text_all(text),
            },
            State::AfterCall => {
                if marker == Marker::CallOpen {
                    self.held.clear();
                } else {
                    self.release_held();
                }
                self.state = State::Content;
                self.on_marker(marker);
            }
        }
    }

    fn begin_func_name(&mut self, opening: Opening) {
        self.held.clear();
        self.held.push_str(self.format.spec.text(Marker::FuncOpen));
        self.name.clear();
        self.opening = opening;
        self.state = State::FuncName;
    }

    fn value_marker(&mut self, marker: Marker, text: &str) {
        let immediate = self.value.inline || self.opts.value_end == ValueTermination::Vllm;
        match marker {
            Marker::ParamClose if !self.value.inline && !self.value.started => {
                self.state = State::AfterEmptyClose;
            }
            Marker::ParamClose if immediate => {
                self.end_param();
                self.state = State::InCall;
            }
            Marker::ParamOpen if !immediate && !self.value_at_line_start() => {
                self.value_text(text);
            }
            Marker::ParamOpen => {
                self.unclosed_parameter(text);
                self.end_param();
                self.state = State::InCall;
                self.on_marker(marker);
            }
            Marker::FuncClose | Marker::CallClose if immediate => {
                self.unclosed_parameter(text);
                self.end_param();
                self.state = State::InCall;
                self.on_marker(marker);
            }
            Marker::ParamClose | Marker::FuncClose | Marker::CallClose => {
                self.held.clear();
                self.held.push_str(&self.value.tail);
                self.value.tail.clear();
                self.held.push_str(text);
                self.state = State::CloserPending(marker);
            }
            Marker::CallOpen | Marker::FuncOpen => self.value_text(text),
        }
    }

    fn unclosed_parameter(&mut self, before: &str) {
        if self.value.inline {
            // Already reported as malformed; such a value ends at a marker.
            return;
        }
        self.out.diag(
            Kind::UnclosedParameter,
            call_index(self.in_call, self.calls),
            format_args!(
                "parameter `{}` was not closed with `</parameter>` before `{before}`",
                self.param
            ),
        );
    }

    #[inline(never)]
    fn accept_closer(&mut self, closer: Marker) {
        self.held.clear();
        match closer {
            Marker::FuncClose | Marker::CallClose => {
                let text = self.format.spec.text(closer);
                self.unclosed_parameter(text);
                self.end_param();
                self.state = State::InCall;
                self.on_marker(closer);
            }
            _ => {
                self.end_param();
                self.state = State::InCall;
            }
        }
    }

    #[inline(never)]
    fn reject_closer(&mut self) {
        let State::CloserPending(closer) = self.state else {
            return;
        };
        let text = self.format.spec.text(closer);
        if !mem::replace(&mut self.value.closer_reported, true) {
            self.out.diag(
                Kind::CloserInValue,
                call_index(self.in_call, self.calls),
                format_args!(
                    "kept `{text}` inside the value of `{}` as text: what \
                     followed it was not a marker that may follow a closer \
                     (reported once per parameter)",
                    self.param
                ),
            );
        }
        self.state = State::Value;
        let held = mem::take(&mut self.held);
        self.value_text(&held);
        self.held = held;
        self.held.clear();
    }

    // ----- calls and parameters ------------------------------------------

    #[inline(never)]
    fn start_call(&mut self) {
        let index = self.calls;
        self.calls += 1;
        self.in_call = true;
        self.call_name.clone_from(&self.name);
        let id_start = self.out.text.len();
        self.opts.ids.write(index, &self.seed, &mut self.out.text);
        let id = id_start..self.out.text.len();
        let name = self.out.push_text(&self.name);
        self.out
            .events
            .push(RawEvent::ToolCallStart { index, id, name });
        if let Some(tools) = &self.opts.tools {
            if !tools.contains(&self.call_name) {
                let name = &self.call_name;
                let start = self.out.text.len();
                let _ = write!(
                    self.out.text,
                    "call {index} names `{name}`, which is not among the request's tools"
                );
                let message = start..self.out.text.len();
                self.out.events.push(RawEvent::Diagnostic {
                    index: Some(index),
                    kind: Kind::UnknownTool,
                    message,
                });
            }
        }
        self.call_args_start = self.out.args.len();
        self.param_names.clear();
        self.param_count = 0;
        self.call_cut = false;
        self.state = State::InCall;
    }

    #[inline(never)]
    fn start_param(&mut self, inline: bool) {
        let index = self.calls - 1;
        self.param.clone_from(&self.name);
        if self.param_names.split('\n').any(|p| p == self.param) {
            self.out.diag(
                Kind::DuplicateParameter,
                Some(index),
                format_args!(
                    "parameter `{}` appears twice in call `{}`; both are in its \
                     arguments",
                    self.param, self.call_name
                ),
            );
        }
        if self.param_count > 0 {
            self.param_names.push('\n');
        }
        self.param_names.push_str(&self.param);
        let name = self.out.push_text(&self.param);
        self.out
            .events
            .push(RawEvent::ParameterStart { index, name });
        self.scratch.clear();
        self.scratch
            .push_str(if self.param_count == 0 { "{\"" } else { ", \"" });
        escape_into(&mut self.scratch, &self.param);
        self.scratch.push_str("\": \"");
        self.out.arguments(index, &self.scratch);
        if self.opts.retain_arguments {
            self.out.args.push_str(&self.scratch);
            // The value's JSON string starts at the quote just written.
            self.value.json_start = self.out.args.len() - 1;
        }
        self.param_count += 1;
        self.param_open = true;
        self.value.inline = inline;
        self.value.started = false;
        self.value.emitted = 0;
        self.value.tail.clear();
        self.value.closer_reported = false;
        self.state = State::Value;
    }

    #[inline(never)]
    fn end_param(&mut self) {
        if !self.param_open {
            return;
        }
        self.param_open = false;
        self.value.tail.clear();
        let index = self.calls - 1;
        self.out.arguments(index, "\"");
        let value = if self.opts.retain_arguments {
            self.out.args.push('"');
            Some(self.value.json_start..self.out.args.len())
        } else {
            None
        };
        let name = self.out.push_text(&self.param);
        self.out
            .events
            .push(RawEvent::ParameterEnd { index, name, value });
    }

    #[inline(never)]
    fn end_call(&mut self, complete: bool) {
        if !self.in_call {
            return;
        }
        self.end_param();
        let index = self.calls - 1;
        let closing = if self.param_count == 0 { "{}" } else { "}" };
        self.out.arguments(index, closing);
        let arguments = if self.opts.retain_arguments {
            self.out.args.push_str(closing);
            Some(self.call_args_start..self.out.args.len())
        } else {
            None
        };
        self.out.events.push(RawEvent::ToolCallEnd {
            index,
            arguments,
            complete: complete && !self.call_cut,
        });
        self.in_call = false;
    }

    fn truncate_call(&mut self, cut_marker: Option<&str>) {
        self.end_param();
        let cut = match cut_marker {
            Some(marker) => format!(" (dropped the cut-off marker `{marker}`)"),
            None => String::new(),
        };
        self.out.diag(
            Kind::Truncated,
            call_index(self.in_call, self.calls),
            format_args!(
                "the stream ended inside call `{}`; it holds what arrived and \
                 is marked incomplete{cut}",
                self.call_name
            ),
        );
        self.end_call(false);
    }
}

/// Which markers may follow a closer for `lookahead` mode to accept it.
fn follows(closer: Marker, next: Marker) -> bool {
    use Marker::*;
    match closer {
        // `<function=` and `<tool_call>` also imply a missing `</function>`.
        ParamClose => matches!(
            next,
            ParamOpen | FuncClose | CallClose | FuncOpen | CallOpen
        ),
        FuncClose => matches!(next, CallClose | CallOpen | FuncOpen),
        _ => matches!(next, CallOpen | FuncOpen),
    }
}

/// The next `<`: a plain loop for the few bytes of a token-sized chunk,
/// where `memchr`'s setup costs more than it saves.
fn find_open_angle(bytes: &[u8]) -> Option<usize> {
    if bytes.len() < 16 {
        bytes.iter().position(|&b| b == b'<')
    } else {
        memchr(b'<', bytes)
    }
}

fn call_index(in_call: bool, calls: usize) -> Option<usize> {
    in_call.then(|| calls - 1)
}

fn leading_ws(s: &str) -> usize {
    s.len() - s.trim_start_matches(WS).len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Events;
    use crate::{Event, Limits};

    fn machine() -> Machine {
        Machine::new(Options::default())
    }

    fn content_of(m: &Machine) -> String {
        Events::new(&m.out)
            .filter_map(|e| match e {
                Event::Content { text } => Some(text.to_owned()),
                _ => None,
            })
            .collect()
    }

    /// Feeds `input` byte by byte (ASCII) and returns the most held.
    fn max_held(m: &mut Machine, input: &str) -> usize {
        let mut most = 0;
        for i in 0..input.len() {
            m.out.clear();
            m.run(&input[i..i + 1]);
            most = most.max(m.held_len());
        }
        most
    }

    #[test]
    fn content_is_released_as_soon_as_it_cannot_start_a_marker() {
        let mut m = machine();
        m.run("abc<t");
        assert_eq!(content_of(&m), "abc");
        m.out.clear();
        m.run("x");
        assert_eq!(content_of(&m), "<tx");
        m.out.clear();
        m.run("a<");
        assert_eq!(content_of(&m), "a");
    }

    #[test]
    fn held_text_is_bounded_by_the_lookahead_window() {
        let limits = Limits::default();
        let bound = limits.lookahead + 64 + limits.max_name_len;
        let long = "word ".repeat(2000);
        for input in [
            format!("<tool_call>{long}"),
            format!("<function={}", "n".repeat(10_000)),
            format!("<tool_call><function=f></function>{}", " ".repeat(10_000)),
            format!("<function=f>{}", "\n".repeat(10_000)),
            format!(
                "<tool_call><function=f><parameter=p>x\n</parameter>{}",
                " ".repeat(10_000)
            ),
            format!("<tool_call><function=f><parameter=p={}", " ".repeat(10_000)),
            "<".repeat(10_000),
        ] {
            let mut m = machine();
            let most = max_held(&mut m, &input);
            assert!(most <= bound, "held {most} bytes for {:?}…", &input[..24]);
        }
    }

    #[test]
    fn a_value_streams_without_being_held() {
        let mut m = machine();
        m.run("<tool_call><function=f><parameter=p>");
        let most = max_held(&mut m, &"line of a big file\n".repeat(5_000));
        assert!(most <= 1, "held {most} bytes of a streaming value");
    }

    #[test]
    fn a_name_longer_than_the_limit_is_not_a_name() {
        let opts = Options {
            limits: Limits {
                max_name_len: 8,
                ..Limits::default()
            },
            ..Options::default()
        };
        let mut m = Machine::new(opts);
        m.run("<tool_call><function=much_too_long></function></tool_call>");
        m.finish();
        let events: Vec<_> = Events::new(&m.out).collect();
        assert!(events
            .iter()
            .all(|e| !matches!(e, Event::ToolCallStart { .. })));
        assert!(content_of(&m).starts_with("<tool_call><function=much_too_long>"));
    }

    #[test]
    fn reset_forgets_the_previous_stream() {
        let mut m = machine();
        m.run("<tool_call><function=f><parameter=p>abc");
        m.reset();
        m.run("plain");
        m.finish();
        assert_eq!(content_of(&m), "plain");
        assert!(Events::new(&m.out).all(|e| matches!(e, Event::Content { .. })));
    }

    #[test]
    fn a_closer_at_the_very_end_is_accepted() {
        let mut m = machine();
        m.run("<tool_call><function=f><parameter=p>\nv\n</parameter>");
        m.finish();
        let end = Events::new(&m.out).find_map(|e| match e {
            Event::ToolCallEnd {
                arguments,
                complete,
                ..
            } => Some((arguments.map(str::to_owned), complete)),
            _ => None,
        });
        assert_eq!(end, Some((Some(r#"{"p": "v"}"#.to_owned()), false)));
    }
}
