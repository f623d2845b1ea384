//! The request's OpenAI `tools` array.

use std::fmt;

use serde_json::Value;

/// The tools a request declared: their names, and their parameter schemas
/// for typed arguments.
///
/// # Example
/// ```
/// use toolcall_stream::Tools;
/// let tools = Tools::from_json(r#"[{"type": "function", "function":
///     {"name": "get_weather", "parameters": {"type": "object"}}}]"#).unwrap();
/// assert!(tools.contains("get_weather"));
/// assert!(!tools.contains("rm_rf"));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tools {
    tools: Vec<Tool>,
}

#[derive(Clone, Debug, PartialEq)]
struct Tool {
    name: String,
    parameters: Value,
}

/// Why a `tools` document was rejected.
#[derive(Debug)]
pub struct ToolsError {
    message: String,
}

impl fmt::Display for ToolsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ToolsError {}

impl Tools {
    /// Reads an OpenAI `tools` array: `[{"type": "function", "function":
    /// {"name": .., "parameters": ..}}, ..]`. The flat form `{"name": ..,
    /// "parameters": ..}` is accepted too.
    ///
    /// # Errors
    /// When the text is not JSON, not an array, or an entry has no name.
    pub fn from_json(text: &str) -> Result<Tools, ToolsError> {
        let value: Value = serde_json::from_str(text).map_err(|e| ToolsError {
            message: format!("tools are not valid JSON: {e}"),
        })?;
        Tools::from_value(&value)
    }

    /// Reads an OpenAI `tools` array already parsed as JSON.
    ///
    /// # Errors
    /// When the value is not an array or an entry has no name.
    pub fn from_value(value: &Value) -> Result<Tools, ToolsError> {
        let entries = value.as_array().ok_or_else(|| ToolsError {
            message: "tools must be a JSON array of OpenAI tool definitions".into(),
        })?;
        let mut tools = Vec::with_capacity(entries.len());
        for (i, entry) in entries.iter().enumerate() {
            let function = entry.get("function").unwrap_or(entry);
            let name = function
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| ToolsError {
                    message: format!("tool {i} has no `function.name` string"),
                })?;
            let parameters = function.get("parameters").cloned().unwrap_or(Value::Null);
            tools.push(Tool {
                name: name.to_owned(),
                parameters,
            });
        }
        Ok(Tools { tools })
    }

    /// Whether a tool of this name was declared.
    pub fn contains(&self, name: &str) -> bool {
        self.tools.iter().any(|t| t.name == name)
    }

    /// The declared tool names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.iter().map(|t| t.name.as_str())
    }

    /// A tool's `parameters` JSON schema, if it was declared with one.
    pub fn parameters(&self, name: &str) -> Option<&Value> {
        self.tools
            .iter()
            .find(|t| t.name == name)
            .map(|t| &t.parameters)
    }

    /// Whether tool `name` declares a parameter `parameter`: `None` when
    /// the tool is unknown or its schema lists no `properties`.
    ///
    /// ```
    /// use toolcall_stream::Tools;
    /// let tools = Tools::from_json(r#"[{"name": "get_weather", "parameters":
    ///     {"type": "object", "properties": {"city": {"type": "string"}}}}]"#).unwrap();
    /// assert_eq!(tools.has_parameter("get_weather", "city"), Some(true));
    /// assert_eq!(tools.has_parameter("get_weather", "days"), Some(false));
    /// assert_eq!(tools.has_parameter("other", "city"), None);
    /// ```
    pub fn has_parameter(&self, name: &str, parameter: &str) -> Option<bool> {
        let properties = self.parameters(name)?.get("properties")?.as_object()?;
        Some(properties.contains_key(parameter))
    }

    /// How many tools were declared.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether no tool was declared.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }
}
