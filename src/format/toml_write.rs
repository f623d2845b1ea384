//! A description written as a format file ([`Format::to_toml`]): a
//! built-in format's, to start one's own from, and the proof (in the
//! tests) that a file can say everything the built-in descriptions say.

use std::fmt::Write;

use super::{without_suffix, Description, Format, Headers, NameEnd, Role};

/// `text` as a TOML basic string.
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn list<'a>(items: impl IntoIterator<Item = &'a str>) -> String {
    let items: Vec<String> = items.into_iter().map(quoted).collect();
    format!("[{}]", items.join(", "))
}

fn roles(roles: &[Role]) -> String {
    list(roles.iter().map(|r| r.key()))
}

fn name_end(end: NameEnd) -> String {
    match end {
        NameEnd::Byte(b) => quoted(&(b as char).to_string()),
        NameEnd::Marker { line: false } => quoted("marker"),
        NameEnd::Marker { line: true } => quoted("marker_or_line"),
    }
}

impl Format {
    /// The format's description as a format file, under the name
    /// `custom_NAME`: a start for a format of one's own, read back by
    /// [`Format::from_toml`]. Feature `toml`.
    ///
    /// ```
    /// use toolcall_stream::Format;
    /// let file = Format::Glm47.to_toml();
    /// assert!(file.contains("parameter_open = \"<arg_key>\""));
    /// let mine = Format::from_toml(&file)?;
    /// assert_eq!(mine.name(), "custom_glm47");
    /// # Ok::<(), toolcall_stream::FormatFileError>(())
    /// ```
    pub fn to_toml(self) -> String {
        write(self.description())
    }
}

