//! Markers met inside a call: which end it, which are stray, which
//! recover a missing closer (the grammar's `on_marker` hands them here).

use crate::engine::grammar::hold::Opening;
use crate::engine::grammar::state::State;
use crate::engine::Engine;
use crate::event::DiagnosticKind as Kind;
use crate::format::Role;
use crate::sink::Sink;

impl Engine {
    pub(in crate::engine) fn marker_in_call<S: Sink>(
        &mut self,
        role: Role,
        text: &str,
        sink: &mut S,
    ) {
        self.marker_in_call_inner(role, text, sink);
        if self.state != State::InCall {
            self.json.rest_is_content = false;
        }
    }

    fn marker_in_call_inner<S: Sink>(&mut self, role: Role, text: &str, sink: &mut S) {
        let stray = matches!(
            role,
            Role::ParamClose
                | Role::KeyClose
                | Role::ValueOpen
                | Role::IdOpen
                | Role::ItemSep
                | Role::TypeOpen
                | Role::TypeClose
                | Role::RawOpen
                | Role::RawClose
        ) || (role == Role::ArgsOpen && self.call.current().is_none());
        if stray && self.json.rest_is_content {
            // After a call's JSON failed, a marker that is not structure
            // here is text, as the text around it (placed where the
            // marker, which ends at the place, begins).
            let at = self.call.message.at.saturating_sub(text.len() as u64);
            return self.content_placed(sink, text, at);
        }
        if matches!(
            role,
            Role::ParamClose
                | Role::KeyClose
                | Role::ValueOpen
                | Role::IdOpen
                | Role::ItemSep
                | Role::TypeOpen
                | Role::TypeClose
                | Role::RawOpen
                | Role::RawClose
        ) {
            return self.stray.push(text);
        }
        // Markup around the parameters: not the call's text.
        if matches!(role, Role::ParamsOpen | Role::ParamsClose) {
            return;
        }
        self.flush_stray(sink);
        let bare = self.hold.opening == Opening::Bare;
        // A call body in the function's place has no function closer.
        let body_in_wrapper =
            self.json.is_body && self.desc().json.is_some_and(|json| json.body_in_wrapper);
        let has_func_close = self.desc().has(Role::FuncClose) && !body_in_wrapper;
        match role {
            // Only a call still open takes its arguments (after invalid
            // JSON ended it, a second `ArgsOpen` is stray).
            Role::ArgsOpen
                if self.desc().json.is_some_and(|j| j.args_after_name)
                    && self.call.current().is_some() =>
            {
                self.begin_json(false)
            }
            Role::ArgsOpen => self.stray.push(text),
            Role::ParamOpen => {
                self.hold_start(text);
                self.name.clear();
                self.state = State::ParamName { in_value: false };
            }
            // In an item, the item's closer ends the call.
            Role::FuncClose if self.item.is_used() => {
                self.hold.text.clear();
                self.state = State::ItemEnd { bare };
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
                    crate::engine::diagnostic(
                        sink,
                        &mut self.call.message,
                        Kind::UnclosedFunction,
                        index,
                        format_args!(
                            "call `{}` was not closed with `{func_close}` before `{text}`",
                            self.call.name
                        ),
                    );
                }
                self.hold.text.clear();
                if self.item.is_used() {
                    // The item's closer is due too.
                    self.state = State::ItemEnd { bare };
                    return self.on_marker(role, sink);
                }
                self.call.end_call(true, &self.opts, sink);
                match role {
                    // The wrapper's closer closes the call too.
                    Role::CallClose => self.state = State::AfterCall,
                    // An item's markers: handled after the call.
                    Role::FuncOpen | Role::ItemOpen | Role::ItemClose => {
                        self.state = State::Between { bare };
                        self.marker_read_again(role, text, sink);
                    }
                    _ => {
                        // A new wrapper implies the last one was left open.
                        if !bare {
                            self.new_wrapper_before_close(sink);
                        }
                        self.state = State::Content;
                        self.marker_read_again(role, text, sink);
                    }
                }
            }
        }
    }

    pub(in crate::engine) fn unclosed_wrapper_before_text<S: Sink>(&mut self, sink: &mut S) {
        // The last closer read: the item's, in a format with items.
        let last_close = if self.desc().has(Role::ItemClose) {
            self.marker(Role::ItemClose)
        } else {
            self.marker(Role::FuncClose)
        };
        let close = self.marker(Role::CallClose);
        let last = self.call.last();
        self.diag(
            sink,
            Kind::UnclosedToolCall,
            last,
            format_args!(
                "text followed `{last_close}` without `{close}`; the wrapper is taken as closed"
            ),
        );
    }

    pub(in crate::engine) fn new_wrapper_before_close<S: Sink>(&mut self, sink: &mut S) {
        let (open, close) = (self.marker(Role::CallOpen), self.marker(Role::CallClose));
        let last = self.call.last();
        self.diag(
            sink,
            Kind::UnclosedToolCall,
            last,
            format_args!("a new `{open}` began before `{close}`"),
        );
    }
}
