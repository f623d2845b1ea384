//! A tool's parameters as a whole: the properties its `parameters` declare
//! at the root, and the branches of an `anyOf`/`oneOf` there, which a call
//! narrows by the `const` values it gives.
//!
//! Branches are kept apart, not merged, because a tagged union
//! (`{"oneOf": [{"properties": {"action": {"const": "add"}, "x": {"type":
//! "integer"}}}, {"properties": {"action": {"const": "remove"}, "x":
//! {"type": "string"}}}]}`) may give one name different types. Until the
//! call's `action` has been given, a parameter has the types of every
//! branch that may still apply; once it has, those of the branches whose
//! `const` it matched. Narrowing needs only a bit set per call, so a
//! streamed call keeps no more than that.

use std::collections::{HashMap, HashSet};

use std::mem;

use serde_json::Value;

use super::shape::{ShapeId, ShapeReader, Shapes};
use super::{Budget, NameMap, TypeSet, SCHEMA_DEPTH_LIMIT, SCHEMA_VISIT_BUDGET};

#[cfg(test)]
mod tests;

/// Branches told apart at most, a bit each in [`Candidates`]; a root with
/// more is read as one table, the union of all of them.
const MAX_BRANCHES: usize = 64;

/// `$ref` hops followed to find a property's `const`.
const CONST_REF_HOPS: usize = 8;

/// The branches of a tool's root `anyOf`/`oneOf` a call may still be in,
/// a bit each. Never empty: a value no branch accepts narrows nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Candidates(u64);

impl Candidates {
    /// Every branch: nothing is known yet.
    pub(crate) const ALL: Candidates = Candidates(u64::MAX);

    fn has(self, branch: usize) -> bool {
        branch < MAX_BRANCHES && self.0 >> branch & 1 == 1
    }
}

/// The parameters one tool declares, read once when the tools are.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ParamTable {
    /// What the root declares for every call (its `properties`, and those
    /// of its `allOf` and `$ref`).
    shared: NameMap<TypeSet>,
    /// The root `anyOf`/`oneOf` branches (both lists, one after the other).
    branches: Vec<Branch>,
    /// Whether any `properties` were found (possibly none in them).
    declares_properties: bool,
    /// The longest JSON text a value equal to one of the branches' `const`s
    /// is expected to take; a longer value is not kept to compare.
    probe_room: usize,
    /// The shapes of the values, at every depth.
    shapes: Shapes,
    /// Each root property's shape: as the root declares it, and as the
    /// root and every branch together do (for a call whose branch is not
    /// known).
    shared_shapes: NameMap<ShapeId>,
    all_shapes: NameMap<ShapeId>,
}

/// One branch of the root `anyOf`/`oneOf`.
#[derive(Clone, Debug, Default, PartialEq)]
struct Branch {
    params: NameMap<TypeSet>,
    /// The properties whose schema is one value (`const`, or an `enum` of
    /// one), and that value: what tells this branch from the others.
    consts: Vec<(String, Value)>,
    required: Vec<String>,
    /// The shapes of the properties the branch declares.
    shapes: NameMap<ShapeId>,
}

/// How much of a schema applies to the branch being read.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Reach {
    /// The root of `parameters`: its `anyOf`/`oneOf` make branches.
    Root,
    /// Every value of the branch: its `const`s and `required` count.
    Always,
    /// One choice inside a branch: its properties may be given, nothing
    /// more is known.
    Maybe,
}

