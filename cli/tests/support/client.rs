//! The tests' side of the proxy: a client, what it makes of a response,
//! and the requests the tests send.

#![allow(dead_code)] // each test binary uses a different part

use std::sync::Arc;

use eventsource_stream::Eventsource;
use futures_util::StreamExt;
use serde_json::{json, Value};
use toolcall_stream::{Format, Parser, Tools};

use super::proxy::{ProxyProcess, TIMEOUT};
use super::replay::{self, Replay};

/// Tools for fixtures that have no `.tools.json`: the rewrite needs a
/// non-empty `tools`, and one unrelated tool types nothing.
pub fn placeholder_tools() -> Value {
    json!([{"type": "function", "function": {"name": "placeholder",
        "parameters": {"type": "object", "properties": {"x": {"type": "string"}}}}}])
}

pub fn client() -> reqwest::Client {
    reqwest::Client::builder().no_proxy().build().unwrap()
}

pub async fn setup(args: &[&str]) -> (Replay, ProxyProcess) {
    let replay = replay::start().await;
    let proxy = ProxyProcess::start(&replay.url(), args);
    (replay, proxy)
}

/// What an OpenAI client makes of a response: content, calls by index
/// (id, name, arguments), finish reason.
#[derive(Debug, Default, PartialEq)]
pub struct Assembled {
    pub content: Option<String>,
    pub calls: Vec<(String, String, String)>,
    pub finish_reason: Option<String>,
}

impl Assembled {
    pub fn from_chunks(chunks: &[Value]) -> Assembled {
        let mut assembled = Assembled::default();
        for chunk in chunks {
            for choice in chunk["choices"].as_array().unwrap() {
                let delta = &choice["delta"];
                if let Some(text) = delta["content"].as_str() {
                    assembled
                        .content
                        .get_or_insert_with(String::new)
                        .push_str(text);
                }
                for call in delta["tool_calls"].as_array().into_iter().flatten() {
                    let index = call["index"].as_u64().unwrap() as usize;
                    if index == assembled.calls.len() {
                        assembled.calls.push(Default::default());
                    }
                    let entry = &mut assembled.calls[index];
                    if let Some(id) = call["id"].as_str() {
                        entry.0 = id.to_owned();
                    }
                    if let Some(name) = call["function"]["name"].as_str() {
                        entry.1 = name.to_owned();
                    }
                    if let Some(arguments) = call["function"]["arguments"].as_str() {
                        entry.2.push_str(arguments);
                    }
                }
                if let Some(reason) = choice["finish_reason"].as_str() {
                    assembled.finish_reason = Some(reason.to_owned());
                }
            }
        }
        assembled
    }

    pub fn from_completion(completion: &Value) -> Assembled {
        let choice = &completion["choices"][0];
        let message = &choice["message"];
        let calls = message["tool_calls"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|call| {
                let text = |v: &Value| v.as_str().unwrap().to_owned();
                (
                    text(&call["id"]),
                    text(&call["function"]["name"]),
                    text(&call["function"]["arguments"]),
                )
            })
            .collect();
        Assembled {
            content: message["content"].as_str().map(str::to_owned),
            calls,
            finish_reason: choice["finish_reason"].as_str().map(str::to_owned),
        }
    }

    /// Equal to the library's `parse` of the same text with the same tools:
    /// names, arguments as JSON, content, finish reason.
    pub fn assert_matches(&self, format: &str, text: &str, tools: &Value, what: &str) {
        let tools = Tools::from_value(tools).unwrap();
        let format: Format = format.parse().unwrap();
        // As the proxy runs by default: calls stream as they are parsed.
        let message = Parser::builder()
            .format(format)
            .tools(Arc::new(tools))
            .build()
            .parse(text);
        // The OpenAI output leaves out the layout whitespace next to calls.
        assert_eq!(self.content, message.openai_content(), "{what}: content");
        assert_eq!(
            self.calls.len(),
            message.tool_calls.len(),
            "{what}: calls {:?}",
            self.calls
        );
        for (got, want) in self.calls.iter().zip(&message.tool_calls) {
            assert!(
                got.0.starts_with("call_") && got.0.len() == 29,
                "{what}: id {}",
                got.0
            );
            assert_eq!(got.1, want.name, "{what}: name");
            let got_arguments: Value = serde_json::from_str(&got.2).unwrap();
            let want_arguments: Value = serde_json::from_str(&want.arguments).unwrap();
            assert_eq!(got_arguments, want_arguments, "{what}: arguments");
        }
        let complete = message.tool_calls.iter().any(|call| call.complete);
        let reason = if complete { "tool_calls" } else { "stop" };
        assert_eq!(
            self.finish_reason.as_deref(),
            Some(reason),
            "{what}: finish_reason"
        );
    }
}

/// The events of a streamed response, parsed; the last must be `[DONE]`.
pub async fn read_sse(response: reqwest::Response) -> Vec<Value> {
    let mut events = response.bytes_stream().eventsource();
    let mut values = Vec::new();
    let read = async {
        while let Some(event) = events.next().await {
            let data = event.expect("the proxy's stream is valid SSE").data;
            if data == "[DONE]" {
                assert!(events.next().await.is_none(), "nothing after [DONE]");
                return true;
            }
            values.push(serde_json::from_str(&data).expect("each event is JSON"));
        }
        false
    };
    let done = tokio::time::timeout(TIMEOUT, read)
        .await
        .expect("stream hung");
    assert!(done, "the stream ended without [DONE]: {values:?}");
    values
}

pub async fn chat(proxy: &ProxyProcess, body: &Value) -> reqwest::Response {
    let request = client()
        .post(format!("{}/v1/chat/completions", proxy.url))
        .bearer_auth("sk-test-secret")
        .json(body)
        .send();
    tokio::time::timeout(TIMEOUT, request)
        .await
        .expect("request hung")
        .unwrap()
}

pub fn request(model: &str, tools: &Value, stream: bool) -> Value {
    json!({"model": model, "messages": [{"role": "user", "content": "go"}], "tools": tools, "stream": stream})
}

/// An OpenAI error object of `kind`, with a message.
pub fn assert_error(body: &Value, kind: &str) {
    assert_eq!(body["error"]["type"], kind, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()),
        "{body}"
    );
}

/// A stream that must end with an error event and `[DONE]`: the chunks
/// before the error event, and the error event.
pub async fn read_failed_stream(response: reqwest::Response) -> (Vec<Value>, Value) {
    assert_eq!(response.status(), 200);
    let mut values = read_sse(response).await;
    let error = values.pop().expect("an error event");
    (values, error)
}
