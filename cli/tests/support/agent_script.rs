//! The replay upstream's scripted agent model (`model: "agent/…"`), for the
//! end-to-end tests of agents through the proxy: a model without a server
//! tool parser, writing its calls as raw text in a format, that runs one
//! shell command and then reports what it printed.
//!
//! | `model` | response |
//! |---|---|
//! | `agent/<format>` | the next turn as raw text in `<format>` (`hermes`, `qwen3_coder`, `glm47`), streamed in chunks of 1–7 bytes or whole |
//! | `agent/<format>/cut` | the same turn up to half of its call, then the connection is cut (no `finish_reason`, no `[DONE]`) |
//!
//! The turn: when a `tool` message follows the last assistant message (the
//! result of its call), a sentence quoting the result's line that holds the
//! marker, or else its first line; otherwise a sentence and a call of the
//! request's shell-like tool running [`command`], whose output
//! [`expected_output`] the final answer then holds. `finish_reason` is
//! `stop` either way: the model writes text, the proxy makes the call.
//! `usage` comes in a last chunk when `stream_options.include_usage`, in
//! every chunk when `stream_options.continuous_usage_stats`.

use serde_json::Map;

use super::*;

/// The shell-like tools agents offer, by preference (Claude Code's, the
/// Codex ones, the SDK tests').
const SHELL_TOOLS: [&str; 6] = [
    "Bash",
    "shell",
    "exec_command",
    "shell_command",
    "local_shell",
    "run_shell",
];

/// A call format the script writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Hermes,
    Qwen3Coder,
    Glm47,
}

impl Format {
    pub fn parse(name: &str) -> Option<Format> {
        match name {
            "hermes" => Some(Format::Hermes),
            "qwen3_coder" => Some(Format::Qwen3Coder),
            "glm47" => Some(Format::Glm47),
            _ => None,
        }
    }
}

/// The command the scripted model runs for `format`: its output differs
/// from its text, so an answer holding [`expected_output`] proves that a
/// shell ran it (and not that the arguments were echoed back).
pub fn command(format: &str) -> String {
    format!("echo toolcall-e2e-{format}-$((6*7))")
}

/// What [`command`] prints.
pub fn expected_output(format: &str) -> String {
    format!("toolcall-e2e-{format}-42")
}

/// What the model says next.
#[derive(Clone, Debug, PartialEq)]
pub enum Turn {
    /// A call of `tool` with these arguments.
    Call { tool: String, arguments: Value },
    /// Plain text, no call.
    Answer(String),
}

