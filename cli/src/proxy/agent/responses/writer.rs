//! The upstream's answer as a Responses `response` and its streaming
//! events.
//!
//! Items never interleave: a delta of another kind (text after a call, a
//! second call, reasoning after text) closes the open item first, so each
//! item's events run `output_item.added` → deltas → `.done` events →
//! `output_item.done`, and the next item starts after them.
//!
//! Calls. Codex runs the calls it reads from `response.output_item.done`
//! (it reads no argument deltas), so a call's done events say "complete"
//! only of a call known complete:
//! - a call closed because another item started is complete: the parser
//!   moved past it, so it ended (marking it later would interleave);
//! - the call still open at `end`/`fail` is complete when it is among the
//!   `complete_calls` first; otherwise it was cut off, and it gets no done
//!   events at all (a client that ran what `output_item.done` gave would
//!   run half a call): the terminal response lists it with
//!   `status: "incomplete"`.
//!
//! A call is announced (`output_item.added`) once its name is known,
//! since the name decides whether it is a `function_call` or a
//! `custom_tool_call`. A custom call's `input` is written once, when the
//! call is complete: what streams is the JSON of the function it was
//! offered as, not the input itself.
//!
//! Deltas for a call that was already closed (an upstream that makes its
//! own `tool_calls` and goes back to an earlier one) are kept in the final
//! object only: that call's done events were written.

use std::collections::{HashMap, HashSet};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{json, Map, Value};
use toolcall_stream::openai::{ChatCompletionChunk, FinishReason, ToolCallDelta, Usage};

use super::super::{AnswerWriter, Failure, FailureKind, IdMaker};
use super::events::{ArgumentsDelta, EventFramer, TextDelta, KEEPALIVE};
use super::items::{output_text, Call, ItemKind, OutputItem, Status};
use super::tools::ToolMap;
use crate::proxy::store::StoredResponse;

/// What a writer needs from the request.
#[derive(Debug)]
pub struct WriterSetup {
    /// The model the client asked for (the response says it).
    pub model: String,
    pub ids: IdMaker,
    pub max_answer_bytes: usize,
    pub tools: ToolMap,
    /// The call ids the conversation holds: the answer's calls get others.
    pub request_call_ids: HashSet<String>,
    /// The request fields the response echoes.
    pub echoed: Map<String, Value>,
    /// The conversation's items (history and input), when the response is
    /// to be stored.
    pub stored_items: Option<Vec<Value>>,
    /// The input tokens to report when the upstream reports none.
    pub input_tokens_estimate: u64,
}

/// How the answer ended.
#[derive(Clone, Debug)]
enum Outcome {
    Completed,
    Incomplete(&'static str),
    Failed { code: &'static str, message: String },
}

/// Which kind of text a delta adds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum TextKind {
    Message,
    Reasoning,
}

/// Writes one answer as a Responses `response` (see the module's doc).
#[derive(Debug)]
pub struct ResponsesWriter {
    id: String,
    created_at: u64,
    model: String,
    ids: IdMaker,
    max_answer_bytes: usize,
    tools: ToolMap,
    taken_call_ids: HashSet<String>,
    echoed: Map<String, Value>,
    stored_items: Option<Vec<Value>>,
    input_tokens_estimate: u64,
    framer: EventFramer,
    started: bool,
    outcome: Option<Outcome>,
    items: Vec<OutputItem>,
    /// The position in `items` of the item still taking deltas.
    open: Option<usize>,
    /// A chat call's `index` → its position in `items`.
    calls: HashMap<usize, usize>,
    call_count: usize,
    /// Text, reasoning and arguments kept, in bytes.
    kept_bytes: usize,
    reasoning_bytes: usize,
    finish: Option<FinishReason>,
    usage: Option<Usage>,
}

impl ResponsesWriter {
    pub fn new(mut setup: WriterSetup) -> ResponsesWriter {
        let id = setup.ids.make("resp_");
        let created_at = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_secs());
        ResponsesWriter {
            id,
            created_at,
            model: setup.model,
            ids: setup.ids,
            max_answer_bytes: setup.max_answer_bytes,
            tools: setup.tools,
            taken_call_ids: setup.request_call_ids,
            echoed: setup.echoed,
            stored_items: setup.stored_items,
            input_tokens_estimate: setup.input_tokens_estimate,
            framer: EventFramer::default(),
            started: false,
            outcome: None,
            items: Vec::new(),
            open: None,
            calls: HashMap::new(),
            call_count: 0,
            kept_bytes: 0,
            reasoning_bytes: 0,
            finish: None,
            usage: None,
        }
    }

