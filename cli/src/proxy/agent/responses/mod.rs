//! OpenAI Responses (`POST /v1/responses`): requests translated to chat
//! completions, answers written as Responses objects and events.
//!
//! - `request`: the conversation (instructions, stored history, input
//!   items) as chat messages;
//! - `tools`: tools and `tool_choice`, and which tool a chat call names;
//! - `params`: sampling, limits, output format; the fields echoed back;
//! - `writer`, `items`, `events`: the answer, as a `response` and its
//!   streaming events.
//!
//! What cannot be translated is dropped with a note (see
//! [`ResponsesRequest::translate_with_notes`]), never an error: clients
//! such as Codex send hosted tools and fields a chat upstream has no use
//! for on every request.

pub mod events;
pub mod items;
pub mod params;
pub mod request;
pub mod tools;
pub mod writer;

use serde_json::{json, Map, Value};

use super::{estimate, AgentError, Options, Translated};
use crate::proxy::store::StoredResponse;
use writer::{ResponsesWriter, WriterSetup};

/// At most this many notes are kept of one request; the rest are counted.
const MAX_NOTES: usize = 20;

/// A Responses request body, read.
#[derive(Debug)]
pub struct ResponsesRequest {
    body: Map<String, Value>,
}

impl ResponsesRequest {
    /// Reads a request body (unknown fields are ignored). The fields the
    /// route needs before translating (`previous_response_id`, `store`,
    /// `stream`) are checked here.
    pub fn read(body: &Value) -> Result<ResponsesRequest, AgentError> {
        let body = body
            .as_object()
            .ok_or_else(|| AgentError::invalid("body", "a Responses request is a JSON object"))?;
        match body.get("previous_response_id") {
            None | Some(Value::Null | Value::String(_)) => {}
            Some(_) => {
                return Err(AgentError::invalid(
                    "previous_response_id",
                    "previous_response_id: expected a string",
                ))
            }
        }
        for field in ["store", "stream"] {
            if !matches!(body.get(field), None | Some(Value::Null | Value::Bool(_))) {
                return Err(AgentError::invalid(
                    field,
                    format!("{field}: expected true or false"),
                ));
            }
        }
        Ok(ResponsesRequest { body: body.clone() })
    }

    /// The `previous_response_id` the request continues, if any.
    pub fn previous_response_id(&self) -> Option<&str> {
        self.body
            .get("previous_response_id")
            .and_then(Value::as_str)
    }

    /// Whether the answer is to be kept for a later `previous_response_id`
    /// (`store`, true unless the request says false): the writer's
    /// `stored()` gives it only then.
    pub fn store(&self) -> bool {
        self.flag("store").unwrap_or(true)
    }

    /// Whether the client asked for a stream.
    pub fn stream(&self) -> bool {
        self.flag("stream").unwrap_or(false)
    }

    fn flag(&self, field: &str) -> Option<bool> {
        self.body.get(field).and_then(Value::as_bool)
    }

    /// The chat request, and the writer of its answer. `history`: the
    /// stored response `previous_response_id` names.
    pub fn translate(
        self,
        history: Option<StoredResponse>,
        options: &Options,
    ) -> Result<Translated, AgentError> {
        self.translate_with_notes(history, options)
            .map(|(translated, _)| translated)
    }

