//! `auto`'s placeholder description. An `auto` parser never runs its own
//! description: it looks for every detected format's openers
//! (`src/engine/detect/`) and, once a call shows which format the output is
//! in, runs that format's. The description only gives `auto` a name and
//! the engine something valid to hold until then.

use crate::format::{BodyKeys, Description, Json, Role};

pub(crate) static AUTO: Description = Description::json(
    "auto",
    &[(Role::CallOpen, "<tool_call>")],
    Json::body(BodyKeys {
        name: &["name"],
        arguments: &["arguments"],
        list: false,
        name_is_key: false,
    }),
);
