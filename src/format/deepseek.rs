//! DeepSeek's formats. V3.1 and V3.2-Exp (vLLM: `deepseek_v31`):
//!
//! ```text
//! <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Paris"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>
//! ```
//!
//! The markers are DeepSeek's special tokens, spelled with U+FF5C `｜` and
//! U+2581 `▁`. A section holds any number of calls; the name runs from
//! the call's opener to `<｜tool▁sep｜>`, and the arguments are one JSON
//! object, ended by its own `}`.

use super::{Description, Json, NameEnd, Recoveries, Role};

pub(crate) static DEEPSEEK_V31: Description = Description {
    name: "deepseek_v31",
    aliases: &[],
    markers: &[
        (Role::CallOpen, "<｜tool▁calls▁begin｜>"),
        (Role::CallClose, "<｜tool▁calls▁end｜>"),
        (Role::FuncOpen, "<｜tool▁call▁begin｜>"),
        (Role::FuncClose, "<｜tool▁call▁end｜>"),
        (Role::ArgsOpen, "<｜tool▁sep｜>"),
    ],
    func_name_end: NameEnd::Marker { line: false },
    param_name_end: NameEnd::Marker { line: false },
    strip_one_newline: false,
    call_confirmed_by: &[Role::ArgsOpen],
    // A call without the section's opener is still a call (reported).
    bare_confirmed_by: &[Role::ArgsOpen],
    follows: &[],
    param_open_at_line_start: false,
    recoveries: Recoveries {
        bare_function: true,
        ..Recoveries::NONE
    },
    json: Some(Json {
        args_after_name: true,
        body: None,
        id_in_name: None,
        typed_name: false,
        fenced: false,
    }),
};

/// DeepSeek V3-0324 and R1-0528 (vLLM: `deepseek_v3`):
///
/// ```text
/// <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather
/// ```json
/// {"city": "Paris"}
/// ```<｜tool▁call▁end｜><｜tool▁calls▁end｜>
/// ```
///
/// V3.1's markers; the call's type comes before `<｜tool▁sep｜>`, the name
/// after it up to the line end, and the arguments in a code fence (which
/// models also leave out, or write without `json`).
pub(crate) static DEEPSEEK_V3: Description = Description {
    name: "deepseek_v3",
    aliases: &[],
    markers: DEEPSEEK_V31.markers,
    func_name_end: NameEnd::Marker { line: true },
    param_name_end: NameEnd::Marker { line: false },
    strip_one_newline: false,
    // The name's line end confirms the call.
    call_confirmed_by: &[],
    bare_confirmed_by: &[],
    follows: &[],
    param_open_at_line_start: false,
    recoveries: Recoveries::NONE,
    json: Some(Json {
        args_after_name: true,
        body: None,
        id_in_name: None,
        typed_name: true,
        fenced: true,
    }),
};
