//! A JSON call body: `{"name": …, "arguments": {…}}`, or a list of them.
//! The name is read from the body and the call starts when it ends; the
//! arguments stream through the [`ArgsWriter`] as they arrive. Arguments
//! written before the name are held, as events, up to `max_held_value`
//! bytes, and replayed once the name is known. Other keys are skipped.
//! Where the name is the object's only key (`BodyKeys::name_is_key`), the
//! call starts at the key, and its value streams as the arguments. Under a
//! nested-body key (`Json::nested_body_keys`, `{"function": {…}}`) the call
//! object is one level down: its name and arguments are read there.

use std::mem;

use crate::engine::body::args::ArgsWriter;
use crate::engine::call::CallWriter;
use crate::format::BodyKeys;
use crate::json::reader::{JsonEvent, Leniency};
use crate::options::Options;
use crate::sink::Sink;

/// Why a body is not a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BodyProblem {
    /// Not an object (or, where lists are allowed, a list of objects).
    NotACall,
    /// The name is not a string, or not a name (empty, too long, a
    /// control character).
    BadName,
    /// The object ended without a name.
    NoName,
    /// Arguments before the name passed `max_held_value` bytes.
    HeldTooLong,
    /// `max_calls` was reached.
    TooManyCalls,
    /// A second key in an object whose only key is the name
    /// (`BodyKeys::name_is_key`).
    SecondName,
}

/// What the value of the current key is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
enum Field {
    #[default]
    None,
    Name,
    /// The call's id (`Json::id_keys`), before its name.
    Id,
    Args,
    Skip,
}

/// Where the current object is with a call object nested under one of its
/// keys (`Json::nested_body_keys`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
enum Nest {
    /// No nested-body key read.
    #[default]
    Outside,
    /// A nested-body key was read: its value must be an object.
    Opening,
    /// Inside that object, where the name and arguments are.
    Inside,
    /// That object ended: the outer object's other keys are skipped.
    Done,
}

/// An arguments event held until the name arrives.
#[derive(Debug)]
enum Held {
    BeginObject,
    EndObject,
    BeginArray,
    EndArray,
    Key(String),
    BeginString,
    BeginTextJson,
    Text(String),
    EndString,
    Number(String),
    Bool(bool),
    Null,
    Lenient(Leniency),
}

impl Held {
    fn of(event: &JsonEvent<'_>) -> Held {
        match *event {
            JsonEvent::BeginObject => Held::BeginObject,
            JsonEvent::EndObject => Held::EndObject,
            JsonEvent::BeginArray => Held::BeginArray,
            JsonEvent::EndArray => Held::EndArray,
            JsonEvent::Key(k) => Held::Key(k.to_owned()),
            JsonEvent::BeginString => Held::BeginString,
            JsonEvent::BeginTextJson => Held::BeginTextJson,
            JsonEvent::Text(t) => Held::Text(t.to_owned()),
            JsonEvent::EndString => Held::EndString,
            JsonEvent::Number(n) => Held::Number(n.to_owned()),
            JsonEvent::Bool(b) => Held::Bool(b),
            JsonEvent::Null => Held::Null,
            JsonEvent::Lenient(l) => Held::Lenient(l),
        }
    }

    fn event(&self) -> JsonEvent<'_> {
        match self {
            Held::BeginObject => JsonEvent::BeginObject,
            Held::EndObject => JsonEvent::EndObject,
            Held::BeginArray => JsonEvent::BeginArray,
            Held::EndArray => JsonEvent::EndArray,
            Held::Key(k) => JsonEvent::Key(k),
            Held::BeginString => JsonEvent::BeginString,
            Held::BeginTextJson => JsonEvent::BeginTextJson,
            Held::Text(t) => JsonEvent::Text(t),
            Held::EndString => JsonEvent::EndString,
            Held::Number(n) => JsonEvent::Number(n),
            Held::Bool(b) => JsonEvent::Bool(*b),
            Held::Null => JsonEvent::Null,
            Held::Lenient(l) => JsonEvent::Lenient(*l),
        }
    }

    fn len(&self) -> usize {
        match self {
            Held::Key(s) | Held::Text(s) | Held::Number(s) => s.len() + 8,
            _ => 8,
        }
    }
}

