//! Tencent Hy3 (vLLM: `hy_v3`) and Hy4 (vLLM: `hy_v4`): GLM's key and
//! value tags in a block, every marker carrying the checkpoint's suffix:
//!
//! ```text
//! <tool_calls:opensource>
//! <tool_call:opensource>get_weather<tool_sep:opensource>
//! <arg_key:opensource>city</arg_key:opensource>
//! <arg_value:opensource>Paris</arg_value:opensource>
//! </tool_call:opensource>
//! </tool_calls:opensource>
//! ```
//!
//! Hy3 ends a name with `<tool_sep>`; Hy4 writes none (the name ends at a
//! line end or the first `<arg_key>`, as GLM's), and its tags back to back.
//! The suffix is one per checkpoint: `:opensource` on Hy3 (none on
//! Hy3-preview), `:6124c78e` on Hy4-preview. It is the description's
//! `marker_suffix`, which a user sets for another checkpoint; the markers
//! here are spelled with the shipping checkpoint's.

use crate::format::{Description, NameEnd, Recoveries, Role};

macro_rules! hy_markers {
    ($suffix:literal, $($extra:expr),*) => {
        &[
            (Role::CallOpen, concat!("<tool_calls", $suffix, ">")),
            (Role::CallClose, concat!("</tool_calls", $suffix, ">")),
            (Role::FuncOpen, concat!("<tool_call", $suffix, ">")),
            (Role::FuncClose, concat!("</tool_call", $suffix, ">")),
            (Role::ParamOpen, concat!("<arg_key", $suffix, ">")),
            (Role::KeyClose, concat!("</arg_key", $suffix, ">")),
            (Role::ValueOpen, concat!("<arg_value", $suffix, ">")),
            (Role::ParamClose, concat!("</arg_value", $suffix, ">")),
            (Role::ReasoningOpen, concat!("<think", $suffix, ">")),
            (Role::ReasoningClose, concat!("</think", $suffix, ">")),
            $($extra),*
        ]
    };
}

const FOLLOWS: &[(Role, &[Role])] = &[
    // A function or block opener after a value also implies the closers
    // that are missing before it.
    (
        Role::ParamClose,
        &[
            Role::ParamOpen,
            Role::FuncClose,
            Role::CallClose,
            Role::FuncOpen,
            Role::CallOpen,
        ],
    ),
    (
        Role::FuncClose,
        &[Role::FuncOpen, Role::CallClose, Role::CallOpen],
    ),
    (Role::CallClose, &[Role::CallOpen]),
];

pub(super) const HY: Description = Description {
    name: "",
    markers: &[],
    func_name_end: NameEnd::Marker { line: true },
    param_name_end: NameEnd::Marker { line: false },
    // A name is a call once a key or the function's closer follows it
    // (after Hy3's `<tool_sep>`, or at once on Hy4).
    call_confirmed_by: &[Role::ParamOpen, Role::FuncClose],
    bare_confirmed_by: &[Role::ParamOpen, Role::FuncClose],
    follows: FOLLOWS,
    recoveries: Recoveries {
        bare_function: true,
        value_without_open: true,
        ..Recoveries::NONE
    },
    ..Description::BLANK
};

pub(crate) static HY_V3: Description = Description {
    name: "hy_v3",
    aliases: &["hy3"],
    markers: hy_markers!(":opensource", (Role::NameClose, "<tool_sep:opensource>")),
    // Hy3's template puts each tag on a line of its own.
    param_open_at_line_start: true,
    marker_suffix: ":opensource",
    ..HY
};

pub(crate) static HY_V4: Description = Description {
    name: "hy_v4",
    aliases: &["hy4"],
    markers: hy_markers!(":6124c78e",),
    marker_suffix: ":6124c78e",
    ..HY
};