impl ParamTable {
    /// Reads a tool's `parameters` (a JSON object). Parts that are not what
    /// JSON Schema says they are (a `properties` that is not an object) are
    /// skipped; the caller reports the root's own. The walk shares
    /// [`TypeSet::from_schema`]'s bounds, so `$ref` cycles end.
    pub(crate) fn read(parameters: &Value) -> ParamTable {
        let mut reader = Reader {
            root: parameters,
            budget: Reader::fresh_budget(),
            seen: HashSet::new(),
            types: HashMap::new(),
            branches: Vec::new(),
            declares_properties: false,
            fragments: Fragments::new(),
            branch_fragments: Vec::new(),
        };
        let mut shared = Branch::default();
        reader.collect(parameters, Reach::Root, &mut shared);
        let mut branches = reader.branches;
        let mut shared_fragments = reader.fragments;
        let mut branch_fragments = reader.branch_fragments;
        if branches.len() > MAX_BRANCHES {
            // Too many to tell apart: every name gets what any branch gives.
            for branch in branches.drain(..) {
                for (name, types) in branch.params {
                    add(&mut shared.params, name, types);
                }
            }
            for fragments in branch_fragments.drain(..) {
                for (name, list) in fragments {
                    shared_fragments.entry(name).or_default().extend(list);
                }
            }
        }
        let mut shape_reader = ShapeReader::new(parameters);
        let mut all_fragments = shared_fragments.clone();
        for fragments in &branch_fragments {
            for (name, list) in fragments {
                all_fragments.entry(name.clone()).or_default().extend(list);
            }
        }
        let shared_shapes = read_shapes(&mut shape_reader, &shared_fragments);
        let all_shapes = read_shapes(&mut shape_reader, &all_fragments);
        for (branch, fragments) in branches.iter_mut().zip(&branch_fragments) {
            branch.shapes = read_shapes(&mut shape_reader, fragments);
        }
        let probe_room = branches
            .iter()
            .flat_map(|b| &b.consts)
            .map(|(_, value)| value.to_string().len())
            .max()
            .unwrap_or(0);
        ParamTable {
            shared: shared.params,
            branches,
            declares_properties: reader.declares_properties,
            // Room for escapes the writer may spell longer (`\u00e9`).
            probe_room: probe_room.saturating_mul(6).saturating_add(8),
            shapes: shape_reader.finish(),
            shared_shapes,
            all_shapes,
        }
    }

    /// The shapes of the tool's values.
    pub(crate) fn shapes(&self) -> &Shapes {
        &self.shapes
    }

    /// The shape of parameter `name` in a call that may be in
    /// `candidates`: the one shape every candidate branch gives it (its
    /// own, else the root's), else the union of them all.
    pub(crate) fn shape(&self, name: &str, candidates: Candidates) -> Option<ShapeId> {
        let shared = self.shared_shapes.get(name).copied();
        if self.branches.is_empty() {
            return shared;
        }
        let mut chosen: Option<ShapeId> = None;
        for (i, branch) in self.branches.iter().enumerate() {
            if !candidates.has(i) {
                continue;
            }
            let Some(id) = branch.shapes.get(name).copied().or(shared) else {
                continue;
            };
            match chosen {
                None => chosen = Some(id),
                Some(other) if other != id => return self.all_shapes.get(name).copied(),
                Some(_) => {}
            }
        }
        chosen.or_else(|| self.all_shapes.get(name).copied())
    }

    /// Whether any `properties` were declared. Without them any parameter
    /// name is acceptable.
    pub(crate) fn declares_properties(&self) -> bool {
        self.declares_properties
    }

    /// Whether `name` is declared at the root or in any branch.
    pub(crate) fn contains(&self, name: &str) -> bool {
        self.shared.contains_key(name) || self.branches.iter().any(|b| b.params.contains_key(name))
    }

    /// The types parameter `name` accepts in a call that may be in
    /// `candidates`: the union, over those branches, of the branch's own
    /// types for it, else the root's. A name only branches outside
    /// `candidates` declare gets theirs (the model left the branch it
    /// chose; the tool still declares the name). `None` when undeclared.
    pub(crate) fn types(&self, name: &str, candidates: Candidates) -> Option<TypeSet> {
        let shared = self.shared.get(name).copied();
        if self.branches.is_empty() {
            return shared;
        }
        let within = |candidates: Candidates| {
            let mut found: Option<TypeSet> = None;
            for (i, branch) in self.branches.iter().enumerate() {
                if !candidates.has(i) {
                    continue;
                }
                if let Some(types) = branch.params.get(name).copied().or(shared) {
                    found = Some(found.unwrap_or_default().union(types));
                }
            }
            found
        };
        within(candidates).or_else(|| within(Candidates::ALL))
    }