    /// `response.created` and `response.in_progress`, once.
    fn start(&mut self, out: &mut String) {
        if self.started {
            return;
        }
        self.started = true;
        let response = self.response();
        self.framer
            .write(out, "response.created", json!({ "response": response }));
        self.framer
            .write(out, "response.in_progress", json!({ "response": response }));
    }

    /// Counts `bytes` more of the answer against what is kept of it.
    fn keep(&mut self, bytes: usize) -> Result<(), Failure> {
        if self.kept_bytes + bytes > self.max_answer_bytes {
            return Err(Failure::new(
                FailureKind::TooLarge,
                format!(
                    "the answer is larger than the {} bytes the proxy keeps of one answer",
                    self.max_answer_bytes
                ),
            ));
        }
        self.kept_bytes += bytes;
        Ok(())
    }

    fn text(&mut self, kind: TextKind, text: &str, out: &mut String) -> Result<(), Failure> {
        if text.is_empty() {
            return Ok(());
        }
        self.keep(text.len())?;
        if kind == TextKind::Reasoning {
            self.reasoning_bytes += text.len();
        }
        let open_kind = self.open.map(|position| &self.items[position].kind);
        let position = match (open_kind, kind) {
            (Some(ItemKind::Message), TextKind::Message)
            | (Some(ItemKind::Reasoning), TextKind::Reasoning) => self.open.unwrap_or_default(),
            _ => {
                self.close_open(Status::Completed, out);
                self.open_text_item(kind, out)
            }
        };
        let item = &mut self.items[position];
        item.text.push_str(text);
        let delta = TextDelta {
            item_id: &item.id,
            output_index: position,
            delta: text,
            output_text: kind == TextKind::Message,
        };
        self.framer.write_text_delta(out, &delta);
        Ok(())
    }

    fn open_text_item(&mut self, kind: TextKind, out: &mut String) -> usize {
        let (prefix, item_kind, part) = match kind {
            TextKind::Message => ("msg_", ItemKind::Message, output_text("")),
            TextKind::Reasoning => (
                "rs_",
                ItemKind::Reasoning,
                json!({"type": "reasoning_text", "text": ""}),
            ),
        };
        let item = OutputItem {
            id: self.ids.make(prefix),
            kind: item_kind,
            text: String::new(),
            status: Status::InProgress,
        };
        let position = self.items.len();
        let (id, added) = (item.id.clone(), item.added());
        self.items.push(item);
        self.open = Some(position);
        self.framer.write(
            out,
            "response.output_item.added",
            json!({"output_index": position, "item": added}),
        );
        self.framer.write(
            out,
            "response.content_part.added",
            json!({"item_id": id, "output_index": position, "content_index": 0, "part": part}),
        );
        position
    }

