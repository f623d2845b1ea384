//! MiniMax-M2 and M2.1 (vLLM: `minimax_m2`):
//!
//! ```text
//! <minimax:tool_call>
//! <invoke name="get_weather">
//! <parameter name="city">Paris</parameter>
//! </invoke>
//! </minimax:tool_call>
//! ```
//!
//! A block holds any number of invokes. Names are attribute values, in
//! double, single or no quotes, and end at `>`; values are verbatim
//! (their newlines are the value's). A bare `<invoke name=…>` without the
//! block is a call once a parameter or `</invoke>` follows it.

use super::qwen3_coder::QWEN3_CODER;
use crate::format::{Description, Recoveries, Role};

/// Qwen3-Coder's names, confirmations and closer rules; what differs is
/// spelled out.
pub(crate) static MINIMAX_M2: Description = Description {
    name: "minimax_m2",
    aliases: &[],
    markers: &[
        (Role::CallOpen, "<minimax:tool_call>"),
        (Role::CallClose, "</minimax:tool_call>"),
        (Role::FuncOpen, "<invoke name="),
        (Role::FuncClose, "</invoke>"),
        (Role::ParamOpen, "<parameter name="),
        (Role::ParamClose, "</parameter>"),
        (Role::ReasoningOpen, "<think>"),
        (Role::ReasoningClose, "</think>"),
        (Role::EndOfTurn, "[e~["),
    ],
    // Values are verbatim: their newlines are theirs.
    strip_one_newline: false,
    quoted_names: true,
    // Only the bare invoke: Qwen's `<parameter=K=V` and value after an
    // empty tag are its own quirks.
    recoveries: Recoveries {
        bare_function: true,
        ..Recoveries::NONE
    },
    ..QWEN3_CODER
};
