//! The upstream's answer as an Anthropic message: streamed as Messages
//! events, or whole as the `message` object.
//!
//! Events (`event: <type>` and `data: <json>`): `message_start` at the
//! first chunk; then per block `content_block_start`, its deltas, and
//! exactly one `content_block_stop`; blocks never interleave (a delta of
//! another kind, or another call, closes the open block first, and each
//! thinking segment is its own block); then `message_delta` (stop reason,
//! cumulative usage) and `message_stop`.
//!
//! Choices made here:
//! - Reasoning becomes `thinking` blocks only when the request enabled
//!   thinking (a client that did not ask may not expect them); otherwise
//!   it is dropped, though counted in the output estimate. A thinking
//!   block's signature is [`SIGNATURE`], a fixed marker: nothing verifies
//!   it, and a client that sends it back has it ignored.
//! - A call's id is the chat call's id when it is usable (letters,
//!   digits, `_`, `-`; not already in the conversation or the answer),
//!   else a minted `toolu_…`.
//! - A call whose name comes after its first delta waits for it (its
//!   arguments kept, within `max_answer_bytes`); one that never gets a
//!   name is dropped. Fragments of a call whose block was already closed
//!   (the upstream interleaved two calls) are dropped: a block cannot
//!   reopen.
//! - One chunk does not say in which order its parts came (the
//!   `Rewriter` merges a chunk's text around a call): the open call's
//!   last arguments go first, then reasoning, text, and the calls the
//!   chunk starts. Text before and after a call in ONE chunk thus comes
//!   before the call.
//! - Usage: `input_tokens` is the upstream's `prompt_tokens` less its
//!   cached tokens, which go to `cache_read_input_tokens` (Anthropic's
//!   input is the uncached part: Claude Code adds both to size its
//!   context); without usage, the estimate made at translation and the
//!   output's bytes / 4.
//! - Streamed, nothing of the text is kept (O(1) a block), so
//!   [`answer`](AnswerWriter::answer) then has no content; whole, the
//!   text and arguments are kept up to `max_answer_bytes`.
//! - `fail` closes nothing: it writes `message_start` if none was sent,
//!   then the `error` event, and nothing after it (the SDKs raise the
//!   error as they read it). `answer()` after a failure is the error body.

use std::collections::HashSet;

use serde_json::{json, Value};
use toolcall_stream::openai::{ChatCompletionChunk, FinishReason, ToolCallDelta, Usage};

use crate::proxy::agent::sse::{write_object_event, SseFramer};
use crate::proxy::agent::{AgentError, AnswerWriter, Api, Failure, FailureKind, IdMaker};

/// The signature of every `thinking` block written.
pub const SIGNATURE: &str = "toolcall-proxy-unsigned";

/// The longest upstream call id kept as the tool use's id.
const MAX_ID_LEN: usize = 128;

/// What the writer knows of the request.
#[derive(Debug)]
pub(super) struct Setup {
    pub stream: bool,
    /// The model the client named, written back in the answer.
    pub model: String,
    pub thinking: bool,
    pub stop_sequences: Vec<String>,
    /// Tool-use ids already in the conversation.
    pub tool_ids: HashSet<String>,
    /// The request's estimated input tokens.
    pub estimate: u64,
    pub max_answer_bytes: usize,
    pub ids: IdMaker,
}

/// Writes one answer as an Anthropic message (see the module's doc).
pub struct MessagesWriter {
    setup: Setup,
    id: String,
    /// `message_start` was written.
    started: bool,
    /// The Anthropic index of the next block.
    next_index: usize,
    open: Option<Open>,
    pending: Option<PendingCall>,
    /// The highest chat call index a block was started (or kept pending)
    /// for: a lower one is a closed call.
    last_call: Option<usize>,
    /// The lowest and highest chat call index of the tool blocks written.
    tool_calls: Option<(usize, usize)>,
    usage: Option<SeenUsage>,
    output_bytes: u64,
    finish: Option<FinishReason>,
    /// The stop sequence the upstream said it matched.
    matched_stop: Option<String>,
    /// Whole (not streamed): the blocks, and their bytes.
    kept: Vec<Kept>,
    kept_bytes: usize,
    ending: Option<Ending>,
    sse: SseFramer,
}