/// Steps the nesting of a value being skipped or held; true when the
/// event ends the value.
fn ends_value(depth: &mut usize, event: &JsonEvent<'_>) -> bool {
    match event {
        JsonEvent::BeginObject | JsonEvent::BeginArray => {
            *depth += 1;
            false
        }
        JsonEvent::EndObject | JsonEvent::EndArray => {
            *depth = depth.saturating_sub(1);
            *depth == 0
        }
        JsonEvent::EndString | JsonEvent::Number(_) | JsonEvent::Bool(_) | JsonEvent::Null => {
            *depth == 0
        }
        JsonEvent::Key(_)
        | JsonEvent::BeginString
        | JsonEvent::BeginTextJson
        | JsonEvent::Text(_) => false,
        JsonEvent::Lenient(_) => false,
    }
}

#[derive(Default)]
pub(crate) struct BodyReader {
    /// Depth in the body's JSON.
    depth: usize,
    /// The body is a list of call objects.
    list: bool,
    field: Field,
    nest: Nest,
    /// Nesting of the value being skipped or held.
    value_depth: usize,
    pub name: String,
    name_done: bool,
    /// The call's id, when its body gives one before its name.
    id: String,
    args_seen: bool,
    /// The current object's call has started.
    pub started: bool,
    held: Vec<Held>,
    held_len: usize,
    pub problem: Option<BodyProblem>,
    /// A call of a list ended at the last event: the engine hands its raw
    /// text on before reading further.
    pub ended_in_list: bool,
    /// The body opened without a marker in a format where such a body is a
    /// call only when the keys before its name are arguments keys and its
    /// name is one of the request's tools (`Json::unmarked_needs_tool`).
    pub needs_tool: bool,
}

impl BodyReader {
    pub(crate) fn reset(&mut self) {
        self.depth = 0;
        self.list = false;
        self.new_object();
        self.problem = None;
        self.needs_tool = false;
    }

    fn new_object(&mut self) {
        self.field = Field::None;
        self.nest = Nest::Outside;
        self.value_depth = 0;
        self.name.clear();
        self.name_done = false;
        self.id.clear();
        self.args_seen = false;
        self.started = false;
        self.held.clear();
        self.held_len = 0;
    }

    /// Bytes held: the name, arguments before it.
    pub(crate) fn held_len(&self) -> usize {
        self.held_len + self.name.len()
    }

    /// Whether the body hands its events to the arguments: its call has
    /// started and its arguments are being read, with no problem.
    #[inline]
    pub(crate) fn streams_args(&self) -> bool {
        self.field == Field::Args && self.started && self.problem.is_none()
    }

