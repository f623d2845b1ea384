//! A Messages request body as a chat completions request.
//!
//! - `model` → `Options::upstream_model` (the client's name is kept for
//!   the answer).
//! - `system` (a string or text blocks) and any `role: "system"` message
//!   (Claude Code ≥ 2.1.154 sends one after the user's turn) → ONE system
//!   message, first (chat templates want it first), the parts joined with
//!   a blank line. Claude Code's `x-anthropic-billing-header:` line is
//!   left out.
//! - `messages` → chat messages (see `content`); `tools`, `tool_choice` →
//!   function tools (see `tools`).
//! - `stop_sequences` → `stop`; `max_tokens` → `max_tokens`, clamped to
//!   `--max-tokens-cap` (left out when the client left it out);
//!   `temperature`, `top_p`, `top_k` as they are (vLLM, SGLang and
//!   llama.cpp take `top_k` as an extra field).
//! - `thinking`: `enabled` or `adaptive` → `chat_template_kwargs:
//!   {enable_thinking: true, thinking: true}` (Qwen3, GLM and others read
//!   `enable_thinking`, DeepSeek V3.1 and Granite `thinking`; a template
//!   ignores the other), plus `reasoning_effort` from `budget_tokens` for
//!   `enabled` (below 8,192: `low`, below 24,576: `medium`, else `high`;
//!   `adaptive` leaves the server's default); `disabled` → both `false`.
//!   Only then does the answer carry `thinking` blocks.
//! - `stream` → `stream`, with `stream_options: {include_usage,
//!   continuous_usage_stats}` so that usage arrives as it grows.
//! - Ignored: `metadata`, `output_config`, `context_management`,
//!   `mcp_servers`, `container`, `service_tier` and unknown fields.
//!
//! `null` is taken as absent everywhere; a field of the wrong type is an
//! `invalid_request_error` naming the field.

use std::collections::HashSet;

use serde_json::{json, Map, Value};

use super::content;
use super::notes::Notes;
use super::tools;
use crate::proxy::agent::{AgentError, IdMaker};

/// A translated request and what its answer's writer must know of it.
#[derive(Debug)]
pub(super) struct ChatRequest {
    pub chat: Map<String, Value>,
    pub stream: bool,
    /// The model the client named (its answer names it back).
    pub client_model: Option<String>,
    /// The client asked for thinking: the answer carries `thinking`
    /// blocks.
    pub thinking: bool,
    pub stop_sequences: Vec<String>,
    /// Tool-use ids in the conversation, which an answer's calls must not
    /// reuse.
    pub tool_ids: HashSet<String>,
}

/// The start of the line Claude Code puts first in its system prompt for
/// Anthropic's billing: no use to a model, and where it changes from one
/// request to the next (`cch=…` before 2.1.181) it defeats the upstream's
/// prefix cache; it is left out.
const BILLING_HEADER: &str = "x-anthropic-billing-header:";

/// `budget_tokens` below these: `low`, `medium`; else `high`.
const LOW_EFFORT_BELOW: u64 = 8_192;
const MEDIUM_EFFORT_BELOW: u64 = 24_576;

