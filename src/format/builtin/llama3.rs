//! Llama 3.1–3.3 JSON calls (vLLM: `llama3_json`, also `llama4_json`):
//!
//! ```text
//! <|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}
//! {"name": "get_weather", "parameters": {"city": "Paris"}}; {"name": "get_time", "parameters": {}}
//! ```
//!
//! A call body after `<|python_tag|>`, or bare at the very start of the
//! output (only whitespace before it); several calls are separated by
//! `; `. There is no closer: a body's own end ends its call. A `{` later
//! in prose is text, and a bare object that is not a call comes back as
//! content. The template says `parameters`; `arguments` is read too.

use crate::format::{BodyKeys, Description, Json, Role};

pub(crate) static LLAMA3_JSON: Description = Description {
    aliases: &["llama4_json"],
    ..Description::json(
        "llama3_json",
        &[
            (Role::CallOpen, "<|python_tag|>"),
            // Llama 3's, then Llama 4's.
            (Role::EndOfTurn, "<|eot_id|>"),
            (Role::EndOfTurn, "<|eom_id|>"),
            (Role::EndOfTurn, "<|end_of_text|>"),
            (Role::EndOfTurn, "<|eot|>"),
            (Role::EndOfTurn, "<|eom|>"),
        ],
        Json {
            open_at_start: true,
            body_separator: Some(b';'),
            ..Json::body(BodyKeys {
                name: &["name"],
                arguments: &["parameters", "arguments"],
                list: false,
                name_is_key: false,
            })
        },
    )
};
