//! The Lark dialect: llguidance's (`%json` for JSON values, `[lazy]` for
//! text that ends at the first closer, `&` and `~` on terminals).

use std::fmt::Write;

use serde_json::Value;

use super::shape::{Body, Markup, Shape};
use super::value::{self, ValueGrammar};
use super::{Constraint, ConstraintMode};
use crate::tools::Tools;

/// The grammar for the calls to `names` (declared in `tools`).
pub(super) fn write(
    shape: &Shape,
    tools: &Tools,
    names: &[&str],
    constraint: &Constraint,
) -> String {
    let mut out = String::from("%llguidance {}\n\n");
    let mut names: Vec<&str> = names.to_vec();
    names.dedup();
    let opener = shape.opener();
    let calls = if constraint.parallel {
        "call (\"\\n\"? call)*"
    } else {
        "call"
    };
    let think = match (constraint.reasoning, shape.reasoning) {
        (true, Some(_)) => "think? ",
        _ => "",
    };
    match constraint.mode {
        _ if names.is_empty() => {
            let _ = writeln!(out, "start: {think}TEXT?");
        }
        ConstraintMode::Lazy => {
            let more = if constraint.parallel {
                " (\"\\n\"? call)*"
            } else {
                ""
            };
            let _ = writeln!(out, "start: {think}(TEXT? | before call_rest{more})");
            let _ = writeln!(out, "before[lazy]: TEXT? {}", literal(opener));
        }
        ConstraintMode::Required | ConstraintMode::Named(_) => {
            let _ = writeln!(out, "start: {think}{calls}");
        }
    }
    if let (true, Some((open, close))) = (constraint.reasoning, shape.reasoning) {
        let _ = writeln!(out, "think: {} think_rest \"\\n\"*", literal(open));
        let _ = writeln!(out, "think_rest[lazy]: /(?s:.*)/ {}", literal(close));
    }
    let alternatives = |prefix: &str| {
        (0..names.len())
            .map(|i| format!("{prefix}_{i}"))
            .collect::<Vec<_>>()
            .join(" | ")
    };
    if !names.is_empty() {
        let _ = writeln!(out, "call: {} call_rest", literal(opener));
        let _ = writeln!(out, "call_rest: {}", alternatives("call"));
    }
    for (i, name) in names.iter().enumerate() {
        let params = tools.parameters(name).cloned().unwrap_or(Value::Null);
        write_call(&mut out, shape, i, name, &params);
    }
    // Text outside a call and a string's text hold no marker.
    let markers = shape
        .markers
        .iter()
        .map(|m| regex_escape(m))
        .collect::<Vec<_>>()
        .join("|");
    let _ = writeln!(out, "TEXT: /(?s:.+)/ & ~/(?s:.*)({markers})(?s:.*)/");
    out
}

impl Shape {
    /// The marker that opens a call: the wrapper's, or a function's where
    /// functions stand alone.
    fn opener(&self) -> &'static str {
        match (&self.call_open, &self.body) {
            (Some(open), _) => open,
            (None, Body::Markup(m)) => m.func_open.unwrap_or_default(),
            (None, Body::JsonObject { .. }) => "",
        }
    }
}

/// `call_I`: the call to `name` after its opener.
fn write_call(out: &mut String, shape: &Shape, i: usize, name: &str, params: &Value) {
    let close = shape
        .call_close
        .map(|c| format!(" \"\\n\"? {}", literal(c)));
    let close = close.unwrap_or_default();
    match &shape.body {
        Body::JsonObject {
            func_open,
            name_key,
            args_key,
        } => {
            let object = serde_json::json!({
                "type": "object",
                "properties": {
                    *name_key: {"const": name},
                    *args_key: value::reads_back(&value::closed_object(params), &class(&shape.marker_starts)),
                },
                "required": [name_key, args_key],
                "additionalProperties": false,
            });
            let func = func_open
                .map(|f| format!("\"\\n\"? {} ", literal(f)))
                .unwrap_or_default();
            let _ = writeln!(out, "call_{i}: {func}\"\\n\"? json_{i}{close}");
            let _ = writeln!(out, "json_{i}: %json {}", bounded(object));
        }
        Body::Markup(markup) => write_markup_call(out, shape, markup, i, name, params, &close),
    }
}

