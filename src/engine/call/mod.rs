//! The call writer: the lifecycle of calls and parameters, and the
//! arguments JSON they make. It knows nothing of markers: the grammar tells
//! it that a call or a parameter starts or ends and hands it value text;
//! it writes `{"key": "value", …}` fragments as they become certain, keeps
//! the open call's arguments when asked to, and enforces the limits and
//! checks that concern calls (ids, `max_calls`, `max_parameters`, unknown
//! tools, duplicate parameters).
//!
//! Values go through [`CallWriter::value_text`], the one place that decides
//! how value text becomes JSON. A value that can only be a string streams
//! as a JSON string, piece by piece, in constant memory. A value whose
//! schema allows another type (or, with `Typing::Infer`, one without a
//! schema) is held until it ends, its raw `parameter_delta`s still
//! streaming, and then written coerced, the strings inside an object or
//! array typed by their shapes (`schema::coerce_shape_into`); past
//! `Limits::max_held_value` it is written as a string after all.

use std::borrow::Cow;
use std::collections::hash_map::RandomState;
use std::mem;

use crate::event::{DiagnosticKind as Kind, Event};
use crate::json::{escape_into, first_escape};
use crate::options::Options;
use crate::schema::{Candidates, TypeSet, Typing};
use crate::sink::{diagnostic, Report, Sink};

mod plain;
mod typed;
mod value;
mod wrapped;

pub(crate) use value::Value;
use value::ValueKind;
use wrapped::Wrapped;

const WS: [char; 4] = [' ', '\t', '\r', '\n'];

/// The open call as it stands (see [`CallWriter::partial`]).
pub(crate) struct Partial<'a> {
    pub index: usize,
    pub id: &'a str,
    pub name: &'a str,
    pub arguments: &'a str,
    pub closing: Cow<'static, str>,
}

pub(crate) struct CallWriter {
    seed: RandomState,
    /// How many calls have started.
    calls: usize,
    open: bool,
    /// The open (or last) call's name.
    pub name: String,
    /// The open (or last) call's id.
    id: String,
    /// The root `anyOf`/`oneOf` branches of its tool the open call may be
    /// in, narrowed by the `const`s its values matched.
    candidates: Candidates,
    /// The arguments of the calls of this output and of the open call,
    /// which whole-argument fields are spans of (kept once, not copied).
    pub args: String,
    /// Where the open call's arguments start in `args`.
    args_start: usize,
    /// The open call's parameter names, `\n`-separated (names hold no
    /// whitespace).
    param_names: String,
    param_count: usize,
    /// The open (or last) parameter's name.
    pub param: String,
    param_open: bool,
    pub value: Value,
    /// Whether the open call lost parameters to `max_parameters`.
    cut: bool,
    calls_limit_reported: bool,
    params_limit_reported: bool,
    /// Text made for one event: an id, an escaped piece, a key prefix.
    scratch: String,
    /// Diagnostic messages, and where in the input they point (the engine
    /// keeps the place up to date).
    pub(super) message: Report,
    /// A lone parameter that may hold the whole arguments, held.
    wrapped: Wrapped,
}

impl CallWriter {
    pub(crate) fn new() -> CallWriter {
        CallWriter {
            seed: RandomState::new(),
            calls: 0,
            open: false,
            name: String::new(),
            id: String::new(),
            candidates: Candidates::ALL,
            args: String::new(),
            args_start: 0,
            param_names: String::new(),
            param_count: 0,
            param: String::new(),
            param_open: false,
            value: Value::default(),
            cut: false,
            calls_limit_reported: false,
            params_limit_reported: false,
            scratch: String::new(),
            message: Report::default(),
            wrapped: Wrapped::default(),
        }
    }

    /// Back to the start of a stream, keeping every buffer's capacity.
    pub(crate) fn reset(&mut self) {
        let mut old = mem::replace(self, CallWriter::new());
        self.seed = old.seed;
        for (new, old) in [
            (&mut self.name, &mut old.name),
            (&mut self.id, &mut old.id),
            (&mut self.args, &mut old.args),
            (&mut self.param_names, &mut old.param_names),
            (&mut self.param, &mut old.param),
            (&mut self.value.tail, &mut old.value.tail),
            (&mut self.value.held, &mut old.value.held),
            (&mut self.value.probe.json, &mut old.value.probe.json),
            (&mut self.scratch, &mut old.scratch),
            (&mut self.message.text, &mut old.message.text),
        ] {
            old.clear();
            mem::swap(new, old);
        }
    }

