//! Marked-up parameters as a format writes them: the function's and each
//! parameter's opener, what ends a name, the value's closer, and the
//! attributes beside a quoted name.

use super::elements::Elements;
use crate::format::{Description, NameEnd, Role};
use crate::json::elements::{ElementValue, Spelling};

pub(super) struct Markup {
    pub func_open: Option<&'static str>,
    /// Written after the function opener, before the name (an element's
    /// tag and name attribute, `<invoke name=`).
    pub name_open: String,
    pub func_close: Option<String>,
    /// What ends a function name: a byte, or (empty) the marker or line
    /// end after it.
    pub name_end: String,
    /// Whether a line end may end the name.
    pub name_line: bool,
    pub param_open: &'static str,
    /// What ends a parameter's name (a byte or `KeyClose`); empty where
    /// the value opener does.
    pub key_end: String,
    pub value_open: Option<&'static str>,
    pub param_close: &'static str,
    /// One line end on each side of a value is layout.
    pub value_lines: bool,
    /// Names are written in double quotes (`<invoke name="NAME">`).
    pub quoted: bool,
    /// The attribute after a parameter's quoted name that says whether
    /// its value is JSON or text.
    pub value_attribute: Option<ValueAttribute>,
    /// The attribute after a function's quoted name that numbers the call
    /// (Kimi K3's `index="0"`).
    pub index_attribute: Option<&'static str>,
    /// Parameters written as elements (the element syntax).
    pub elements: Option<Elements>,
}

/// A parameter attribute that says how its value is read.
#[derive(Clone, Copy)]
pub(super) enum ValueAttribute {
    /// `KEY="VALUE"` says the value is JSON (DSML's `string="false"`).
    Json(&'static str, &'static str),
    /// `KEY="VALUE"` says the value is text; any other value, JSON (Kimi
    /// K3's `type="string"`, `type="integer"`).
    Text(&'static str, &'static str),
}

impl Markup {
    /// A name as the format writes it.
    pub(super) fn quote(&self, name: &str) -> String {
        match self.quoted {
            true => format!("\"{name}\""),
            false => name.to_owned(),
        }
    }
}

pub(super) fn markup(
    desc: &Description,
    marker: &impl Fn(Role) -> Option<&'static str>,
) -> Option<Markup> {
    let byte = |end: NameEnd| match end {
        NameEnd::Byte(b) => char::from(b).to_string(),
        NameEnd::Marker { .. } => String::new(),
    };
    let func_open = marker(Role::FuncOpen);
    // A name closed by a marker of its own (Hy3's `<tool_sep>`) ends there;
    // Kimi K3's `<|sep|>` ends a parameter's name too, where no other
    // marker does.
    let name_close = marker(Role::NameClose);
    let key_end = match desc.param_name_end {
        NameEnd::Byte(b) => char::from(b).to_string(),
        NameEnd::Marker { .. } => match marker(Role::KeyClose).or(name_close) {
            Some(close) => close.to_owned(),
            None => {
                marker(Role::ValueOpen)?;
                String::new()
            }
        },
    };
    Some(Markup {
        func_open,
        name_open: String::new(),
        func_close: marker(Role::FuncClose).map(str::to_owned),
        name_end: name_close.map_or_else(|| byte(desc.func_name_end), str::to_owned),
        name_line: name_close.is_none()
            && matches!(desc.func_name_end, NameEnd::Marker { line: true }),
        param_open: marker(Role::ParamOpen)?,
        key_end,
        value_open: marker(Role::ValueOpen),
        param_close: marker(Role::ParamClose)?,
        value_lines: desc.strip_one_newline,
        quoted: desc.quoted_names,
        // Attributes follow a quoted name.
        value_attribute: match (desc.json_value_attribute, desc.string_value_attribute) {
            _ if !desc.quoted_names => None,
            (Some((key, value)), _) => Some(ValueAttribute::Json(key, value)),
            (None, Some((key, value))) => Some(ValueAttribute::Text(key, value)),
            (None, None) => None,
        },
        index_attribute: desc.index_attribute.filter(|_| desc.quoted_names),
        elements: None,
    })
}

/// Element calls as marked-up parameters: the call element names its
/// function (and numbers the call, where it has an id attribute), each
/// value is an element, said to be text or JSON by an attribute where one
/// says so.
pub(super) fn elements_markup(spelling: &Spelling) -> Markup {
    let prefix = spelling.prefix;
    let value_tag = spelling.values.first().copied();
    let name = spelling.name_attribute;
    let attribute = spelling
        .holds
        .iter()
        .find(|(_, _, holds)| *holds == ElementValue::Json)
        .map(|&(key, value, _)| ValueAttribute::Json(key, value));
    Markup {
        func_open: Some(prefix),
        name_open: format!("<{} {name}=", spelling.call),
        func_close: Some(format!("{prefix}</{}>", spelling.call)),
        name_end: ">".into(),
        name_line: false,
        param_open: "",
        key_end: ">".into(),
        value_open: None,
        param_close: "",
        value_lines: false,
        quoted: true,
        value_attribute: attribute.filter(|_| value_tag.is_some()),
        index_attribute: Some(spelling.id_attribute).filter(|id| !id.is_empty()),
        elements: Some(Elements {
            prefix,
            value_tag,
            name,
            call: spelling.call,
        }),
    }
}
