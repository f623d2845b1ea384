//! The Lark dialect: llguidance's (`%json` for JSON values, `[lazy]` for
//! text that ends at the first closer, `&` and `~` on terminals).

use std::fmt::Write;

use serde_json::Value;

use super::ebnf::{self, Place, Syntax};
use super::gbnf_json::JsonRules;
use super::python;
use super::shape::{Guard, Shape};
use super::value;
use super::Constraint;
use crate::tools::Tools;

/// The grammar for the calls to `names` (declared in `tools`).
pub(super) fn write(
    shape: &Shape,
    tools: &Tools,
    names: &[&str],
    constraint: &Constraint,
) -> String {
    let mut out = String::from("%llguidance {}\n\n");
    let mut lark = Lark {
        shape,
        python: shape.json_rules(),
    };
    // llguidance's JSON cannot exclude a substring: strings hold no
    // character a marker starts with.
    let starts = &shape.marker_starts;
    ebnf::write(&mut out, &mut lark, shape, tools, names, constraint, starts);
    out
}

struct Lark<'a> {
    shape: &'a Shape,
    /// Python values' rules, written as GBNF's and respelled.
    python: JsonRules,
}

impl Syntax for Lark<'_> {
    fn name(&self, rule: &str) -> String {
        rule.to_owned()
    }

    fn literal(&self, text: &str) -> String {
        literal(text)
    }

    fn define(&mut self, out: &mut String, rule: &str, body: &str) {
        let _ = writeln!(out, "{rule}: {body}");
    }

    fn text_then(&mut self, out: &mut String, rule: &str, closer: &str, place: Place) {
        let text = match place {
            Place::Start => self.any_lead(),
            Place::AfterCall => self.any_text(),
            Place::Inside => "TEXT?".into(),
        };
        let _ = writeln!(out, "{rule}[lazy]: {text} {}", literal(closer));
    }

    fn json(&mut self, out: &mut String, rule: &str, schema: &Value) {
        // `%json` writes JSON only: Python literals are the GBNF rules.
        if self.shape.call_syntax() {
            let mut rules = String::new();
            self.python.write(&mut rules, rule, schema);
            out.push_str(&python::lark_of(&rules));
            return;
        }
        let _ = writeln!(out, "{rule}: %json {}", bounded(schema.clone()));
    }

    fn kwargs(&mut self, out: &mut String, rule: &str, schema: &Value) {
        let mut rules = String::new();
        self.python.write_kwargs(&mut rules, rule, schema);
        out.push_str(&python::lark_of(&rules));
    }

    fn pattern(&self, class: &str) -> String {
        format!("/{class}/")
    }

    fn any_text(&self) -> String {
        match self.shape.trail() {
            Some(_) => "TRAIL?".into(),
            None => "TEXT?".into(),
        }
    }

    fn any_lead(&self) -> String {
        "LEAD?".into()
    }

    fn any_lead_line(&self) -> String {
        // One lexeme: a text lexeme followed by its own line end would
        // have taken the line end into itself.
        "LEAD_LINE".into()
    }

    fn finish(&mut self, out: &mut String) {
        let mut rules = String::new();
        self.python.finish(&mut rules);
        out.push_str(&python::lark_of(&rules));
        // Text outside a call and a string's text hold no marker.
        let markers = self
            .shape
            .text_markers()
            .iter()
            .map(|m| regex_escape(m))
            .collect::<Vec<_>>()
            .join("|");
        let _ = match markers.is_empty() {
            true => writeln!(out, "TEXT: /(?s:.+)/"),
            false => writeln!(out, "TEXT: /(?s:.+)/ & ~/(?s:.*)({markers})(?s:.*)/"),
        };
        // The text the content starts with, and the text after a call.
        let _ = writeln!(out, "LEAD: {}", guarded(self.shape.lead()));
        if let Some(trail) = self.shape.trail() {
            let _ = writeln!(out, "TRAIL: {}", guarded(Some(trail)));
        }
        if self.shape.bare_python == Some(true) {
            let _ = writeln!(out, "LEAD_LINE: LEAD & /(?s:.*)\\n/");
        }
    }
}

/// Text that holds no marker and, where `guard` says, starts with no body.
fn guarded(guard: Option<Guard>) -> String {
    match guard {
        None => "TEXT".into(),
        Some(Guard {
            after,
            opens,
            line_opens,
        }) => {
            let mut text = String::from("TEXT");
            let [after, opens, line_opens] =
                [after, opens, line_opens].map(|c| value::escape(&c, "\\]^-["));
            if !opens.is_empty() {
                text += &format!(" & ~/[ \\t\\r\\n{after}]*[{opens}](?s:.*)/");
            }
            if !line_opens.is_empty() {
                text += &format!(" & ~/(?s:.*)\\n[ \\t\\r\\n]*[{line_opens}](?s:.*)/");
            }
            text
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
