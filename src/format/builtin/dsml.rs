//! DeepSeek's DSML markup: V3.2 (vLLM: `deepseek_v32`), V4
//! (`deepseek_v4`, whose block is `tool_calls`) and V4.1 (`deepseek_v41`,
//! whose tag names start with a space and whose block is `calls`), and
//! GigaChat 3.5's GCML (`gigachat35`, DSML with `GCML` for `DSML`):
//!
//! ```text
//! <｜DSML｜function_calls>
//! <｜DSML｜invoke name="get_weather">
//! <｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>
//! <｜DSML｜parameter name="days" string="false">3</｜DSML｜parameter>
//! </｜DSML｜invoke>
//! </｜DSML｜function_calls>
//!
//! <｜DSML｜ calls>
//! <｜DSML｜ invoke name="get_weather">
//! <｜DSML｜ parameter name="city" string="true">Paris</｜DSML｜ parameter>
//! </｜DSML｜ invoke>
//! </｜DSML｜ calls>
//! ```
//!
//! MiniMax-M2's grammar in DSML's spelling: names are quoted attribute
//! values ending at `>`, values verbatim. A parameter's `string="false"`
//! says its value is JSON: typed as the JSON it is where no schema types
//! it (`string="true"` values are strings unless the schema says
//! otherwise). V4 and V4.1 are also read as users see them served: the
//! bars doubled (`<｜｜DSML｜｜ calls>`, DeepSeek's web chat) or written
//! in ASCII (`<|DSML|invoke …>`, often with no block around it), and the
//! block's opener without its `>` before a line end (reported). A V4.1
//! invoke's body may be one JSON object, its arguments.

use super::minimax_m2::MINIMAX_M2;
use crate::format::{Description, Recoveries, Role};

/// MiniMax-M2's description with DSML's markers, and `string="false"`.
const fn dsml(name: &'static str, markers: &'static [(Role, &'static str)]) -> Description {
    Description {
        name,
        markers,
        json_value_attribute: Some(("string", "false")),
        // vLLM unwraps a lone `arguments` or `input` parameter holding the
        // call's arguments.
        wrapped_arguments: &["arguments", "input"],
        ..MINIMAX_M2
    }
}

/// One dialect's six markers, `<BAR DSML BAR SPACE BLOCK>` and its
/// invokes and parameters, for each bar spelling given (the first is the
/// format's own, which diagnostics name), then reasoning and the end of
/// turn.
macro_rules! dsml_markers {
    ($tag:literal, $space:literal, $block:literal, [$($bar:literal),+]) => {
        &[
            $(
                (Role::CallOpen, concat!("<", $bar, $tag, $bar, $space, $block, ">")),
                (Role::CallClose, concat!("</", $bar, $tag, $bar, $space, $block, ">")),
                (Role::FuncOpen, concat!("<", $bar, $tag, $bar, $space, "invoke name=")),
                (Role::FuncClose, concat!("</", $bar, $tag, $bar, $space, "invoke>")),
                (Role::ParamOpen, concat!("<", $bar, $tag, $bar, $space, "parameter name=")),
                (Role::ParamClose, concat!("</", $bar, $tag, $bar, $space, "parameter>")),
            )+
            (Role::ReasoningOpen, "<think>"),
            (Role::ReasoningClose, "</think>"),
            (Role::EndOfTurn, "<｜end▁of▁sentence｜>"),
        ]
    };
}

/// The bars DSML is seen written with: DeepSeek's U+FF5C, doubled (the
/// web chat), ASCII, ASCII doubled.
macro_rules! dsml_bars {
    ($tag:literal, $space:literal, $block:literal) => {
        dsml_markers!($tag, $space, $block, ["｜", "｜｜", "|", "||"])
    };
}

pub(crate) static DEEPSEEK_V32: Description = dsml(
    "deepseek_v32",
    &[
        (Role::CallOpen, "<｜DSML｜function_calls>"),
        (Role::CallClose, "</｜DSML｜function_calls>"),
        (Role::FuncOpen, "<｜DSML｜invoke name="),
        (Role::FuncClose, "</｜DSML｜invoke>"),
        (Role::ParamOpen, "<｜DSML｜parameter name="),
        (Role::ParamClose, "</｜DSML｜parameter>"),
        (Role::ReasoningOpen, "<think>"),
        (Role::ReasoningClose, "</think>"),
        (Role::EndOfTurn, "<｜end▁of▁sentence｜>"),
    ],
);

pub(crate) static DEEPSEEK_V4: Description = Description {
    recoveries: SEEN_IN_THE_WILD,
    ..dsml("deepseek_v4", V4_MARKERS)
};

/// V4's markers, with the block also spelled `toolcalls` (vLLM reads it).
const V4_MARKERS: &[(Role, &str)] = &{
    const FAMILY: &[(Role, &str)] = dsml_bars!("DSML", "", "tool_calls");
    let mut all = [(Role::CallOpen, "<｜DSML｜toolcalls>"); FAMILY.len() + 1];
    let mut i = 0;
    while i < FAMILY.len() {
        all[i] = FAMILY[i];
        i += 1;
    }
    all
};

pub(crate) static DEEPSEEK_V41: Description = Description {
    recoveries: SEEN_IN_THE_WILD,
    json_args_body: true,
    ..dsml("deepseek_v41", dsml_bars!("DSML", " ", "calls"))
};

/// GigaChat 3.5: DSML spelled `GCML`; a turn ends at `<|message_sep|>`
/// or `</s>`.
pub(crate) static GIGACHAT35: Description = dsml(
    "gigachat35",
    &[
        (Role::CallOpen, "<｜GCML｜tool_calls>"),
        (Role::CallClose, "</｜GCML｜tool_calls>"),
        (Role::FuncOpen, "<｜GCML｜invoke name="),
        (Role::FuncClose, "</｜GCML｜invoke>"),
        (Role::ParamOpen, "<｜GCML｜parameter name="),
        (Role::ParamClose, "</｜GCML｜parameter>"),
        (Role::EndOfTurn, "<|message_sep|>"),
        (Role::EndOfTurn, "</s>"),
    ],
);

/// A bare invoke (MiniMax-M2's recovery), and the block's opener without
/// its `>` before a line end (`<｜DSML｜tool_calls` ⏎, OpenCode #24566):
/// both reported.
const SEEN_IN_THE_WILD: Recoveries = Recoveries {
    bare_function: true,
    call_open_without_close: true,
    ..Recoveries::NONE
};
