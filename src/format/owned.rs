//! A description in owned form: what [`FormatBuilder`] edits. Building
//! checks it (on a borrowed [`Shape`]), then keeps it for the rest of the
//! process, as the built-in descriptions are kept: the engine reads
//! `&'static` descriptions on its hot path. Equal descriptions are kept
//! once, so building the same format again (per request, in a loop) costs
//! a lookup and no memory.
//!
//! [`FormatBuilder`]: super::FormatBuilder

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use super::rules::{HeaderShape, IdFirst, Layout, Shape};
use super::{
    with_suffix, without_suffix, BodyKeys, CallSyntax, Description, DescriptionError, Format,
    Headers, IdInName, Json, NameEnd, Recoveries, Role, Syntax,
};
use crate::engine::Compiled;

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct OwnedBodyKeys {
    pub name: Vec<String>,
    pub arguments: Vec<String>,
    pub list: bool,
    pub name_is_key: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct OwnedHeaders {
    pub reasoning_channels: Vec<String>,
    pub recipient: String,
    pub functions: String,
    pub reasoning_openers: Vec<String>,
    pub call_openers: Vec<String>,
    pub name_only: bool,
    pub reasoning_recipients: Vec<String>,
    pub content_recipients: Vec<String>,
    pub line_end: bool,
    pub role: String,
    pub call_channel: String,
    pub content_channel: String,
}

impl OwnedHeaders {
    fn of(h: Headers) -> OwnedHeaders {
        OwnedHeaders {
            reasoning_channels: strings(h.reasoning_channels),
            recipient: h.recipient.to_owned(),
            functions: h.functions.to_owned(),
            reasoning_openers: strings(h.reasoning_openers),
            call_openers: strings(h.call_openers),
            name_only: h.name_only,
            reasoning_recipients: strings(h.reasoning_recipients),
            content_recipients: strings(h.content_recipients),
            line_end: h.line_end,
            role: h.role.to_owned(),
            call_channel: h.call_channel.to_owned(),
            content_channel: h.content_channel.to_owned(),
        }
    }

    fn leak(&self) -> Headers {
        Headers {
            reasoning_channels: leak_strs(&self.reasoning_channels),
            recipient: leak_str(&self.recipient),
            functions: leak_str(&self.functions),
            reasoning_openers: leak_strs(&self.reasoning_openers),
            call_openers: leak_strs(&self.call_openers),
            name_only: self.name_only,
            reasoning_recipients: leak_strs(&self.reasoning_recipients),
            content_recipients: leak_strs(&self.content_recipients),
            line_end: self.line_end,
            role: leak_str(&self.role),
            call_channel: leak_str(&self.call_channel),
            content_channel: leak_str(&self.content_channel),
        }
    }
}

/// [`Json`], owned.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct OwnedJson {
    pub args_after_name: bool,
    pub body: Option<OwnedBodyKeys>,
    pub id_in_name: Option<(String, char)>,
    pub call_type: Option<String>,
    pub call_type_optional: bool,
    pub fenced: bool,
    pub brace_opens_args: bool,
    pub id_before_name: bool,
    pub headers: Option<OwnedHeaders>,
    pub open_at_start: bool,
    pub open_at_line_start: bool,
    pub body_separator: Option<u8>,
    pub unclosed_openers: Vec<String>,
    pub body_openers: Vec<String>,
    pub syntax: CallSyntax,
    pub entity_quotes: bool,
    pub unmarked_needs_tool: bool,
    pub body_in_wrapper: bool,
    pub body_or_name: bool,
    pub nested_body_keys: Vec<String>,
    pub id_keys: Vec<String>,
}