/// The next turn for a chat completions request.
pub fn next_turn(request: &Value, format: &str) -> Turn {
    let messages = request["messages"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    if let Some(result) = latest_tool_result(messages) {
        return Turn::Answer(format!(
            "The command printed: {}",
            quoted_line(&content_text(result))
        ));
    }
    let tools = request["tools"].as_array().map_or(&[][..], Vec::as_slice);
    match pick_tool(tools) {
        Some(tool) => Turn::Call {
            tool: tool_name(tool).unwrap_or_default().to_owned(),
            arguments: arguments_for(tool_schema(tool), &command(format)),
        },
        None => Turn::Answer("There is no tool to run a command with.".to_owned()),
    }
}

/// The first `tool` message after the last assistant message: the result
/// of the model's last call (a user message after it, which a translator
/// may add for text beside the result, does not hide it).
fn latest_tool_result(messages: &[Value]) -> Option<&Value> {
    let start = messages
        .iter()
        .rposition(|message| message["role"] == "assistant")?;
    messages[start..]
        .iter()
        .find(|message| message["role"] == "tool")
}

/// A message's text: a string, or the `text` of its content parts.
pub fn content_text(message: &Value) -> String {
    match &message["content"] {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|part| part["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The line of a tool's output worth quoting: the one with the marker
/// (Codex wraps the output in a report), else the first non-empty one.
pub fn quoted_line(output: &str) -> String {
    let mut lines = output.lines().map(str::trim);
    let line = lines
        .clone()
        .find(|line| line.contains("toolcall-e2e-"))
        .or_else(|| lines.find(|line| !line.is_empty()));
    line.unwrap_or("(nothing)").to_owned()
}

fn tool_name(tool: &Value) -> Option<&str> {
    tool["function"]["name"]
        .as_str()
        .or_else(|| tool["name"].as_str())
}

fn tool_schema(tool: &Value) -> &Value {
    let nested = &tool["function"]["parameters"];
    if nested.is_object() {
        nested
    } else {
        &tool["parameters"]
    }
}

/// The request's shell-like tool, else its first named tool.
pub fn pick_tool(tools: &[Value]) -> Option<&Value> {
    SHELL_TOOLS
        .iter()
        .find_map(|name| tools.iter().find(|tool| tool_name(tool) == Some(name)))
        .or_else(|| tools.iter().find(|tool| tool_name(tool).is_some()))
}

/// Arguments that fit `schema` and run `command`: its `command` or `cmd`
/// property (else its first required string, else `command`) gets the
/// command, as a string or, for an array, as `["bash", "-lc", command]`;
/// every other required property gets a small value of its type.
pub fn arguments_for(schema: &Value, command: &str) -> Value {
    let empty = Map::new();
    let properties = schema["properties"].as_object().unwrap_or(&empty);
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|keys| keys.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let key = ["command", "cmd"]
        .into_iter()
        .find(|key| properties.contains_key(*key))
        .or_else(|| {
            required
                .iter()
                .copied()
                .find(|key| properties[*key]["type"] == "string")
        })
        .unwrap_or("command");
    let mut arguments = Map::new();
    let value = if properties
        .get(key)
        .is_some_and(|property| property["type"] == "array")
    {
        json!(["bash", "-lc", command])
    } else {
        json!(command)
    };
    arguments.insert(key.to_owned(), value);
    for other in required {
        if !arguments.contains_key(other) {
            let filler = match properties.get(other).map(|property| &property["type"]) {
                Some(Value::String(kind)) => match kind.as_str() {
                    "integer" | "number" => json!(1),
                    "boolean" => json!(false),
                    "array" => json!([]),
                    "object" => json!({}),
                    _ => json!("e2e"),
                },
                _ => json!("e2e"),
            };
            arguments.insert(other.to_owned(), filler);
        }
    }
    Value::Object(arguments)
}

/// The model's raw text for a turn, and where its call starts (the byte
/// a cut stream stops half way after).
pub fn render(turn: &Turn, format: Format) -> (String, usize) {
    let (tool, arguments) = match turn {
        Turn::Answer(text) => return (text.clone(), text.len()),
        Turn::Call { tool, arguments } => (tool, arguments),
    };
    let mut text = "I will run the command and look at what it prints.\n\n".to_owned();
    let start = text.len();
    let empty = Map::new();
    let pairs = arguments.as_object().unwrap_or(&empty);
    match format {
        Format::Hermes => {
            // The name first, as Hermes-style models write it.
            let name = json!(tool);
            text.push_str(&format!(
                "<tool_call>\n{{\"name\": {name}, \"arguments\": {arguments}}}\n</tool_call>"
            ));
        }
        Format::Qwen3Coder => {
            text.push_str(&format!("<tool_call>\n<function={tool}>\n"));
            for (key, value) in pairs {
                let value = raw_value(value);
                text.push_str(&format!("<parameter={key}>\n{value}\n</parameter>\n"));
            }
            text.push_str("</function>\n</tool_call>");
        }
        Format::Glm47 => {
            text.push_str(&format!("<tool_call>{tool}"));
            for (key, value) in pairs {
                let value = raw_value(value);
                text.push_str(&format!(
                    "<arg_key>{key}</arg_key><arg_value>{value}</arg_value>"
                ));
            }
            text.push_str("</tool_call>");
        }
    }
    (text, start)
}

/// A value as the XML-like formats write it: a string bare, else JSON.
fn raw_value(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// Answers `model: "agent/<rest>"`.
pub fn respond(rest: &[&str], model: &str, request: &Value) -> Response {
    let (format_name, cut) = match rest {
        [format] => (*format, false),
        [format, "cut"] => (*format, true),
        _ => return (StatusCode::NOT_FOUND, "no such agent model").into_response(),
    };
    let Some(format) = Format::parse(format_name) else {
        return (StatusCode::NOT_FOUND, "no such agent format").into_response();
    };
    let (text, call_start) = render(&next_turn(request, format_name), format);
    // Half of the call (a cut answer without a call is cut half way).
    let cut_at = cut.then(|| floor_char_boundary(&text, (call_start + text.len()) / 2));
    let prompt_tokens = prompt_tokens(request);
    if request["stream"] != true {
        let body = whole(model, &text, prompt_tokens);
        if cut_at.is_none() {
            return axum::Json(body).into_response();
        }
        let body = body.to_string();
        let half = floor_char_boundary(&body, body.len() / 2);
        return cut_off(vec![body[..half].to_owned()], false);
    }
    let options = &request["stream_options"];
    let usage = Usage {
        prompt_tokens,
        last: options["include_usage"] == true,
        every_chunk: options["continuous_usage_stats"] == true,
    };
    let sent = cut_at.map_or(text.as_str(), |at| &text[..at]);
    let frames = stream_frames(model, sent, cut_at.is_none(), usage);
    if cut_at.is_some() {
        cut_off(frames, true)
    } else {
        sse(Box::pin(futures_util::stream::iter(
            frames
                .into_iter()
                .map(|frame| Ok::<_, std::io::Error>(Bytes::from(frame))),
        )))
    }
}

fn floor_char_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// A stable stand-in for the prompt's token count: a quarter of its bytes.
fn prompt_tokens(request: &Value) -> u64 {
    (request["messages"].to_string().len() as u64 / 4).max(1)
}

#[derive(Clone, Copy)]
struct Usage {
    prompt_tokens: u64,
    last: bool,
    every_chunk: bool,
}

impl Usage {
    fn value(self, completion_tokens: u64) -> Value {
        json!({
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": self.prompt_tokens + completion_tokens,
        })
    }
}

/// The SSE frames: role, the text in 1–7 byte pieces and, if `finished`,
/// the `stop` chunk, the usage chunk (if asked) and `[DONE]`.
fn stream_frames(model: &str, text: &str, finished: bool, usage: Usage) -> Vec<String> {
    let mut events = vec![chunk(
        model,
        json!({"role": "assistant", "content": ""}),
        None,
    )];
    events.extend(
        tokens(text)
            .into_iter()
            .map(|token| chunk(model, json!({"content": token}), None)),
    );
    if finished {
        events.push(chunk(model, json!({}), Some("stop")));
    }
    let completion_tokens = tokens(text).len() as u64;
    if usage.every_chunk {
        // Cumulative, as vLLM counts: one token a content piece (the role
        // chunk before them, the stop chunk after).
        for (sent, event) in events.iter_mut().enumerate() {
            event["usage"] = usage.value((sent as u64).min(completion_tokens));
        }
    }
    let mut frames: Vec<String> = events.iter().map(frame).collect();
    if finished {
        if usage.last {
            let mut last = chunk(model, json!({}), None);
            last["choices"] = json!([]);
            last["usage"] = usage.value(completion_tokens);
            frames.push(frame(&last));
        }
        frames.push("data: [DONE]\n\n".to_owned());
    }
    frames
}

fn whole(model: &str, text: &str, prompt_tokens: u64) -> Value {
    let completion_tokens = tokens(text).len() as u64;
    json!({
        "id": "chatcmpl-agent",
        "object": "chat.completion",
        "created": CREATED,
        "model": model,
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": text},
            "logprobs": null,
            "finish_reason": "stop",
        }],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    })
}

/// Sends `pieces`, then cuts the connection mid-body.
fn cut_off(pieces: Vec<String>, event_stream: bool) -> Response {
    let sent = futures_util::stream::iter(
        pieces
            .into_iter()
            .map(|piece| Ok::<_, std::io::Error>(Bytes::from(piece))),
    );
    // The error waits one turn, so that the head and the pieces go out
    // before the server drops the connection.
    let cut = futures_util::stream::once(async {
        tokio::task::yield_now().await;
        Err(std::io::Error::other(
            "the agent script cuts the connection",
        ))
    });
    let body: Pieces = Box::pin(sent.chain(cut));
    if event_stream {
        sse(body)
    } else {
        let mut response = Response::new(Body::from_stream(body));
        response
            .headers_mut()
            .insert("content-type", "application/json".parse().unwrap());
        response
    }
}
