//! Formats read from a model's own `response_template` metadata
//! ([`Format::from_response_template`]): the declarative description of a
//! model's output that Hugging Face checkpoints ship in their
//! `tokenizer_config.json`, and that vLLM's `hf` and `beam` tool parsers
//! read instead of code.
//!
//! A template names regions of the output (`thinking`, `content`,
//! `tool_calls`), each between an opener and a closer (literals or
//! regular expressions), and says how a region's text becomes a value:
//! JSON, or XML-like tags read by a `tag_pattern`, reshaped by a
//! `transform`. The shapes a description can say are read into one; any
//! other is refused with what it holds that cannot be said.

mod pattern;

use std::fmt;

use serde_json::{Map, Value};

use self::pattern::{Chars, Piece};
use super::{DescriptionError, Format, FormatBuilder, NameEnd, Role};

/// Why a model's configuration gives no format: it holds no template, or
/// one whose tool calls a description cannot say.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResponseTemplateError {
    /// The text is not JSON.
    Json(String),
    /// The configuration has no `response_template` (and is not one).
    NoTemplate,
    /// The template has no `tool_calls` field: the model's calls are not
    /// described.
    NoToolCalls,
    /// Part of the template is not what a response template holds
    /// (a field that is not an object, a key of the wrong type).
    Malformed(String),
    /// A part of the template that a description cannot say: `at` is
    /// where (`tool_calls.open_pattern`), `what` what is there.
    Unsupported {
        /// The template key.
        at: String,
        /// What in it cannot be described.
        what: String,
    },
    /// The description read from the template breaks a rule.
    Description(DescriptionError),
}

impl fmt::Display for ResponseTemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResponseTemplateError::Json(e) => write!(f, "not JSON: {e}"),
            ResponseTemplateError::NoTemplate => {
                f.write_str("no `response_template` in the model's configuration")
            }
            ResponseTemplateError::NoToolCalls => {
                f.write_str("the `response_template` has no `tool_calls` field")
            }
            ResponseTemplateError::Malformed(what) => {
                write!(f, "the `response_template` is malformed: {what}")
            }
            ResponseTemplateError::Unsupported { at, what } => write!(
                f,
                "the `response_template` cannot be described: {at}: {what}"
            ),
            ResponseTemplateError::Description(e) => write!(
                f,
                "the `response_template` reads as a format that breaks a rule: {e} (rule: {})",
                e.rule()
            ),
        }
    }
}

impl std::error::Error for ResponseTemplateError {}

impl From<DescriptionError> for ResponseTemplateError {
    fn from(e: DescriptionError) -> ResponseTemplateError {
        ResponseTemplateError::Description(e)
    }
}

fn unsupported(at: impl Into<String>, what: impl Into<String>) -> ResponseTemplateError {
    ResponseTemplateError::Unsupported {
        at: at.into(),
        what: what.into(),
    }
}

fn malformed(what: impl Into<String>) -> ResponseTemplateError {
    ResponseTemplateError::Malformed(what.into())
}

