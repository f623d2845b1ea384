//! Parameter types from JSON schemas, and the ladder that turns a value's
//! text into JSON of one of them.
//!
//! The ladder is vLLM 0.33's (`vllm/tool_parsers/utils.py`:
//! `extract_types_from_schema`, `coerce_to_schema_type`): try null, integer,
//! number, boolean, object, array, string, in that order, among the types the
//! schema allows; the first that accepts the text wins. Where vLLM can emit
//! invalid JSON or lose digits, this module does not; each such difference is
//! named where it is made.

use std::fmt;
use std::str::FromStr;

use serde_json::Value;

use crate::json::escape_into;

pub(crate) use deep::{coerce_shape_into, Inner, ShapeRef, Typed};
pub(crate) use params::{Candidates, ParamTable};
pub(crate) use shape::{ShapeId, Shapes};

use number::{write_f64, write_number, PythonFloat, PythonInt};

/// A map from names (tools, parameters, properties) that a parser looks up
/// for every call and parameter it reads. Foldhash, not std's SipHash: a
/// lookup of a short name cost several hundred instructions, a large part
/// of reading a typed parameter. Its keys come from the request's own
/// tools, and each map is seeded per process, so collisions cannot be
/// planted from the model's output.
pub(crate) type NameMap<V> = std::collections::HashMap<String, V, foldhash::fast::RandomState>;

mod deep;
mod number;
mod params;
mod python_literal;
mod shape;
#[cfg(test)]
mod tests;

/// A set of JSON types a parameter accepts. `Copy`, one byte.
///
/// The empty set means "no information", which reads as string, as in vLLM.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct TypeSet(u8);

impl TypeSet {
    /// No type: no information, so values stay strings.
    pub const EMPTY: TypeSet = TypeSet(0);
    /// JSON `null`.
    pub const NULL: TypeSet = TypeSet(1);
    /// A whole number.
    pub const INTEGER: TypeSet = TypeSet(1 << 1);
    /// Any finite number.
    pub const NUMBER: TypeSet = TypeSet(1 << 2);
    /// `true` or `false`.
    pub const BOOLEAN: TypeSet = TypeSet(1 << 3);
    /// A JSON object.
    pub const OBJECT: TypeSet = TypeSet(1 << 4);
    /// A JSON array.
    pub const ARRAY: TypeSet = TypeSet(1 << 5);
    /// A JSON string.
    pub const STRING: TypeSet = TypeSet(1 << 6);
    /// A type name that is neither JSON Schema's nor one of vLLM's aliases
    /// (`any`, `date`, ...). No ladder step takes it; as in vLLM, such a
    /// value becomes whatever JSON its text is, else a string, and neither
    /// is reported as invalid.
    pub const OTHER: TypeSet = TypeSet(1 << 7);
    /// Every JSON type but string: a value a format says is JSON (DSML's
    /// `string="false"`), with no schema to type it.
    pub(crate) const JSON_NOT_STRING: TypeSet = TypeSet(0b0011_1111);

    /// Whether every type of `other` is in `self`.
    pub fn contains(self, other: TypeSet) -> bool {
        self.0 & other.0 == other.0
    }

    /// The types of both sets.
    #[must_use]
    pub fn union(self, other: TypeSet) -> TypeSet {
        TypeSet(self.0 | other.0)
    }