    /// One event of the body, read with its name and arguments keys and
    /// the keys of an id. `args` gets the arguments' events once the call
    /// has started; a call starts and ends through `call`. `nested`: the
    /// keys a call object may be nested under.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn event<S: Sink>(
        &mut self,
        event: JsonEvent<'_>,
        (keys, id_keys): (&BodyKeys, &[&str]),
        nested: &[&str],
        args: &mut ArgsWriter,
        call: &mut CallWriter,
        opts: &Options,
        sink: &mut S,
    ) {
        match self.field {
            Field::Args if self.started => {
                args.event(event, call, opts, sink);
                if args.done || args.problem.is_some() {
                    self.field = Field::None;
                }
            }
            Field::Args => {
                let ended = ends_value(&mut self.value_depth, &event);
                let held = Held::of(&event);
                self.held_len += held.len();
                self.held.push(held);
                if self.held_len > opts.limits.max_held_value {
                    self.problem = Some(BodyProblem::HeldTooLong);
                } else if ended {
                    self.field = Field::None;
                }
            }
            Field::Skip => {
                if ends_value(&mut self.value_depth, &event) {
                    self.field = Field::None;
                }
            }
            Field::Name => match event {
                JsonEvent::BeginString | JsonEvent::Lenient(_) => {}
                JsonEvent::Text(text) => {
                    self.name.push_str(text);
                    if self.name.len() > opts.limits.max_name_len {
                        self.problem = Some(BodyProblem::BadName);
                    }
                }
                JsonEvent::EndString => {
                    self.field = Field::None;
                    self.name_done = true;
                    self.start(args, call, opts, sink);
                }
                _ => self.problem = Some(BodyProblem::BadName),
            },
            Field::Id => match event {
                JsonEvent::BeginString | JsonEvent::Lenient(_) => {}
                JsonEvent::Text(text) if self.id.len() + text.len() <= opts.limits.max_name_len => {
                    self.id.push_str(text);
                }
                // Too long: no id of the model's (the call gets one of ours).
                JsonEvent::Text(_) => {
                    self.id.clear();
                    self.value_depth = 0;
                    self.field = Field::Skip;
                }
                JsonEvent::EndString => self.field = Field::None,
                // Not a string: skipped, with no id kept.
                other => {
                    self.id.clear();
                    self.value_depth = 0;
                    self.field = if ends_value(&mut self.value_depth, &other) {
                        Field::None
                    } else {
                        Field::Skip
                    };
                }
            },
            Field::None => self.structure(event, (keys, id_keys), nested, args, call, opts, sink),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn structure<S: Sink>(
        &mut self,
        event: JsonEvent<'_>,
        (keys, id_keys): (&BodyKeys, &[&str]),
        nested: &[&str],
        args: &mut ArgsWriter,
        call: &mut CallWriter,
        opts: &Options,
        sink: &mut S,
    ) {
        if self.nest == Nest::Opening && !matches!(event, JsonEvent::Lenient(_)) {
            if matches!(event, JsonEvent::BeginObject) {
                self.depth += 1;
                self.nest = Nest::Inside;
            } else {
                self.problem = Some(BodyProblem::NotACall);
            }
            return;
        }
        let object_depth = 1 + usize::from(self.list) + usize::from(self.nest == Nest::Inside);
        match event {
            JsonEvent::BeginObject if self.depth + 1 == object_depth => {
                self.depth += 1;
                self.new_object();
                args.reset();
            }
            JsonEvent::BeginArray if self.depth == 0 && keys.list => {
                self.depth = 1;
                self.list = true;
            }
            JsonEvent::EndArray if self.list && self.depth == 1 => self.depth = 0,
            JsonEvent::Key(key) if self.depth == object_depth && keys.name_is_key => {
                if self.name_done {
                    self.problem = Some(BodyProblem::SecondName);
                    return;
                }
                // The key is the name, and its value the arguments, which
                // stream from the start.
                self.name.push_str(key);
                if self.name.len() > opts.limits.max_name_len {
                    self.problem = Some(BodyProblem::BadName);
                    return;
                }
                self.name_done = true;
                self.args_seen = true;
                self.start(args, call, opts, sink);
                self.field = Field::Args;
            }
            JsonEvent::Key(key)
                if self.depth == object_depth
                    && self.nest == Nest::Outside
                    && !self.name_done
                    && nested.contains(&key) =>
            {
                // The call object follows, as this key's value.
                self.nest = Nest::Opening;
            }
            JsonEvent::Key(key) if self.depth == object_depth => {
                self.value_depth = 0;
                self.field = if self.nest == Nest::Done {
                    Field::Skip
                } else if keys.name.contains(&key) && !self.name_done {
                    Field::Name
                } else if keys.arguments.contains(&key) && !self.args_seen {
                    self.args_seen = true;
                    Field::Args
                } else if id_keys.contains(&key) && !self.name_done {
                    Field::Id
                } else {
                    Field::Skip
                };
                if self.needs_tool && self.field == Field::Skip && !self.name_done {
                    self.problem = Some(BodyProblem::NotACall);
                }
            }
            JsonEvent::EndObject if self.depth == object_depth && self.nest == Nest::Inside => {
                // The nested call object ended; the outer one goes on.
                self.depth -= 1;
                self.nest = Nest::Done;
                if !self.name_done {
                    self.problem = Some(BodyProblem::NoName);
                }
            }
            JsonEvent::EndObject if self.depth == object_depth => {
                self.depth -= 1;
                if !self.name_done {
                    self.problem = Some(BodyProblem::NoName);
                } else if self.started {
                    args.flush(call, opts, sink);
                    call.end_call(args.problem.is_none(), opts, sink);
                    self.started = false;
                    self.ended_in_list = self.list;
                }
            }
            JsonEvent::Lenient(_) => {}
            _ => self.problem = Some(BodyProblem::NotACall),
        }
    }

    /// The name is whole: the call starts, and arguments held before it
    /// are replayed.
    fn start<S: Sink>(
        &mut self,
        args: &mut ArgsWriter,
        call: &mut CallWriter,
        opts: &Options,
        sink: &mut S,
    ) {
        let name = self.name.trim();
        if name.is_empty() || name.chars().any(char::is_control) {
            self.problem = Some(BodyProblem::BadName);
            return;
        }
        if self.needs_tool
            && !opts
                .tools
                .as_ref()
                .is_some_and(|tools| tools.contains(name))
        {
            self.problem = Some(BodyProblem::NotACall);
            return;
        }
        if !call.may_start_call(opts, sink) {
            self.problem = Some(BodyProblem::TooManyCalls);
            return;
        }
        let id = Some(self.id.trim()).filter(|id| !id.is_empty());
        call.start_call(name, id, opts, sink);
        self.started = true;
        let held = mem::take(&mut self.held);
        for event in &held {
            args.event(event.event(), call, opts, sink);
        }
        self.held = held;
        self.held.clear();
        self.held_len = 0;
    }
}
