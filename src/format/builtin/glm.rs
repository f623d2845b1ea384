//! GLM-4.5 / GLM-4.6 (vLLM: `glm45`) and GLM-4.7 (vLLM: `glm47`):
//!
//! ```text
//! <tool_call>get_weather
//! <arg_key>city</arg_key>
//! <arg_value>Paris</arg_value>
//! </tool_call>
//! ```
//!
//! GLM-4.7 writes the same markers without the newlines. The wrapper opens
//! the function itself: the name follows `<tool_call>` and ends at a line
//! end or at the first marker; a call is confirmed by `<arg_key>` or
//! `</tool_call>` after it. Keys end at `</arg_key>`, values are verbatim
//! between `<arg_value>` and `</arg_value>`. Both versions read either
//! layout; they differ only in where an `<arg_key>` inside a value ends it.
//!
//! Two models write the same shape under other tags: IQuest Q1 in its own
//! wrapper (`<iquest_tool_call>NAME…</iquest_tool_call>`, SGLang's
//! `iquest_q1`), and TeleChat4 with `<param_key>`/`<param_value>` in place
//! of `<arg_key>`/`<arg_value>` (`telechat4`).

use crate::format::{BodyKeys, Description, Json, NameEnd, Recoveries, Role};

const MARKERS: &[(Role, &str)] = &[
    (Role::CallOpen, "<tool_call>"),
    (Role::CallClose, "</tool_call>"),
    (Role::ParamOpen, "<arg_key>"),
    (Role::KeyClose, "</arg_key>"),
    (Role::ValueOpen, "<arg_value>"),
    (Role::ParamClose, "</arg_value>"),
    (Role::ReasoningOpen, "<think>"),
    (Role::ReasoningClose, "</think>"),
    // The turn ends where the next role would begin.
    (Role::EndOfTurn, "<|endoftext|>"),
    (Role::EndOfTurn, "<|user|>"),
    (Role::EndOfTurn, "<|observation|>"),
];

const FOLLOWS: &[(Role, &[Role])] = &[
    (
        Role::ParamClose,
        &[Role::ParamOpen, Role::CallClose, Role::CallOpen],
    ),
    (Role::CallClose, &[Role::CallOpen]),
];

const fn glm(
    name: &'static str,
    aliases: &'static [&'static str],
    param_open_at_line_start: bool,
) -> Description {
    Description {
        name,
        aliases,
        markers: MARKERS,
        func_name_end: NameEnd::Marker { line: true },
        param_name_end: NameEnd::Marker { line: false },
        strip_one_newline: false,
        call_confirmed_by: &[Role::ParamOpen, Role::CallClose],
        bare_confirmed_by: &[],
        follows: FOLLOWS,
        param_open_at_line_start,
        quoted_names: false,
        json_value_attribute: None,
        string_value_attribute: None,
        json_args_attribute: None,
        index_attribute: None,
        json_args_body: false,
        item_type: None,
        wrapped_arguments: &[],
        recoveries: Recoveries {
            bare_function: false,
            equals_in_param_name: false,
            value_after_empty_close: false,
            value_without_open: true,
            call_open_without_close: false,
        },
        json: None,
        marker_suffix: "",
        headers: None,
        unwrapped_functions: false,
        misspellings: &[],
    }
}

// GLM-4.5 puts each `<arg_key>` on a line of its own, so one inside a
// value ends it (a missing `</arg_value>`) only at a line start, and a file
// that quotes GLM's markup inline stays whole. GLM-4.7's compact layout has
// no line starts: there any `<arg_key>` ends an open value.
// iFlytek Spark (SGLang's `spark25`, vLLM's `spark3`) and Naver's
// HyperCLOVAX-SEED-Think write GLM-4.5's calls.
pub(crate) static GLM45: Description = glm(
    "glm45",
    &[
        "glm-4.5",
        "glm4",
        "glm46",
        "spark25",
        "spark3",
        "hyperclovax",
    ],
    true,
);
// GLM-5 writes GLM-4.7's layout, and so does inclusionAI's Ling 3 (vLLM's
// and SGLang's `ling3`).
pub(crate) static GLM47: Description = glm("glm47", &["glm-4.7", "glm5", "ling3"], false);

/// GLM-4.5's markers with another wrapper or other key and value tags.
const fn respelled(name: &'static str, markers: &'static [(Role, &'static str)]) -> Description {
    Description {
        markers,
        ..glm(name, &[], true)
    }
}

pub(crate) static IQUEST_Q1: Description = respelled(
    "iquest_q1",
    &[
        (Role::CallOpen, "<iquest_tool_call>"),
        (Role::CallClose, "</iquest_tool_call>"),
        (Role::ParamOpen, "<arg_key>"),
        (Role::KeyClose, "</arg_key>"),
        (Role::ValueOpen, "<arg_value>"),
        (Role::ParamClose, "</arg_value>"),
        (Role::ReasoningOpen, "<think>"),
        (Role::ReasoningClose, "</think>"),
    ],
);

pub(crate) static TELECHAT4: Description = respelled(
    "telechat4",
    &[
        (Role::CallOpen, "<tool_call>"),
        (Role::CallClose, "</tool_call>"),
        (Role::ParamOpen, "<param_key>"),
        (Role::KeyClose, "</param_key>"),
        (Role::ValueOpen, "<param_value>"),
        (Role::ParamClose, "</param_value>"),
        (Role::ReasoningOpen, "<think>"),
        (Role::ReasoningClose, "</think>"),
    ],
);

/// Poolside's Laguna (vLLM's and SGLang's `poolside_v1`, Ollama's `laguna`)
/// writes GLM-4.5's calls, and sometimes a call as JSON: in GLM's tags
/// (`<tool_call>{"name": …, "arguments": {…}}</tool_call>`, a `{` after
/// `<tool_call>` opening a body where a name would begin), or bare, with no
/// tags. A bare object is a call only where it opens the content (after
/// reasoning) and names one of the request's tools: JSON later in the
/// answer, or naming no tool, is content, quietly.
pub(crate) static POOLSIDE_V1: Description = Description {
    json: Some(Json {
        open_at_start: true,
        unmarked_needs_tool: true,
        body_or_name: true,
        ..Json::body(BodyKeys {
            name: &["name"],
            arguments: &["arguments"],
            list: false,
            name_is_key: false,
        })
    }),
    ..glm("poolside_v1", &["laguna"], true)
};