fn write(d: &Description) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {}'s description as a format file.", d.name);
    let _ = writeln!(out, "name = {}", quoted(&format!("custom_{}", d.name)));
    if !d.marker_suffix.is_empty() {
        // The markers below are written without it.
        let _ = writeln!(out, "marker_suffix = {}", quoted(d.marker_suffix));
    }
    out.push_str("\n[markers]\n");
    for role in Role::ALL {
        let texts: Vec<String> = d
            .markers
            .iter()
            .filter(|(r, _)| *r == role)
            .map(|(_, t)| without_suffix(t, d.marker_suffix))
            .collect();
        match texts.as_slice() {
            [] => {}
            [one] => {
                let _ = writeln!(out, "{} = {}", role.key(), quoted(one));
            }
            many => {
                let _ = writeln!(
                    out,
                    "{} = {}",
                    role.key(),
                    list(many.iter().map(String::as_str))
                );
            }
        }
    }
    if !d.misspellings.is_empty() {
        out.push_str("\n[misspellings]\n");
        for role in Role::ALL {
            let texts: Vec<&str> = d
                .misspellings
                .iter()
                .filter(|(r, _)| *r == role)
                .map(|(_, t)| *t)
                .collect();
            if !texts.is_empty() {
                let _ = writeln!(out, "{} = {}", role.key(), list(texts));
            }
        }
    }
    out.push_str("\n[names]\n");
    let _ = writeln!(out, "function_end = {}", name_end(d.func_name_end));
    let _ = writeln!(out, "parameter_end = {}", name_end(d.param_name_end));
    let _ = writeln!(out, "quoted = {}", d.quoted_names);
    out.push_str("\n[values]\n");
    let _ = writeln!(out, "strip_one_newline = {}", d.strip_one_newline);
    if let Some((key, value)) = d.json_value_attribute {
        let _ = writeln!(out, "json_attribute = {}", list([key, value]));
    }
    if let Some((key, value)) = d.string_value_attribute {
        let _ = writeln!(out, "string_attribute = {}", list([key, value]));
    }
    if let Some(attribute) = d.json_args_attribute {
        let _ = writeln!(out, "arguments_attribute = {}", quoted(attribute));
    }
    if let Some(attribute) = d.index_attribute {
        let _ = writeln!(out, "index_attribute = {}", quoted(attribute));
    }
    if d.json_args_body {
        out.push_str("arguments_body = true\n");
    }
    if !d.wrapped_arguments.is_empty() {
        let _ = writeln!(
            out,
            "wrapped_arguments = {}",
            list(d.wrapped_arguments.iter().copied())
        );
    }
    out.push_str("\n[grammar]\n");
    let _ = writeln!(out, "call_confirmed_by = {}", roles(d.call_confirmed_by));
    let _ = writeln!(out, "bare_confirmed_by = {}", roles(d.bare_confirmed_by));
    let _ = writeln!(
        out,
        "parameter_open_at_line_start = {}",
        d.param_open_at_line_start
    );
    if let Some(word) = d.item_type {
        let _ = writeln!(out, "item_type = {}", quoted(word));
    }
    if d.unwrapped_functions {
        out.push_str("unwrapped_functions = true\n");
    }
    if !d.follows.is_empty() {
        out.push_str("\n[grammar.follows]\n");
        for (closer, next) in d.follows {
            let _ = writeln!(out, "{} = {}", closer.key(), roles(next));
        }
    }
    let r = d.recoveries;
    out.push_str("\n[recoveries]\n");
    let _ = writeln!(out, "bare_function = {}", r.bare_function);
    let _ = writeln!(out, "equals_in_parameter_name = {}", r.equals_in_param_name);
    let _ = writeln!(
        out,
        "value_after_empty_close = {}",
        r.value_after_empty_close
    );
    let _ = writeln!(out, "value_without_open = {}", r.value_without_open);
    let _ = writeln!(
        out,
        "call_open_without_close = {}",
        r.call_open_without_close
    );
    if let Some(json) = d.json {
        out.push_str("\n[json]\n");
        let _ = writeln!(out, "arguments_after_name = {}", json.args_after_name);
        if let Some(word) = json.call_type {
            let _ = writeln!(out, "call_type = {}", quoted(word));
            if json.call_type_optional {
                let _ = writeln!(out, "call_type_optional = true");
            }
        }
        let _ = writeln!(out, "fenced = {}", json.fenced);
        if json.entity_quotes {
            let _ = writeln!(out, "entity_quotes = true");
        }
        if json.body_in_wrapper {
            let _ = writeln!(out, "body_in_wrapper = true");
        }
        if json.body_or_name {
            let _ = writeln!(out, "body_or_name = true");
        }
        if !json.nested_body_keys.is_empty() {
            let _ = writeln!(
                out,
                "nested_body_keys = {}",
                list(json.nested_body_keys.iter().copied())
            );
        }
        if json.brace_opens_args {
            let _ = writeln!(out, "brace_opens_arguments = true");
        }
        if json.id_before_name {
            let _ = writeln!(out, "id_before_name = true");
        }
        let _ = writeln!(out, "open_at_start = {}", json.open_at_start);
        let _ = writeln!(out, "open_at_line_start = {}", json.open_at_line_start);
        if json.unmarked_needs_tool {
            out.push_str("unmarked_needs_tool = true\n");
        }
        match json.syntax {
            crate::format::Syntax::Json => {}
            crate::format::Syntax::Python => out.push_str("syntax = \"python\"\n"),
            crate::format::Syntax::PythonLiteral => out.push_str("syntax = \"python_literal\"\n"),
            crate::format::Syntax::Gemma { delimiter } => {
                out.push_str("syntax = \"gemma\"\n");
                let _ = writeln!(out, "string_delimiter = {}", quoted(delimiter));
            }
            crate::format::Syntax::Elements(spelling) => {
                out.push_str("syntax = \"elements\"\n");
                let _ = write!(
                    out,
                    "elements = {{ tag_prefix = {}, call_element = {}, name_attribute = {}, \
                     item_element = {}",
                    quoted(spelling.prefix),
                    quoted(spelling.call),
                    quoted(spelling.name_attribute),
                    quoted(spelling.item)
                );
                if !spelling.values.is_empty() {
                    let values: Vec<String> = spelling.values.iter().map(|v| quoted(v)).collect();
                    let _ = write!(out, ", value_elements = [{}]", values.join(", "));
                }
                if !spelling.id_attribute.is_empty() {
                    let _ = write!(out, ", id_attribute = {}", quoted(spelling.id_attribute));
                }
                if !spelling.holds.is_empty() {
                    let holds: Vec<String> = spelling
                        .holds
                        .iter()
                        .map(|(k, v, h)| {
                            format!(
                                "{{ attribute = {}, value = {}, holds = {} }}",
                                quoted(k),
                                quoted(v),
                                quoted(h.key())
                            )
                        })
                        .collect();
                    let _ = write!(out, ", holds = [{}]", holds.join(", "));
                }
                out.push_str(" }\n");
            }
        }
        if let Some(b) = json.body_separator {
            let _ = writeln!(out, "body_separator = {}", quoted(&(b as char).to_string()));
        }
        if !json.unclosed_openers.is_empty() {
            let _ = writeln!(
                out,
                "unclosed_openers = {}",
                list(json.unclosed_openers.iter().copied())
            );
        }
        if !json.body_openers.is_empty() {
            let _ = writeln!(
                out,
                "body_openers = {}",
                list(json.body_openers.iter().copied())
            );
        }
        if let Some(keys) = json.body {
            out.push_str("\n[json.body]\n");
            if keys.name_is_key {
                out.push_str("name_is_key = true\n");
            } else {
                let _ = writeln!(out, "name = {}", list(keys.name.iter().copied()));
                let _ = writeln!(out, "arguments = {}", list(keys.arguments.iter().copied()));
            }
            let _ = writeln!(out, "list = {}", keys.list);
        }
        if let Some(id) = json.id_in_name {
            out.push_str("\n[json.id_in_name]\n");
            let _ = writeln!(out, "prefix = {}", quoted(id.prefix));
            let _ = writeln!(
                out,
                "index_separator = {}",
                quoted(&id.index_sep.to_string())
            );
        }
        if let Some(h) = json.headers {
            write_headers(&mut out, "json.headers", h);
        }
    }
    if let Some(h) = d.headers {
        write_headers(&mut out, "headers", h);
    }
    out
}