    fn call_delta(&mut self, delta: &ToolCallDelta, out: &mut String) -> Result<(), Failure> {
        let function = delta.function.as_ref();
        let arguments = function
            .and_then(|f| f.arguments.as_deref())
            .unwrap_or_default();
        let position = match self.calls.get(&delta.index) {
            Some(&position) if self.open == Some(position) => position,
            Some(&position) => {
                self.keep(arguments.len())?;
                self.items[position].text.push_str(arguments);
                return Ok(());
            }
            None => {
                self.close_open(Status::Completed, out);
                let position = self.items.len();
                self.items.push(OutputItem {
                    id: String::new(),
                    kind: ItemKind::Call(Call {
                        ordinal: self.call_count,
                        call_id: None,
                        chat_name: None,
                        tool: None,
                        announced: false,
                    }),
                    text: String::new(),
                    status: Status::InProgress,
                });
                self.call_count += 1;
                self.calls.insert(delta.index, position);
                self.open = Some(position);
                position
            }
        };
        self.keep(arguments.len())?;
        let id = delta.id.as_deref().filter(|id| !id.is_empty());
        let name = function
            .and_then(|f| f.name.as_deref())
            .filter(|name| !name.is_empty());
        let Some(call) = self.items[position].call() else {
            return Ok(());
        };
        let (has_call_id, was_named, announced) = (
            call.call_id.is_some(),
            call.chat_name.is_some(),
            call.announced,
        );
        if !has_call_id && id.is_some() {
            let unique = self.claim_call_id(id);
            if let Some(call) = self.items[position].call_mut() {
                call.call_id = Some(unique);
            }
        }
        if !was_named {
            if let Some(name) = name {
                let tool = self.tools.identify(name);
                if let Some(call) = self.items[position].call_mut() {
                    call.chat_name = Some(name.to_owned());
                    call.tool = Some(tool);
                }
            }
        }
        self.items[position].text.push_str(arguments);
        let named = self.items[position]
            .call()
            .is_some_and(|call| call.chat_name.is_some());
        if !announced && named {
            self.announce(position, out);
        } else if announced && !arguments.is_empty() && !self.items[position].is_custom() {
            let delta = ArgumentsDelta {
                item_id: &self.items[position].id,
                output_index: position,
                delta: arguments,
            };
            self.framer.write_arguments_delta(out, &delta);
        }
        Ok(())
    }

    /// The chat `index` of the call still taking deltas, if one is.
    fn open_call_index(&self) -> Option<usize> {
        let open = self.open?;
        self.calls
            .iter()
            .find(|(_, position)| **position == open)
            .map(|(index, _)| *index)
    }

    /// A call's unique id: `wanted` when no other call has it.
    fn claim_call_id(&mut self, wanted: Option<&str>) -> String {
        let id = match wanted {
            Some(id) if !self.taken_call_ids.contains(id) => id.to_owned(),
            _ => loop {
                let id = self.ids.make("call_");
                if !self.taken_call_ids.contains(&id) {
                    break id;
                }
            },
        };
        self.taken_call_ids.insert(id.clone());
        id
    }

    /// Gives a call its ids (when it has none yet).
    fn name_call(&mut self, position: usize) {
        let custom = self.items[position].is_custom();
        if self.items[position].id.is_empty() {
            self.items[position].id = self.ids.make(if custom { "ctc_" } else { "fc_" });
        }
        let has_call_id = self.items[position]
            .call()
            .is_some_and(|call| call.call_id.is_some());
        if !has_call_id {
            let call_id = self.claim_call_id(None);
            if let Some(call) = self.items[position].call_mut() {
                call.call_id = Some(call_id);
            }
        }
    }

    /// `output_item.added` for a call, and the arguments it has so far.
    fn announce(&mut self, position: usize, out: &mut String) {
        self.name_call(position);
        if let Some(call) = self.items[position].call_mut() {
            call.announced = true;
        }
        let item = &self.items[position];
        self.framer.write(
            out,
            "response.output_item.added",
            json!({"output_index": position, "item": item.added()}),
        );
        if !item.is_custom() && !item.text.is_empty() {
            let delta = ArgumentsDelta {
                item_id: &item.id,
                output_index: position,
                delta: &item.text,
            };
            self.framer.write_arguments_delta(out, &delta);
        }
    }

    fn close_open(&mut self, status: Status, out: &mut String) {
        if let Some(position) = self.open.take() {
            self.close(position, status, out);
        }
    }

    /// Writes an item's done events (none for a call cut off).
    fn close(&mut self, position: usize, status: Status, out: &mut String) {
        self.items[position].status = status;
        let item = &self.items[position];
        let (id, text) = (&item.id, &item.text);
        match &item.kind {
            ItemKind::Message => {
                self.framer.write(
                    out,
                    "response.output_text.done",
                    json!({"item_id": id, "output_index": position, "content_index": 0,
                        "text": text, "logprobs": []}),
                );
                self.framer.write(
                    out,
                    "response.content_part.done",
                    json!({"item_id": id, "output_index": position, "content_index": 0,
                        "part": output_text(text)}),
                );
            }
            ItemKind::Reasoning => {
                self.framer.write(
                    out,
                    "response.reasoning_text.done",
                    json!({"item_id": id, "output_index": position, "content_index": 0,
                        "text": text}),
                );
                self.framer.write(
                    out,
                    "response.content_part.done",
                    json!({"item_id": id, "output_index": position, "content_index": 0,
                        "part": {"type": "reasoning_text", "text": text}}),
                );
            }
            ItemKind::Call(call) => {
                let announced = call.announced;
                if status == Status::Incomplete {
                    self.name_call(position);
                    return;
                }
                if !announced {
                    self.announce(position, out);
                }
                self.call_done_events(position, out);
            }
        }
        let done = self.items[position].current();
        self.framer.write(
            out,
            "response.output_item.done",
            json!({"output_index": position, "item": done}),
        );
    }