/// The block being written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Open {
    Text,
    Thinking,
    Tool { call: usize, arguments_sent: bool },
}

/// A call waiting for its name.
struct PendingCall {
    call: usize,
    id: Option<String>,
    arguments: String,
}

/// A block of a whole answer.
enum Kept {
    Text(String),
    Thinking(String),
    Tool {
        call: usize,
        id: String,
        name: String,
        arguments: String,
    },
}

#[derive(Clone, Copy)]
struct SeenUsage {
    prompt: u64,
    completion: u64,
    cached: u64,
}

enum Ending {
    Stopped {
        reason: &'static str,
        sequence: Option<String>,
        /// Calls from this chat index on were cut off (not written whole).
        cut_from: Option<usize>,
    },
    Failed(AgentError),
}

impl MessagesWriter {
    pub(super) fn new(mut setup: Setup) -> MessagesWriter {
        let id = setup.ids.make("msg_");
        MessagesWriter {
            setup,
            id,
            started: false,
            next_index: 0,
            open: None,
            pending: None,
            last_call: None,
            tool_calls: None,
            usage: None,
            output_bytes: 0,
            finish: None,
            matched_stop: None,
            kept: Vec::new(),
            kept_bytes: 0,
            ending: None,
            sse: SseFramer::default(),
        }
    }

    fn keeps(&self) -> bool {
        !self.setup.stream
    }

    /// `event: <type>` and `data: <json>`, for an event built as a value.
    fn event(&mut self, out: &mut String, data: Value) {
        let kind = data
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("message");
        self.sse.write(out, kind, &data);
    }

    /// A `content_block_delta` of the open block.
    fn delta(&self, out: &mut String, delta: Delta<'_>) {
        let (kind, key, value) = match delta {
            Delta::Text(text) => ("text_delta", "text", text),
            Delta::Thinking(thinking) => ("thinking_delta", "thinking", thinking),
            Delta::InputJson(json) => ("input_json_delta", "partial_json", json),
            Delta::Signature(signature) => ("signature_delta", "signature", signature),
        };
        let event = "content_block_delta";
        write_object_event(out, event, |data| {
            data.str("type", event)
                .uint("index", self.next_index as u64)
                .object("delta", |delta| {
                    delta.str("type", kind).str(key, value);
                });
        });
    }

    /// `message_start`, once.
    fn start(&mut self, out: &mut String) {
        if self.started {
            return;
        }
        self.started = true;
        let mut usage = self.usage_json();
        usage["output_tokens"] = json!(1);
        let message = json!({
            "id": self.id, "type": "message", "role": "assistant",
            "model": self.setup.model, "content": [],
            "stop_reason": null, "stop_sequence": null, "usage": usage,
        });
        self.event(out, json!({"type": "message_start", "message": message}));
    }

    /// Makes room for `bytes` more of a whole answer.
    fn keep(&mut self, bytes: usize) -> Result<(), Failure> {
        if !self.keeps() {
            return Ok(());
        }
        self.kept_bytes += bytes;
        if self.kept_bytes > self.setup.max_answer_bytes {
            return Err(too_large(self.setup.max_answer_bytes));
        }
        Ok(())
    }

    fn text(&mut self, text: &str, out: &mut String) -> Result<(), Failure> {
        self.output_bytes += text.len() as u64;
        self.keep(text.len())?;
        if self.open != Some(Open::Text) {
            self.close(out);
            self.open_block(Open::Text, json!({"type": "text", "text": ""}), out);
            if self.keeps() {
                self.kept.push(Kept::Text(String::new()));
            }
        }
        if let Some(Kept::Text(kept)) = self.kept.last_mut() {
            kept.push_str(text);
        }
        self.delta(out, Delta::Text(text));
        Ok(())
    }

