//! Cohere's "cofl" XML (Melody: `cmd5`; xgrammar: `cohere`, style
//! `cohere_xml`), in its two dialects: flat parameters whose `string`
//! attribute says whether the value is a string or JSON,
//!
//! ```text
//! <|START_THINKING|>…<|END_THINKING|><cofl:tool_calls>
//! <cofl:tool_call id="0" name="search">
//! <cofl:tool_param name="query" string="true">hello &amp; bye</cofl:tool_param>
//! <cofl:tool_param name="limit" string="false">3</cofl:tool_param>
//! </cofl:tool_call></cofl:tool_calls>
//! ```
//!
//! and nested values whose `type` says what each holds (`raw` a string,
//! `json` JSON, `dict` an object of named values, `list` an array of
//! unnamed ones):
//!
//! ```text
//! <cofl:value name="docs" type="list"><cofl:value type="dict">
//! <cofl:value name="id" type="raw">d1</cofl:value></cofl:value></cofl:value>
//! ```
//!
//! Read by the engine's element syntax (`json::elements`), whose value
//! elements are named by their `name` attribute: the call element's `id`
//! is kept as the call's id (written before or after its name), text and
//! attributes are entity-decoded, and a value without a `string` or
//! `type` attribute is a string (its content decides: children make an
//! object, or an array when they are unnamed). A wrapper holds any number
//! of calls. Reasoning is `<|START_THINKING|>`; `<|START_TEXT|>` around
//! the answer is layout.

use crate::format::{Description, Json, Role, Syntax};
use crate::json::elements::{ElementValue, Spelling};

pub(crate) static COHERE_COFL: Description = Description {
    aliases: &["cmd5", "cohere_xml"],
    ..Description::json(
        "cohere_cofl",
        &[
            (Role::CallOpen, "<cofl:tool_calls>"),
            (Role::CallClose, "</cofl:tool_calls>"),
            (Role::ReasoningOpen, "<|START_THINKING|>"),
            (Role::ReasoningClose, "<|END_THINKING|>"),
            (Role::Layout, "<|START_TEXT|>"),
            (Role::Layout, "<|END_TEXT|>"),
            (Role::EndOfTurn, "<|END_OF_TURN_TOKEN|>"),
        ],
        Json::calls(Syntax::Elements(Spelling {
            prefix: "",
            call: "cofl:tool_call",
            name_attribute: "name",
            item: "",
            values: &["cofl:tool_param", "cofl:value"],
            id_attribute: "id",
            holds: &[
                ("string", "true", ElementValue::String),
                ("string", "false", ElementValue::Json),
                ("type", "raw", ElementValue::String),
                ("type", "json", ElementValue::Json),
                ("type", "dict", ElementValue::Object),
                ("type", "list", ElementValue::Array),
            ],
        })),
    )
};