/// [`Description`], owned.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Owned {
    pub name: String,
    pub aliases: Vec<String>,
    pub markers: Vec<(Role, String)>,
    pub func_name_end: NameEnd,
    pub param_name_end: NameEnd,
    pub strip_one_newline: bool,
    pub call_confirmed_by: Vec<Role>,
    pub bare_confirmed_by: Vec<Role>,
    pub follows: Vec<(Role, Vec<Role>)>,
    pub param_open_at_line_start: bool,
    pub quoted_names: bool,
    pub json_value_attribute: Option<(String, String)>,
    pub string_value_attribute: Option<(String, String)>,
    pub json_args_attribute: Option<String>,
    pub index_attribute: Option<String>,
    pub json_args_body: bool,
    pub item_type: Option<String>,
    pub wrapped_arguments: Vec<String>,
    pub recoveries: Recoveries,
    pub json: Option<OwnedJson>,
    /// Markers are kept without it and spelled with it (see
    /// `Description::marker_suffix`).
    pub marker_suffix: String,
    /// [`Description::headers`].
    pub headers: Option<OwnedHeaders>,
    pub unwrapped_functions: bool,
    /// [`Description::misspellings`], as written (no suffix).
    pub misspellings: Vec<(Role, String)>,
}

fn strs(list: &[String]) -> Vec<&str> {
    list.iter().map(String::as_str).collect()
}

fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

impl Owned {
    /// A description with nothing spelled: names end at markers, values
    /// are verbatim, no recovery.
    pub(crate) fn empty(name: String) -> Owned {
        Owned::of(&Description::BLANK, name)
    }

    /// `desc`'s own copy, under another name and without its aliases.
    pub(crate) fn of(desc: &Description, name: String) -> Owned {
        Owned {
            name,
            aliases: Vec::new(),
            markers: desc
                .markers
                .iter()
                .map(|&(r, t)| (r, without_suffix(t, desc.marker_suffix)))
                .collect(),
            marker_suffix: desc.marker_suffix.to_owned(),
            headers: desc.headers.map(OwnedHeaders::of),
            func_name_end: desc.func_name_end,
            param_name_end: desc.param_name_end,
            strip_one_newline: desc.strip_one_newline,
            call_confirmed_by: desc.call_confirmed_by.to_vec(),
            bare_confirmed_by: desc.bare_confirmed_by.to_vec(),
            follows: desc.follows.iter().map(|(c, a)| (*c, a.to_vec())).collect(),
            param_open_at_line_start: desc.param_open_at_line_start,
            quoted_names: desc.quoted_names,
            json_value_attribute: desc
                .json_value_attribute
                .map(|(k, v)| (k.to_owned(), v.to_owned())),
            string_value_attribute: desc
                .string_value_attribute
                .map(|(k, v)| (k.to_owned(), v.to_owned())),
            json_args_attribute: desc.json_args_attribute.map(str::to_owned),
            index_attribute: desc.index_attribute.map(str::to_owned),
            json_args_body: desc.json_args_body,
            item_type: desc.item_type.map(str::to_owned),
            wrapped_arguments: strings(desc.wrapped_arguments),
            unwrapped_functions: desc.unwrapped_functions,
            misspellings: desc
                .misspellings
                .iter()
                .map(|&(r, t)| (r, t.to_owned()))
                .collect(),
            recoveries: desc.recoveries,
            json: desc.json.map(|json| OwnedJson {
                args_after_name: json.args_after_name,
                body: json.body.map(|keys| OwnedBodyKeys {
                    name: strings(keys.name),
                    arguments: strings(keys.arguments),
                    list: keys.list,
                    name_is_key: keys.name_is_key,
                }),
                id_in_name: json
                    .id_in_name
                    .map(|id| (id.prefix.to_owned(), id.index_sep)),
                call_type: json.call_type.map(str::to_owned),
                call_type_optional: json.call_type_optional,
                fenced: json.fenced,
                brace_opens_args: json.brace_opens_args,
                id_before_name: json.id_before_name,
                headers: json.headers.map(OwnedHeaders::of),
                open_at_start: json.open_at_start,
                open_at_line_start: json.open_at_line_start,
                body_separator: json.body_separator,
                unclosed_openers: strings(json.unclosed_openers),
                body_openers: strings(json.body_openers),
                entity_quotes: json.entity_quotes,
                unmarked_needs_tool: json.unmarked_needs_tool,
                body_in_wrapper: json.body_in_wrapper,
                body_or_name: json.body_or_name,
                nested_body_keys: strings(json.nested_body_keys),
                id_keys: strings(json.id_keys),
                syntax: match json.syntax {
                    Syntax::Json => CallSyntax::Json,
                    Syntax::Python => CallSyntax::Python,
                    Syntax::PythonLiteral => CallSyntax::PythonLiteral,
                    Syntax::Gemma { delimiter } => CallSyntax::Gemma {
                        string_delimiter: delimiter.to_owned(),
                    },
                    Syntax::Elements(spelling) => CallSyntax::Elements {
                        tag_prefix: spelling.prefix.to_owned(),
                        call_element: spelling.call.to_owned(),
                        name_attribute: spelling.name_attribute.to_owned(),
                        item_element: spelling.item.to_owned(),
                        value_elements: strings(spelling.values),
                        id_attribute: spelling.id_attribute.to_owned(),
                        holds: spelling
                            .holds
                            .iter()
                            .map(|&(k, v, h)| (k.to_owned(), v.to_owned(), h))
                            .collect(),
                    },
                },
            }),
        }
    }