impl Format {
    /// The format a model's `response_template` metadata describes, under
    /// the name `name` (vLLM's parsers that read it are `hf` and `beam`).
    /// `config` is the text of the model's `tokenizer_config.json` (its
    /// `response_template` key; its `eos_token` ends the model's turn), or
    /// of the template alone.
    ///
    /// The tool calls may be JSON objects between literal markers
    /// (`"content": "json"`, the name and arguments at keys the `transform`
    /// names, one object or a list), or XML-like tags (`"content":
    /// "xml-inline"`, the name captured by the opener, parameters by the
    /// `tag_pattern`), as Qwen3-Coder and GLM write them. Reasoning is the
    /// `thinking` field's markers; the closers of an implicit `content`
    /// end the turn. Anything else in the tool calls' field is an
    /// [`Unsupported`](ResponseTemplateError::Unsupported) error naming it.
    ///
    /// ```
    /// use toolcall_stream::{parse, Format};
    ///
    /// let config = r#"{"response_template": {
    ///     "start_anchor": "<|im_start|>assistant\n",
    ///     "fields": {
    ///         "tool_calls": {"open": "<tool_call>", "close": "</tool_call>", "repeats": true,
    ///             "content": "json", "transform": {"type": "function", "function": "{content}"}},
    ///         "content": {"close": "<|im_end|>"}
    ///     }
    /// }}"#;
    /// let format = Format::from_response_template("hf", config).unwrap();
    /// let message = parse(format, r#"<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>"#);
    /// assert_eq!(message.tool_calls[0].name, "f");
    /// assert_eq!(message.tool_calls[0].arguments, r#"{"x": 1}"#);
    /// ```
    pub fn from_response_template(
        name: &str,
        config: &str,
    ) -> Result<Format, ResponseTemplateError> {
        let value: Value =
            serde_json::from_str(config).map_err(|e| ResponseTemplateError::Json(e.to_string()))?;
        let template = match value.get("response_template") {
            Some(Value::Object(t)) => t,
            Some(Value::Null) | None if value.get("fields").is_some() => {
                value.as_object().ok_or(ResponseTemplateError::NoTemplate)?
            }
            Some(Value::Null) | None => return Err(ResponseTemplateError::NoTemplate),
            Some(_) => return Err(malformed("`response_template` is not an object")),
        };
        // The tokenizer's end-of-sequence token ends the model's turn.
        let eos = match value.get("eos_token") {
            Some(Value::String(s)) => Some(s.as_str()),
            Some(token) => token.get("content").and_then(Value::as_str),
            None => None,
        };
        Ok(read(name, template, eos)?.build()?)
    }
}

/// The template's fields, each an object.
fn fields(template: &Map<String, Value>) -> Result<&Map<String, Value>, ResponseTemplateError> {
    if let Some(version) = template.get("version") {
        if version != 1 {
            return Err(unsupported("version", version.to_string()));
        }
    }
    let fields = template
        .get("fields")
        .and_then(Value::as_object)
        .ok_or_else(|| malformed("`fields` is not an object"))?;
    for (name, field) in fields {
        if !field.is_object() {
            return Err(malformed(format!("field `{name}` is not an object")));
        }
        if !matches!(name.as_str(), "thinking" | "content" | "tool_calls") {
            // vLLM's serving refuses these too: nothing would route them.
            return Err(unsupported(
                format!("fields.{name}"),
                "a field other than thinking, content and tool_calls",
            ));
        }
    }
    Ok(fields)
}

/// A delimiter's alternatives (`open`/`open_pattern`, `close`/`close_pattern`).
fn delimiter(
    field: &str,
    spec: &Map<String, Value>,
    key: &str,
) -> Result<Option<Vec<Vec<Piece>>>, ResponseTemplateError> {
    let pattern_key = format!("{key}_pattern");
    if let Some(lit) = spec.get(key) {
        let literals: Vec<&str> = match lit {
            Value::String(s) => vec![s.as_str()],
            Value::Array(items) => items
                .iter()
                .map(|v| v.as_str())
                .collect::<Option<_>>()
                .ok_or_else(|| malformed(format!("`{field}.{key}` holds a non-string")))?,
            _ => {
                return Err(malformed(format!(
                    "`{field}.{key}` is not a string or list"
                )))
            }
        };
        // `eos` is the end of the output.
        return Ok(Some(
            literals
                .into_iter()
                .map(|l| match l {
                    "eos" => vec![Piece::End],
                    l => pattern::literal(l),
                })
                .collect(),
        ));
    }
    match spec.get(&pattern_key) {
        None => Ok(None),
        Some(Value::String(p)) => pattern::expand(p)
            .map(Some)
            .map_err(|what| unsupported(format!("{field}.{pattern_key}"), pattern_error(&what))),
        Some(_) => Err(malformed(format!(
            "`{field}.{pattern_key}` is not a string"
        ))),
    }
}