    fn reasoning(&mut self, text: &str, out: &mut String) -> Result<(), Failure> {
        self.output_bytes += text.len() as u64;
        if !self.setup.thinking {
            return Ok(());
        }
        self.keep(text.len())?;
        if self.open != Some(Open::Thinking) {
            self.close(out);
            let block = json!({"type": "thinking", "thinking": "", "signature": ""});
            self.open_block(Open::Thinking, block, out);
            if self.keeps() {
                self.kept.push(Kept::Thinking(String::new()));
            }
        }
        if let Some(Kept::Thinking(kept)) = self.kept.last_mut() {
            kept.push_str(text);
        }
        self.delta(out, Delta::Thinking(text));
        Ok(())
    }

    fn call(&mut self, delta: &ToolCallDelta, out: &mut String) -> Result<(), Failure> {
        let function = delta.function.as_ref();
        let name = function
            .and_then(|f| f.name.as_deref())
            .filter(|name| !name.is_empty());
        let arguments = function
            .and_then(|f| f.arguments.as_deref())
            .unwrap_or_default();
        self.output_bytes += (arguments.len() + name.map_or(0, str::len)) as u64;

        if let Some(Open::Tool { call, .. }) = self.open {
            if call == delta.index {
                return self.arguments(arguments, out);
            }
        }
        if let Some(pending) = self.pending.as_mut().filter(|p| p.call == delta.index) {
            if pending.arguments.len() + arguments.len() > self.setup.max_answer_bytes {
                return Err(too_large(self.setup.max_answer_bytes));
            }
            pending.arguments.push_str(arguments);
            if pending.id.is_none() {
                pending.id = delta.id.clone();
            }
            if let Some(name) = name {
                if let Some(pending) = self.pending.take() {
                    self.start_tool(pending.call, pending.id.as_deref(), name, out)?;
                    self.arguments(&pending.arguments, out)?;
                }
            }
            return Ok(());
        }
        if self.last_call.is_some_and(|last| delta.index <= last) {
            return Ok(());
        }
        self.close(out);
        self.last_call = Some(delta.index);
        match name {
            Some(name) => {
                self.start_tool(delta.index, delta.id.as_deref(), name, out)?;
                self.arguments(arguments, out)
            }
            None => {
                if arguments.len() > self.setup.max_answer_bytes {
                    return Err(too_large(self.setup.max_answer_bytes));
                }
                self.pending = Some(PendingCall {
                    call: delta.index,
                    id: delta.id.clone(),
                    arguments: arguments.to_owned(),
                });
                Ok(())
            }
        }
    }

    fn start_tool(
        &mut self,
        call: usize,
        id: Option<&str>,
        name: &str,
        out: &mut String,
    ) -> Result<(), Failure> {
        self.keep(name.len())?;
        let id = self.tool_id(id);
        let block = json!({"type": "tool_use", "id": id, "name": name, "input": {}});
        self.open_block(
            Open::Tool {
                call,
                arguments_sent: false,
            },
            block,
            out,
        );
        self.tool_calls = Some(match self.tool_calls {
            None => (call, call),
            Some((first, last)) => (first.min(call), last.max(call)),
        });
        if self.keeps() {
            self.kept.push(Kept::Tool {
                call,
                id,
                name: name.to_owned(),
                arguments: String::new(),
            });
        }
        Ok(())
    }

    /// More of the open call's arguments.
    fn arguments(&mut self, arguments: &str, out: &mut String) -> Result<(), Failure> {
        if arguments.is_empty() {
            return Ok(());
        }
        self.keep(arguments.len())?;
        if let Some(Kept::Tool {
            arguments: kept, ..
        }) = self.kept.last_mut()
        {
            kept.push_str(arguments);
        }
        if let Some(Open::Tool { arguments_sent, .. }) = &mut self.open {
            *arguments_sent = true;
        }
        self.delta(out, Delta::InputJson(arguments));
        Ok(())
    }

    /// The upstream's id when usable, else a minted one; never one the
    /// conversation or this answer holds already.
    fn tool_id(&mut self, given: Option<&str>) -> String {
        let usable = |id: &str| {
            !id.is_empty()
                && id.len() <= MAX_ID_LEN
                && id
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        };
        let mut id = match given {
            Some(id) if usable(id) => id.to_owned(),
            _ => self.setup.ids.make("toolu_"),
        };
        while self.setup.tool_ids.contains(&id) {
            id = self.setup.ids.make("toolu_");
        }
        self.setup.tool_ids.insert(id.clone());
        id
    }

