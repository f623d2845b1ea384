//! One function's call as both dialects write it: what comes after the
//! call's opener, up to the wrapper's closer, for one tool. Built once
//! from the shape and the tool's schema; each dialect prints it.

use serde_json::Value;

use super::python;
use super::shape::{Body, CallId, Markup, Shape, ValueAttribute};
use super::value::{self, ValueGrammar};

/// A function, after the call's opener.
pub(super) struct Func {
    /// What opens it, as one literal: the function opener inside the
    /// wrapper, the name and the byte that ends it.
    pub head: String,
    /// What follows the head before the body: ids and indexes, which are
    /// no literal.
    pub rest: Vec<Piece>,
    /// A line end may follow the head (a name ended by a line end).
    pub name_line: bool,
    pub body: FuncBody,
    /// Text after the body, before the closer (a fence's end).
    pub after_body: &'static str,
    /// The function's closer.
    pub close: Option<String>,
    /// What follows its closer: the closers of its item, wrapper or
    /// message.
    pub tail: Vec<Piece>,
}

/// A part of a function's head.
#[derive(Clone)]
pub(super) enum Piece {
    Text(String),
    /// A call's index (Kimi K2's `:0`).
    Index,
    /// A call's id.
    Id,
    /// This marker and an id, or neither.
    OptionalId(&'static str),
    /// This text, or none (a line end of layout).
    Maybe(&'static str),
}

/// How a call's index and id are written (their characters and length).
pub(super) const INDEX: &str = "[0-9]{1,4}";
pub(super) const ID: &str = "[A-Za-z0-9]{1,32}";

pub(super) enum FuncBody {
    /// Marked-up parameters, in order.
    Params(Vec<Param>),
    /// JSON against this schema (the arguments, or the whole call
    /// object), after an optional line end where `line` says.
    Json { schema: Value, line: bool },
    /// Python keyword arguments against this schema (an object's), in
    /// their parentheses.
    Python(Value),
}

pub(super) struct Param {
    /// The parameter opener, its name and what ends the name, as one
    /// literal.
    pub head: String,
    /// The value opener after it (a line end may come between).
    pub value_open: Option<&'static str>,
    pub value: ValueGrammar,
    /// One line end on each side of a typed value is layout.
    pub lines: bool,
    pub close: String,
    /// The marker that ends a text value: the closer, or where the closer
    /// is no marker, the marker it begins with (the rest follows it).
    pub ends_text: &'static str,
    pub required: bool,
}

/// Whether a call to a tool with the `parameters` schema `params` can be
/// written: no required parameter's schema is one no value satisfies.
pub(super) fn callable(params: &Value) -> bool {
    let required = params["required"].as_array().into_iter().flatten();
    !value::is_never(params)
        && required
            .filter_map(Value::as_str)
            .all(|key| !value::is_never(value::resolve(&params["properties"][key], params)))
}

/// The schema of a Python call's keyword arguments: the tool's
/// `parameters`, its properties in the declared order (the order the chat
/// template showed the model). A key that is no Python name cannot be
/// written as `key=`: no value satisfies it.
fn kwargs(params: &Value, order: &[String], starts: &str, named: &dyn Fn(&str) -> bool) -> Value {
    let mut schema = value::closed_object(params);
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        let mut ordered = serde_json::Map::new();
        for key in order.iter().chain(properties.keys()) {
            if let Some(prop) = properties.get(key).filter(|_| !ordered.contains_key(key)) {
                let prop = match named(key) {
                    true => prop.clone(),
                    false => Value::Bool(false),
                };
                ordered.insert(key.clone(), prop);
            }
        }
        *properties = ordered;
    }
    value::rooted(value::reads_back(&schema, starts), params, starts)
}

impl Shape {
    /// Whether a call to a tool with the `parameters` schema `params` can
    /// be written in this shape: [`callable`], and in a call syntax, each
    /// required key can be written as its key (`key=`, `key:`).
    pub(super) fn callable(&self, params: &Value) -> bool {
        let required = params["required"].as_array().into_iter().flatten();
        callable(params) && required.filter_map(Value::as_str).all(|k| self.is_key(k))
    }

