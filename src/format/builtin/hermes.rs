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
//!
//! Other names of the same shape: vLLM's `granite4` (Granite 4) and
//! `qwen3_json`, SGLang's `trinity` (Arcee Trinity) and xgrammar's
//! `exaone` (EXAONE 4.0).

use crate::format::{BodyKeys, Description, Json, Role};

pub(crate) static HERMES: Description = Description {
    aliases: &["granite4", "qwen3_json", "trinity", "exaone"],
    ..HERMES_SHAPE
};

/// Hermes's shape, which Ernie 4.5's description extends.
pub(super) const HERMES_SHAPE: Description = Description::json(
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
