//! Values, as the grammar sees them: where a value begins (with or without
//! its opener), and where it ends: its closer, a closer kept as value text
//! because no structure follows it, a near-miss closer read as one because
//! structure does, or a missing closer. The call writer turns the value
//! text into JSON.

use std::mem;

use crate::engine::grammar::state::State;
use crate::engine::{Engine, WS};
use crate::event::DiagnosticKind as Kind;
use crate::format::Role;
use crate::options::ValueTermination;
use crate::schema::TypeSet;
use crate::sink::Sink;

impl Engine {
    /// The held text was value text after all.
    pub(in crate::engine) fn back_to_value<S: Sink>(&mut self, sink: &mut S) {
        self.state = State::Value;
        let strip = self.desc().strip_one_newline;
        self.call
            .value_text(&self.hold.text, strip, &self.opts, sink);
        self.hold.text.clear();
        self.name.clear();
    }

    /// The value opener after a parameter's name: the parameter starts.
    pub(in crate::engine) fn open_value<S: Sink>(&mut self, sink: &mut S) {
        // The whitespace before the value is layout.
        self.hold.text.clear();
        if !self.name.value_type.is_empty() {
            let types = TypeSet::written_type(&self.name.value_type);
            self.call
                .start_typed_param(&self.name.text, types, &self.opts, sink);
            self.state = State::Value;
            return;
        }
        let may_wrap = self.may_wrap_arguments();
        self.call
            .start_param(&self.name.text, false, false, may_wrap, &self.opts, sink);
        self.state = State::Value;
    }

    /// The text of a value's type (`Role::TypeOpen` … `TypeClose`), kept
    /// up to `max_name_len` bytes (a longer one is no type name: the
    /// value is then a string).
    pub(in crate::engine) fn value_type_text<S: Sink>(&mut self, s: &str, _sink: &mut S) -> usize {
        let max = self.opts.limits.max_name_len;
        let kept = &mut self.name.value_type;
        if kept.len() + s.len() > max {
            // No type name: a control character makes it none.
            kept.clear();
            kept.push('\0');
        } else {
            kept.push_str(s);
        }
        s.len()
    }

    /// A marker after a value's type: its closer goes back to the key's
    /// end; any other marker means the closer is missing (reported), and
    /// the marker is read as after the key.
    pub(in crate::engine) fn marker_in_value_type<S: Sink>(
        &mut self,
        role: Role,
        text: &str,
        sink: &mut S,
    ) {
        self.state = State::KeyDone;
        if role == Role::TypeClose {
            return;
        }
        let (close, name) = (self.marker(Role::TypeClose), &self.name.text);
        let index = self.call.current();
        crate::engine::diagnostic(
            sink,
            &mut self.call.message,
            Kind::MalformedParameter,
            index,
            format_args!(
                "the type of parameter `{name}` was not closed with `{close}` before `{text}`; \
                 read as closed there"
            ),
        );
        self.on_marker(role, sink);
    }

    /// Text where the value opener belongs: the value starts without it.
    pub(in crate::engine) fn value_without_opener<S: Sink>(&mut self, sink: &mut S) {
        self.open_value(sink);
        self.missing_value_opener(sink, "the text that followed is its value");
    }

    pub(in crate::engine) fn missing_value_opener<S: Sink>(
        &mut self,
        sink: &mut S,
        what_was_done: &str,
    ) {
        let (open, key_close) = (self.marker(Role::ValueOpen), self.marker(Role::KeyClose));
        let index = self.call.current();
        crate::engine::diagnostic(
            sink,
            &mut self.call.message,
            Kind::MissingValueOpen,
            index,
            format_args!(
                "no `{open}` after `{key_close}` of parameter `{}`; {what_was_done}",
                self.name.text
            ),
        );
    }

