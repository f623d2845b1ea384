//! Kimi K2, K2-Thinking and K2.5 (vLLM: `kimi_k2`):
//!
//! ```text
//! <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0
//! <|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|>
//! <|tool_calls_section_end|>
//! ```
//!
//! (one line in real output). A section holds any number of calls; each
//! call's name is written inside its id, `functions.NAME:INDEX`, which is
//! kept as the call's id (the template refers to calls by it). The
//! arguments are one JSON object, ended by its own `}`.

use crate::format::{Description, IdInName, Json, Recoveries, Role};

pub(crate) static KIMI_K2: Description = Description {
    // A call without the section's opener is still a call (reported).
    bare_confirmed_by: &[Role::ArgsOpen],
    recoveries: Recoveries {
        bare_function: true,
        ..Recoveries::NONE
    },
    ..Description::json(
        "kimi_k2",
        &[
            (Role::CallOpen, "<|tool_calls_section_begin|>"),
            (Role::CallClose, "<|tool_calls_section_end|>"),
            (Role::FuncOpen, "<|tool_call_begin|>"),
            (Role::FuncClose, "<|tool_call_end|>"),
            (Role::ArgsOpen, "<|tool_call_argument_begin|>"),
            (Role::ReasoningOpen, "<think>"),
            (Role::ReasoningClose, "</think>"),
            // Kimi-VL and K1.5 think between these.
            (Role::ReasoningOpen, "◁think▷"),
            (Role::ReasoningClose, "◁/think▷"),
            (Role::EndOfTurn, "<|im_end|>"),
            // The section's singular spelling (K2's technical report, some
            // checkpoints).
            (Role::CallOpen, "<|tool_call_section_begin|>"),
            (Role::CallClose, "<|tool_call_section_end|>"),
        ],
        Json {
            id_in_name: Some(IdInName {
                prefix: "functions.",
                index_sep: ':',
            }),
            ..Json::ARGS
        },
    )
};