pub(super) fn chat_request(
    body: &Value,
    upstream_model: &str,
    max_tokens_cap: Option<u64>,
    ids: &mut IdMaker,
    notes: &mut Notes,
) -> Result<ChatRequest, AgentError> {
    let body = body
        .as_object()
        .ok_or_else(|| AgentError::invalid("body", "a Messages request is a JSON object"))?;
    let client_model = content::str_field(body, "model", "")?.map(str::to_owned);

    let mut system = match present(body, "system") {
        Some(value) => content::system_texts(value, "system", notes)?,
        None => Vec::new(),
    };
    let messages = present(body, "messages")
        .ok_or_else(|| AgentError::invalid("messages", "missing messages"))?;
    let conversation = content::conversation(messages, &mut system, ids, notes)?;

    let mut chat = Map::new();
    chat.insert("model".into(), upstream_model.into());
    let mut chat_messages = Vec::with_capacity(conversation.messages.len() + 1);
    system.retain(|part| !part.is_empty() && !part.starts_with(BILLING_HEADER));
    if !system.is_empty() {
        chat_messages.push(json!({"role": "system", "content": system.join("\n\n")}));
    }
    chat_messages.extend(conversation.messages);
    chat.insert("messages".into(), Value::Array(chat_messages));

    if let Some(value) = present(body, "tools") {
        let function_tools = tools::function_tools(value, notes)?;
        let choice = present(body, "tool_choice")
            .map(tools::tool_choice)
            .transpose()?;
        // A tool choice without tools is an error to chat servers.
        if !function_tools.is_empty() {
            chat.insert("tools".into(), Value::Array(function_tools));
            if let Some(choice) = choice {
                chat.insert("tool_choice".into(), choice.choice);
                if let Some(parallel) = choice.parallel {
                    chat.insert("parallel_tool_calls".into(), parallel.into());
                }
            }
        }
    }

    let stop_sequences = stop_sequences(body)?;
    if !stop_sequences.is_empty() {
        chat.insert("stop".into(), json!(stop_sequences));
    }
    if let Some(max_tokens) = integer(body, "max_tokens", "max_tokens")? {
        let max_tokens = max_tokens_cap.map_or(max_tokens, |cap| max_tokens.min(cap));
        chat.insert("max_tokens".into(), max_tokens.into());
    }
    for key in ["temperature", "top_p"] {
        if let Some(value) = present(body, key) {
            if !value.is_number() {
                return Err(AgentError::invalid(key, "expected a number"));
            }
            chat.insert(key.into(), value.clone());
        }
    }
    if let Some(top_k) = integer(body, "top_k", "top_k")? {
        chat.insert("top_k".into(), top_k.into());
    }
    let thinking = thinking(body, &mut chat)?;

    let stream = match present(body, "stream") {
        None => false,
        Some(Value::Bool(stream)) => *stream,
        Some(_) => return Err(AgentError::invalid("stream", "expected true or false")),
    };
    chat.insert("stream".into(), stream.into());
    if stream {
        chat.insert(
            "stream_options".into(),
            json!({"include_usage": true, "continuous_usage_stats": true}),
        );
    }

    Ok(ChatRequest {
        chat,
        stream,
        client_model,
        thinking,
        stop_sequences,
        tool_ids: conversation.tool_ids,
    })
}

/// Sets the upstream's reasoning switch from `thinking`; whether the
/// client asked for thinking.
fn thinking(body: &Map<String, Value>, chat: &mut Map<String, Value>) -> Result<bool, AgentError> {
    let Some(value) = present(body, "thinking") else {
        return Ok(false);
    };
    let fields = value
        .as_object()
        .ok_or_else(|| AgentError::invalid("thinking", "expected an object with a type"))?;
    let kind = content::str_field(fields, "type", "thinking")?
        .ok_or_else(|| AgentError::invalid("thinking.type", "missing type"))?;
    let enabled = match kind {
        "enabled" | "adaptive" => true,
        "disabled" => false,
        other => {
            return Err(AgentError::invalid(
                "thinking.type",
                format!("unknown thinking type `{other}`: expected enabled, adaptive or disabled"),
            ))
        }
    };
    chat.insert(
        "chat_template_kwargs".into(),
        json!({"enable_thinking": enabled, "thinking": enabled}),
    );
    if kind == "enabled" {
        if let Some(budget) = integer(fields, "budget_tokens", "thinking.budget_tokens")? {
            let effort = if budget < LOW_EFFORT_BELOW {
                "low"
            } else if budget < MEDIUM_EFFORT_BELOW {
                "medium"
            } else {
                "high"
            };
            chat.insert("reasoning_effort".into(), effort.into());
        }
    }
    Ok(enabled)
}

fn stop_sequences(body: &Map<String, Value>) -> Result<Vec<String>, AgentError> {
    let Some(value) = present(body, "stop_sequences") else {
        return Ok(Vec::new());
    };
    let invalid = || AgentError::invalid("stop_sequences", "expected a list of strings");
    value
        .as_array()
        .ok_or_else(invalid)?
        .iter()
        .map(|stop| stop.as_str().map(str::to_owned).ok_or_else(invalid))
        .collect()
}

/// `key` as a non-negative integer, absent or null: `None`; `param`
/// names it in an error.
fn integer(fields: &Map<String, Value>, key: &str, param: &str) -> Result<Option<u64>, AgentError> {
    match present(fields, key) {
        None => Ok(None),
        Some(value) => value
            .as_u64()
            .map(Some)
            .ok_or_else(|| AgentError::invalid(param, "expected a non-negative integer")),
    }
}

/// `key` unless it is absent or null.
fn present<'a>(fields: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    fields.get(key).filter(|value| !value.is_null())
}
