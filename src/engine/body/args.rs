//! JSON arguments into the call writer: the events of one arguments value
//! (an object, or a string that holds one) become parameters. A top-level
//! string value goes through the schema ladder like a marked-up value; any
//! other value is re-serialised in the crate's argument style (`", "` and
//! `": "` as Python's `json.dumps`) and streamed as it comes, except a
//! string inside it whose shape (the schema's `properties`, `items`, …)
//! allows another type: that string is held until it ends, with the key
//! before it, and written typed by the rule every format shares
//! ([`coerce_shape_into`]).
//!
//! What has been written is always a prefix of valid JSON that
//! [`ArgsWriter::closing`] closes: a key inside a raw value is written
//! together with the start of its value, and a `,` with the next element.

use std::mem;

use crate::engine::call::CallWriter;
use crate::json::escape_into;
use crate::json::reader::{JsonEvent, JsonReader};
use crate::options::Options;
use crate::schema::{coerce_shape_into, Inner, Outcome, ShapeId, ShapeRef, TypeSet};
use crate::sink::Sink;

/// Why the arguments could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ArgsProblem {
    /// The arguments value is not an object (nor a string holding one).
    NotAnObject,
    /// The arguments were a JSON string that does not hold one object.
    BadString,
    /// The arguments string passed `max_held_value` bytes.
    StringTooLong,
}

/// Something worth reporting about arguments that were read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ArgsNote {
    /// The arguments were a JSON string holding the object; it was decoded.
    DecodedString,
    /// `null` arguments were read as no arguments.
    NullAsEmpty,
}

#[derive(Default)]
pub(crate) struct ArgsWriter {
    /// Depth inside the arguments: 0 before (or after) its object, 1
    /// inside it, more inside a raw value.
    depth: usize,
    /// Closers of the open raw containers (`}` or `]`), innermost last.
    closers: Vec<u8>,
    /// The shapes of the open raw containers, as `closers`.
    shapes: Vec<Option<ShapeId>>,
    /// The index of the next element of each open raw container.
    indexes: Vec<usize>,
    /// A nested string being held to be typed: its separator and key (not
    /// yet written), its text so far, and its shape.
    held: Option<ShapeId>,
    /// The held nested string is JSON written as text
    /// (`JsonEvent::BeginTextJson`), held whether or not a shape types it.
    held_json: bool,
    held_prefix: String,
    held_text: String,
    /// The next element of the innermost raw container is its first.
    first: bool,
    /// The key whose value comes next.
    key: String,
    /// Inside a top-level string value (the ladder's), or a raw one.
    in_top_string: bool,
    in_raw_string: bool,
    /// Raw JSON not yet handed to the call writer.
    out: String,
    /// The arguments are a JSON string: its decoded text so far.
    string: Option<String>,
    /// Decoding such a string (which may not be a string again).
    decoding: bool,
    /// The arguments' object (or string) has ended.
    pub done: bool,
    pub problem: Option<ArgsProblem>,
    pub note: Option<ArgsNote>,
}

impl ArgsWriter {
    pub(crate) fn reset(&mut self) {
        self.depth = 0;
        self.closers.clear();
        self.shapes.clear();
        self.indexes.clear();
        self.held = None;
        self.held_json = false;
        self.held_prefix.clear();
        self.held_text.clear();
        self.first = false;
        self.key.clear();
        self.in_top_string = false;
        self.in_raw_string = false;
        self.out.clear();
        self.string = None;
        self.decoding = false;
        self.done = false;
        self.problem = None;
        self.note = None;
    }

    /// Bytes held: raw JSON not yet written, a string being decoded, a
    /// nested string being typed.
    pub(crate) fn held_len(&self) -> usize {
        self.out.len()
            + self.string.as_ref().map_or(0, String::len)
            + self.held_prefix.len()
            + self.held_text.len()
    }

