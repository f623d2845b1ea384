//! Openings and names: what the wrapper's opener, a function opener or a
//! parameter opener begins, how their names are read and decided, and
//! where the text of an opening goes when it turns out not to be one.

use crate::engine::body::state::AttrEnd;
use crate::engine::grammar::hold::Opening;
use crate::engine::grammar::name::{find_end, Stop};
use crate::engine::grammar::state::State;
use crate::engine::{Engine, WS};
use crate::event::DiagnosticKind as Kind;
use crate::format::{NameEnd, Role};
use crate::sink::Sink;

impl Engine {
    /// Name bytes, up to the name's end.
    pub(in crate::engine) fn name_text<S: Sink>(&mut self, s: &str, sink: &mut S) -> usize {
        let param = matches!(self.state, State::ParamName { .. });
        if !param && self.name.type_pending {
            return self.after_type_word(s, sink);
        }
        if !param && self.body_may_stand_for_name() {
            let ws = crate::engine::grammar::leading_ws(s);
            if ws < s.len() && self.opens_body(s.as_bytes()[ws], true) {
                // The layout before the body is held with its opening.
                self.hold.text.push_str(&s[..ws]);
                self.decided_by(s, ws);
                if self.hold.opening == Opening::Bare {
                    // A bare opener's call is confirmed by its markup: a
                    // body there is text, never a name.
                    self.reject_opening(sink);
                    return ws;
                }
                self.name.clear();
                self.begin_json(true);
                return ws;
            }
        }
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
                // A name after the call's type ends at its line's end.
                let line = line || (!param && self.name.typed);
                let markers = &self.format.markers;
                let brace = !param && self.brace_opens_args();
                // A line end ends the name once it has begun.
                let mut begun = !self.name.is_blank();
                let stop = s.bytes().position(|c| {
                    let ends = (line && c == b'\n' && begun)
                        || markers.starts_marker(c)
                        || (brace && c == b'{');
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
        // Arguments in an attribute (`<invoke name="N" args='{…}'/>`) end
        // the name where they begin.
        let in_attribute = desc
            .json_args_attribute
            .filter(|_| !param)
            .and_then(|attr| self.name.json_attribute_start(&s[..taken], attr));
        let taken = in_attribute.map_or(taken, |(k, _)| k);
        if self.name.text.is_empty() {
            self.name.at = self.call.message.at;
        }
        self.name.push(&s[..taken]);
        self.hold.text.push_str(&s[..taken]);
        let spaces = self.spaces_allowed_in_name();
        let max = self.opts.limits.max_name_len;
        if self.name.text.len() > max || self.name.is_invalid(spaces) {
            // Diagnostics point at the character that decided it.
            self.call.message.at = self.name.at + self.name.refused_at(spaces, max) as u64;
            self.reject_name(sink);
            return taken;
        }
        if let Some((k, quote)) = in_attribute {
            self.decided_by(s, k);
            self.args_in_attribute(quote, sink);
            return k;
        }
        let Stop::At(at) = stop else {
            return taken;
        };
        // The name's end decides.
        self.decided_by(s, at);
        let byte = s.as_bytes()[at];
        if self.format.markers.starts_marker(byte) {
            self.reject_name(sink);
            return taken;
        }
        if byte == b'{' && !param && self.brace_opens_args() {
            // The `{` is read again, as the arguments' first byte.
            self.args_without_marker(sink);
            return taken;
        }
        self.hold.text.push(char::from(byte));
        if Some(byte) == end_byte || byte == b'\n' {
            if param {
                self.param_name_done(false, sink);
            } else {
                // After the type, `ArgsOpen` came already: it confirmed
                // the call.
                let confirmed = self.name.typed.then_some(Role::ArgsOpen);
                self.func_name_done(confirmed, sink);
            }
        } else {
            // `=`: the malformed `<parameter=KEY=VALUE` shape.
            self.param_name_done(true, sink);
        }
        taken + 1
    }

    /// Whether a JSON call body may stand where this function name begins
    /// (`Json::body_or_name`): only whitespace read so far.
    fn body_may_stand_for_name(&self) -> bool {
        self.name.is_blank() && self.desc().json.is_some_and(|json| json.body_or_name)
    }

    /// Whether a function name is being read after the wrapper's opener
    /// and the function opener (`<tool_call>` then `<function=`): the model
    /// is writing a call, so a malformed name is reported, never silently
    /// turned into content.
    pub(in crate::engine) fn in_confirmed_wrapper(&self) -> bool {
        self.state == State::FuncName
            && self.hold.opening != Opening::Bare
            && self.desc().has(Role::FuncOpen)
    }

    /// Whether the name being read may hold whitespace: a function name in
    /// a confirmed wrapper (kept, reported), and a parameter name that a
    /// marker closes (`<arg_key>my key</arg_key>`: the closer delimits it).
    pub(in crate::engine) fn spaces_allowed_in_name(&self) -> bool {
        match self.state {
            State::ParamName { .. } => {
                matches!(self.desc().param_name_end, NameEnd::Marker { .. })
            }
            _ => self.in_confirmed_wrapper(),
        }
    }

    pub(in crate::engine) fn func_name_done<S: Sink>(
        &mut self,
        ended_by: Option<Role>,
        sink: &mut S,
    ) {
        let confirmed = self.in_confirmed_wrapper();
        // A format that writes the call's type first (`function`) has no
        // call without it.
        let json = self.desc().json;
        if json.is_some_and(|j| j.call_type.is_some() && !j.call_type_optional) && !self.name.typed
        {
            return self.reject_opening(sink);
        }
        if !self.name.finish(confirmed) {
            return self.reject_name(sink);
        }
        // An id with no name in it (Kimi's `functions.:0`).
        let id = self.desc().json.and_then(|json| json.id_in_name);
        if id.is_some_and(|id| {
            id.name_of(&self.name.text)
                .trim_matches(crate::engine::WS)
                .is_empty()
        }) {
            return self.reject_name(sink);
        }
        if self.name.is_spaced() {
            let name = &self.name.text;
            let next = Some(self.call.count());
            crate::engine::diagnostic(
                sink,
                &mut self.call.message,
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
            // A marker that confirms a bare call ended its name.
            Opening::Bare if ended_by.is_some() => {
                self.report_bare_call(sink);
                self.confirm_call(sink)
            }
            Opening::Wrapper | Opening::Bare => self.state = State::Confirming,
        }
    }

    /// DeepSeek V3's `function<｜tool▁sep｜>`: the text before the marker
    /// is the call's type, one word; the name follows.
    /// Returns false when the text was not a type: the name was refused
    /// and the marker is still to be handled.
    pub(in crate::engine) fn type_before_name<S: Sink>(
        &mut self,
        text: &str,
        sink: &mut S,
    ) -> bool {
        let wanted = self.desc().json.and_then(|json| json.call_type);
        if wanted.is_some_and(|wanted| self.name.text.trim_matches(crate::engine::WS) != wanted) {
            // Another layout (V3.1's `NAME<｜tool▁sep｜>`): not a call of this
            // format.
            self.reject_opening(sink);
            return false;
        }
        if self.name.is_blank() || self.name.is_spaced() || !self.name.finish(false) {
            self.reject_name(sink);
            return false;
        }
        self.hold.text.push_str(text);
        self.name.clear();
        self.name.typed = true;
        true
    }

    /// Whether the text before `ArgsOpen` is the call's type word in a
    /// format where it may be left out: what follows the marker decides
    /// whether it was the type or the name.
    pub(in crate::engine) fn type_may_be_name(&self) -> bool {
        self.desc().json.is_some_and(|json| {
            json.call_type_optional
                && json
                    .call_type
                    .is_some_and(|word| self.name.text.trim_matches(WS) == word)
        })
    }

    /// After the type word and `ArgsOpen`: whitespace is held; the
    /// arguments' `{` makes the word the name (`NAME<｜tool▁sep｜>{…}`), any
    /// other byte makes it the type, and the name begins there.
    fn after_type_word<S: Sink>(&mut self, s: &str, sink: &mut S) -> usize {
        let Some(k) = s.bytes().position(|b| !b.is_ascii_whitespace()) else {
            self.hold.text.push_str(s);
            return s.len();
        };
        self.hold.text.push_str(&s[..k]);
        if s.as_bytes()[k] == b'{' {
            self.decided_by(s, k);
            self.type_was_name(sink);
        } else {
            self.name.clear();
            self.name.typed = true;
        }
        k
    }

    /// The word before `ArgsOpen` was the name: the call starts, and its
    /// arguments are next.
    pub(in crate::engine) fn type_was_name<S: Sink>(&mut self, sink: &mut S) {
        self.name.type_pending = false;
        self.func_name_done(Some(Role::ArgsOpen), sink);
        if self.state == State::InCall {
            self.begin_json(false);
        }
    }

    /// Mistral's `NAME[CALL_ID]`: the name is whole; the call's id
    /// follows, up to `[ARGS]`.
    /// Returns false when there was no name: it was refused and the
    /// marker is still to be handled.
    pub(in crate::engine) fn id_after_name<S: Sink>(&mut self, text: &str, sink: &mut S) -> bool {
        // Solar Open's `ID<|tool_call:name|>NAME`: the id came first, and
        // may be left out.
        let id_first = self.desc().json.is_some_and(|json| json.id_before_name);
        let blank_id = id_first && self.name.is_blank();
        if self.name.func.is_some() || !(blank_id || self.name.finish(false)) {
            self.reject_name(sink);
            return false;
        }
        self.hold.text.push_str(text);
        let func = std::mem::take(&mut self.name.text);
        self.name.clear();
        self.name.func = Some(func);
        true
    }

    /// A call that began with the function opener alone.
    pub(in crate::engine) fn report_bare_call<S: Sink>(&mut self, sink: &mut S) {
        // Where functions stand alone, that is the format's shape.
        if self.desc().unwrapped_functions {
            return;
        }
        // The opener as written: the held text starts with it.
        let func = self.hold.text.get(..self.hold.opener_len).unwrap_or("");
        let open = self.marker(Role::CallOpen);
        let next = Some(self.call.count());
        crate::engine::diagnostic(
            sink,
            &mut self.call.message,
            Kind::MissingToolCallOpen,
            next,
            format_args!(
                "call `{}` began with `{func}` without `{open}`",
                self.name.text
            ),
        );
    }

    /// The wrapper's opener as written, when it is a malformed spelling
    /// that a recovery read (`call_open_without_close`).
    fn report_recovered_opener<S: Sink>(&mut self, sink: &mut S) {
        let written = self.hold.text.get(..self.hold.opener_len).unwrap_or("");
        if !self.format.is_recovered_spelling(written) {
            return;
        }
        let (open, call) = (self.marker(Role::CallOpen), Some(self.call.count()));
        let written = written.trim_end_matches(WS);
        crate::engine::diagnostic(
            sink,
            &mut self.call.message,
            Kind::MalformedMarker,
            call,
            format_args!("`{written}` without its `>` was read as `{open}`"),
        );
    }

    /// The opening is a call: text inside the wrapper before the function
    /// opener goes back to content, and the call starts.
    pub(in crate::engine) fn confirm_call<S: Sink>(&mut self, sink: &mut S) {
        self.report_misspelling(false, sink);
        if self.hold.opening == Opening::Wrapper {
            self.report_recovered_opener(sink);
            let inner = self.hold.after_opener(self.hold.inner_end);
            if !inner.trim_matches(WS).is_empty() {
                // (The text is held text: its code fences need no tracking,
                // it ends with a call.)
                if S::PLACES_CONTENT {
                    let at = self.hold.from + self.hold.opener_len as u64;
                    sink.content_at(at);
                }
                Self::text_out(sink, self.in_reasoning(), inner);
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
        self.item_confirmed(sink);
        self.hold.text.clear();
        let written = self.name.text.as_str();
        match (
            &self.name.func,
            self.desc().json.and_then(|json| json.id_in_name),
        ) {
            // `ID<|tool_call:name|>NAME`: the text read first is the id.
            (Some(id), _) if self.desc().json.is_some_and(|json| json.id_before_name) => {
                let id = Some(id.trim_matches(WS)).filter(|id| !id.is_empty());
                self.call.start_call(written, id, &self.opts, sink)
            }
            // `NAME[CALL_ID]ID`: the text read last is the id.
            (Some(func), _) => self.call.start_call(func, Some(written), &self.opts, sink),
            (None, Some(id)) => {
                let mut name = id.name_of(written);
                // An id whose separators were lost (`functionsexec5`) names a
                // tool of the request once they are taken out.
                if let Some(tools) = self.opts.tools.as_ref().filter(|t| !t.contains(name)) {
                    if let Some(found) = id.name_without_separators(written, |n| tools.contains(n))
                    {
                        name = found;
                        let index = Some(self.call.count());
                        crate::engine::diagnostic(
                            sink,
                            &mut self.call.message,
                            Kind::InvalidName,
                            index,
                            format_args!(
                                "call id `{written}` lacks the separators around its name; it \
                                 was read as tool `{name}`, and kept as the call's id"
                            ),
                        );
                    }
                }
                self.call.start_call(name, Some(written), &self.opts, sink)
            }
            (None, None) => self.call.start_call(written, None, &self.opts, sink),
        }
        if self.name.typed {
            // After the call's type and its name, the arguments follow.
            return self.begin_json(false);
        }
        self.state = State::InCall;
    }

    pub(in crate::engine) fn param_name_done<S: Sink>(&mut self, inline: bool, sink: &mut S) {
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
        self.report_misspelling(true, sink);
        self.hold.text.clear();
        if self.desc().has(Role::ValueOpen) {
            // The parameter starts with its value: a name that gets none
            // is left out.
            self.state = State::KeyDone;
            return;
        }
        let json = self.value_is_json();
        let may_wrap = self.may_wrap_arguments();
        self.call
            .start_param(&self.name.text, inline, json, may_wrap, &self.opts, sink);
        self.state = State::Value;
        if inline {
            let (open, name) = (self.marker(Role::ParamOpen), &self.name.text);
            let index = self.call.current();
            crate::engine::diagnostic(
                sink,
                &mut self.call.message,
                Kind::MalformedParameter,
                index,
                format_args!(
                    "read `{open}{name}=VALUE` as parameter `{name}` with the value after `=`"
                ),
            );
        }
    }

    /// Whether the parameter's name is one the format's calls may give
    /// their whole arguments in (`wrapped_arguments`).
    pub(in crate::engine) fn may_wrap_arguments(&self) -> bool {
        let name = self.name.text.as_str();
        self.desc().wrapped_arguments.contains(&name)
    }

    /// Whether the parameter's attributes say its value is JSON (the
    /// format's `json_value_attribute`, or `string_value_attribute` with
    /// another value).
    fn value_is_json(&self) -> bool {
        let desc = self.desc();
        let said = |(key, value): (&str, &str)| self.name.attribute(key).map(|v| v == value);
        desc.json_value_attribute.and_then(said) == Some(true)
            || desc.string_value_attribute.and_then(said) == Some(false)
    }

    /// Why the parameter opener just read inside a value is value text,
    /// if it is: its name was already given in this call, or the request's
    /// tools say this tool has no such parameter. A model writing a file
    /// that shows a call writes such openers; a missing closer before the
    /// next parameter does not repeat a name.
    pub(in crate::engine) fn name_in_value_is_text(&self) -> Option<&'static str> {
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
    pub(in crate::engine) fn keep_param_open_in_value<S: Sink>(
        &mut self,
        reason: &str,
        sink: &mut S,
    ) {
        self.report_kept_in_value(None, reason, sink);
        self.back_to_value(sink);
    }

    #[inline(never)]
    pub(in crate::engine) fn reject_name<S: Sink>(&mut self, sink: &mut S) {
        if self.state == (State::ParamName { in_value: true }) {
            self.back_to_value(sink);
        } else if self.in_confirmed_wrapper() {
            let (open, func) = (self.marker(Role::CallOpen), self.marker(Role::FuncOpen));
            let max = self.opts.limits.max_name_len;
            crate::engine::diagnostic(
                sink,
                &mut self.call.message,
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
    pub(in crate::engine) fn reject_opening<S: Sink>(&mut self, sink: &mut S) {
        let opening = matches!(
            self.state,
            State::FuncName | State::ItemType | State::Preamble
        );
        if opening && self.hold.opening == Opening::Wrapped {
            self.unclosed_wrapper_before_text(sink);
        }
        self.item = crate::engine::grammar::item::Item::Closed;
        self.release_held(sink);
        self.name.clear();
        self.state = State::Content;
    }

    /// JSON arguments begin in an attribute of the function's element: the
    /// attribute confirms the call, as a marker in `bare_confirmed_by`
    /// would, and the JSON is read up to the element's end.
    fn args_in_attribute<S: Sink>(&mut self, quote: Option<u8>, sink: &mut S) {
        self.func_name_done(Some(Role::ArgsOpen), sink);
        if self.state != State::InCall {
            // Not a call: its text went back to content.
            return;
        }
        self.begin_json(false);
        self.json.attr_end = quote.map_or(AttrEnd::Rest, AttrEnd::Quote);
    }

    /// Whether a function's arguments written as its body begin at `at` in
    /// `s` (`Description::json_args_body`): their `{`, before any
    /// parameter of the call.
    pub(in crate::engine) fn json_body_at(&self, s: &str, at: usize) -> bool {
        self.desc().json_args_body && s.as_bytes().get(at) == Some(&b'{') && !self.call.has_params()
    }

    /// Whether a call body begins at `at` in `s`, in the wrapper where the
    /// function opener would come (`Json::body_in_wrapper`): its first
    /// byte, before any text that is not whitespace.
    pub(in crate::engine) fn body_in_wrapper_at(&self, s: &str, at: usize) -> bool {
        self.desc().json.is_some_and(|json| json.body_in_wrapper)
            && self.item == crate::engine::grammar::item::Item::Closed
            && self
                .hold
                .after_opener(self.hold.len())
                .trim_matches(WS)
                .is_empty()
            && s.as_bytes()
                .get(at)
                .is_some_and(|&b| self.opens_body(b, true))
    }

    /// The arguments written as the function's body: the JSON reader takes
    /// them from their `{`; the function's closer follows them.
    pub(in crate::engine) fn begin_json_body(&mut self) {
        self.begin_json(false);
        self.json.attr_end = AttrEnd::Tag;
    }

    /// A bare function opener confirmed by what followed its name (a
    /// function body's JSON): reported, and the call starts.
    pub(in crate::engine) fn confirm_bare_call<S: Sink>(&mut self, sink: &mut S) {
        if self.hold.opening == Opening::Bare {
            self.report_bare_call(sink);
        }
        self.confirm_call(sink);
    }

    /// Whether the arguments' `{` also ends a function name and opens them
    /// (`Json::brace_opens_args`).
    fn brace_opens_args(&self) -> bool {
        self.desc()
            .json
            .is_some_and(|json| json.args_after_name && json.brace_opens_args)
    }

    /// The arguments' `{` right after a function name, without
    /// `ArgsOpen`: it confirms the call, as the marker would, and the JSON
    /// is read from it; reported.
    fn args_without_marker<S: Sink>(&mut self, sink: &mut S) {
        self.func_name_done(Some(Role::ArgsOpen), sink);
        if self.state != State::InCall {
            // Not a call (a name with whitespace in it): content.
            return;
        }
        let (open, index) = (self.marker(Role::ArgsOpen), self.call.current());
        crate::engine::diagnostic(
            sink,
            &mut self.call.message,
            Kind::MissingArgumentsOpen,
            index,
            format_args!(
                "call `{}` had its arguments' `{{` right after its name, without `{open}`; \
                 read as its arguments",
                self.call.name
            ),
        );
        self.begin_json(false);
    }

    /// A function opener, as written (`text`: a role may have several
    /// spellings), begins a name.
    pub(in crate::engine) fn begin_func_name(&mut self, opening: Opening, text: &str) {
        self.hold_start(text);
        self.name.clear();
        self.hold.opening = opening;
        // A marked-up function: no call body is being read.
        self.json.is_body = false;
        self.state = State::FuncName;
    }

    /// The wrapper's closer right after its opener: dropped when only
    /// whitespace came between, content otherwise.
    pub(in crate::engine) fn close_preamble<S: Sink>(&mut self, close: &str, sink: &mut S) {
        if self
            .hold
            .after_opener(self.hold.len())
            .trim_matches(WS)
            .is_empty()
        {
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
}