    /// As [`translate`](Self::translate), with notes on what was left out
    /// (hosted tools, items and parts a chat upstream cannot take): one
    /// line each, for the route's log.
    pub fn translate_with_notes(
        self,
        history: Option<StoredResponse>,
        options: &Options,
    ) -> Result<(Translated, Vec<String>), AgentError> {
        let store = self.store();
        let stream = self.stream();
        let mut body = self.body;
        refuse_server_state(&body)?;
        let mut notes = Vec::new();
        let model = match body.get("model") {
            None | Some(Value::Null) => options.upstream_model.clone(),
            Some(Value::String(model)) => model.clone(),
            Some(_) => return Err(AgentError::invalid("model", "model: expected a string")),
        };
        let input = match body.remove("input") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::String(text)) => {
                vec![json!({"type": "message", "role": "user", "content": text})]
            }
            Some(Value::Array(items)) => items,
            Some(_) => {
                return Err(AgentError::invalid(
                    "input",
                    "input: expected a string or a list of items",
                ))
            }
        };
        let instructions = match body.get("instructions") {
            None | Some(Value::Null) => None,
            Some(Value::String(text)) => Some(text.as_str()),
            Some(_) => {
                return Err(AgentError::invalid(
                    "instructions",
                    "instructions: expected a string",
                ))
            }
        };
        let chat_tools = tools::translate_tools(body.get("tools"), &mut notes)?;
        let tool_choice =
            tools::translate_tool_choice(body.get("tool_choice"), &chat_tools.map, &mut notes)?;
        let parallel = match body.get("parallel_tool_calls") {
            None | Some(Value::Null) => None,
            Some(Value::Bool(parallel)) => Some(*parallel),
            Some(_) => {
                return Err(AgentError::invalid(
                    "parallel_tool_calls",
                    "parallel_tool_calls: expected true or false",
                ))
            }
        };
        let history = history.map_or_else(Vec::new, |stored| stored.items);
        let mut ids = options.ids.clone();
        let conversation = request::translate_conversation(
            instructions,
            &history,
            &input,
            &chat_tools.map,
            &mut ids,
            &mut notes,
        )?;
        if conversation.messages.is_empty() {
            return Err(AgentError::invalid(
                "input",
                "input: the request holds no message to answer",
            ));
        }

        let mut chat = Map::new();
        chat.insert("model".to_owned(), options.upstream_model.as_str().into());
        chat.insert("messages".to_owned(), conversation.messages.into());
        if chat_tools.tools.is_empty() {
            if tool_choice.is_some() {
                notes.push("tool_choice: no tool is offered upstream; left out".to_owned());
            }
        } else {
            chat.insert("tools".to_owned(), chat_tools.tools.into());
            if let Some(choice) = tool_choice {
                chat.insert("tool_choice".to_owned(), choice);
            }
            if let Some(parallel) = parallel {
                chat.insert("parallel_tool_calls".to_owned(), parallel.into());
            }
        }
        params::translate_settings(&body, options, &mut chat)?;
        chat.insert("stream".to_owned(), stream.into());
        if stream {
            chat.insert(
                "stream_options".to_owned(),
                json!({"include_usage": true, "continuous_usage_stats": true}),
            );
        }

        let stored_items = store.then(|| {
            let mut items = history;
            items.extend(input);
            items
        });
        let writer = ResponsesWriter::new(WriterSetup {
            model,
            ids,
            max_answer_bytes: options.max_answer_bytes,
            tools: chat_tools.map,
            request_call_ids: conversation.call_ids,
            echoed: params::echoed(&body),
            stored_items,
            input_tokens_estimate: estimate::input_tokens(&chat),
        });
        if notes.len() > MAX_NOTES {
            let more = notes.len() - MAX_NOTES;
            notes.truncate(MAX_NOTES);
            notes.push(format!("… and {more} more notes"));
        }
        let translated = Translated {
            chat,
            stream,
            writer: Box::new(writer),
        };
        Ok((translated, notes))
    }
}

/// Requests that need state only OpenAI's servers hold (a background run
/// to poll, a stored conversation or prompt template) cannot be answered
/// as asked; answering without it would be answering another question.
fn refuse_server_state(body: &Map<String, Value>) -> Result<(), AgentError> {
    if body.get("background").and_then(Value::as_bool) == Some(true) {
        return Err(AgentError::invalid(
            "background",
            "background: background responses are not supported by this proxy",
        ));
    }
    for (field, what) in [
        ("conversation", "conversations are not kept by this proxy; send the items as input or use previous_response_id"),
        ("prompt", "prompt templates are not kept by this proxy; send the instructions and input"),
    ] {
        if body.get(field).is_some_and(|value| !value.is_null()) {
            return Err(AgentError::invalid(field, format!("{field}: {what}")));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