    fn call_done_events(&mut self, position: usize, out: &mut String) {
        let item = &self.items[position];
        let id = item.id.clone();
        if item.is_custom() {
            let input = item.custom_input();
            if !input.is_empty() {
                self.framer.write(
                    out,
                    "response.custom_tool_call_input.delta",
                    json!({"item_id": id, "output_index": position, "delta": input}),
                );
            }
            self.framer.write(
                out,
                "response.custom_tool_call_input.done",
                json!({"item_id": id, "output_index": position, "input": input}),
            );
        } else {
            let name = item
                .call()
                .and_then(|call| call.tool.as_ref())
                .map_or(String::new(), |tool| tool.name.clone());
            let arguments = item.text.clone();
            self.framer.write(
                out,
                "response.function_call_arguments.done",
                json!({"item_id": id, "output_index": position, "name": name,
                    "arguments": arguments}),
            );
        }
    }

    /// The status the open item closes with at the end: a call by whether
    /// the parser saw it end, text by whether the answer was cut.
    fn closing_status(&self, complete_calls: usize, cut: bool) -> Status {
        let open = self.open.map(|position| &self.items[position]);
        match open.and_then(OutputItem::call) {
            Some(call) if call.ordinal < complete_calls => Status::Completed,
            Some(_) => Status::Incomplete,
            None if cut => Status::Incomplete,
            None => Status::Completed,
        }
    }

    fn terminal(&mut self, outcome: Outcome, out: &mut String) {
        self.outcome = Some(outcome);
        let event = match self.outcome {
            Some(Outcome::Incomplete(_)) => "response.incomplete",
            Some(Outcome::Failed { .. }) => "response.failed",
            _ => "response.completed",
        };
        let response = self.response();
        self.framer
            .write(out, event, json!({ "response": response }));
    }

    /// The response object as it stands.
    fn response(&self) -> Value {
        let mut response = self.echoed.clone();
        let (status, incomplete, error) = match &self.outcome {
            None => ("in_progress", Value::Null, Value::Null),
            Some(Outcome::Completed) => ("completed", Value::Null, Value::Null),
            Some(Outcome::Incomplete(reason)) => {
                ("incomplete", json!({ "reason": reason }), Value::Null)
            }
            Some(Outcome::Failed { code, message }) => (
                "failed",
                Value::Null,
                json!({"code": code, "message": message}),
            ),
        };
        let output: Vec<Value> = self.items.iter().map(OutputItem::current).collect();
        let usage = if self.outcome.is_some() {
            self.usage_json()
        } else {
            Value::Null
        };
        for (key, value) in [
            ("id", Value::from(self.id.as_str())),
            ("object", "response".into()),
            ("created_at", self.created_at.into()),
            ("model", self.model.as_str().into()),
            ("status", status.into()),
            ("output", output.into()),
            ("usage", usage),
            ("incomplete_details", incomplete),
            ("error", error),
        ] {
            response.insert(key.to_owned(), value);
        }
        Value::Object(response)
    }

