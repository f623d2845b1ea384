//! gpt-oss, in OpenAI's Harmony format (vLLM: `openai`):
//!
//! ```text
//! <|channel|>analysis<|message|>The user wants the weather.<|end|>
//! <|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}<|call|>
//! ```
//!
//! (one line in real output; the prompt ends with `<|start|>assistant`, so
//! the first message usually starts at `<|channel|>`, and may go on with
//! that header's recipient, or with `<|message|>`). Every message has a header;
//! the recipient `to=functions.NAME`, before or after the channel, makes
//! the body a call's JSON arguments, ended by their own `}` and then
//! `<|call|>`. The `analysis` channel is reasoning, as is a message to a
//! built-in tool (`to=browser.search`); `final`, and `commentary` without a
//! recipient (a preamble), are content. Text outside any message is
//! content; the ends of messages (`<|end|>`, `<|return|>`, `<|call|>`)
//! and `<|endoftext|>` never are.

use crate::format::{Description, Headers, Json, Role};

pub(crate) static HARMONY: Description = Description {
    aliases: &["gpt_oss", "harmony"],
    ..Description::json(
        "openai",
        &[
            (Role::HeadOpen, "<|start|>"),
            (Role::ChannelOpen, "<|channel|>"),
            (Role::HeadAttr, "<|constrain|>"),
            (Role::ArgsOpen, "<|message|>"),
            (Role::BodyClose, "<|end|>"),
            (Role::BodyClose, "<|return|>"),
            (Role::FuncClose, "<|call|>"),
            (Role::EndOfTurn, "<|endoftext|>"),
        ],
        Json {
            headers: Some(Headers {
                role: "assistant",
                call_channel: "commentary",
                content_channel: "final",
                ..Headers::by_recipient(&["analysis"], "to=", "functions.")
            }),
            ..Json::ARGS
        },
    )
};
