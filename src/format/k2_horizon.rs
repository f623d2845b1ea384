//! IFM's K2-Horizon (vLLM: `k2_horizon`), in its default `xml` dialect:
//! Tencent Hy4's shape in `ifm|` tags, with no suffix:
//!
//! ```text
//! <ifm|tool_calls><ifm|tool_call>get_weather<ifm|arg_key>city</ifm|arg_key><ifm|arg_value>Paris</ifm|arg_value></ifm|tool_call></ifm|tool_calls>
//! ```
//!
//! Reasoning is `<ifm|think>`, `<ifm|think_fast>` or `<ifm|think_faster>`,
//! each closed by its own closer. The `xml_typed` dialect (an
//! `<ifm|arg_type>` between key and value) and the `json` one (a JSON body
//! in `<ifm|tool_call>`) are not read.

use super::hy::HY;
use super::{Description, Role};

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
    ],
    ..HY
};
