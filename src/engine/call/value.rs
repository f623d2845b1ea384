//! A parameter's value as the call writer reads it: where it comes from,
//! which decides how it is typed, and what is kept of it.

use crate::schema::{ShapeId, TypeSet};

/// The parameter value being read.
#[derive(Default)]
pub(crate) struct Value {
    /// A malformed shape's value: it ends at the next marker, whitespace
    /// around it is dropped.
    pub inline: bool,
    /// Whether any byte of the value has arrived.
    pub started: bool,
    /// Bytes emitted so far.
    pub(super) emitted: usize,
    /// Trailing bytes held back: a layout `\n` that a closer may still
    /// prove to be layout, or trailing whitespace of an inline value.
    pub tail: String,
    /// Where the value's JSON string starts in the call's arguments.
    pub(super) json_start: usize,
    /// Whether a closer kept as value text was reported already.
    pub closer_reported: bool,
    /// Whether the value text so far ends a line (or has not begun).
    pub(super) line_start: bool,
    /// Whether the value is held to be typed when it ends.
    pub(super) holding: bool,
    /// Whether the value is raw JSON (no quotes of ours around it).
    pub(super) raw: bool,
    /// Whether a raw section (`Role::RawOpen`) of the value is open.
    pub raw_section: bool,
    /// The types its schema allows (`EMPTY` with `Typing::Infer` and no
    /// schema: inferred).
    pub(super) types: TypeSet,
    /// Its shape in the tool's schema: what is typed inside it.
    pub(super) shape: Option<ShapeId>,
    /// The held value's text.
    pub(super) held: String,
    /// The value's JSON, kept to choose the tool's branch by.
    pub(super) probe: Probe,
}

/// A value's JSON as written, kept while it may still equal a `const` that
/// chooses among the tool's root `anyOf`/`oneOf` branches.
#[derive(Default)]
pub(super) struct Probe {
    pub(super) json: String,
    /// How long `json` may grow; 0 when the value is not kept.
    pub(super) room: usize,
}

impl Value {
    /// A parameter's value begins: nothing of it written yet.
    pub(super) fn open(&mut self, inline: bool) {
        self.inline = inline;
        self.started = false;
        self.emitted = 0;
        self.tail.clear();
        self.closer_reported = false;
        self.line_start = true;
        self.raw_section = false;
    }
}

impl Probe {
    /// Keeps a piece of the value's JSON, if it is being kept; a value
    /// longer than any `const` it could equal is dropped.
    #[inline]
    pub(super) fn keep(&mut self, json: &str) {
        if self.room == 0 {
            return;
        }
        if self.json.len() + json.len() > self.room {
            self.room = 0;
            return;
        }
        self.json.push_str(json);
    }
}

/// Where a parameter's value comes from, which decides how it is typed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ValueKind {
    /// Marked-up text: the schema ladder, or inference without a schema.
    Text,
    /// Marked-up text that the format says is JSON (DSML's
    /// `string="false"`): the schema ladder, or the JSON it is without a
    /// schema.
    TextJson,
    /// Marked-up text whose type the call wrote beside it (K2-Horizon's
    /// `<ifm|arg_type>`): the schema ladder, or these types without a
    /// schema.
    TextTyped(TypeSet),
    /// A JSON string: the schema ladder; a string without a schema.
    JsonString,
    /// Any other JSON value: written as it is.
    JsonRaw,
}
