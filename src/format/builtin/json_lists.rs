//! A JSON list of call objects in a wrapper, from models whose servers
//! other than vLLM read them:
//!
//! | name | shape |
//! |---|---|
//! | `nemotron_json` | `<TOOLCALL>[{"name": …, "arguments": {…}}, …]</TOOLCALL>` (Nemotron Nano v2) |
//! | `openpangu_v2` | `<|tool_call_start|>[{"name": …, "arguments": {…}}]<|tool_call_end|>` (openPangu V2) |
//!
//! Nemotron Nano v2 sometimes leaves out the list's brackets: one object,
//! or objects separated by commas, are read as the list would be.
//! openPangu V2 writes LFM2's markers around JSON where LFM2 writes Python
//! calls, so `auto` cannot tell them apart: its format is chosen by name
//! (or by the model's, `openpangu`).

use crate::format::{BodyKeys, Description, Json, Role};

const LIST: BodyKeys = BodyKeys {
    name: &["name"],
    arguments: &["arguments", "parameters"],
    list: true,
    name_is_key: false,
};

pub(crate) static NEMOTRON_JSON: Description = Description::json(
    "nemotron_json",
    &[
        (Role::CallOpen, "<TOOLCALL>"),
        (Role::CallClose, "</TOOLCALL>"),
        (Role::ReasoningOpen, "<think>"),
        (Role::ReasoningClose, "</think>"),
    ],
    Json {
        // `{…}, {…}` without the list's brackets.
        body_separator: Some(b','),
        ..Json::body(LIST)
    },
);

pub(crate) static OPENPANGU_V2: Description = Description::json(
    "openpangu_v2",
    &[
        (Role::CallOpen, "<|tool_call_start|>"),
        (Role::CallClose, "<|tool_call_end|>"),
    ],
    Json::body(LIST),
);
