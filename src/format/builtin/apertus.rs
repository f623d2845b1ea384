//! Apertus (vLLM: `apertus`): a JSON list of calls between the tools
//! markers, each call an object whose only key is the function name and
//! whose value is the arguments:
//!
//! ```text
//! <|tools_prefix|>[{"get_weather": {"city": "Paris"}}, {"get_time": {}}]<|tools_suffix|>
//! ```
//!
//! The call starts at its key, and the arguments stream as they arrive.
//! Apertus reasons between `<|inner_prefix|>` and `<|inner_suffix|>`.
//! `apertus2509` (Apertus 2509's name in SGLang) is the same shape.

use crate::format::{BodyKeys, Description, Json, Role};

pub(crate) static APERTUS: Description = Description {
    aliases: &["apertus2509"],
    ..Description::json(
        "apertus",
        &[
            (Role::CallOpen, "<|tools_prefix|>"),
            (Role::CallClose, "<|tools_suffix|>"),
            (Role::ReasoningOpen, "<|inner_prefix|>"),
            (Role::ReasoningClose, "<|inner_suffix|>"),
            (Role::EndOfTurn, "<|assistant_end|>"),
        ],
        Json::body(BodyKeys {
            name: &[],
            arguments: &[],
            list: true,
            name_is_key: true,
        }),
    )
};