    /// Usage, from the upstream's (the last it sent: it is cumulative) or
    /// estimated where it says nothing.
    fn usage_json(&self) -> Value {
        let estimate = |bytes: usize| crate::proxy::agent::estimate::output_tokens(bytes as u64);
        let detail = |key: &str, field: &str| {
            self.usage
                .as_ref()
                .and_then(|usage| usage.extra.get(key))
                .and_then(|details| details.get(field))
                .and_then(Value::as_u64)
        };
        let (input, output) = match &self.usage {
            Some(usage) => (usage.prompt_tokens, usage.completion_tokens),
            None => (self.input_tokens_estimate, estimate(self.kept_bytes)),
        };
        let cached = detail("prompt_tokens_details", "cached_tokens").unwrap_or(0);
        let reasoning = detail("completion_tokens_details", "reasoning_tokens")
            .unwrap_or_else(|| estimate(self.reasoning_bytes).min(output));
        json!({
            "input_tokens": input,
            "input_tokens_details": {"cached_tokens": cached},
            "output_tokens": output,
            "output_tokens_details": {"reasoning_tokens": reasoning},
            "total_tokens": input.saturating_add(output),
        })
    }
}

impl AnswerWriter for ResponsesWriter {
    fn chunk(&mut self, chunk: &ChatCompletionChunk, out: &mut String) -> Result<(), Failure> {
        if self.outcome.is_some() {
            return Ok(());
        }
        self.start(out);
        if let Some(usage) = &chunk.usage {
            self.usage = Some(usage.clone());
        }
        let Some(choice) = chunk.choices.iter().find(|choice| choice.index == 0) else {
            return Ok(());
        };
        let delta = &choice.delta;
        // One chunk says its text and its calls apart, not in which order
        // they came. The end of the open call comes first (the parser
        // sends a call's last arguments with the text after it); then the
        // text (text before a call comes with the call's first delta);
        // then the other calls.
        let calls = delta.tool_calls.as_deref().unwrap_or_default();
        let open_call = self.open_call_index();
        let continues = |call: &&ToolCallDelta| Some(call.index) == open_call;
        for call in calls.iter().filter(continues) {
            self.call_delta(call, out)?;
        }
        // vLLM names the field `reasoning` since 0.10; older servers and
        // the library say `reasoning_content`.
        let reasoning = delta
            .reasoning_content
            .as_deref()
            .or_else(|| delta.extra.get("reasoning").and_then(Value::as_str));
        if let Some(text) = reasoning {
            self.text(TextKind::Reasoning, text, out)?;
        }
        if let Some(text) = delta.content.as_deref() {
            self.text(TextKind::Message, text, out)?;
        }
        for call in calls.iter().filter(|call| !continues(call)) {
            self.call_delta(call, out)?;
        }
        if let Some(finish) = &choice.finish_reason {
            self.finish = Some(finish.clone());
        }
        Ok(())
    }

    fn end(&mut self, complete_calls: usize, out: &mut String) {
        if self.outcome.is_some() {
            return;
        }
        self.start(out);
        let outcome = match &self.finish {
            Some(FinishReason::Length) => Outcome::Incomplete("max_output_tokens"),
            Some(FinishReason::Other(reason)) if reason == "content_filter" => {
                Outcome::Incomplete("content_filter")
            }
            _ => Outcome::Completed,
        };
        let cut = matches!(outcome, Outcome::Incomplete(_));
        let status = self.closing_status(complete_calls, cut);
        self.close_open(status, out);
        self.terminal(outcome, out);
    }

    fn fail(&mut self, failure: &Failure, complete_calls: usize, out: &mut String) {
        if self.outcome.is_some() {
            return;
        }
        self.start(out);
        let status = self.closing_status(complete_calls, true);
        self.close_open(status, out);
        let outcome = Outcome::Failed {
            code: failure.kind.error_kind().openai_code(),
            message: failure.message.clone(),
        };
        self.terminal(outcome, out);
    }

    fn keepalive(&mut self, out: &mut String) {
        out.push_str(KEEPALIVE);
    }

    fn answer(&mut self) -> Value {
        self.response()
    }

    /// The conversation's items and the answer's (its cut calls left out:
    /// no output can follow them), once, after an answer that did not
    /// fail.
    fn stored(&mut self) -> Option<(String, StoredResponse)> {
        if !matches!(
            self.outcome,
            Some(Outcome::Completed | Outcome::Incomplete(_))
        ) {
            return None;
        }
        let mut items = self.stored_items.take()?;
        items.extend(
            self.items
                .iter()
                .filter(|item| item.call().is_none() || item.status == Status::Completed)
                .map(OutputItem::current),
        );
        Some((self.id.clone(), StoredResponse { items }))
    }
}

#[cfg(test)]
mod tests;