    fn open_block(&mut self, open: Open, block: Value, out: &mut String) {
        let index = self.next_index;
        self.event(
            out,
            json!({"type": "content_block_start", "index": index, "content_block": block}),
        );
        self.open = Some(open);
    }

    /// Closes the open block, if any (and drops a call still waiting for
    /// its name: something else began).
    fn close(&mut self, out: &mut String) {
        self.pending = None;
        let Some(open) = self.open.take() else {
            return;
        };
        match open {
            Open::Thinking => self.delta(out, Delta::Signature(SIGNATURE)),
            // A call without arguments still says its input is `{}`.
            Open::Tool {
                arguments_sent: false,
                ..
            } => self.delta(out, Delta::InputJson("{}")),
            _ => {}
        }
        let index = self.next_index;
        self.event(out, json!({"type": "content_block_stop", "index": index}));
        self.next_index += 1;
    }

    fn read_usage(&mut self, usage: &Usage) {
        let cached = usage
            .extra
            .get("prompt_tokens_details")
            .and_then(|details| details.get("cached_tokens"))
            .and_then(Value::as_u64)
            .unwrap_or(0);
        self.usage = Some(SeenUsage {
            prompt: usage.prompt_tokens,
            completion: usage.completion_tokens,
            cached: cached.min(usage.prompt_tokens),
        });
    }

    /// The usage so far: the upstream's when it said it, else estimates.
    fn usage_json(&self) -> Value {
        let (input, cached) = match self.usage {
            Some(usage) if usage.prompt > 0 => (usage.prompt - usage.cached, usage.cached),
            _ => (self.setup.estimate, 0),
        };
        let output = match self.usage {
            Some(usage) if usage.completion > 0 => usage.completion,
            _ => crate::proxy::agent::estimate::output_tokens(self.output_bytes),
        };
        json!({"input_tokens": input, "output_tokens": output,
            "cache_creation_input_tokens": 0, "cache_read_input_tokens": cached})
    }

    /// The stop reason of an answer that ended, and from which chat call
    /// index on calls were cut off.
    fn stop(&self, complete_calls: usize) -> Ending {
        let length = self.finish == Some(FinishReason::Length);
        // A call the parser did not see end (cut by the token limit, or
        // left unfinished by the model) is never one to run: no `tool_use`.
        let cut = self
            .tool_calls
            .is_some_and(|(_, last)| last >= complete_calls);
        let (reason, sequence) = if length && (cut || self.tool_calls.is_none()) {
            ("max_tokens", None)
        } else if self.tool_calls.is_some() && !cut {
            ("tool_use", None)
        } else if cut {
            ("end_turn", None)
        } else {
            match &self.finish {
                Some(FinishReason::Other(other)) if other == "content_filter" => ("refusal", None),
                Some(FinishReason::Stop) if self.matched_stop.is_some() => {
                    ("stop_sequence", self.matched_stop.clone())
                }
                _ => ("end_turn", None),
            }
        };
        Ending::Stopped {
            reason,
            sequence,
            cut_from: cut.then_some(complete_calls),
        }
    }

    fn content(&self, cut_from: Option<usize>) -> Vec<Value> {
        self.kept
            .iter()
            .filter_map(|block| match block {
                Kept::Text(text) => Some(json!({"type": "text", "text": text})),
                Kept::Thinking(thinking) => {
                    Some(json!({"type": "thinking", "thinking": thinking, "signature": SIGNATURE}))
                }
                Kept::Tool {
                    call,
                    id,
                    name,
                    arguments,
                } => {
                    if cut_from.is_some_and(|from| *call >= from) {
                        return None;
                    }
                    Some(json!({"type": "tool_use", "id": id, "name": name,
                        "input": input(arguments)}))
                }
            })
            .collect()
    }
}

