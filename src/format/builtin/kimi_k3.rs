//! Kimi K3 (vLLM: `kimi_k3`), its XTML channels built of the special
//! tokens `<|open|>`, `<|close|>` and `<|sep|>`:
//!
//! ```text
//! <|open|>tools<|sep|>
//! <|open|>call tool="get_weather" index="0"<|sep|>
//! <|open|>argument key="city" type="string"<|sep|>Paris<|close|>argument<|sep|>
//! <|open|>argument key="days" type="integer"<|sep|>3<|close|>argument<|sep|>
//! <|close|>call<|sep|>
//! <|close|>tools<|sep|>
//! ```
//!
//! MiniMax-M2's grammar: names are quoted attribute values (`tool=`,
//! `key=`), other attributes follow (`index=`, `type=`), and `<|sep|>`
//! ends both kinds of name. A value's `type` says how to read it:
//! `string` is the raw text, any other type JSON, where no schema types
//! it. The reply sits in a `response` channel whose markup is not content;
//! reasoning in a `think` channel. A call written without the `tools`
//! channel around it is still a call, reported.

use super::minimax_m2::MINIMAX_M2;
use crate::format::{Description, NameEnd, Role};

pub(crate) static KIMI_K3: Description = Description {
    name: "kimi_k3",
    aliases: &[],
    markers: &[
        (Role::CallOpen, "<|open|>tools<|sep|>"),
        (Role::CallClose, "<|close|>tools<|sep|>"),
        (Role::FuncOpen, "<|open|>call tool="),
        (Role::FuncClose, "<|close|>call<|sep|>"),
        (Role::ParamOpen, "<|open|>argument key="),
        (Role::ParamClose, "<|close|>argument<|sep|>"),
        // The end of a call's and of an argument's attributes.
        (Role::NameClose, "<|sep|>"),
        (Role::ReasoningOpen, "<|open|>think<|sep|>"),
        (Role::ReasoningClose, "<|close|>think<|sep|>"),
        (Role::Layout, "<|open|>response<|sep|>"),
        (Role::Layout, "<|close|>response<|sep|>"),
        (Role::Layout, "<|close|>message<|sep|>"),
    ],
    func_name_end: NameEnd::Marker { line: false },
    param_name_end: NameEnd::Marker { line: false },
    // A call is one once its first argument or its closer follows; so is
    // one without the `tools` channel around it (reported), as MiniMax-M2's.
    call_confirmed_by: &[Role::ParamOpen, Role::FuncClose],
    string_value_attribute: Some(("type", "string")),
    index_attribute: Some("index"),
    ..MINIMAX_M2
};
