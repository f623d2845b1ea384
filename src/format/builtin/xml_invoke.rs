//! Calls leaked into text in Anthropic's older XML (no server emits it;
//! agents that prompt with it get it back):
//!
//! ```text
//! <function_calls>
//! <invoke name="shell">
//! <parameter name="command">echo test</parameter>
//! </invoke>
//! </function_calls>
//! ```
//!
//! MiniMax-M2's grammar with this block; an `<invoke name=…>` without the
//! block is a call too (reported), and so is the generic `<tool name="N">`
//! … `</tool>` that agents also paste. A value that holds JSON follows the
//! schema: typed when the request's tools give one, a string otherwise.

use super::minimax_m2::MINIMAX_M2;
use crate::format::{Description, Role};

pub(crate) static XML_INVOKE: Description = Description {
    name: "xml_invoke",
    aliases: &[],
    markers: &[
        (Role::CallOpen, "<function_calls>"),
        (Role::CallClose, "</function_calls>"),
        (Role::FuncOpen, "<invoke name="),
        (Role::FuncOpen, "<tool name="),
        (Role::FuncClose, "</invoke>"),
        (Role::FuncClose, "</tool>"),
        (Role::ParamOpen, "<parameter name="),
        (Role::ParamClose, "</parameter>"),
        (Role::ReasoningOpen, "<think>"),
        (Role::ReasoningClose, "</think>"),
    ],
    json_args_attribute: Some("args"),
    ..MINIMAX_M2
};
