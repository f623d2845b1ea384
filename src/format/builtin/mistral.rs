//! Mistral (vLLM: `mistral`), in the three shapes its models write, told
//! apart by what follows `[TOOL_CALLS]`:
//!
//! ```text
//! [TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}]    7B v0.3, Nemo
//! [TOOL_CALLS]get_weather[CALL_ID]a1b2c3d4e[ARGS]{"city": "Paris"}          Small 3.2
//! [TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}                            Magistral, Ministral 3, Devstral 2
//! ```
//!
//! `NAME{…}` without `[ARGS]` (which older tokenizers drop in decoding) is
//! read as a call too, reported. There is no closer: a call ends with its
//! JSON, and each call of a
//! message has its own `[TOOL_CALLS]`. The `[CALL_ID]` is kept as the
//! call's id.

use crate::format::{BodyKeys, Description, Json, Role};

pub(crate) static MISTRAL: Description = Description::json(
    "mistral",
    &[
        (Role::CallOpen, "[TOOL_CALLS]"),
        (Role::ArgsOpen, "[ARGS]"),
        (Role::IdOpen, "[CALL_ID]"),
        (Role::ReasoningOpen, "[THINK]"),
        (Role::ReasoningClose, "[/THINK]"),
        (Role::EndOfTurn, "</s>"),
    ],
    // Both: a list of call objects, or a name and its arguments.
    Json {
        body: Some(BodyKeys {
            name: &["name"],
            arguments: &["arguments", "parameters"],
            list: true,
            name_is_key: false,
        }),
        // `NAME{…}`: older tokenizers drop `[ARGS]` in decoding, and vLLM
        // reads the `{` as the name's end.
        brace_opens_args: true,
        ..Json::ARGS
    },
);
