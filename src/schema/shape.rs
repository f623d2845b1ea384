//! The shape of a value at every depth: the types a schema allows for it,
//! the members of its `enum`/`const`, and the shapes of what it holds
//! (`properties`, `additionalProperties`, `items`, `prefixItems`).
//!
//! A tool's shapes are read once, with the tools, into one table; a value
//! refers to its shape by index. A shape is read from the list of schema
//! fragments that apply to the value: `allOf` parts, `$ref` targets and
//! `anyOf`/`oneOf` branches all add theirs (a branch's properties may be
//! given, so a nested value gets the union of what the branches allow,
//! as a top-level parameter's `anyOf` gives the union of its types). The
//! same list of fragments is one shape, so recursive schemas (a tree whose
//! `children` are `$ref: "#"`) make a finite table; a bound on its size
//! leaves what lies beyond untyped.

use std::collections::HashMap;

use serde_json::Value;

use super::{NameMap, TypeSet};

/// Shapes read at most per tool; deeper or wider schemas go untyped there.
const MAX_SHAPES: usize = 1024;
/// Fragments gathered at most for one shape (through `$ref`s, `allOf`s
/// and branches).
const MAX_FRAGMENTS: usize = 256;
/// Nesting of shapes followed at most.
const MAX_DEPTH: usize = 32;

/// An index into a tool's [`Shapes`].
pub(crate) type ShapeId = u32;

/// What a schema says about one value.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Shape {
    /// The types allowed, as [`TypeSet::from_schema`] reads them.
    pub types: TypeSet,
    /// The values of its `enum`s and `const`s; empty when it has none.
    members: Vec<Value>,
    properties: NameMap<ShapeId>,
    additional: Option<ShapeId>,
    items: Option<ShapeId>,
    prefix_items: Vec<ShapeId>,
}

impl Shape {
    /// Whether text for this value may become something else than a JSON
    /// string: then it is held until it ends and typed.
    pub(crate) fn is_typed(&self) -> bool {
        !self.types.is_string_only()
    }

    /// Whether some value inside it has a shape of its own.
    pub(crate) fn has_children(&self) -> bool {
        !self.properties.is_empty()
            || self.additional.is_some()
            || self.items.is_some()
            || !self.prefix_items.is_empty()
    }

    /// The string member of its `enum`/`const` equal to `text`, if there
    /// is one: the ladder alone would read `7` as the integer even where
    /// `"7"` is the member. (A text equal to a number, boolean or null
    /// member's text needs no rule: the ladder makes it that value.)
    pub(crate) fn member_for(&self, text: &str) -> Option<&Value> {
        self.members
            .iter()
            .find(|m| m.as_str().is_some_and(|s| s == text))
    }
}

/// The shapes of one tool's values.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Shapes {
    shapes: Vec<Shape>,
}

impl Shapes {
    pub(crate) fn get(&self, id: ShapeId) -> &Shape {
        &self.shapes[id as usize]
    }

    /// The shape of the value under `key` in an object of shape `parent`.
    pub(crate) fn property(&self, parent: ShapeId, key: &str) -> Option<ShapeId> {
        let parent = self.get(parent);
        parent.properties.get(key).copied().or(parent.additional)
    }

    /// The shape of element `index` of an array of shape `parent`.
    pub(crate) fn element(&self, parent: ShapeId, index: usize) -> Option<ShapeId> {
        let parent = self.get(parent);
        parent.prefix_items.get(index).copied().or(parent.items)
    }
}

/// Reads shapes from schema fragments of one tool's `parameters`.
pub(crate) struct ShapeReader<'a> {
    root: &'a Value,
    shapes: Vec<Shape>,
    /// The shape of each list of fragments already read (addresses,
    /// sorted), so that a schema met again is the same shape.
    known: HashMap<Vec<usize>, ShapeId>,
}

