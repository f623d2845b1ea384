//! The one rule that types a value at every depth, whatever format wrote it:
//! a string whose shape allows another type goes through the ladder (after
//! its `enum` members), and an object or an array has the strings inside it
//! typed by the shapes of its properties and elements. Other values
//! (numbers, booleans, null) stay as written.
//!
//! Marked-up text (an XML parameter holding `["1", 2]`) and JSON strings go
//! through [`coerce_shape_into`]; the JSON readers' streaming writer
//! (`engine::body::args`) applies the same function to each nested string it
//! holds, and descends the shapes itself as the containers open.

use super::shape::{ShapeId, Shapes};
use super::{coerce_into, Outcome, TypeSet};

/// JSON nesting followed at most when typing inside a value; deeper
/// values are copied as written.
const MAX_NESTING: usize = 64;

/// A value inside another that could not be typed as its shape says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Inner {
    /// What the ladder made of it (never `Typed`).
    pub outcome: Outcome,
    /// Its text.
    pub text: String,
    /// The types its shape allows.
    pub types: TypeSet,
}

/// What typing a value made of it: the value's own outcome, and the first
/// value inside it that was not typed cleanly, if one was not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Typed {
    pub outcome: Outcome,
    pub inner: Option<Inner>,
}

/// Where typing looks up shapes: a tool's table and the value's shape in
/// it (`None`: the value has no schema beyond `types`).
#[derive(Clone, Copy)]
pub(crate) struct ShapeRef<'a> {
    pub shapes: &'a Shapes,
    pub id: ShapeId,
}

/// Writes `text` as JSON of one of `types` (the value's own types, which
/// root branches may have narrowed) to `out`, then types what an object
/// or array holds by `shape`. A text equal to one of the shape's `enum`
/// or `const` members is that member.
pub(crate) fn coerce_shape_into(
    text: &str,
    types: TypeSet,
    shape: Option<ShapeRef<'_>>,
    python_literals: bool,
    out: &mut String,
) -> Typed {
    let mut typed = Typed {
        outcome: Outcome::Typed,
        inner: None,
    };
    coerce_at(text, types, shape, python_literals, out, &mut typed, 0);
    typed
}

fn coerce_at(
    text: &str,
    types: TypeSet,
    shape: Option<ShapeRef<'_>>,
    python_literals: bool,
    out: &mut String,
    typed: &mut Typed,
    nesting: usize,
) {
    if let Some(shape) = shape {
        if !types.is_string_only() {
            if let Some(member) = shapes_member(shape, text) {
                out.push_str(&member);
                typed.outcome = Outcome::Typed;
                return;
            }
        }
    }
    let mark = out.len();
    typed.outcome = coerce_into(text, types, python_literals, out);
    let Some(shape) = shape else {
        return;
    };
    let written = &out[mark..];
    let container = written.starts_with('{') || written.starts_with('[');
    if !container || !shape.shapes.get(shape.id).has_children() || nesting >= MAX_NESTING {
        return;
    }
    let json = out.split_off(mark);
    let mut walk = Walk {
        text: &json,
        at: 0,
        shapes: shape.shapes,
        python_literals,
        inner: typed.inner.take(),
    };
    walk.value(Some(shape.id), out, nesting);
    typed.inner = walk.inner;
}

fn shapes_member(shape: ShapeRef<'_>, text: &str) -> Option<String> {
    shape
        .shapes
        .get(shape.id)
        .member_for(text)
        .map(|member| member.to_string())
}

/// A walk over one valid JSON text, copying it to `out` with its nested
/// strings typed by their shapes: spacing, key order and digits stay.
struct Walk<'t, 's> {
    text: &'t str,
    at: usize,
    shapes: &'s Shapes,
    python_literals: bool,
    inner: Option<Inner>,
}

