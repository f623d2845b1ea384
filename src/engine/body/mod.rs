//! Calls written as JSON, in the grammar's terms: after a function name
//! and its `ArgsOpen` marker (the arguments object), or after the
//! wrapper's opener (a call body, see `object`). The JSON's own end
//! ends it, so a closing marker inside a string is text; markers are not
//! looked for while a JSON value is read.
//!
//! Until a body's call starts (its name has been read), its text is held,
//! and goes back to content if the body turns out not to be a call.
//! Invalid JSON inside a call closes what is open (the arguments stay
//! valid JSON) and ends the call as incomplete, with `invalid_json`; the
//! text from there is content (`resync` reads a list on after it).

pub(super) mod after;
pub(super) mod args;
pub(super) mod object;
pub(super) mod problems;
pub(super) mod resync;
pub(super) mod start;
pub(super) mod state;

use crate::engine::body::object::BodyProblem;
use crate::engine::body::problems::{fail_on_problem, report_leniency, report_note};
use crate::engine::body::state::{Fence, Mode};
use crate::engine::grammar::place::past_char;
use crate::engine::grammar::state::State;
use crate::engine::Engine;
use crate::event::DiagnosticKind as Kind;
use crate::format::{Json, Role};
use crate::json::reader::JsonReader;
use crate::json::reader::{Fed, JsonEvent};
use crate::json::syntax::{Syntax, SyntaxError, SyntaxReader};
use crate::sink::{diagnostic, Sink};

impl Engine {
    pub(super) fn json(&self) -> Json {
        self.desc().json.unwrap_or(Json {
            args_after_name: false,
            ..Json::ARGS
        })
    }

    /// Whether `b` may begin a call body; `marked`: right after a marker.
    pub(super) fn opens_body(&self, b: u8, marked: bool) -> bool {
        let json = self.json();
        let list = json.body.is_some_and(|keys| keys.list);
        json.syntax.opens_body(b, list, marked)
    }

    /// Whether a call written as JSON has a marker that closes it.
    fn json_has_closer(&self) -> bool {
        self.wrapper_has_closer() || self.desc().has(Role::FuncClose)
    }

    /// Whether the open wrapper has a closer (see
    /// [`Json::unclosed_openers`]).
    pub(super) fn wrapper_has_closer(&self) -> bool {
        self.desc().has(Role::CallClose) && !self.unclosed_wrapper
    }

    /// After the wrapper's opener (`body`) or `ArgsOpen`: whitespace, then
    /// the JSON value.
    pub(super) fn begin_json(&mut self, body: bool) {
        if !body {
            // A body's opener is held with what follows, in case it is
            // prose; arguments belong to a call already started.
            self.hold.text.clear();
        }
        self.json_reader = if body {
            self.json().syntax.reader()
        } else {
            SyntaxReader::default()
        };
        if self.json().entity_quotes {
            if let SyntaxReader::Json(reader) = &mut self.json_reader {
                *reader = std::mem::take(reader).entity_quotes(true);
            }
        }
        self.json.reset();
        self.json.is_body = body;
        self.json.content_json = body && self.format.line_starts;
        // Arguments after a name belong to the call already started.
        self.json.made_call = !body;
        self.state = State::JsonStart { body };
    }

    /// The ASCII bytes that, first after layout whitespace, show at once
    /// that the opener just read was text: in a call body's place, a byte
    /// that starts no body, no fence and no marker (what
    /// [`json_start_text`](Engine::json_start_text) gives up on). No byte
    /// in any other state. A bit per byte.
    pub(crate) fn refused_first_bytes(&self) -> u128 {
        let json = self.json();
        if self.state != (State::JsonStart { body: true })
            || self.json.fence != Fence::None
            || json.args_after_name
        {
            return 0;
        }
        (0u8..128)
            .filter(|&b| {
                let may_go_on = crate::engine::WS.contains(&char::from(b))
                    || self.opens_body(b, true)
                    || (b == b'`' && json.fenced)
                    || self.format.markers.starts_marker(b);
                !may_go_on
            })
            .fold(0, |set, b| set | 1 << b)
    }

