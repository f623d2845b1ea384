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

use super::{Description, NameEnd, Recoveries, Role};

const FOLLOWS: &[(Role, &[Role])] = &[
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
];

const fn dsml(name: &'static str, markers: &'static [(Role, &'static str)]) -> Description {
    Description {
        name,
        aliases: &[],
        markers,
        func_name_end: NameEnd::Byte(b'>'),
        param_name_end: NameEnd::Byte(b'>'),
        strip_one_newline: false,
        call_confirmed_by: &[],
        // A bare invoke is a call once a parameter or its closer follows.
        bare_confirmed_by: &[Role::ParamOpen, Role::FuncClose],
        follows: FOLLOWS,
        param_open_at_line_start: true,
        quoted_names: true,
        json_value_attribute: Some(("string", "false")),
        recoveries: Recoveries {
            bare_function: true,
            ..Recoveries::NONE
        },
        json: None,
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
    ],
);