/// What a pattern holds that cannot be said, and what can.
fn pattern_error(what: &str) -> String {
    format!(
        "{what} (a pattern is described when it is literal text, optional whitespace, \
         alternatives of those, and named groups of one class)"
    )
}

/// The literals of alternatives that are literal text with layout around;
/// alternatives that are only `^` or `$` are left out.
fn literals(at: &str, alternatives: &[Vec<Piece>]) -> Result<Vec<String>, ResponseTemplateError> {
    let mut out = Vec::new();
    for alternative in alternatives {
        let core: Vec<&Piece> = alternative
            .iter()
            .filter(|p| !matches!(p, Piece::Space | Piece::Start | Piece::End))
            .collect();
        match core.as_slice() {
            [] => {}
            [Piece::Lit(l)] => out.push(l.trim().to_owned()),
            _ => {
                return Err(unsupported(
                    at,
                    "an alternative that is not literal text".to_owned(),
                ))
            }
        }
    }
    out.retain(|l| !l.is_empty());
    out.dedup();
    Ok(out)
}

/// The description a template says.
fn read(
    name: &str,
    template: &Map<String, Value>,
    eos: Option<&str>,
) -> Result<FormatBuilder, ResponseTemplateError> {
    let fields = fields(template)?;
    let tool = fields
        .get("tool_calls")
        .and_then(Value::as_object)
        .ok_or(ResponseTemplateError::NoToolCalls)?;
    let mut markers: Vec<(Role, String)> = Vec::new();
    let content = tool
        .get("content")
        .and_then(Value::as_str)
        .unwrap_or("text");
    let mut builder = match content {
        "json" => json_calls(name, tool, &mut markers)?,
        "xml-inline" => xml_calls(name, tool, &mut markers)?,
        other => {
            return Err(unsupported(
                "tool_calls.content",
                format!("{other:?} (json and xml-inline can be described)"),
            ))
        }
    };
    let openers: Vec<String> = markers.iter().map(|(_, m)| m.clone()).collect();
    if let Some(thinking) = fields.get("thinking").and_then(Value::as_object) {
        for (key, role) in [
            ("open", Role::ReasoningOpen),
            ("close", Role::ReasoningClose),
        ] {
            if let Some(alternatives) = delimiter("thinking", thinking, key)? {
                for l in literals(&format!("thinking.{key}"), &alternatives)? {
                    markers.push((role, l));
                }
            }
        }
    }
    if let Some(answer) = fields.get("content").and_then(Value::as_object) {
        let open = delimiter("content", answer, "open")?;
        // An explicit answer's delimiters are markup around content; an
        // implicit answer's closers end the turn (but for another field's
        // opener, which that field's region takes first).
        let close_role = if open.is_some() {
            Role::Layout
        } else {
            Role::EndOfTurn
        };
        if let Some(open) = open {
            for l in literals("content.open", &open)? {
                markers.push((Role::Layout, l));
            }
        }
        if let Some(close) = delimiter("content", answer, "close")? {
            for l in literals("content.close", &close)? {
                if !openers.contains(&l) {
                    markers.push((close_role, l));
                }
            }
        }
    }
    if let Some(eos) = eos.filter(|e| !e.is_empty()) {
        if !markers.iter().any(|(_, m)| m == eos) {
            markers.push((Role::EndOfTurn, eos.to_owned()));
        }
    }
    let mut seen = Vec::new();
    markers.retain(|m| {
        let new = !seen.contains(m);
        seen.push(m.clone());
        new
    });
    for role in Role::ALL {
        let spellings: Vec<String> = markers
            .iter()
            .filter(|(r, _)| *r == role)
            .map(|(_, m)| m.clone())
            .collect();
        builder = builder.markers(role, spellings);
    }
    Ok(builder)
}