    /// Text before the JSON value: whitespace (and, in formats that fence
    /// their JSON, a fence's opening line) is held; the value's first byte
    /// starts it, anything else means there is none.
    pub(super) fn json_start_text<S: Sink>(&mut self, s: &str, body: bool, sink: &mut S) -> usize {
        let json = self.json();
        for (at, b) in s.bytes().enumerate() {
            let fence = self.json.fence;
            let next = match (fence, b) {
                (Fence::None | Fence::Open, b' ' | b'\t' | b'\r' | b'\n') => Some(fence),
                (Fence::None | Fence::Open, b'{') if !body => None,
                (Fence::None | Fence::Open, b) if body && self.opens_body(b, true) => None,
                (Fence::None, b'`') if json.fenced => Some(Fence::Ticks(1)),
                (Fence::Ticks(n), b'`') if n < 3 => Some(Fence::Ticks(n + 1)),
                (Fence::ContentType, b) if b.is_ascii_alphanumeric() || b.is_ascii_whitespace() => {
                    Some(Fence::ContentType)
                }
                (Fence::Ticks(3) | Fence::Tag, b'\n') => Some(Fence::Open),
                (Fence::Ticks(3) | Fence::Tag, b) if b.is_ascii_alphanumeric() || b == b'\r' => {
                    Some(Fence::Tag)
                }
                // Mistral's `[TOOL_CALLS]NAME[ARGS]{…}`: not a body, a name.
                (Fence::None, _) if body && json.args_after_name => {
                    self.hold.text.push_str(&s[..at]);
                    self.hold.inner_end = self.hold.len();
                    self.name.clear();
                    self.state = State::FuncName;
                    return at;
                }
                _ => {
                    self.hold.text.push_str(&s[..at]);
                    self.decided_by(s, at);
                    self.no_json(sink);
                    return at;
                }
            };
            match next {
                Some(fence) => self.json.fence = fence,
                None => {
                    if b == b'{' && body && json.syntax == Syntax::Python {
                        // A call syntax's format that wrote a JSON call
                        // instead (Llama 4 mid-answer): read as JSON.
                        self.json_reader = SyntaxReader::Json(JsonReader::default());
                    }
                    self.hold.text.push_str(&s[..at]);
                    self.state = State::Json;
                    return at;
                }
            }
        }
        self.hold.text.push_str(s);
        let over = self.hold.len().saturating_sub(self.hold_limit());
        if over > 0 {
            self.passed_bound(s, over);
            self.no_json(sink);
        }
        s.len()
    }

    /// A marker, text or the end came where the JSON value belongs.
    pub(super) fn no_json<S: Sink>(&mut self, sink: &mut S) {
        if self.json.is_body {
            return self.reject_opening(sink);
        }
        self.hold.text.clear();
        // (A header that ends at its line's end has no opener to name.)
        let open = match self.marker(Role::ArgsOpen) {
            "" => "its name's line".to_owned(),
            open => format!("`{open}`"),
        };
        let index = self.call.current();
        diagnostic(
            sink,
            &mut self.call.message,
            Kind::InvalidJson,
            index,
            format_args!(
                "call `{}` had no JSON object after {open}; it ends with no arguments \
                 and is marked incomplete",
                self.call.name
            ),
        );
        self.call.end_call(false, &self.opts, sink);
        self.state = State::AfterJson;
    }

