//! `--openai`: `parse` prints a `chat.completion`, `stream` prints SSE
//! chunks, diagnostics go to stderr; finish reasons, models and ids.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};
use toolcall_stream::{Format, Parser};

use crate::{arguments, keys, parse_file, path_str, run, set, transcript, Run, UNCLOSED_PARAMETER};

/// The content of a parse as OpenAI output carries it: the layout
/// whitespace next to calls left out (the events keep it).
fn openai_content(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).unwrap();
    Parser::builder()
        .format(Format::Qwen3Coder)
        .build()
        .parse(&text)
        .openai_content()
}

/// The diagnostics `--openai` wrote to stderr, one JSON line each, as
/// `(index, kind)`.
fn stderr_diagnostics(out: &Run) -> Vec<(Value, String)> {
    out.stderr
        .lines()
        // The format `--model` chose is no diagnostic.
        .filter(|line| !line.contains(r#""type":"format_chosen""#))
        .map(|line| {
            let event: Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line:?}"));
            assert_eq!(event["type"], "diagnostic", "{line}");
            assert!(event["message"].is_string(), "{line}");
            (
                event["index"].clone(),
                event["kind"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// The same diagnostics from a plain `parse` message.
fn message_diagnostics(message: &Value) -> Vec<(Value, String)> {
    message["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["index"].clone(), d["kind"].as_str().unwrap().to_owned()))
        .collect()
}

/// Checks a `chat.completion` and returns its one choice.
fn check_completion<'a>(completion: &'a Value, model: &str) -> &'a Value {
    assert_eq!(
        keys(completion),
        set(&["id", "object", "created", "model", "choices"])
    );
    assert_eq!(completion["object"], "chat.completion");
    assert_eq!(completion["model"], model);
    assert!(completion["created"].is_u64());
    assert!(completion["id"].as_str().unwrap().starts_with("chatcmpl-"));
    let choices = completion["choices"].as_array().unwrap();
    assert_eq!(choices.len(), 1);
    let choice = &choices[0];
    assert_eq!(
        keys(choice),
        set(&["index", "message", "finish_reason", "logprobs"])
    );
    assert_eq!(choice["index"], 0);
    assert_eq!(choice["message"]["role"], "assistant");
    choice
}

#[test]
fn parse_openai_prints_one_chat_completion_with_the_parse_calls() {
    let path = transcript();
    let plain = parse_file(&[], &path);
    let out = run(
        &[
            "parse",
            "--openai",
            "--ids",
            "sequential",
            "--model",
            "qwen3-coder",
            path_str(&path),
        ],
        None,
    );
    out.assert_success();
    let completion = out.json();
    let choice = check_completion(&completion, "qwen3-coder");
    let message = &choice["message"];
    assert_eq!(
        keys(message),
        set(&["role", "content", "refusal", "tool_calls"])
    );
    assert_eq!(message["content"], json!(openai_content(&path)));
    assert_eq!(message["tool_calls"], plain["tool_calls"]);
    assert_eq!(choice["finish_reason"], "tool_calls");
    // Diagnostics are not OpenAI's: they go to stderr.
    assert_eq!(stderr_diagnostics(&out), message_diagnostics(&plain));
    assert!(!out.stderr.is_empty());
}

/// What an OpenAI client makes of `stream --openai` output: checks the
/// framing and the chunks, and returns the joined message (`content`,
/// `tool_calls` as `parse` prints them) and the `finish_reason`.
fn join_sse(stdout: &str) -> (Value, Value) {
    assert!(stdout.ends_with("data: [DONE]\n\n"), "{stdout:?}");
    let frames: Vec<&str> = stdout.split_terminator("\n\n").collect();
    let (done, frames) = frames.split_last().unwrap();
    assert_eq!(*done, "data: [DONE]");
    assert!(!frames.is_empty());
    let mut content: Option<String> = None;
    let mut calls: Vec<Value> = Vec::new();
    let mut finish_reason = Value::Null;
    let mut id = None;
    for (position, frame) in frames.iter().enumerate() {
        let last = position + 1 == frames.len();
        let json = frame
            .strip_prefix("data: ")
            .unwrap_or_else(|| panic!("not a data frame: {frame:?}"));
        assert!(!json.contains('\n'), "one line per frame: {frame:?}");
        let chunk: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {json}"));
        assert_eq!(chunk["object"], "chat.completion.chunk");
        assert_eq!(id.get_or_insert_with(|| chunk["id"].clone()), &chunk["id"]);
        let choice = &chunk["choices"][0];
        let delta = &choice["delta"];
        assert_eq!(delta["role"].is_string(), position == 0, "{json}");
        assert_eq!(!choice["finish_reason"].is_null(), last, "{json}");
        if !last {
            assert!(
                delta["content"].is_string() || delta["tool_calls"].is_array(),
                "an empty chunk: {json}"
            );
        }
        if let Some(text) = delta["content"].as_str() {
            content.get_or_insert_with(String::new).push_str(text);
        }
        for call in delta["tool_calls"].as_array().into_iter().flatten() {
            let index = call["index"].as_u64().unwrap() as usize;
            let fragment = call["function"]["arguments"].as_str().unwrap();
            if index == calls.len() {
                assert_eq!(call["type"], "function", "{json}");
                calls.push(json!({
                    "id": call["id"],
                    "type": "function",
                    "function": {"name": call["function"]["name"], "arguments": fragment},
                }));
            } else {
                assert!(call.get("id").is_none() && call["function"].get("name").is_none());
                let arguments = &mut calls[index]["function"]["arguments"];
                *arguments = Value::from(arguments.as_str().unwrap().to_owned() + fragment);
            }
        }
        finish_reason = choice["finish_reason"].clone();
    }
    (
        json!({"content": content, "tool_calls": calls}),
        finish_reason,
    )
}

#[test]
fn stream_openai_prints_sse_chunks_that_join_into_the_parse_output() {
    let path = transcript();
    let plain = parse_file(&[], &path);
    let expected = json!({"content": openai_content(&path), "tool_calls": plain["tool_calls"]});
    let mut frames_at = BTreeMap::new();
    for size in ["1", "7", "64", "100000"] {
        let out = run(
            &[
                "stream",
                "--openai",
                "--ids",
                "sequential",
                "--chunk-size",
                size,
                path_str(&path),
            ],
            None,
        );
        out.assert_success();
        let (joined, finish_reason) = join_sse(&out.stdout);
        assert_eq!(joined, expected, "--chunk-size {size}");
        assert_eq!(finish_reason, "tool_calls");
        assert_eq!(stderr_diagnostics(&out), message_diagnostics(&plain));
        frames_at.insert(size, out.stdout.matches("\n\n").count());
    }
    // One chunk per piece that completed something: more for smaller pieces.
    assert!(frames_at["1"] > frames_at["64"], "{frames_at:?}");
    assert_eq!(frames_at["100000"], 3, "{frames_at:?}"); // chunk, last, [DONE]
}

#[test]
fn openai_finish_length_model_and_seeded_ids() {
    let path = transcript();
    let args = |extra: &[&str]| {
        let mut args = vec!["parse", "--openai"];
        args.extend_from_slice(extra);
        args.push(path_str(&path));
        run(&args, None).assert_success().json()
    };
    let cut = args(&["--finish-length"]);
    assert_eq!(
        check_completion(&cut, "toolcall")["finish_reason"],
        "length"
    );

    let one = args(&["--ids", "openai", "--seed", "5"]);
    let again = args(&["--ids", "openai", "--seed", "5"]);
    let other = args(&["--ids", "openai", "--seed", "6"]);
    let call_ids = |completion: &Value| -> Vec<String> {
        completion["choices"][0]["message"]["tool_calls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(one["id"], again["id"]);
    assert_eq!(call_ids(&one), call_ids(&again));
    assert_ne!(one["id"], other["id"]);
    assert_ne!(call_ids(&one), call_ids(&other));
    for id in call_ids(&one) {
        let rest = id.strip_prefix("call_").unwrap_or_else(|| panic!("{id}"));
        assert!(rest.len() == 24 && rest.bytes().all(|b| b.is_ascii_alphanumeric()));
    }
    // Unseeded: a new response id and new call ids on every run.
    let (a, b) = (args(&["--ids", "openai"]), args(&["--ids", "openai"]));
    assert_ne!(a["id"], b["id"]);
    assert_ne!(call_ids(&a), call_ids(&b));
    // Seeded vLLM-style ids for the event output too.
    let seeded = || {
        let message = run(
            &["parse", "--seed", "5"],
            Some(UNCLOSED_PARAMETER.as_bytes()),
        )
        .assert_success()
        .json();
        message["tool_calls"][0]["id"].as_str().unwrap().to_owned()
    };
    let id = seeded();
    assert_eq!(id, seeded());
    assert!(id.starts_with("chatcmpl-tool-"), "{id}");

    let stream = run(
        &[
            "stream",
            "--openai",
            "--format",
            "qwen3_coder",
            "--model",
            "m",
            "--finish-length",
            path_str(&path),
        ],
        None,
    );
    let (_, finish_reason) = join_sse(&stream.assert_success().stdout);
    assert_eq!(finish_reason, "length");
    assert!(stream.stdout.contains(r#""model":"m""#));
}

#[test]
fn openai_diagnostics_go_to_stderr_and_stdout_stays_valid() {
    let parse = run(
        &["parse", "--openai", "--ids", "sequential"],
        Some(UNCLOSED_PARAMETER.as_bytes()),
    );
    parse.assert_success();
    let completion = parse.json();
    let call = &check_completion(&completion, "toolcall")["message"]["tool_calls"][0];
    assert_eq!(arguments(call), json!({"city": "Paris"}));
    assert_eq!(
        stderr_diagnostics(&parse),
        vec![(json!(0), "unclosed_parameter".to_owned())]
    );

    let stream = run(
        &["stream", "--openai", "--chunk-size", "3"],
        Some(UNCLOSED_PARAMETER.as_bytes()),
    );
    stream.assert_success();
    let (joined, finish_reason) = join_sse(&stream.stdout);
    assert_eq!(
        arguments(&joined["tool_calls"][0]),
        json!({"city": "Paris"})
    );
    assert_eq!(finish_reason, "tool_calls");
    assert_eq!(stderr_diagnostics(&stream), stderr_diagnostics(&parse));
}

#[test]
fn openai_flags_are_checked() {
    let path = transcript();
    let path = path_str(&path);
    for args in [
        &["parse", "--finish-length", path][..],
        &["stream", "--openai", "--summary", path],
        &["parse", "--sequential-ids", "--ids", "openai", path],
        &["parse", "--ids", "uuid", path],
        &["parse", "--seed", "-1", path],
    ] {
        run(args, None).assert_usage_error();
    }
    let help = run(&["stream", "--help"], None);
    for flag in ["--openai", "--model", "--finish-length", "--ids", "--seed"] {
        assert!(help.stdout.contains(flag), "{flag} in --help");
    }
}

#[test]
fn stream_openai_of_empty_input_is_one_stop_chunk() {
    let out = run(&["stream", "--openai"], Some(b""));
    out.assert_success();
    let (joined, finish_reason) = join_sse(&out.stdout);
    assert_eq!(joined, json!({"content": null, "tool_calls": []}));
    assert_eq!(finish_reason, "stop");
    assert_eq!(out.stdout.matches("\n\n").count(), 2);
}
