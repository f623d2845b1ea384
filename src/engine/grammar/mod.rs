//! The grammar: states and transitions, in terms of marker roles. Which
//! marker exists, how names end, what confirms a call, which marker may
//! follow a closer and which recoveries apply all come from the format's
//! description; diagnostics quote the format's own spelling.

pub(super) mod end;
pub(super) mod fence;
pub(super) mod header;
pub(super) mod hold;
pub(super) mod in_call;
pub(super) mod item;
pub(super) mod misspelled;
pub(super) mod name;
pub(super) mod openings;
pub(super) mod place;
pub(super) mod state;
pub(super) mod values;

use crate::engine::body::state::Fence;
use crate::engine::grammar::hold::Opening;
use crate::engine::grammar::item::Item;
use crate::engine::grammar::state::{leading_ws, State};

use crate::engine::{Engine, WS};
use crate::event::DiagnosticKind as Kind;
use crate::format::{NameEnd, Role};
use crate::sink::Sink;

impl Engine {
    /// Whether the current state looks for markers: names that end at a
    /// byte are read without (a marker's first byte there means it was
    /// not a name).
    #[inline]
    pub(super) fn scans_markers(&self) -> bool {
        match self.state {
            State::FuncName => !matches!(self.desc().func_name_end, NameEnd::Byte(_)),
            State::ParamName { .. } => !matches!(self.desc().param_name_end, NameEnd::Byte(_)),
            State::Json => false,
            _ => true,
        }
    }

    pub(super) fn window(&self) -> usize {
        self.opts.limits.lookahead
    }

    /// Holds the whitespace at the start of `s`, the layout of a tentative
    /// state; returns how much it took and whether the state must be
    /// decided now (text came, or the whitespace outgrew the window).
    fn hold_layout(&mut self, s: &str) -> (usize, bool) {
        if self.hold.text.is_empty() {
            self.hold.from = self.call.message.at;
        }
        let ws = leading_ws(s);
        self.hold.text.push_str(&s[..ws]);
        let over = self.hold.len().saturating_sub(self.hold_limit());
        if ws < s.len() {
            // Decided by the text after the whitespace.
            self.decided_by(s, ws);
        } else if over > 0 {
            self.passed_bound(s, over);
        }
        (ws, ws < s.len() || over > 0)
    }

    pub(super) fn hold_limit(&self) -> usize {
        self.window() + 64
    }

