//! Calls that leak into text as XML elements around a JSON object (seed
//! 002): agents and proxies that prompt a model with their own tool
//! syntax, and models trained on one vendor's transcripts, write them.
//! No server parses them natively.
//!
//! ```text
//! <tool_use><name>shell</name><input>{"command": "ls"}</input></tool_use>
//! <function_call><name>shell</name><arguments>{"command": "ls"}</arguments></function_call>
//! ```
//!
//! The name is an element of its own: `<name>` opens it, `</name>` ends
//! it (`Role::NameClose`), and the arguments element confirms the call;
//! whitespace may come between the elements. The arguments are one JSON
//! object whose own end ends them, so a closer inside a string is text.

use crate::format::{Description, Json, Role};

pub(crate) static XML_TOOL_USE: Description = Description::json(
    "xml_tool_use",
    &[
        (Role::CallOpen, "<tool_use>"),
        (Role::FuncOpen, "<name>"),
        (Role::NameClose, "</name>"),
        (Role::ArgsOpen, "<input>"),
        (Role::FuncClose, "</input>"),
        (Role::CallClose, "</tool_use>"),
    ],
    Json::ARGS,
);

pub(crate) static XML_FUNCTION_CALL: Description = Description::json(
    "xml_function_call",
    &[
        (Role::CallOpen, "<function_call>"),
        (Role::FuncOpen, "<name>"),
        (Role::NameClose, "</name>"),
        (Role::ArgsOpen, "<arguments>"),
        (Role::FuncClose, "</arguments>"),
        (Role::CallClose, "</function_call>"),
    ],
    Json::ARGS,
);
