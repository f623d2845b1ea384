//! The answer's output items (`message`, `reasoning`, `function_call`,
//! `custom_tool_call`) and their JSON, as added (empty, in progress) and
//! as done.

use serde_json::{json, Map, Value};

use super::tools::{CallKind, ToolIdentity};

/// An item's (or the response's) state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    InProgress,
    Completed,
    Incomplete,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::InProgress => "in_progress",
            Status::Completed => "completed",
            Status::Incomplete => "incomplete",
        }
    }
}

/// A call in the answer.
#[derive(Clone, Debug)]
pub struct Call {
    /// Its place among the answer's calls (0 for the first).
    pub ordinal: usize,
    /// `None` until its first delta with an id (or until it is announced,
    /// when one is minted).
    pub call_id: Option<String>,
    /// The upstream's name for the tool; `None` until it comes.
    pub chat_name: Option<String>,
    /// The tool as the client knows it, once the name is known.
    pub tool: Option<ToolIdentity>,
    /// Its `output_item.added` was written.
    pub announced: bool,
}

/// What an item is.
#[derive(Clone, Debug)]
pub enum ItemKind {
    Message,
    Reasoning,
    Call(Call),
}

/// One output item: its text (the message's text, the reasoning, or the
/// call's arguments) grows until it is closed.
#[derive(Clone, Debug)]
pub struct OutputItem {
    pub id: String,
    pub kind: ItemKind,
    pub text: String,
    pub status: Status,
}

impl OutputItem {
    /// The item as its `response.output_item.added` shows it: no text yet.
    pub fn added(&self) -> Value {
        self.json("", Status::InProgress)
    }

    /// The item as it is now.
    pub fn current(&self) -> Value {
        self.json(&self.text, self.status)
    }

    fn json(&self, text: &str, status: Status) -> Value {
        let status = status.as_str();
        match &self.kind {
            ItemKind::Message => {
                let content = if text.is_empty() && status == "in_progress" {
                    json!([])
                } else {
                    json!([output_text(text)])
                };
                json!({"id": self.id, "type": "message", "role": "assistant",
                    "status": status, "content": content})
            }
            ItemKind::Reasoning => {
                let content = if text.is_empty() && status == "in_progress" {
                    json!([])
                } else {
                    json!([{"type": "reasoning_text", "text": text}])
                };
                json!({"id": self.id, "type": "reasoning", "summary": [],
                    "content": content, "status": status})
            }
            ItemKind::Call(call) => {
                let tool = call.tool.as_ref();
                let mut item = Map::new();
                item.insert("id".to_owned(), self.id.as_str().into());
                let call_id = call.call_id.as_deref().unwrap_or_default();
                item.insert("call_id".to_owned(), call_id.into());
                let name = tool.map_or("", |tool| tool.name.as_str());
                item.insert("name".to_owned(), name.into());
                if let Some(namespace) = tool.and_then(|tool| tool.namespace.as_deref()) {
                    item.insert("namespace".to_owned(), namespace.into());
                }
                if self.is_custom() {
                    item.insert("type".to_owned(), "custom_tool_call".into());
                    let input = if text.is_empty() {
                        String::new()
                    } else {
                        custom_input(text)
                    };
                    item.insert("input".to_owned(), input.into());
                } else {
                    item.insert("type".to_owned(), "function_call".into());
                    item.insert("arguments".to_owned(), text.into());
                }
                item.insert("status".to_owned(), status.into());
                Value::Object(item)
            }
        }
    }

    pub fn call(&self) -> Option<&Call> {
        match &self.kind {
            ItemKind::Call(call) => Some(call),
            _ => None,
        }
    }

    pub fn call_mut(&mut self) -> Option<&mut Call> {
        match &mut self.kind {
            ItemKind::Call(call) => Some(call),
            _ => None,
        }
    }

    /// A call answered as a `custom_tool_call`.
    pub fn is_custom(&self) -> bool {
        self.call()
            .and_then(|call| call.tool.as_ref())
            .is_some_and(|tool| tool.kind == CallKind::Custom)
    }

    /// A custom call's `input`.
    pub fn custom_input(&self) -> String {
        custom_input(&self.text)
    }
}

/// An `output_text` part.
pub fn output_text(text: &str) -> Value {
    json!({"type": "output_text", "text": text, "annotations": [], "logprobs": []})
}

/// A custom tool's input, from the arguments the model wrote for the
/// function it was offered as: the `input` string; else the one string
/// the arguments hold (a model that named the parameter its own way);
/// else the arguments as they are.
pub fn custom_input(arguments: &str) -> String {
    let Ok(Value::Object(fields)) = serde_json::from_str::<Value>(arguments) else {
        return arguments.to_owned();
    };
    if let Some(Value::String(input)) = fields.get("input") {
        return input.clone();
    }
    let mut strings = fields.values().filter_map(Value::as_str);
    match (strings.next(), strings.next()) {
        (Some(only), None) if fields.len() == 1 => only.to_owned(),
        _ => arguments.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_custom_input_is_read_from_the_arguments() {
        assert_eq!(
            custom_input(r#"{"input":"*** Begin Patch\n"}"#),
            "*** Begin Patch\n"
        );
        assert_eq!(custom_input(r#"{"patch":"p"}"#), "p");
        assert_eq!(custom_input(r#"{"a":"p","b":"q"}"#), r#"{"a":"p","b":"q"}"#);
        assert_eq!(custom_input("not json"), "not json");
    }

    #[test]
    fn items_as_added_and_as_done() {
        let mut call = OutputItem {
            id: "fc_1".into(),
            kind: ItemKind::Call(Call {
                ordinal: 0,
                call_id: Some("call_1".into()),
                chat_name: Some("mcp__docs__search".into()),
                tool: Some(ToolIdentity {
                    kind: CallKind::Function,
                    name: "search".into(),
                    namespace: Some("mcp__docs".into()),
                }),
                announced: false,
            }),
            text: r#"{"q":1}"#.into(),
            status: Status::Completed,
        };
        assert_eq!(
            call.added(),
            json!({"id": "fc_1", "type": "function_call", "call_id": "call_1",
                "name": "search", "namespace": "mcp__docs", "arguments": "",
                "status": "in_progress"})
        );
        assert_eq!(call.current()["arguments"], r#"{"q":1}"#);
        call.call_mut().unwrap().tool.as_mut().unwrap().kind = CallKind::Custom;
        call.text = r#"{"input":"x"}"#.into();
        let done = call.current();
        assert_eq!(done["type"], "custom_tool_call");
        assert_eq!(done["input"], "x");
        assert!(done.get("arguments").is_none());
        let message = OutputItem {
            id: "msg_2".into(),
            kind: ItemKind::Message,
            text: "Hi".into(),
            status: Status::Completed,
        };
        assert_eq!(message.added()["content"], json!([]));
        assert_eq!(message.current()["content"][0]["text"], "Hi");
    }
}