impl AnswerWriter for MessagesWriter {
    fn chunk(&mut self, chunk: &ChatCompletionChunk, out: &mut String) -> Result<(), Failure> {
        if self.ending.is_some() {
            return Ok(());
        }
        if let Some(usage) = &chunk.usage {
            self.read_usage(usage);
        }
        self.start(out);
        for choice in chunk.choices.iter().filter(|choice| choice.index == 0) {
            let delta = &choice.delta;
            // One chunk does not say in which order its parts came. The
            // open call's last arguments come first (text after them
            // would close its block and lose them), then reasoning,
            // text, and the calls it starts.
            let calls = delta.tool_calls.as_deref().unwrap_or_default();
            let open_call = match self.open {
                Some(Open::Tool { call, .. }) => Some(call),
                _ => None,
            };
            let continues = |call: &&ToolCallDelta| Some(call.index) == open_call;
            for call in calls.iter().filter(continues) {
                self.call(call, out)?;
            }
            // vLLM ≥ 0.10 names it `reasoning`.
            let reasoning = delta
                .reasoning_content
                .as_deref()
                .or_else(|| delta.extra.get("reasoning").and_then(Value::as_str));
            if let Some(text) = reasoning.filter(|text| !text.is_empty()) {
                self.reasoning(text, out)?;
            }
            if let Some(text) = delta.content.as_deref().filter(|text| !text.is_empty()) {
                self.text(text, out)?;
            }
            for call in calls.iter().filter(|call| !continues(call)) {
                self.call(call, out)?;
            }
            if let Some(finish) = &choice.finish_reason {
                self.finish = Some(finish.clone());
                // vLLM says which stop string matched in the choice's
                // `stop_reason` (a number for a stop token).
                self.matched_stop = choice
                    .extra
                    .get("stop_reason")
                    .and_then(Value::as_str)
                    .filter(|stop| self.setup.stop_sequences.iter().any(|s| s == stop))
                    .map(str::to_owned);
            }
        }
        Ok(())
    }

    fn end(&mut self, complete_calls: usize, out: &mut String) {
        if self.ending.is_some() {
            return;
        }
        self.start(out);
        self.close(out);
        let ending = self.stop(complete_calls);
        if let Ending::Stopped {
            reason, sequence, ..
        } = &ending
        {
            let usage = self.usage_json();
            self.event(
                out,
                json!({"type": "message_delta",
                    "delta": {"stop_reason": reason, "stop_sequence": sequence},
                    "usage": usage}),
            );
            self.event(out, json!({"type": "message_stop"}));
        }
        self.ending = Some(ending);
    }

    fn fail(&mut self, failure: &Failure, _complete_calls: usize, out: &mut String) {
        if self.ending.is_some() {
            return;
        }
        self.start(out);
        let error = AgentError::new(failure.kind.error_kind(), failure.message.clone());
        self.event(out, error.body(Api::Messages));
        self.ending = Some(Ending::Failed(error));
    }

    fn keepalive(&mut self, out: &mut String) {
        if self.ending.is_none() {
            self.event(out, json!({"type": "ping"}));
        }
    }

    fn answer(&mut self) -> Value {
        let (reason, sequence, cut_from) = match &self.ending {
            Some(Ending::Failed(error)) => return error.body(Api::Messages),
            Some(Ending::Stopped {
                reason,
                sequence,
                cut_from,
            }) => (json!(reason), json!(sequence), *cut_from),
            None => (Value::Null, Value::Null, None),
        };
        json!({
            "id": self.id, "type": "message", "role": "assistant",
            "model": self.setup.model, "content": self.content(cut_from),
            "stop_reason": reason, "stop_sequence": sequence, "usage": self.usage_json(),
        })
    }
}

/// A call's input: its arguments when they are a JSON object; else (an
/// upstream's own call with arguments that are not one) `{}`, since
/// clients read `input` as an object.
fn input(arguments: &str) -> Value {
    match serde_json::from_str::<Value>(arguments) {
        Ok(object @ Value::Object(_)) => object,
        _ => json!({}),
    }
}

fn too_large(max: usize) -> Failure {
    Failure::new(
        FailureKind::TooLarge,
        format!("the answer is larger than the {max} bytes the proxy keeps of one answer"),
    )
}

/// What a `content_block_delta` adds to its block.
enum Delta<'a> {
    Text(&'a str),
    Thinking(&'a str),
    InputJson(&'a str),
    Signature(&'a str),
}
