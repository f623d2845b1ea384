//! MiniMax-M3 (vLLM: `minimax_m3`): every tag carries the namespace token
//! `]<]minimax[>[` (whitespace may follow it), and a parameter's name is
//! its element's tag:
//!
//! ```text
//! ]<]minimax[>[<tool_call>
//! ]<]minimax[>[<invoke name="get_weather">
//! ]<]minimax[>[<location>Paris]<]minimax[>[</location>
//! ]<]minimax[>[<opts>]<]minimax[>[<days>3]<]minimax[>[</days>]<]minimax[>[</opts>
//! ]<]minimax[>[</invoke>
//! ]<]minimax[>[</tool_call>
//! ```
//!
//! Read by the engine's element syntax (`json::elements`): an element
//! holding elements is an object, one holding `<item>`s an array, text is
//! entity-decoded and typed by the schema. A `<` without the token is text.
//! A wrapper holds any number of invokes. Reasoning is `<mm:think>`.

use crate::format::{Description, Json, Role, Syntax};
use crate::json::elements::Spelling;

pub(crate) static MINIMAX_M3: Description = Description::json(
    "minimax_m3",
    &[
        (Role::CallOpen, "]<]minimax[>[<tool_call>"),
        (Role::CallOpen, "]<]minimax[>[ <tool_call>"),
        (Role::CallOpen, "]<]minimax[>[\n<tool_call>"),
        (Role::CallClose, "]<]minimax[>[</tool_call>"),
        (Role::CallClose, "]<]minimax[>[ </tool_call>"),
        (Role::CallClose, "]<]minimax[>[\n</tool_call>"),
        (Role::ReasoningOpen, "<mm:think>"),
        (Role::ReasoningClose, "</mm:think>"),
    ],
    Json::calls(Syntax::Elements(Spelling {
        prefix: "]<]minimax[>[",
        ..Spelling::tags("invoke")
    })),
);