    /// The bytes of JSON to keep of parameter `name`'s value to narrow
    /// the branches by when it ends; 0 when it tells no branch apart.
    pub(crate) fn probe_room(&self, name: &str) -> usize {
        let tells = self
            .branches
            .iter()
            .any(|b| b.consts.iter().any(|(param, _)| param == name));
        if tells {
            self.probe_room
        } else {
            0
        }
    }

    /// The branches of `candidates` that `value`, given for `name`, fits:
    /// those with no `const` for `name` and those whose `const` it equals.
    /// When it fits none, `candidates` as they were.
    pub(crate) fn narrow(&self, name: &str, value: &Value, candidates: Candidates) -> Candidates {
        let mut kept = 0u64;
        let mut before = 0u64;
        for (i, branch) in self.branches.iter().enumerate() {
            let fits = branch
                .consts
                .iter()
                .filter(|(param, _)| param == name)
                .all(|(_, want)| same_value(want, value));
            if candidates.has(i) {
                before |= 1 << i;
                kept |= u64::from(fits) << i;
            }
        }
        // Unchanged, it stays as it was (`ALL` stays `ALL`).
        if kept == 0 || kept == before {
            candidates
        } else {
            Candidates(kept)
        }
    }

    /// The names every branch of `candidates` requires (none without
    /// branches: the root's `required` is read apart).
    pub(crate) fn required_by_branches(
        &self,
        candidates: Candidates,
    ) -> impl Iterator<Item = &str> + '_ {
        let mut branches = self
            .branches
            .iter()
            .enumerate()
            .filter(move |(i, _)| candidates.has(*i))
            .map(|(_, b)| b);
        let first = branches.next();
        let others: Vec<&Branch> = branches.collect();
        first
            .into_iter()
            .flat_map(|b| &b.required)
            .filter(move |name| others.iter().all(|b| b.required.contains(name)))
            .map(String::as_str)
    }
}

/// A walk over a tool's `parameters`.
struct Reader<'a> {
    root: &'a Value,
    /// The work left for the branch being read; each branch has its own,
    /// so that one huge branch leaves the others readable.
    budget: Budget,
    /// The schema nodes (by address) and reaches the branch being read
    /// has taken in: `allOf`s of `$ref`s that meet again add nothing.
    seen: HashSet<(usize, Reach)>,
    /// Each property schema's types, by address: a property reached from
    /// several branches is typed once.
    types: HashMap<usize, TypeSet>,
    branches: Vec<Branch>,
    declares_properties: bool,
    /// The property schemas the branch being read declares, by name.
    fragments: Fragments<'a>,
    /// Those of each root branch, as `branches`.
    branch_fragments: Vec<Fragments<'a>>,
}

/// Property schemas by name: all that describe the property, in part.
type Fragments<'a> = HashMap<String, Vec<&'a Value>>;

impl<'a> Reader<'a> {
    fn fresh_budget() -> Budget {
        Budget {
            visits: SCHEMA_VISIT_BUDGET,
            depth: 0,
        }
    }