impl Walk<'_, '_> {
    fn byte(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn space(&mut self, out: &mut String) {
        let start = self.at;
        while matches!(self.byte(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
        out.push_str(&self.text[start..self.at]);
    }

    /// Copies one punctuation byte (`:`, `,`, a closer).
    fn punct(&mut self, out: &mut String) {
        if let Some(b) = self.byte() {
            out.push(char::from(b));
            self.at += 1;
        }
    }

    fn value(&mut self, shape: Option<ShapeId>, out: &mut String, nesting: usize) {
        self.space(out);
        let Some(shape) = shape.filter(|_| nesting < MAX_NESTING) else {
            return self.copy_value(out);
        };
        match self.byte() {
            Some(b'{') => self.object(shape, out, nesting),
            Some(b'[') => self.array(shape, out, nesting),
            Some(b'"') => self.string(shape, out, nesting),
            _ => self.copy_value(out),
        }
        self.space(out);
    }

    fn object(&mut self, shape: ShapeId, out: &mut String, nesting: usize) {
        self.punct(out);
        loop {
            self.space(out);
            if matches!(self.byte(), Some(b'}') | None) {
                return self.punct(out);
            }
            let key_start = self.at;
            self.skip_string();
            let key_text = &self.text[key_start..self.at];
            out.push_str(key_text);
            let key: String = serde_json::from_str(key_text).unwrap_or_default();
            self.space(out);
            self.punct(out); // `:`
            let child = self.shapes.property(shape, &key);
            self.value(child, out, nesting + 1);
            if self.byte() == Some(b',') {
                self.punct(out);
            }
        }
    }

    fn array(&mut self, shape: ShapeId, out: &mut String, nesting: usize) {
        self.punct(out);
        let mut index = 0;
        loop {
            self.space(out);
            if matches!(self.byte(), Some(b']') | None) {
                return self.punct(out);
            }
            let child = self.shapes.element(shape, index);
            self.value(child, out, nesting + 1);
            index += 1;
            if self.byte() == Some(b',') {
                self.punct(out);
            }
        }
    }

    fn string(&mut self, shape: ShapeId, out: &mut String, nesting: usize) {
        let start = self.at;
        self.skip_string();
        let written = &self.text[start..self.at];
        let types = self.shapes.get(shape).types;
        if types.is_string_only() {
            return out.push_str(written);
        }
        let Ok(text) = serde_json::from_str::<String>(written) else {
            return out.push_str(written);
        };
        let mut typed = Typed {
            outcome: Outcome::Typed,
            inner: self.inner.take(),
        };
        let shape = Some(ShapeRef {
            shapes: self.shapes,
            id: shape,
        });
        coerce_at(
            &text,
            types,
            shape,
            self.python_literals,
            out,
            &mut typed,
            nesting,
        );
        self.inner = typed.inner;
        if typed.outcome != Outcome::Typed && self.inner.is_none() {
            self.inner = Some(Inner {
                outcome: typed.outcome,
                text,
                types,
            });
        }
    }

    /// Moves past a string token (its quotes included).
    fn skip_string(&mut self) {
        let bytes = self.text.as_bytes();
        self.at += 1;
        while let Some(&b) = bytes.get(self.at) {
            self.at += 1;
            match b {
                b'\\' => self.at += 1,
                b'"' => return,
                _ => {}
            }
        }
    }

    /// Copies a value with no shape, as written, without recursion.
    fn copy_value(&mut self, out: &mut String) {
        let start = self.at;
        let mut depth = 0usize;
        while let Some(b) = self.byte() {
            match b {
                b'"' => self.skip_string(),
                b'{' | b'[' => {
                    depth += 1;
                    self.at += 1;
                }
                b'}' | b']' | b',' if depth == 0 => break,
                b'}' | b']' => {
                    depth -= 1;
                    self.at += 1;
                    if depth == 0 {
                        break;
                    }
                }
                b' ' | b'\t' | b'\n' | b'\r' if depth == 0 => break,
                _ => self.at += 1,
            }
        }
        out.push_str(&self.text[start..self.at.min(self.text.len())]);
    }
}
