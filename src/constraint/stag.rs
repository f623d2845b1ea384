//! The structural-tag dialect: xgrammar's `{"type": "structural_tag",
//! "format": …}`, which vLLM and SGLang take as `structured_outputs.
//! structural_tag` or `response_format`. A call is a `tag` from its opener
//! to its closer; `auto` is `triggered_tags` on the opener.

use serde_json::{json, Value};

use super::call::{Func, FuncBody, Param, Piece, ID, INDEX};
use super::gbnf;
use super::shape::{Body, Shape};
use super::value::ValueGrammar;
use super::{Constraint, ConstraintMode};
use crate::tools::Tools;

/// A grammar no text matches.
const NEVER: &str = "root ::= [^\\u0000-\\U0010FFFF]";

/// Whitespace a JSON value may hold between two tokens (as in Lark).
const MAX_WHITESPACE: u64 = 8;

/// The structural tag for the calls to `names` (declared in `tools`).
pub(super) fn write(
    shape: &Shape,
    tools: &Tools,
    names: &[&str],
    constraint: &Constraint,
) -> Value {
    if shape.bare.is_some() {
        // No marker opens a call, so there is no tag to make: the format
        // is the GBNF grammar whole.
        let grammar =
            gbnf::write(shape, tools, names, constraint).unwrap_or_else(|_| NEVER.to_owned());
        let format = json!({"type": "grammar", "grammar": grammar});
        return node("structural_tag", vec![("format", format)]);
    }
    let markers: Vec<&str> = shape.markers.clone();
    let opener = shape.opener();
    // Python calls: no style of xgrammar's reads Python literals, so the
    // wrapper holds a grammar of its own, the GBNF dialect's.
    let python = matches!(shape.body, Body::Python { .. })
        .then(|| gbnf::body(shape, tools, names, constraint.parallel));
    let funcs: Vec<Func> = names
        .iter()
        .filter(|_| python.is_none())
        .map(|name| {
            let params = tools.parameters(name).cloned().unwrap_or(Value::Null);
            // xgrammar's JSON excludes the markers themselves (below).
            shape.func(name, &params, &tools.parameter_order(name), "")
        })
        .collect();
    // The tag's end: the wrapper's closer, else the function's, else none
    // (JSON ends itself).
    let (end, funcs_close) = match (shape.call_close, funcs.first().and_then(|f| f.close)) {
        (Some(close), _) => (close, true),
        (None, Some(close)) => (close, false),
        // A list with no closer of its own ends with its `]` (xgrammar
        // wants an end where the content repeats).
        (None, None) if shape.holds_list() => ("]", true),
        (None, None) => ("", true),
    };
    let list_close = match end {
        "]" => vec![],
        _ => vec![lit("]")],
    };
    let one_of = or(funcs
        .iter()
        .map(|f| func(f, funcs_close, &markers))
        .collect());
    // Each function once: a structural tag has no rules to refer to, so a
    // repeat is `plus`, never a second copy (128 tools made 200 ms of it).
    let content = match (shape.holds_many(), shape.holds_list(), constraint.parallel) {
        _ if python.is_some() => match python.clone().and_then(Result::ok) {
            Some(grammar) => json!({"type": "grammar", "grammar": grammar}),
            // No call can be written (deep in a required value, no value
            // satisfies its schema): a grammar no text matches.
            None => json!({"type": "grammar", "grammar": NEVER}),
        },
        (true, _, true) => plus(seq(vec![newline(), one_of])),
        (true, _, false) => seq(vec![newline(), one_of]),
        // A JSON list of calls; its elements' whitespace is theirs.
        (false, true, true) => seq([
            vec![
                newline(),
                lit("["),
                one_of.clone(),
                optional(plus(seq(vec![lit(","), one_of]))),
            ],
            list_close,
        ]
        .concat()),
        (false, true, false) => seq([vec![newline(), lit("["), one_of], list_close].concat()),
        (false, false, _) => one_of,
    };
    let tag = node(
        "tag",
        vec![
            ("begin", Value::from(opener)),
            ("content", content),
            // A line end may come before the closer.
            (
                "end",
                match end.is_empty() {
                    true => json!(""),
                    false => json!([end, format!("\n{end}")]),
                },
            ),
        ],
    );
    let text = json!({"type": "any_text", "excludes": markers});
    let calls = match constraint.mode {
        _ if names.is_empty() => text,
        ConstraintMode::Lazy => node(
            "triggered_tags",
            vec![
                ("triggers", json!([opener])),
                ("tags", Value::Array(vec![tag])),
                ("at_least_one", Value::Bool(false)),
                ("stop_after_first", Value::Bool(!constraint.parallel)),
                (
                    "excludes",
                    json!(markers.iter().filter(|m| **m != opener).collect::<Vec<_>>()),
                ),
            ],
        ),
        ConstraintMode::Required | ConstraintMode::Named(_) => {
            // A line end may come before each call.
            let calls = match constraint.parallel {
                true => plus(seq(vec![newline(), tag])),
                false => seq(vec![newline(), tag]),
            };
            seq(vec![calls, optional(text)])
        }
    };
    let top = match (constraint.reasoning, shape.reasoning) {
        (true, Some((open, close))) => {
            // The prompt may have opened the reasoning itself; its text
            // holds no marker, its closer included: the first one ends it.
            let think = seq(vec![
                optional(lit(open)),
                json!({"type": "any_text", "excludes": markers}),
                lit(close),
                newline(),
                newline(),
            ]);
            seq(vec![optional(think), calls])
        }
        _ => calls,
    };
    node("structural_tag", vec![("format", top)])
}

