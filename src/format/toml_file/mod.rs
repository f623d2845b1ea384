//! Formats of a user's own, from a TOML file: [`Format::from_toml`]. The
//! file says what a [`FormatBuilder`] would; docs/custom-formats.md is its
//! reference. Errors name the line and the rule broken.

use std::fmt;
use std::ops::Range;

use toml::Spanned;

mod shape;

use shape::{File, Json, RoleKey, Spellings};

use super::{
    CallSyntax, DescriptionError, ElementValue, Format, FormatBuilder, NameEnd, Recovery, Role,
};

/// Why a format file was refused: the line (and column) where, and what.
///
/// ```
/// use toolcall_stream::Format;
/// let file = "name = \"mine\"\nbase = \"qwen3_coder\"\n[markers]\nfunction_open = \"<tool_call>=\"\n";
/// let error = Format::from_toml(file).unwrap_err();
/// assert_eq!(error.line(), Some(4));
/// assert_eq!(error.rule(), "no marker is the start of another");
/// assert_eq!(
///     error.to_string(),
///     "line 4: marker \"<tool_call>\" is the start of \"<tool_call>=\" \
///      (rule: no marker is the start of another)"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormatFileError {
    line: Option<usize>,
    column: Option<usize>,
    what: What,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum What {
    /// Not TOML, or not the keys and values a format file has.
    File(String),
    /// A description that breaks a rule.
    Description(DescriptionError),
}

impl FormatFileError {
    /// The line (from 1) the error is on, where one is to blame.
    pub fn line(&self) -> Option<usize> {
        self.line
    }

    /// The column (from 1), for errors in the file's syntax or keys.
    pub fn column(&self) -> Option<usize> {
        self.column
    }

    /// The rule of descriptions the file breaks, when it is one.
    pub fn description_error(&self) -> Option<&DescriptionError> {
        match &self.what {
            What::Description(error) => Some(error),
            What::File(_) => None,
        }
    }

    /// The rule broken, in a few words.
    pub fn rule(&self) -> &'static str {
        match &self.what {
            What::Description(error) => error.rule(),
            What::File(_) => "a format file is TOML with the documented keys",
        }
    }
}

impl fmt::Display for FormatFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(line), Some(column)) => write!(f, "line {line}, column {column}: ")?,
            (Some(line), None) => write!(f, "line {line}: ")?,
            _ => {}
        }
        match &self.what {
            What::File(message) => f.write_str(message),
            What::Description(error) => write!(f, "{error} (rule: {})", error.rule()),
        }
    }
}

impl std::error::Error for FormatFileError {}

/// Where things are in the file, by byte offset.
struct Places<'a> {
    text: &'a str,
    name: usize,
    aliases: Vec<(String, usize)>,
    base: Option<usize>,
    markers: Option<usize>,
    /// Each spelling from the file (markers, then misspellings), with its
    /// role and place.
    spellings: Vec<(Role, String, usize)>,
    /// Each misspelling's role and place.
    misspelled: Vec<(Role, usize)>,
    grammar: Option<usize>,
    /// Each role the grammar's keys name, with the place of the key.
    grammar_roles: Vec<(Role, usize)>,
    /// Where functions are said to open without the wrapper
    /// (`bare_function`, `unwrapped_functions`), and `bare_confirmed_by`.
    bare: Vec<usize>,
    /// Each name end given, with the byte it ends at (if one).
    name_ends: Vec<(Option<u8>, usize)>,
    arguments_after_name: Option<usize>,
    string_delimiter: Option<usize>,
    json_attribute: Option<usize>,
    body: Option<usize>,
    id_before_name: Option<usize>,
    headers: Option<usize>,
}

