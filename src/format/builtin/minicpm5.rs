//! OpenBMB's MiniCPM 4 and 5 (vLLM and SGLang: `minicpm5`; SGLang's
//! MiniCPM-4 detector reads the same): functions with no wrapper around
//! them, parameters as XML elements,
//!
//! ```text
//! <function name="get_weather"><param name="city">北京</param><param name="note"><![CDATA[multi
//! line]]></param></function>
//! ```
//!
//! Any number of functions follow one another, with text between them. A
//! function is a call once a parameter or its closer follows its name
//! (`unwrapped_functions`: no wrapper is missing). Names are attribute
//! values in double, single or no quotes. A value may hold a CDATA section
//! (`RawOpen` … `RawClose`): its text is the value's as written, and a
//! `</param>` inside it is value text. An older template puts the
//! parameters in `<arguments>` … `</arguments>` (`ParamsOpen`,
//! `ParamsClose`), which is dropped. The tokenizer's `<function` is one
//! token, so a decoder may drop or byte-encode the space after it: the
//! collapsed `<functionname=`, `<paramname=` and the byte-level `Ġ` in
//! `<functionĠname=`, `<paramĠname=` are read as the openers and reported
//! (`malformed_marker`).

use super::minimax_m2::MINIMAX_M2;
use crate::format::{Description, Recoveries, Role};

pub(crate) static MINICPM5: Description = Description {
    name: "minicpm5",
    aliases: &[],
    markers: &[
        (Role::FuncOpen, "<function name="),
        (Role::FuncClose, "</function>"),
        (Role::ParamsOpen, "<arguments>"),
        (Role::ParamsClose, "</arguments>"),
        (Role::ParamOpen, "<param name="),
        (Role::ParamClose, "</param>"),
        (Role::RawOpen, "<![CDATA["),
        (Role::RawClose, "]]>"),
        (Role::ReasoningOpen, "<think>"),
        (Role::ReasoningClose, "</think>"),
        (Role::EndOfTurn, "<|im_end|>"),
    ],
    misspellings: &[
        (Role::FuncOpen, "<functionname="),
        (Role::FuncOpen, "<function\u{120}name="),
        (Role::ParamOpen, "<paramname="),
        (Role::ParamOpen, "<param\u{120}name="),
    ],
    unwrapped_functions: true,
    bare_confirmed_by: &[Role::ParamOpen, Role::ParamsOpen, Role::FuncClose],
    follows: &[
        (
            Role::ParamClose,
            &[
                Role::ParamOpen,
                Role::ParamsClose,
                Role::FuncClose,
                Role::FuncOpen,
            ],
        ),
        (Role::FuncClose, &[Role::FuncOpen]),
    ],
    // Values are written inline, one after another.
    param_open_at_line_start: false,
    recoveries: Recoveries {
        bare_function: true,
        ..Recoveries::NONE
    },
    ..MINIMAX_M2
};