/// A function after the call's opener; its closer is left to the tag
/// where the tag ends with it (`with_close` false).
fn func(f: &Func, with_close: bool, markers: &[&str]) -> Value {
    let mut parts = Vec::new();
    if !f.head.is_empty() {
        parts.push(lit(&f.head));
    }
    let regex = |pattern: &str| json!({"type": "regex", "pattern": pattern});
    for piece in &f.rest {
        parts.push(match piece {
            Piece::Text(text) => lit(text),
            Piece::Index => regex(INDEX),
            Piece::Id => regex(ID),
            Piece::OptionalId(open) => optional(seq(vec![lit(open), regex(ID)])),
        });
    }
    if f.name_line {
        parts.push(newline());
    }
    match &f.body {
        // Written as a grammar of its own, the wrapper's (`write`).
        FuncBody::Python(_) => {}
        FuncBody::Json { schema, line } => {
            if *line {
                parts.push(newline());
            }
            parts.push(json_value(schema, markers));
        }
        FuncBody::Params(params) => {
            parts.push(newline());
            for p in params {
                let written = seq(vec![param(p, markers), newline()]);
                parts.push(match p.required {
                    true => written,
                    false => optional(written),
                });
            }
        }
    }
    if let (true, Some(close)) = (with_close, f.close) {
        parts.push(lit(close));
    }
    seq(parts)
}

/// A parameter: its value is a tag from its opener to its closer, which
/// the value's text may not hold.
fn param(p: &Param, markers: &[&str]) -> Value {
    let lines = |value: Value| match p.lines {
        true => seq(vec![newline(), value, newline()]),
        false => value,
    };
    let content = match &p.value {
        ValueGrammar::Text => json!({"type": "any_text", "excludes": markers}),
        ValueGrammar::Choice(texts) => lines(or(texts.iter().map(|t| lit(t)).collect())),
        ValueGrammar::Json(schema) => lines(json_value(schema, markers)),
        // Left out by `Shape::func`.
        ValueGrammar::Never => or(Vec::new()),
    };
    match p.value_open {
        Some(open) => seq(vec![
            lit(&p.head),
            newline(),
            value_tag(open, content, p.close),
        ]),
        None => value_tag(&p.head, content, p.close),
    }
}

/// JSON against `schema`, holding no marker, with at most
/// [`MAX_WHITESPACE`] characters of whitespace between its tokens and on
/// either side.
fn json_value(schema: &Value, markers: &[&str]) -> Value {
    let space = json!({"type": "regex", "pattern": format!("[ \\t\\n\\r]{{0,{MAX_WHITESPACE}}}")});
    seq(vec![
        space.clone(),
        node(
            "json_schema",
            vec![
                ("json_schema", schema.clone()),
                ("max_whitespace_cnt", Value::from(MAX_WHITESPACE)),
                ("excludes", json!(markers)),
            ],
        ),
        space,
    ])
}

/// A value tag: the value between its opener and its closer.
fn value_tag(begin: &str, content: Value, end: &str) -> Value {
    node(
        "tag",
        vec![
            ("begin", Value::from(begin)),
            ("content", content),
            ("end", Value::from(end)),
        ],
    )
}

/// An element of `kind` with `fields`, built in place: `json!` would copy
/// each child anew at every level of nesting.
fn node(kind: &str, fields: Vec<(&str, Value)>) -> Value {
    let mut object = serde_json::Map::new();
    object.insert("type".into(), Value::from(kind));
    for (key, value) in fields {
        object.insert(key.into(), value);
    }
    Value::Object(object)
}

fn lit(text: &str) -> Value {
    json!({"type": "const_string", "value": text})
}

fn newline() -> Value {
    optional(lit("\n"))
}

fn optional(content: Value) -> Value {
    node("optional", vec![("content", content)])
}

fn plus(content: Value) -> Value {
    node("plus", vec![("content", content)])
}

fn seq(elements: Vec<Value>) -> Value {
    match <[Value; 1]>::try_from(elements) {
        Ok([one]) => one,
        Err(elements) => node("sequence", vec![("elements", Value::Array(elements))]),
    }
}

fn or(elements: Vec<Value>) -> Value {
    match <[Value; 1]>::try_from(elements) {
        Ok([one]) => one,
        Err(elements) => node("or", vec![("elements", Value::Array(elements))]),
    }
}
