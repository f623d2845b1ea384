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
    let mut seen = Vec::new();
    let names: Vec<&str> = names
        .iter()
        .copied()
        .filter(|name| {
            let new = !seen.contains(name);
            seen.push(*name);
            new
        })
        .collect();
    let opener = shape.opener();
    let more = match constraint.parallel {
        true => " (\"\\n\"? call)*",
        false => "",
    };
    let think = match (constraint.reasoning, shape.reasoning) {
        (true, Some(_)) => "think? ",
        _ => "",
    };
    match constraint.mode {
        _ if names.is_empty() => {
            let _ = writeln!(out, "start: {think}LEAD?");
        }
        // Text may follow the calls: it holds no marker, so no call.
        ConstraintMode::Lazy => {
            let calls = match constraint.parallel {
                true => "before call_rest (more call_rest)*",
                false => "before call_rest",
            };
            let _ = writeln!(out, "start: {think}(LEAD? | {calls} TEXT?)");
            let _ = writeln!(out, "before[lazy]: LEAD? {}", literal(opener));
            if constraint.parallel {
                let _ = writeln!(out, "more[lazy]: TEXT? {}", literal(opener));
            }
        }
        ConstraintMode::Required | ConstraintMode::Named(_) => {
            let _ = writeln!(out, "start: {think}call{more} TEXT?");
        }
    }
    if let (true, Some((open, close))) = (constraint.reasoning, shape.reasoning) {
        // The prompt may have opened the reasoning itself.
        let _ = writeln!(
            out,
            "think: {}? think_rest \"\\n\"? \"\\n\"?",
            literal(open)
        );
        let _ = writeln!(out, "think_rest[lazy]: TEXT? {}", literal(close));
    }
    if !names.is_empty() {
        write_wrapper(&mut out, shape, opener, names.len(), constraint.parallel);
    }
    for (i, name) in names.iter().enumerate() {
        let params = tools.parameters(name).cloned().unwrap_or(Value::Null);
        let order = tools.parameter_order(name);
        write_func(&mut out, shape, (i, name), &params, &order);
    }
    // Text outside a call and a string's text hold no marker.
    let markers = shape
        .markers
        .iter()
        .map(|m| regex_escape(m))
        .collect::<Vec<_>>()
        .join("|");
    let _ = writeln!(out, "TEXT: /(?s:.+)/ & ~/(?s:.*)({markers})(?s:.*)/");
    // The text the content starts with.
    match shape.object_opens_calls {
        true => {
            let _ = writeln!(out, "LEAD: TEXT & ~/[ \\t\\r\\n]*\\{{(?s:.*)/");
        }
        false => {
            let _ = writeln!(out, "LEAD: TEXT");
        }
    }
    out
}

/// `call`: the opener, then one function (several, where one wrapper
/// holds them and calls are parallel), then the wrapper's closer.
fn write_wrapper(out: &mut String, shape: &Shape, opener: &str, tools: usize, parallel: bool) {
    let close = shape
        .call_close
        .map(|c| format!(" \"\\n\"? {}", literal(c)))
        .unwrap_or_default();
    let (first, more) = match (shape.holds_many(), parallel) {
        (true, true) => ("\"\\n\"? ", " (\"\\n\"? func)*"),
        (true, false) => ("\"\\n\"? ", ""),
        (false, _) => ("", ""),
    };
    let funcs = (0..tools)
        .map(|i| format!("func_{i}"))
        .collect::<Vec<_>>()
        .join(" | ");
    let _ = writeln!(out, "call: {} call_rest", literal(opener));
    let _ = writeln!(out, "call_rest: {first}func{more}{close}");
    let _ = writeln!(out, "func: {funcs}");
}

impl Shape {
    /// The marker that opens a call: the wrapper's, or a function's where
    /// functions stand alone.
    fn opener(&self) -> &'static str {
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
}