    /// Makes the arguments buffer ready for the next `feed`: the arguments
    /// of calls already ended are dropped, the open call's are kept (moved
    /// to the front once, after the call that preceded it).
    #[inline]
    pub(crate) fn begin_output(&mut self, retain: bool) {
        if self.open && retain {
            let start = mem::take(&mut self.args_start);
            if start > 0 {
                self.args.drain(..start);
                self.value.json_start -= start.min(self.value.json_start);
            }
        } else {
            self.args.clear();
            self.args_start = 0;
        }
    }

    /// Whether the open call has a parameter yet.
    pub(crate) fn has_params(&self) -> bool {
        self.param_count > 0
    }

    /// How many calls have started.
    pub(crate) fn count(&self) -> usize {
        self.calls
    }

    /// The open call's index.
    pub(crate) fn current(&self) -> Option<usize> {
        self.open.then(|| self.calls - 1)
    }

    /// The last call's index, open or not.
    pub(crate) fn last(&self) -> Option<usize> {
        self.calls.checked_sub(1)
    }

    /// Whether one more call may start; reports `max_calls` once when not.
    pub(crate) fn may_start_call<S: Sink>(&mut self, opts: &Options, sink: &mut S) -> bool {
        let max = opts.limits.max_calls;
        if self.calls < max {
            return true;
        }
        if !mem::replace(&mut self.calls_limit_reported, true) {
            diagnostic(
                sink,
                &mut self.message,
                Kind::LimitExceeded,
                None,
                format_args!(
                    "more than {max} calls (`max_calls`); the rest of the \
                     calls are returned as content"
                ),
            );
        }
        false
    }

    /// Whether one more parameter may start; when not, the call is marked
    /// incomplete and `max_parameters` is reported once.
    pub(crate) fn may_start_param<S: Sink>(&mut self, opts: &Options, sink: &mut S) -> bool {
        let max = opts.limits.max_parameters;
        if self.param_count < max {
            return true;
        }
        self.cut = true;
        if !mem::replace(&mut self.params_limit_reported, true) {
            let index = self.current();
            diagnostic(
                sink,
                &mut self.message,
                Kind::LimitExceeded,
                index,
                format_args!(
                    "call `{}` has more than {max} parameters \
                     (`max_parameters`); the rest are ignored and the \
                     call is marked incomplete",
                    self.name
                ),
            );
        }
        false
    }

    #[inline(never)]
    /// Starts a call. `written_id` is an id the model wrote (Kimi's
    /// `functions.NAME:0`), kept instead of a generated one: the model's
    /// template refers to its calls by it.
    pub(crate) fn start_call<S: Sink>(
        &mut self,
        name: &str,
        written_id: Option<&str>,
        opts: &Options,
        sink: &mut S,
    ) {
        let index = self.calls;
        // A tool's name written twice around a dot (Muse's
        // `get_weather.get_weather`, for a tool registered as
        // `get_weather`): the tool's, when the request's tools say so.
        let written = name;
        let once = opts.tools.as_ref().and_then(|tools| {
            written_twice(name).filter(|once| !tools.contains(name) && tools.contains(once))
        });
        let name = once.unwrap_or(name);
        self.calls += 1;
        self.open = true;
        self.name.clear();
        self.name.push_str(name);
        self.id.clear();
        match written_id {
            Some(id) => self.id.push_str(id),
            None => opts.ids.write(index, &self.seed, &mut self.id),
        }
        sink.event(Event::ToolCallStart {
            index,
            id: &self.id,
            name,
        });
        if once.is_some() {
            diagnostic(
                sink,
                &mut self.message,
                Kind::InvalidName,
                Some(index),
                format_args!(
                    "call {index} names `{written}`, the tool `{name}`'s name written twice; \
                     it was read as `{name}`"
                ),
            );
        }
        if let Some(tools) = &opts.tools {
            if !tools.contains(name) {
                diagnostic(
                    sink,
                    &mut self.message,
                    Kind::UnknownTool,
                    Some(index),
                    format_args!(
                        "call {index} names `{name}`, which is not among the request's tools"
                    ),
                );
            }
        }
        self.args_start = self.args.len();
        self.candidates = Candidates::ALL;
        self.param_names.clear();
        self.param_count = 0;
        self.cut = false;
    }

