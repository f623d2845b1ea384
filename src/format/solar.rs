//! Upstage Solar Open2 (`solar_open2`): GLM's key/value shape under
//! Solar's tokens, the name on the opener's line, one argument per line:
//!
//! ```text
//! <|tool_call:start|>get_weather
//! <|tool_arg:start|>city<|tool_arg:value|>Paris<|tool_arg:end|>
//! <|tool_call:end|>
//! ```
//!
//! `<|tool_arg:value|>` both ends the key and opens the value; values are
//! raw text, typed by the request's schema. A call whose
//! `<|tool_call:end|>` is missing ends at the output's end or the next
//! call, reported.

use super::{Description, NameEnd, Role};

pub(crate) static SOLAR_OPEN2: Description = Description {
    name: "solar_open2",
    markers: &[
        (Role::CallOpen, "<|tool_call:start|>"),
        (Role::CallClose, "<|tool_call:end|>"),
        (Role::ParamOpen, "<|tool_arg:start|>"),
        (Role::KeyClose, "<|tool_arg:value|>"),
        (Role::ParamClose, "<|tool_arg:end|>"),
        (Role::ReasoningOpen, "<|think|>"),
        (Role::ReasoningClose, "<|end|>"),
    ],
    func_name_end: NameEnd::Marker { line: true },
    param_name_end: NameEnd::Marker { line: false },
    call_confirmed_by: &[Role::ParamOpen, Role::CallClose],
    follows: &[
        (
            Role::ParamClose,
            &[Role::ParamOpen, Role::CallClose, Role::CallOpen],
        ),
        (Role::CallClose, &[Role::CallOpen]),
    ],
    param_open_at_line_start: true,
    ..Description::BLANK
};
