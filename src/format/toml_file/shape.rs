//! A format file's shape, as serde reads it: every table and key, with
//! the spans errors are placed by.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;
use toml::Spanned;

use crate::format::Role;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct File {
    pub(super) name: Spanned<String>,
    #[serde(default)]
    pub(super) aliases: Vec<Spanned<String>>,
    pub(super) base: Option<Spanned<String>>,
    pub(super) marker_suffix: Option<String>,
    pub(super) markers: Option<Spanned<BTreeMap<Spanned<RoleKey>, Spanned<Spellings>>>>,
    pub(super) misspellings: Option<BTreeMap<RoleKey, Spanned<Spellings>>>,
    pub(super) names: Option<Names>,
    pub(super) values: Option<Values>,
    pub(super) grammar: Option<Spanned<Grammar>>,
    pub(super) recoveries: Option<Recoveries>,
    pub(super) json: Option<Json>,
    pub(super) headers: Option<Spanned<Headers>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Names {
    pub(super) function_end: Option<Spanned<String>>,
    pub(super) parameter_end: Option<Spanned<String>>,
    pub(super) quoted: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Values {
    pub(super) strip_one_newline: Option<bool>,
    pub(super) json_attribute: Option<Spanned<(String, String)>>,
    pub(super) string_attribute: Option<Spanned<(String, String)>>,
    pub(super) arguments_attribute: Option<Spanned<String>>,
    pub(super) index_attribute: Option<Spanned<String>>,
    pub(super) wrapped_arguments: Option<Vec<String>>,
    pub(super) arguments_body: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Grammar {
    pub(super) call_confirmed_by: Option<Spanned<Vec<RoleKey>>>,
    pub(super) bare_confirmed_by: Option<Spanned<Vec<RoleKey>>>,
    pub(super) parameter_open_at_line_start: Option<bool>,
    pub(super) item_type: Option<String>,
    pub(super) unwrapped_functions: Option<Spanned<bool>>,
    pub(super) follows: Option<BTreeMap<RoleKey, Spanned<Vec<RoleKey>>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Recoveries {
    pub(super) bare_function: Option<Spanned<bool>>,
    pub(super) equals_in_parameter_name: Option<bool>,
    pub(super) value_after_empty_close: Option<bool>,
    pub(super) value_without_open: Option<bool>,
    pub(super) call_open_without_close: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Json {
    pub(super) arguments_after_name: Option<Spanned<bool>>,
    pub(super) call_type: Option<String>,
    pub(super) call_type_optional: Option<bool>,
    pub(super) fenced: Option<bool>,
    pub(super) entity_quotes: Option<bool>,
    pub(super) body_in_wrapper: Option<bool>,
    pub(super) brace_opens_arguments: Option<bool>,
    pub(super) id_before_name: Option<Spanned<bool>>,
    pub(super) open_at_start: Option<bool>,
    pub(super) open_at_line_start: Option<bool>,
    pub(super) unmarked_needs_tool: Option<bool>,
    pub(super) body_separator: Option<Spanned<String>>,
    pub(super) unclosed_openers: Option<Vec<String>>,
    pub(super) body_openers: Option<Vec<String>>,
    pub(super) body_or_name: Option<bool>,
    pub(super) nested_body_keys: Option<Vec<String>>,
    pub(super) syntax: Option<Spanned<String>>,
    pub(super) string_delimiter: Option<Spanned<String>>,
    pub(super) elements: Option<Elements>,
    pub(super) body: Option<Spanned<Body>>,
    pub(super) id_in_name: Option<IdInName>,
    pub(super) headers: Option<Spanned<Headers>>,
}

/// `syntax = "elements"`'s spellings (`[json.elements]`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Elements {
    #[serde(default)]
    pub(super) tag_prefix: String,
    pub(super) call_element: String,
    #[serde(default = "default_name_attribute")]
    pub(super) name_attribute: String,
    #[serde(default = "default_item_element")]
    pub(super) item_element: String,
    #[serde(default)]
    pub(super) value_elements: Vec<String>,
    #[serde(default)]
    pub(super) id_attribute: String,
    #[serde(default)]
    pub(super) holds: Vec<Holds>,
}

/// One of `[json.elements]`'s `holds`: an attribute, a value of it, and what
/// a value element with it holds (`string`, `json`, `object`, `array`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Holds {
    pub(super) attribute: String,
    pub(super) value: String,
    pub(super) holds: Spanned<String>,
}

pub(super) fn default_name_attribute() -> String {
    "name".to_owned()
}

pub(super) fn default_item_element() -> String {
    "item".to_owned()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Body {
    #[serde(default)]
    pub(super) name: Vec<String>,
    #[serde(default)]
    pub(super) arguments: Vec<String>,
    #[serde(default)]
    pub(super) list: bool,
    #[serde(default)]
    pub(super) name_is_key: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct IdInName {
    #[serde(default)]
    pub(super) prefix: String,
    pub(super) index_separator: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Headers {
    pub(super) recipient: String,
    pub(super) functions: String,
    #[serde(default)]
    pub(super) reasoning_channels: Vec<String>,
    #[serde(default)]
    pub(super) reasoning_openers: Vec<String>,
    #[serde(default)]
    pub(super) call_openers: Vec<String>,
    #[serde(default)]
    pub(super) name_only: bool,
    #[serde(default)]
    pub(super) reasoning_recipients: Vec<String>,
    #[serde(default)]
    pub(super) content_recipients: Vec<String>,
    #[serde(default)]
    pub(super) ends_at_line_end: bool,
    #[serde(default)]
    pub(super) role: String,
    #[serde(default)]
    pub(super) call_channel: String,
    #[serde(default)]
    pub(super) content_channel: String,
}

/// A role as a key or list item (`call_open`).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct RoleKey(pub(super) Role);

impl<'de> Deserialize<'de> for RoleKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<RoleKey, D::Error> {
        let key = String::deserialize(d)?;
        key.parse().map(RoleKey).map_err(de::Error::custom)
    }
}

/// A marker's spelling, or a list of them.
pub(super) struct Spellings(pub(super) Vec<String>);

impl<'de> Deserialize<'de> for Spellings {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Spellings, D::Error> {
        struct Texts;
        impl<'de> Visitor<'de> for Texts {
            type Value = Spellings;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a marker's spelling, or a list of spellings")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Spellings, E> {
                Ok(Spellings(vec![text.to_owned()]))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Spellings, A::Error> {
                let mut texts = Vec::new();
                while let Some(text) = seq.next_element::<String>()? {
                    texts.push(text);
                }
                Ok(Spellings(texts))
            }
        }
        d.deserialize_any(Texts)
    }
}
