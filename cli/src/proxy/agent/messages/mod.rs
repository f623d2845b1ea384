//! Anthropic Messages (`POST /v1/messages`): requests translated to chat
//! completions, answers written as Anthropic messages and events.
//!
//! `request` reads the body's fields, `content` the conversation's
//! blocks, `tools` the tools and tool choice; `writer` writes the answer.
//! What a translation leaves out is said in [`Notes`], for the log.

mod content;
mod notes;
mod request;
mod tools;
mod writer;

#[cfg(test)]
mod tests;

use serde_json::{json, Value};

use super::{estimate, AgentError, IdMaker, Options, Translated};

pub use notes::Notes;
pub use writer::MessagesWriter;

/// The chat request for a Messages request body, and the writer of its
/// answer.
// The route calls `translate_noting`, to log the notes; this plainer form
// is the one the tests (and the pipeline's tests) call.
#[cfg_attr(not(test), allow(dead_code))]
pub fn translate(body: &Value, options: &Options) -> Result<Translated, AgentError> {
    translate_noting(body, options).map(|(translated, _)| translated)
}

/// As [`translate`], and what the translation left out (server tools,
/// blocks chat cannot carry): log its [`summary`](Notes::summary).
pub fn translate_noting(
    body: &Value,
    options: &Options,
) -> Result<(Translated, Notes), AgentError> {
    let mut notes = Notes::new();
    let mut ids = options.ids.clone();
    let request = request::chat_request(
        body,
        &options.upstream_model,
        options.max_tokens_cap,
        &mut ids,
        &mut notes,
    )?;
    let estimate = estimate::input_tokens(&request.chat);
    let writer = MessagesWriter::new(writer::Setup {
        stream: request.stream,
        model: request
            .client_model
            .unwrap_or_else(|| options.upstream_model.clone()),
        thinking: request.thinking,
        stop_sequences: request.stop_sequences,
        tool_ids: request.tool_ids,
        estimate,
        max_answer_bytes: options.max_answer_bytes,
        ids,
    });
    let translated = Translated {
        chat: request.chat,
        stream: request.stream,
        writer: Box::new(writer),
    };
    Ok((translated, notes))
}

/// `POST /v1/messages/count_tokens`: `{"input_tokens": N}`, estimated
/// (`agent::estimate`) over the chat request the body translates to.
pub fn count_tokens(body: &Value) -> Result<Value, AgentError> {
    let mut ids = IdMaker::Sequential(0);
    let request = request::chat_request(body, "", None, &mut ids, &mut Notes::new())?;
    Ok(json!({"input_tokens": estimate::input_tokens(&request.chat)}))
}
