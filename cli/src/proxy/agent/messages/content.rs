//! A Messages conversation (`messages` and their content blocks) as chat
//! messages.
//!
//! What each block becomes:
//! - `text`: the message's text. A user or assistant message of text
//!   blocks only is one string, the blocks joined with "\n" (what vLLM
//!   does with a list of text parts); with an image, a list of parts.
//! - `image`: an `image_url` part (base64 → a `data:` URL, `url` → the
//!   URL); other sources (`file`) are skipped with a note.
//! - `document`: its text when the source is plain text (`text`, or
//!   `content` blocks); a PDF or a file is skipped with a note.
//! - `tool_use` (assistant): one of the message's `tool_calls`, its input
//!   as compact JSON arguments, its id kept (minted only when missing).
//! - `tool_result` (user): a `tool` message, placed before the rest of the
//!   user's content (chat wants tool messages right after the calls).
//!   Its text blocks are joined with "\n"; images are skipped with a note.
//!   `is_error: true` prefixes "Error: " unless the text already begins
//!   with "error" or Claude Code's `<tool_use_error>` tag.
//! - `thinking` (assistant): the message's `reasoning_content`;
//!   `redacted_thinking` is dropped (its data is encrypted for Anthropic).
//! - anything else (`server_tool_use`, `web_search_tool_result`, blocks
//!   in a message of the wrong role, unknown types): skipped with a note.
//! - a `system` message inside `messages`: folded into the system prompt.

use std::collections::HashSet;

use serde_json::{json, Map, Value};

use super::notes::Notes;
use crate::proxy::agent::{AgentError, IdMaker};

/// The chat messages of a conversation (the system prompt excepted).
#[derive(Debug, Default)]
pub(super) struct Conversation {
    pub messages: Vec<Value>,
    /// Every tool-use id the conversation holds: an answer's calls must
    /// not reuse one.
    pub tool_ids: HashSet<String>,
}

/// A `content` (or `system`) value: a string or a list of blocks.
enum Content<'a> {
    Text(&'a str),
    Blocks(&'a [Value]),
}

/// One content block: its `type`, its fields, and its place in the
/// request (for errors and notes).
struct Block<'a> {
    kind: &'a str,
    fields: &'a Map<String, Value>,
    param: String,
}

/// The system prompt's parts from a `system` value (a string or text
/// blocks; their `cache_control` and other keys are ignored).
pub(super) fn system_texts(
    value: &Value,
    param: &str,
    notes: &mut Notes,
) -> Result<Vec<String>, AgentError> {
    texts(
        read_content(Some(value), param)?,
        param,
        "the system prompt",
        notes,
    )
}

/// Translates `messages`; the text of `system` messages among them is
/// added to `system`.
pub(super) fn conversation(
    list: &Value,
    system: &mut Vec<String>,
    ids: &mut IdMaker,
    notes: &mut Notes,
) -> Result<Conversation, AgentError> {
    let list = list
        .as_array()
        .ok_or_else(|| AgentError::invalid("messages", "expected a list of messages"))?;
    let mut out = Conversation::default();
    for (i, message) in list.iter().enumerate() {
        let param = format!("messages[{i}]");
        let message = message
            .as_object()
            .ok_or_else(|| AgentError::invalid(&param, "a message is a JSON object"))?;
        let role = str_field(message, "role", &param)?
            .ok_or_else(|| AgentError::invalid(&format!("{param}.role"), "missing role"))?;
        let content_param = format!("{param}.content");
        let content = read_content(message.get("content"), &content_param)?;
        match role {
            "user" => user(content, &content_param, ids, notes, &mut out)?,
            "assistant" => assistant(content, &content_param, ids, notes, &mut out)?,
            "system" => system.extend(texts(content, &content_param, "a system message", notes)?),
            _ => {
                return Err(AgentError::invalid(
                    &format!("{param}.role"),
                    format!("unknown role `{role}`: expected user, assistant or system"),
                ))
            }
        }
    }
    Ok(out)
}

/// A part of a user message: text or an image's URL.
enum Part {
    Text(String),
    Image(String),
}

fn user(
    content: Content<'_>,
    param: &str,
    ids: &mut IdMaker,
    notes: &mut Notes,
    out: &mut Conversation,
) -> Result<(), AgentError> {
    let blocks = match content {
        Content::Text(text) => {
            out.messages.push(json!({"role": "user", "content": text}));
            return Ok(());
        }
        Content::Blocks(blocks) => blocks,
    };
    let mut parts = Vec::new();
    let mut results = 0;
    for block in read_blocks(blocks, param)? {
        match block.kind {
            "text" => parts.push(Part::Text(text_field(&block)?.to_owned())),
            "image" => {
                if let Some(url) = image_url(&block, notes)? {
                    parts.push(Part::Image(url));
                }
            }
            "document" => {
                if let Some(text) = document_text(&block, notes)? {
                    parts.push(Part::Text(text));
                }
            }
            "tool_result" => {
                out.messages
                    .push(tool_result(&block, ids, notes, &mut out.tool_ids)?);
                results += 1;
            }
            other => notes.add(format!("a `{other}` block in a user message was skipped")),
        }
    }
    if !parts.is_empty() || results == 0 {
        out.messages
            .push(json!({"role": "user", "content": user_content(parts)}));
    }
    Ok(())
}

