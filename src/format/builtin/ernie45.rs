//! ERNIE 4.5 (vLLM: `ernie45`): Hermes's JSON call in `<tool_call>`, after
//! the thinking model's reasoning (whose `<think>` is the prompt's) and
//! around a reply wrapped in `<response>` … `</response>`:
//!
//! ```text
//! The user wants the weather.
//! </think>
//!
//!
//! <tool_call>
//! {"name": "get_weather", "arguments": {"city": "Paris"}}
//! </tool_call>
//! ```
//!
//! `<response>` and `</response>` are markup, not content. The tokenizer's
//! newline is the byte token `<0x0A>`, which decodes to `\n`: the parser
//! reads decoded text, where it is a newline like any other.

use super::hermes::HERMES_SHAPE;
use crate::format::{Description, Role};

pub(crate) static ERNIE45: Description = Description {
    name: "ernie45",
    markers: &[
        (Role::CallOpen, "<tool_call>"),
        (Role::CallClose, "</tool_call>"),
        (Role::ReasoningOpen, "<think>"),
        (Role::ReasoningClose, "</think>"),
        (Role::Layout, "<response>"),
        (Role::Layout, "</response>"),
    ],
    ..HERMES_SHAPE
};
