//! The agent routes under the soak: a fixture asked through OpenAI
//! Responses or Anthropic Messages, streamed or whole, must come back as
//! the library parses it (names, arguments, content), and a cut upstream
//! must end the answer as failed, never completed.

use serde_json::{json, Value};
use toolcall_stream::{Format, Parser, Tools};

use super::scenarios::{Ctx, Fixture, Miss, Outcome};

/// What a client of either API makes of an answer: text in order, calls
/// as (name, arguments), how it ended.
#[derive(Debug, Default)]
struct Answer {
    text: String,
    calls: Vec<(String, Value)>,
    end: String,
    /// Calls the parser saw end.
    complete: usize,
}

impl Ctx {
    /// `fixture` through `/v1/responses` (`responses`) or `/v1/messages`.
    pub async fn agent_normal(&self, fixture: &Fixture, responses: bool, stream: bool) -> Outcome {
        let model = format!("{}/{}", fixture.format, fixture.name);
        let response = self
            .agent(
                responses,
                &request(responses, &model, &fixture.tools, stream),
            )
            .await?;
        ensure!(response.status() == 200, "{model}: {}", response.status());
        let answer = if stream {
            let events = events(response).await?;
            if responses {
                from_response(&terminal(&events, &model)?["response"])
            } else {
                from_message_events(&events, &model)?
            }
        } else {
            let body: Value = response
                .json()
                .await
                .map_err(|e| Miss::Wrong(format!("{model}: {e}")))?;
            if responses {
                from_response(&body)
            } else {
                from_message(&body)
            }
        };
        let mut want = parsed(fixture);
        if !responses && !stream {
            // A whole message leaves out the calls past those that ended:
            // none of them is to run.
            want.calls.truncate(want.complete);
        }
        ensure!(
            answer.text == want.text,
            "{model}: text {:?} not {:?}",
            answer.text,
            want.text
        );
        ensure!(
            answer.calls == want.calls,
            "{model}: calls {:?} not {:?}",
            answer.calls,
            want.calls
        );
        let ends = if responses {
            ["completed", "completed"]
        } else {
            ["tool_use", "end_turn"]
        };
        let complete = want.end == "complete";
        ensure!(
            answer.end == ends[usize::from(!complete)] || (!complete && answer.end == "max_tokens"),
            "{model}: ended {}",
            answer.end
        );
        Ok(())
    }

    /// A cut upstream: a failed Responses answer, an Anthropic error event.
    pub async fn agent_cut(&self, responses: bool) -> Outcome {
        let tools = json!([{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]);
        let response = self
            .agent(
                responses,
                &request(responses, "malformed/cut", &tools, true),
            )
            .await?;
        ensure!(response.status() == 200, "cut: {}", response.status());
        let events = events(response).await?;
        let last = events.last().map(|(name, _)| name.as_str()).unwrap_or("");
        let want = if responses {
            "response.failed"
        } else {
            "error"
        };
        ensure!(last == want, "cut: ended with {last:?}, not {want}");
        let completed = events
            .iter()
            .any(|(name, _)| name == "response.completed" || name == "message_stop");
        ensure!(!completed, "cut: a completed answer");
        Ok(())
    }

    async fn agent(&self, responses: bool, body: &Value) -> Result<reqwest::Response, Miss> {
        let path = if responses {
            "/v1/responses"
        } else {
            "/v1/messages"
        };
        let sent = self
            .client
            .post(format!("{}{path}", self.url))
            .json(body)
            .send()
            .await;
        self.answered(sent).await
    }
}

/// The request for `model` with the chat `tools`, in the API's shape.
fn request(responses: bool, model: &str, tools: &Value, stream: bool) -> Value {
    let functions = tools
        .as_array()
        .into_iter()
        .flatten()
        .map(|tool| &tool["function"]);
    if responses {
        let tools: Vec<Value> = functions
            .map(|f| json!({"type": "function", "name": f["name"], "parameters": f["parameters"]}))
            .collect();
        json!({"model": model, "input": "go", "tools": tools, "stream": stream, "store": false})
    } else {
        let tools: Vec<Value> = functions
            .map(|f| json!({"name": f["name"], "input_schema": f["parameters"]}))
            .collect();
        json!({"model": model, "max_tokens": 1024, "tools": tools, "stream": stream,
               "messages": [{"role": "user", "content": "go"}]})
    }
}

/// The library's parse of the fixture, as an agent's answer says it.
fn parsed(fixture: &Fixture) -> Answer {
    let format: Format = fixture.format.parse().unwrap();
    let tools = Tools::from_value(&fixture.tools).unwrap();
    let message = Parser::builder()
        .format(format)
        .tools(std::sync::Arc::new(tools))
        .build()
        .parse(&fixture.text);
    // An answer whose calls all ended asks for them to run (`tool_use`);
    // one with a call left unfinished never does.
    let complete =
        !message.tool_calls.is_empty() && message.tool_calls.iter().all(|call| call.complete);
    Answer {
        text: message.openai_content().unwrap_or_default(),
        calls: message
            .tool_calls
            .iter()
            .map(|call| {
                (
                    call.name.clone(),
                    serde_json::from_str(&call.arguments).unwrap_or(Value::Null),
                )
            })
            .collect(),
        end: if complete { "complete" } else { "none" }.to_owned(),
        complete: message
            .tool_calls
            .iter()
            .filter(|call| call.complete)
            .count(),
    }
}

/// A stream's `(event, data)` pairs.
async fn events(response: reqwest::Response) -> Result<Vec<(String, Value)>, Miss> {
    let text = response
        .text()
        .await
        .map_err(|e| Miss::Wrong(format!("stream failed: {e}")))?;
    let mut events = Vec::new();
    for block in text.split("\n\n") {
        let mut name = None;
        let mut data = String::new();
        for line in block.lines() {
            if let Some(rest) = line.strip_prefix("event: ") {
                name = Some(rest.to_owned());
            } else if let Some(rest) = line.strip_prefix("data: ") {
                data.push_str(rest);
            }
        }
        let Some(name) = name else { continue };
        let data: Value =
            serde_json::from_str(&data).map_err(|e| Miss::Wrong(format!("{name}: {e}")))?;
        ensure!(
            data["type"] == name.as_str(),
            "{name}: data.type {}",
            data["type"]
        );
        events.push((name, data));
    }
    Ok(events)
}

/// A Responses stream's one terminal event.
fn terminal<'a>(events: &'a [(String, Value)], model: &str) -> Result<&'a Value, Miss> {
    let ends = [
        "response.completed",
        "response.incomplete",
        "response.failed",
    ];
    let count = events
        .iter()
        .filter(|(name, _)| ends.contains(&name.as_str()))
        .count();
    ensure!(count == 1, "{model}: {count} terminal events");
    let (name, data) = events
        .last()
        .ok_or_else(|| Miss::Wrong(format!("{model}: no events")))?;
    ensure!(ends.contains(&name.as_str()), "{model}: last event {name}");
    Ok(data)
}