/// Text parts only: one string; with an image: a list of parts.
fn user_content(parts: Vec<Part>) -> Value {
    if parts.iter().all(|part| matches!(part, Part::Text(_))) {
        let texts: Vec<String> = parts
            .into_iter()
            .filter_map(|part| match part {
                Part::Text(text) => Some(text),
                Part::Image(_) => None,
            })
            .collect();
        return Value::String(texts.join("\n"));
    }
    parts
        .into_iter()
        .map(|part| match part {
            Part::Text(text) => json!({"type": "text", "text": text}),
            Part::Image(url) => json!({"type": "image_url", "image_url": {"url": url}}),
        })
        .collect()
}

fn tool_result(
    block: &Block<'_>,
    ids: &mut IdMaker,
    notes: &mut Notes,
    tool_ids: &mut HashSet<String>,
) -> Result<Value, AgentError> {
    let id = match str_field(block.fields, "tool_use_id", &block.param)? {
        Some(id) if !id.is_empty() => id.to_owned(),
        _ => ids.make("toolu_"),
    };
    tool_ids.insert(id.clone());
    let content_param = format!("{}.content", block.param);
    let content = read_content(block.fields.get("content"), &content_param)?;
    let mut text = texts(content, &content_param, "a tool result", notes)?.join("\n");
    if bool_field(block.fields, "is_error", &block.param)? == Some(true) {
        text = error_text(text);
    }
    Ok(json!({"role": "tool", "tool_call_id": id, "content": text}))
}

/// A failed tool's result, said to be one (the chat `tool` message has no
/// error flag), unless its text already says so.
fn error_text(text: String) -> String {
    let head: String = text
        .trim_start()
        .chars()
        .take(16)
        .collect::<String>()
        .to_ascii_lowercase();
    if head.starts_with("error") || head.starts_with("<tool_use_error>") {
        text
    } else {
        format!("Error: {text}")
    }
}

fn assistant(
    content: Content<'_>,
    param: &str,
    ids: &mut IdMaker,
    notes: &mut Notes,
    out: &mut Conversation,
) -> Result<(), AgentError> {
    let blocks = match content {
        Content::Text(text) => {
            out.messages
                .push(json!({"role": "assistant", "content": text}));
            return Ok(());
        }
        Content::Blocks(blocks) => blocks,
    };
    let mut texts = Vec::new();
    let mut reasoning = Vec::new();
    let mut calls = Vec::new();
    for block in read_blocks(blocks, param)? {
        match block.kind {
            "text" => texts.push(text_field(&block)?),
            "thinking" => {
                if let Some(thinking) = str_field(block.fields, "thinking", &block.param)? {
                    reasoning.push(thinking);
                }
            }
            "redacted_thinking" => {}
            "tool_use" => calls.push(tool_use(&block, ids, &mut out.tool_ids)?),
            other => notes.add(format!(
                "a `{other}` block in an assistant message was skipped"
            )),
        }
    }
    // An empty string, not null: some chat templates apply string filters
    // to every message's content.
    let mut message = json!({"role": "assistant", "content": texts.join("\n")});
    if !reasoning.is_empty() {
        message["reasoning_content"] = Value::String(reasoning.join("\n"));
    }
    if !calls.is_empty() {
        message["tool_calls"] = Value::Array(calls);
    }
    out.messages.push(message);
    Ok(())
}

fn tool_use(
    block: &Block<'_>,
    ids: &mut IdMaker,
    tool_ids: &mut HashSet<String>,
) -> Result<Value, AgentError> {
    let id = match str_field(block.fields, "id", &block.param)? {
        Some(id) if !id.is_empty() => id.to_owned(),
        _ => ids.make("toolu_"),
    };
    let name = str_field(block.fields, "name", &block.param)?.ok_or_else(|| {
        AgentError::invalid(&format!("{}.name", block.param), "a tool use has a name")
    })?;
    let arguments = match block.fields.get("input") {
        None | Some(Value::Null) => "{}".to_owned(),
        Some(input) => input.to_string(),
    };
    tool_ids.insert(id.clone());
    Ok(json!({"id": id, "type": "function",
        "function": {"name": name, "arguments": arguments}}))
}

