//! The agent routes' own work per upstream chunk, for a profiler (ignored:
//! `cargo test --release -p toolcall-cli --bin toolcall agent_cost --
//! --ignored` under `valgrind --tool=callgrind`, with `AGENT_COST_ROUTE` =
//! `chat`, `responses` or `messages`): 400 words of prose as an upstream
//! streams them, a token a chunk, through the path each route takes.

use toolcall_stream::openai::Rewriter;
use toolcall_stream::Parser;

use super::responses::ResponsesRequest;
use super::{messages, IdMaker, Options};

/// An upstream chunk's JSON for one token, as vLLM writes it.
fn chunk_json(token: &str) -> String {
    serde_json::json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1,
        "model": "m", "choices": [{"index": 0, "delta": {"content": token}, "logprobs": null,
        "finish_reason": null}]})
    .to_string()
}

#[test]
#[ignore = "a profiling harness, not a test"]
fn agent_cost() {
    let route = std::env::var("AGENT_COST_ROUTE").unwrap_or_else(|_| "responses".into());
    let words = [
        "the ",
        "model ",
        "answers ",
        "with ",
        "plain ",
        "text ",
        "and ",
        "numbers. ",
    ];
    let chunks: Vec<String> = (0..400)
        .map(|i| chunk_json(words[i % words.len()]))
        .collect();
    let options = Options {
        upstream_model: "m".into(),
        max_tokens_cap: None,
        max_answer_bytes: 1 << 24,
        ids: IdMaker::Random,
    };
    let mut sent = 0;
    for _ in 0..50 {
        let mut out = String::new();
        let builder = Parser::builder().retain_arguments(false);
        if route == "chat" {
            let mut rewriter = Rewriter::new(builder);
            for chunk in &chunks {
                rewriter.push_json(chunk, &mut out).unwrap();
            }
        } else {
            let translated = if route == "responses" {
                ResponsesRequest::read(
                    &serde_json::json!({"model": "m", "input": "go", "stream": true}),
                )
                .unwrap()
                .translate(None, &options)
                .unwrap()
            } else {
                messages::translate(
                    &serde_json::json!({"model": "m", "max_tokens": 10, "stream": true,
                    "messages": [{"role": "user", "content": "go"}]}),
                    &options,
                )
                .unwrap()
            };
            let mut writer = translated.writer;
            let mut rewriter = Rewriter::new(builder).ordered(true);
            let mut rewritten = Vec::new();
            for chunk in &chunks {
                rewriter.push_json_chunks(chunk, &mut rewritten).unwrap();
                for chunk in rewritten.drain(..) {
                    writer.chunk(&chunk, &mut out).unwrap();
                }
            }
        }
        sent += out.len();
    }
    assert!(sent > 0);
}
