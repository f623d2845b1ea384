//! How a format spells its elements, and what a value element holds.

/// How a format spells its elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Spelling {
    /// Written before every tag's `<` (`]<]minimax[>[`), or empty.
    pub prefix: &'static str,
    /// The element that holds one call (`invoke`).
    pub call: &'static str,
    /// The call element's attribute that names the function (`name`).
    pub name_attribute: &'static str,
    /// Children of this name make their parent an array (`item`); empty:
    /// none (where `values` are given, unnamed children do).
    pub item: &'static str,
    /// Elements that are values named by their `name_attribute` rather than
    /// by their tag (Cohere's `cofl:tool_param`, `cofl:value`); empty: every
    /// element is named by its tag. An unnamed one makes an undecided parent
    /// an array.
    pub values: &'static [&'static str],
    /// The call element's attribute that holds the call's id (`id`); empty:
    /// none.
    pub id_attribute: &'static str,
    /// A value element's attribute, a value of it, and what the element then
    /// holds (`type="dict"`: an object). Without one of these, its content
    /// decides.
    pub holds: &'static [(&'static str, &'static str, ElementValue)],
}

impl Spelling {
    /// The bare spelling: no prefix, values named by their tags, no ids,
    /// no attributes that say what a value holds.
    pub(crate) const fn tags(call: &'static str) -> Spelling {
        Spelling {
            prefix: "",
            call,
            name_attribute: "name",
            item: "item",
            values: &[],
            id_attribute: "",
            holds: &[],
        }
    }
}

/// What a value element holds, as an attribute says
/// ([`CallSyntax::Elements`](crate::format::CallSyntax)'s `holds`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElementValue {
    /// Text, a string (typed by the schema where it allows another type).
    String,
    /// JSON written as text (`3`, `true`, `{"a": 1}`): typed as the JSON it
    /// is where the schema does not type it.
    Json,
    /// Named child elements: an object.
    Object,
    /// Child elements whose names, if any, are not keys: an array.
    Array,
}

impl ElementValue {
    /// Every kind, in the order of this type's documentation.
    pub const ALL: [ElementValue; 4] = [
        ElementValue::String,
        ElementValue::Json,
        ElementValue::Object,
        ElementValue::Array,
    ];

    /// Its name in format files (`string`, `json`, `object`, `array`).
    pub fn key(self) -> &'static str {
        match self {
            ElementValue::String => "string",
            ElementValue::Json => "json",
            ElementValue::Object => "object",
            ElementValue::Array => "array",
        }
    }
}
