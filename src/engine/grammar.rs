//! The grammar: states and transitions, in terms of marker roles. Which
//! marker exists, how names end, what confirms a call, which marker may
//! follow a closer and which recoveries apply all come from the format's
//! description; diagnostics quote the format's own spelling.

use std::mem;

use super::hold::Opening;
use super::name::{find_end, Stop};
use super::{Engine, WS};
use crate::event::DiagnosticKind as Kind;
use crate::format::{NameEnd, Role};
use crate::options::ValueTermination;
use crate::sink::Sink;

/// Where the engine is. Comments say what the state's text means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    /// Outside any call: text is content.
    Content,
    /// After the wrapper's opener, before the function opener (formats
    /// that have one): tentative, text is held until a function name
    /// confirms the call or the window runs out.
    Preamble,
    /// Reading a function name; tentative (see `Opening`).
    FuncName,
    /// A function name was read; whitespace is held until a marker that
    /// confirms the call follows (or something else shows it was not one).
    Confirming,
    /// Inside a call, between parameters: whitespace is layout, other text
    /// is stray.
    InCall,
    /// Reading a parameter name; `in_value`: an opener inside a value,
    /// tentative until the name shows whether it starts a parameter (a
    /// missing closer) or is value text (a name already given, or one the
    /// tool does not have).
    ParamName { in_value: bool },
    /// After a parameter name that a marker ended (`</arg_key>`), before
    /// the value opener (`<arg_value>`): whitespace is layout.
    KeyDone,
    /// Inside a parameter value: text is value text.
    Value,
    /// `lookahead` mode: a closer was seen inside a value; it ends the
    /// value only if whitespace and a marker that may follow it (or the
    /// end) come next. The closer and the whitespace are held.
    CloserPending(Role),
    /// `lookahead` mode: a near-miss of the value's closer (`</parameter`
    /// then `1>`, `_function>`, or a line end) inside a value; it ends the
    /// value only if whitespace and a marker that may follow the closer
    /// come next. `junk_done`: the near-miss's own bytes have ended.
    NearMissCloser { junk_done: bool },
    /// An empty value was closed at once: an empty value, unless text
    /// follows (the malformed shape where the value comes after the tag).
    AfterEmptyClose,
    /// After a function's closer: inside the wrapper, or after a bare
    /// call (`bare`), where only the wrapper's closer or another function
    /// may follow.
    Between { bare: bool },
    /// After the wrapper's closer: whitespace is held; it is the
    /// template's layout if another call follows, content otherwise.
    AfterCall,
}

impl State {
    /// States in which the stream ending means a call was cut off.
    pub(crate) fn inside_call(self) -> bool {
        matches!(
            self,
            State::InCall
                | State::ParamName { .. }
                | State::KeyDone
                | State::Value
                | State::CloserPending(_)
                | State::NearMissCloser { .. }
                | State::AfterEmptyClose
        )
    }
}

impl Engine {
    /// Whether the current state looks for markers: names that end at a
    /// byte are read without (a marker's first byte there means it was
    /// not a name).
    #[inline]
    pub(super) fn scans_markers(&self) -> bool {
        match self.state {
            State::FuncName => !matches!(self.desc().func_name_end, NameEnd::Byte(_)),
            State::ParamName { .. } => !matches!(self.desc().param_name_end, NameEnd::Byte(_)),
            _ => true,
        }
    }

    fn window(&self) -> usize {
        self.opts.limits.lookahead
    }

    fn hold_limit(&self) -> usize {
        self.window() + 64
    }