/// `func_I`: the function `name` after the call's opener, up to the
/// wrapper's closer.
fn write_func(
    out: &mut String,
    shape: &Shape,
    (i, name): (usize, &str),
    params: &Value,
    order: &[String],
) {
    let starts = class(&shape.marker_starts);
    let func_open = shape.inner_func_open();
    match &shape.body {
        Body::JsonObject {
            name_key,
            args_keys,
            ..
        } => {
            let args = value::reads_back(&value::closed_object(params), &starts);
            // Each key the format reads the arguments under.
            let objects: Vec<Value> = args_keys
                .iter()
                .map(|args_key| {
                    serde_json::json!({
                        "type": "object",
                        "properties": {*name_key: {"const": name}, *args_key: args},
                        "required": [name_key, args_key],
                        "additionalProperties": false,
                    })
                })
                .collect();
            let object = match objects.len() {
                1 => objects[0].clone(),
                _ => serde_json::json!({ "anyOf": objects }),
            };
            let func = match func_open.is_empty() {
                true => String::new(),
                false => format!("{} ", literal(func_open)),
            };
            let _ = writeln!(out, "func_{i}: {func}\"\\n\"? json_{i}");
            let _ = writeln!(out, "json_{i}: %json {}", bounded(object));
        }
        Body::NameArgs {
            args_open,
            func_close,
            ..
        } => {
            let head = literal(&format!("{func_open}{name}{args_open}"));
            let close = func_close
                .map(|c| format!(" {}", literal(c)))
                .unwrap_or_default();
            let args = value::reads_back(&value::closed_object(params), &starts);
            let _ = writeln!(out, "func_{i}: {head} args_{i}{close}");
            let _ = writeln!(out, "args_{i}: %json {}", bounded(args));
        }
        Body::Markup(markup) => write_markup_func(out, shape, markup, (i, name), params, order),
    }
}

fn write_markup_func(
    out: &mut String,
    shape: &Shape,
    m: &Markup,
    (i, name): (usize, &str),
    params: &Value,
    order: &[String],
) {
    // The opener, the name and the byte that ends it are one literal.
    let head = literal(&format!(
        "{}{}{}",
        shape.inner_func_open(),
        m.quote(name),
        m.name_end
    ));
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
        "func_{i}: {head}{name_line} \"\\n\"? params_{i}{func_close}"
    );
    let schema = value::closed_object(params);
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut list = Vec::new();
    let starts = class(&shape.marker_starts);
    if let Some(properties) = schema["properties"].as_object() {
        // In the order declared: the order the chat template showed the
        // model.
        let properties: Vec<(&String, &Value)> = order
            .iter()
            .filter_map(|key| properties.get_key_value(key))
            .collect();
        for (j, (key, prop)) in properties.into_iter().enumerate() {
            let rule = format!("p_{i}_{j}");
            list.push(match required.contains(&key.as_str()) {
                true => format!("{rule} \"\\n\"?"),
                false => format!("({rule} \"\\n\"?)?"),
            });
            let value_open = m
                .value_open
                .map(|v| format!(" \"\\n\"? {}", literal(v)))
                .unwrap_or_default();
            let open = literal(&format!("{}{}{}", m.param_open, m.quote(key), m.key_end));
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

/// `chars` escaped for a regex class (`[^…]`).
fn class(chars: &str) -> String {
    escape(chars, "\\]^-[")
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

/// `text` matched as written inside a Lark regex (`/…/`): its meta
/// characters escaped, and the `/` that would end it (`\<` would be a word
/// boundary, so only these).
fn regex_escape(text: &str) -> String {
    escape(text, "\\.+*?()|[]{}^$#&-~/")
}

/// `text` with a backslash before each of `meta`.
fn escape(text: &str, meta: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if meta.contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_are_matched_as_written() {
        // `<` and `>` stay bare: escaped, they would be word boundaries.
        assert_eq!(regex_escape("<|im_end|>"), "<\\|im_end\\|>");
        assert_eq!(regex_escape("</tool_call>"), "<\\/tool_call>");
        assert_eq!(regex_escape("[TOOL_CALLS]"), "\\[TOOL_CALLS\\]");
        assert_eq!(class("<[-"), "<\\[\\-");
        assert_eq!(literal("say \"hi\"\n"), "\"say \\\"hi\\\"\\n\"");
    }
}
