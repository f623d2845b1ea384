//! xLAM-2 (vLLM: `xlam`): a JSON list of call objects, written in any of
//! four ways:
//!
//! ````text
//! [{"name": "get_weather", "arguments": {"city": "Paris"}}]
//! ```json
//! [{"name": "get_weather", "arguments": {"city": "Paris"}}]
//! ```
//! <tool_call>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_call>
//! [TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}]
//! ````
//!
//! Bare or fenced, the list must open the output (only whitespace before
//! it): later in prose, a `[` or a fence is text. After either opener the
//! list (or a single call object) is read as Hermes reads its body. Only
//! `<tool_call>` has a closer: after a bare list, a fenced one or one
//! after `[TOOL_CALLS]`, the list's own `]` ends the calls and text after
//! it is content.

use crate::format::{BodyKeys, Description, Json, Role};

pub(crate) static XLAM: Description = Description::json(
    "xlam",
    &[
        (Role::CallOpen, "<tool_call>"),
        (Role::CallOpen, "[TOOL_CALLS]"),
        (Role::CallClose, "</tool_call>"),
        // xLAM-2 is trained on Llama 3.1 and on Qwen 2.5.
        (Role::EndOfTurn, "<|eot_id|>"),
        (Role::EndOfTurn, "<|im_end|>"),
    ],
    Json {
        open_at_start: true,
        fenced: true,
        unclosed_openers: &["[TOOL_CALLS]"],
        ..Json::body(BodyKeys {
            name: &["name"],
            arguments: &["arguments", "parameters"],
            list: true,
            name_is_key: false,
        })
    },
);
