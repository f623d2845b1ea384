//! Upstage Solar Open (`solar_open`): each call an id, a name and JSON
//! arguments between Solar's tokens, in a `<|tool_calls|>` block:
//!
//! ```text
//! <|tool_calls|><|tool_call:begin|>a1b2c3d4e5<|tool_call:name|>get_weather<|tool_call:args|>{"city": "Paris"}<|tool_call:end|><|calls|>
//! ```
//!
//! The id before the name is kept as the call's id (the template writes the
//! calls' ids there); the arguments end at their own `}`, the call at
//! `<|tool_call:end|>`; `<|calls|>`, which may end the block, is markup. Reasoning is `<|think|>…<|end|>`, and the reply
//! after it `<|begin|>assistant<|content|>…`: markup, not content. A
//! call without the block's opener is read, reported.
//!
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

use crate::format::{Description, Json, NameEnd, Recoveries, Role};

pub(crate) static SOLAR_OPEN: Description = Description {
    bare_confirmed_by: &[Role::ArgsOpen],
    recoveries: Recoveries {
        bare_function: true,
        ..Recoveries::NONE
    },
    ..Description::json(
        "solar_open",
        &[
            (Role::CallOpen, "<|tool_calls|>"),
            (Role::CallClose, "<|calls|>"),
            (Role::FuncOpen, "<|tool_call:begin|>"),
            (Role::FuncClose, "<|tool_call:end|>"),
            (Role::IdOpen, "<|tool_call:name|>"),
            (Role::ArgsOpen, "<|tool_call:args|>"),
            (Role::ReasoningOpen, "<|think|>"),
            (Role::ReasoningClose, "<|end|>"),
            (Role::Layout, "<|begin|>assistant"),
            (Role::Layout, "<|content|>"),
            (Role::Layout, "<|flush|>"),
        ],
        Json {
            id_before_name: true,
            // The block's end may be left out: each call ends at its own
            // closer.
            unclosed_openers: &["<|tool_calls|>"],
            ..Json::ARGS
        },
    )
};

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