fn write_markup_call(
    out: &mut String,
    shape: &Shape,
    m: &Markup,
    i: usize,
    name: &str,
    params: &Value,
    close: &str,
) {
    // The opener, the name and the byte that ends it are one literal.
    let func_open = match shape.call_open {
        Some(_) => m.func_open.unwrap_or_default(),
        None => "",
    };
    let head = literal(&format!("{func_open}{name}{}", m.name_end));
    // A line end may come between the wrapper's opener and the function's.
    let func = match func_open.is_empty() {
        true => "",
        false => "\"\\n\"? ",
    };
    let name_line = match m.name_end.is_empty() && m.name_line {
        true => " \"\\n\"?",
        false => "",
    };
    let func_close = m
        .func_close
        .map(|c| format!(" {}", literal(c)))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "call_{i}: {func}{head}{name_line} \"\\n\"? params_{i}{func_close}{close}"
    );
    let schema = value::closed_object(params);
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut list = Vec::new();
    let starts = class(&shape.marker_starts);
    if let Some(properties) = schema["properties"].as_object() {
        for (j, (key, prop)) in properties.iter().enumerate() {
            let rule = format!("p_{i}_{j}");
            list.push(match required.contains(&key.as_str()) {
                true => format!("{rule} \"\\n\"?"),
                false => format!("({rule} \"\\n\"?)?"),
            });
            let value_open = m
                .value_open
                .map(|v| format!(" \"\\n\"? {}", literal(v)))
                .unwrap_or_default();
            let open = literal(&format!("{}{key}{}", m.param_open, m.key_end));
            let _ = writeln!(out, "{rule}: {open}{value_open} v_{i}_{j}");
            write_value(out, m, &starts, &format!("v_{i}_{j}"), prop);
        }
    }
    let _ = writeln!(
        out,
        "params_{i}: {}",
        match list.is_empty() {
            true => "\"\"".to_owned(),
            false => list.join(" "),
        }
    );
}

/// A value and its closer.
fn write_value(out: &mut String, m: &Markup, starts: &str, rule: &str, schema: &Value) {
    let closer = literal(m.param_close);
    let line = if m.value_lines { "\"\\n\"? " } else { "" };
    match value::of(schema, starts) {
        ValueGrammar::Text => {
            // The first closer ends the value, as it does for the parser.
            let _ = writeln!(out, "{rule}[lazy]: TEXT? {closer}");
        }
        ValueGrammar::Choice(texts) => {
            let texts: Vec<String> = texts.iter().map(|t| literal(t)).collect();
            let _ = writeln!(out, "{rule}: {line}({}) {line}{closer}", texts.join(" | "));
        }
        ValueGrammar::Json(schema) => {
            let _ = writeln!(out, "{rule}: {line}{rule}_json {line}{closer}");
            let _ = writeln!(out, "{rule}_json: %json {}", bounded(schema));
        }
    }
}

/// `chars` escaped for a regex class.
fn class(chars: &str) -> String {
    let mut starts = String::new();
    for c in chars.chars() {
        if "\\]^-[".contains(c) {
            starts.push('\\');
        }
        starts.push(c);
    }
    starts
}

/// `schema` with the whitespace between its JSON's tokens bounded: a model
/// that prefers a line end to the next token would otherwise write line
/// ends until `max_tokens`.
fn bounded(mut schema: Value) -> Value {
    if let Value::Object(object) = &mut schema {
        object.insert(
            "x-guidance".into(),
            serde_json::json!({"whitespace_pattern": WHITESPACE}),
        );
    }
    schema
}

/// The whitespace a JSON value may hold between two tokens.
const WHITESPACE: &str = "[ \\t\\n\\r]{0,8}";

/// `text` as a Lark string literal.
fn literal(text: &str) -> String {
    // A JSON string is a Lark string: the same escapes.
    Value::from(text).to_string()
}

/// `text` matched as written inside a Lark regex (`/…/`).
fn regex_escape(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        // The regex's meta characters, and the `/` that ends it (`\<` would
        // be a word boundary).
        if "\\.+*?()|[]{}^$#&-~/".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
