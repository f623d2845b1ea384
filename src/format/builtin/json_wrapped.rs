//! JSON call bodies inside a wrapper, one description each: the long
//! tail of formats that differ from Hermes only in spelling, in whether
//! the wrapper holds a list of calls, and in whether it is closed.
//!
//! | vLLM name | shape |
//! |---|---|
//! | `longcat` | `<longcat_tool_call>{"name": …, "arguments": {…}}</longcat_tool_call>` |
//! | `internlm` | `<|action_start|><|plugin|>{"name": …, "parameters": {…}}<|action_end|>` |
//! | `jamba` | `<tool_calls>[{"name": …, "arguments": {…}}, …]</tool_calls>` |
//! | `hunyuan_a13b` | the same as `jamba` |
//! | `granite` | `<|tool_call|>[{"name": …, "arguments": {…}}, …]` (no closer) |
//! | `phi4_mini_json` | `functools[{"name": …, "arguments": {…}}, …]` (no closer) |
//! | `cohere_command3` | `<|START_ACTION|>[{"tool_call_id": …, "tool_name": …, "parameters": {…}}, …]<|END_ACTION|>` |
//! | `granite-20b-fc` | `<function_call> {"name": …, "arguments": {…}}` per call (no closer) |
//! | `minimax` | `<tool_calls>\n{"name": …, "arguments": {…}}\n{…}\n</tool_calls>` (JSON lines) |

use crate::format::{BodyKeys, Description, Json, Role};

/// The keys every one of these formats' call objects may use.
const KEYS: BodyKeys = BodyKeys {
    name: &["name"],
    arguments: &["arguments", "parameters"],
    list: false,
    name_is_key: false,
};

const LIST: BodyKeys = BodyKeys { list: true, ..KEYS };

const fn wrapped(
    name: &'static str,
    markers: &'static [(Role, &'static str)],
    keys: BodyKeys,
) -> Description {
    Description::json(name, markers, Json::body(keys))
}

pub(crate) static LONGCAT: Description = wrapped(
    "longcat",
    &[
        (Role::CallOpen, "<longcat_tool_call>"),
        (Role::CallClose, "</longcat_tool_call>"),
    ],
    KEYS,
);

/// InternLM2.5: `<|plugin|>` names the kind of action; the body follows
/// it.
pub(crate) static INTERNLM: Description = wrapped(
    "internlm",
    &[
        (Role::CallOpen, "<|action_start|>"),
        (Role::FuncOpen, "<|plugin|>"),
        (Role::CallClose, "<|action_end|>"),
        (Role::EndOfTurn, "<|im_end|>"),
    ],
    KEYS,
);

const TOOL_CALLS_LIST: &[(Role, &str)] = &[
    (Role::CallOpen, "<tool_calls>"),
    (Role::CallClose, "</tool_calls>"),
];

pub(crate) static JAMBA: Description = wrapped("jamba", TOOL_CALLS_LIST, LIST);

/// Hunyuan-A13B thinks in `<think>…</think>` before it answers.
pub(crate) static HUNYUAN_A13B: Description = wrapped(
    "hunyuan_a13b",
    &[
        (Role::CallOpen, "<tool_calls>"),
        (Role::CallClose, "</tool_calls>"),
        (Role::ReasoningOpen, "<think>"),
        (Role::ReasoningClose, "</think>"),
    ],
    LIST,
);

/// Granite 3: the list follows `<|tool_call|>` and ends with itself.
pub(crate) static GRANITE: Description = wrapped(
    "granite",
    &[
        (Role::CallOpen, "<|tool_call|>"),
        (Role::EndOfTurn, "<|end_of_text|>"),
    ],
    LIST,
);

/// Phi-4-mini: the list follows the word `functools`; in prose, the word
/// without a list after it is text.
pub(crate) static PHI4_MINI_JSON: Description = wrapped(
    "phi4_mini_json",
    &[
        (Role::CallOpen, "functools"),
        (Role::EndOfTurn, "<|end|>"),
        (Role::EndOfTurn, "<|endoftext|>"),
    ],
    LIST,
);

/// MiniMax-M1: one call object per line inside one wrapper (the same
/// wrapper as Jamba's, without the list); a body after another in the
/// wrapper, whitespace between, is the next call.
pub(crate) static MINIMAX: Description = wrapped("minimax", TOOL_CALLS_LIST, KEYS);

/// Command R7B and Command A: a list of call objects (or one) between
/// the action markers; the name is `tool_name`, the arguments
/// `parameters`, and the `tool_call_id` is skipped (ids are made as for
/// every format). Command A thinks in `<|START_THINKING|>` (reasoning,
/// where reasoning is split) and answers in `<|START_RESPONSE|>`, whose
/// tags are layout: the answer is content without them.
pub(crate) static COHERE_COMMAND3: Description = Description {
    aliases: &["cohere_command4"],
    ..wrapped(
        "cohere_command3",
        &[
            (Role::CallOpen, "<|START_ACTION|>"),
            (Role::CallClose, "<|END_ACTION|>"),
            // Command A thinks before it acts.
            (Role::ReasoningOpen, "<|START_THINKING|>"),
            (Role::ReasoningClose, "<|END_THINKING|>"),
            (Role::Layout, "<|START_RESPONSE|>"),
            (Role::Layout, "<|END_RESPONSE|>"),
            (Role::EndOfTurn, "<|END_OF_TURN_TOKEN|>"),
        ],
        BodyKeys {
            name: &["tool_name", "name"],
            arguments: &["parameters", "arguments"],
            list: true,
            name_is_key: false,
        },
    )
};

/// granite-20b-functioncalling: each call after its own tag, none closed;
/// the next tag, or text, follows the body's end. The name is vLLM's,
/// with dashes ([`Format`](crate::format::Format)'s names are matched with `-` and
/// `_` alike).
pub(crate) static GRANITE_20B_FC: Description = wrapped(
    "granite-20b-fc",
    &[
        (Role::CallOpen, "<function_call>"),
        (Role::EndOfTurn, "<|endoftext|>"),
    ],
    KEYS,
);
