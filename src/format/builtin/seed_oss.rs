//! Seed-OSS (vLLM: `seed_oss`), ByteDance's Seed-OSS-36B:
//!
//! ```text
//! <seed:tool_call>
//! <function=get_weather>
//! <parameter=city>Paris</parameter>
//! </function>
//! </seed:tool_call>
//! ```
//!
//! Qwen3-Coder's grammar with Seed's wrapper and reasoning tags
//! (`<seed:think>` … `</seed:think>`): the same names, values, closers and
//! recoveries, so this is Qwen3-Coder's description respelled.

use super::qwen3_coder::QWEN3_CODER;
use crate::format::{Description, Role};

pub(crate) static SEED_OSS: Description = Description {
    name: "seed_oss",
    aliases: &[],
    markers: &[
        (Role::CallOpen, "<seed:tool_call>"),
        (Role::CallClose, "</seed:tool_call>"),
        (Role::FuncOpen, "<function="),
        (Role::FuncClose, "</function>"),
        (Role::ParamOpen, "<parameter="),
        (Role::ParamClose, "</parameter>"),
        (Role::ReasoningOpen, "<seed:think>"),
        (Role::ReasoningClose, "</seed:think>"),
        (Role::EndOfTurn, "<seed:eos>"),
    ],
    ..QWEN3_CODER
};