fn write_headers(out: &mut String, table: &str, h: Headers) {
    let _ = writeln!(out, "\n[{table}]");
    let _ = writeln!(out, "recipient = {}", quoted(h.recipient));
    let _ = writeln!(out, "functions = {}", quoted(h.functions));
    let _ = writeln!(
        out,
        "reasoning_channels = {}",
        list(h.reasoning_channels.iter().copied())
    );
    if !h.reasoning_openers.is_empty() || !h.call_openers.is_empty() || h.name_only {
        let _ = writeln!(
            out,
            "reasoning_openers = {}",
            list(h.reasoning_openers.iter().copied())
        );
        let _ = writeln!(
            out,
            "call_openers = {}",
            list(h.call_openers.iter().copied())
        );
        let _ = writeln!(out, "name_only = {}", h.name_only);
    }
    if !h.reasoning_recipients.is_empty() || !h.content_recipients.is_empty() {
        let _ = writeln!(
            out,
            "reasoning_recipients = {}",
            list(h.reasoning_recipients.iter().copied())
        );
        let _ = writeln!(
            out,
            "content_recipients = {}",
            list(h.content_recipients.iter().copied())
        );
    }
    if h.line_end {
        out.push_str("ends_at_line_end = true\n");
    }
    for (key, value) in [
        ("role", h.role),
        ("call_channel", h.call_channel),
        ("content_channel", h.content_channel),
    ] {
        if !value.is_empty() {
            let _ = writeln!(out, "{key} = {}", quoted(value));
        }
    }
}
