//! Responses tools as chat completions tools, and back: which Responses
//! tool a chat call names.
//!
//! Chat upstreams take only `function` tools, so:
//! - `function` tools are nested as chat wants them;
//! - a `custom` tool (free-form text input, such as Codex's `apply_patch`)
//!   becomes a function with one string parameter, `input`; its calls go
//!   back as `custom_tool_call` items;
//! - a `namespace` (Codex groups MCP servers' tools this way) is flattened:
//!   its description goes before its first member's, and each member
//!   becomes a function named as Codex flattens names
//!   (`ToolName::canonical_flat_name` in `codex-rs/protocol/src/tool_name.rs`:
//!   the namespace without trailing `_`, `__`, the name without leading
//!   `_`), and its calls go back with `name` and `namespace` split again,
//!   since Codex finds a tool by both (a flat name is "unsupported call");
//! - hosted tools (`web_search`, `file_search`, `code_interpreter`,
//!   `computer_use_preview`, `image_generation`, `mcp`, `tool_search`, …)
//!   run on OpenAI's side: they are dropped, each with a note. So is
//!   `local_shell`: Codex offers it only to `codex-mini-latest` (OpenAI's
//!   docs call it outdated), other models get function tools
//!   (`exec_command`, `shell`), and a model that is not codex-mini was
//!   not trained to call it.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use super::super::AgentError;

/// A custom tool's grammar is put in its `input`'s description when it is
/// shorter than this; a longer one would crowd the prompt.
const MAX_GRAMMAR_BYTES: usize = 4 * 1024;

/// Which kind of Responses item a tool's calls are answered with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallKind {
    /// `function_call`, with JSON `arguments`.
    Function,
    /// `custom_tool_call`, with free-form `input`.
    Custom,
}

/// A Responses tool as the client knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolIdentity {
    pub kind: CallKind,
    pub name: String,
    pub namespace: Option<String>,
}

/// The request's tools by the names the upstream knows them by.
#[derive(Clone, Debug, Default)]
pub struct ToolMap {
    by_chat_name: HashMap<String, ToolIdentity>,
    /// A namespaced member's own name → its chat name, or `None` when two
    /// namespaces share it: models sometimes call a member by its bare
    /// name (router-for-me/CLIProxyAPI#4106).
    by_member_name: HashMap<String, Option<String>>,
}

impl ToolMap {
    /// The tool a call to `chat_name` is for. A name no tool has is a
    /// function of that name: the client says what it makes of it.
    pub fn identify(&self, chat_name: &str) -> ToolIdentity {
        if let Some(identity) = self.by_chat_name.get(chat_name) {
            return identity.clone();
        }
        if let Some(Some(flat)) = self.by_member_name.get(chat_name) {
            if let Some(identity) = self.by_chat_name.get(flat) {
                return identity.clone();
            }
        }
        ToolIdentity {
            kind: CallKind::Function,
            name: chat_name.to_owned(),
            namespace: None,
        }
    }

    /// Whether some tool is called `chat_name` upstream.
    pub fn contains(&self, chat_name: &str) -> bool {
        self.by_chat_name.contains_key(chat_name)
    }

    /// The upstream's name for the tool a client names: flattened with its
    /// namespace, or a namespaced member's own name when it is unique.
    pub fn chat_name_of(&self, namespace: Option<&str>, name: &str) -> String {
        let flat = chat_name(namespace, name);
        if namespace.is_none() && !self.contains(&flat) {
            if let Some(Some(member)) = self.by_member_name.get(name) {
                return member.clone();
            }
        }
        flat
    }

    fn insert(&mut self, chat_name: String, identity: ToolIdentity) {
        if identity.namespace.is_some() {
            self.by_member_name
                .entry(identity.name.clone())
                .and_modify(|flat| *flat = None)
                .or_insert_with(|| Some(chat_name.clone()));
        }
        self.by_chat_name.insert(chat_name, identity);
    }
}

/// The name the upstream knows a (maybe namespaced) tool by.
pub fn chat_name(namespace: Option<&str>, name: &str) -> String {
    match namespace {
        Some(namespace) if !namespace.is_empty() => format!(
            "{}__{}",
            namespace.trim_end_matches('_'),
            name.trim_start_matches('_')
        ),
        _ => name.to_owned(),
    }
}

