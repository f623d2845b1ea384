//! `toolcall parse` and `stream`: the format `--model` chooses is said on
//! stderr (stdout unchanged), an unknown model's error lists the patterns
//! one a line, Llama 3.2 and 4 get the format that reads both their shapes,
//! and `--ids` takes the words the proxy takes.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// `toolcall ARGS` with `input` on stdin.
fn run(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolcall"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("toolcall starts");
    let mut stdin = child.stdin.take().unwrap();
    // A usage error may exit before reading: a closed pipe is fine.
    let _ = stdin.write_all(input.as_bytes());
    drop(stdin);
    child.wait_with_output().expect("toolcall ends")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

const PYTHONIC: &str = "[get_weather(city=\"Paris\")]";

#[test]
fn model_reports_the_format_it_chose_on_stderr() {
    for command in ["parse", "stream"] {
        let by_model = run(
            &[
                command,
                "--ids",
                "sequential",
                "--model",
                "meta-llama/Llama-3.2-3B-Instruct",
            ],
            PYTHONIC,
        );
        assert!(by_model.status.success(), "{}", text(&by_model.stderr));
        assert_eq!(
            text(&by_model.stderr),
            "toolcall: model \"meta-llama/Llama-3.2-3B-Instruct\" \u{2192} format pythonic (pattern \"llama-3.2\")\n"
        );
        // Stdout is what `--format` prints.
        let by_format = run(
            &[command, "--ids", "sequential", "--format", "pythonic"],
            PYTHONIC,
        );
        assert_eq!(text(&by_model.stdout), text(&by_format.stdout), "{command}");
        assert!(by_format.stderr.is_empty());
    }
    // With `--openai`, stderr holds JSON lines: the choice is one.
    let openai = run(
        &[
            "parse",
            "--openai",
            "--model",
            "meta-llama/Llama-4-Scout-17B-16E-Instruct",
        ],
        PYTHONIC,
    );
    assert!(openai.status.success());
    let line: Value = serde_json::from_str(text(&openai.stderr).trim_end()).unwrap();
    assert_eq!(
        line,
        serde_json::json!({"type": "format_chosen", "model": "meta-llama/Llama-4-Scout-17B-16E-Instruct",
            "format": "pythonic", "pattern": "llama-4"})
    );
}

#[test]
fn llama_3_2_and_4_read_both_their_shapes() {
    let json_call = r#"{"name": "get_weather", "parameters": {"city": "Paris"}}"#;
    let llama4_json =
        r#"{"type": "function", "name": "get_weather", "parameters": {"city": "Paris"}}"#;
    for model in [
        "meta-llama/Llama-3.2-3B-Instruct",
        "meta-llama/Llama-4-Maverick-17B-128E-Instruct",
    ] {
        for output in [PYTHONIC, json_call, llama4_json] {
            let out = run(&["parse", "--model", model], output);
            assert!(out.status.success());
            let message: Value = serde_json::from_slice(&out.stdout).unwrap();
            let calls = message["tool_calls"].as_array().unwrap();
            assert_eq!(calls.len(), 1, "{model} {output}: {message}");
            assert_eq!(calls[0]["function"]["name"], "get_weather");
            assert_eq!(calls[0]["function"]["arguments"], r#"{"city": "Paris"}"#);
        }
    }
}

#[test]
fn an_unknown_model_lists_the_patterns_one_a_line() {
    let out = run(&["parse", "--model", "my-model"], "hi");
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    let mut lines = stderr.lines();
    let first = lines.next().unwrap();
    for wanted in ["\"my-model\"", "--format", "docs/models.md"] {
        assert!(first.contains(wanted), "{wanted}: {first}");
    }
    assert!(first.len() < 300, "{first}");
    let patterns: Vec<&str> = lines.collect();
    assert_eq!(
        patterns.len(),
        toolcall_stream::Format::MODEL_PATTERNS.len()
    );
    assert!(
        patterns.contains(&"  qwen3-coder (qwen3_coder)"),
        "{patterns:?}"
    );
}

#[test]
fn ids_take_one_vocabulary_and_random_is_vllm() {
    let call = r#"<tool_call>{"name": "f", "arguments": {}}</tool_call>"#;
    let id = |args: &[&str]| {
        let mut all = vec!["parse", "--format", "hermes", "--seed", "7"];
        all.extend_from_slice(args);
        let out = run(&all, call);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        let message: Value = serde_json::from_slice(&out.stdout).unwrap();
        message["tool_calls"][0]["id"].as_str().unwrap().to_owned()
    };
    let vllm = id(&["--ids", "vllm"]);
    assert!(vllm.starts_with("chatcmpl-tool-"), "{vllm}");
    assert_eq!(id(&["--ids", "random"]), vllm, "random is vllm's alias");
    assert_eq!(id(&[]), vllm, "the default");
    assert!(id(&["--ids", "openai"]).starts_with("call_"));
    assert_eq!(id(&["--ids", "sequential"]), "call_0");
    // A word of neither: the error names the words.
    let out = run(&["parse", "--ids", "uuid"], call);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    for word in ["vllm", "openai", "sequential"] {
        assert!(stderr.contains(word), "{word}: {stderr}");
    }
}