    /// Starts a parameter whose value is marked-up text (the schema
    /// ladder types it); `json` when the format says the text is JSON;
    /// `may_wrap` when its name is one of the format's
    /// `wrapped_arguments` (held until the call shows whether its value is
    /// the whole arguments).
    #[inline(never)]
    pub(crate) fn start_param<S: Sink>(
        &mut self,
        name: &str,
        inline: bool,
        json: bool,
        may_wrap: bool,
        opts: &Options,
        sink: &mut S,
    ) {
        let kind = if json {
            ValueKind::TextJson
        } else {
            ValueKind::Text
        };
        if may_wrap && !self.wrapped.active && self.may_wrap_arguments(name, opts) {
            return self.hold_wrapped(name, inline, kind);
        }
        self.start_param_as(name, inline, kind, opts, sink);
    }

    /// Starts a parameter whose value is marked-up text of the `types` the
    /// call wrote beside it (`Role::TypeOpen`): typed as those where the
    /// schema does not type it.
    pub(crate) fn start_typed_param<S: Sink>(
        &mut self,
        name: &str,
        types: TypeSet,
        opts: &Options,
        sink: &mut S,
    ) {
        self.start_param_as(name, false, ValueKind::TextTyped(types), opts, sink);
    }

    /// Starts a parameter whose value is text that the call says is JSON
    /// (an element's `type="json"`): the schema ladder, or the JSON it is
    /// without a schema, as a marked-up `string="false"` value.
    pub(crate) fn start_text_json_param<S: Sink>(
        &mut self,
        name: &str,
        opts: &Options,
        sink: &mut S,
    ) {
        self.start_param_as(name, false, ValueKind::TextJson, opts, sink);
    }

    /// Starts a parameter whose value came as JSON. A JSON string goes
    /// through the schema ladder like marked-up text (typed when its
    /// schema allows another type, never inferred: the model chose a
    /// string); any other value is written as the JSON it is, with
    /// [`raw_value`](CallWriter::raw_value).
    #[inline(never)]
    pub(crate) fn start_json_param<S: Sink>(
        &mut self,
        name: &str,
        string: bool,
        opts: &Options,
        sink: &mut S,
    ) {
        let kind = if string {
            ValueKind::JsonString
        } else {
            ValueKind::JsonRaw
        };
        self.start_param_as(name, false, kind, opts, sink);
    }

    fn start_param_as<S: Sink>(
        &mut self,
        name: &str,
        inline: bool,
        kind: ValueKind,
        opts: &Options,
        sink: &mut S,
    ) {
        if self.wrapped.active {
            // Another parameter: the held one was not the arguments.
            self.release_wrapped(opts, sink);
        }
        let index = self.calls - 1;
        self.param.clear();
        self.param.push_str(name);
        if self.has_param(name) {
            diagnostic(
                sink,
                &mut self.message,
                Kind::DuplicateParameter,
                Some(index),
                format_args!(
                    "parameter `{name}` appears twice in call `{}`; both are in its \
                     arguments",
                    self.name
                ),
            );
        }
        if self.param_count > 0 {
            self.param_names.push('\n');
        }
        self.param_names.push_str(name);
        sink.event(Event::ParameterStart { index, name });
        let (holding, types) = self.value_types(name, kind, opts, sink);
        let raw = kind == ValueKind::JsonRaw;
        self.scratch.clear();
        self.scratch
            .push_str(if self.param_count == 0 { "{\"" } else { ", \"" });
        escape_into(&mut self.scratch, name);
        // A held value's JSON is written when it ends, a raw one as it
        // comes.
        self.scratch
            .push_str(if holding || raw { "\": " } else { "\": \"" });
        sink.event(Event::ArgumentsDelta {
            index,
            delta: &self.scratch,
        });
        if opts.retain_arguments {
            self.args.push_str(&self.scratch);
            // The value's JSON starts at the quote just written, or next.
            self.value.json_start = self.args.len() - usize::from(!holding && !raw);
        }
        self.value.holding = holding;
        self.value.raw = raw;
        self.value.types = types;
        self.value.held.clear();
        self.value.probe.json.clear();
        if !holding && !raw {
            self.value.probe.keep("\"");
        }
        self.param_count += 1;
        self.param_open = true;
        self.value.open(inline);
    }