    pub(super) fn marker(&self, role: Role) -> &'static str {
        self.format.text(role)
    }

    // ----- text ----------------------------------------------------------

    /// Acts on text that holds no marker (or, in the name states that do
    /// not look for markers, on the rest of the input). Returns how many
    /// bytes were consumed; consumes none only after changing state, so
    /// the caller's loop progresses.
    #[inline]
    pub(super) fn text<S: Sink>(&mut self, s: &str, sink: &mut S) -> usize {
        match self.state {
            State::Content if self.format.line_starts => self.content_line(s, sink),
            State::Content => {
                self.content(sink, s);
                s.len()
            }
            State::Start => self.start_text(s, sink),
            State::Preamble => {
                // By default only whitespace may come between the wrapper's
                // opener and the function opener: other text shows at once
                // that the opener was prose, and it is released without
                // waiting (a call after it is still recovered, as a bare
                // one). Holding such text is an option: it costs latency.
                // (Not in an item: its text would be neither item nor wrapper.)
                let ws = leading_ws(s);
                if self.body_in_wrapper_at(s, ws) {
                    self.hold.text.push_str(&s[..ws]);
                    self.hold.inner_end = self.hold.len();
                    self.begin_json(true);
                    return ws;
                }
                let held = if self.opts.hold_text_after_wrapper && self.item != Item::Open {
                    s.len()
                } else {
                    ws
                };
                self.hold.text.push_str(&s[..held]);
                let open = self.hold.opener_len;
                if held < s.len() || self.hold.len() > open + self.window() {
                    self.reject_opening(sink);
                }
                held
            }
            State::ItemType => self.item_type_text(s, sink),
            State::FuncName | State::ParamName { .. } => self.name_text(s, sink),
            State::Confirming => {
                let (ws, decide) = self.hold_layout(s);
                if decide && self.json_body_at(s, ws) {
                    self.confirm_bare_call(sink);
                    self.begin_json_body();
                } else if decide {
                    self.reject_opening(sink);
                }
                ws
            }
            State::InCall if self.json.rest_is_content => {
                self.content_here(sink, s);
                s.len()
            }
            State::InCall => {
                let ws = leading_ws(s);
                if self.stray.len == 0 && self.json_body_at(s, ws) {
                    self.begin_json_body();
                    return ws;
                }
                self.stray.push(s);
                s.len()
            }
            State::KeyDone => {
                let (ws, decide) = self.hold_layout(s);
                if decide {
                    self.value_without_opener(sink);
                }
                ws
            }
            State::ValueType => self.value_type_text(s, sink),
            State::Value => {
                self.value_text(s, sink);
                s.len()
            }
            State::CloserPending(_) => {
                let (ws, decide) = self.hold_layout(s);
                if decide {
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
                let (ws, decide) = self.hold_layout(s);
                if decide {
                    self.reject_near_miss(sink);
                }
                ws
            }
            State::AfterEmptyClose => {
                let ws = leading_ws(s);
                if ws < s.len() {
                    self.decided_by(s, ws);
                    let close = self.marker(Role::ParamClose);
                    let index = self.call.current();
                    let message = format_args!(
                        "parameter `{}` was closed at once and its value \
                         came after `{close}`; that text is the value",
                        self.call.param
                    );
                    crate::engine::diagnostic(
                        sink,
                        &mut self.call.message,
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
                let (ws, decide) = self.hold_layout(s);
                if decide {
                    self.release_held(sink);
                    self.state = State::Content;
                }
                ws
            }
            State::JsonStart { body } => self.json_start_text(s, body, sink),
            State::Header => self.header_text(s, sink),
            State::Json => self.json_text(s, sink),
            State::AfterJson => self.after_json_text(s, sink),
            State::Resync => self.resync_text(s, sink),
            State::Between { bare } => {
                // Whitespace is layout if a marker follows, content if text
                // does.
                let (ws, decide) = self.hold_layout(s);
                if decide {
                    self.text_after_calls(bare, sink);
                }
                ws
            }
            State::ItemEnd { bare } => {
                let (ws, decide) = self.hold_layout(s);
                if decide {
                    self.item_not_closed(format_args!("text"), sink);
                    self.text_after_calls(bare, sink);
                }
                ws
            }
        }
    }

    /// Text after a function (and its item): the wrapper, if any, is taken
    /// as closed; the held layout and the text are content.
    fn text_after_calls<S: Sink>(&mut self, bare: bool, sink: &mut S) {
        if !bare {
            self.unclosed_wrapper_before_text(sink);
        }
        self.release_held(sink);
        self.state = State::Content;
    }

    #[inline(never)]
    pub(super) fn flush_stray<S: Sink>(&mut self, sink: &mut S) {
        if self.stray.len == 0 {
            return;
        }
        let more = if self.stray.len > self.stray.preview.len() {
            "…"
        } else {
            ""
        };
        // After a call's JSON failed, the stray text is its call's; after
        // the JSON that followed a whole call, no call's.
        let index = if self.stray.after_call {
            None
        } else {
            self.call.current().or(self.call.last())
        };
        crate::engine::diagnostic(
            sink,
            &mut self.call.message,
            Kind::StrayText,
            index,
            format_args!(
                "ignored {} bytes of text {} call `{}`: {:?}{more}",
                self.stray.len,
                if self.stray.after_call {
                    "after"
                } else {
                    "inside"
                },
                self.call.name,
                self.stray.preview.trim_end_matches(WS)
            ),
        );
        self.stray.clear();
    }

    // ----- markers -------------------------------------------------------

    #[inline(never)]
    pub(super) fn on_marker<S: Sink>(&mut self, role: Role, sink: &mut S) {
        // As spelled: a role may have several spellings.
        let text = match self.marker.last {
            Some((last, spelled)) if last == role => spelled,
            _ => self.marker(role),
        };
        self.note_misspelling(role, text);
        let desc = self.desc();
        if role.is_reasoning() && !self.reasoning_marker_counts() {
            return self.marker_as_text(text, sink);
        }
        // Inside JSON every marker is JSON text (see `State::Json`).
        if role == Role::EndOfTurn && self.state != State::Json {
            return self.end_of_turn(text, sink);
        }
        match self.state {
            State::Start => {
                self.state = State::Content;
                self.on_marker(role, sink);
                // Reasoning before the output's first text keeps its start:
                // a body may open the content after it.
                if role.is_reasoning() && self.state == State::Content {
                    self.state = State::Start;
                }
            }
            State::Content => match role {
                Role::ReasoningOpen if !self.in_reasoning() => {
                    self.reasoning_at = Some(self.call.count());
                }
                // The prompt opened reasoning and the output opens it again
                // first (Command A's `<|START_THINKING|>`, which some of its
                // templates write in the prompt and some leave to the model):
                // structure, not reasoning text.
                Role::ReasoningOpen
                    if self.opts.reasoning == crate::Reasoning::Started
                        && self.call.message.at == text.len() as u64 => {}
                // Also the closer of reasoning that a call ended: the
                // model's own end of it, which is structure.
                Role::ReasoningClose if self.reasoning_at.is_some() => self.reasoning_at = None,
                Role::CallOpen | Role::FuncOpen | Role::ItemOpen
                    if self.in_reasoning() && !self.opts.calls_in_reasoning =>
                {
                    self.content(sink, text)
                }
                // Calls marked up inside messages are read only in a
                // message to a function (or outside messages): quoted in
                // reasoning or an answer, they are text.
                Role::CallOpen | Role::FuncOpen | Role::ItemOpen
                    if self.in_message && !self.tool_message && desc.headers.is_some() =>
                {
                    self.content(sink, text)
                }
                // Markers inside a fenced code block are text (an option).
                Role::CallOpen
                | Role::FuncOpen
                | Role::ItemOpen
                | Role::HeadOpen
                | Role::ChannelOpen
                    if self.in_code_block() =>
                {
                    self.content(sink, text)
                }
                Role::CallOpen => {
                    self.hold_start(text);
                    self.hold.opening = Opening::Wrapper;
                    self.unclosed_wrapper = desc
                        .json
                        .is_some_and(|json| json.unclosed_openers.contains(&text));
                    self.name.clear();
                    // A JSON body right after the wrapper's opener (after a
                    // function opener, where the format has one; never where
                    // parameters are marked up).
                    // (Mistral: a body, or a name, by what follows.)
                    let body_here = |j: crate::format::Json| {
                        j.body.is_some()
                            && (j.body_openers.contains(&text)
                                || (!desc.has(Role::FuncOpen) && !desc.has(Role::ParamOpen)))
                    };
                    if desc.json.is_some_and(body_here) {
                        self.begin_json(true);
                    } else if desc.has(Role::FuncOpen) {
                        self.state = State::Preamble;
                    } else {
                        self.hold.inner_end = self.hold.len();
                        self.state = State::FuncName;
                    }
                }
                Role::FuncOpen if desc.recoveries.bare_function => {
                    self.begin_func_name(Opening::Bare, text)
                }
                Role::ItemOpen if desc.recoveries.bare_function => self.begin_item(text, sink),
                Role::HeadOpen | Role::ChannelOpen => self.begin_header(text),
                // A block's opener without a header before it (Inkling's
                // `<|content_text|>` after a block's end): an empty header;
                // text in a code block, as a header's opener is there.
                Role::ArgsOpen
                    if self.headers().is_some_and(|h| h.name_only) && !self.in_code_block() =>
                {
                    self.begin_header("");
                    self.header_marker(role, text, sink);
                }
                // The end of a message that was not a call (or of one to a
                // built-in tool, or of one whose call failed): structure,
                // never text, in a format with messages; outside one, text
                // in a code block, as the headers there are.
                Role::BodyClose | Role::FuncClose
                    if (self.in_message || (self.headers().is_some() && !self.in_code_block()))
                        // (A marked-up call's closer is no message's end.)
                        && (role == Role::BodyClose || !self.marked_up_messages()) =>
                {
                    self.message_end()
                }
                // A body's opener inside a body: a switch of message.
                Role::ArgsOpen if self.marked_up_messages() && !self.in_code_block() => {
                    self.switch_message(text, sink)
                }
                // Markup around the content, not content.
                Role::Layout => {}
                _ => self.content(sink, text),
            },
            State::Preamble => match role {
                // InternLM's `<|action_start|><|plugin|>` then a JSON body.
                Role::FuncOpen
                    if desc.json.is_some_and(|json| {
                        json.body.is_some() && !json.body_in_wrapper && !json.body_or_name
                    }) =>
                {
                    self.hold.inner_end = self.hold.len();
                    self.hold.text.push_str(text);
                    self.begin_json(true);
                }
                Role::FuncOpen => {
                    // An item's text is not the wrapper's (see `begin_item`).
                    if self.item != Item::Open {
                        self.hold.inner_end = self.hold.len();
                    }
                    self.hold.text.push_str(text);
                    self.name.clear();
                    self.json.is_body = false;
                    self.state = State::FuncName;
                }
                Role::ItemOpen => self.begin_item(text, sink),
                Role::CallOpen => {
                    self.reject_opening(sink);
                    self.marker_read_again(role, text, sink);
                }
                Role::CallClose => self.close_preamble(text, sink),
                _ => self.marker_as_text(text, sink),
            },
            // Only names that end at a marker get here.
            State::FuncName => {
                let bare = self.hold.opening == Opening::Bare;
                if role == Role::CallClose && self.name.is_blank() {
                    return self.close_preamble(text, sink);
                }
                if self.name.type_pending {
                    // A marker right after the type word: it was the name.
                    self.type_was_name(sink);
                    return self.on_marker(role, sink);
                }
                let typed = desc.json.is_some_and(|json| json.call_type.is_some());
                if typed && role == Role::ArgsOpen && !self.name.typed {
                    if self.type_may_be_name() {
                        self.hold.text.push_str(text);
                        self.name.type_pending = true;
                        return;
                    }
                    let optional = desc.json.is_some_and(|json| json.call_type_optional);
                    if !optional {
                        if !self.type_before_name(text, sink) {
                            self.on_marker(role, sink);
                        }
                        return;
                    }
                }
                if role == Role::NameClose {
                    // `<name>NAME</name>`: the name is whole; the marker
                    // that confirms the call is still to come; held with
                    // the opening, should none come.
                    self.hold.text.push_str(text);
                    return self.func_name_done(None, sink);
                }
                if role == Role::IdOpen {
                    if !self.id_after_name(text, sink) {
                        self.on_marker(role, sink);
                    }
                    return;
                }
                if desc.confirms_call(bare, role) {
                    self.func_name_done(Some(role), sink);
                } else {
                    self.reject_opening(sink);
                }
                self.marker_read_again(role, text, sink);
            }
            State::Confirming => {
                if desc.confirms_call(self.hold.opening == Opening::Bare, role) {
                    if self.hold.opening == Opening::Bare {
                        self.report_bare_call(sink);
                    }
                    self.confirm_call(sink);
                } else {
                    self.reject_opening(sink);
                }
                self.marker_read_again(role, text, sink);
            }
            State::ItemType => self.marker_in_item_type(role, text, sink),
            State::InCall => self.marker_in_call(role, text, sink),
            // A marker ends the skip: what follows the call, as without a
            // list.
            State::Resync => {
                self.state = State::InCall;
                self.marker_in_call(role, text, sink)
            }
            State::ItemEnd { bare } => self.marker_after_function(role, text, bare, sink),
            // Only names that end at a marker get here.
            State::ParamName { in_value } => {
                // Where names share their end, it is `NameClose`.
                let ends = role == Role::KeyClose
                    || (role == Role::NameClose && !desc.has(Role::KeyClose));
                if ends {
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
            State::ValueType => self.marker_in_value_type(role, text, sink),
            State::KeyDone => match role {
                Role::ValueOpen => self.open_value(sink),
                Role::TypeOpen => {
                    self.name.value_type.clear();
                    self.state = State::ValueType;
                }
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
                    crate::engine::diagnostic(
                        sink,
                        &mut self.call.message,
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
            State::Header => self.header_marker(role, text, sink),
            State::Between { bare } => match role {
                // The next message (formats with headers).
                Role::HeadOpen | Role::ChannelOpen | Role::BodyClose => {
                    self.release_held(sink);
                    self.state = State::Content;
                    self.on_marker(role, sink);
                }
                Role::CallClose => {
                    self.hold.text.clear();
                    self.state = State::AfterCall;
                }
                Role::ItemOpen => self.begin_item(text, sink),
                Role::FuncOpen => {
                    let opening = if bare {
                        Opening::Bare
                    } else {
                        Opening::Wrapped
                    };
                    self.begin_func_name(opening, text);
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
                _ => self.marker_as_text(text, sink),
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
            State::JsonStart { body: true } if role == Role::CallClose => {
                self.close_preamble(text, sink)
            }
            // A content type before the arguments (`<|constrain|>json`,
            // then `ArgsOpen` again): layout.
            State::JsonStart { body: false }
                if role == Role::HeadAttr && self.json.fence == Fence::None =>
            {
                self.hold.text.push_str(text);
                self.json.fence = Fence::ContentType;
            }
            State::JsonStart { body: false }
                if role == Role::ArgsOpen && self.json.fence == Fence::ContentType =>
            {
                self.hold.text.push_str(text);
                self.json.fence = Fence::None;
            }
            State::JsonStart { .. } => {
                self.no_json(sink);
                self.marker_read_again(role, text, sink);
            }
            // Markers are not looked for inside JSON: the marker is JSON
            // text, unless the value ended (or failed) at its first byte.
            State::Json => {
                let end = self.call.message.at;
                let start = end.saturating_sub(text.len() as u64);
                self.call.message.at = start;
                let n = self.text(text, sink);
                if n == 0 && self.state != State::Json {
                    // The value ended at the marker: it is read as one.
                    if self.state.is_outside() {
                        self.call.message.from = start;
                    }
                    self.call.message.at = end;
                    return self.on_marker(role, sink);
                }
                self.place_text(start + n as u64);
                self.text_all(&text[n..], sink, false);
                self.call.message.at = end;
            }
            State::AfterJson => self.marker_after_json(role, text, sink),
        }
    }

    /// Whether a reasoning marker is structure here: when reasoning is
    /// split, between calls (content, or the layout after a call, which it
    /// ends); text anywhere else.
    fn reasoning_marker_counts(&self) -> bool {
        self.opts.reasoning != crate::Reasoning::Off
            && matches!(
                self.state,
                State::Start | State::Content | State::AfterCall | State::AfterJson
            )
    }
}
