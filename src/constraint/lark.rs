//! The Lark dialect: llguidance's (`%json` for JSON values, `[lazy]` for
//! text that ends at the first closer, `&` and `~` on terminals).

use std::fmt::Write;

use serde_json::Value;

use super::call::{Func, FuncBody, Param};
use super::shape::Shape;
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
            // A line end may come before each call.
            let calls = match constraint.parallel {
                true => "(\"\\n\"? call)+",
                false => "\"\\n\"? call",
            };
            let _ = writeln!(out, "start: {think}{calls} TEXT?");
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
        // llguidance's JSON cannot exclude a substring: strings hold no
        // character a marker starts with.
        let order = tools.parameter_order(name);
        let func = shape.func(name, &params, &order, &shape.marker_starts);
        write_func(&mut out, i, &func);
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

/// `func_I`: the function after the call's opener, up to the wrapper's
/// closer.
fn write_func(out: &mut String, i: usize, func: &Func) {
    let head = match func.head.is_empty() {
        true => String::new(),
        false => format!("{} ", literal(&func.head)),
    };
    let name_line = match func.name_line {
        true => "\"\\n\"? ",
        false => "",
    };
    let close = func
        .close
        .map(|c| format!(" {}", literal(c)))
        .unwrap_or_default();
    match &func.body {
        FuncBody::Json { schema, line } => {
            let line = match line {
                true => "\"\\n\"? ",
                false => "",
            };
            let _ = writeln!(out, "func_{i}: {head}{name_line}{line}json_{i}{close}");
            let _ = writeln!(out, "json_{i}: %json {}", bounded(schema.clone()));
        }
        FuncBody::Params(params) => {
            let _ = writeln!(out, "func_{i}: {head}{name_line}\"\\n\"? params_{i}{close}");
            let mut list = Vec::new();
            for (j, param) in params.iter().enumerate() {
                let rule = format!("p_{i}_{j}");
                list.push(match param.required {
                    true => format!("{rule} \"\\n\"?"),
                    false => format!("({rule} \"\\n\"?)?"),
                });
                let value_open = param
                    .value_open
                    .map(|v| format!(" \"\\n\"? {}", literal(v)))
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    "{rule}: {}{value_open} v_{i}_{j}",
                    literal(&param.head)
                );
                write_value(out, param, &format!("v_{i}_{j}"));
            }
            let list = match list.is_empty() {
                true => "\"\"".to_owned(),
                false => list.join(" "),
            };
            let _ = writeln!(out, "params_{i}: {list}");
        }
    }
}

/// A value and its closer.
fn write_value(out: &mut String, param: &Param, rule: &str) {
    let closer = literal(param.close);
    let line = if param.lines { "\"\\n\"? " } else { "" };
    match &param.value {
        ValueGrammar::Text => {
            // The first closer ends the value, as it does for the parser.
            let _ = writeln!(out, "{rule}[lazy]: TEXT? {closer}");
        }
        ValueGrammar::Choice(texts) => {
            let texts: Vec<String> = texts.iter().map(|t| literal(t)).collect();
            let _ = writeln!(out, "{rule}: {line}({}) {line}{closer}", texts.join(" | "));
        }
        // Left out by `Shape::func`.
        ValueGrammar::Never => {}
        ValueGrammar::Json(schema) => {
            let _ = writeln!(out, "{rule}: {line}{rule}_json {line}{closer}");
            let _ = writeln!(out, "{rule}_json: %json {}", bounded(schema.clone()));
        }
    }
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
    value::escape(text, "\\.+*?()|[]{}^$#&-~/")
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
        assert_eq!(literal("say \"hi\"\n"), "\"say \\\"hi\\\"\\n\"");
    }
}
