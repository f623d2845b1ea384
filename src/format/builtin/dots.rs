//! rednote-hilab's dots models (vLLM and SGLang: `dots`): MiniMax-M2's
//! invokes in a `<dots_function_call>` block,
//!
//! ```text
//! <dots_function_call>
//! <invoke name="search">
//! <parameter name="query">weather in Shanghai</parameter>
//! </invoke>
//! </dots_function_call>
//! ```
//!
//! or, in the same block, one JSON call object:
//!
//! ```text
//! <dots_function_call>{"name": "search", "arguments": {"query": "weather in Shanghai"}}</dots_function_call>
//! ```
//!
//! What follows the block's opener decides: `<invoke name=` opens a
//! marked-up function (any number of them may follow), a `{` a JSON body
//! (`Json::body_in_wrapper`), whose arguments are `arguments` or
//! `parameters`. Names are attribute values in double, single or no quotes;
//! values are verbatim. A bare `<invoke name=…>` without the block is a
//! call once a parameter or `</invoke>` follows it (reported).

use super::minimax_m2::MINIMAX_M2;
use crate::format::{BodyKeys, Description, Json, Role};

pub(crate) static DOTS: Description = Description {
    name: "dots",
    aliases: &[],
    markers: &[
        (Role::CallOpen, "<dots_function_call>"),
        (Role::CallClose, "</dots_function_call>"),
        (Role::FuncOpen, "<invoke name="),
        (Role::FuncClose, "</invoke>"),
        (Role::ParamOpen, "<parameter name="),
        (Role::ParamClose, "</parameter>"),
        (Role::ReasoningOpen, "<think>"),
        (Role::ReasoningClose, "</think>"),
        (Role::EndOfTurn, "<|endofresponse|>"),
        (Role::EndOfTurn, "<|endoftext|>"),
    ],
    json: Some(Json {
        body_in_wrapper: true,
        ..Json::body(BodyKeys {
            name: &["name"],
            arguments: &["arguments", "parameters"],
            list: false,
            name_is_key: false,
        })
    }),
    ..MINIMAX_M2
};