/// The request's tools, translated.
#[derive(Debug, Default)]
pub struct ChatTools {
    /// Chat `tools`, in the request's order.
    pub tools: Vec<Value>,
    pub map: ToolMap,
}

/// Translates the request's `tools` (absent or null: none).
pub fn translate_tools(
    tools: Option<&Value>,
    notes: &mut Vec<String>,
) -> Result<ChatTools, AgentError> {
    let mut translated = ChatTools::default();
    let list = match tools {
        None | Some(Value::Null) => return Ok(translated),
        Some(Value::Array(list)) => list,
        Some(_) => {
            return Err(AgentError::invalid(
                "tools",
                "tools: expected a list of tools",
            ))
        }
    };
    for (index, tool) in list.iter().enumerate() {
        let path = format!("tools[{index}]");
        add_tool(&mut translated, tool, None, &path, notes)?;
    }
    Ok(translated)
}

fn add_tool(
    translated: &mut ChatTools,
    tool: &Value,
    namespace: Option<&str>,
    path: &str,
    notes: &mut Vec<String>,
) -> Result<(), AgentError> {
    let tool = tool
        .as_object()
        .ok_or_else(|| AgentError::invalid(path, format!("{path}: expected a tool object")))?;
    let kind = match tool.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        _ => {
            return Err(AgentError::invalid(
                path,
                format!("{path}.type: expected the tool's type, a string"),
            ))
        }
    };
    match kind {
        "function" => {
            let (name, function) = function_tool(tool, path)?;
            let identity = ToolIdentity {
                kind: CallKind::Function,
                name: name.to_owned(),
                namespace: namespace.map(str::to_owned),
            };
            push(translated, identity, function, path, notes);
        }
        "custom" => {
            let name = tool_name(tool, path)?;
            let identity = ToolIdentity {
                kind: CallKind::Custom,
                name: name.to_owned(),
                namespace: namespace.map(str::to_owned),
            };
            push(translated, identity, custom_tool(tool), path, notes);
        }
        "namespace" if namespace.is_none() => {
            let name = tool_name(tool, path)?;
            let members = match tool.get("tools") {
                Some(Value::Array(members)) => members,
                _ => {
                    return Err(AgentError::invalid(
                        path,
                        format!("{path}.tools: expected the namespace's list of tools"),
                    ))
                }
            };
            let first = translated.tools.len();
            for (index, member) in members.iter().enumerate() {
                let member_path = format!("{path}.tools[{index}]");
                add_tool(translated, member, Some(name), &member_path, notes)?;
            }
            if let (Some(Value::String(about)), Some(first_member)) =
                (tool.get("description"), translated.tools.get_mut(first))
            {
                describe_namespace(first_member, about);
            }
        }
        hosted => notes.push(format!(
            "{path}: the `{hosted}` tool cannot be offered to a chat completions upstream; dropped"
        )),
    }
    Ok(())
}

/// Puts a namespace's description (an MCP server's instructions, say)
/// before its first member's own: flattened, the namespace has no place
/// of its own to say it.
fn describe_namespace(tool: &mut Value, about: &str) {
    if about.is_empty() {
        return;
    }
    let description = match tool["function"]["description"].as_str() {
        Some(own) if !own.is_empty() => format!("{about}\n\n{own}"),
        _ => about.to_owned(),
    };
    tool["function"]["description"] = description.into();
}

/// A function tool's name and its chat `function` (the Responses shape,
/// or the chat shape some clients send by mistake).
fn function_tool<'a>(
    tool: &'a Map<String, Value>,
    path: &str,
) -> Result<(&'a str, Map<String, Value>), AgentError> {
    let source = match tool.get("function") {
        Some(Value::Object(nested)) if !tool.contains_key("name") => nested,
        _ => tool,
    };
    let name = tool_name(source, path)?;
    let mut function = Map::new();
    function.insert("name".to_owned(), name.into());
    match source.get("description") {
        None | Some(Value::Null) => {}
        Some(Value::String(text)) => {
            function.insert("description".to_owned(), text.as_str().into());
        }
        Some(_) => {
            return Err(AgentError::invalid(
                path,
                format!("{path}.description: expected a string"),
            ))
        }
    }
    let parameters = match source.get("parameters") {
        None | Some(Value::Null) => json!({"type": "object", "properties": {}}),
        Some(schema @ Value::Object(_)) => schema.clone(),
        Some(_) => {
            return Err(AgentError::invalid(
                path,
                format!("{path}.parameters: expected a JSON schema object"),
            ))
        }
    };
    function.insert("parameters".to_owned(), parameters);
    Ok((name, function))
}

