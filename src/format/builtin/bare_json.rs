//! Bare JSON (`bare_json`, alias `json`): calls written as plain JSON in
//! the text, as agents prompted to "answer with JSON" write them:
//!
//! ````text
//! {"tool": "shell", "args": {"command": "echo test"}}
//! [{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_time", "arguments": {}}]
//! Let me run it.
//! ```json
//! {"name": "shell", "parameters": {"command": "ls"}}
//! ```
//! ````
//!
//! The name is under `tool` or `name`, the arguments under `args`,
//! `arguments` or `parameters` (an object, or a string holding one); a
//! list of such objects is several calls.
//!
//! **When it fires.** A JSON object or list (or a ```` ```json ```` or
//! plain ```` ``` ```` fence around one) is a candidate only where it
//! starts a line: at the start of the output or right after a `\n`, with
//! only spaces or tabs before it on its line. A `{` later in a line is
//! prose. A candidate is held until its JSON shows a name key with a
//! string value; then the call starts, and streams. JSON that is not a
//! call (other keys, a list of numbers, text that is not JSON) comes back
//! as content byte for byte, without a diagnostic: JSON is ordinary
//! content in this format. Text after a call's `}` or `]` (or its closing
//! fence) is content, and a later line may start another call.
//!
//! Bare JSON cannot be told from JSON content in general: an object with
//! a string `name` (`{"name": "Ada", "age": 36}`) is a call here. That is
//! why the format is opt-in, and why `auto` does not detect it.

use crate::format::{BodyKeys, Description, Json};

pub(crate) static BARE_JSON: Description = Description {
    aliases: &["json"],
    ..Description::json(
        "bare_json",
        &[],
        Json {
            open_at_start: true,
            open_at_line_start: true,
            fenced: true,
            ..Json::body(BodyKeys {
                name: &["tool", "name"],
                arguments: &["args", "arguments", "parameters"],
                list: true,
                name_is_key: false,
            })
        },
    )
};
