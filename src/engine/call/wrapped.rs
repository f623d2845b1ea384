//! A lone parameter that holds the whole arguments (a description's
//! `wrapped_arguments`: DSML's `arguments`, `input`). Its value is held,
//! with nothing written, until the call shows what it is: when it is the
//! call's only parameter, its tool declares parameters but not this one,
//! and its value is a JSON object (or a JSON string holding one) whose keys
//! are all the tool's parameters, the object is the call's arguments,
//! written as JSON arguments are (typed and checked by the schema);
//! otherwise the parameter is written as it would have been, late.

use std::mem;

use serde_json::Value as Json;

use super::value::ValueKind;
use super::CallWriter;
use crate::engine::body::args::ArgsWriter;
use crate::event::DiagnosticKind as Kind;
use crate::json::reader::JsonReader;
use crate::options::Options;
use crate::schema::{Candidates, Typing};
use crate::sink::{diagnostic, Sink};

/// The held parameter.
#[derive(Default)]
pub(crate) struct Wrapped {
    /// A parameter is held.
    pub active: bool,
    /// Its value has ended (and may be the arguments).
    ended: bool,
    name: String,
    kind: Option<ValueKind>,
    inline: bool,
    /// Its value's text.
    pub text: String,
}

impl CallWriter {
    /// Whether parameter `name` is held as possibly the call's arguments.
    pub(super) fn may_wrap_arguments(&self, name: &str, opts: &Options) -> bool {
        if self.param_count > 0 || opts.typing == Typing::Strings {
            return false;
        }
        let Some(schema) = opts.tools.as_deref().and_then(|t| t.schema(&self.name)) else {
            return false;
        };
        schema.declares_properties() && schema.param_in(name, Candidates::ALL).is_none()
    }

    /// Holds parameter `name`, started with nothing written.
    pub(super) fn hold_wrapped(&mut self, name: &str, inline: bool, kind: ValueKind) {
        self.wrapped.active = true;
        self.wrapped.ended = false;
        self.wrapped.name.clear();
        self.wrapped.name.push_str(name);
        self.wrapped.kind = Some(kind);
        self.wrapped.inline = inline;
        self.wrapped.text.clear();
        self.param_open = true;
        self.value.open(inline);
    }

    /// A piece of the held value; past `max_held_value`, the parameter is
    /// an ordinary one after all.
    pub(super) fn wrapped_piece<S: Sink>(&mut self, piece: &str, opts: &Options, sink: &mut S) {
        self.wrapped.text.push_str(piece);
        if self.wrapped.text.len() > opts.limits.max_held_value {
            self.release_wrapped(opts, sink);
        }
    }

    /// The held value ended: it stays held when it may be the arguments,
    /// else it is written.
    pub(super) fn end_wrapped<S: Sink>(&mut self, opts: &Options, sink: &mut S) {
        self.param_open = false;
        self.value.tail.clear();
        self.wrapped.ended = true;
        if !self.wrapped_fits(opts) {
            self.release_wrapped(opts, sink);
        }
    }

    /// Whether the held value is an object (or a string holding one) of
    /// the tool's parameters.
    fn wrapped_fits(&self, opts: &Options) -> bool {
        let Some(schema) = opts.tools.as_deref().and_then(|t| t.schema(&self.name)) else {
            return false;
        };
        let value = match serde_json::from_str::<Json>(self.wrapped.text.trim()) {
            Ok(Json::String(inner)) => serde_json::from_str::<Json>(&inner).ok(),
            parsed => parsed.ok(),
        };
        let Some(Json::Object(object)) = value else {
            return false;
        };
        object
            .keys()
            .all(|key| schema.param_in(key, Candidates::ALL).is_some())
    }

    /// Writes the held parameter as the ordinary parameter it is: its
    /// start, the value so far and, if it ended, its end.
    pub(super) fn release_wrapped<S: Sink>(&mut self, opts: &Options, sink: &mut S) {
        let mut held = mem::take(&mut self.wrapped);
        let kind = held.kind.unwrap_or(ValueKind::Text);
        self.start_param_as(&held.name, held.inline, kind, opts, sink);
        self.value.started = true;
        self.emit_value(&held.text, opts, sink);
        if held.ended {
            self.end_param(opts, sink);
        }
        // The buffer is kept for the next call.
        held.text.clear();
        self.wrapped.text = held.text;
    }