    /// What closes the open raw value, if one is open.
    pub(crate) fn closing(&self) -> String {
        let mut closing = String::new();
        if self.in_raw_string {
            closing.push('"');
        }
        closing.extend(self.closers.iter().rev().map(|&c| char::from(c)));
        closing
    }

    /// Hands the raw JSON written so far to the call writer.
    pub(crate) fn flush<S: Sink>(&mut self, call: &mut CallWriter, opts: &Options, sink: &mut S) {
        if !self.out.is_empty() {
            call.raw_value(&self.out, opts, sink);
            self.out.clear();
        }
    }

    /// Closes whatever is open, so that the call's arguments are valid
    /// JSON (the call is then ended as incomplete by the caller).
    pub(crate) fn close_open<S: Sink>(
        &mut self,
        call: &mut CallWriter,
        opts: &Options,
        sink: &mut S,
    ) {
        if self.holding() {
            self.write_held(call, opts, sink);
        }
        let closing = self.closing();
        self.out.push_str(&closing);
        self.flush(call, opts, sink);
        self.closers.clear();
        self.shapes.clear();
        self.indexes.clear();
        self.in_raw_string = false;
        self.in_top_string = false;
        call.end_param(opts, sink);
    }

    /// Whether the next `Text` event goes, as it is, to the open call's
    /// value: the arguments are in a top-level string, with no problem and
    /// no note waiting.
    #[inline]
    pub(crate) fn streams_top_string(&self) -> bool {
        self.depth == 1
            && self.in_top_string
            && self.problem.is_none()
            && self.note.is_none()
            && !self.done
    }

    /// One event of the arguments value.
    pub(crate) fn event<S: Sink>(
        &mut self,
        event: JsonEvent<'_>,
        call: &mut CallWriter,
        opts: &Options,
        sink: &mut S,
    ) {
        if self.problem.is_some() || self.done {
            return;
        }
        match self.depth {
            0 => self.root(event, call, opts, sink),
            1 => self.top_level(event, call, opts, sink),
            _ => self.raw(event, call, opts, sink),
        }
        if let Some(text) = self.string.as_ref() {
            if text.len() > opts.limits.max_held_value {
                self.string = None;
                self.problem = Some(ArgsProblem::StringTooLong);
            }
        }
    }

    fn root<S: Sink>(
        &mut self,
        event: JsonEvent<'_>,
        call: &mut CallWriter,
        opts: &Options,
        sink: &mut S,
    ) {
        match event {
            JsonEvent::BeginObject => self.depth = 1,
            JsonEvent::BeginString if !self.decoding => self.string = Some(String::new()),
            JsonEvent::Text(text) if self.string.is_some() => {
                if let Some(s) = self.string.as_mut() {
                    s.push_str(text);
                }
            }
            JsonEvent::EndString if self.string.is_some() => self.decode_string(call, opts, sink),
            JsonEvent::Null => {
                self.note = Some(ArgsNote::NullAsEmpty);
                self.done = true;
            }
            JsonEvent::Lenient(_) => {}
            _ => self.problem = Some(ArgsProblem::NotAnObject),
        }
    }

    /// Decodes arguments given as a JSON string: the object it holds is
    /// read as if it had been written in place.
    fn decode_string<S: Sink>(&mut self, call: &mut CallWriter, opts: &Options, sink: &mut S) {
        let Some(text) = self.string.take() else {
            return;
        };
        self.decoding = true;
        let mut reader = JsonReader::default();
        let fed = reader.feed(&text, &mut |event| self.event(event, call, opts, sink));
        let whole = match fed {
            Ok(crate::json::reader::Fed::Done(n)) => text[n..].trim().is_empty(),
            _ => false,
        };
        if self.problem.is_none() && (!whole || !self.done) {
            self.problem = Some(ArgsProblem::BadString);
        }
        if self.problem.is_none() {
            self.note = Some(ArgsNote::DecodedString);
        }
    }

