//! The structural-tag dialect: xgrammar's `{"type": "structural_tag",
//! "format": …}`, which vLLM and SGLang take as `structured_outputs.
//! structural_tag` or `response_format`. A call is a `tag` from its opener
//! to its closer; `auto` is `triggered_tags` on the opener.

use serde_json::{json, Value};

use super::call::{Func, FuncBody, Param, Piece, ID, INDEX};
use super::gbnf;
use super::shape::{Guard, Messages, Shape};
use super::value::{self, ValueGrammar};
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
    if shape.bare_python.is_some() {
        // No marker opens a call, so there is no tag to make: the format
        // is the GBNF grammar whole.
        let grammar =
            gbnf::write(shape, tools, names, constraint).unwrap_or_else(|_| NEVER.to_owned());
        let format = json!({"type": "grammar", "grammar": grammar});
        return node("structural_tag", vec![("format", format)]);
    }
    if let Some(messages) = &shape.messages {
        let format = message_stream(shape, messages, tools, names, constraint);
        return node("structural_tag", vec![("format", format)]);
    }
    let markers: Vec<&str> = shape.markers.clone();
    let opener = shape.opener();
    // Python calls: no style of xgrammar's reads Python literals, so the
    // wrapper holds a grammar of its own, the GBNF dialect's.
    let python = shape
        .call_syntax()
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
    let (end, funcs_close) = match (
        shape.call_close,
        funcs.first().and_then(|f| f.close.as_deref()),
    ) {
        (Some(close), _) => (close, true),
        (None, Some(close)) => (close, false),
        // A list with no closer of its own ends with its `]` (xgrammar
        // wants an end where the content repeats); a grammar's ends itself.
        (None, None) if shape.holds_list() && python.is_none() => ("]", true),
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
        // Bodies after a separator (`; `); the text after the last one is
        // the trail's.
        (false, false, true) => match shape.separator {
            Some(separator) => plus(seq(vec![
                one_of,
                optional(seq(vec![lit(&separator.to_string()), optional(lit(" "))])),
            ])),
            None => one_of,
        },
        (false, false, false) => one_of,
    };
    // The same bodies with no marker around them, at the output's start.
    let bare = match (shape.bare, end) {
        (false, _) => None,
        (true, "]") => Some(seq(vec![content.clone(), lit("]")])),
        (true, _) => Some(content.clone()),
    };
    let tag = match (end, shape.separator) {
        // Bodies that repeat with no end: xgrammar wants a tag's repeating
        // content to end, and no triggered tags are written here (below).
        ("", Some(_)) => seq(vec![lit(opener), content]),
        _ => node(
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
        ),
    };
    let (lead, trail) = (
        guarded(shape.lead(), &markers),
        guarded(shape.trail(), &markers),
    );
    // xgrammar never sees a trigger that holds a marker it excludes from
    // the text (Kimi K3's `<|open|>tools<|sep|>` holds `<|sep|>`): the
    // trigger is the opener up to that marker, and the tag's begin the
    // whole opener.
    let trigger = markers
        .iter()
        .filter(|m| **m != opener)
        .filter_map(|m| opener.get(1..)?.find(m).map(|at| at + 1))
        .min()
        .map_or(opener, |end| &opener[..end]);
    // Where text may not start a call (a bare body at the start, one
    // after a separator), triggered tags' free text cannot say so: the
    // calls are written in sequence, each free text holding no marker.
    let guarded_lazy = shape.lead().is_some() || shape.trail().is_some();
    let calls = match constraint.mode {
        _ if names.is_empty() => lead,
        ConstraintMode::Lazy if guarded_lazy => {
            let calls = match constraint.parallel {
                true => plus(seq(vec![tag, trail.clone()])),
                false => seq(vec![tag, trail.clone()]),
            };
            let mut ways = vec![lead.clone()];
            // The opener's calls, where the format has one.
            ways.extend((!opener.is_empty()).then(|| seq(vec![lead, calls])));
            ways.extend(bare.map(|bare| seq(vec![bare, trail])));
            or(ways)
        }
        ConstraintMode::Lazy => node(
            "triggered_tags",
            vec![
                ("triggers", json!([trigger])),
                ("tags", Value::Array(vec![tag])),
                ("at_least_one", Value::Bool(false)),
                ("stop_after_first", Value::Bool(!constraint.parallel)),
                (
                    "excludes",
                    // A marker the trigger begins with (MiniMax-M3's
                    // namespace token) is left to the trigger: xgrammar
                    // misses a trigger that starts with an excluded string.
                    json!(markers
                        .iter()
                        .filter(|m| **m != opener && !trigger.starts_with(**m))
                        .collect::<Vec<_>>()),
                ),
            ],
        ),
        ConstraintMode::Required | ConstraintMode::Named(_) => {
            // A line end, or a blank line (DeepSeek's templates write one
            // before the calls), may come before each call.
            let calls = match constraint.parallel {
                true => plus(seq(vec![newline(), newline(), tag])),
                false => seq(vec![newline(), newline(), tag]),
            };
            let calls = match bare {
                Some(bare) if opener.is_empty() => bare,
                Some(bare) => or(vec![calls, bare]),
                None => calls,
            };
            // Layout markers the model writes around its calls, as in
            // Lark.
            let layout = match shape.layout.is_empty() {
                true => vec![],
                false => {
                    let one = optional(or(shape.layout.iter().map(|m| lit(m)).collect()));
                    vec![one.clone(), one]
                }
            };
            seq([layout.clone(), vec![calls, optional(trail)], layout].concat())
        }
    };
    let top = match (constraint.reasoning, shape.reasoning) {
        (true, Some((open, close))) => {
            // The prompt may have opened the reasoning itself; its text
            // holds no marker, its closer included: the first one ends it.
            // Without the opener, the text stands at the output's start,
            // where it may not start a bare body (as in Lark).
            let text = json!({"type": "any_text", "excludes": markers});
            let opened = match shape.lead() {
                None => vec![optional(lit(open)), text],
                Some(lead) => vec![or(vec![
                    seq(vec![lit(open), text]),
                    guarded(Some(lead), &markers),
                ])],
            };
            let think = seq([opened, vec![lit(close), newline(), newline()]].concat());
            seq(vec![optional(think), calls])
        }
        _ => calls,
    };
    node("structural_tag", vec![("format", top)])
}

