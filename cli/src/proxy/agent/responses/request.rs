//! Responses input items as chat messages.
//!
//! - `instructions` and every `system`/`developer` message make ONE system
//!   message, first (Qwen's and other templates take a system message only
//!   there; mlx-lm#1207 moves them the same way), joined by a blank line.
//! - An assistant's turn (its reasoning, text and calls, which Responses
//!   sends as separate items) becomes one assistant message: reasoning as
//!   `reasoning_content` (gpt-oss needs its earlier reasoning,
//!   openai/gpt-oss#225), text as `content`, consecutive calls as its
//!   `tool_calls`.
//! - Call ids are kept as they came; a missing one is minted, a repeated
//!   one (upstreams that number calls "0", "1" in every answer) is made
//!   unique, and the outputs that follow it name the new id.

use std::collections::{HashMap, HashSet, VecDeque};

use serde_json::{json, Map, Value};

use super::super::{AgentError, IdMaker};
use super::tools::ToolMap;

/// The conversation, translated.
#[derive(Debug, Default)]
pub struct Conversation {
    /// Chat messages, the system message first.
    pub messages: Vec<Value>,
    /// Every call id the conversation holds (as sent upstream): the answer
    /// must not reuse one.
    pub call_ids: HashSet<String>,
}

/// Translates `instructions`, the stored `history` items and the request's
/// `input` items (in that order) to chat messages.
pub fn translate_conversation(
    instructions: Option<&str>,
    history: &[Value],
    input: &[Value],
    tools: &ToolMap,
    ids: &mut IdMaker,
    notes: &mut Vec<String>,
) -> Result<Conversation, AgentError> {
    let mut builder = Builder {
        system: Vec::new(),
        messages: Vec::new(),
        assistant: None,
        calls: CallIds::default(),
        tools,
        ids,
        notes,
    };
    if let Some(text) = instructions.filter(|text| !text.is_empty()) {
        builder.system.push(text.to_owned());
    }
    for (index, item) in history.iter().enumerate() {
        builder.item(item, &format!("history[{index}]"))?;
    }
    for (index, item) in input.iter().enumerate() {
        builder.item(item, &format!("input[{index}]"))?;
    }
    builder.flush_assistant();
    let mut messages = Vec::with_capacity(builder.messages.len() + 1);
    if !builder.system.is_empty() {
        messages.push(json!({"role": "system", "content": builder.system.join("\n\n")}));
    }
    messages.append(&mut builder.messages);
    Ok(Conversation {
        messages,
        call_ids: builder.calls.used,
    })
}

/// An assistant message being gathered from its turn's items.
#[derive(Default)]
struct Assistant {
    reasoning: String,
    text: String,
    tool_calls: Vec<Value>,
}

struct Builder<'a> {
    system: Vec<String>,
    messages: Vec<Value>,
    assistant: Option<Assistant>,
    calls: CallIds,
    tools: &'a ToolMap,
    ids: &'a mut IdMaker,
    notes: &'a mut Vec<String>,
}