impl Places<'_> {
    fn line(&self, at: usize) -> usize {
        self.text[..at.min(self.text.len())].matches('\n').count() + 1
    }

    /// The place to blame for `error`: the spelling, key or table it is
    /// about, else what it came from (`base`).
    fn of(&self, error: &DescriptionError) -> Option<usize> {
        let spelled = |text: &str| {
            self.spellings
                .iter()
                .find(|(_, t, _)| t == text)
                .map(|(_, _, at)| *at)
        };
        // The last place that spells `text`: a spelling given twice is
        // blamed where it is given again.
        let spelled_again = |text: &str| {
            self.spellings
                .iter()
                .filter(|(_, t, _)| t == text)
                .map(|(_, _, at)| *at)
                .max()
        };
        let role = |wanted: Role| {
            self.spellings
                .iter()
                .find(|(r, _, _)| *r == wanted)
                .map(|(_, _, at)| *at)
        };
        let from_base = self.markers.or(self.base);
        match error {
            DescriptionError::Name(name) => self
                .aliases
                .iter()
                .find(|(alias, _)| alias == name)
                .map(|(_, at)| *at)
                .or(Some(self.name)),
            DescriptionError::EmptyMarker(r) => role(*r),
            // The later of the two in the file: the one that breaks what
            // the file (or the base) already said.
            DescriptionError::Prefix(a, b) | DescriptionError::Contains(a, b) => {
                spelled(a).max(spelled(b)).or(self.base)
            }
            // Only an id before the name needs `id_open`.
            DescriptionError::MissingRole(Role::IdOpen) => self.id_before_name.or(from_base),
            // JSON after a name is what needs `arguments_open`.
            DescriptionError::MissingRole(Role::ArgsOpen) => {
                self.arguments_after_name.or(from_base)
            }
            DescriptionError::MissingRole(_) => from_base,
            DescriptionError::UnspelledRole(r) => self
                .grammar_roles
                .iter()
                .chain(&self.misspelled)
                .find(|(role, _)| role == r)
                .map(|(_, at)| *at)
                .or(self.grammar)
                .or(from_base),
            DescriptionError::NameEndStartsMarker(b) | DescriptionError::NameEndNotAscii(b) => self
                .name_ends
                .iter()
                .find(|(end, _)| *end == Some(*b))
                .map(|(_, at)| *at)
                .or(self.base),
            DescriptionError::AttributeWithoutQuotedNames => self.json_attribute,
            DescriptionError::EmptyKeys(_) => self.body.or(self.base),
            DescriptionError::StringDelimiter(_) => self.string_delimiter.or(self.base),
            DescriptionError::MisspelledRole(r) => self
                .misspelled
                .iter()
                .find(|(role, _)| role == r)
                .map(|(_, at)| *at)
                .or(self.base),
            DescriptionError::SharedSpelling(text, ..) => spelled_again(text).or(self.base),
            DescriptionError::BareNeverConfirmed => self.bare.last().copied().or(self.base),
            DescriptionError::IdBeforeName(_) => self.id_before_name.or(self.base),
            DescriptionError::HeaderRecipient(_) => self.headers.or(self.base),
        }
    }
}

fn file_error(text: &str, span: Option<Range<usize>>, message: String) -> FormatFileError {
    let (line, column) = match span {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line_start = before.rfind('\n').map_or(0, |i| i + 1);
            (
                Some(before.matches('\n').count() + 1),
                Some(before[line_start..].chars().count() + 1),
            )
        }
        None => (None, None),
    };
    FormatFileError {
        line,
        column,
        what: What::File(message),
    }
}

fn name_end(text: &str, value: &Spanned<String>) -> Result<NameEnd, FormatFileError> {
    match value.get_ref().as_str() {
        "marker" => Ok(NameEnd::Marker { line: false }),
        "marker_or_line" => Ok(NameEnd::Marker { line: true }),
        one if one.len() == 1 && one.is_ascii() => Ok(NameEnd::Byte(one.as_bytes()[0])),
        other => Err(file_error(
            text,
            Some(value.span()),
            format!(
                "a name ends at one ASCII character, \"marker\" or \"marker_or_line\", not {other:?}"
            ),
        )),
    }
}

fn one_byte(text: &str, value: &Spanned<String>, what: &str) -> Result<u8, FormatFileError> {
    match value.get_ref().as_bytes() {
        [b] if b.is_ascii() => Ok(*b),
        _ => Err(file_error(
            text,
            Some(value.span()),
            format!("{what} is one ASCII character"),
        )),
    }
}

/// The byte a name ends at, if it ends at one.
fn end_byte(end: NameEnd) -> Option<u8> {
    match end {
        NameEnd::Byte(b) => Some(b),
        NameEnd::Marker { .. } => None,
    }
}

fn roles(keys: Vec<RoleKey>) -> Vec<Role> {
    keys.into_iter().map(|RoleKey(r)| r).collect()
}

impl Format {
    /// A format of one's own, read from a format file's text (TOML; see
    /// docs/custom-formats.md). Feature `toml`.
    ///
    /// ```
    /// use toolcall_stream::{parse, Format};
    /// let format = Format::from_toml(r#"
    ///     name = "acme"
    ///     base = "qwen3_coder"
    ///     [markers]
    ///     call_open = "<acme:call>"
    ///     call_close = "</acme:call>"
    /// "#)?;
    /// let message = parse(format, "<acme:call><function=f></function></acme:call>");
    /// assert_eq!(message.tool_calls[0].name, "f");
    /// # Ok::<(), toolcall_stream::FormatFileError>(())
    /// ```
    pub fn from_toml(text: &str) -> Result<Format, FormatFileError> {
        let file: File =
            toml::from_str(text).map_err(|e| file_error(text, e.span(), e.message().to_owned()))?;
        let (builder, places) = builder(text, file)?;
        builder.build().map_err(|error| FormatFileError {
            line: places.of(&error).map(|at| places.line(at)),
            column: None,
            what: What::Description(error),
        })
    }
}