/// JSON call objects between literal markers.
fn json_calls(
    name: &str,
    tool: &Map<String, Value>,
    markers: &mut Vec<(Role, String)>,
) -> Result<FormatBuilder, ResponseTemplateError> {
    if let Some(args) = tool.get("content_args").and_then(Value::as_object) {
        if let Some(key) = args.keys().next() {
            return Err(unsupported(
                format!("tool_calls.content_args.{key}"),
                "a JSON dialect (plain JSON can be described)",
            ));
        }
    }
    let open = delimiter("tool_calls", tool, "open")?
        .ok_or_else(|| unsupported("tool_calls", "no opener"))?;
    for alternative in &open {
        if alternative.iter().any(|p| matches!(p, Piece::Group { .. })) {
            return Err(unsupported(
                "tool_calls.open_pattern",
                "a name captured before JSON arguments",
            ));
        }
    }
    let openers = literals("tool_calls.open_pattern", &open)?;
    if openers.is_empty() {
        return Err(unsupported("tool_calls", "an opener that is no text"));
    }
    let (name_key, args_key, list) = json_keys(tool)?;
    for o in &openers {
        markers.push((Role::CallOpen, o.clone()));
    }
    let close = delimiter("tool_calls", tool, "close")?;
    let closers = match &close {
        Some(close) => literals("tool_calls.close_pattern", close)?,
        None => Vec::new(),
    };
    // Models trained on other templates write `parameters` for
    // `arguments`, and the reverse: both are read, as Hermes reads them.
    let mut args_keys = vec![args_key.clone()];
    match args_key.as_str() {
        "arguments" => args_keys.push("parameters".into()),
        "parameters" => args_keys.push("arguments".into()),
        _ => {}
    }
    let mut builder =
        FormatBuilder::based_on(name, Format::Hermes).json_body([name_key], args_keys, list);
    if closers.is_empty() {
        // The output's end closes the call.
        builder = builder.json_unclosed_openers(openers);
    }
    for c in closers {
        markers.push((Role::CallClose, c));
    }
    Ok(builder)
}

/// Where the `transform` puts the name and the arguments of a call
/// object, and whether the region holds a list of them.
fn json_keys(tool: &Map<String, Value>) -> Result<(String, String, bool), ResponseTemplateError> {
    let each = tool
        .get("transform_each")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let mut transform = tool.get("transform").ok_or_else(|| {
        unsupported(
            "tool_calls",
            "no transform (a call's name and arguments are not placed)",
        )
    })?;
    // A one-element list of calls is one call.
    if let Value::Array(items) = transform {
        match items.as_slice() {
            [only] if !each => transform = only,
            _ => {
                return Err(unsupported(
                    "tool_calls.transform",
                    "a list of several calls",
                ))
            }
        }
    }
    let function = transform
        .get("function")
        .ok_or_else(|| unsupported("tool_calls.transform", "no `function`"))?;
    let placeholder = |v: Option<&Value>| -> Option<String> {
        let s = v?.as_str()?;
        s.strip_prefix('{')?.strip_suffix('}').map(str::to_owned)
    };
    if !each && placeholder(Some(function)).as_deref() == Some("content") {
        // The object is the function: `{"name": …, "arguments": …}`.
        return Ok(("name".into(), "arguments".into(), false));
    }
    let (Some(n), Some(a)) = (
        placeholder(function.get("name")),
        placeholder(function.get("arguments")),
    ) else {
        return Err(unsupported(
            "tool_calls.transform.function",
            "a name and arguments that are not placeholders",
        ));
    };
    let key = |path: &str| -> Option<String> {
        if each {
            (!path.contains('.')).then(|| path.to_owned())
        } else {
            path.strip_prefix("content.")
                .filter(|k| !k.contains('.'))
                .map(str::to_owned)
        }
    };
    match (key(&n), key(&a)) {
        (Some(n), Some(a)) => Ok((n, a, each)),
        _ => Err(unsupported(
            "tool_calls.transform.function",
            format!("{{{n}}} and {{{a}}} are not keys of the call object"),
        )),
    }
}