/// A custom tool as a function of one string, `input`.
fn custom_tool(tool: &Map<String, Value>) -> Map<String, Value> {
    let mut input = String::from("The tool's input: free-form text, passed to the tool as it is.");
    if let Some(format) = tool.get("format").and_then(Value::as_object) {
        let syntax = format.get("syntax").and_then(Value::as_str).unwrap_or("");
        if let Some(grammar) = format.get("definition").and_then(Value::as_str) {
            if grammar.len() < MAX_GRAMMAR_BYTES {
                input.push_str(&format!(" It must match this {syntax} grammar:\n{grammar}"));
            }
        }
    }
    let mut function = Map::new();
    function.insert(
        "name".to_owned(),
        tool.get("name").cloned().unwrap_or_default(),
    );
    if let Some(Value::String(text)) = tool.get("description") {
        function.insert("description".to_owned(), text.as_str().into());
    }
    function.insert(
        "parameters".to_owned(),
        json!({"type": "object",
            "properties": {"input": {"type": "string", "description": input}},
            "required": ["input"]}),
    );
    function
}

fn tool_name<'a>(tool: &'a Map<String, Value>, path: &str) -> Result<&'a str, AgentError> {
    match tool.get("name") {
        Some(Value::String(name)) if !name.is_empty() => Ok(name),
        _ => Err(AgentError::invalid(
            path,
            format!("{path}.name: expected the tool's name, a string"),
        )),
    }
}

fn push(
    translated: &mut ChatTools,
    identity: ToolIdentity,
    mut function: Map<String, Value>,
    path: &str,
    notes: &mut Vec<String>,
) {
    let name = chat_name(identity.namespace.as_deref(), &identity.name);
    if translated.map.contains(&name) {
        notes.push(format!("{path}: a second tool named `{name}`; dropped"));
        return;
    }
    function.insert("name".to_owned(), name.as_str().into());
    translated
        .tools
        .push(json!({"type": "function", "function": function}));
    translated.map.insert(name, identity);
}

/// The chat `tool_choice` for the request's (`None`: leave it out).
pub fn translate_tool_choice(
    choice: Option<&Value>,
    tools: &ToolMap,
    notes: &mut Vec<String>,
) -> Result<Option<Value>, AgentError> {
    let invalid = || {
        AgentError::invalid(
            "tool_choice",
            "tool_choice: expected \"auto\", \"none\", \"required\" or a tool choice object",
        )
    };
    let choice = match choice {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(mode)) => {
            return match mode.as_str() {
                "auto" | "none" | "required" => Ok(Some(mode.as_str().into())),
                _ => Err(invalid()),
            }
        }
        Some(Value::Object(choice)) => choice,
        Some(_) => return Err(invalid()),
    };
    match choice.get("type").and_then(Value::as_str) {
        Some("function" | "custom") => {
            let name = choice.get("name").and_then(Value::as_str).ok_or_else(|| {
                AgentError::invalid("tool_choice", "tool_choice.name: expected the tool's name")
            })?;
            let namespace = choice.get("namespace").and_then(Value::as_str);
            Ok(Some(
                json!({"type": "function", "function": {"name": tools.chat_name_of(namespace, name)}}),
            ))
        }
        Some("allowed_tools") => {
            let mode = match choice.get("mode").and_then(Value::as_str) {
                Some("required") => "required",
                _ => "auto",
            };
            notes.push(format!(
                "tool_choice: allowed_tools cannot narrow a chat completions upstream's tools; \"{mode}\" over all tools"
            ));
            Ok(Some(mode.into()))
        }
        Some(hosted) => {
            notes.push(format!(
                "tool_choice: the `{hosted}` tool is not offered upstream; \"auto\" instead"
            ));
            Ok(Some("auto".into()))
        }
        None => Err(invalid()),
    }
}

#[cfg(test)]
mod tests;