    /// A piece of a raw JSON value (see
    /// [`start_json_param`](CallWriter::start_json_param)): already JSON,
    /// it is both the parameter's delta and the arguments' fragment.
    pub(crate) fn raw_value<S: Sink>(&mut self, json: &str, opts: &Options, sink: &mut S) {
        if json.is_empty() {
            return;
        }
        if opts.retain_arguments {
            self.args.push_str(json);
        }
        sink.value_piece(self.calls - 1, json, json);
        self.value.probe.keep(json);
        self.value.emitted += json.len();
    }

    /// Value text, less the layout newlines when `strip_one_newline` (or,
    /// for an inline value, the surrounding whitespace). A trailing `\n` is
    /// held until what follows shows whether it is layout.
    #[inline]
    pub(crate) fn value_text<S: Sink>(
        &mut self,
        mut s: &str,
        strip_one_newline: bool,
        opts: &Options,
        sink: &mut S,
    ) {
        // Empty text says nothing: in particular, not that the value began.
        if s.is_empty() {
            return;
        }
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
                self.emit_tail(opts, sink);
                self.emit_value(body, opts, sink);
            }
            self.value.tail.push_str(tail);
            if self.value.tail.len() > opts.limits.lookahead {
                self.emit_tail(opts, sink);
            }
            return;
        }
        if !self.value.started {
            self.value.started = true;
            if strip_one_newline {
                s = s.strip_prefix('\n').unwrap_or(s);
            }
        }
        if s.is_empty() {
            return;
        }
        self.value.line_start = s.ends_with('\n');
        self.emit_tail(opts, sink);
        let hold = strip_one_newline && s.ends_with('\n');
        let body = if hold { &s[..s.len() - 1] } else { s };
        self.emit_value(body, opts, sink);
        if hold {
            self.value.tail.push('\n');
        }
    }

    fn emit_tail<S: Sink>(&mut self, opts: &Options, sink: &mut S) {
        if !self.value.tail.is_empty() {
            let tail = mem::take(&mut self.value.tail);
            self.emit_value(&tail, opts, sink);
            self.value.tail = tail;
            self.value.tail.clear();
        }
    }

    #[inline]
    fn emit_value<S: Sink>(&mut self, piece: &str, opts: &Options, sink: &mut S) {
        if piece.is_empty() {
            return;
        }
        if self.wrapped.active {
            return self.wrapped_piece(piece, opts, sink);
        }
        if self.value.holding {
            return self.hold_value(piece, opts, sink);
        }
        let index = self.calls - 1;
        // Most pieces need no escaping: the arguments fragment is then the
        // raw text itself, borrowed, not copied. Escaped text is written
        // once, where it is kept: the call's arguments, or the scratch.
        let escape = first_escape(piece.as_bytes());
        let json = match (escape, opts.retain_arguments) {
            (None, retain) => {
                if retain {
                    self.args.push_str(piece);
                }
                piece
            }
            (Some(at), true) => {
                let start = self.args.len();
                self.args.push_str(&piece[..at]);
                escape_into(&mut self.args, &piece[at..]);
                &self.args[start..]
            }
            (Some(at), false) => {
                self.scratch.clear();
                self.scratch.push_str(&piece[..at]);
                escape_into(&mut self.scratch, &piece[at..]);
                &self.scratch
            }
        };
        sink.value_piece(index, piece, json);
        self.value.probe.keep(json);
        self.value.emitted += piece.len();
    }

    /// The open call as it stands: index, id, name, its arguments so far
    /// (a prefix of the final JSON) and the text that closes them into a
    /// valid JSON object. `None` outside calls or when arguments are not
    /// retained.
    /// `raw_closing` closes an open raw JSON value (its open strings,
    /// arrays and objects).
    pub(crate) fn partial(&self, opts: &Options, raw_closing: &str) -> Option<Partial<'_>> {
        let index = self.current()?;
        if !opts.retain_arguments {
            return None;
        }
        let closing = if self.wrapped.active {
            // Nothing of a held parameter is written yet.
            Cow::Borrowed("{}")
        } else if self.param_open && self.value.holding {
            // A held value is shown raw, as a string.
            let mut closing = String::with_capacity(self.value.held.len() + 4);
            closing.push('"');
            escape_into(&mut closing, &self.value.held);
            closing.push_str("\"}");
            Cow::Owned(closing)
        } else if self.param_open && self.value.raw {
            Cow::Owned(format!("{raw_closing}}}"))
        } else if self.param_open {
            Cow::Borrowed("\"}")
        } else if self.param_count == 0 {
            Cow::Borrowed("{}")
        } else {
            Cow::Borrowed("}")
        };
        Some(Partial {
            index,
            id: &self.id,
            name: &self.name,
            arguments: &self.args[self.args_start..],
            closing,
        })
    }

    /// Bytes of a typed value held until it ends.
    pub(crate) fn held_len(&self) -> usize {
        let wrapped = if self.wrapped.active {
            self.wrapped.text.len()
        } else {
            0
        };
        if self.value.holding {
            self.value.held.len() + wrapped
        } else {
            wrapped
        }
    }

    /// Whether the open call already has a parameter `name`.
    pub(crate) fn has_param(&self, name: &str) -> bool {
        // (No parameter yet: the empty list, which splits into one empty
        // name, holds none.)
        self.param_count > 0 && self.param_names.split('\n').any(|p| p == name)
    }

    /// Whether the value is at the start of a line (or has not begun).
    pub(crate) fn value_at_line_start(&self) -> bool {
        self.value.line_start
    }

    #[inline(never)]
    pub(crate) fn end_param<S: Sink>(&mut self, opts: &Options, sink: &mut S) {
        if !self.param_open {
            return;
        }
        if self.wrapped.active {
            return self.end_wrapped(opts, sink);
        }
        self.param_open = false;
        self.value.tail.clear();
        let index = self.calls - 1;
        if self.value.holding {
            self.write_held(opts, sink);
        } else if self.value.raw {
            self.value.raw = false;
        } else {
            sink.event(Event::ArgumentsDelta { index, delta: "\"" });
            if opts.retain_arguments {
                self.args.push('"');
            }
            self.value.probe.keep("\"");
        }
        self.narrow_branches(opts);
        let name = &self.param;
        if opts.retain_arguments {
            let whole = self.value.json_start..self.args.len();
            sink.event_with_whole(
                Event::ParameterEnd {
                    index,
                    name,
                    value: Some(&self.args[whole.clone()]),
                },
                whole,
            );
        } else {
            sink.event(Event::ParameterEnd {
                index,
                name,
                value: None,
            });
        }
    }

    #[inline(never)]
    pub(crate) fn end_call<S: Sink>(&mut self, complete: bool, opts: &Options, sink: &mut S) {
        if !self.open {
            return;
        }
        if self.wrapped.active {
            self.finish_wrapped(opts, sink);
        }
        self.end_param(opts, sink);
        if opts.tools.is_some() && opts.typing != Typing::Strings {
            self.check_required(opts, sink);
        }
        let index = self.calls - 1;
        let closing = if self.param_count == 0 { "{}" } else { "}" };
        sink.event(Event::ArgumentsDelta {
            index,
            delta: closing,
        });
        let complete = complete && !self.cut;
        if opts.retain_arguments {
            self.args.push_str(closing);
            let whole = self.args_start..self.args.len();
            sink.event_with_whole(
                Event::ToolCallEnd {
                    index,
                    arguments: Some(&self.args[whole.clone()]),
                    complete,
                },
                whole,
            );
        } else {
            sink.event(Event::ToolCallEnd {
                index,
                arguments: None,
                complete,
            });
        }
        self.open = false;
    }
}

/// `NAME` when `name` is `NAME.NAME`.
fn written_twice(name: &str) -> Option<&str> {
    let (head, tail) = name.split_once('.')?;
    (!head.is_empty() && head == tail).then_some(head)
}
