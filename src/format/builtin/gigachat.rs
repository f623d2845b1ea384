//! GigaChat 3 (vLLM: `gigachat3`): a call is a message of its own, whose
//! role is `function call`, holding one JSON call object:
//!
//! ```text
//! I will look it up.<|message_sep|>
//!
//! function call<|role_sep|>
//! {"name": "get_weather", "arguments": {"city": "Paris"}}
//! ```
//!
//! The role's words open the call and `<|role_sep|>` confirms it (as
//! InternLM's `<|plugin|>` does); the body follows. In prose, `function
//! call` without `<|role_sep|>` after it is text. There is no closer: the
//! body's own end ends the call. GigaChat 3.1 writes one token,
//! `<|function_call|>`, in place of the role's words and `<|role_sep|>`:
//! the body follows it at once.

use crate::format::{BodyKeys, Description, Json, Role};

pub(crate) static GIGACHAT3: Description = Description::json(
    "gigachat3",
    &[
        (Role::CallOpen, "function call"),
        (Role::FuncOpen, "<|role_sep|>"),
        (Role::EndOfTurn, "</s>"),
        (Role::CallOpen, "<|function_call|>"),
    ],
    Json {
        body_openers: &["<|function_call|>"],
        ..Json::body(BodyKeys {
            name: &["name"],
            arguments: &["arguments", "parameters"],
            list: false,
            name_is_key: false,
        })
    },
);
