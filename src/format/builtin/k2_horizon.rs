//! IFM's K2-Horizon (vLLM: `k2_horizon`): Tencent Hy4's shape in `ifm|`
//! tags, with no suffix, in the three dialects its chat template writes
//! (`tool_call_format`):
//!
//! ```text
//! <ifm|tool_calls><ifm|tool_call>get_weather<ifm|arg_key>city</ifm|arg_key><ifm|arg_value>Paris</ifm|arg_value></ifm|tool_call></ifm|tool_calls>
//! <ifm|tool_calls><ifm|tool_call>get_weather<ifm|arg_key>days</ifm|arg_key><ifm|arg_type>integer</ifm|arg_type><ifm|arg_value>3</ifm|arg_value></ifm|tool_call></ifm|tool_calls>
//! <ifm|tool_calls><ifm|tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</ifm|tool_call></ifm|tool_calls>
//! ```
//!
//! `xml` (the default), `xml_typed` (an `<ifm|arg_type>` between key and
//! value names the value's JSON Schema type, which types it where the
//! request's schema does not) and `json` (a call object, or a list of
//! them, in `<ifm|tool_call>`; `parameters` for `arguments`; the object
//! may also sit under `function`, `{"type": "function", "function": {…}}`). Each call
//! says its own dialect, so one description reads all three: after
//! `<ifm|tool_call>`, a `{` or `[` opens a JSON body, anything else a
//! name. Reasoning is `<ifm|think>`, `<ifm|think_fast>` or
//! `<ifm|think_faster>`, each closed by its own closer.

use super::hy::HY;
use crate::format::{BodyKeys, Description, Json, Role};

pub(crate) static K2_HORIZON: Description = Description {
    name: "k2_horizon",
    aliases: &["k2h"],
    markers: &[
        (Role::CallOpen, "<ifm|tool_calls>"),
        (Role::CallClose, "</ifm|tool_calls>"),
        (Role::FuncOpen, "<ifm|tool_call>"),
        (Role::FuncClose, "</ifm|tool_call>"),
        (Role::ParamOpen, "<ifm|arg_key>"),
        (Role::KeyClose, "</ifm|arg_key>"),
        (Role::ValueOpen, "<ifm|arg_value>"),
        (Role::ParamClose, "</ifm|arg_value>"),
        (Role::ReasoningOpen, "<ifm|think>"),
        (Role::ReasoningOpen, "<ifm|think_fast>"),
        (Role::ReasoningOpen, "<ifm|think_faster>"),
        (Role::ReasoningClose, "</ifm|think>"),
        (Role::ReasoningClose, "</ifm|think_fast>"),
        (Role::ReasoningClose, "</ifm|think_faster>"),
        (Role::TypeOpen, "<ifm|arg_type>"),
        (Role::TypeClose, "</ifm|arg_type>"),
    ],
    json: Some(Json {
        body_or_name: true,
        // SGLang's reader takes the call from under `function` when the
        // object has one (`{"type": "function", "function": {…}}`).
        nested_body_keys: &["function"],
        ..Json::body(BodyKeys {
            name: &["name"],
            arguments: &["arguments", "parameters"],
            list: true,
            name_is_key: false,
        })
    }),
    ..HY
};