/// A stream of messages, as the Lark and GBNF dialects write it
/// (`ebnf::write_messages`): answers (and reasoning, where asked for)
/// before the calls, each call a message of its own, then the turn's end.
fn message_stream(
    shape: &Shape,
    messages: &Messages,
    tools: &Tools,
    names: &[&str],
    constraint: &Constraint,
) -> Value {
    let markers = &shape.markers;
    let text = || json!({"type": "any_text", "excludes": markers});
    let tag = |begins: &[String], ends: &[&str]| {
        or(begins
            .iter()
            .map(|begin| {
                node(
                    "tag",
                    vec![
                        ("begin", Value::from(begin.as_str())),
                        ("content", text()),
                        ("end", json!(ends)),
                    ],
                )
            })
            .collect())
    };
    let sep = lit(&messages.separator);
    let eot = match messages.end_of_turn.is_empty() {
        true => None,
        false => Some(optional(or(messages
            .end_of_turn
            .iter()
            .map(|e| lit(e))
            .collect()))),
    };
    let with_eot = |value: Value| match &eot {
        Some(eot) => seq(vec![value, eot.clone()]),
        None => value,
    };
    let one = or(names
        .iter()
        .map(|name| {
            let params = tools.parameters(name).cloned().unwrap_or(Value::Null);
            let order = tools.parameter_order(name);
            // xgrammar's JSON excludes the markers themselves.
            let call = shape.func(name, &params, &order, "");
            let wrapper = (shape.call_open, shape.call_close);
            func(&messages.call(name, call, wrapper), true, markers)
        })
        .collect());
    let calls = with_eot(match constraint.parallel {
        true => seq(vec![
            one.clone(),
            optional(plus(seq(vec![sep.clone(), one]))),
        ]),
        false => one,
    });
    let thought = messages.reasoning.as_ref().filter(|_| constraint.reasoning);
    let (mut with_sep, mut thought_sep, mut last) = (Vec::new(), None, Vec::new());
    let thought: &[String] = thought.map_or(&[], std::slice::from_ref);
    for (answer, head) in [(true, &messages.content[..]), (false, thought)] {
        if head.is_empty() {
            continue;
        }
        let before = match messages.closes.is_empty() {
            // No closer: the text ends at the next message, or the output's end.
            true => tag(head, &[messages.separator.as_str()]),
            false => seq(vec![tag(head, &messages.closes), sep.clone()]),
        };
        with_sep.push(before.clone());
        if !answer {
            thought_sep = Some(before);
            continue;
        }
        // An answer may end the turn itself.
        if !messages.end_of_turn.is_empty() {
            last.push(tag(head, &messages.end_of_turn));
        }
        last.push(match messages.closes.is_empty() {
            true => seq(vec![or(head.iter().map(|h| lit(h)).collect()), text()]),
            false => with_eot(tag(head, &messages.closes)),
        });
    }
    match constraint.mode {
        ConstraintMode::Lazy => {
            last.extend((!names.is_empty()).then_some(calls));
            let ends = or(last);
            optional(match with_sep.is_empty() {
                true => ends,
                false => seq(vec![optional(plus(or(with_sep))), ends]),
            })
        }
        // Reasoning may come first, where asked for.
        _ => match thought_sep {
            Some(thought) => seq(vec![optional(thought), calls]),
            None => calls,
        },
    }
}