    fn top_level<S: Sink>(
        &mut self,
        event: JsonEvent<'_>,
        call: &mut CallWriter,
        opts: &Options,
        sink: &mut S,
    ) {
        if self.in_top_string {
            match event {
                JsonEvent::Text(text) => call.value_text(text, false, opts, sink),
                JsonEvent::EndString => {
                    self.in_top_string = false;
                    call.end_param(opts, sink);
                }
                _ => {}
            }
            return;
        }
        match event {
            JsonEvent::Key(key) => {
                self.key.clear();
                self.key.push_str(key);
            }
            JsonEvent::EndObject => {
                self.depth = 0;
                self.done = true;
            }
            JsonEvent::BeginString => {
                call.start_json_param(&self.key, true, opts, sink);
                self.in_top_string = true;
            }
            JsonEvent::BeginTextJson => {
                call.start_text_json_param(&self.key, opts, sink);
                self.in_top_string = true;
            }
            JsonEvent::Lenient(_) => {}
            value => {
                call.start_json_param(&self.key, false, opts, sink);
                self.raw(value, call, opts, sink);
            }
        }
    }

    /// An event inside a raw value (or the start of one).
    fn raw<S: Sink>(
        &mut self,
        event: JsonEvent<'_>,
        call: &mut CallWriter,
        opts: &Options,
        sink: &mut S,
    ) {
        match event {
            JsonEvent::Key(key) => {
                self.key.clear();
                self.key.push_str(key);
                return;
            }
            JsonEvent::Text(text) if self.holding() => {
                return self.hold_text(text, call, opts, sink);
            }
            JsonEvent::Text(text) => return escape_into(&mut self.out, text),
            JsonEvent::EndString if self.holding() => {
                self.write_held(call, opts, sink);
                return self.value_done(call, opts, sink);
            }
            JsonEvent::EndString => {
                self.out.push('"');
                self.in_raw_string = false;
                return self.value_done(call, opts, sink);
            }
            JsonEvent::EndObject | JsonEvent::EndArray => {
                if let Some(closer) = self.closers.pop() {
                    self.out.push(char::from(closer));
                }
                self.shapes.pop();
                self.indexes.pop();
                self.depth -= 1;
                self.first = false;
                return self.value_done(call, opts, sink);
            }
            JsonEvent::Lenient(_) => return,
            _ => {}
        }
        // A value starts: its separator and key first.
        let start = self.out.len();
        let shape = self.next_shape(call, opts);
        if self.depth > 1 {
            if !mem::replace(&mut self.first, false) {
                self.out.push_str(", ");
            }
            if self.closers.last() == Some(&b'}') {
                self.out.push('"');
                escape_into(&mut self.out, &self.key);
                self.out.push_str("\": ");
            }
        }
        match event {
            JsonEvent::BeginObject | JsonEvent::BeginArray => {
                let object = event == JsonEvent::BeginObject;
                self.out.push(if object { '{' } else { '[' });
                self.closers.push(if object { b'}' } else { b']' });
                self.shapes.push(shape);
                self.indexes.push(0);
                self.depth += 1;
                self.first = true;
            }
            JsonEvent::BeginString | JsonEvent::BeginTextJson
                if event == JsonEvent::BeginTextJson
                    || shape.is_some_and(|id| typed(call, id, opts)) =>
            {
                // Held with its key, so that what was written stays a
                // prefix of valid JSON.
                self.held = shape;
                self.held_json = event == JsonEvent::BeginTextJson;
                self.held_prefix.clear();
                self.held_prefix.push_str(&self.out[start..]);
                self.out.truncate(start);
                self.held_text.clear();
            }
            JsonEvent::BeginString => {
                self.out.push('"');
                self.in_raw_string = true;
            }
            JsonEvent::Number(number) => {
                self.out.push_str(number);
                self.value_done(call, opts, sink);
            }
            JsonEvent::Bool(b) => {
                self.out.push_str(if b { "true" } else { "false" });
                self.value_done(call, opts, sink);
            }
            JsonEvent::Null => {
                self.out.push_str("null");
                self.value_done(call, opts, sink);
            }
            _ => {}
        }
    }

