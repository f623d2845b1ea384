//! What follows a call's JSON: whitespace and a code fence's closing
//! backticks are layout; the call's closer ends the call; another call,
//! text or the end mean the closer is missing (reported).

use crate::engine::body::state::{AttrEnd, Fence};
use crate::engine::grammar::state::State;
use crate::engine::Engine;
use crate::event::DiagnosticKind as Kind;
use crate::format::Role;
use crate::sink::{diagnostic, Sink};

impl Engine {
    /// What follows a call's JSON when it is not the call's closer: a
    /// call still waiting for its closer (`<|tool_call_end|>`) ends, with
    /// `unclosed_function`; `before` says what came instead. Returns
    /// whether it was reported.
    fn end_unclosed_json_call<S: Sink>(&mut self, before: &str, sink: &mut S) -> bool {
        let Some(index) = self.call.current() else {
            return false;
        };
        let func_close = self.marker(Role::FuncClose);
        diagnostic(
            sink,
            &mut self.call.message,
            Kind::UnclosedFunction,
            Some(index),
            format_args!(
                "call `{}` was not closed with `{func_close}` before {before}",
                self.call.name
            ),
        );
        self.call.end_call(true, &self.opts, sink);
        true
    }

    /// Text after a call's JSON: whitespace and the fence's closing
    /// backticks are held as layout; other text decides.
    pub(in crate::engine) fn after_json_text<S: Sink>(&mut self, s: &str, sink: &mut S) -> usize {
        if self.hold.text.is_empty() {
            // Layout after the value starts holding here.
            self.hold.from = self.call.message.at;
        }
        let separator = self.json().body_separator;
        for (at, b) in s.bytes().enumerate() {
            // The end of an element whose attribute held the arguments.
            let attr_end = match (self.json.attr_end, b) {
                (AttrEnd::Quote(q), b) if b == q => Some(AttrEnd::Rest),
                (AttrEnd::Rest, b'/') => Some(AttrEnd::Slash),
                (AttrEnd::Rest, b'>') => Some(AttrEnd::Tag),
                (AttrEnd::Slash, b'>') => {
                    // `/>`: the element, and the call, end here.
                    self.decided_by(s, at);
                    self.call.end_call(true, &self.opts, sink);
                    self.hold.text.clear();
                    let bare = self.hold.opening == crate::engine::grammar::hold::Opening::Bare;
                    self.state = State::Between { bare };
                    return at + 1;
                }
                _ => None,
            };
            if let Some(next) = attr_end {
                self.json.attr_end = next;
                continue;
            }
            let next = match (self.json.fence, b) {
                (_, b' ' | b'\t' | b'\r' | b'\n') => continue,
                (Fence::None | Fence::Closed, b) if Some(b) == separator => continue,
                (Fence::Open, b'`') => Fence::Closing(1),
                (Fence::Closing(n), b'`') if n < 3 => Fence::Closing(n + 1),
                _ => {
                    self.hold.text.push_str(&s[..at]);
                    self.decided_by(s, at);
                    self.text_after_json(Some(b), sink);
                    return at;
                }
            };
            self.json.fence = if next == Fence::Closing(3) {
                Fence::Closed
            } else {
                next
            };
        }
        self.hold.text.push_str(s);
        let over = self.hold.len().saturating_sub(self.hold_limit());
        if over > 0 {
            self.passed_bound(s, over);
            self.text_after_json(None, sink);
        }
        s.len()
    }

    /// Text after a call's JSON, before its closer: another call body in
    /// the same wrapper, or text after a missing closer.
    pub(in crate::engine) fn text_after_json<S: Sink>(&mut self, next: Option<u8>, sink: &mut S) {
        if self.format.line_starts && self.json.is_body {
            return self.line_after_json(next, sink);
        }
        let in_wrapper = self.json.is_body && self.wrapper_has_closer();
        let chained = self.json.is_body && self.json().body_separator.is_some();
        let syntax = self.json().syntax;
        if (in_wrapper || chained) && next.is_some_and(|b| syntax.opens_element(b)) {
            if in_wrapper {
                self.hold.text.clear();
            }
            // Chained bodies keep the separator held: content, should the
            // next body not be a call (a call drops it as layout).
            self.hold.opener_len = self.hold.len();
            self.hold.opening = crate::engine::grammar::hold::Opening::Wrapped;
            self.begin_json(true);
            self.json.mark_opening = true;
            return;
        }
        if !self.end_unclosed_json_call("text", sink) && self.wrapper_has_closer() {
            let closer = self.marker(Role::CallClose);
            let last = self.call.last();
            diagnostic(
                sink,
                &mut self.call.message,
                Kind::UnclosedToolCall,
                last,
                format_args!("text followed call `{}` without `{closer}`", self.call.name),
            );
        }
        if self.json.fence == Fence::Closed {
            // The closing fence is layout; what follows it is text.
            if let Some(at) = self.hold.text.rfind("```") {
                self.hold.text.drain(..at + 3);
                self.hold.from += (at + 3) as u64;
            }
        }
        self.release_held(sink);
        self.state = State::Content;
    }

