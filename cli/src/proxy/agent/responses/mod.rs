//! OpenAI Responses (`POST /v1/responses`): requests translated to chat
//! completions, answers written as Responses objects and events.

use serde_json::Value;

use super::{AgentError, Options, Translated};
use crate::proxy::store::StoredResponse;

/// A Responses request body, read.
#[derive(Debug)]
pub struct ResponsesRequest {
    body: serde_json::Map<String, Value>,
}

impl ResponsesRequest {
    /// Reads a request body (unknown fields are ignored).
    pub fn read(body: &Value) -> Result<ResponsesRequest, AgentError> {
        let body = body
            .as_object()
            .ok_or_else(|| AgentError::invalid("body", "a Responses request is a JSON object"))?;
        Ok(ResponsesRequest { body: body.clone() })
    }

    /// The `previous_response_id` the request continues, if any.
    pub fn previous_response_id(&self) -> Option<&str> {
        self.body
            .get("previous_response_id")
            .and_then(Value::as_str)
    }

    /// Whether the answer is kept for a later `previous_response_id`
    /// (`store`, true unless the client says false).
    pub fn store(&self) -> bool {
        self.body
            .get("store")
            .and_then(Value::as_bool)
            .unwrap_or(true)
    }

    /// The chat request, and the writer of its answer. `history`: the
    /// stored response `previous_response_id` names.
    pub fn translate(
        self,
        history: Option<StoredResponse>,
        options: &Options,
    ) -> Result<Translated, AgentError> {
        let _ = (history, options);
        Err(AgentError::invalid("body", "not yet translated"))
    }
}