    /// The shape of the value that starts: the parameter's own at the top,
    /// else its container's property or element (the index moves on).
    fn next_shape(&mut self, call: &CallWriter, opts: &Options) -> Option<ShapeId> {
        if self.depth <= 1 {
            return call.param_shape();
        }
        let index = self
            .indexes
            .last_mut()
            .map_or(0, |i| mem::replace(i, *i + 1));
        let parent = (*self.shapes.last()?)?;
        let shapes = call.shapes(opts)?;
        if self.closers.last() == Some(&b'}') {
            shapes.property(parent, &self.key)
        } else {
            shapes.element(parent, index)
        }
    }

    /// A piece of a held nested string; past `max_held_value` it is a
    /// string after all, written and streamed from there on.
    fn hold_text<S: Sink>(
        &mut self,
        text: &str,
        call: &mut CallWriter,
        opts: &Options,
        sink: &mut S,
    ) {
        self.held_text.push_str(text);
        if self.held_text.len() <= opts.limits.max_held_value {
            return;
        }
        let json = mem::take(&mut self.held_json);
        let types = self
            .held
            .take()
            .zip(call.shapes(opts))
            .map(|(id, shapes)| shapes.get(id).types)
            .unwrap_or(if json {
                TypeSet::JSON_NOT_STRING
            } else {
                TypeSet::default()
            });
        self.out.push_str(&self.held_prefix);
        self.out.push('"');
        escape_into(&mut self.out, &self.held_text);
        self.held_prefix.clear();
        self.held_text.clear();
        self.in_raw_string = true;
        self.flush(call, opts, sink);
        call.report_inner_too_long(types, opts, sink);
    }

    /// Writes the held nested string typed by its shape, and reports what
    /// could not be typed.
    fn write_held<S: Sink>(&mut self, call: &mut CallWriter, opts: &Options, sink: &mut S) {
        let json = mem::take(&mut self.held_json);
        let id = self.held.take();
        self.out.push_str(&self.held_prefix);
        self.held_prefix.clear();
        // The shape's types where the schema types the value; JSON written
        // as text is otherwise the JSON it is.
        let shape = id
            .zip(call.shapes(opts))
            .map(|(id, shapes)| ShapeRef { shapes, id })
            .filter(|shape| !json || shape.shapes.get(shape.id).is_typed());
        let types = match shape {
            Some(shape) => shape.shapes.get(shape.id).types,
            None if json => TypeSet::JSON_NOT_STRING,
            None => return,
        };
        let typed = coerce_shape_into(
            &self.held_text,
            types,
            shape,
            opts.python_literals,
            &mut self.out,
        );
        self.flush(call, opts, sink);
        if typed.outcome != Outcome::Typed {
            let own = Inner {
                outcome: typed.outcome,
                text: mem::take(&mut self.held_text),
                types,
            };
            call.report_inner(&own, sink);
        }
        if let Some(inner) = typed.inner {
            call.report_inner(&inner, sink);
        }
        self.held_text.clear();
    }

    /// Whether a nested string is being held to be typed.
    fn holding(&self) -> bool {
        self.held.is_some() || self.held_json
    }

    /// A raw value or element ended: at the top level, so did the
    /// parameter.
    fn value_done<S: Sink>(&mut self, call: &mut CallWriter, opts: &Options, sink: &mut S) {
        if self.depth == 1 {
            self.flush(call, opts, sink);
            call.end_param(opts, sink);
        }
    }
}

/// Whether a string of shape `id` is typed (held until it ends).
fn typed(call: &CallWriter, id: ShapeId, opts: &Options) -> bool {
    call.shapes(opts)
        .is_some_and(|shapes| shapes.get(id).is_typed())
}
