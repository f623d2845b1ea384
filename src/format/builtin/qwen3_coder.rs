//! Qwen3-Coder XML (vLLM: `qwen3_coder`, `qwen3_xml`), also written by
//! Qwen3.5/3.6, MiMo, Nemotron 3 Nano, Step-3.5 and Step 5, under the names their
//! users know (aliases):
//!
//! ```text
//! <tool_call>
//! <function=get_weather>
//! <parameter=city>
//! Paris
//! </parameter>
//! </function>
//! </tool_call>
//! ```
//!
//! Names end at `>`; each value sits on lines of its own, so one leading and
//! one trailing `\n` are layout. Its quirks, seen in real outputs, are
//! recoveries: a `<function=` without `<tool_call>`, `<parameter=K=V`, and
//! `<parameter=K></parameter>V`.

use crate::format::{Description, NameEnd, Recoveries, Role};

pub(crate) static QWEN3_CODER: Description = Description {
    name: "qwen3_coder",
    aliases: &[
        "qwen3_xml",
        "qwen3.5",
        "mimo",
        "nemotron-3-nano",
        "step3p5",
        "step5",
    ],
    markers: &[
        (Role::CallOpen, "<tool_call>"),
        (Role::CallClose, "</tool_call>"),
        (Role::FuncOpen, "<function="),
        (Role::FuncClose, "</function>"),
        (Role::ParamOpen, "<parameter="),
        (Role::ParamClose, "</parameter>"),
        (Role::ReasoningOpen, "<think>"),
        (Role::ReasoningClose, "</think>"),
        (Role::EndOfTurn, "<|im_end|>"),
        (Role::EndOfTurn, "<|endoftext|>"),
    ],
    func_name_end: NameEnd::Byte(b'>'),
    param_name_end: NameEnd::Byte(b'>'),
    strip_one_newline: true,
    // `<tool_call>` then `<function=NAME>` is a call as soon as the name
    // ends; a bare `<function=NAME>` needs structure after it.
    call_confirmed_by: &[],
    bare_confirmed_by: &[Role::ParamOpen, Role::FuncClose],
    follows: &[
        // `<function=` and `<tool_call>` also imply a missing `</function>`.
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
    quoted_names: false,
    json_value_attribute: None,
    string_value_attribute: None,
    json_args_attribute: None,
    index_attribute: None,
    json_args_body: false,
    item_type: None,
    wrapped_arguments: &[],
    recoveries: Recoveries {
        bare_function: true,
        equals_in_param_name: true,
        value_after_empty_close: true,
        value_without_open: false,
        call_open_without_close: false,
    },
    json: None,
    marker_suffix: "",
    headers: None,
    unwrapped_functions: false,
    misspellings: &[],
};