impl Builder<'_> {
    fn item(&mut self, item: &Value, path: &str) -> Result<(), AgentError> {
        let fields = item
            .as_object()
            .ok_or_else(|| AgentError::invalid(path, format!("{path}: expected an item object")))?;
        let kind = match fields.get("type") {
            None | Some(Value::Null) => None,
            Some(Value::String(kind)) => Some(kind.as_str()),
            Some(_) => {
                return Err(AgentError::invalid(
                    path,
                    format!("{path}.type: expected a string"),
                ))
            }
        };
        match kind {
            Some("message") => self.message(fields, path),
            // The Agents SDK sends messages as bare `{role, content}`.
            None if fields.contains_key("role") => self.message(fields, path),
            None => Err(AgentError::invalid(
                path,
                format!("{path}: an item needs a `type` (or a `role`, for a message)"),
            )),
            Some("function_call") => {
                let name = required_str(fields, "name", path)?;
                let namespace = fields.get("namespace").and_then(Value::as_str);
                let arguments = match fields.get("arguments") {
                    None | Some(Value::Null) => "{}".to_owned(),
                    Some(Value::String(text)) => text.clone(),
                    // Some clients send the arguments parsed.
                    Some(other @ Value::Object(_)) => other.to_string(),
                    Some(_) => {
                        return Err(AgentError::invalid(
                            path,
                            format!("{path}.arguments: expected the arguments' JSON text"),
                        ))
                    }
                };
                self.call(
                    fields,
                    self.tools.chat_name_of(namespace, name),
                    arguments,
                    path,
                )
            }
            Some("custom_tool_call") => {
                let name = required_str(fields, "name", path)?;
                let namespace = fields.get("namespace").and_then(Value::as_str);
                let input = optional_str(fields, "input", path)?.unwrap_or("");
                let arguments = json!({ "input": input }).to_string();
                self.call(
                    fields,
                    self.tools.chat_name_of(namespace, name),
                    arguments,
                    path,
                )
            }
            Some("function_call_output" | "custom_tool_call_output") => self.output(fields, path),
            Some("reasoning") => {
                self.reasoning(fields);
                Ok(())
            }
            Some("item_reference") => {
                self.notes.push(format!(
                    "{path}: an item_reference cannot be resolved by this proxy (it keeps no items by id); skipped"
                ));
                Ok(())
            }
            Some(other) => {
                self.notes.push(format!(
                    "{path}: a `{other}` item has no chat completions equivalent; skipped"
                ));
                Ok(())
            }
        }
    }

    fn message(&mut self, fields: &Map<String, Value>, path: &str) -> Result<(), AgentError> {
        let role = required_str(fields, "role", path)?;
        let content = fields.get("content").unwrap_or(&Value::Null);
        match role {
            "system" | "developer" => {
                let text = self.text_of(content, path, "a system message")?;
                if !text.is_empty() {
                    self.system.push(text);
                }
            }
            "assistant" => {
                let text = self.text_of(content, path, "an assistant message")?;
                if self
                    .assistant
                    .as_ref()
                    .is_some_and(|a| !a.tool_calls.is_empty())
                {
                    // Text after calls starts the next assistant message.
                    self.flush_assistant();
                }
                let assistant = self.assistant.get_or_insert_with(Assistant::default);
                if !assistant.text.is_empty() && !text.is_empty() {
                    assistant.text.push('\n');
                }
                assistant.text.push_str(&text);
            }
            "user" => {
                let content = self.user_content(content, path)?;
                self.flush_assistant();
                self.messages
                    .push(json!({"role": "user", "content": content}));
            }
            _ => {
                return Err(AgentError::invalid(
                    path,
                    format!("{path}.role: expected user, assistant, system or developer"),
                ))
            }
        }
        Ok(())
    }

    fn call(
        &mut self,
        fields: &Map<String, Value>,
        name: String,
        arguments: String,
        path: &str,
    ) -> Result<(), AgentError> {
        let id = optional_str(fields, "call_id", path)?;
        let id = self.calls.call(id, self.ids);
        let assistant = self.assistant.get_or_insert_with(Assistant::default);
        assistant.tool_calls.push(json!({
            "id": id, "type": "function",
            "function": {"name": name, "arguments": arguments},
        }));
        Ok(())
    }

    fn output(&mut self, fields: &Map<String, Value>, path: &str) -> Result<(), AgentError> {
        let id = optional_str(fields, "call_id", path)?;
        let id = self.calls.output(id, self.ids);
        let content = match fields.get("output") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(text)) => text.clone(),
            Some(parts @ Value::Array(_)) => self.text_of(parts, path, "a tool's output")?,
            Some(_) => {
                return Err(AgentError::invalid(
                    path,
                    format!("{path}.output: expected a string or a list of content parts"),
                ))
            }
        };
        self.flush_assistant();
        self.messages
            .push(json!({"role": "tool", "tool_call_id": id, "content": content}));
        Ok(())
    }

    /// A reasoning item's text goes with the assistant message it precedes;
    /// its `encrypted_content` (OpenAI's, unreadable here) is left out.
    fn reasoning(&mut self, fields: &Map<String, Value>) {
        let mut text = joined_texts(fields.get("content"));
        if text.is_empty() {
            text = joined_texts(fields.get("summary"));
        }
        if text.is_empty() {
            return;
        }
        let started = self
            .assistant
            .as_ref()
            .is_some_and(|a| !a.text.is_empty() || !a.tool_calls.is_empty());
        if started {
            self.flush_assistant();
        }
        let assistant = self.assistant.get_or_insert_with(Assistant::default);
        if !assistant.reasoning.is_empty() {
            assistant.reasoning.push('\n');
        }
        assistant.reasoning.push_str(&text);
    }

    fn flush_assistant(&mut self) {
        let Some(assistant) = self.assistant.take() else {
            return;
        };
        if assistant.text.is_empty() && assistant.tool_calls.is_empty() {
            // Reasoning alone has no message to go with.
            return;
        }
        let mut message = Map::new();
        message.insert("role".to_owned(), "assistant".into());
        message.insert("content".to_owned(), assistant.text.into());
        if !assistant.reasoning.is_empty() {
            message.insert("reasoning_content".to_owned(), assistant.reasoning.into());
        }
        if !assistant.tool_calls.is_empty() {
            message.insert("tool_calls".to_owned(), assistant.tool_calls.into());
        }
        self.messages.push(Value::Object(message));
    }

    /// A message's text: a string, or its text parts joined by a newline
    /// (other parts are noted and left out).
    fn text_of(&mut self, content: &Value, path: &str, what: &str) -> Result<String, AgentError> {
        match content {
            Value::Null => Ok(String::new()),
            Value::String(text) => Ok(text.clone()),
            Value::Array(parts) => {
                let mut texts = Vec::with_capacity(parts.len());
                for (index, part) in parts.iter().enumerate() {
                    let part_path = format!("{path}.content[{index}]");
                    match self.part(part, &part_path)? {
                        Part::Text(text) => texts.push(text),
                        Part::Image(_) => self.notes.push(format!(
                            "{part_path}: an image in {what} cannot be sent upstream; left out"
                        )),
                        Part::None => {}
                    }
                }
                Ok(texts.join("\n"))
            }
            _ => Err(AgentError::invalid(
                path,
                format!("{path}.content: expected a string or a list of content parts"),
            )),
        }
    }

    /// A user message's content: its text, or chat parts when it holds
    /// images.
    fn user_content(&mut self, content: &Value, path: &str) -> Result<Value, AgentError> {
        let Value::Array(parts) = content else {
            return self
                .text_of(content, path, "a user message")
                .map(Value::from);
        };
        let mut chat_parts = Vec::with_capacity(parts.len());
        let mut images = false;
        for (index, part) in parts.iter().enumerate() {
            match self.part(part, &format!("{path}.content[{index}]"))? {
                Part::Text(text) => chat_parts.push(json!({"type": "text", "text": text})),
                Part::Image(image) => {
                    images = true;
                    chat_parts.push(image);
                }
                Part::None => {}
            }
        }
        if images {
            return Ok(chat_parts.into());
        }
        let texts: Vec<&str> = chat_parts
            .iter()
            .filter_map(|part| part["text"].as_str())
            .collect();
        Ok(texts.join("\n").into())
    }

    fn part(&mut self, part: &Value, path: &str) -> Result<Part, AgentError> {
        let fields = match part {
            Value::String(text) => return Ok(Part::Text(text.clone())),
            Value::Object(fields) => fields,
            _ => {
                return Err(AgentError::invalid(
                    path,
                    format!("{path}: expected a content part object"),
                ))
            }
        };
        match fields.get("type").and_then(Value::as_str) {
            Some("input_text" | "output_text" | "text" | "summary_text" | "reasoning_text") => {
                Ok(Part::Text(required_str(fields, "text", path)?.to_owned()))
            }
            Some("refusal") => Ok(Part::Text(
                optional_str(fields, "refusal", path)?
                    .unwrap_or("")
                    .to_owned(),
            )),
            Some("input_image") => {
                let url = match fields.get("image_url") {
                    Some(Value::String(url)) => Some(url.as_str()),
                    // The chat shape, `{url}`, from clients that mix the two.
                    Some(Value::Object(nested)) => nested.get("url").and_then(Value::as_str),
                    _ => None,
                };
                let Some(url) = url else {
                    self.notes.push(format!(
                        "{path}: an image by file_id cannot be fetched by this proxy; left out"
                    ));
                    return Ok(Part::None);
                };
                let mut image_url = Map::new();
                image_url.insert("url".to_owned(), url.into());
                if let Some(detail) = fields.get("detail").and_then(Value::as_str) {
                    image_url.insert("detail".to_owned(), detail.into());
                }
                Ok(Part::Image(
                    json!({"type": "image_url", "image_url": image_url}),
                ))
            }
            Some(other) => {
                self.notes.push(format!(
                    "{path}: a `{other}` part cannot be sent upstream; left out"
                ));
                Ok(Part::None)
            }
            None => Err(AgentError::invalid(
                path,
                format!("{path}.type: expected the part's type, a string"),
            )),
        }
    }
}

