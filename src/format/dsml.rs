//! DeepSeek's DSML markup: V3.2 (vLLM: `deepseek_v32`) and V4
//! (`deepseek_v4`, whose block is `tool_calls`):
//!
//! ```text
//! <｜DSML｜function_calls>
//! <｜DSML｜invoke name="get_weather">
//! <｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>
//! <｜DSML｜parameter name="days" string="false">3</｜DSML｜parameter>
//! </｜DSML｜invoke>
//! </｜DSML｜function_calls>
//! ```
//!
//! MiniMax-M2's grammar in DSML's spelling: names are quoted attribute
//! values ending at `>`, values verbatim. A parameter's `string="false"`
//! says its value is JSON: typed as the JSON it is where no schema types
//! it (`string="true"` values are strings unless the schema says
//! otherwise).

use super::{minimax_m2::MINIMAX_M2, Description, Role};

/// MiniMax-M2's description with DSML's markers, and `string="false"`.
const fn dsml(name: &'static str, markers: &'static [(Role, &'static str)]) -> Description {
    Description {
        name,
        markers,
        json_value_attribute: Some(("string", "false")),
        // vLLM unwraps a lone `arguments` or `input` parameter holding the
        // call's arguments.
        wrapped_arguments: &["arguments", "input"],
        ..MINIMAX_M2
    }
}

pub(crate) static DEEPSEEK_V32: Description = dsml(
    "deepseek_v32",
    &[
        (Role::CallOpen, "<｜DSML｜function_calls>"),
        (Role::CallClose, "</｜DSML｜function_calls>"),
        (Role::FuncOpen, "<｜DSML｜invoke name="),
        (Role::FuncClose, "</｜DSML｜invoke>"),
        (Role::ParamOpen, "<｜DSML｜parameter name="),
        (Role::ParamClose, "</｜DSML｜parameter>"),
        (Role::ReasoningOpen, "<think>"),
        (Role::ReasoningClose, "</think>"),
        (Role::EndOfTurn, "<｜end▁of▁sentence｜>"),
    ],
);

pub(crate) static DEEPSEEK_V4: Description = dsml(
    "deepseek_v4",
    &[
        (Role::CallOpen, "<｜DSML｜tool_calls>"),
        (Role::CallClose, "</｜DSML｜tool_calls>"),
        (Role::FuncOpen, "<｜DSML｜invoke name="),
        (Role::FuncClose, "</｜DSML｜invoke>"),
        (Role::ParamOpen, "<｜DSML｜parameter name="),
        (Role::ParamClose, "</｜DSML｜parameter>"),
        (Role::ReasoningOpen, "<think>"),
        (Role::ReasoningClose, "</think>"),
        (Role::EndOfTurn, "<｜end▁of▁sentence｜>"),
    ],
);
