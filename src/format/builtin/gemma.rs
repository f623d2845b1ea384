//! Gemma's object syntax, read by the engine's Gemma reader
//! (`json::calls`, `json::gemma`):
//!
//! ```text
//! <|tool_call>call:get_weather{city:<|"|>Paris<|"|>,days:3}<tool_call|>        gemma4
//! <start_function_call>call:get_weather{city:<escape>Paris<escape>}<end_function_call>   functiongemma
//! ```
//!
//! Keys are bare; strings sit between two delimiters, which are taken as
//! they are (a closer inside one is text); other values are bare and typed
//! by the schema, or as JSON literals where there is none. Gemma 4 thinks
//! in `<|channel>thought` … `<channel|>`.

use crate::format::{Description, Json, Role, Syntax};

pub(crate) static GEMMA4: Description = Description::json(
    "gemma4",
    &[
        (Role::CallOpen, "<|tool_call>"),
        (Role::CallClose, "<tool_call|>"),
        (Role::ReasoningOpen, "<|channel>thought\n"),
        (Role::ReasoningClose, "<channel|>"),
        // After a call, Gemma 4 ends its turn by opening the tool's response.
        (Role::EndOfTurn, "<turn|>"),
        (Role::EndOfTurn, "<|tool_response>"),
        (Role::EndOfTurn, "<eos>"),
    ],
    Json::calls(Syntax::Gemma {
        delimiter: "<|\"|>",
    }),
);

pub(crate) static FUNCTIONGEMMA: Description = Description::json(
    "functiongemma",
    &[
        (Role::CallOpen, "<start_function_call>"),
        (Role::CallClose, "<end_function_call>"),
        (Role::EndOfTurn, "<end_of_turn>"),
        (Role::EndOfTurn, "<start_function_response>"),
        (Role::EndOfTurn, "<eos>"),
    ],
    Json::calls(Syntax::Gemma {
        delimiter: "<escape>",
    }),
);