    /// Text after a call's JSON in a format whose bodies open lines
    /// (`Json::open_at_line_start`). A closed fence is layout. When a line
    /// end came among the layout, `next` starts a line: a body there is
    /// the next candidate, held with the layout before it (dropped if it
    /// is a call, content if not), inside the same fence if one is still
    /// open; anything else is read from `Start`. Without a line end, what
    /// follows is content.
    fn line_after_json<S: Sink>(&mut self, next: Option<u8>, sink: &mut S) {
        let fence = self.json.fence;
        if fence == Fence::Closed {
            if let Some(at) = self.hold.text.rfind("```") {
                self.hold.text.drain(..at + 3);
                self.hold.from += (at + 3) as u64;
            }
        }
        let held = &self.hold.text;
        let line = held
            .rfind('\n')
            .is_some_and(|at| held[at + 1..].bytes().all(|b| b == b' ' || b == b'\t'));
        let opens = match next {
            Some(b'`') => self.json().fenced && fence != Fence::Open,
            Some(b) => self.opens_body(b, false),
            None => false,
        };
        if line && opens {
            self.hold.opener_len = self.hold.len();
            self.hold.opening = crate::engine::grammar::hold::Opening::Wrapped;
            self.begin_json(true);
            if fence == Fence::Open {
                self.json.fence = Fence::Open;
            }
            self.json.mark_opening = true;
            return;
        }
        self.release_held(sink);
        self.state = if line { State::Start } else { State::Content };
    }

    pub(in crate::engine) fn marker_after_json<S: Sink>(
        &mut self,
        role: Role,
        text: &str,
        sink: &mut S,
    ) {
        let bare = self.hold.opening == crate::engine::grammar::hold::Opening::Bare;
        // Where the marker began: what it opens, read again once the call
        // is over, begins there.
        let start = self.call.message.at.saturating_sub(text.len() as u64);
        match role {
            Role::FuncClose => {
                if matches!(self.json.fence, Fence::Open | Fence::Closing(_)) {
                    let index = self.call.current();
                    diagnostic(
                        sink,
                        &mut self.call.message,
                        Kind::LenientJson,
                        index,
                        format_args!(
                            "the code fence around the arguments of call `{}` was not closed",
                            self.call.name
                        ),
                    );
                }
                self.hold.text.clear();
                if self.item.is_used() {
                    // In an item, the item's closer ends the call.
                    self.state = State::ItemEnd { bare };
                    return;
                }
                self.call.end_call(true, &self.opts, sink);
                self.state = State::Between { bare };
            }
            Role::CallClose => {
                self.end_unclosed_json_call(&format!("`{text}`"), sink);
                self.hold.text.clear();
                self.state = State::AfterCall;
            }
            Role::FuncOpen => {
                self.end_unclosed_json_call(&format!("`{text}`"), sink);
                self.hold.text.clear();
                self.state = State::Between { bare };
                self.marker_again(role, start, sink);
            }
            // A message's end in place of the call's (`<|end|>` for
            // `<|call|>`): the call ends, reported, and its message.
            Role::BodyClose if self.headers().is_some() => {
                self.end_unclosed_json_call(&format!("`{text}`"), sink);
                self.hold.text.clear();
                self.message_end();
                self.state = State::Content;
            }
            // The next message's header, where a call ends with its JSON
            // (Functionary v3.2's `}>>>all`): the whitespace between is
            // layout.
            Role::HeadOpen if self.headers().is_some() && !self.desc().has(Role::FuncClose) => {
                self.drop_layout(sink);
                self.state = State::Content;
                self.marker_again(role, start, sink);
            }
            Role::CallOpen => {
                self.drop_layout(sink);
                let reported = self.end_unclosed_json_call(&format!("`{text}`"), sink);
                if !reported && self.wrapper_has_closer() {
                    self.new_wrapper_before_close(sink);
                }
                self.state = State::Content;
                self.marker_again(role, start, sink);
            }
            _ => {
                self.text_after_json(None, sink);
                self.marker_again(role, start, sink);
            }
        }
    }

    /// A marker read again in the state the call's end left: outside a
    /// call, it begins what it opens (diagnostics' spans, content's place).
    fn marker_again<S: Sink>(&mut self, role: Role, start: u64, sink: &mut S) {
        if self.state.is_outside() {
            self.call.message.from = start;
        }
        self.on_marker(role, sink);
    }

    /// The held text after a call's JSON, when no body follows: whitespace
    /// and a fence's closing backticks are layout; with a separator (`;`)
    /// among it, it is text.
    fn drop_layout<S: Sink>(&mut self, sink: &mut S) {
        let separator = self.json().body_separator;
        if separator.is_some_and(|b| self.hold.text.as_bytes().contains(&b)) {
            self.release_held(sink);
        } else {
            self.hold.text.clear();
        }
    }

    /// The end of the stream after a call's JSON: whitespace is layout.
    pub(in crate::engine) fn end_after_json<S: Sink>(&mut self, sink: &mut S) {
        self.drop_layout(sink);
        if self.end_unclosed_json_call(&self.ended().as_noun().to_string(), sink) {
            return;
        }
        if self.wrapper_has_closer() {
            let closer = self.marker(Role::CallClose);
            let last = self.call.last();
            self.diag(
                sink,
                Kind::UnclosedToolCall,
                last,
                format_args!("{} before `{closer}`", self.ended()),
            );
        }
    }
}