    /// Whether the set holds no type (no information: values are strings).
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Nothing to coerce: the value is a string whatever its text (only
    /// STRING, or empty = no information = string).
    pub fn is_string_only(self) -> bool {
        self.0 & !TypeSet::STRING.0 == 0
    }

    /// The types a JSON-schema fragment allows, as vLLM's
    /// `extract_types_from_schema` finds them: from `type` (a name or a list
    /// of names, with vLLM's aliases such as `int`, `bool`, `dict`, `list`,
    /// `str`), from the values of `enum`, and through `anyOf`, `oneOf` and
    /// `allOf`; a fragment or branch that says nothing is a string.
    ///
    /// `root` is the document `$ref`s point into (a tool's `parameters`,
    /// holding `$defs` or `definitions`); vLLM does not follow `$ref`, this
    /// does (a referenced schema counts as if written in place). Reference
    /// cycles and huge schemas are cut off by a bound on the work done.
    /// vLLM skips `const` too; here it is read as a one-value `enum`.
    ///
    /// # Example
    /// ```
    /// use serde_json::json;
    /// use toolcall_stream::TypeSet;
    ///
    /// let nullable_count = json!({"anyOf": [{"type": "int"}, {"type": "null"}]});
    /// assert_eq!(TypeSet::from_schema(&nullable_count, None),
    ///            TypeSet::INTEGER.union(TypeSet::NULL));
    ///
    /// let parameters = json!({"$defs": {"Unit": {"enum": ["celsius", "kelvin"]}}});
    /// let unit = json!({"$ref": "#/$defs/Unit"});
    /// assert_eq!(TypeSet::from_schema(&unit, Some(&parameters)), TypeSet::STRING);
    /// assert_eq!(TypeSet::from_schema(&json!({}), None).to_string(), "string");
    /// ```
    pub fn from_schema(schema: &Value, root: Option<&Value>) -> TypeSet {
        let mut budget = Budget {
            visits: SCHEMA_VISIT_BUDGET,
            depth: 0,
        };
        types_of(schema, root, &mut budget)
    }

    /// The types a type name written in a call stands for (K2-Horizon's
    /// `<ifm|arg_type>integer`): as in a schema, from the name before any
    /// `[` (`array[string]`); `any`, and names that are none, are strings
    /// (the value as written).
    pub(crate) fn written_type(name: &str) -> TypeSet {
        let base = name.split('[').next().unwrap_or_default();
        match TypeSet::from_type_name(base) {
            TypeSet::OTHER => TypeSet::STRING,
            types => types,
        }
    }

    fn from_type_name(name: &str) -> TypeSet {
        // vLLM strips and lowercases a name, then maps aliases.
        let name = name.trim_matches(is_python_space).to_lowercase();
        match name.as_str() {
            "null" => TypeSet::NULL,
            "integer" | "int" | "int32" | "int64" | "uint" | "uint32" | "uint64" | "long"
            | "short" | "unsigned" => TypeSet::INTEGER,
            "number" | "float" | "float32" | "float64" | "double" => TypeSet::NUMBER,
            "boolean" | "bool" => TypeSet::BOOLEAN,
            "object" | "dict" => TypeSet::OBJECT,
            "array" | "arr" | "list" | "sequence" => TypeSet::ARRAY,
            "string" | "str" | "text" | "varchar" | "char" | "enum" => TypeSet::STRING,
            _ => TypeSet::OTHER,
        }
    }

    fn of_value(value: &Value) -> TypeSet {
        match value {
            Value::Null => TypeSet::NULL,
            Value::Bool(_) => TypeSet::BOOLEAN,
            Value::Number(n) if n.is_i64() || n.is_u64() => TypeSet::INTEGER,
            Value::Number(_) => TypeSet::NUMBER,
            Value::String(_) => TypeSet::STRING,
            Value::Array(_) => TypeSet::ARRAY,
            Value::Object(_) => TypeSet::OBJECT,
        }
    }
}

/// Schema nodes visited at most per `from_schema`: `$ref`s may form cycles,
/// and `anyOf`s of `$ref`s to `anyOf`s multiply; tools come from requests.
const SCHEMA_VISIT_BUDGET: u32 = 4096;
/// Nesting followed at most, so that the stack stays small.
const SCHEMA_DEPTH_LIMIT: u32 = 64;

/// The work `from_schema` may still do.
struct Budget {
    visits: u32,
    depth: u32,
}

fn types_of(schema: &Value, root: Option<&Value>, budget: &mut Budget) -> TypeSet {
    let found = declared_types(schema, root, budget);
    if found.is_empty() {
        TypeSet::STRING
    } else {
        found
    }
}

/// The types `schema` itself declares, without the string default (a
/// `$ref` adds its target's types as if they were written in place).
fn declared_types(schema: &Value, root: Option<&Value>, budget: &mut Budget) -> TypeSet {
    let Some(schema) = schema.as_object() else {
        return TypeSet::EMPTY;
    };
    if budget.visits == 0 || budget.depth == SCHEMA_DEPTH_LIMIT {
        return TypeSet::EMPTY;
    }
    budget.visits -= 1;
    budget.depth += 1;
    let types = declared_types_of_object(schema, root, budget);
    budget.depth -= 1;
    types
}

fn declared_types_of_object(
    schema: &serde_json::Map<String, Value>,
    root: Option<&Value>,
    budget: &mut Budget,
) -> TypeSet {
    let mut types = TypeSet::EMPTY;
    match schema.get("type") {
        Some(Value::String(name)) => types = types.union(TypeSet::from_type_name(name)),
        Some(Value::Array(names)) => {
            for name in names.iter().filter_map(Value::as_str) {
                types = types.union(TypeSet::from_type_name(name));
            }
        }
        _ => {}
    }
    if let Some(Value::Array(values)) = schema.get("enum") {
        for value in values {
            types = types.union(TypeSet::of_value(value));
        }
    }
    // A `const` is a one-value `enum` (vLLM reads neither `const` nor its
    // type, so there it is a string).
    if let Some(value) = schema.get("const") {
        types = types.union(TypeSet::of_value(value));
    }
    for choice_field in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(choices)) = schema.get(choice_field) {
            for choice in choices {
                types = types.union(types_of(choice, root, budget));
            }
        }
    }
    if let (Some(Value::String(reference)), Some(root)) = (schema.get("$ref"), root) {
        if let Some(target) = reference.strip_prefix('#').and_then(|p| root.pointer(p)) {
            types = types.union(declared_types(target, Some(root), budget));
        }
    }
    types
}

