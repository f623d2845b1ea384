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

use super::{Description, NameEnd, Role};

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
