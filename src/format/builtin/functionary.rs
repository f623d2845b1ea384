//! MeetKai Functionary v3.1 (`functionary_v31`, llama.cpp's
//! `FUNCTIONARY_V3_1_LLAMA_3_1`): Llama 3.1's custom-tool shape, one
//! element per call whose body is the JSON arguments,
//!
//! ```text
//! <function=get_weather>{"city": "Paris"}</function>
//! ```
//!
//! with any text before, between and after calls. The opener opens the
//! call and its function at once, the name ends at `>`, and the arguments'
//! own `}` ends them; a missing `</function>` is recovered at the next
//! call or the output's end (reported). Llama 3.1's `<|python_tag|>` code
//! form, which llama.cpp turns into a call to a `python` tool, is not
//! read: its code is content.

use crate::format::{Description, Headers, Json, NameEnd, Role};

pub(crate) static FUNCTIONARY_V31: Description = Description {
    name: "functionary_v31",
    aliases: &["functionary_v3_1", "functionary"],
    markers: &[
        (Role::CallOpen, "<function="),
        (Role::CallClose, "</function>"),
        (Role::EndOfTurn, "<|eot_id|>"),
        (Role::EndOfTurn, "<|eom_id|>"),
    ],
    func_name_end: NameEnd::Byte(b'>'),
    json_args_body: true,
    ..Description::BLANK
};

/// MeetKai Functionary v3.2 (`functionary_v32`, llama.cpp's
/// `FUNCTIONARY_V3_2`): a sequence of messages, each a recipient on a line
/// of its own after `>>>`, then its body,
///
/// ```text
/// all
/// Let me look.>>>get_weather
/// {"city": "Paris"}>>>all
/// Done.
/// ```
///
/// The prompt ends with `>>>`, so the first recipient comes without it.
/// The recipient `all` makes the body content; any other is a function
/// whose body is its JSON arguments, ended by their own `}`. Text before
/// any header that is not a recipient (it has whitespace before its line
/// ends) is content. llama.cpp also reads a `python` message whose body is
/// not JSON as `{"code": BODY}`; here such a body is not a call (reported),
/// its text content.
pub(crate) static FUNCTIONARY_V32: Description = Description {
    aliases: &["functionary_v3_2"],
    // The header's line end, not `ArgsOpen`, ends a name.
    call_confirmed_by: &[],
    ..Description::json(
        "functionary_v32",
        &[
            (Role::HeadOpen, ">>>"),
            (Role::EndOfTurn, "<|eot_id|>"),
            (Role::EndOfTurn, "<|eom_id|>"),
        ],
        Json {
            headers: Some(Headers {
                content_recipients: &["all"],
                line_end: true,
                ..Headers::by_recipient(&[], "", "")
            }),
            ..Json::ARGS
        },
    )
};
