//! `previous_response_id` across proxies: two proxies share one real
//! `redis-server` (`--response-store redis://…`), so a conversation one
//! answered is continued by the other; with Redis gone, a request that
//! needs it fails in the API's shape (503) and the proxy stays up.
//! Skipped (with a note) when `redis-server` is not installed, unless
//! `TOOLCALL_REQUIRE_REDIS` is set (CI sets it).

mod support;

#[allow(dead_code)] // the store's own tests use the rest
#[path = "../src/proxy/store/redis_server.rs"]
mod redis_server;

use serde_json::{json, Value};
use support::client::client;
use support::proxy::{ProxyProcess, TIMEOUT};
use support::replay;

async fn post(proxy: &ProxyProcess, body: &Value) -> (u16, Value) {
    let response = tokio::time::timeout(
        TIMEOUT,
        client()
            .post(format!("{}/v1/responses", proxy.url))
            .json(body)
            .send(),
    )
    .await
    .expect("no hang")
    .expect("an answer");
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

fn model_map() -> String {
    let map = json!({"*": {"model": "hermes/one_call", "format": "hermes"}});
    support::proxy::config_file("store-model-map.json", &map.to_string())
}

const TOOLS: &str = r#"[{"type": "function", "name": "get_weather", "parameters": {"type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}]"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_proxies_continue_one_conversation_through_redis() {
    let Some(mut redis) = redis_server::RedisServer::start(&[]).await else {
        return;
    };
    let replay = replay::start().await;
    let map = model_map();
    let store = redis.url();
    let args = [
        "--model-map",
        map.as_str(),
        "--response-store",
        store.as_str(),
    ];
    let first = ProxyProcess::start(&replay.url(), &args);
    let second = ProxyProcess::start(&replay.url(), &args);
    let tools: Value = serde_json::from_str(TOOLS).unwrap();

    // The first proxy answers with a call and keeps the conversation.
    let (status, answer) = post(
        &first,
        &json!({"model": "local", "input": "Weather in Paris?",
        "instructions": "Be brief.", "tools": tools}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    let id = answer["id"].as_str().unwrap().to_owned();
    let call = answer["output"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["type"] == "function_call")
        .expect("a call")
        .clone();

    // The second continues it with the tool's output alone. The store is
    // written after the answer: wait for it, bounded.
    let follow_up = json!({"model": "local", "previous_response_id": id, "tools": tools,
        "input": [{"type": "function_call_output", "call_id": call["call_id"], "output": "18°C"}]});
    let deadline = std::time::Instant::now() + TIMEOUT;
    let answer = loop {
        let (status, answer) = post(&second, &follow_up).await;
        if status == 200 || std::time::Instant::now() > deadline {
            assert_eq!(status, 200, "{answer}");
            break answer;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    assert_eq!(answer["previous_response_id"], id.as_str());
    // What the upstream got: the whole conversation, the stored part first
    // (an earlier request's `instructions` are not carried over, as
    // OpenAI's API says).
    let received = replay.requests();
    let chat: Value = serde_json::from_slice(&received.last().unwrap().body).unwrap();
    let messages = chat["messages"].as_array().unwrap();
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "tool"], "{chat}");
    assert_eq!(messages[1]["tool_calls"][0]["id"], call["call_id"]);
    assert_eq!(messages[2]["tool_call_id"], call["call_id"]);
    assert_eq!(messages[2]["content"], "18°C");

    // Redis gone: continuing fails in OpenAI's shape, answering does not.
    redis.kill();
    let (status, error) = post(&second, &follow_up).await;
    assert_eq!(status, 503, "{error}");
    assert_eq!(error["error"]["type"], "server_error");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("response store"),
        "{error}"
    );
    let (status, answer) = post(
        &first,
        &json!({"model": "local", "input": "hi", "tools": tools}),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    // An id no proxy stored.
    redis.restart().await;
    let (status, error) = post(
        &second,
        &json!({"model": "local", "input": "hi",
        "previous_response_id": "resp_unknown"}),
    )
    .await;
    assert_eq!(status, 400, "{error}");
    assert_eq!(error["error"]["code"], "previous_response_not_found");
}
