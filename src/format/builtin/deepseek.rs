//! DeepSeek's formats. V3.1 and V3.2-Exp (vLLM: `deepseek_v31`):
//!
//! ```text
//! <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Paris"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>
//! ```
//!
//! The markers are DeepSeek's special tokens, spelled with U+FF5C `｜` and
//! U+2581 `▁`. A section holds any number of calls; the name runs from
//! the call's opener to `<｜tool▁sep｜>`, and the arguments are one JSON
//! object, ended by its own `}`. V3's shape (below) under V3.1 is read as
//! V3 reads it: what follows `<｜tool▁sep｜>` tells the two apart (the
//! arguments' `{`, or a name). V3 (R1) also opens its section in four
//! other spellings, and may leave its closing fence out.

use crate::format::{Description, Json, NameEnd, Recoveries, Role};

const MARKERS: &[(Role, &str)] = &[
    (Role::CallOpen, "<｜tool▁calls▁begin｜>"),
    (Role::CallClose, "<｜tool▁calls▁end｜>"),
    (Role::FuncOpen, "<｜tool▁call▁begin｜>"),
    (Role::FuncClose, "<｜tool▁call▁end｜>"),
    (Role::ArgsOpen, "<｜tool▁sep｜>"),
    (Role::ReasoningOpen, "<think>"),
    (Role::ReasoningClose, "</think>"),
    (Role::EndOfTurn, "<｜end▁of▁sentence｜>"),
];

pub(crate) static DEEPSEEK_V31: Description = Description {
    // A call without the section's opener is still a call (reported).
    bare_confirmed_by: &[Role::ArgsOpen],
    recoveries: Recoveries {
        bare_function: true,
        ..Recoveries::NONE
    },
    ..Description::json(
        "deepseek_v31",
        MARKERS,
        // V3's shape (`function<｜tool▁sep｜>NAME\n```json …`) is read too,
        // told apart by what follows `<｜tool▁sep｜>`.
        Json {
            call_type: Some("function"),
            call_type_optional: true,
            fenced: true,
            ..Json::ARGS
        },
    )
};

/// V3's markers, with the section's opener (and closer) in the other
/// spellings R1 is seen writing: `_` or a space for `▁`, `\_` (escaped
/// Markdown), and `<｜tool▁calls｜>` without `begin`. `<｜tool_calls_begin｜>`
/// is also Step-3's opener: `auto` gives it to both, and the item after it
/// (`<｜tool▁call▁begin｜>` or Step-3's `<｜tool_call_begin｜>`) decides.
const V3_MARKERS: &[(Role, &str)] = &[
    (Role::CallOpen, "<｜tool▁calls▁begin｜>"),
    (Role::CallClose, "<｜tool▁calls▁end｜>"),
    (Role::FuncOpen, "<｜tool▁call▁begin｜>"),
    (Role::FuncClose, "<｜tool▁call▁end｜>"),
    (Role::ArgsOpen, "<｜tool▁sep｜>"),
    (Role::ReasoningOpen, "<think>"),
    (Role::ReasoningClose, "</think>"),
    (Role::EndOfTurn, "<｜end▁of▁sentence｜>"),
    (Role::CallOpen, "<｜tool calls begin｜>"),
    (Role::CallClose, "<｜tool calls end｜>"),
    (Role::CallOpen, "<｜tool\\_calls\\_begin｜>"),
    (Role::CallClose, "<｜tool\\_calls\\_end｜>"),
    (Role::CallOpen, "<｜tool▁calls｜>"),
    (Role::CallOpen, "<｜tool_calls_begin｜>"),
    (Role::CallClose, "<｜tool_calls_end｜>"),
];

pub(crate) static DEEPSEEK_V3: Description = Description {
    // The name ends at its line end, which confirms the call.
    func_name_end: NameEnd::Marker { line: true },
    call_confirmed_by: &[],
    ..Description::json(
        "deepseek_v3",
        V3_MARKERS,
        Json {
            call_type: Some("function"),
            fenced: true,
            ..Json::ARGS
        },
    )
};