/// The builder a file makes, before it is built.
#[cfg(test)]
pub(crate) fn builder_of(text: &str) -> Result<FormatBuilder, FormatFileError> {
    let file: File =
        toml::from_str(text).map_err(|e| file_error(text, e.span(), e.message().to_owned()))?;
    builder(text, file).map(|(builder, _)| builder)
}

fn builder(text: &str, file: File) -> Result<(FormatBuilder, Places<'_>), FormatFileError> {
    let mut places = Places {
        text,
        name: file.name.span().start,
        aliases: Vec::new(),
        base: file.base.as_ref().map(|b| b.span().start),
        markers: file.markers.as_ref().map(|m| m.span().start),
        spellings: Vec::new(),
        misspelled: Vec::new(),
        grammar: file.grammar.as_ref().map(|g| g.span().start),
        grammar_roles: Vec::new(),
        bare: Vec::new(),
        name_ends: Vec::new(),
        arguments_after_name: None,
        string_delimiter: None,
        json_attribute: None,
        body: None,
        id_before_name: None,
        headers: None,
    };
    let name = file.name.into_inner();
    let mut b = match &file.base {
        None => FormatBuilder::new(name),
        Some(base) => {
            let format: Format = base
                .get_ref()
                .parse()
                .map_err(|e| file_error(text, Some(base.span()), format!("base: {e}")))?;
            if format == Format::Auto {
                return Err(file_error(
                    text,
                    Some(base.span()),
                    "base: auto is not a format to start from".to_owned(),
                ));
            }
            FormatBuilder::based_on(name, format)
        }
    };
    for alias in file.aliases {
        places
            .aliases
            .push((alias.get_ref().clone(), alias.span().start));
        b = b.alias(alias.into_inner());
    }
    if let Some(suffix) = file.marker_suffix {
        b = b.marker_suffix(suffix);
    }
    for (role, spellings) in file.markers.map(Spanned::into_inner).unwrap_or_default() {
        let RoleKey(role) = role.into_inner();
        let at = spellings.span().start;
        let Spellings(texts) = spellings.into_inner();
        places
            .spellings
            .extend(texts.iter().map(|t| (role, t.clone(), at)));
        b = b.markers(role, texts);
    }
    for (RoleKey(role), spellings) in file.misspellings.unwrap_or_default() {
        let at = spellings.span().start;
        let Spellings(texts) = spellings.into_inner();
        places.misspelled.push((role, at));
        places
            .spellings
            .extend(texts.iter().map(|t| (role, t.clone(), at)));
        b = b.misspellings(role, texts);
    }
    if let Some(names) = file.names {
        if let Some(end) = &names.function_end {
            let end_at = name_end(text, end)?;
            places.name_ends.push((end_byte(end_at), end.span().start));
            b = b.function_name_end(end_at);
        }
        if let Some(end) = &names.parameter_end {
            let end_at = name_end(text, end)?;
            places.name_ends.push((end_byte(end_at), end.span().start));
            b = b.parameter_name_end(end_at);
        }
        if let Some(quoted) = names.quoted {
            b = b.quoted_names(quoted);
        }
    }
    if let Some(values) = file.values {
        if let Some(strip) = values.strip_one_newline {
            b = b.strip_one_newline(strip);
        }
        if let Some(attribute) = values.json_attribute {
            places.json_attribute = Some(attribute.span().start);
            let (key, value) = attribute.into_inner();
            b = b.json_value_attribute(key, value);
        }
        if let Some(attribute) = values.arguments_attribute {
            places.json_attribute = Some(attribute.span().start);
            b = b.json_args_attribute(attribute.into_inner());
        }
        if let Some(attribute) = values.index_attribute {
            places.json_attribute = Some(attribute.span().start);
            b = b.index_attribute(attribute.into_inner());
        }
        if let Some(names) = values.wrapped_arguments {
            b = b.wrapped_arguments(names);
        }
        if let Some(on) = values.arguments_body {
            b = b.json_args_body(on);
        }
        if let Some(attribute) = values.string_attribute {
            places.json_attribute = Some(attribute.span().start);
            let (key, value) = attribute.into_inner();
            b = b.string_value_attribute(key, value);
        }
    }
    if let Some(grammar) = file.grammar.map(Spanned::into_inner) {
        if let Some(keys) = grammar.call_confirmed_by {
            let at = keys.span().start;
            let keys = roles(keys.into_inner());
            places.grammar_roles.extend(keys.iter().map(|&r| (r, at)));
            b = b.call_confirmed_by(keys);
        }
        if let Some(keys) = grammar.bare_confirmed_by {
            let at = keys.span().start;
            let keys = roles(keys.into_inner());
            places.grammar_roles.extend(keys.iter().map(|&r| (r, at)));
            places.bare.push(at);
            b = b.bare_confirmed_by(keys);
        }
        if let Some(only) = grammar.parameter_open_at_line_start {
            b = b.parameter_open_at_line_start(only);
        }
        if let Some(word) = grammar.item_type {
            b = b.item_type(word);
        }
        if let Some(on) = grammar.unwrapped_functions {
            places.bare.push(on.span().start);
            b = b.unwrapped_functions(on.into_inner());
        }
        for (RoleKey(closer), next) in grammar.follows.unwrap_or_default() {
            let at = next.span().start;
            let next = roles(next.into_inner());
            places.grammar_roles.extend(
                std::iter::once(closer)
                    .chain(next.iter().copied())
                    .map(|r| (r, at)),
            );
            b = b.follows(closer, next);
        }
    }
    if let Some(r) = file.recoveries {
        if let Some(on) = &r.bare_function {
            places.bare.push(on.span().start);
        }
        for (recovery, on) in [
            (
                Recovery::BareFunction,
                r.bare_function.map(Spanned::into_inner),
            ),
            (Recovery::EqualsInParameterName, r.equals_in_parameter_name),
            (Recovery::ValueAfterEmptyClose, r.value_after_empty_close),
            (Recovery::ValueWithoutOpen, r.value_without_open),
            (Recovery::CallOpenWithoutClose, r.call_open_without_close),
        ] {
            if let Some(on) = on {
                b = b.recovery(recovery, on);
            }
        }
    }
    if let Some(json) = file.json {
        b = json_settings(text, b, json, &mut places)?;
    }
    if let Some(h) = file.headers {
        places.headers = Some(h.span().start);
        let h = h.into_inner();
        b = b.headers(h.recipient, h.functions, h.reasoning_channels);
        b = header_settings(b, h.reasoning_openers, h.call_openers, h.name_only);
        b = b.header_recipients(h.reasoning_recipients, h.content_recipients);
        if h.ends_at_line_end {
            b = b.header_line_end(true);
        }
        b = b.header_writing(h.role, h.call_channel, h.content_channel);
    }
    Ok((b, places))
}

