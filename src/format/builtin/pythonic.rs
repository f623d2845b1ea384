//! Calls written in Python call syntax, read by the engine's Python
//! reader (`json::calls`, `json::python`): keyword arguments are literals,
//! never evaluated; the list brackets and the commas between calls are
//! structure.
//!
//! ```text
//! [get_weather(city='Paris'), get_time(tz='CET')]                    pythonic (Llama 3.2, ToolACE)
//! <|python_start|>[get_weather(city='Paris')]<|python_end|>          llama4_pythonic
//! <function_calls>get_weather(city="Paris")\nget_time()</function_calls>  olmo3
//! <|tool_call_start|>[get_weather(city="Paris")]<|tool_call_end|>    lfm2
//! ```
//!
//! A JSON call object (`{"name": …, "parameters": {…}}`) where a list
//! belongs is read too: Llama 4 switches to JSON mid-answer.
//!
//! `pythonic` reads a list at the start of any line (vLLM reads one only
//! when it is the whole output, and loses every call when text surrounds
//! it); a list that holds no call is content, quietly, as Python in prose
//! is. A list or a bare call also follows Llama 4's `<|python_start|>`.

use crate::format::{Description, Json, Role, Syntax};

pub(crate) static PYTHONIC: Description = Description {
    aliases: &["llama4_pythonic"],
    ..Description::json(
        "pythonic",
        &[
            (Role::CallOpen, "<|python_start|>"),
            (Role::CallClose, "<|python_end|>"),
            // Llama 3.2's, then Llama 4's.
            (Role::EndOfTurn, "<|eot_id|>"),
            (Role::EndOfTurn, "<|eom_id|>"),
            (Role::EndOfTurn, "<|end_of_text|>"),
            (Role::EndOfTurn, "<|eot|>"),
            (Role::EndOfTurn, "<|eom|>"),
        ],
        Json {
            open_at_start: true,
            open_at_line_start: true,
            ..Json::calls(Syntax::Python)
        },
    )
};

/// Olmo 3: one call per line inside the wrapper (a `,` between calls is
/// read as a line end).
pub(crate) static OLMO3: Description = Description::json(
    "olmo3",
    &[
        (Role::CallOpen, "<function_calls>"),
        (Role::CallClose, "</function_calls>"),
        (Role::ReasoningOpen, "<think>"),
        (Role::ReasoningClose, "</think>"),
        (Role::EndOfTurn, "<|im_end|>"),
        (Role::EndOfTurn, "<|endoftext|>"),
    ],
    Json {
        body_separator: Some(b','),
        ..Json::calls(Syntax::Python)
    },
);

/// LFM2: a list of calls inside the wrapper.
pub(crate) static LFM2: Description = Description::json(
    "lfm2",
    &[
        (Role::CallOpen, "<|tool_call_start|>"),
        (Role::CallClose, "<|tool_call_end|>"),
        (Role::ReasoningOpen, "<think>"),
        (Role::ReasoningClose, "</think>"),
        (Role::EndOfTurn, "<|im_end|>"),
    ],
    Json::calls(Syntax::Python),
);
