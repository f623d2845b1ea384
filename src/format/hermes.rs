//! Hermes (vLLM: `hermes`), written by Hermes 2/3, Qwen2.5, QwQ, Qwen3
//! and Granite 4:
//!
//! ```text
//! <tool_call>
//! {"name": "get_weather", "arguments": {"city": "Paris"}}
//! </tool_call>
//! ```
//!
//! The call is a JSON object inside the wrapper; several wrappers follow
//! each other for parallel calls. The object's own end ends the call, so
//! a `</tool_call>` inside a string value is text, and a whole object
//! without `</tool_call>` is a call (reported). Models trained on other
//! templates write `"parameters"` for `"arguments"`; both are read.

use super::{BodyKeys, Description, Json, Role};

pub(crate) static HERMES: Description = Description::json(
    "hermes",
    &[
        (Role::CallOpen, "<tool_call>"),
        (Role::CallClose, "</tool_call>"),
        (Role::ReasoningOpen, "<think>"),
        (Role::ReasoningClose, "</think>"),
        (Role::EndOfTurn, "<|im_end|>"),
        (Role::EndOfTurn, "<|endoftext|>"),
    ],
    Json::body(BodyKeys {
        name: &["name"],
        arguments: &["arguments", "parameters"],
        list: false,
        name_is_key: false,
    }),
);
