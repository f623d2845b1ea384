//! The request's OpenAI `tools` array.

use std::fmt;

use serde_json::Value;

mod order;

use crate::schema::{Candidates, NameMap, ParamTable, ShapeId, Shapes, TypeSet};

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
    /// Each name's first declaration in `tools`: the one vLLM's lookups
    /// (`find_tool_properties`) find too.
    by_name: NameMap<usize>,
}

#[derive(Clone, Debug, PartialEq)]
struct Tool {
    name: String,
    parameters: Value,
    schema: ToolSchema,
    /// Its parameters' names in the order the tools' text declares them,
    /// when it was read from text ([`Tools::from_json`]).
    order: Option<Vec<String>>,
}

/// A tool's parameters as the call writer needs them: each declared
/// parameter's types, read once when the tools are.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ToolSchema {
    params: ParamTable,
    required: Vec<String>,
}

impl ToolSchema {
    /// The types parameter `name` accepts in any call; `None` when it is
    /// not declared.
    pub(crate) fn param(&self, name: &str) -> Option<TypeSet> {
        self.params.types(name, Candidates::ALL)
    }

    /// The types parameter `name` accepts in a call that may be in the
    /// root `anyOf`/`oneOf` branches `candidates`.
    pub(crate) fn param_in(&self, name: &str, candidates: Candidates) -> Option<TypeSet> {
        self.params.types(name, candidates)
    }

    /// The shape of parameter `name`'s value (what is typed inside it) in
    /// a call that may be in `candidates`.
    pub(crate) fn shape_in(&self, name: &str, candidates: Candidates) -> Option<ShapeId> {
        self.params.shape(name, candidates)
    }

    /// The shapes of the tool's values, at every depth.
    pub(crate) fn shapes(&self) -> &Shapes {
        self.params.shapes()
    }

    /// The bytes of parameter `name`'s JSON worth keeping to choose a
    /// branch by (0: it chooses none).
    pub(crate) fn probe_room(&self, name: &str) -> usize {
        self.params.probe_room(name)
    }

    /// The branches of `candidates` that `value`, given for `name`, fits.
    pub(crate) fn narrow(&self, name: &str, value: &Value, candidates: Candidates) -> Candidates {
        self.params.narrow(name, value, candidates)
    }

    /// The parameters a call in branches `candidates` must give: the
    /// root's `required`, then those every candidate branch requires.
    pub(crate) fn required_in(&self, candidates: Candidates) -> impl Iterator<Item = &str> {
        let root = self.required.iter().map(String::as_str);
        let branches = self
            .params
            .required_by_branches(candidates)
            .filter(|name| !self.required.iter().any(|r| r == name));
        root.chain(branches)
    }

    /// The parameters the schema lists as `required` at its root.
    #[cfg(test)]
    pub(crate) fn required(&self) -> &[String] {
        &self.required
    }

    /// Whether the schema lists `properties` (possibly none). Without them
    /// any parameter name is acceptable, so none is reported unknown.
    pub(crate) fn declares_properties(&self) -> bool {
        self.params.declares_properties()
    }

    /// Reads a tool's `parameters` (`None` or JSON `null` when absent).
    fn read(
        index: usize,
        name: &str,
        parameters: Option<&Value>,
    ) -> Result<ToolSchema, ToolsError> {
        let wrong = |what: &str, found: &Value| ToolsError {
            message: format!(
                "tool {index} (`{name}`): {what}, found {}",
                json_kind(found)
            ),
        };
        let parameters = match parameters {
            None | Some(Value::Null) => return Ok(ToolSchema::default()),
            Some(Value::Object(parameters)) => parameters,
            Some(other) => {
                return Err(wrong(
                    "`parameters` must be a JSON object (a JSON schema)",
                    other,
                ))
            }
        };
        let mut schema = ToolSchema::default();
        match parameters.get("properties") {
            None | Some(Value::Null | Value::Object(_)) => {
                let root = Value::Object(parameters.clone());
                schema.params = ParamTable::read(&root);
            }
            Some(other) => {
                return Err(wrong(
                    "`parameters.properties` must be a JSON object",
                    other,
                ))
            }
        }
        match parameters.get("required") {
            None | Some(Value::Null) => {}
            Some(Value::Array(required)) => {
                for entry in required {
                    let param = entry.as_str().ok_or_else(|| ToolsError {
                        message: format!(
                            "tool {index} (`{name}`): `parameters.required` must be an array \
                             of strings, but holds {}",
                            json_kind(entry)
                        ),
                    })?;
                    schema.required.push(param.to_owned());
                }
            }
            Some(other) => {
                return Err(wrong(
                    "`parameters.required` must be an array of strings",
                    other,
                ))
            }
        }
        Ok(schema)
    }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
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
    /// "parameters": ..}` is accepted too. A name declared twice keeps its
    /// first declaration, as vLLM's lookups do.
    ///
    /// # Errors
    /// When the text is not JSON, or as [`Tools::from_value`].
    pub fn from_json(text: &str) -> Result<Tools, ToolsError> {
        let value: Value = serde_json::from_str(text).map_err(|e| ToolsError {
            message: format!("tools are not valid JSON: {e}"),
        })?;
        let mut tools = Tools::from_value(&value)?;
        for (tool, order) in tools.tools.iter_mut().zip(order::declared(text)) {
            tool.order = order;
        }
        Ok(tools)
    }