impl<'a> ShapeReader<'a> {
    pub(crate) fn new(root: &'a Value) -> ShapeReader<'a> {
        ShapeReader {
            root,
            shapes: Vec::new(),
            known: HashMap::new(),
        }
    }

    pub(crate) fn finish(self) -> Shapes {
        Shapes {
            shapes: self.shapes,
        }
    }

    /// The shape of a value every one of `fragments` describes in part.
    pub(crate) fn read(&mut self, fragments: &[&'a Value]) -> Option<ShapeId> {
        self.read_at(fragments, 0)
    }

    fn read_at(&mut self, fragments: &[&'a Value], depth: usize) -> Option<ShapeId> {
        if fragments.is_empty() || depth > MAX_DEPTH {
            return None;
        }
        let mut key: Vec<usize> = fragments.iter().map(|f| address(f)).collect();
        key.sort_unstable();
        key.dedup();
        if let Some(&id) = self.known.get(&key) {
            return Some(id);
        }
        if self.shapes.len() >= MAX_SHAPES {
            return None;
        }
        let id = ShapeId::try_from(self.shapes.len()).ok()?;
        self.shapes.push(Shape::default());
        self.known.insert(key, id);

        let mut types = TypeSet::EMPTY;
        for fragment in fragments {
            types = types.union(TypeSet::from_schema(fragment, Some(self.root)));
        }
        let mut parts = Vec::new();
        for fragment in fragments {
            self.flatten(fragment, &mut parts);
        }
        let mut members = Vec::new();
        let mut properties: Vec<(&'a String, Vec<&'a Value>)> = Vec::new();
        let mut additional = Vec::new();
        let mut items = Vec::new();
        let mut prefix_items: Vec<Vec<&'a Value>> = Vec::new();
        for part in &parts {
            if let Some(Value::Array(values)) = part.get("enum") {
                members.extend(values.iter().cloned());
            }
            if let Some(value) = part.get("const") {
                members.push(value.clone());
            }
            if let Some(Value::Object(declared)) = part.get("properties") {
                for (name, schema) in declared {
                    match properties.iter_mut().find(|(n, _)| *n == name) {
                        Some((_, list)) => list.push(schema),
                        None => properties.push((name, vec![schema])),
                    }
                }
            }
            if let Some(schema @ Value::Object(_)) = part.get("additionalProperties") {
                additional.push(schema);
            }
            match part.get("items") {
                Some(schema @ Value::Object(_)) => items.push(schema),
                // Draft 4's tuple form: the schemas of the first elements.
                Some(Value::Array(tuple)) => add_prefix(&mut prefix_items, tuple),
                _ => {}
            }
            if let Some(Value::Array(tuple)) = part.get("prefixItems") {
                add_prefix(&mut prefix_items, tuple);
            }
        }
        let mut shape = Shape {
            types,
            members,
            ..Shape::default()
        };
        for (name, list) in properties {
            if let Some(child) = self.read_at(&list, depth + 1) {
                shape.properties.insert(name.clone(), child);
            }
        }
        shape.additional = self.read_at(&additional, depth + 1);
        shape.items = self.read_at(&items, depth + 1);
        for list in prefix_items {
            match self.read_at(&list, depth + 1) {
                Some(child) => shape.prefix_items.push(child),
                None => break,
            }
        }
        self.shapes[id as usize] = shape;
        Some(id)
    }

    /// The object schemas `schema` stands for: itself, its `allOf` parts,
    /// its `$ref` target and its `anyOf`/`oneOf` branches, recursively.
    fn flatten(&self, schema: &'a Value, into: &mut Vec<&'a Value>) {
        let Some(object) = schema.as_object() else {
            return;
        };
        if into.len() >= MAX_FRAGMENTS || into.iter().any(|s| address(s) == address(schema)) {
            return;
        }
        into.push(schema);
        for field in ["allOf", "anyOf", "oneOf"] {
            if let Some(Value::Array(parts)) = object.get(field) {
                for part in parts {
                    self.flatten(part, into);
                }
            }
        }
        let target = object
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix('#'))
            .and_then(|pointer| self.root.pointer(pointer));
        if let Some(target) = target {
            self.flatten(target, into);
        }
    }
}

fn add_prefix<'a>(lists: &mut Vec<Vec<&'a Value>>, tuple: &'a [Value]) {
    for (i, schema) in tuple.iter().enumerate() {
        if lists.len() <= i {
            lists.push(Vec::new());
        }
        lists[i].push(schema);
    }
}

/// Where a schema node is, to know it again.
fn address(node: &Value) -> usize {
    node as *const Value as usize
}
