//! StepFun Step-3 (vLLM: `step3`):
//!
//! ```text
//! <｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get_weather"><steptml:parameter name="city">Paris</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>
//! ```
//!
//! The markers are Step-3's special tokens, spelled with U+FF5C `｜` and
//! `_` (not DeepSeek's `▁`). A block holds one item per call: the call's
//! type, `function`, then MiniMax-M2's invoke/parameter markup respelled
//! (quoted names, verbatim values). A bare invoke, or an item without the
//! block, is a call too (reported).

use super::minimax_m2::MINIMAX_M2;
use crate::format::{Description, Role};

pub(crate) static STEP3: Description = Description {
    name: "step3",
    aliases: &[],
    markers: &[
        (Role::CallOpen, "<｜tool_calls_begin｜>"),
        (Role::CallClose, "<｜tool_calls_end｜>"),
        (Role::ItemOpen, "<｜tool_call_begin｜>"),
        (Role::ItemSep, "<｜tool_sep｜>"),
        (Role::ItemClose, "<｜tool_call_end｜>"),
        (Role::FuncOpen, "<steptml:invoke name="),
        (Role::FuncClose, "</steptml:invoke>"),
        (Role::ParamOpen, "<steptml:parameter name="),
        (Role::ParamClose, "</steptml:parameter>"),
        (Role::ReasoningOpen, "<think>"),
        (Role::ReasoningClose, "</think>"),
    ],
    item_type: Some("function"),
    // The template writes a whole block on one line: a parameter opener
    // inside a value is tentative wherever it stands (its name decides).
    param_open_at_line_start: false,
    // What may follow a closer inside a value for it to end the value:
    // MiniMax-M2's, with the item's closer after the invoke's and the
    // next item where a new function or wrapper may begin.
    follows: &[
        (
            Role::ParamClose,
            &[
                Role::ParamOpen,
                Role::FuncClose,
                Role::ItemClose,
                Role::CallClose,
                Role::ItemOpen,
                Role::FuncOpen,
                Role::CallOpen,
            ],
        ),
        (
            Role::FuncClose,
            &[
                Role::ItemClose,
                Role::CallClose,
                Role::ItemOpen,
                Role::CallOpen,
            ],
        ),
        (
            Role::ItemClose,
            &[Role::CallClose, Role::ItemOpen, Role::CallOpen],
        ),
        (Role::CallClose, &[Role::CallOpen, Role::ItemOpen]),
    ],
    ..MINIMAX_M2
};