    fn marker(&self, role: Role) -> &'static str {
        self.desc().text(role)
    }

    // ----- text ----------------------------------------------------------

    /// Acts on text that holds no marker (or, in the name states that do
    /// not look for markers, on the rest of the input). Returns how many
    /// bytes were consumed; consumes none only after changing state, so
    /// the caller's loop progresses.
    #[inline]
    pub(super) fn text<S: Sink>(&mut self, s: &str, sink: &mut S) -> usize {
        match self.state {
            State::Content => {
                Self::content(sink, s);
                s.len()
            }
            State::Preamble => {
                // By default only whitespace may come between the wrapper's
                // opener and the function opener: other text shows at once
                // that the opener was prose, and it is released without
                // waiting (a call after it is still recovered, as a bare
                // one). Holding such text is an option: it costs latency.
                let held = if self.opts.hold_text_after_wrapper {
                    s.len()
                } else {
                    leading_ws(s)
                };
                self.hold.text.push_str(&s[..held]);
                let open = self.marker(Role::CallOpen).len();
                if held < s.len() || self.hold.len() > open + self.window() {
                    self.reject_opening(sink);
                }
                held
            }
            State::FuncName | State::ParamName { .. } => self.name_text(s, sink),
            State::Confirming => {
                let ws = leading_ws(s);
                self.hold.text.push_str(&s[..ws]);
                if ws < s.len() || self.hold.len() > self.hold_limit() {
                    self.reject_opening(sink);
                }
                ws
            }
            State::InCall => {
                self.stray.push(s);
                s.len()
            }
            State::KeyDone => {
                let ws = leading_ws(s);
                self.hold.text.push_str(&s[..ws]);
                if ws < s.len() || self.hold.len() > self.hold_limit() {
                    self.value_without_opener(sink);
                }
                ws
            }
            State::Value => {
                let strip = self.desc().strip_one_newline;
                self.call.value_text(s, strip, &self.opts, sink);
                s.len()
            }
            State::CloserPending(_) => {
                let ws = leading_ws(s);
                self.hold.text.push_str(&s[..ws]);
                if ws < s.len() || self.hold.len() > self.hold_limit() {
                    self.reject_closer(sink);
                }
                ws
            }
            State::NearMissCloser { junk_done: false } => {
                // Name-like bytes, then `>` or whitespace.
                let junk = s
                    .bytes()
                    .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-')
                    .count();
                self.hold.text.push_str(&s[..junk]);
                let rest = &s.as_bytes()[junk..];
                if self.hold.len() > self.hold_limit() {
                    self.reject_near_miss(sink);
                } else if rest.first() == Some(&b'>') {
                    self.hold.text.push('>');
                    self.state = State::NearMissCloser { junk_done: true };
                    return junk + 1;
                } else if rest.first().is_some_and(u8::is_ascii_whitespace) {
                    self.state = State::NearMissCloser { junk_done: true };
                } else if !rest.is_empty() {
                    self.reject_near_miss(sink);
                }
                junk
            }
            State::NearMissCloser { junk_done: true } => {
                let ws = leading_ws(s);
                self.hold.text.push_str(&s[..ws]);
                if ws < s.len() || self.hold.len() > self.hold_limit() {
                    self.reject_near_miss(sink);
                }
                ws
            }
            State::AfterEmptyClose => {
                let ws = leading_ws(s);
                if ws < s.len() {
                    let close = self.marker(Role::ParamClose);
                    let index = self.call.current();
                    let message = format_args!(
                        "parameter `{}` was closed at once and its value \
                         came after `{close}`; that text is the value",
                        self.call.param
                    );
                    super::diagnostic(
                        sink,
                        &mut self.message,
                        Kind::EmptyParameterTag,
                        index,
                        message,
                    );
                    self.call.value.inline = true;
                    self.state = State::Value;
                }
                ws
            }
            State::AfterCall => {
                let ws = leading_ws(s);
                self.hold.text.push_str(&s[..ws]);
                if ws < s.len() || self.hold.len() > self.hold_limit() {
                    self.release_held(sink);
                    self.state = State::Content;
                }
                ws
            }
            State::Between { bare } => {
                // Whitespace is layout if a marker follows, content if text
                // does.
                let ws = leading_ws(s);
                self.hold.text.push_str(&s[..ws]);
                if ws < s.len() || self.hold.len() > self.hold_limit() {
                    if !bare {
                        self.unclosed_wrapper_before_text(sink);
                    }
                    self.release_held(sink);
                    self.state = State::Content;
                }
                ws
            }
        }
    }

    /// Name bytes, up to the name's end.
    fn name_text<S: Sink>(&mut self, s: &str, sink: &mut S) -> usize {
        let param = matches!(self.state, State::ParamName { .. });
        let desc = self.desc();
        let end = if param {
            desc.param_name_end
        } else {
            desc.func_name_end
        };
        let (stop, end_byte) = match end {
            NameEnd::Byte(b) => {
                let equals = param && desc.recoveries.equals_in_param_name;
                let markers = &self.format.markers;
                (
                    find_end(s.as_bytes(), b, equals, |c| markers.starts_marker(c)),
                    Some(b),
                )
            }
            // The driver takes the markers out; a line end may end the
            // name, and a marker's first byte here is a failed marker.
            NameEnd::Marker { line } => {
                let markers = &self.format.markers;
                // A line end ends the name once it has begun.
                let mut begun = !self.name.is_blank();
                let stop = s.bytes().position(|c| {
                    let ends = (line && c == b'\n' && begun) || markers.starts_marker(c);
                    begun |= !c.is_ascii_whitespace();
                    ends
                });
                (stop.map_or(Stop::More, Stop::At), None)
            }
        };
        let taken = match stop {
            Stop::More => s.len(),
            Stop::At(at) => at,
        };
        self.name.push(&s[..taken]);
        self.hold.text.push_str(&s[..taken]);
        let spaces = self.spaces_allowed_in_name();
        if self.name.text.len() > self.opts.limits.max_name_len || self.name.is_invalid(spaces) {
            self.reject_name(sink);
            return taken;
        }
        let Stop::At(at) = stop else {
            return taken;
        };
        let byte = s.as_bytes()[at];
        if self.format.markers.starts_marker(byte) {
            self.reject_name(sink);
            return taken;
        }
        self.hold.text.push(char::from(byte));
        if Some(byte) == end_byte || byte == b'\n' {
            if param {
                self.param_name_done(false, sink);
            } else {
                self.func_name_done(None, sink);
            }
        } else {
            // `=`: the malformed `<parameter=KEY=VALUE` shape.
            self.param_name_done(true, sink);
        }
        taken + 1
    }

    /// Whether a function name is being read after the wrapper's opener
    /// and the function opener (`<tool_call>` then `<function=`): the model
    /// is writing a call, so a malformed name is reported, never silently
    /// turned into content.
    fn in_confirmed_wrapper(&self) -> bool {
        self.state == State::FuncName
            && self.hold.opening != Opening::Bare
            && self.desc().has(Role::FuncOpen)
    }

    /// Whether the name being read may hold whitespace: a function name in
    /// a confirmed wrapper (kept, reported), and a parameter name that a
    /// marker closes (`<arg_key>my key</arg_key>`: the closer delimits it).
    fn spaces_allowed_in_name(&self) -> bool {
        match self.state {
            State::ParamName { .. } => {
                matches!(self.desc().param_name_end, NameEnd::Marker { .. })
            }
            _ => self.in_confirmed_wrapper(),
        }
    }

    fn func_name_done<S: Sink>(&mut self, ended_by: Option<Role>, sink: &mut S) {
        let confirmed = self.in_confirmed_wrapper();
        if !self.name.finish(confirmed) {
            return self.reject_name(sink);
        }
        if self.name.is_spaced() {
            let name = &self.name.text;
            let next = Some(self.call.count());
            super::diagnostic(
                sink,
                &mut self.message,
                Kind::InvalidName,
                next,
                format_args!(
                    "function name `{name}` holds whitespace; the call is kept with the \
                     name as written"
                ),
            );
        }
        if !self.call.may_start_call(&self.opts, sink) {
            return self.reject_opening(sink);
        }
        match self.hold.opening {
            Opening::Wrapper if ended_by.is_some() || self.desc().call_confirmed_by.is_empty() => {
                self.confirm_call(sink)
            }
            Opening::Wrapped => self.confirm_call(sink),
            Opening::Wrapper | Opening::Bare => self.state = State::Confirming,
        }
    }

    /// The opening is a call: text inside the wrapper before the function
    /// opener goes back to content, and the call starts.
    fn confirm_call<S: Sink>(&mut self, sink: &mut S) {
        if self.hold.opening == Opening::Wrapper {
            let open = self.marker(Role::CallOpen).len();
            let inner = &self.hold.text[open..self.hold.inner_end.max(open)];
            if !inner.trim_matches(WS).is_empty() {
                Self::content(sink, inner);
                let call = Some(self.call.count());
                let (open, func) = (self.marker(Role::CallOpen), self.marker(Role::FuncOpen));
                self.diag(
                    sink,
                    Kind::StrayText,
                    call,
                    format_args!("text between `{open}` and `{func}` was returned as content"),
                );
            }
        }
        self.hold.text.clear();
        self.call.start_call(&self.name.text, &self.opts, sink);
        self.state = State::InCall;
    }

    fn param_name_done<S: Sink>(&mut self, inline: bool, sink: &mut S) {
        if !self.name.finish(self.spaces_allowed_in_name()) {
            return self.reject_name(sink);
        }
        if self.state == (State::ParamName { in_value: true }) {
            if let Some(reason) = self.name_in_value_is_text() {
                return self.keep_param_open_in_value(reason, sink);
            }
            let open = self.marker(Role::ParamOpen);
            self.unclosed_parameter(open, sink);
            self.call.end_param(&self.opts, sink);
            // From here on, an ordinary parameter opener.
            self.state = State::ParamName { in_value: false };
        }
        if !self.call.may_start_param(&self.opts, sink) {
            return self.reject_name(sink);
        }
        self.hold.text.clear();
        if self.desc().has(Role::ValueOpen) {
            // The parameter starts with its value: a name that gets none
            // is left out.
            self.state = State::KeyDone;
            return;
        }
        self.call
            .start_param(&self.name.text, inline, &self.opts, sink);
        self.state = State::Value;
        if inline {
            let (open, name) = (self.marker(Role::ParamOpen), &self.name.text);
            let index = self.call.current();
            super::diagnostic(
                sink,
                &mut self.message,
                Kind::MalformedParameter,
                index,
                format_args!(
                    "read `{open}{name}=VALUE` as parameter `{name}` with the value after `=`"
                ),
            );
        }
    }

    /// Why the parameter opener just read inside a value is value text,
    /// if it is: its name was already given in this call, or the request's
    /// tools say this tool has no such parameter. A model writing a file
    /// that shows a call writes such openers; a missing closer before the
    /// next parameter does not repeat a name.
    fn name_in_value_is_text(&self) -> Option<&'static str> {
        let name = &self.name.text;
        if self.call.has_param(name) {
            return Some("it names a parameter already given in this call");
        }
        let tools = self.opts.tools.as_deref()?;
        match tools.has_parameter(&self.call.name, name) {
            Some(false) => Some("the tool has no such parameter"),
            _ => None,
        }
    }

    #[inline(never)]
    fn keep_param_open_in_value<S: Sink>(&mut self, reason: &str, sink: &mut S) {
        if !mem::replace(&mut self.call.value.closer_reported, true) {
            let opener = self.hold.text.trim_matches(WS);
            let index = self.call.current();
            super::diagnostic(
                sink,
                &mut self.message,
                Kind::CloserInValue,
                index,
                format_args!(
                    "kept `{opener}` inside the value of `{}` as text: {reason} \
                     (reported once per parameter)",
                    self.call.param
                ),
            );
        }
        self.back_to_value(sink);
    }

    /// The held text was value text after all.
    fn back_to_value<S: Sink>(&mut self, sink: &mut S) {
        self.state = State::Value;
        let strip = self.desc().strip_one_newline;
        self.call
            .value_text(&self.hold.text, strip, &self.opts, sink);
        self.hold.text.clear();
        self.name.clear();
    }

    #[inline(never)]
    fn reject_name<S: Sink>(&mut self, sink: &mut S) {
        if self.state == (State::ParamName { in_value: true }) {
            self.back_to_value(sink);
        } else if self.in_confirmed_wrapper() {
            let (open, func) = (self.marker(Role::CallOpen), self.marker(Role::FuncOpen));
            let max = self.opts.limits.max_name_len;
            super::diagnostic(
                sink,
                &mut self.message,
                Kind::InvalidName,
                None,
                format_args!(
                    "the function name after `{open}` and `{func}` could not be read (empty, \
                     over {max} bytes, or holding a control character or a marker); the \
                     text is returned as content"
                ),
            );
            self.reject_opening(sink);
        } else if self.state == (State::ParamName { in_value: false }) {
            self.state = State::InCall;
            self.stray.push(&self.hold.text);
            self.hold.text.clear();
            self.name.clear();
        } else {
            self.reject_opening(sink);
        }
    }

    /// An opening that is not a call: its text goes back to content.
    #[inline(never)]
    fn reject_opening<S: Sink>(&mut self, sink: &mut S) {
        if self.state == State::FuncName && self.hold.opening == Opening::Wrapped {
            self.unclosed_wrapper_before_text(sink);
        }
        self.release_held(sink);
        self.name.clear();
        self.state = State::Content;
    }

    fn unclosed_wrapper_before_text<S: Sink>(&mut self, sink: &mut S) {
        let (func_close, close) = (self.marker(Role::FuncClose), self.marker(Role::CallClose));
        let last = self.call.last();
        self.diag(
            sink,
            Kind::UnclosedToolCall,
            last,
            format_args!(
                "text followed `{func_close}` without `{close}`; the wrapper is taken as closed"
            ),
        );
    }

    fn release_held<S: Sink>(&mut self, sink: &mut S) {
        Self::content(sink, &self.hold.text);
        self.hold.text.clear();
    }

    #[inline(never)]
    fn flush_stray<S: Sink>(&mut self, sink: &mut S) {
        if self.stray.len == 0 {
            return;
        }
        let more = if self.stray.len > self.stray.preview.len() {
            "…"
        } else {
            ""
        };
        let index = self.call.current();
        super::diagnostic(
            sink,
            &mut self.message,
            Kind::StrayText,
            index,
            format_args!(
                "ignored {} bytes of text inside call `{}`: {:?}{more}",
                self.stray.len,
                self.call.name,
                self.stray.preview.trim_end_matches(WS)
            ),
        );
        self.stray.clear();
    }

    /// The value opener after a parameter's name: the parameter starts.
    fn open_value<S: Sink>(&mut self, sink: &mut S) {
        // The whitespace before the value is layout.
        self.hold.text.clear();
        self.call
            .start_param(&self.name.text, false, &self.opts, sink);
        self.state = State::Value;
    }

    /// Text where the value opener belongs: the value starts without it.
    fn value_without_opener<S: Sink>(&mut self, sink: &mut S) {
        self.open_value(sink);
        self.missing_value_opener(sink, "the text that followed is its value");
    }

    fn missing_value_opener<S: Sink>(&mut self, sink: &mut S, what_was_done: &str) {
        let (open, key_close) = (self.marker(Role::ValueOpen), self.marker(Role::KeyClose));
        let index = self.call.current();
        super::diagnostic(
            sink,
            &mut self.message,
            Kind::MissingValueOpen,
            index,
            format_args!(
                "no `{open}` after `{key_close}` of parameter `{}`; {what_was_done}",
                self.name.text
            ),
        );
    }

    // ----- markers -------------------------------------------------------

    #[inline(never)]
    pub(super) fn on_marker<S: Sink>(&mut self, role: Role, sink: &mut S) {
        let text = self.marker(role);
        let desc = self.desc();
        match self.state {
            State::Content => match role {
                Role::CallOpen => {
                    self.hold.start(text);
                    self.hold.opening = Opening::Wrapper;
                    self.name.clear();
                    if desc.has(Role::FuncOpen) {
                        self.state = State::Preamble;
                    } else {
                        self.hold.inner_end = self.hold.len();
                        self.state = State::FuncName;
                    }
                }
                Role::FuncOpen if desc.recoveries.bare_function => {
                    self.begin_func_name(Opening::Bare)
                }
                _ => Self::content(sink, text),
            },
            State::Preamble => match role {
                Role::FuncOpen => {
                    self.hold.inner_end = self.hold.len();
                    self.hold.text.push_str(text);
                    self.name.clear();
                    self.state = State::FuncName;
                }
                Role::CallOpen => {
                    self.reject_opening(sink);
                    self.on_marker(role, sink);
                }
                Role::CallClose => self.close_preamble(text, sink),
                _ => self.text_all(text, sink),
            },
            // Only names that end at a marker get here.
            State::FuncName => {
                let confirms = desc.call_confirmed_by.contains(&role);
                if role == Role::CallClose && self.name.is_blank() {
                    return self.close_preamble(text, sink);
                }
                if confirms && self.hold.opening == Opening::Wrapper {
                    self.func_name_done(Some(role), sink);
                } else {
                    self.reject_opening(sink);
                }
                self.on_marker(role, sink);
            }
            State::Confirming => {
                let confirmed_by = match self.hold.opening {
                    Opening::Bare => desc.bare_confirmed_by,
                    _ => desc.call_confirmed_by,
                };
                if confirmed_by.contains(&role) {
                    if self.hold.opening == Opening::Bare {
                        let (func, open) =
                            (self.marker(Role::FuncOpen), self.marker(Role::CallOpen));
                        let next = Some(self.call.count());
                        super::diagnostic(
                            sink,
                            &mut self.message,
                            Kind::MissingToolCallOpen,
                            next,
                            format_args!(
                                "call `{}` began with `{func}` without `{open}`",
                                self.name.text
                            ),
                        );
                    }
                    self.confirm_call(sink);
                } else {
                    self.reject_opening(sink);
                }
                self.on_marker(role, sink);
            }
            State::InCall => self.marker_in_call(role, text, sink),
            // Only names that end at a marker get here.
            State::ParamName { in_value } => {
                if role == Role::KeyClose {
                    if in_value {
                        // Value text, should the name turn out to be.
                        self.hold.text.push_str(text);
                    }
                    self.param_name_done(false, sink);
                } else {
                    self.reject_name(sink);
                    self.on_marker(role, sink);
                }
            }
            State::KeyDone => match role {
                Role::ValueOpen => self.open_value(sink),
                Role::ParamClose => {
                    // `<arg_key>K</arg_key></arg_value>`: an empty value.
                    self.open_value(sink);
                    self.missing_value_opener(sink, "its value is empty");
                    self.call.end_param(&self.opts, sink);
                    self.state = State::InCall;
                }
                _ => {
                    self.hold.text.clear();
                    let (key_close, name) = (self.marker(Role::KeyClose), &self.name.text);
                    let index = self.call.current();
                    super::diagnostic(
                        sink,
                        &mut self.message,
                        Kind::MissingValue,
                        index,
                        format_args!(
                            "parameter `{name}` had no value: `{text}` came after its \
                             `{key_close}`; it was left out of the arguments"
                        ),
                    );
                    self.state = State::InCall;
                    self.on_marker(role, sink);
                }
            },
            State::Value => self.marker_in_value(role, text, sink),
            State::CloserPending(closer) => {
                if desc.follows(closer, role) {
                    self.accept_closer(closer, sink);
                } else {
                    self.reject_closer(sink);
                }
                self.on_marker(role, sink);
            }
            State::NearMissCloser { junk_done } => {
                if junk_done && desc.follows(Role::ParamClose, role) {
                    self.accept_near_miss(sink);
                } else {
                    self.reject_near_miss(sink);
                }
                self.on_marker(role, sink);
            }
            State::AfterEmptyClose => {
                self.call.end_param(&self.opts, sink);
                self.state = State::InCall;
                self.on_marker(role, sink);
            }
            State::Between { bare } => match role {
                Role::CallClose => {
                    self.hold.text.clear();
                    self.state = State::AfterCall;
                }
                Role::FuncOpen => {
                    let opening = if bare {
                        Opening::Bare
                    } else {
                        Opening::Wrapped
                    };
                    self.begin_func_name(opening);
                }
                Role::CallOpen => {
                    if bare {
                        self.release_held(sink);
                    } else {
                        self.hold.text.clear();
                        self.new_wrapper_before_close(sink);
                    }
                    self.state = State::Content;
                    self.on_marker(role, sink);
                }
                _ => self.text_all(text, sink),
            },
            State::AfterCall => {
                if role == Role::CallOpen {
                    self.hold.text.clear();
                } else {
                    self.release_held(sink);
                }
                self.state = State::Content;
                self.on_marker(role, sink);
            }
        }
    }

    /// The wrapper's closer right after its opener: dropped when only
    /// whitespace came between, content otherwise.
    fn close_preamble<S: Sink>(&mut self, close: &str, sink: &mut S) {
        let open = self.marker(Role::CallOpen).len();
        if self.hold.text[open..].trim_matches(WS).is_empty() {
            let open = self.marker(Role::CallOpen);
            self.diag(
                sink,
                Kind::EmptyToolCall,
                None,
                format_args!("dropped a `{open}` that held no call"),
            );
            self.hold.text.clear();
            self.name.clear();
            self.state = State::Content;
        } else {
            self.hold.text.push_str(close);
            self.reject_opening(sink);
        }
    }

    fn begin_func_name(&mut self, opening: Opening) {
        self.hold.start(self.marker(Role::FuncOpen));
        self.name.clear();
        self.hold.opening = opening;
        self.state = State::FuncName;
    }

    fn marker_in_call<S: Sink>(&mut self, role: Role, text: &str, sink: &mut S) {
        if matches!(role, Role::ParamClose | Role::KeyClose | Role::ValueOpen) {
            return self.stray.push(text);
        }
        self.flush_stray(sink);
        let bare = self.hold.opening == Opening::Bare;
        let has_func_close = self.desc().has(Role::FuncClose);
        match role {
            Role::ParamOpen => {
                self.hold.start(text);
                self.name.clear();
                self.state = State::ParamName { in_value: false };
            }
            Role::FuncClose => {
                self.call.end_call(true, &self.opts, sink);
                self.hold.text.clear();
                self.state = State::Between { bare };
            }
            Role::CallClose if !has_func_close => {
                // The wrapper's closer ends the call in formats whose
                // wrapper is the call.
                self.call.end_call(true, &self.opts, sink);
                self.hold.text.clear();
                self.state = State::AfterCall;
            }
            _ => {
                if has_func_close {
                    let func_close = self.marker(Role::FuncClose);
                    let index = self.call.current();
                    super::diagnostic(
                        sink,
                        &mut self.message,
                        Kind::UnclosedFunction,
                        index,
                        format_args!(
                            "call `{}` was not closed with `{func_close}` before `{text}`",
                            self.call.name
                        ),
                    );
                }
                self.call.end_call(true, &self.opts, sink);
                self.hold.text.clear();
                match role {
                    // The wrapper's closer closes the call too.
                    Role::CallClose => self.state = State::AfterCall,
                    Role::FuncOpen => {
                        self.state = State::Between { bare };
                        self.on_marker(role, sink);
                    }
                    _ => {
                        // A new wrapper implies the last one was left open.
                        if !bare {
                            self.new_wrapper_before_close(sink);
                        }
                        self.state = State::Content;
                        self.on_marker(role, sink);
                    }
                }
            }
        }
    }

    fn new_wrapper_before_close<S: Sink>(&mut self, sink: &mut S) {
        let (open, close) = (self.marker(Role::CallOpen), self.marker(Role::CallClose));
        let last = self.call.last();
        self.diag(
            sink,
            Kind::UnclosedToolCall,
            last,
            format_args!("a new `{open}` began before `{close}`"),
        );
    }

    fn marker_in_value<S: Sink>(&mut self, role: Role, text: &str, sink: &mut S) {
        let desc = self.desc();
        let value = &self.call.value;
        let immediate = value.inline || self.opts.value_end == ValueTermination::Vllm;
        match role {
            Role::ParamClose
                if desc.recoveries.value_after_empty_close && !value.inline && !value.started =>
            {
                self.state = State::AfterEmptyClose;
            }
            Role::ParamClose if immediate => {
                self.call.end_param(&self.opts, sink);
                self.state = State::InCall;
            }
            Role::ParamOpen
                if !immediate
                    && desc.param_open_at_line_start
                    && !self.call.value_at_line_start() =>
            {
                self.value_text(text, sink);
            }
            Role::ParamOpen if immediate => self.end_unclosed_value(role, text, sink),
            Role::ParamOpen => {
                // Tentative until its name is read; the layout before it
                // is held with it.
                self.hold.text.clear();
                self.hold.text.push_str(&self.call.value.tail);
                self.call.value.tail.clear();
                self.hold.text.push_str(text);
                self.name.clear();
                self.state = State::ParamName { in_value: true };
            }
            Role::FuncClose | Role::CallClose if immediate => {
                self.end_unclosed_value(role, text, sink)
            }
            Role::ParamClose | Role::FuncClose | Role::CallClose => {
                self.hold.text.clear();
                self.hold.text.push_str(&self.call.value.tail);
                self.call.value.tail.clear();
                self.hold.text.push_str(text);
                self.state = State::CloserPending(role);
            }
            Role::CallOpen | Role::FuncOpen | Role::KeyClose | Role::ValueOpen => {
                self.value_text(text, sink)
            }
        }
    }

    fn value_text<S: Sink>(&mut self, text: &str, sink: &mut S) {
        let strip = self.desc().strip_one_newline;
        self.call.value_text(text, strip, &self.opts, sink);
    }

    /// A marker that ends a value whose closer is missing.
    fn end_unclosed_value<S: Sink>(&mut self, role: Role, text: &str, sink: &mut S) {
        self.unclosed_parameter(text, sink);
        self.call.end_param(&self.opts, sink);
        self.state = State::InCall;
        self.on_marker(role, sink);
    }

    fn unclosed_parameter<S: Sink>(&mut self, before: &str, sink: &mut S) {
        if self.call.value.inline {
            // Already reported as malformed; such a value ends at a marker.
            return;
        }
        let close = self.marker(Role::ParamClose);
        let index = self.call.current();
        super::diagnostic(
            sink,
            &mut self.message,
            Kind::UnclosedParameter,
            index,
            format_args!(
                "parameter `{}` was not closed with `{close}` before `{before}`",
                self.call.param
            ),
        );
    }

    #[inline(never)]
    fn accept_closer<S: Sink>(&mut self, closer: Role, sink: &mut S) {
        self.hold.text.clear();
        if closer == Role::ParamClose {
            self.call.end_param(&self.opts, sink);
            self.state = State::InCall;
        } else {
            let text = self.marker(closer);
            self.end_unclosed_value(closer, text, sink);
        }
    }

    #[inline(never)]
    fn reject_closer<S: Sink>(&mut self, sink: &mut S) {
        let State::CloserPending(closer) = self.state else {
            return;
        };
        let text = self.marker(closer);
        if !mem::replace(&mut self.call.value.closer_reported, true) {
            let index = self.call.current();
            super::diagnostic(
                sink,
                &mut self.message,
                Kind::CloserInValue,
                index,
                format_args!(
                    "kept `{text}` inside the value of `{}` as text: what \
                     followed it was not a marker that may follow a closer \
                     (reported once per parameter)",
                    self.call.param
                ),
            );
        }
        self.state = State::Value;
        let strip = self.desc().strip_one_newline;
        self.call
            .value_text(&self.hold.text, strip, &self.opts, sink);
        self.hold.text.clear();
    }

    /// Whether the bytes of a marker match that just died are the value's
    /// closer less its last byte (`</parameter`), in a value where a
    /// near-miss may be read as the closer.
    pub(super) fn is_near_miss_closer(&self, stepped_here: &str) -> bool {
        let close = self.marker(Role::ParamClose);
        let pending = &self.marker.pending;
        self.state == State::Value
            && self.opts.value_end == ValueTermination::Lookahead
            && !self.call.value.inline
            && pending.len() + stepped_here.len() + 1 == close.len()
            && close.starts_with(pending.as_str())
            && close[pending.len()..].starts_with(stepped_here)
    }

    pub(super) fn begin_near_miss_closer(&mut self, stepped_here: &str) {
        self.hold.text.clear();
        self.hold.text.push_str(&self.call.value.tail);
        self.call.value.tail.clear();
        self.hold.text.push_str(&self.marker.pending);
        self.hold.text.push_str(stepped_here);
        self.marker.pending.clear();
        self.state = State::NearMissCloser { junk_done: false };
    }

    #[inline(never)]
    fn accept_near_miss<S: Sink>(&mut self, sink: &mut S) {
        let close = self.marker(Role::ParamClose);
        let index = self.call.current();
        let near_miss = self.hold.text.trim_matches(WS);
        super::diagnostic(
            sink,
            &mut self.message,
            Kind::MalformedCloser,
            index,
            format_args!(
                "read `{near_miss}` as `{close}`, ending the value of `{}`: structure followed it",
                self.call.param
            ),
        );
        self.hold.text.clear();
        self.call.end_param(&self.opts, sink);
        self.state = State::InCall;
    }

    #[inline(never)]
    fn reject_near_miss<S: Sink>(&mut self, sink: &mut S) {
        self.back_to_value(sink);
    }

    // ----- the end -------------------------------------------------------

    /// What the end of the stream means in each state. `cut_marker` is a
    /// marker cut off by the end inside a call.
    pub(super) fn end_of_stream<S: Sink>(&mut self, cut_marker: Option<&str>, sink: &mut S) {
        loop {
            match self.state {
                State::Content => {}
                State::Preamble => self.reject_opening(sink),
                State::Confirming => match self.hold.opening {
                    // Inside the wrapper, a whole name before the end is a
                    // call cut off right after it.
                    Opening::Wrapper => {
                        self.confirm_call(sink);
                        continue;
                    }
                    _ => self.reject_opening(sink),
                },
                State::FuncName => {
                    self.diag(
                        sink,
                        Kind::Truncated,
                        None,
                        format_args!(
                            "the stream ended inside a function name; \
                             the text is returned as content"
                        ),
                    );
                    self.reject_opening(sink);
                }
                State::InCall
                | State::ParamName { .. }
                | State::KeyDone
                | State::Value
                | State::AfterEmptyClose => {
                    self.flush_stray(sink);
                    self.truncate_call(cut_marker, sink);
                }
                State::CloserPending(closer) => {
                    self.accept_closer(closer, sink);
                    continue;
                }
                State::NearMissCloser { junk_done } => {
                    if junk_done {
                        self.accept_near_miss(sink);
                    } else {
                        self.reject_near_miss(sink);
                    }
                    continue;
                }
                State::Between { bare: true } | State::AfterCall => self.release_held(sink),
                State::Between { bare: false } => {
                    // Trailing whitespace of an unclosed wrapper is layout.
                    self.hold.text.clear();
                    let close = self.marker(Role::CallClose);
                    let last = self.call.last();
                    self.diag(
                        sink,
                        Kind::UnclosedToolCall,
                        last,
                        format_args!("the stream ended before `{close}`"),
                    );
                }
            }
            break;
        }
    }

    fn truncate_call<S: Sink>(&mut self, cut_marker: Option<&str>, sink: &mut S) {
        self.call.end_param(&self.opts, sink);
        let cut = match cut_marker {
            Some(marker) => format!(" (dropped the cut-off marker `{marker}`)"),
            None => String::new(),
        };
        let index = self.call.current();
        super::diagnostic(
            sink,
            &mut self.message,
            Kind::Truncated,
            index,
            format_args!(
                "the stream ended inside call `{}`; it holds what arrived and \
                 is marked incomplete{cut}",
                self.call.name
            ),
        );
        self.call.end_call(false, &self.opts, sink);
    }
}

fn leading_ws(s: &str) -> usize {
    s.len() - s.trim_start_matches(WS).len()
}
