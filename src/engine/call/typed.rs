//! Typing values: which types a parameter's schema allows, holding a
//! value that may become another type until it ends, writing it typed
//! (the schema ladder), and what a call's schema requires.

use std::mem;

use super::value::ValueKind;
use super::CallWriter;
use crate::event::{DiagnosticKind as Kind, Event};
use crate::json::escape_into;
use crate::options::Options;
use crate::schema::{
    coerce_shape_into, infer_into, Inner, Outcome, ShapeId, ShapeRef, Shapes, TypeSet, Typed,
    Typing,
};
use crate::sink::{diagnostic, Sink};

/// The size of the pieces a held value that passed its bound is written
/// in.
const SPILL_PIECE: usize = 4096;

/// A value in a diagnostic: quoted, and cut short when long.
struct Shown<'a>(&'a str);

impl std::fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const MOST: usize = 40;
        match self.0.char_indices().nth(MOST) {
            None => write!(f, "{:?}", self.0),
            Some((cut, _)) => write!(f, "{:?}…", &self.0[..cut]),
        }
    }
}

impl CallWriter {
    /// Whether parameter `name`'s value is held to be typed, and the types
    /// its schema allows; reports a parameter the schema does not declare.
    pub(super) fn value_types<S: Sink>(
        &mut self,
        name: &str,
        kind: ValueKind,
        opts: &Options,
        sink: &mut S,
    ) -> (bool, TypeSet) {
        self.value.probe.room = 0;
        self.value.shape = None;
        if opts.typing == Typing::Strings {
            return (false, TypeSet::STRING);
        }
        let schema = opts.tools.as_deref().and_then(|t| t.schema(&self.name));
        if let Some(schema) = schema {
            self.value.probe.room = schema.probe_room(name);
            self.value.shape = schema.shape_in(name, self.candidates);
        }
        let types = match schema {
            Some(schema) => match schema.param_in(name, self.candidates) {
                Some(types) => Some(types),
                None => {
                    if schema.declares_properties() {
                        // A value the format says is JSON stays the JSON it
                        // is; others are strings.
                        if let ValueKind::TextTyped(types) = kind {
                            return (!types.is_string_only(), types);
                        }
                        let json = kind == ValueKind::TextJson;
                        let index = self.current();
                        diagnostic(
                            sink,
                            &mut self.message,
                            Kind::UnknownParameter,
                            index,
                            format_args!(
                                "call `{}` gives parameter `{name}`, which its tool does not \
                                 declare; its value is {}",
                                self.name,
                                if json { "the JSON it is" } else { "a string" }
                            ),
                        );
                        if json {
                            return (true, TypeSet::JSON_NOT_STRING);
                        }
                        return (false, TypeSet::STRING);
                    }
                    None
                }
            },
            None => None,
        };
        match types {
            _ if kind == ValueKind::JsonRaw => (false, TypeSet::EMPTY),
            // The written type picks among the schema's (a union), as
            // vLLM's k2_horizon does; the schema's otherwise.
            Some(types) => match kind {
                ValueKind::TextTyped(written) if !written.is_empty() && types.contains(written) => {
                    (!written.is_string_only(), written)
                }
                _ => (!types.is_string_only(), types),
            },
            None if opts.typing == Typing::Infer && kind == ValueKind::Text => {
                (true, TypeSet::EMPTY)
            }
            // Any JSON but a string: text that is not JSON is reported.
            None if kind == ValueKind::TextJson => (true, TypeSet::JSON_NOT_STRING),
            None => match kind {
                ValueKind::TextTyped(types) => (!types.is_string_only(), types),
                _ => (false, TypeSet::STRING),
            },
        }
    }

    /// A piece of a held value: streamed raw for UIs, kept for typing;
    /// past the bound, the value is a string after all.
    #[inline(never)]
    pub(super) fn hold_value<S: Sink>(&mut self, piece: &str, opts: &Options, sink: &mut S) {
        let index = self.calls - 1;
        let max = opts.limits.max_held_value;
        if self.value.held.len() + piece.len() <= max {
            self.value.held.push_str(piece);
            sink.event(Event::ParameterDelta { index, text: piece });
            return;
        }
        diagnostic(
            sink,
            &mut self.message,
            Kind::LimitExceeded,
            Some(index),
            format_args!(
                "the value of `{}` in call `{}` passed {max} bytes (`max_held_value`) \
                 before it ended, so it could not be typed ({}): it is a string",
                self.param, self.name, self.value.types
            ),
        );
        self.value.holding = false;
        let held = mem::take(&mut self.value.held);
        sink.event(Event::ArgumentsDelta { index, delta: "\"" });
        if opts.retain_arguments {
            self.args.push('"');
        }
        self.value.probe.keep("\"");
        // Escaped in pieces, so that the spill needs no second copy of the
        // held text.
        let mut rest = held.as_str();
        while !rest.is_empty() {
            let mut cut = rest.len().min(SPILL_PIECE);
            while !rest.is_char_boundary(cut) {
                cut -= 1;
            }
            let (piece, tail) = rest.split_at(cut);
            self.scratch.clear();
            escape_into(&mut self.scratch, piece);
            sink.event(Event::ArgumentsDelta {
                index,
                delta: &self.scratch,
            });
            if opts.retain_arguments {
                self.args.push_str(&self.scratch);
            }
            self.value.probe.keep(&self.scratch);
            rest = tail;
        }
        self.value.emitted += held.len();
        self.value.held = held;
        self.value.held.clear();
        self.emit_value(piece, opts, sink);
    }