    /// Adds what `schema` declares to `into`: its `properties`, and those
    /// reached through `allOf`, `$ref`, and (as branches at the root, as
    /// possible properties elsewhere) `anyOf`/`oneOf`.
    fn collect(&mut self, schema: &'a Value, reach: Reach, into: &mut Branch) {
        let Some(object) = schema.as_object() else {
            return;
        };
        if self.budget.visits == 0
            || self.budget.depth == SCHEMA_DEPTH_LIMIT
            || !self.seen.insert((address(schema), reach))
        {
            return;
        }
        self.budget.visits -= 1;
        self.budget.depth += 1;
        if let Some(Value::Object(properties)) = object.get("properties") {
            self.declares_properties = true;
            for (name, property) in properties {
                let root = self.root;
                let types = *self
                    .types
                    .entry(address(property))
                    .or_insert_with(|| TypeSet::from_schema(property, Some(root)));
                add(&mut into.params, name.clone(), types);
                self.fragments
                    .entry(name.clone())
                    .or_default()
                    .push(property);
                if reach != Reach::Maybe {
                    if let Some(value) = self.const_of(property) {
                        into.consts.push((name.clone(), value.clone()));
                    }
                }
            }
        }
        if reach == Reach::Always {
            if let Some(Value::Array(required)) = object.get("required") {
                into.required
                    .extend(required.iter().filter_map(Value::as_str).map(str::to_owned));
            }
        }
        // What holds for the root holds for every branch, but only its own
        // `anyOf`/`oneOf` are the branches.
        let inner = if reach == Reach::Root {
            Reach::Always
        } else {
            reach
        };
        if let Some(Value::Array(parts)) = object.get("allOf") {
            for part in parts {
                self.collect(part, inner, into);
            }
        }
        if let Some(target) = self.target(object.get("$ref")) {
            self.collect(target, inner, into);
        }
        for choice_field in ["anyOf", "oneOf"] {
            let Some(Value::Array(choices)) = object.get(choice_field) else {
                continue;
            };
            for choice in choices {
                if reach == Reach::Root {
                    let mut branch = Branch::default();
                    let outer = mem::replace(&mut self.budget, Reader::fresh_budget());
                    let outer_seen = mem::take(&mut self.seen);
                    let outer_fragments = mem::take(&mut self.fragments);
                    self.collect(choice, Reach::Always, &mut branch);
                    self.budget = outer;
                    self.seen = outer_seen;
                    let fragments = mem::replace(&mut self.fragments, outer_fragments);
                    self.branch_fragments.push(fragments);
                    self.branches.push(branch);
                } else {
                    self.collect(choice, Reach::Maybe, into);
                }
            }
        }
        self.budget.depth -= 1;
    }

    fn target(&self, reference: Option<&Value>) -> Option<&'a Value> {
        let pointer = reference?.as_str()?.strip_prefix('#')?;
        self.root.pointer(pointer)
    }

    /// The one value a property's schema allows, if it allows one: its
    /// `const`, or its `enum` of one value (through a few `$ref`s).
    fn const_of(&self, mut schema: &'a Value) -> Option<&'a Value> {
        for _ in 0..CONST_REF_HOPS {
            if let Some(value) = schema.get("const") {
                return Some(value);
            }
            if let Some(Value::Array(values)) = schema.get("enum") {
                return match values.as_slice() {
                    [value] => Some(value),
                    _ => None,
                };
            }
            schema = self.target(schema.get("$ref"))?;
        }
        None
    }
}

/// The shape of each property of `fragments`, read in name order so that
/// the table is the same every time.
fn read_shapes<'a>(reader: &mut ShapeReader<'a>, fragments: &Fragments<'a>) -> NameMap<ShapeId> {
    let mut names: Vec<&String> = fragments.keys().collect();
    names.sort();
    names
        .into_iter()
        .filter_map(|name| Some((name.clone(), reader.read(&fragments[name])?)))
        .collect()
}

/// Where a schema node is, to know it again.
fn address(node: &Value) -> usize {
    node as *const Value as usize
}

fn add(params: &mut NameMap<TypeSet>, name: String, types: TypeSet) {
    let entry = params.entry(name).or_default();
    *entry = entry.union(types);
}

/// JSON equality, except that numbers compare by value (`5` is `5.0`: the
/// ladder writes a whole number without its fraction).
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_f64(), y.as_f64()) {
            (Some(x), Some(y)) => x == y || a == b,
            _ => a == b,
        },
        _ => a == b,
    }
}