/// Text holding no marker that, where `guard` says, opens no call: after
/// whitespace and the guard's `after`, its first character is none of
/// `opens`. Where that character starts a marker, the text after it holds
/// no marker's rest either, so that no marker spans the two pieces.
fn guarded(guard: Option<Guard>, markers: &[&str]) -> Value {
    let text = |excludes: Vec<&str>| json!({"type": "any_text", "excludes": excludes});
    let Some(Guard {
        after,
        opens,
        line_opens,
    }) = guard
    else {
        return text(markers.to_vec());
    };
    let class = |chars: &str| value::escape(chars, "\\]^-[");
    if !line_opens.is_empty() {
        // No line may open a body: a regular expression, line by line (a
        // format whose bodies open lines has no marker to keep out too:
        // `Shape::of`). Whitespace before the first character that counts
        // takes a line end only where that character is kept from opening
        // a line as well.
        let lines = line_opens.chars().all(|c| opens.contains(c));
        let newline = if lines { "\\n" } else { "" };
        let first = class(&format!("{after}{opens}"));
        let (after, line_first) = (class(&after), class(&line_opens));
        return json!({"type": "regex", "pattern": format!(
            "[ \\t\\r{newline}{after}]*([^ \\t\\r\\n{first}][^\\n]*)?\
             (\\n[ \\t\\r\\n]*([^ \\t\\r\\n{line_first}][^\\n]*)?)*"
        )});
    }
    let skip = format!("[ \\t\\r\\n{}]*", class(&after));
    let mut starts = String::new();
    for c in markers.iter().filter_map(|m| m.chars().next()) {
        if !starts.contains(c) && !opens.contains(c) && !after.contains(c) {
            starts.push(c);
        }
    }
    let regex = |pattern: String| json!({"type": "regex", "pattern": pattern});
    let first = format!("[^ \\t\\r\\n{}]", class(&format!("{after}{opens}{starts}")));
    let mut ways = vec![
        regex(skip.clone()),
        seq(vec![
            regex(format!("{skip}{first}")),
            text(markers.to_vec()),
        ]),
    ];
    if !starts.is_empty() {
        let rests = markers
            .iter()
            .map(|m| &m[m.chars().next().map_or(0, char::len_utf8)..]);
        let excludes = markers
            .iter()
            .copied()
            .chain(rests.filter(|r| !r.is_empty()));
        ways.push(seq(vec![
            regex(format!("{skip}[{}]", class(&starts))),
            text(excludes.collect()),
        ]));
    }
    or(ways)
}

/// A function after the call's opener; its closer is left to the tag
/// where the tag ends with it (`with_close` false).
fn func(f: &Func, with_close: bool, markers: &[&str]) -> Value {
    let mut parts = Vec::new();
    if !f.head.is_empty() {
        parts.push(lit(&f.head));
    }
    parts.extend(f.rest.iter().map(piece));
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
    if !f.after_body.is_empty() {
        parts.push(lit(f.after_body));
    }
    if let (true, Some(close)) = (with_close, f.close.as_deref()) {
        parts.push(lit(close));
    }
    parts.extend(f.tail.iter().map(piece));
    seq(parts)
}

/// A piece of a function's head or tail.
fn piece(piece: &Piece) -> Value {
    let regex = |pattern: &str| json!({"type": "regex", "pattern": pattern});
    match piece {
        Piece::Text(text) => lit(text),
        Piece::Index => regex(INDEX),
        Piece::Id => regex(ID),
        Piece::OptionalId(open) => optional(seq(vec![lit(open), regex(ID)])),
        Piece::Maybe(text) => optional(lit(text)),
    }
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
            value_tag(open, content, &p.close),
        ]),
        None => value_tag(&p.head, content, &p.close),
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