fn from_response(response: &Value) -> Answer {
    let mut answer = Answer {
        end: response["status"].as_str().unwrap_or("").to_owned(),
        ..Answer::default()
    };
    for item in response["output"].as_array().into_iter().flatten() {
        match item["type"].as_str() {
            Some("message") => {
                for part in item["content"].as_array().into_iter().flatten() {
                    answer.text.push_str(part["text"].as_str().unwrap_or(""));
                }
            }
            Some("function_call") => answer.calls.push((
                item["name"].as_str().unwrap_or("").to_owned(),
                serde_json::from_str(item["arguments"].as_str().unwrap_or(""))
                    .unwrap_or(Value::Null),
            )),
            _ => {}
        }
    }
    answer
}

fn from_message(message: &Value) -> Answer {
    let mut answer = Answer {
        end: message["stop_reason"].as_str().unwrap_or("").to_owned(),
        ..Answer::default()
    };
    for block in message["content"].as_array().into_iter().flatten() {
        match block["type"].as_str() {
            Some("text") => answer.text.push_str(block["text"].as_str().unwrap_or("")),
            Some("tool_use") => answer.calls.push((
                block["name"].as_str().unwrap_or("").to_owned(),
                block["input"].clone(),
            )),
            _ => {}
        }
    }
    answer
}

/// A Messages stream read as the SDKs read it: blocks opened and stopped
/// once each, a tool's input the join of its partial JSON.
fn from_message_events(events: &[(String, Value)], model: &str) -> Result<Answer, Miss> {
    let mut answer = Answer::default();
    let mut open: Option<(Value, String)> = None;
    for (name, data) in events {
        match name.as_str() {
            "content_block_start" => {
                ensure!(open.is_none(), "{model}: blocks interleave");
                open = Some((data["content_block"].clone(), String::new()));
            }
            "content_block_delta" => {
                let (_, text) = open
                    .as_mut()
                    .ok_or_else(|| Miss::Wrong(format!("{model}: a delta outside a block")))?;
                let delta = &data["delta"];
                text.push_str(
                    delta["text"]
                        .as_str()
                        .or(delta["partial_json"].as_str())
                        .unwrap_or(""),
                );
            }
            "content_block_stop" => {
                let (block, text) = open
                    .take()
                    .ok_or_else(|| Miss::Wrong(format!("{model}: a stop outside a block")))?;
                if block["type"] == "tool_use" {
                    let input = if text.is_empty() {
                        json!({})
                    } else {
                        serde_json::from_str(&text)
                            .map_err(|e| Miss::Wrong(format!("{model}: input {e}")))?
                    };
                    answer
                        .calls
                        .push((block["name"].as_str().unwrap_or("").to_owned(), input));
                } else if block["type"] == "text" {
                    answer.text.push_str(&text);
                }
            }
            "message_delta" => {
                answer.end = data["delta"]["stop_reason"]
                    .as_str()
                    .unwrap_or("")
                    .to_owned()
            }
            _ => {}
        }
    }
    ensure!(
        events
            .last()
            .is_some_and(|(name, _)| name == "message_stop"),
        "{model}: no message_stop"
    );
    Ok(answer)
}
