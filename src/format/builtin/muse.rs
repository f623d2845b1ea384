//! Meta Muse's ATEM calls inside recipient-addressed messages (vLLM:
//! `muse`, `musespark1x`; `muse_glimmer` reads the same shape):
//!
//! ```text
//!  to=self<|message|>The user wants the weather.<|eom|><|start|>assistant to=get_weather<|message|><atem:function_calls>
//! <atem:invoke name="get_weather">
//! <atem:parameter name="city">Paris</atem:parameter>
//! </atem:invoke>
//! </atem:function_calls><|eom|><|start|>assistant to=user<|message|>It is sunny.<|eot|>
//! ```
//!
//! Every message is a header, `<|message|>` and a body ended by `<|eom|>`;
//! the prompt ends with `<|start|>assistant`, so the first header is only
//! its recipient. The recipient says what the body is: `self` reasoning,
//! `user`, `commentary` or none content, any other a function's message,
//! whose body holds the calls in MiniMax-M2's grammar with `atem:` tags
//! (names are attribute values; values are verbatim and typed by the
//! tool's schema). Calls quoted in reasoning or an answer are text.
//! `<|eot|>` ends the turn. The model's slips: a header `to=NAME<|message|>`
//! inside a body it did not end (a switch of message, read), a
//! `<|message|>` where a name's `">` belongs (read as the name's end), and
//! a name written twice around a dot (`get_weather.get_weather`, read once).

use super::minimax_m2::MINIMAX_M2;
use crate::format::{Description, Headers, Role};

pub(crate) static MUSE: Description = Description {
    name: "muse",
    aliases: &["musespark1x", "muse_glimmer", "glimmer", "muse_spark"],
    markers: &[
        (Role::CallOpen, "<atem:function_calls>"),
        (Role::CallClose, "</atem:function_calls>"),
        (Role::FuncOpen, "<atem:invoke name="),
        (Role::FuncClose, "</atem:invoke>"),
        (Role::ParamOpen, "<atem:parameter name="),
        (Role::ParamClose, "</atem:parameter>"),
        (Role::HeadOpen, "<|start|>"),
        (Role::ArgsOpen, "<|message|>"),
        (Role::BodyClose, "<|eom|>"),
        (Role::EndOfTurn, "<|eot|>"),
        (Role::EndOfTurn, "<|end_of_text|>"),
    ],
    headers: Some(Headers {
        reasoning_recipients: &["self"],
        content_recipients: &["user", "commentary"],
        role: "assistant",
        ..Headers::by_recipient(&[], "to=", "")
    }),
    ..MINIMAX_M2
};
