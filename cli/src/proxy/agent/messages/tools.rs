//! `tools` and `tool_choice` as chat function tools and tool choice.
//!
//! A client tool (`type` absent or `custom`) becomes a function tool with
//! its `input_schema` as `parameters`, the schema's top-level `$schema`
//! removed (Claude Code sends JSON Schema draft URLs; some servers'
//! schema handling — guided decoding, template rendering — rejects or
//! chokes on the key, and it says nothing the model needs). Anthropic's
//! server tools (`web_search_…`, `bash_…`, `text_editor_…`, `computer_…`,
//! …) run on Anthropic's side, so they are skipped with a note. Unknown
//! keys (`cache_control`, `defer_loading`, …) are ignored.

use serde_json::{json, Map, Value};

use super::content::str_field;
use super::notes::Notes;
use crate::proxy::agent::AgentError;

/// The chat function tools of a `tools` list.
pub(super) fn function_tools(value: &Value, notes: &mut Notes) -> Result<Vec<Value>, AgentError> {
    let list = value
        .as_array()
        .ok_or_else(|| AgentError::invalid("tools", "expected a list of tools"))?;
    let mut tools = Vec::with_capacity(list.len());
    for (i, tool) in list.iter().enumerate() {
        let param = format!("tools[{i}]");
        let fields = tool
            .as_object()
            .ok_or_else(|| AgentError::invalid(&param, "a tool is a JSON object"))?;
        let name = str_field(fields, "name", &param)?;
        match str_field(fields, "type", &param)? {
            None | Some("custom") => {}
            Some(kind) => {
                notes.add(format!(
                    "the server tool `{}` ({kind}) was skipped",
                    name.unwrap_or("?")
                ));
                continue;
            }
        }
        let name =
            name.ok_or_else(|| AgentError::invalid(&format!("{param}.name"), "a tool has a name"))?;
        let mut function = Map::new();
        function.insert("name".into(), name.into());
        if let Some(description) = str_field(fields, "description", &param)? {
            function.insert("description".into(), description.into());
        }
        function.insert("parameters".into(), parameters(fields, &param)?);
        tools.push(json!({"type": "function", "function": function}));
    }
    Ok(tools)
}

/// The tool's `input_schema` without `$schema`; absent: an object schema
/// with no properties (what chat servers expect of a tool that takes no
/// input).
fn parameters(fields: &Map<String, Value>, param: &str) -> Result<Value, AgentError> {
    match fields.get("input_schema") {
        None | Some(Value::Null) => Ok(json!({"type": "object", "properties": {}})),
        Some(Value::Object(schema)) => {
            let mut schema = schema.clone();
            schema.remove("$schema");
            Ok(Value::Object(schema))
        }
        Some(_) => Err(AgentError::invalid(
            &format!("{param}.input_schema"),
            "expected a JSON Schema object",
        )),
    }
}

/// What `tool_choice` asks of the chat request: its `tool_choice`, and
/// `parallel_tool_calls: false` when parallel use is disabled.
pub(super) struct ToolChoice {
    pub choice: Value,
    pub parallel: Option<bool>,
}

/// `auto` → `auto`, `any` → `required`, `tool` → that function, `none` →
/// `none`; `disable_parallel_tool_use: true` → `parallel_tool_calls:
/// false`.
pub(super) fn tool_choice(value: &Value) -> Result<ToolChoice, AgentError> {
    let param = "tool_choice";
    let fields = value
        .as_object()
        .ok_or_else(|| AgentError::invalid(param, "expected an object with a type"))?;
    let kind = str_field(fields, "type", param)?
        .ok_or_else(|| AgentError::invalid("tool_choice.type", "missing type"))?;
    let choice = match kind {
        "auto" => json!("auto"),
        "any" => json!("required"),
        "none" => json!("none"),
        "tool" => {
            let name = str_field(fields, "name", param)?.ok_or_else(|| {
                AgentError::invalid("tool_choice.name", "a `tool` choice names the tool")
            })?;
            json!({"type": "function", "function": {"name": name}})
        }
        other => {
            return Err(AgentError::invalid(
                "tool_choice.type",
                format!("unknown tool choice `{other}`: expected auto, any, tool or none"),
            ))
        }
    };
    let parallel = match fields.get("disable_parallel_tool_use") {
        None | Some(Value::Null) | Some(Value::Bool(false)) => None,
        Some(Value::Bool(true)) => Some(false),
        Some(_) => {
            return Err(AgentError::invalid(
                "tool_choice.disable_parallel_tool_use",
                "expected true or false",
            ))
        }
    };
    Ok(ToolChoice { choice, parallel })
}