    /// Reads an OpenAI `tools` array already parsed as JSON.
    ///
    /// # Errors
    /// When the value is not an array, an entry has no `function.name`
    /// string, or a tool's `parameters` is not an object, its `properties`
    /// not an object or its `required` not an array of strings. The message
    /// names the tool by index (from 0) and name.
    pub fn from_value(value: &Value) -> Result<Tools, ToolsError> {
        let entries = value.as_array().ok_or_else(|| ToolsError {
            message: format!(
                "tools must be a JSON array of OpenAI tool definitions, found {}",
                json_kind(value)
            ),
        })?;
        let mut tools = Vec::with_capacity(entries.len());
        let mut by_name = NameMap::with_capacity_and_hasher(entries.len(), Default::default());
        for (i, entry) in entries.iter().enumerate() {
            let function = entry.get("function").unwrap_or(entry);
            let name = function
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| ToolsError {
                    message: format!("tool {i} has no `function.name` string"),
                })?;
            let parameters = function.get("parameters");
            let schema = ToolSchema::read(i, name, parameters)?;
            by_name.entry(name.to_owned()).or_insert(i);
            tools.push(Tool {
                name: name.to_owned(),
                parameters: parameters.cloned().unwrap_or(Value::Null),
                schema,
                order: None,
            });
        }
        Ok(Tools { tools, by_name })
    }

    fn tool(&self, name: &str) -> Option<&Tool> {
        self.by_name.get(name).map(|&i| &self.tools[i])
    }

    /// The schema table of tool `tool`, for typing its arguments.
    pub(crate) fn schema(&self, tool: &str) -> Option<&ToolSchema> {
        self.tool(tool).map(|t| &t.schema)
    }

    /// The types parameter `parameter` of tool `tool` accepts, read from its
    /// schema as [`TypeSet::from_schema`] does (`$ref`s resolved in the
    /// tool's `parameters`); `None` when the tool or the parameter is not
    /// declared. Where `parameters` has an `anyOf`/`oneOf` at its root,
    /// this is the union over its branches: what a call's value gets
    /// before the call has given a `const` property that picks its branch.
    ///
    /// ```
    /// use toolcall_stream::{Tools, TypeSet};
    /// let tools = Tools::from_json(r##"[{"type": "function", "function": {"name": "forecast",
    ///     "parameters": {"type": "object", "properties": {
    ///         "city": {"type": "string"},
    ///         "days": {"type": ["integer", "null"]},
    ///         "unit": {"$ref": "#/$defs/Unit"}},
    ///     "$defs": {"Unit": {"enum": ["celsius", "fahrenheit"]}}}}}]"##).unwrap();
    /// assert_eq!(tools.parameter_types("forecast", "city"), Some(TypeSet::STRING));
    /// let days = tools.parameter_types("forecast", "days").unwrap();
    /// assert_eq!(days.to_string(), "integer or null");
    /// assert_eq!(tools.parameter_types("forecast", "unit"), Some(TypeSet::STRING));
    /// assert_eq!(tools.parameter_types("forecast", "hours"), None);
    /// assert_eq!(tools.parameter_types("rm_rf", "path"), None);
    /// ```
    pub fn parameter_types(&self, tool: &str, parameter: &str) -> Option<TypeSet> {
        self.tool(tool)?.schema.param(parameter)
    }

    /// Tool `name`'s parameters in the order declared: as the tools' text
    /// wrote them ([`Tools::from_json`]), else in the order of the parsed
    /// `parameters` object's keys.
    pub(crate) fn parameter_order(&self, name: &str) -> Vec<String> {
        let Some(tool) = self.tool(name) else {
            return Vec::new();
        };
        if let Some(order) = &tool.order {
            return order.clone();
        }
        tool.parameters
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// Whether a tool of this name was declared.
    pub fn contains(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }

    /// The declared tool names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.iter().map(|t| t.name.as_str())
    }

    /// A tool's `parameters` JSON schema, if it was declared with one.
    pub fn parameters(&self, name: &str) -> Option<&Value> {
        self.tool(name).map(|t| &t.parameters)
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
        let params = &self.tool(name)?.schema.params;
        params
            .declares_properties()
            .then(|| params.contains(parameter))
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{Tools, TypeSet};

    #[test]
    fn invalid_tools_name_the_tool_and_the_fault() {
        let cases = [
            (json!({"name": "x"}), "tools must be a JSON array of OpenAI tool definitions, found an object"),
            (json!([{"type": "function"}]), "tool 0 has no `function.name` string"),
            (json!([{"name": "a"}, "b"]), "tool 1 has no `function.name` string"),
            (
                json!([{"name": "a", "parameters": "object"}]),
                "tool 0 (`a`): `parameters` must be a JSON object (a JSON schema), found a string",
            ),
            (
                json!([{"name": "a"}, {"function": {"name": "b", "parameters": {"properties": []}}}]),
                "tool 1 (`b`): `parameters.properties` must be a JSON object, found an array",
            ),
            (
                json!([{"name": "a", "parameters": {"required": "city"}}]),
                "tool 0 (`a`): `parameters.required` must be an array of strings, found a string",
            ),
            (
                json!([{"name": "a", "parameters": {"required": ["city", 3]}}]),
                "tool 0 (`a`): `parameters.required` must be an array of strings, but holds a number",
            ),
        ];
        for (tools, message) in cases {
            let error = Tools::from_value(&tools).expect_err(message);
            assert_eq!(error.to_string(), message);
        }
        let error = Tools::from_json("[{").unwrap_err().to_string();
        assert!(error.starts_with("tools are not valid JSON: "), "{error}");
    }

    #[test]
    fn root_branches_declare_parameters() {
        let tools = Tools::from_value(&json!([{"name": "edit", "parameters": {
            "properties": {"note": {"type": "string"}},
            "anyOf": [
                {"properties": {"action": {"const": "add"}, "x": {"type": "integer"}}},
                {"properties": {"action": {"const": "drop"}, "x": {"type": "boolean"}}}
            ]
        }}]))
        .unwrap();
        // Outside a call, no branch is chosen: the union.
        let x = tools.parameter_types("edit", "x").unwrap();
        assert_eq!(x, TypeSet::INTEGER.union(TypeSet::BOOLEAN));
        assert_eq!(
            tools.parameter_types("edit", "action"),
            Some(TypeSet::STRING)
        );
        for (param, declared) in [("note", true), ("x", true), ("y", false)] {
            assert_eq!(
                tools.has_parameter("edit", param),
                Some(declared),
                "{param}"
            );
        }
    }

    #[test]
    fn the_schema_table() {
        let tools = Tools::from_value(&json!([
            {"type": "function", "function": {"name": "forecast", "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "days": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                    "at": {"$ref": "#/definitions/Point"},
                    "loose": {}
                },
                "required": ["city"],
                "definitions": {"Point": {"type": "object"}}
            }}},
            {"name": "ping"},
            {"name": "free", "parameters": {"type": "object"}},
            {"name": "none", "parameters": {"type": "object", "properties": {}}},
            {"name": "forecast", "parameters": {"properties": {"city": {"type": "integer"}}}}
        ]))
        .unwrap();
        assert_eq!(tools.len(), 5);
        let forecast = tools.schema("forecast").unwrap();
        let cases = [
            ("city", Some(TypeSet::STRING)),
            ("days", Some(TypeSet::INTEGER.union(TypeSet::NULL))),
            ("at", Some(TypeSet::OBJECT)),
            ("loose", Some(TypeSet::STRING)),
            ("hours", None),
        ];
        for (param, types) in cases {
            assert_eq!(forecast.param(param), types, "{param}");
            assert_eq!(tools.parameter_types("forecast", param), types, "{param}");
        }
        assert_eq!(forecast.required(), ["city"]);
        assert!(forecast.declares_properties());
        // The first declaration of a name wins, as in vLLM.
        assert_eq!(tools.has_parameter("forecast", "loose"), Some(true));

        for (tool, declares) in [("ping", false), ("free", false), ("none", true)] {
            let schema = tools.schema(tool).unwrap();
            assert_eq!(schema.declares_properties(), declares, "{tool}");
            assert_eq!(schema.param("city"), None);
            assert!(schema.required().is_empty());
            assert_eq!(tools.has_parameter(tool, "city"), declares.then_some(false));
        }
        assert!(tools.schema("other").is_none());
        assert_eq!(tools.parameter_types("other", "city"), None);
        assert!(tools.contains("ping") && !tools.contains("pong"));
        assert_eq!(
            tools.names().collect::<Vec<_>>(),
            ["forecast", "ping", "free", "none", "forecast"]
        );
        assert_eq!(tools.parameters("ping"), Some(&serde_json::Value::Null));
    }
}