/// The text parts of a system prompt, system message or tool result;
/// other blocks are skipped with a note naming `place`.
fn texts(
    content: Content<'_>,
    param: &str,
    place: &str,
    notes: &mut Notes,
) -> Result<Vec<String>, AgentError> {
    let blocks = match content {
        Content::Text(text) => return Ok(vec![text.to_owned()]),
        Content::Blocks(blocks) => blocks,
    };
    let mut texts = Vec::new();
    for block in read_blocks(blocks, param)? {
        match block.kind {
            "text" => texts.push(text_field(&block)?.to_owned()),
            "document" => texts.extend(document_text(&block, notes)?),
            other => notes.add(format!("a `{other}` block in {place} was skipped")),
        }
    }
    Ok(texts)
}

/// An image block's URL; `None` (with a note) for a source chat cannot
/// name.
fn image_url(block: &Block<'_>, notes: &mut Notes) -> Result<Option<String>, AgentError> {
    let (kind, source, param) = source(block)?;
    match kind {
        "base64" => {
            let media_type = str_field(source, "media_type", &param)?.unwrap_or("image/png");
            let data = str_field(source, "data", &param)?.unwrap_or_default();
            Ok(Some(format!("data:{media_type};base64,{data}")))
        }
        "url" => Ok(str_field(source, "url", &param)?.map(str::to_owned)),
        other => {
            notes.add(format!("an image with a `{other}` source was skipped"));
            Ok(None)
        }
    }
}

/// A document's text when it is plain text; `None` (with a note) for a
/// PDF, a URL or a file, which the chat request cannot carry as text.
fn document_text(block: &Block<'_>, notes: &mut Notes) -> Result<Option<String>, AgentError> {
    let (kind, source, param) = source(block)?;
    match kind {
        "text" => Ok(str_field(source, "data", &param)?.map(str::to_owned)),
        "content" => {
            let content_param = format!("{param}.content");
            let content = read_content(source.get("content"), &content_param)?;
            Ok(Some(
                texts(content, &content_param, "a document", notes)?.join("\n"),
            ))
        }
        other => {
            notes.add(format!("a document with a `{other}` source was skipped"));
            Ok(None)
        }
    }
}

/// A block's `source`: its `type`, its fields, its place.
fn source<'a>(block: &Block<'a>) -> Result<(&'a str, &'a Map<String, Value>, String), AgentError> {
    let param = format!("{}.source", block.param);
    let source = block
        .fields
        .get("source")
        .and_then(Value::as_object)
        .ok_or_else(|| AgentError::invalid(&param, "expected a source object"))?;
    let kind = str_field(source, "type", &param)?
        .ok_or_else(|| AgentError::invalid(&format!("{param}.type"), "a source has a type"))?;
    Ok((kind, source, param))
}

fn read_content<'a>(value: Option<&'a Value>, param: &str) -> Result<Content<'a>, AgentError> {
    match value {
        None | Some(Value::Null) => Ok(Content::Blocks(&[])),
        Some(Value::String(text)) => Ok(Content::Text(text)),
        Some(Value::Array(blocks)) => Ok(Content::Blocks(blocks)),
        Some(_) => Err(AgentError::invalid(
            param,
            "expected a string or a list of content blocks",
        )),
    }
}

fn read_blocks<'a>(blocks: &'a [Value], param: &str) -> Result<Vec<Block<'a>>, AgentError> {
    blocks
        .iter()
        .enumerate()
        .map(|(j, block)| {
            let param = format!("{param}[{j}]");
            let fields = block
                .as_object()
                .ok_or_else(|| AgentError::invalid(&param, "a content block is a JSON object"))?;
            let kind = str_field(fields, "type", &param)?.ok_or_else(|| {
                AgentError::invalid(&format!("{param}.type"), "a content block has a type")
            })?;
            Ok(Block {
                kind,
                fields,
                param,
            })
        })
        .collect()
}

fn text_field<'a>(block: &Block<'a>) -> Result<&'a str, AgentError> {
    Ok(str_field(block.fields, "text", &block.param)?.unwrap_or_default())
}

/// `key` of `fields` as a string; absent or null: `None`; another type:
/// an error naming `param.key`.
pub(super) fn str_field<'a>(
    fields: &'a Map<String, Value>,
    key: &str,
    param: &str,
) -> Result<Option<&'a str>, AgentError> {
    match fields.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(_) => Err(AgentError::invalid(
            &field_param(param, key),
            "expected a string",
        )),
    }
}

/// The name of `key` inside `param` ("" for the body itself).
fn field_param(param: &str, key: &str) -> String {
    if param.is_empty() {
        key.to_owned()
    } else {
        format!("{param}.{key}")
    }
}

fn bool_field(
    fields: &Map<String, Value>,
    key: &str,
    param: &str,
) -> Result<Option<bool>, AgentError> {
    match fields.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(flag)) => Ok(Some(*flag)),
        Some(_) => Err(AgentError::invalid(
            &format!("{param}.{key}"),
            "expected true or false",
        )),
    }
}
