//! SoftBank Sarashina (`sarashina`, smg's name): a list of calls written
//! as a Python literal, after `<|tool_calls|>`:
//!
//! ```text
//! <|tool_calls|>[{'name': 'get_weather', 'arguments': {'city': 'Tokyo'}}]
//! ```
//!
//! Single quotes, `True`/`False`/`None`, tuples: the body is read by the
//! engine's Python reader (never evaluated) as the JSON body it stands
//! for. `<|tool_calls|>` is a special token that servers usually strip,
//! so a list (or one dict) that opens the output with no marker is read
//! too; later in the output, a list is content. A list that holds no call
//! (`[1, 2, 3]`) is content, byte for byte.

use crate::format::{BodyKeys, Description, Json, Role, Syntax};

pub(crate) static SARASHINA: Description = Description::json(
    "sarashina",
    &[(Role::CallOpen, "<|tool_calls|>")],
    Json {
        open_at_start: true,
        syntax: Syntax::PythonLiteral,
        ..Json::body(BodyKeys {
            name: &["name"],
            arguments: &["arguments"],
            list: true,
            name_is_key: false,
        })
    },
);
