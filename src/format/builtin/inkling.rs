//! Thinking Machines Inkling's TML (vLLM: `inkling`): every block is a
//! message, a header then a typed body, closed by `<|end_message|>`:
//!
//! ```text
//! <|message_model|><|content_thinking|>The user wants the weather.<|end_message|>
//! <|message_model|>get_weather<|content_invoke_tool_json|>{"name": "get_weather", "args": {"city": "SF"}}<|end_message|>
//! ```
//!
//! (one line in real output; the prompt ends with `<|message_model|>`, so
//! the output starts inside the first header). The marker that ends a
//! header says what its body is: `<|content_text|>` content,
//! `<|content_thinking|>` reasoning, `<|content_invoke_tool_json|>` a JSON
//! call body whose arguments key is `args`. `<|content_invoke_tool_text|>`
//! (a raw-text call, which OpenAI's API cannot express) and
//! `<|content_tool_error|>` are not the client's: reasoning. A header holds
//! at most the called function's name, which is not content. Text blocks
//! may follow calls. `<|content_model_end_sampling|>` ends the turn. The
//! model sometimes writes `&quot;` for a JSON quote that ends a string:
//! read as that quote, reported.

use crate::format::{BodyKeys, Description, Headers, Json, Role};

pub(crate) static INKLING: Description = Description::json(
    "inkling",
    &[
        (Role::HeadOpen, "<|message_model|>"),
        (Role::ArgsOpen, "<|content_text|>"),
        (Role::ArgsOpen, "<|content_thinking|>"),
        (Role::ArgsOpen, "<|content_invoke_tool_json|>"),
        (Role::ArgsOpen, "<|content_invoke_tool_text|>"),
        (Role::ArgsOpen, "<|content_tool_error|>"),
        (Role::FuncClose, "<|end_message|>"),
        (Role::EndOfTurn, "<|content_model_end_sampling|>"),
    ],
    Json {
        entity_quotes: true,
        headers: Some(Headers {
            reasoning_channels: &[],
            recipient: "",
            functions: "",
            reasoning_openers: &[
                "<|content_thinking|>",
                "<|content_invoke_tool_text|>",
                "<|content_tool_error|>",
            ],
            call_openers: &["<|content_invoke_tool_json|>"],
            name_only: true,
            reasoning_recipients: &[],
            content_recipients: &[],
            line_end: false,
            role: "",
            call_channel: "",
            content_channel: "",
        }),
        ..Json::body(BodyKeys {
            name: &["name"],
            arguments: &["args", "arguments"],
            list: false,
            name_is_key: false,
        })
    },
);
