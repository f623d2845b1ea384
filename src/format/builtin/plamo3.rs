//! PLaMo 3 (vLLM: `plamo3`):
//!
//! ```text
//! <|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|>
//! <|plamo:begin_tool_name:plamo|>get_weather<|plamo:end_tool_name:plamo|>
//! <|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{"city": "Tokyo"}
//! <|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>
//! <|plamo:end_tool_requests:plamo|>
//! ```
//!
//! (one line in real output). Each request is a call of its own: the name
//! is an element (`begin_tool_name` … `end_tool_name`, as the leaked XML
//! calls write `<name>`), the arguments element confirms the call, and the
//! arguments are one JSON object whose own end ends them, so a closer
//! inside a string is text. A content type may come before the JSON
//! (`<|plamo:constrain|>json<|plamo:msg|>`): layout, as are the requests'
//! outer markers around the calls. The tags are plain text to the
//! tokenizer, so they split across chunks like any marker. Reasoning is
//! in `<|plamo:begin_think:plamo|>` … `<|plamo:end_think:plamo|>`.

use crate::format::{Description, Json, Role};

pub(crate) static PLAMO3: Description = Description::json(
    "plamo3",
    &[
        (Role::CallOpen, "<|plamo:begin_tool_requests:plamo|>"),
        (Role::CallClose, "<|plamo:end_tool_requests:plamo|>"),
        (Role::ItemOpen, "<|plamo:begin_tool_request:plamo|>"),
        (Role::ItemClose, "<|plamo:end_tool_request:plamo|>"),
        (Role::FuncOpen, "<|plamo:begin_tool_name:plamo|>"),
        (Role::NameClose, "<|plamo:end_tool_name:plamo|>"),
        (Role::ArgsOpen, "<|plamo:begin_tool_arguments:plamo|>"),
        (Role::HeadAttr, "<|plamo:constrain|>"),
        (Role::ArgsOpen, "<|plamo:msg|>"),
        (Role::FuncClose, "<|plamo:end_tool_arguments:plamo|>"),
        (Role::ReasoningOpen, "<|plamo:begin_think:plamo|>"),
        (Role::ReasoningClose, "<|plamo:end_think:plamo|>"),
    ],
    Json::ARGS,
);