    /// Checks every rule, the built-in descriptions' and those only a
    /// user's description can break.
    pub(crate) fn check(&self) -> Result<(), DescriptionError> {
        check_name(&self.name)?;
        for alias in &self.aliases {
            check_name(alias)?;
        }
        self.check_shape()
    }

    /// The markers as the engine reads them: with the suffix.
    fn spelled_markers(&self) -> Vec<(Role, String)> {
        self.markers
            .iter()
            .map(|(r, t)| (*r, with_suffix(t, &self.marker_suffix)))
            .collect()
    }

    /// The rules of descriptions, names aside.
    fn check_shape(&self) -> Result<(), DescriptionError> {
        if self.wrapped_arguments.iter().any(String::is_empty) {
            return Err(DescriptionError::EmptyKeys("wrapped arguments"));
        }
        if let Some(json) = &self.json {
            if json.nested_body_keys.iter().any(String::is_empty) {
                return Err(DescriptionError::EmptyKeys("nested body"));
            }
        }
        if let Some(keys) = self.json.as_ref().and_then(|json| json.body.as_ref()) {
            if !keys.name_is_key {
                for (which, list) in [("name", &keys.name), ("arguments", &keys.arguments)] {
                    if list.is_empty() || list.iter().any(String::is_empty) {
                        return Err(DescriptionError::EmptyKeys(which));
                    }
                }
            }
        }
        if let Some(CallSyntax::Elements {
            call_element,
            name_attribute,
            item_element,
            value_elements,
            holds,
            ..
        }) = self.json.as_ref().map(|json| &json.syntax)
        {
            // Without value elements, only the item tag makes arrays.
            let item_needed = value_elements.is_empty();
            if call_element.is_empty()
                || name_attribute.is_empty()
                || (item_needed && item_element.is_empty())
                || value_elements.iter().any(String::is_empty)
                || holds.iter().any(|(k, v, _)| k.is_empty() || v.is_empty())
            {
                return Err(DescriptionError::EmptyKeys("elements"));
            }
        }
        let spelled = self.spelled_markers();
        let markers: Vec<(Role, &str)> = spelled.iter().map(|(r, t)| (*r, t.as_str())).collect();
        let follows: Vec<(Role, &[Role])> = self
            .follows
            .iter()
            .map(|(c, a)| (*c, a.as_slice()))
            .collect();
        let misspellings: Vec<(Role, &str)> = self
            .misspellings
            .iter()
            .map(|(r, t)| (*r, t.as_str()))
            .collect();
        Shape {
            markers: &markers,
            func_name_end: self.func_name_end,
            param_name_end: self.param_name_end,
            follows: &follows,
            call_confirmed_by: &self.call_confirmed_by,
            bare_confirmed_by: &self.bare_confirmed_by,
            recoveries: self.recoveries,
            quoted_names: self.quoted_names,
            json_value_attribute: self.json_value_attribute.is_some()
                || self.string_value_attribute.is_some()
                || self.json_args_attribute.is_some()
                || self.index_attribute.is_some(),
            item_type: self.item_type.is_some(),
            layout: self.json.as_ref().filter(|json| !json.body_or_name).map_or(
                Layout::Marked,
                |json| {
                    Layout::of_json(
                        markers.iter().any(|(role, _)| *role == Role::ParamOpen),
                        json.headers.is_some(),
                        json.body.is_some(),
                        json.open_at_start || json.open_at_line_start,
                    )
                },
            ),
            string_delimiter: self.json.as_ref().and_then(|json| match &json.syntax {
                CallSyntax::Gemma { string_delimiter } => Some(string_delimiter.as_str()),
                _ => None,
            }),
            json_args_body: self.json_args_body,
            unwrapped_functions: self.unwrapped_functions,
            misspellings: &misspellings,
            id_before_name: self.json.as_ref().map_or(IdFirst::default(), |json| {
                IdFirst::of(
                    json.id_before_name,
                    json.args_after_name,
                    json.id_in_name.is_some() || json.call_type.is_some(),
                )
            }),
            headers: self
                .headers
                .as_ref()
                .or(self.json.as_ref().and_then(|json| json.headers.as_ref()))
                .map(|headers| HeaderShape {
                    reasoning_recipients: strs(&headers.reasoning_recipients),
                    content_recipients: strs(&headers.content_recipients),
                    line_end: headers.line_end,
                }),
        }
        .check()
    }