enum Part {
    Text(String),
    /// A chat `image_url` part.
    Image(Value),
    None,
}

/// The call ids of the conversation, made unique.
#[derive(Default)]
struct CallIds {
    /// A client's id → the id sent upstream for its latest call.
    renamed: HashMap<String, String>,
    used: HashSet<String>,
    /// Calls without an output yet, oldest first: an output without a
    /// `call_id` answers the oldest.
    unanswered: VecDeque<String>,
}

impl CallIds {
    fn call(&mut self, id: Option<&str>, ids: &mut IdMaker) -> String {
        let unique = match id.filter(|id| !id.is_empty()) {
            Some(id) if !self.used.contains(id) => id.to_owned(),
            _ => self.mint(ids),
        };
        if let Some(id) = id.filter(|id| !id.is_empty()) {
            self.renamed.insert(id.to_owned(), unique.clone());
        }
        self.used.insert(unique.clone());
        self.unanswered.push_back(unique.clone());
        unique
    }

    fn output(&mut self, id: Option<&str>, ids: &mut IdMaker) -> String {
        let unique = match id.filter(|id| !id.is_empty()) {
            Some(id) => self
                .renamed
                .get(id)
                .cloned()
                .unwrap_or_else(|| id.to_owned()),
            None => match self.unanswered.front() {
                Some(oldest) => oldest.clone(),
                None => self.mint(ids),
            },
        };
        self.unanswered.retain(|pending| *pending != unique);
        unique
    }

