//! Writing calls in a [`Layout`]: the group and call markers, and each
//! argument as the layout spells a string or an integer.

use super::{CallLayout, CallSyntax, JsonCall, JsonLayout, XmlLayout};

/// The markup a transcript's calls are written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// A format whose arguments are XML-like parameters ([`XmlLayout`]):
    /// values verbatim.
    Xml(&'static XmlLayout),
    /// A format whose arguments are a JSON object ([`JsonLayout`]): values
    /// are JSON strings, properly escaped, except the integers, written as
    /// JSON numbers.
    Json(&'static JsonLayout),
    /// A format whose calls are written in a call syntax ([`CallLayout`]:
    /// Python's `NAME(key='v', n=3)`, Gemma's `call:NAME{key:<|"|>v<|"|>,n:3}`):
    /// strings in that syntax, integers bare.
    Call(&'static CallLayout),
}

/// `value` as an element named `key` (its tag, or its `name` attribute in
/// a value element), its text entity-escaped.
fn element(out: &mut String, prefix: &str, tag: Option<(&str, &str)>, key: &str, value: &str) {
    let value = value
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    match tag {
        None => out.push_str(&format!("\n{prefix}<{key}>{value}{prefix}</{key}>")),
        Some((tag, attrs)) => out.push_str(&format!(
            "\n{prefix}<{tag} name=\"{key}\"{attrs}>{value}{prefix}</{tag}>"
        )),
    }
}

/// `text` as Python's `repr` writes a string, preferring `quote`.
pub fn python_string(out: &mut String, text: &str, quote: char) {
    let other = if quote == '\'' { '"' } else { '\'' };
    let quote = if text.contains(quote) && !text.contains(other) {
        other
    } else {
        quote
    };
    out.push(quote);
    for ch in text.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c == '\x7f' => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push(quote);
}

pub(super) fn open_group(layout: Layout, out: &mut String) {
    match layout {
        Layout::Json(json) => out.push_str(json.group_open),
        Layout::Call(call) => out.push_str(call.group_open),
        Layout::Xml(_) => {}
    }
}

pub(super) fn separate_calls(layout: Layout, out: &mut String) {
    match layout {
        Layout::Json(json) => out.push_str(json.separator),
        Layout::Call(call) => out.push_str(call.separator),
        Layout::Xml(_) => out.push('\n'),
    }
}

pub(super) fn close_group(layout: Layout, out: &mut String) {
    match layout {
        Layout::Json(json) => out.push_str(json.group_close),
        Layout::Call(call) => out.push_str(call.group_close),
        Layout::Xml(_) => {}
    }
}

/// Opens the call `name`, the `index`th of its group.
pub(super) fn open_call(layout: Layout, out: &mut String, name: &str, index: usize) {
    match layout {
        Layout::Xml(xml) => {
            out.push_str(xml.call_open);
            out.push_str(name);
            out.push_str(xml.name_end);
        }
        Layout::Json(json) => {
            out.push_str(json.call_open);
            // Each shape ends with the arguments' `{`: `parameter` writes
            // `, ` before every value but the first.
            match json.call {
                JsonCall::Object {
                    id_key,
                    name_key,
                    args_key,
                } => {
                    out.push('{');
                    if let Some(id_key) = id_key {
                        json_string(out, id_key);
                        out.push_str(": ");
                        json_string(out, &index.to_string());
                        out.push_str(", ");
                    }
                    json_string(out, name_key);
                    out.push_str(": ");
                    json_string(out, name);
                    out.push_str(", ");
                    json_string(out, args_key);
                    out.push_str(": {");
                }
                JsonCall::NameKey => {
                    out.push('{');
                    json_string(out, name);
                    out.push_str(": {");
                }
                JsonCall::Named {
                    index: with_index,
                    after_name,
                } => {
                    out.push_str(name);
                    if with_index {
                        out.push(':');
                        out.push_str(&index.to_string());
                    }
                    out.push_str(after_name);
                    out.push('{');
                }
            }
        }
        Layout::Call(call) => {
            out.push_str(call.call_open);
            out.push_str(name);
            out.push_str(match call.syntax {
                CallSyntax::Python { .. } => "(",
                CallSyntax::Gemma { .. } => "{",
                CallSyntax::Elements { .. } => "\">",
            });
        }
    }
}

pub(super) fn close_call(layout: Layout, out: &mut String) {
    match layout {
        Layout::Xml(xml) => out.push_str(xml.call_close),
        Layout::Json(json) => {
            out.push_str(match json.call {
                JsonCall::Object { .. } | JsonCall::NameKey => "}}",
                JsonCall::Named { .. } => "}",
            });
            out.push_str(json.call_close);
        }
        Layout::Call(call) => {
            match call.syntax {
                CallSyntax::Python { .. } => out.push(')'),
                CallSyntax::Gemma { .. } => out.push('}'),
                CallSyntax::Elements { prefix, call, .. } => {
                    out.push('\n');
                    out.push_str(prefix);
                    out.push_str("</");
                    out.push_str(call);
                    out.push('>');
                }
            }
            out.push_str(call.call_close);
        }
    }
}

/// A call-syntax argument's key: the separator before it, none before the
/// first.
fn call_key(call: &CallLayout, out: &mut String, key: &str) {
    match call.syntax {
        CallSyntax::Python { .. } => {
            if !out.ends_with('(') {
                out.push_str(", ");
            }
            out.push_str(key);
            out.push('=');
        }
        CallSyntax::Gemma { .. } => {
            if !out.ends_with('{') {
                out.push(',');
            }
            out.push_str(key);
            out.push(':');
        }
        CallSyntax::Elements { .. } => unreachable!("elements are written whole"),
    }
}

/// `text` as a JSON string (quoted and escaped, non-ASCII kept).
fn json_string(out: &mut String, text: &str) {
    out.push_str(&serde_json::to_string(text).expect("a string serializes"));
}

/// JSON arguments: the separator before an argument, none before the
/// first.
fn json_key(out: &mut String, key: &str) {
    if !out.ends_with('{') {
        out.push_str(", ");
    }
    json_string(out, key);
    out.push_str(": ");
}

pub(super) fn parameter(layout: Layout, out: &mut String, key: &str, value: &str) {
    match layout {
        Layout::Xml(xml) => {
            out.push_str(xml.param_open);
            out.push_str(key);
            out.push_str(xml.key_end);
            out.push_str(value);
            out.push_str(xml.value_end);
        }
        Layout::Json(_) => {
            json_key(out, key);
            json_string(out, value);
        }
        Layout::Call(CallLayout {
            syntax: CallSyntax::Elements {
                prefix, value: tag, ..
            },
            ..
        }) => element(out, prefix, *tag, key, value),
        Layout::Call(call) => {
            call_key(call, out, key);
            match call.syntax {
                CallSyntax::Python { quote } => python_string(out, value, quote),
                CallSyntax::Gemma { delimiter } => {
                    out.push_str(delimiter);
                    out.push_str(value);
                    out.push_str(delimiter);
                }
                CallSyntax::Elements { .. } => unreachable!("written above"),
            }
        }
    }
}

/// An integer argument: text in the XML layouts, a JSON number in JSON.
pub(super) fn integer_parameter(layout: Layout, out: &mut String, key: &str, value: usize) {
    match layout {
        Layout::Json(_) => {
            json_key(out, key);
            out.push_str(&value.to_string());
        }
        Layout::Call(CallLayout {
            syntax: CallSyntax::Elements {
                prefix, value: tag, ..
            },
            ..
        }) => element(out, prefix, *tag, key, &value.to_string()),
        Layout::Call(call) => {
            call_key(call, out, key);
            out.push_str(&value.to_string());
        }
        Layout::Xml(_) => parameter(layout, out, key, &value.to_string()),
    }
}