const DISPLAY_ORDER: [(TypeSet, &str); 8] = [
    (TypeSet::STRING, "string"),
    (TypeSet::INTEGER, "integer"),
    (TypeSet::NUMBER, "number"),
    (TypeSet::BOOLEAN, "boolean"),
    (TypeSet::OBJECT, "object"),
    (TypeSet::ARRAY, "array"),
    (TypeSet::OTHER, "other"),
    (TypeSet::NULL, "null"),
];

/// Reads as prose for diagnostics: `integer or null`, `string, number or
/// boolean`; the empty set reads `string`, which is what it means.
impl fmt::Display for TypeSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("string");
        }
        let names: Vec<&str> = DISPLAY_ORDER
            .iter()
            .filter(|(types, _)| self.contains(*types))
            .map(|(_, name)| *name)
            .collect();
        for (i, name) in names.iter().enumerate() {
            if i + 1 == names.len() && i > 0 {
                f.write_str(" or ")?;
            } else if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(name)?;
        }
        Ok(())
    }
}

/// How argument values become JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Typing {
    /// Values are typed from the request's tools; a value with no schema is
    /// a string (vLLM).
    #[default]
    Schema,
    /// Values with no schema are inferred as the XML tool parser of seed
    /// 000 does: integer, else float, else boolean, else string.
    Infer,
    /// Every value is a JSON string, whatever the schema.
    Strings,
}

impl Typing {
    /// Every variant, in the order the error message lists them.
    pub const ALL: [Typing; 3] = [Typing::Schema, Typing::Infer, Typing::Strings];

    /// The name `FromStr` reads and `Display` writes.
    pub fn name(self) -> &'static str {
        match self {
            Typing::Schema => "schema",
            Typing::Infer => "infer",
            Typing::Strings => "strings",
        }
    }
}

impl fmt::Display for Typing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a [`Typing`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownTyping {
    name: String,
}

impl fmt::Display for UnknownTyping {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown typing {:?}; known typings: ", self.name)?;
        for (i, typing) in Typing::ALL.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(typing.name())?;
        }
        Ok(())
    }
}

impl std::error::Error for UnknownTyping {}

/// Names are matched ignoring ASCII case, as format names are.
impl FromStr for Typing {
    type Err = UnknownTyping;

    fn from_str(name: &str) -> Result<Typing, UnknownTyping> {
        Typing::ALL
            .iter()
            .copied()
            .find(|typing| typing.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| UnknownTyping {
                name: name.to_owned(),
            })
    }
}

/// What coercion made of a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// A value of one of the allowed types was written.
    Typed,
    /// Accepted only thanks to an opt-in leniency (Python literals); the
    /// `&'static str` says which, for a diagnostic.
    Lenient(&'static str),
    /// No allowed type accepted the text, but it is JSON of another type,
    /// which was written (vLLM's terminal `json.loads`: `2.5` for an integer).
    JsonOutsideTypes,
    /// No allowed type accepted it: the raw text was written as a JSON
    /// string (an `invalid_value` diagnostic follows).
    Invalid,
}

/// What [`Outcome::Lenient`] reports for a converted Python literal.
pub(crate) const PYTHON_LITERAL: &str = "python literal";