    /// Checks the description and compiles it, once per process for equal
    /// descriptions.
    pub(crate) fn compile(self) -> Result<&'static Compiled, DescriptionError> {
        self.check()?;
        self.keep()
    }

    /// A built-in format with another setting (a marker suffix), under the
    /// built-in's own name: checked as a built-in one is, its name aside.
    pub(crate) fn compile_variant(self) -> Result<&'static Compiled, DescriptionError> {
        self.check_shape()?;
        self.keep()
    }

    fn keep(self) -> Result<&'static Compiled, DescriptionError> {
        static KEPT: OnceLock<Mutex<HashMap<Owned, &'static Compiled>>> = OnceLock::new();
        let kept = KEPT.get_or_init(Default::default);
        // A panic elsewhere while the lock was held left the map whole: it
        // is only ever inserted into.
        let mut kept = kept.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(compiled) = kept.get(&self) {
            return Ok(compiled);
        }
        let desc: &'static Description = Box::leak(Box::new(self.leak()));
        let compiled = Compiled::new(desc)?;
        let compiled: &'static Compiled = Box::leak(Box::new(compiled));
        kept.insert(self, compiled);
        Ok(compiled)
    }

    /// A `'static` copy (see the module's documentation).
    fn leak(&self) -> Description {
        Description {
            name: leak_str(&self.name),
            aliases: leak_strs(&self.aliases),
            markers: Vec::leak(
                self.spelled_markers()
                    .iter()
                    .map(|(r, t)| (*r, leak_str(t)))
                    .collect(),
            ),
            marker_suffix: leak_str(&self.marker_suffix),
            headers: self.headers.as_ref().map(OwnedHeaders::leak),
            func_name_end: self.func_name_end,
            param_name_end: self.param_name_end,
            strip_one_newline: self.strip_one_newline,
            call_confirmed_by: Vec::leak(self.call_confirmed_by.clone()),
            bare_confirmed_by: Vec::leak(self.bare_confirmed_by.clone()),
            follows: Vec::leak(
                self.follows
                    .iter()
                    .map(|(c, a)| (*c, &*Vec::leak(a.clone())))
                    .collect(),
            ),
            param_open_at_line_start: self.param_open_at_line_start,
            quoted_names: self.quoted_names,
            json_value_attribute: self
                .json_value_attribute
                .as_ref()
                .map(|(k, v)| (leak_str(k), leak_str(v))),
            string_value_attribute: self
                .string_value_attribute
                .as_ref()
                .map(|(k, v)| (leak_str(k), leak_str(v))),
            json_args_attribute: self.json_args_attribute.as_deref().map(leak_str),
            index_attribute: self.index_attribute.as_deref().map(leak_str),
            json_args_body: self.json_args_body,
            item_type: self.item_type.as_deref().map(leak_str),
            wrapped_arguments: leak_strs(&self.wrapped_arguments),
            unwrapped_functions: self.unwrapped_functions,
            misspellings: Vec::leak(
                self.misspellings
                    .iter()
                    .map(|(r, t)| (*r, leak_str(t)))
                    .collect(),
            ),
            recoveries: self.recoveries,
            json: self.json.as_ref().map(|json| Json {
                args_after_name: json.args_after_name,
                body: json.body.as_ref().map(|keys| BodyKeys {
                    name: leak_strs(&keys.name),
                    arguments: leak_strs(&keys.arguments),
                    list: keys.list,
                    name_is_key: keys.name_is_key,
                }),
                id_in_name: json.id_in_name.as_ref().map(|(prefix, sep)| IdInName {
                    prefix: leak_str(prefix),
                    index_sep: *sep,
                }),
                call_type: json.call_type.as_deref().map(leak_str),
                call_type_optional: json.call_type_optional,
                fenced: json.fenced,
                brace_opens_args: json.brace_opens_args,
                id_before_name: json.id_before_name,
                headers: json.headers.as_ref().map(OwnedHeaders::leak),
                open_at_start: json.open_at_start,
                open_at_line_start: json.open_at_line_start,
                body_separator: json.body_separator,
                unclosed_openers: leak_strs(&json.unclosed_openers),
                body_openers: leak_strs(&json.body_openers),
                entity_quotes: json.entity_quotes,
                unmarked_needs_tool: json.unmarked_needs_tool,
                body_in_wrapper: json.body_in_wrapper,
                body_or_name: json.body_or_name,
                nested_body_keys: leak_strs(&json.nested_body_keys),
                id_keys: leak_strs(&json.id_keys),
                syntax: match &json.syntax {
                    CallSyntax::Json => Syntax::Json,
                    CallSyntax::Python => Syntax::Python,
                    CallSyntax::PythonLiteral => Syntax::PythonLiteral,
                    CallSyntax::Gemma { string_delimiter } => Syntax::Gemma {
                        delimiter: leak_str(string_delimiter),
                    },
                    CallSyntax::Elements {
                        tag_prefix,
                        call_element,
                        name_attribute,
                        item_element,
                        value_elements,
                        id_attribute,
                        holds,
                    } => Syntax::Elements(crate::json::elements::Spelling {
                        prefix: leak_str(tag_prefix),
                        call: leak_str(call_element),
                        name_attribute: leak_str(name_attribute),
                        item: leak_str(item_element),
                        values: leak_strs(value_elements),
                        id_attribute: leak_str(id_attribute),
                        holds: Vec::leak(
                            holds
                                .iter()
                                .map(|(k, v, h)| (leak_str(k), leak_str(v), *h))
                                .collect(),
                        ),
                    }),
                },
            }),
        }
    }
}

fn leak_str(s: &str) -> &'static str {
    Box::leak(s.to_owned().into_boxed_str())
}

fn leak_strs(list: &[String]) -> &'static [&'static str] {
    Vec::leak(list.iter().map(|s| leak_str(s)).collect())
}

/// A name of its own: not empty, and not one that names a built-in format
/// (which it would hide where formats are looked up by name).
fn check_name(name: &str) -> Result<(), DescriptionError> {
    if name.trim().is_empty() || name.parse::<Format>().is_ok() {
        return Err(DescriptionError::Name(name.to_owned()));
    }
    Ok(())
}