    pub(in crate::engine) fn marker_in_value<S: Sink>(
        &mut self,
        role: Role,
        text: &str,
        sink: &mut S,
    ) {
        // Inside a raw section every marker but its closer is value text.
        if self.call.value.raw_section {
            if role == Role::RawClose {
                self.call.value.raw_section = false;
            } else {
                self.value_text(text, sink);
            }
            return;
        }
        if role == Role::RawOpen {
            self.call.value.raw_section = true;
            return;
        }
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
            Role::FuncClose | Role::ItemClose | Role::CallClose if immediate => {
                self.end_unclosed_value(role, text, sink)
            }
            Role::ParamClose | Role::FuncClose | Role::ItemClose | Role::CallClose => {
                self.hold.text.clear();
                self.hold.text.push_str(&self.call.value.tail);
                self.call.value.tail.clear();
                self.hold.text.push_str(text);
                self.state = State::CloserPending(role);
            }
            Role::CallOpen
            | Role::FuncOpen
            | Role::NameClose
            | Role::KeyClose
            | Role::ValueOpen
            | Role::ArgsOpen
            | Role::IdOpen
            | Role::ReasoningOpen
            | Role::ReasoningClose
            | Role::HeadOpen
            | Role::ChannelOpen
            | Role::HeadAttr
            | Role::BodyClose
            | Role::ItemOpen
            | Role::ItemSep
            | Role::Layout
            | Role::TypeOpen
            | Role::TypeClose
            // (A section's closer outside one.)
            | Role::RawOpen
            | Role::RawClose
            | Role::ParamsOpen
            | Role::ParamsClose
            // (Never here: the end of the turn ends the value first.)
            | Role::EndOfTurn => self.value_text(text, sink),
        }
    }

    /// Value text, in the format's layout, to the call writer.
    #[inline]
    pub(in crate::engine) fn value_text<S: Sink>(&mut self, text: &str, sink: &mut S) {
        let strip = self.desc().strip_one_newline;
        self.call.value_text(text, strip, &self.opts, sink);
    }

    /// A marker that ends a value whose closer is missing.
    pub(in crate::engine) fn end_unclosed_value<S: Sink>(
        &mut self,
        role: Role,
        text: &str,
        sink: &mut S,
    ) {
        self.unclosed_parameter(text, sink);
        self.call.end_param(&self.opts, sink);
        self.state = State::InCall;
        self.on_marker(role, sink);
    }

    pub(in crate::engine) fn unclosed_parameter<S: Sink>(&mut self, before: &str, sink: &mut S) {
        if self.call.value.inline {
            // Already reported as malformed; such a value ends at a marker.
            return;
        }
        let close = self.marker(Role::ParamClose);
        let index = self.call.current();
        crate::engine::diagnostic(
            sink,
            &mut self.call.message,
            Kind::UnclosedParameter,
            index,
            format_args!(
                "parameter `{}` was not closed with `{close}` before `{before}`",
                self.call.param
            ),
        );
    }

    #[inline(never)]
    pub(in crate::engine) fn accept_closer<S: Sink>(&mut self, closer: Role, sink: &mut S) {
        self.hold.text.clear();
        if closer == Role::ParamClose {
            self.call.end_param(&self.opts, sink);
            self.state = State::InCall;
        } else {
            let text = self.marker(closer);
            self.end_unclosed_value(closer, text, sink);
        }
    }

    /// Reports, once per parameter, text that looked like structure and
    /// was kept inside the value: `marker`, or the held text when `None`.
    pub(in crate::engine) fn report_kept_in_value<S: Sink>(
        &mut self,
        marker: Option<&'static str>,
        why: &str,
        sink: &mut S,
    ) {
        if mem::replace(&mut self.call.value.closer_reported, true) {
            return;
        }
        let kept = marker.unwrap_or_else(|| self.hold.text.trim_matches(WS));
        let index = self.call.current();
        crate::engine::diagnostic(
            sink,
            &mut self.call.message,
            Kind::CloserInValue,
            index,
            format_args!(
                "kept `{kept}` inside the value of `{}` as text: {why} \
                 (reported once per parameter)",
                self.call.param
            ),
        );
    }

    #[inline(never)]
    pub(in crate::engine) fn reject_closer<S: Sink>(&mut self, sink: &mut S) {
        let State::CloserPending(closer) = self.state else {
            return;
        };
        let text = self.marker(closer);
        self.report_kept_in_value(
            Some(text),
            "what followed it was not a marker that may follow a closer",
            sink,
        );
        self.state = State::Value;
        let strip = self.desc().strip_one_newline;
        self.call
            .value_text(&self.hold.text, strip, &self.opts, sink);
        self.hold.text.clear();
    }

    /// Whether the bytes of a marker match that just died are the value's
    /// closer less its last byte (`</parameter`), in a value where a
    /// near-miss may be read as the closer.
    #[inline]
    pub(in crate::engine) fn is_near_miss_closer(&self, stepped_here: &str) -> bool {
        // (Inside a raw section no closer counts.)
        if self.state != State::Value || self.call.value.raw_section {
            return false;
        }
        let close = self.marker(Role::ParamClose);
        let pending = &self.marker.pending;
        pending.len() + stepped_here.len() + 1 == close.len()
            && self.opts.value_end == ValueTermination::Lookahead
            && !self.call.value.inline
            && close.starts_with(pending.as_str())
            && close[pending.len()..].starts_with(stepped_here)
    }

    pub(in crate::engine) fn begin_near_miss_closer(&mut self, stepped_here: &str) {
        self.hold.text.clear();
        self.hold.text.push_str(&self.call.value.tail);
        self.call.value.tail.clear();
        self.hold.text.push_str(&self.marker.pending);
        self.hold.text.push_str(stepped_here);
        self.marker.pending.clear();
        self.state = State::NearMissCloser { junk_done: false };
    }

    #[inline(never)]
    pub(in crate::engine) fn accept_near_miss<S: Sink>(&mut self, sink: &mut S) {
        let close = self.marker(Role::ParamClose);
        let index = self.call.current();
        let near_miss = self.hold.text.trim_matches(WS);
        crate::engine::diagnostic(
            sink,
            &mut self.call.message,
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
    pub(in crate::engine) fn reject_near_miss<S: Sink>(&mut self, sink: &mut S) {
        self.back_to_value(sink);
    }
}