fn json_settings(
    text: &str,
    mut b: FormatBuilder,
    json: Json,
    places: &mut Places<'_>,
) -> Result<FormatBuilder, FormatFileError> {
    b = b.json_settings_touched();
    if let Some(on) = &json.arguments_after_name {
        places.arguments_after_name = Some(on.span().start);
        if *on.get_ref() {
            b = b.json_arguments_after_name();
        }
    }
    if let Some(word) = json.call_type {
        b = b.json_call_type(word);
    }
    if let Some(optional) = json.call_type_optional {
        b = b.json_call_type_optional(optional);
    }
    if let Some(on) = json.entity_quotes {
        b = b.json_entity_quotes(on);
    }
    if let Some(on) = json.body_in_wrapper {
        b = b.json_body_in_wrapper(on);
    }
    if let Some(fenced) = json.fenced {
        b = b.json_fenced(fenced);
    }
    if let Some(on) = json.brace_opens_arguments {
        b = b.json_brace_opens_arguments(on);
    }
    if let Some(on) = json.id_before_name {
        places.id_before_name = Some(on.span().start);
        b = b.json_id_before_name(on.into_inner());
    }
    if json.open_at_start.is_some() || json.open_at_line_start.is_some() {
        b = b.json_open_unmarked(
            json.open_at_start.unwrap_or(false),
            json.open_at_line_start.unwrap_or(false),
        );
    }
    if let Some(on) = json.unmarked_needs_tool {
        b = b.json_unmarked_needs_tool(on);
    }
    if let Some(separator) = &json.body_separator {
        b = b.json_body_separator(one_byte(text, separator, "body_separator")?);
    }
    if let Some(openers) = json.unclosed_openers {
        b = b.json_unclosed_openers(openers);
    }
    if let Some(openers) = json.body_openers {
        b = b.json_body_openers(openers);
    }
    if let Some(on) = json.body_or_name {
        b = b.json_body_or_name(on);
    }
    if let Some(keys) = json.nested_body_keys {
        b = b.json_nested_body_keys(keys);
    }
    if let Some(syntax) = json.syntax.as_ref().filter(|s| s.get_ref() == "elements") {
        let Some(elements) = json.elements else {
            return Err(file_error(
                text,
                Some(syntax.span()),
                "syntax \"elements\" needs [json.elements] (call_element, …)".to_owned(),
            ));
        };
        let mut holds = Vec::new();
        for entry in elements.holds {
            let what = ElementValue::ALL
                .into_iter()
                .find(|what| what.key() == entry.holds.get_ref())
                .ok_or_else(|| {
                    file_error(
                        text,
                        Some(entry.holds.span()),
                        format!(
                            "unknown value kind {:?}; kinds: string, json, object, array",
                            entry.holds.get_ref()
                        ),
                    )
                })?;
            holds.push((entry.attribute, entry.value, what));
        }
        b = b.json_call_syntax(CallSyntax::Elements {
            tag_prefix: elements.tag_prefix,
            call_element: elements.call_element,
            name_attribute: elements.name_attribute,
            item_element: elements.item_element,
            value_elements: elements.value_elements,
            id_attribute: elements.id_attribute,
            holds,
        });
    } else if json.elements.is_some() {
        return Err(file_error(
            text,
            None,
            "[json.elements] is only for syntax \"elements\"".to_owned(),
        ));
    } else if let Some(syntax) = &json.syntax {
        if let Some(delimiter) = &json.string_delimiter {
            places.string_delimiter = Some(delimiter.span().start);
        }
        let delimiter = json.string_delimiter.map(Spanned::into_inner);
        let call_syntax = match (syntax.get_ref().as_str(), delimiter) {
            ("json", None) => CallSyntax::Json,
            ("python", None) => CallSyntax::Python,
            ("python_literal", None) => CallSyntax::PythonLiteral,
            ("gemma", Some(string_delimiter)) => CallSyntax::Gemma { string_delimiter },
            ("gemma", None) => {
                return Err(file_error(
                    text,
                    Some(syntax.span()),
                    "syntax \"gemma\" needs string_delimiter".to_owned(),
                ))
            }
            ("json" | "python" | "python_literal", Some(_)) => {
                return Err(file_error(
                    text,
                    Some(syntax.span()),
                    "string_delimiter is only for syntax \"gemma\"".to_owned(),
                ))
            }
            (other, _) => {
                return Err(file_error(
                    text,
                    Some(syntax.span()),
                    format!("unknown syntax {other:?}; syntaxes: json, python, python_literal, gemma, elements"),
                ))
            }
        };
        b = b.json_call_syntax(call_syntax);
    } else if json.string_delimiter.is_some() {
        return Err(file_error(
            text,
            None,
            "string_delimiter is only for syntax \"gemma\"".to_owned(),
        ));
    }
    if let Some(body) = json.body {
        places.body = Some(body.span().start);
        let body = body.into_inner();
        b = if body.name_is_key {
            b.json_body_name_is_key(body.list)
        } else {
            b.json_body(body.name, body.arguments, body.list)
        };
    }
    if let Some(id) = json.id_in_name {
        let sep = id.index_separator.get_ref();
        let mut chars = sep.chars();
        let (Some(sep), None) = (chars.next(), chars.next()) else {
            return Err(file_error(
                text,
                Some(id.index_separator.span()),
                "index_separator is one character".to_owned(),
            ));
        };
        b = b.json_id_in_name(id.prefix, sep);
    }
    if let Some(h) = json.headers {
        places.headers = Some(h.span().start);
        let h = h.into_inner();
        b = b.json_headers(h.recipient, h.functions, h.reasoning_channels);
        b = header_settings(b, h.reasoning_openers, h.call_openers, h.name_only);
        b = b.header_recipients(h.reasoning_recipients, h.content_recipients);
        if h.ends_at_line_end {
            b = b.header_line_end(true);
        }
        b = b.header_writing(h.role, h.call_channel, h.content_channel);
    }
    Ok(b)
}

/// A headers table's body openers and `name_only`, where it sets any.
fn header_settings(
    b: FormatBuilder,
    reasoning_openers: Vec<String>,
    call_openers: Vec<String>,
    name_only: bool,
) -> FormatBuilder {
    if reasoning_openers.is_empty() && call_openers.is_empty() && !name_only {
        return b;
    }
    b.json_header_bodies(reasoning_openers, call_openers, name_only)
}