    fn mint(&mut self, ids: &mut IdMaker) -> String {
        loop {
            let id = ids.make("call_");
            if !self.used.contains(&id) {
                return id;
            }
        }
    }
}

/// The texts of a list of parts (`summary_text`, `reasoning_text`, …),
/// joined by a newline.
fn joined_texts(parts: Option<&Value>) -> String {
    let Some(Value::Array(parts)) = parts else {
        return String::new();
    };
    let texts: Vec<&str> = parts
        .iter()
        .filter_map(|part| part.get("text").and_then(Value::as_str))
        .filter(|text| !text.is_empty())
        .collect();
    texts.join("\n")
}

fn required_str<'a>(
    fields: &'a Map<String, Value>,
    key: &str,
    path: &str,
) -> Result<&'a str, AgentError> {
    match fields.get(key) {
        Some(Value::String(text)) => Ok(text),
        _ => Err(AgentError::invalid(
            path,
            format!("{path}.{key}: expected a string"),
        )),
    }
}

fn optional_str<'a>(
    fields: &'a Map<String, Value>,
    key: &str,
    path: &str,
) -> Result<Option<&'a str>, AgentError> {
    match fields.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(_) => Err(AgentError::invalid(
            path,
            format!("{path}.{key}: expected a string"),
        )),
    }
}

#[cfg(test)]
mod tests;