    /// The call ended with the held parameter alone: when its value ended,
    /// its object is the call's arguments; else it is written as it is.
    pub(super) fn finish_wrapped<S: Sink>(&mut self, opts: &Options, sink: &mut S) {
        if !self.wrapped.ended {
            return self.release_wrapped(opts, sink);
        }
        let mut held = mem::take(&mut self.wrapped);
        let index = self.current();
        diagnostic(
            sink,
            &mut self.message,
            Kind::LenientJson,
            index,
            format_args!(
                "call `{}` gave its arguments as one parameter `{}`, which its tool does not \
                 declare, holding an object of the tool's parameters: the object was read as \
                 the call's arguments",
                self.name, held.name
            ),
        );
        let mut args = ArgsWriter::default();
        let mut reader = JsonReader::default();
        let text = held.text.trim();
        // The object was checked whole: the reader reads all of it.
        let _ = reader.feed(text, &mut |event| args.event(event, self, opts, sink));
        let _ = reader.finish(&mut |event| args.event(event, self, opts, sink));
        held.text.clear();
        self.wrapped.text = held.text;
    }
}

#[cfg(test)]
mod tests {
    use crate::{DiagnosticKind, Format, Limits, Parser, Tools};

    const TOOLS: &str = r#"[{"type": "function", "function": {"name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"},
        "days": {"type": "integer"}}, "required": ["city"]}}}]"#;

    fn parser(max_held_value: usize) -> Parser {
        Parser::builder()
            .format(Format::DeepSeekV32)
            .tools(Tools::from_json(TOOLS).unwrap())
            .limits(Limits {
                max_held_value,
                ..Limits::default()
            })
            .build()
    }

    fn call(params: &str) -> String {
        format!(
            "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n{params}\
             </｜DSML｜invoke>\n</｜DSML｜function_calls>"
        )
    }

    fn param(name: &str, string: bool, value: &str) -> String {
        format!(
            "<｜DSML｜parameter name=\"{name}\" string=\"{string}\">{value}</｜DSML｜parameter>\n"
        )
    }

    #[test]
    fn a_lone_wrapper_of_the_tools_parameters_is_the_arguments() {
        let text = call(&param(
            "arguments",
            false,
            r#"{"city": "Paris", "days": "3"}"#,
        ));
        let message = parser(1 << 20).parse(&text);
        assert_eq!(
            message.tool_calls[0].arguments,
            r#"{"city": "Paris", "days": 3}"#
        );
        let kinds: Vec<_> = message.diagnostics.iter().map(|d| d.kind).collect();
        assert_eq!(kinds, [DiagnosticKind::LenientJson]);
        // Nothing of the held parameter is written while it is held.
        let mut p = parser(1 << 20);
        let cut = text.find("Paris").unwrap();
        let _ = p.feed(&text[..cut]).count();
        assert_eq!(p.partial_call().unwrap().arguments(), "{}");
    }

    #[test]
    fn a_wrapper_that_is_not_the_arguments_is_a_parameter() {
        for params in [
            // A key the tool does not declare.
            param("input", false, r#"{"city": "Paris", "when": "now"}"#),
            // Another parameter beside it.
            param("arguments", false, r#"{"city": "Paris"}"#) + &param("days", false, "2"),
            // Not an object.
            param("arguments", false, "[1]"),
        ] {
            let message = parser(1 << 20).parse(call(&params));
            let arguments: serde_json::Value =
                serde_json::from_str(&message.tool_calls[0].arguments).unwrap();
            assert!(
                arguments
                    .get("arguments")
                    .or(arguments.get("input"))
                    .is_some(),
                "{params}: {arguments}"
            );
        }
        // Past `max_held_value`, it is an ordinary parameter at once.
        let long = format!(r#"{{"city": "{}"}}"#, "x".repeat(64));
        let message = parser(32).parse(call(&param("arguments", false, &long)));
        assert!(message.tool_calls[0]
            .arguments
            .starts_with(r#"{"arguments": "#));
    }
}