    /// Whether `key` can be written as an argument's key: a Python name in
    /// Python call syntax, a bare key in Gemma's, a tag's name in elements.
    fn is_key(&self, key: &str) -> bool {
        match &self.body {
            Body::Python { .. } => python::is_keyword(key),
            Body::Gemma { .. } => super::gemma::is_key(key, &self.marker_starts),
            Body::Markup(Markup {
                elements: Some(e), ..
            }) => e.writes(key),
            _ => true,
        }
    }

    /// The marker that opens a call: the wrapper's, or a function's where
    /// functions stand alone.
    pub(super) fn opener(&self) -> &'static str {
        self.call_open
            .or_else(|| self.body.func_open())
            .unwrap_or_default()
    }

    /// The function opener a function is written with inside the wrapper
    /// (none where the wrapper's opener opens the function, or is it).
    fn inner_func_open(&self) -> &'static str {
        match self.call_open {
            Some(_) => self.body.func_open().unwrap_or_default(),
            None => "",
        }
    }

    /// The call to tool `name`, whose `parameters` schema is `params` and
    /// whose parameters are declared in `order`. Strings in its JSON hold
    /// none of `starts` (a dialect that can exclude the markers themselves
    /// passes none).
    pub(super) fn func(&self, name: &str, params: &Value, order: &[String], starts: &str) -> Func {
        let mut func = self.bare_func(name, params, order, starts);
        if let Some((open, close)) = &self.item {
            func.head.insert_str(0, open);
            func.tail.push(Piece::Text((*close).to_owned()));
        }
        func
    }

    /// The function, outside any item.
    fn bare_func(&self, name: &str, params: &Value, order: &[String], starts: &str) -> Func {
        let func_open = self.inner_func_open();
        let args = || value::reads_back(&value::closed_object(params), starts);
        match &self.body {
            Body::JsonObject {
                name_key,
                args_keys,
                ..
            } => {
                // Each key the format reads the arguments under (their
                // schema made once).
                let args = args();
                let objects: Vec<Value> = match name_key {
                    Some(name_key) => args_keys
                        .iter()
                        .map(|args_key| {
                            serde_json::json!({
                                "type": "object",
                                "properties": {*name_key: {"const": name}, *args_key: args},
                                "required": [name_key, args_key],
                                "additionalProperties": false,
                            })
                        })
                        .collect(),
                    // The name is the only key.
                    None => vec![serde_json::json!({
                        "type": "object",
                        "properties": {name: args},
                        "required": [name],
                        "additionalProperties": false,
                    })],
                };
                let schema = match objects.len() {
                    1 => objects[0].clone(),
                    _ => serde_json::json!({ "anyOf": objects }),
                };
                let schema = value::rooted(schema, params, starts);
                Func {
                    head: func_open.to_owned(),
                    rest: Vec::new(),
                    name_line: false,
                    body: FuncBody::Json { schema, line: true },
                    after_body: "",
                    close: None,
                    tail: Vec::new(),
                }
            }
            Body::NameArgs {
                args_open,
                func_close,
                id_in_name: Some((prefix, separator)),
                name_close,
                ..
            } => Func {
                head: format!(
                    "{func_open}{prefix}{name}{separator}{}",
                    name_close.unwrap_or_default()
                ),
                rest: vec![Piece::Index, Piece::Text(args_open.clone())],
                name_line: false,
                body: FuncBody::Json {
                    schema: value::rooted(args(), params, starts),
                    line: false,
                },
                after_body: "",
                close: func_close.map(str::to_owned),
                tail: Vec::new(),
            },
            Body::NameArgs {
                args_open,
                func_close,
                call_type: Some(call_type),
                fenced,
                ..
            } => {
                let (fence_open, fence_close) = match fenced {
                    true => ("```json\n", "\n```"),
                    false => ("", ""),
                };
                Func {
                    head: format!("{func_open}{call_type}{args_open}{name}\n{fence_open}"),
                    rest: Vec::new(),
                    name_line: false,
                    body: FuncBody::Json {
                        schema: value::rooted(args(), params, starts),
                        line: false,
                    },
                    after_body: fence_close,
                    close: func_close.map(str::to_owned),
                    tail: Vec::new(),
                }
            }
            Body::NameArgs {
                args_open,
                func_close,
                id_in_name: None,
                name_close,
                id,
                ..
            } => Func {
                head: match id {
                    Some(CallId::BeforeName(_)) => func_open.to_owned(),
                    _ => format!("{func_open}{name}{}", name_close.unwrap_or_default()),
                },
                rest: match id {
                    Some(CallId::BeforeName(open)) => vec![
                        Piece::Id,
                        Piece::Text(format!(
                            "{open}{name}{}{args_open}",
                            name_close.unwrap_or_default()
                        )),
                    ],
                    Some(CallId::AfterName(open)) => {
                        vec![Piece::OptionalId(open), Piece::Text(args_open.clone())]
                    }
                    None => vec![Piece::Text(args_open.clone())],
                },
                name_line: false,
                body: FuncBody::Json {
                    schema: value::rooted(args(), params, starts),
                    line: false,
                },
                after_body: "",
                close: func_close.map(str::to_owned),
                tail: Vec::new(),
            },
            Body::Args => Func {
                head: String::new(),
                rest: Vec::new(),
                name_line: false,
                body: FuncBody::Json {
                    schema: value::rooted(args(), params, starts),
                    line: false,
                },
                after_body: "",
                close: None,
                tail: Vec::new(),
            },
            Body::Python { .. } => Func {
                head: name.to_owned(),
                rest: Vec::new(),
                name_line: false,
                body: FuncBody::Python(kwargs(params, order, starts, &python::is_keyword)),
                after_body: "",
                close: None,
                tail: Vec::new(),
            },
            // `call:NAME`, then its arguments object (the rules write its
            // braces, as Python's parentheses).
            Body::Gemma { .. } => Func {
                head: format!("call:{name}"),
                rest: Vec::new(),
                name_line: false,
                body: FuncBody::Python(kwargs(params, order, starts, &|k| self.is_key(k))),
                after_body: "",
                close: None,
                tail: Vec::new(),
            },
            Body::Markup(m) => {
                let schema = value::closed_object(params);
                let required: Vec<&str> = schema["required"]
                    .as_array()
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let properties = schema["properties"].as_object();
                // In the order declared: the order the chat template
                // showed the model.
                let params = order
                    .iter()
                    .filter_map(|key| properties?.get_key_value(key))
                    // An optional parameter no value satisfies is left
                    // out (a required one leaves the tool out: `callable`).
                    .filter(|(_, prop)| !value::is_never(value::resolve(prop, params)))
                    // A key the element syntax cannot spell is left out
                    // (a required one leaves the tool out: `callable`).
                    .filter(|(key, _)| m.elements.map_or(true, |e| e.writes(key)))
                    .map(|(key, prop)| {
                        let value = value::of(prop, params, starts);
                        let attribute = m
                            .value_attribute
                            .map(|a| a.written(&value, value::resolve(prop, params)))
                            .unwrap_or_default();
                        let (head, close, ends_text) = match m.elements {
                            Some(e) => (e.head(key, &attribute), e.close(key), e.ends_text()),
                            None => (
                                format!("{}{}{attribute}{}", m.param_open, m.quote(key), m.key_end),
                                m.param_close.to_owned(),
                                m.param_close,
                            ),
                        };
                        Param {
                            head,
                            value_open: m.value_open,
                            value,
                            lines: m.value_lines,
                            close,
                            ends_text,
                            required: required.contains(&key.as_str()),
                        }
                    })
                    .collect();
                let name_open = &m.name_open;
                let (head, rest) = match (m.index_attribute, m.elements) {
                    // An element call's id comes before its name, as the
                    // template writes it (`<cofl:tool_call id="0" name="N">`).
                    (Some(key), Some(e)) => (
                        format!("{func_open}<{} {key}=\"", e.call),
                        vec![
                            Piece::Index,
                            Piece::Text(format!("\" {}={}{}", e.name, m.quote(name), m.name_end)),
                        ],
                    ),
                    (Some(key), None) => (
                        format!("{func_open}{name_open}{} {key}=\"", m.quote(name)),
                        vec![Piece::Index, Piece::Text(format!("\"{}", m.name_end))],
                    ),
                    (None, _) => (
                        format!("{func_open}{name_open}{}{}", m.quote(name), m.name_end),
                        Vec::new(),
                    ),
                };
                Func {
                    head,
                    rest,
                    name_line: m.name_end.is_empty() && m.name_line,
                    body: FuncBody::Params(params),
                    after_body: "",
                    close: m.func_close.clone(),
                    tail: Vec::new(),
                }
            }
        }
    }
}