/// XML-like calls: the name captured by the opener, parameters by the
/// `tag_pattern`.
fn xml_calls(
    name: &str,
    tool: &Map<String, Value>,
    markers: &mut Vec<(Role, String)>,
) -> Result<FormatBuilder, ResponseTemplateError> {
    let args = tool.get("content_args").and_then(Value::as_object);
    let tag = args
        .and_then(|a| a.get("tag_pattern"))
        .and_then(Value::as_str)
        .ok_or_else(|| malformed("`tool_calls.content_args.tag_pattern` is missing"))?;
    if let Some(key) = args
        .into_iter()
        .flat_map(|a| a.keys())
        .find(|k| !matches!(k.as_str(), "tag_pattern" | "value_parser"))
    {
        return Err(unsupported(
            format!("tool_calls.content_args.{key}"),
            "not describable",
        ));
    }
    let function = tool
        .get("transform")
        .and_then(|t| t.get("function"))
        .ok_or_else(|| unsupported("tool_calls", "no transform placing the name"))?;
    if function.get("name").and_then(Value::as_str) != Some("{name}")
        || function.get("arguments").and_then(Value::as_str) != Some("{content}")
    {
        return Err(unsupported(
            "tool_calls.transform.function",
            "the name from other than the opener's `name` group, or arguments from other than the tags",
        ));
    }
    let open = delimiter("tool_calls", tool, "open")?
        .ok_or_else(|| unsupported("tool_calls", "no opener"))?;
    let mut func_open = None;
    let mut func_end = None;
    for alternative in &open {
        let core: Vec<&Piece> = alternative.iter().filter(|p| **p != Piece::Space).collect();
        match core.as_slice() {
            // `<tool_call>\s*<function=(?P<name>\w+)>`
            [Piece::Lit(call), Piece::Lit(func), Piece::Group { name, chars }, Piece::Lit(end)]
                if name == "name" =>
            {
                let byte = name_end("tool_calls.open_pattern", chars, end)?;
                markers.push((Role::CallOpen, call.clone()));
                markers.push((Role::FuncOpen, func.clone()));
                func_open = Some(func.clone());
                func_end = Some(NameEnd::Byte(byte));
            }
            // `<tool_call>(?P<name>[^\n<]+)`: GLM's name up to a line end or a marker.
            [Piece::Lit(call), Piece::Group { name, .. }] if name == "name" => {
                markers.push((Role::CallOpen, call.clone()));
                func_end = Some(NameEnd::Marker { line: true });
            }
            _ => return Err(unsupported(
                "tool_calls.open_pattern",
                "an opener that is not `WRAPPER FUNCTION(?P<name>…)END` or `WRAPPER(?P<name>…)`",
            )),
        }
    }
    let func_end = func_end.ok_or_else(|| unsupported("tool_calls", "no opener"))?;
    let close = delimiter("tool_calls", tool, "close")?
        .ok_or_else(|| unsupported("tool_calls", "no closer"))?;
    let mut func_close_given = false;
    for alternative in &close {
        let core: Vec<&Piece> = alternative.iter().filter(|p| **p != Piece::Space).collect();
        match core.as_slice() {
            [Piece::Lit(call)] => markers.push((Role::CallClose, call.clone())),
            [Piece::Lit(func), Piece::Lit(call)] => {
                markers.push((Role::FuncClose, func.clone()));
                markers.push((Role::CallClose, call.clone()));
                func_close_given = true;
            }
            _ => {
                return Err(unsupported(
                    "tool_calls.close_pattern",
                    "a closer that is not literal",
                ))
            }
        }
    }
    // A template that ends the region at the wrapper's closer lets the
    // tag pattern pass over the function's own closer: `</function>` for
    // `<function=`.
    if let (Some(open), false) = (&func_open, func_close_given) {
        let tag = open
            .strip_prefix('<')
            .and_then(|t| t.strip_suffix(['=', ' ']))
            .filter(|t| {
                !t.is_empty() && t.chars().all(|c| c.is_alphanumeric() || "_:-".contains(c))
            })
            .ok_or_else(|| {
                unsupported(
                    "tool_calls.close",
                    format!("no closer for the function opened by {open:?}"),
                )
            })?;
        markers.push((Role::FuncClose, format!("</{tag}>")));
    }
    // The parameters.
    let parameters = pattern::expand(tag)
        .map_err(|what| unsupported("tool_calls.content_args.tag_pattern", pattern_error(&what)))?;
    let [parameter] = parameters.as_slice() else {
        return Err(unsupported(
            "tool_calls.content_args.tag_pattern",
            "alternatives",
        ));
    };
    let strip = parameter.windows(2).any(|w| {
        matches!(w, [Piece::Space, Piece::Group { name, .. }] | [Piece::Group { name, .. }, Piece::Space] if name == "value")
    });
    let core: Vec<&Piece> = parameter.iter().filter(|p| **p != Piece::Space).collect();
    let param_end = match core.as_slice() {
        // `<parameter=(?P<key>\w+)>\s*(?P<value>.*?)\s*</parameter>`
        [Piece::Lit(open), Piece::Group { name: k, chars }, Piece::Lit(end), Piece::Group { name: v, chars: Chars::Lazy }, Piece::Lit(close)]
            if k == "key" && v == "value" =>
        {
            let byte = name_end("tool_calls.content_args.tag_pattern", chars, end)?;
            markers.push((Role::ParamOpen, open.clone()));
            markers.push((Role::ParamClose, close.clone()));
            NameEnd::Byte(byte)
        }
        // `<arg_key>(?P<key>.*?)</arg_key>\s*<arg_value>(?P<value>.*?)</arg_value>`
        [Piece::Lit(open), Piece::Group { name: k, .. }, Piece::Lit(key_close), Piece::Lit(value_open), Piece::Group { name: v, chars: Chars::Lazy }, Piece::Lit(close)]
            if k == "key" && v == "value" =>
        {
            markers.push((Role::ParamOpen, open.clone()));
            markers.push((Role::KeyClose, key_close.clone()));
            markers.push((Role::ValueOpen, value_open.clone()));
            markers.push((Role::ParamClose, close.clone()));
            NameEnd::Marker { line: false }
        }
        _ => {
            return Err(unsupported(
                "tool_calls.content_args.tag_pattern",
                "parameters that are not `OPEN(?P<key>…)END(?P<value>.*?)CLOSE` or `OPEN(?P<key>…)KEY_CLOSE VALUE_OPEN(?P<value>.*?)CLOSE`",
            ))
        }
    };
    // A name after the wrapper alone needs GLM's grammar (its confirmations);
    // one after a function opener, Qwen3-Coder's.
    let builder = match func_open {
        Some(_) => FormatBuilder::based_on(name, Format::Qwen3Coder),
        None => FormatBuilder::based_on(name, Format::Glm47),
    };
    Ok(builder
        .function_name_end(func_end)
        .parameter_name_end(param_end)
        .strip_one_newline(strip))
}

/// The byte a group's name ends at: the first of the literal after it,
/// which the group's class must not hold, and all of that literal.
fn name_end(at: &str, chars: &Chars, end: &str) -> Result<u8, ResponseTemplateError> {
    let mut it = end.chars();
    match (it.next(), it.next(), chars) {
        (Some(c), None, Chars::Class(class)) if c.is_ascii() && !class.contains(c) => Ok(c as u8),
        (Some(c), None, Chars::Lazy) if c.is_ascii() => Ok(c as u8),
        _ => Err(unsupported(
            at,
            format!("a name that ends at {end:?} (one ASCII character the name cannot hold can be described)"),
        )),
    }
}

#[cfg(test)]
#[path = "response_template/tests.rs"]
mod tests;