/// Writes `text` (a whole parameter value, layout newlines already removed)
/// as JSON text of one of `types` to `out` (appending; never clears it). The
/// output is always valid JSON.
///
/// Objects and arrays are written as the model wrote them, trimmed, once
/// serde_json has validated them: exact digits, key order and spacing stay
/// (vLLM re-serializes them with `json.dumps`).
pub(crate) fn coerce_into(
    text: &str,
    types: TypeSet,
    python_literals: bool,
    out: &mut String,
) -> Outcome {
    if types.is_string_only() {
        write_string(text, out);
        return Outcome::Typed;
    }
    if types.contains(TypeSet::NULL) {
        // vLLM compares without stripping; a padded `null` still becomes
        // null through the terminal JSON parse unless strings are allowed.
        if text.eq_ignore_ascii_case("null") {
            out.push_str("null");
            return Outcome::Typed;
        }
        if python_literals && text.trim_matches(is_python_space) == "None" {
            out.push_str("null");
            return Outcome::Lenient(PYTHON_LITERAL);
        }
    }
    if types.contains(TypeSet::INTEGER) || types.contains(TypeSet::NUMBER) {
        if let Some(integer) = PythonInt::parse(text) {
            integer.write(out);
            return Outcome::Typed;
        }
    }
    if types.contains(TypeSet::NUMBER) && write_number(text, out) {
        return Outcome::Typed;
    }
    if types.contains(TypeSet::BOOLEAN) {
        if let Some(value) = boolean(text) {
            out.push_str(if value { "true" } else { "false" });
            return Outcome::Typed;
        }
    }
    for (kind, open) in [(TypeSet::OBJECT, '{'), (TypeSet::ARRAY, '[')] {
        if !types.contains(kind) {
            continue;
        }
        if let Some(json) = json_text(text).filter(|(_, of)| *of == kind) {
            out.push_str(json.0);
            return Outcome::Typed;
        }
        if python_literals {
            let mark = out.len();
            if python_literal::convert_into(text, out) && out[mark..].starts_with(open) {
                return Outcome::Lenient(PYTHON_LITERAL);
            }
            out.truncate(mark);
        }
    }
    if types.contains(TypeSet::STRING) {
        write_string(text, out);
        return Outcome::Typed;
    }
    // vLLM's terminal `json.loads`, for values no allowed type took.
    if let Some((json, of)) = json_text(text) {
        out.push_str(json);
        let allowed = types.contains(TypeSet::OTHER)
            || types.contains(of)
            || (of == TypeSet::INTEGER && types.contains(TypeSet::NUMBER));
        return if allowed {
            Outcome::Typed
        } else {
            Outcome::JsonOutsideTypes
        };
    }
    write_string(text, out);
    if types.contains(TypeSet::OTHER) {
        Outcome::Typed
    } else {
        Outcome::Invalid
    }
}

/// Seed 000's schema-less inference (`Typing::Infer`): the stripped text as
/// an integer, else a float, else a boolean (`true`/`false`, any case), else
/// the stripped text as a string. As in the seed the float keeps its
/// fraction (`1.0` stays `1.0`); `nan` and `inf`, which the seed would send
/// as invalid JSON, stay strings.
pub(crate) fn infer_into(text: &str, out: &mut String) {
    let text = text.trim_matches(is_python_space);
    if let Some(integer) = PythonInt::parse(text) {
        integer.write(out);
    } else if let Some(float) = PythonFloat::parse(text).filter(|f| f.value.is_finite()) {
        write_f64(float.value, out);
    } else if text.eq_ignore_ascii_case("true") {
        out.push_str("true");
    } else if text.eq_ignore_ascii_case("false") {
        out.push_str("false");
    } else {
        write_string(text, out);
    }
}

fn write_string(text: &str, out: &mut String) {
    out.push('"');
    escape_into(out, text);
    out.push('"');
}

/// Python's `str.isspace`, which `int()`, `float()` and `str.strip()` use:
/// Unicode white space plus the four ASCII separators U+001C..U+001F.
pub(crate) fn is_python_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// vLLM's boolean step: stripped and lowercased, `true`/`1` or `false`/`0`.
/// (Python's `lower()` is Unicode-aware, but no non-ASCII letter lowers to
/// one of these, so an ASCII comparison agrees.)
fn boolean(text: &str) -> Option<bool> {
    match text.trim_matches(is_python_space) {
        t if t.eq_ignore_ascii_case("true") || t == "1" => Some(true),
        t if t.eq_ignore_ascii_case("false") || t == "0" => Some(false),
        _ => None,
    }
}

/// `text` trimmed of JSON white space, and its kind, when it is one JSON
/// value serde_json accepts. serde_json refuses numbers out of `f64` range
/// (`1e400`), where Python's `json.loads` makes an infinity that vLLM then
/// refuses too; neither lets a non-finite number through.
fn json_text(text: &str) -> Option<(&str, TypeSet)> {
    let value: Value = serde_json::from_str(text).ok()?;
    let kind = match &value {
        // A JSON number is an integer when written without fraction or
        // exponent, whatever serde_json stored it as (40 digits are f64).
        Value::Number(_) => {
            let digits = text.trim_matches(is_json_space);
            if digits.bytes().all(|b| b.is_ascii_digit() || b == b'-') {
                TypeSet::INTEGER
            } else {
                TypeSet::NUMBER
            }
        }
        other => TypeSet::of_value(other),
    };
    Some((text.trim_matches(is_json_space), kind))
}

fn is_json_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}
