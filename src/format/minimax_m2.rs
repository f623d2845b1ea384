//! MiniMax-M2 and M2.1 (vLLM: `minimax_m2`):
//!
//! ```text
//! <minimax:tool_call>
//! <invoke name="get_weather">
//! <parameter name="city">Paris</parameter>
//! </invoke>
//! </minimax:tool_call>
//! ```
//!
//! A block holds any number of invokes. Names are attribute values, in
//! double, single or no quotes, and end at `>`; values are verbatim
//! (their newlines are the value's). A bare `<invoke name=…>` without the
//! block is a call once a parameter or `</invoke>` follows it.

use super::{Description, NameEnd, Recoveries, Role};

pub(crate) static MINIMAX_M2: Description = Description {
    name: "minimax_m2",
    aliases: &[],
    markers: &[
        (Role::CallOpen, "<minimax:tool_call>"),
        (Role::CallClose, "</minimax:tool_call>"),
        (Role::FuncOpen, "<invoke name="),
        (Role::FuncClose, "</invoke>"),
        (Role::ParamOpen, "<parameter name="),
        (Role::ParamClose, "</parameter>"),
        (Role::ReasoningOpen, "<think>"),
        (Role::ReasoningClose, "</think>"),
    ],
    func_name_end: NameEnd::Byte(b'>'),
    param_name_end: NameEnd::Byte(b'>'),
    strip_one_newline: false,
    call_confirmed_by: &[],
    bare_confirmed_by: &[Role::ParamOpen, Role::FuncClose],
    follows: &[
        (
            Role::ParamClose,
            &[
                Role::ParamOpen,
                Role::FuncClose,
                Role::CallClose,
                Role::FuncOpen,
                Role::CallOpen,
            ],
        ),
        (
            Role::FuncClose,
            &[Role::CallClose, Role::CallOpen, Role::FuncOpen],
        ),
        (Role::CallClose, &[Role::CallOpen, Role::FuncOpen]),
    ],
    param_open_at_line_start: true,
    quoted_names: true,
    json_value_attribute: None,
    recoveries: Recoveries {
        bare_function: true,
        ..Recoveries::NONE
    },
    json: None,
};