impl ValueAttribute {
    /// The attribute, after a space, that says a value of grammar `value`
    /// (of schema `schema`) is read as it is written: JSON as JSON, text as
    /// text. A text value in a format that only marks JSON ones writes the
    /// other flag where the attribute is one (`string="true"`), else none.
    fn written(self, value: &ValueGrammar, schema: &Value) -> String {
        let json = matches!(value, ValueGrammar::Json(_));
        let said = match (self, json) {
            (ValueAttribute::Json(_, said), true) | (ValueAttribute::Text(_, said), false) => said,
            (ValueAttribute::Json(_, flag), false) => match flag {
                "false" => "true",
                "true" => "false",
                _ => return String::new(),
            },
            // Any other value says JSON: the schema's type, as a model
            // writes it (`type="integer"`).
            (ValueAttribute::Text(_, text), true) => match json_type(schema) {
                Some(name) if name != text => name,
                _ => "json",
            },
        };
        let (ValueAttribute::Json(key, _) | ValueAttribute::Text(key, _)) = self;
        format!(" {key}=\"{said}\"")
    }
}

/// The JSON type a schema's values have, where it names one: its `type`
/// (the first that is not a string, of several), or its `const`'s or
/// first `enum` value's, or its first alternative's.
fn json_type(schema: &Value) -> Option<&'static str> {
    const NAMES: [&str; 7] = [
        "integer", "number", "boolean", "object", "array", "null", "string",
    ];
    let named = |t: &Value| NAMES.iter().copied().find(|n| t == *n);
    let of_value = |v: &Value| match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    match schema.get("type") {
        Some(Value::Array(types)) => types.iter().filter(|t| *t != "string").find_map(named),
        Some(t) => named(t),
        None => schema
            .get("const")
            .or_else(|| schema.get("enum")?.get(0))
            .map(of_value)
            .or_else(|| {
                ["anyOf", "oneOf"]
                    .iter()
                    .find_map(|k| schema.get(*k)?.get(0))
                    .and_then(json_type)
            }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn python_arguments_come_in_the_declared_order() {
        let params = json!({"type": "object", "required": ["a"], "properties": {
            "b": {"type": "string"}, "a": {"type": "integer"}, "my-key": {"type": "string"}}});
        let schema = kwargs(
            &params,
            &["a".to_owned(), "b".to_owned()],
            "<",
            &python::is_keyword,
        );
        let keys: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["a", "b", "my-key"]);
        // No Python name: it cannot be written as `my-key=`.
        assert_eq!(schema["properties"]["my-key"], json!(false));
        assert_eq!(schema["properties"]["b"]["pattern"], "^[^<]*$");
        assert_eq!(schema["additionalProperties"], json!(false));
        // Required, it leaves its tool out; JSON writes any key.
        let shape = |f: crate::format::Format| Shape::of(f.description()).ok().unwrap();
        let required = json!({"properties": {"my-key": {}}, "required": ["my-key"]});
        assert!(!shape(crate::format::Format::Lfm2).callable(&required));
        assert!(shape(crate::format::Format::Lfm2).callable(&params));
        assert!(shape(crate::format::Format::Hermes).callable(&required));
        // Gemma writes `my-key:` bare, but no key with a space in it.
        let gemma = shape(crate::format::Format::Gemma4);
        assert!(gemma.callable(&required));
        assert!(!gemma.callable(&json!({"properties": {"a b": {}}, "required": ["a b"]})));
        let func = gemma.func("f", &params, &["a".to_owned()], "<");
        assert_eq!(func.head, "call:f");
        assert!(matches!(func.body, FuncBody::Python(_)));
    }
}