    /// JSON text: fed to the reader; returns how much of `s` the value
    /// took.
    pub(super) fn json_text<S: Sink>(&mut self, s: &str, sink: &mut S) -> usize {
        if self.json.between_elements {
            // After a call of a list: separators on their own, so that the
            // next call's opening is marked exactly at its `{`.
            let gap = s
                .bytes()
                .position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b','));
            let skipped = gap.map_or(s, |k| &s[..k]);
            self.json.comma_seen |= skipped.contains(',');
            match gap {
                Some(0) => {
                    self.json.between_elements = false;
                    let comma = std::mem::take(&mut self.json.comma_seen);
                    // Without a comma, the reader reports what came.
                    let next = s.as_bytes()[0];
                    // (A `]` after the comma ends the list.)
                    if comma && next != b']' {
                        // The next element is undecided until its name,
                        // as a first body is: held, content if it is not
                        // a call (then no byte of it is lost).
                        self.json.mark_opening = self.json().syntax.opens_element(next);
                        self.json.list_had_call |= self.json.made_call;
                        self.json.made_call = false;
                        self.hold.text.clear();
                    }
                }
                Some(k) => return self.json_feed(&s[..k], sink),
                None => return self.json_feed(s, sink),
            }
        }
        if std::mem::take(&mut self.json.mark_opening) && S::WANTS_RAW {
            sink.raw("", true);
        }
        self.json_feed(s, sink)
    }

    fn json_feed<S: Sink>(&mut self, s: &str, sink: &mut S) -> usize {
        let keys = self.json().body;
        let nested = self.json().nested_body_keys;
        let id_keys = self.json().id_keys;
        let before = self.json_reader.offset();
        // The input offset of `s` (the reader's offsets count text, where
        // U+FFFD may stand for fewer input bytes: only offsets within `s`
        // are used).
        let piece_at = self.call.message.at;
        let json = &mut self.json;
        let call = &mut self.call;
        let opts = &self.opts;
        let fed = self.json_reader.feed_until(s, &mut |event, at| {
            if json.mode != Mode::Reading {
                return false;
            }
            // Diagnostics point up to the byte that made the event; a
            // string's text (read in runs that depend on the chunking)
            // leaves them at the string's opening quote.
            // (A number is decided by the byte after it: up to its end.)
            let k = (at - before) as usize;
            match event {
                JsonEvent::Text(_) => {}
                JsonEvent::Number(_) => json.event_at = piece_at + k as u64,
                _ => json.event_at = piece_at + past_char(s, k) as u64,
            }
            call.message.at = json.event_at;
            if let JsonEvent::Lenient(what) = event {
                // The raw JSON written so far goes first, whatever the
                // chunking.
                if call.current().is_some() {
                    json.args.flush(call, opts, sink);
                }
                report_leniency(json, what, call, sink);
            }
            match (json.is_body, keys) {
                (true, Some(keys)) => {
                    let was_started = json.body.started;
                    json.body.event(
                        event,
                        (&keys, id_keys),
                        nested,
                        &mut json.args,
                        call,
                        opts,
                        sink,
                    );
                    json.made_call |= json.body.started && !was_started;
                }
                _ => json.args.event(event, call, opts, sink),
            }
            report_note(json, call, sink);
            let open = call.current().is_some();
            fail_on_problem(json, call, opts, sink);
            if open && json.mode == Mode::Unreadable {
                // Past the byte that made the event, as diagnostics point.
                json.content_from = Some((json.event_at - piece_at) as usize);
            }
            std::mem::take(&mut json.body.ended_in_list)
        });
        if self.json.mode == Mode::Reading && self.call.current().is_some() {
            self.json.args.flush(&mut self.call, &self.opts, sink);
        }
        match fed {
            Ok(Fed::More) => {
                self.json_consumed(s, piece_at, sink);
                s.len()
            }
            Ok(Fed::Paused(n)) => {
                // A call of a list ended: its raw text goes on now, and
                // whatever follows belongs to the next call's opening.
                self.json_consumed(&s[..n], piece_at, sink);
                self.json.between_elements = true;
                n
            }
            Ok(Fed::Done(n)) => {
                self.json_consumed(&s[..n], piece_at, sink);
                self.json_done(sink);
                n
            }
            Err(error) => {
                // The bytes before the one that is not JSON.
                let taken = (error.at - before) as usize;
                self.json_consumed(&s[..taken], piece_at, sink);
                // Just past the character that is not JSON.
                let past = past_char(s, taken);
                self.call.message.at = piece_at + past as u64;
                let unread_at = (piece_at + taken as u64).saturating_sub(error.unread.len() as u64);
                self.json_invalid(&error, unread_at, sink);
                taken
            }
        }
    }

    /// A fresh reader of a list whose element's call became unreadable: told
    /// that the list is open, then past the separator before the next
    /// element, as after a call of the list and its comma.
    pub(super) fn json_list_reopened<S: Sink>(&mut self, sink: &mut S) {
        self.json_feed("[", sink);
        self.hold.text.clear();
        self.json.made_call = true;
        self.json.list_had_call = true;
        self.json.between_elements = true;
        self.json.comma_seen = true;
    }

    /// Bytes the value took: held while no call has started, content or
    /// stray after a problem.
    /// `taken` starts at input offset `taken_at`.
    fn json_consumed<S: Sink>(&mut self, taken: &str, taken_at: u64, sink: &mut S) {
        match self.json.mode {
            Mode::Reading if !self.json.made_call => {
                if self.hold.text.is_empty() {
                    self.hold.from = taken_at;
                }
                self.hold.text.push_str(taken);
                let over = self
                    .hold
                    .len()
                    .saturating_sub(self.opts.limits.max_held_value);
                if self.json.is_body && over > 0 {
                    // Decided by the byte that passed the bound.
                    let past = past_char(taken, taken.len().saturating_sub(over));
                    self.call.message.at = taken_at + past as u64;
                    // A body that never names its call.
                    self.json.body.problem = Some(BodyProblem::HeldTooLong);
                    fail_on_problem(&mut self.json, &mut self.call, &self.opts, sink);
                    self.json_consumed_after_problem("", taken_at, sink);
                }
            }
            Mode::Reading => self.hold.text.clear(),
            _ => self.json_consumed_after_problem(taken, taken_at, sink),
        }
    }

    fn json_consumed_after_problem<S: Sink>(&mut self, taken: &str, taken_at: u64, sink: &mut S) {
        match (self.json.mode, self.json.content_from.take()) {
            (Mode::Unreadable, Some(from)) => {
                // The call's text was before `from`.
                self.hold.text.clear();
                let from = from.min(taken.len());
                self.content_placed(sink, &taken[from..], taken_at + from as u64);
            }
            (Mode::Content | Mode::Unreadable, _) => {
                self.release_held(sink);
                self.content_placed(sink, taken, taken_at);
            }
            (Mode::Reading, _) => self.hold.text.clear(),
        }
    }

    /// The JSON value ended.
    fn json_done<S: Sink>(&mut self, sink: &mut S) {
        match self.json.mode {
            // After a call in the same wrapper, the wrapper is still open:
            // its closer is structure, and another body may follow.
            Mode::Content
                if (self.hold.opening == crate::engine::grammar::hold::Opening::Wrapped
                    || self.json.list_had_call)
                    && self.json_has_closer() =>
            {
                self.state = State::AfterJson
            }
            Mode::Content => self.state = State::Content,
            Mode::Unreadable => self.state = State::AfterJson,
            // A body that held no call (`[]`): its text is content.
            Mode::Reading if self.json.is_body && !self.json.made_call => {
                if !self.json.content_json {
                    diagnostic(
                        sink,
                        &mut self.call.message,
                        Kind::InvalidJson,
                        None,
                        format_args!("a JSON call body held no call; it is content"),
                    );
                }
                self.release_held(sink);
                self.state = State::Content;
            }
            Mode::Reading => {
                // A call with a closer of its own (`<|tool_call_end|>`)
                // ends there, so that a missing one is reported before
                // the call ends, as a missing `</function>` is.
                if !self.json.is_body && !self.desc().has(Role::FuncClose) {
                    self.call.end_call(true, &self.opts, sink);
                }
                self.hold.text.clear();
                self.state = State::AfterJson;
            }
        }
    }

    /// The reader found text that is not JSON; the text of the token it
    /// failed in (`error.unread`) starts at input offset `unread_at`.
    fn json_invalid<S: Sink>(&mut self, error: &SyntaxError, unread_at: u64, sink: &mut S) {
        let had_call = self.json.made_call;
        let mut unreadable_call = false;
        let after_whole_call =
            self.json.mode == Mode::Reading && had_call && self.call.current().is_none();
        if self.json.mode == Mode::Reading {
            if let Some(index) = self.call.current().filter(|_| self.json.args.done) {
                // `{"name": "f", "arguments": {…}` and then the closer: the
                // arguments are whole, only the body's `}` is missing.
                diagnostic(
                    sink,
                    &mut self.call.message,
                    Kind::InvalidJson,
                    Some(index),
                    format_args!(
                        "the JSON object of call `{}` was not closed ({error}); its arguments \
                         were whole, so the call is kept",
                        self.call.name
                    ),
                );
                self.call.end_call(true, &self.opts, sink);
            } else if let Some(index) = self.call.current() {
                self.json.args.close_open(&mut self.call, &self.opts, sink);
                diagnostic(
                    sink,
                    &mut self.call.message,
                    Kind::InvalidJson,
                    Some(index),
                    format_args!(
                        "the JSON of call `{}` is not valid ({error}); the call holds what \
                         was valid and is marked incomplete, and its text from there is content",
                        self.call.name
                    ),
                );
                self.call.end_call(false, &self.opts, sink);
                unreadable_call = true;
            } else if !had_call && self.json.content_json {
                // Text that is not JSON, where JSON content is normal.
            } else if !had_call {
                diagnostic(
                    sink,
                    &mut self.call.message,
                    Kind::InvalidJson,
                    None,
                    format_args!(
                        "a call's JSON is not valid ({error}) before its name; the text \
                         is returned as content"
                    ),
                );
            } else {
                // About the text after the call, not the call (which strict
                // mode has returned already).
                diagnostic(
                    sink,
                    &mut self.call.message,
                    Kind::InvalidJson,
                    None,
                    format_args!(
                        "the JSON after call `{}` is not valid ({error})",
                        self.call.name
                    ),
                );
            }
        }
        if had_call || self.json.mode == Mode::Unreadable {
            // The token the reader failed in is no call's: content, with
            // the rest (before a call, it is in the held text).
            self.content_placed(sink, &error.unread, unread_at);
        }
        self.flush_stray(sink);
        // What follows a whole call's invalid JSON, up to the closer, is
        // not that call's (strict mode has returned it).
        self.stray.after_call = after_whole_call;
        if had_call || self.json.mode == Mode::Unreadable {
            // Up to the closer, the text is content: no byte is lost.
            self.json.rest_is_content = true;
            self.hold.text.clear();
            self.state = if self.json_has_closer() {
                State::InCall
            } else {
                State::Content
            };
            if unreadable_call {
                // In a list, the calls after it are read.
                self.begin_resync(&error.nesting);
            }
        } else {
            self.release_held(sink);
            self.state = State::Content;
        }
    }

    /// The end of the stream inside a JSON value.
    pub(super) fn json_end_of_stream<S: Sink>(&mut self, sink: &mut S) {
        if self.json_reader.finish() {
            return self.json_done(sink);
        }
        match self.json.mode {
            Mode::Reading if self.call.current().is_some() => {
                self.json.args.close_open(&mut self.call, &self.opts, sink);
                self.truncate_call(None, sink);
            }
            Mode::Reading => {
                if !self.json.made_call {
                    self.diag(
                        sink,
                        Kind::Truncated,
                        None,
                        format_args!(
                            "{} inside a call's JSON before its name; the text \
                             is returned as content",
                            self.ended()
                        ),
                    );
                    self.release_held(sink);
                } else {
                    self.hold.text.clear();
                    let ended = self.ended();
                    // About the text after the call, not the call.
                    diagnostic(
                        sink,
                        &mut self.call.message,
                        Kind::Truncated,
                        None,
                        format_args!(
                            "{ended} inside the JSON after call `{}`, before another \
                             call's name; that text is dropped",
                            self.call.name
                        ),
                    );
                }
            }
            Mode::Content | Mode::Unreadable => self.release_held(sink),
        }
        self.state = State::Content;
    }
}