    /// Writes the held value, typed.
    #[inline(never)]
    pub(super) fn write_held<S: Sink>(&mut self, opts: &Options, sink: &mut S) {
        let index = self.calls - 1;
        self.value.holding = false;
        let text = self.value.held.as_str();
        self.scratch.clear();
        let typed = if self.value.types.is_empty() {
            infer_into(text, &mut self.scratch);
            Typed {
                outcome: Outcome::Typed,
                inner: None,
            }
        } else {
            let shape = self
                .value
                .shape
                .zip(self.shapes(opts))
                .map(|(id, shapes)| ShapeRef { shapes, id });
            coerce_shape_into(
                text,
                self.value.types,
                shape,
                opts.python_literals,
                &mut self.scratch,
            )
        };
        let outcome = typed.outcome;
        sink.event(Event::ArgumentsDelta {
            index,
            delta: &self.scratch,
        });
        if opts.retain_arguments {
            self.args.push_str(&self.scratch);
        }
        self.value.probe.keep(&self.scratch);
        let shown = Shown(text);
        match outcome {
            Outcome::Typed => {}
            Outcome::Lenient(what) => diagnostic(
                sink,
                &mut self.message,
                Kind::LenientValue,
                Some(index),
                format_args!(
                    "the value {shown} of `{}` in call `{}` was read as a {what} ({})",
                    self.param, self.name, self.value.types
                ),
            ),
            Outcome::JsonOutsideTypes => diagnostic(
                sink,
                &mut self.message,
                Kind::InvalidValue,
                Some(index),
                format_args!(
                    "the value {shown} of `{}` in call `{}` is not {}; it is kept as the JSON \
                     it is (as vLLM)",
                    self.param, self.name, self.value.types
                ),
            ),
            Outcome::Invalid => diagnostic(
                sink,
                &mut self.message,
                Kind::InvalidValue,
                Some(index),
                format_args!(
                    "the value {shown} of `{}` in call `{}` is not {}; it is kept as a string",
                    self.param, self.name, self.value.types
                ),
            ),
        }
        if let Some(inner) = typed.inner {
            self.report_inner(&inner, sink);
        }
    }

    /// Reports a value inside the open parameter's value that its shape
    /// could not type cleanly.
    pub(crate) fn report_inner<S: Sink>(&mut self, inner: &Inner, sink: &mut S) {
        let index = self.current();
        let shown = Shown(&inner.text);
        let (kind, what) = match inner.outcome {
            Outcome::Typed => return,
            Outcome::Lenient(what) => (Kind::LenientValue, format!("was read as a {what}")),
            Outcome::JsonOutsideTypes => (
                Kind::InvalidValue,
                format!(
                    "is not {}; it is kept as the JSON it is (as vLLM)",
                    inner.types
                ),
            ),
            Outcome::Invalid => (
                Kind::InvalidValue,
                format!("is not {}; it is kept as a string", inner.types),
            ),
        };
        diagnostic(
            sink,
            &mut self.message,
            kind,
            index,
            format_args!(
                "the value {shown} inside `{}` in call `{}` {what}",
                self.param, self.name
            ),
        );
    }

    /// Reports a string inside the open parameter's value that passed
    /// `max_held_value` before it ended: it stays a string.
    pub(crate) fn report_inner_too_long<S: Sink>(
        &mut self,
        types: TypeSet,
        opts: &Options,
        sink: &mut S,
    ) {
        let index = self.current();
        let max = opts.limits.max_held_value;
        diagnostic(
            sink,
            &mut self.message,
            Kind::LimitExceeded,
            index,
            format_args!(
                "a value inside `{}` in call `{}` passed {max} bytes (`max_held_value`) \
                 before it ended, so it could not be typed ({types}): it is a string",
                self.param, self.name
            ),
        );
    }

    /// The shapes of the open call's tool's values.
    pub(crate) fn shapes<'o>(&self, opts: &'o Options) -> Option<&'o Shapes> {
        Some(opts.tools.as_deref()?.schema(&self.name)?.shapes())
    }

    /// The open parameter's shape (in [`shapes`](CallWriter::shapes)).
    pub(crate) fn param_shape(&self) -> Option<ShapeId> {
        self.value.shape
    }

    /// Narrows the branches the open call may be in by the value just
    /// ended, when it was kept for that (see [`Probe`](super::value::Probe)).
    pub(super) fn narrow_branches(&mut self, opts: &Options) {
        if mem::take(&mut self.value.probe.room) == 0 {
            return;
        }
        let Some(schema) = opts.tools.as_deref().and_then(|t| t.schema(&self.name)) else {
            return;
        };
        if let Ok(value) = serde_json::from_str(&self.value.probe.json) {
            self.candidates = schema.narrow(&self.param, &value, self.candidates);
        }
    }

    /// Reports the required parameters the open call lacks.
    pub(super) fn check_required<S: Sink>(&mut self, opts: &Options, sink: &mut S) {
        let Some(schema) = opts.tools.as_deref().and_then(|t| t.schema(&self.name)) else {
            return;
        };
        let index = self.current();
        for required in schema.required_in(self.candidates) {
            if !self.has_param(required) {
                diagnostic(
                    sink,
                    &mut self.message,
                    Kind::MissingRequired,
                    index,
                    format_args!(
                        "call `{}` lacks `{required}`, which its tool requires",
                        self.name
                    ),
                );
            }
        }
    }
}
