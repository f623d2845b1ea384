//! Anthropic Messages (`POST /v1/messages`): requests translated to chat
//! completions, answers written as Anthropic messages and events.

use serde_json::Value;

use super::{AgentError, Options, Translated};

/// The chat request for a Messages request body, and the writer of its
/// answer.
pub fn translate(body: &Value, options: &Options) -> Result<Translated, AgentError> {
    let _ = (body, options);
    Err(AgentError::invalid("body", "not yet translated"))
}

/// `POST /v1/messages/count_tokens`: `{"input_tokens": N}`, estimated
/// (`agent::estimate`).
pub fn count_tokens(body: &Value) -> Result<Value, AgentError> {
    let _ = body;
    Err(AgentError::invalid("body", "not yet counted"))
}
