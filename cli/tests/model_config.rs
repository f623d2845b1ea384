//! `--format-from-model-config`: the format a model's own
//! `response_template` metadata describes (vLLM's `hf` and `beam`), and the
//! errors when a config has none or one that cannot be described.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .join("tests/model_configs")
        .join(name)
}

fn toolcall(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolcall"))
        .args(args)
        .output()
        .unwrap()
}

fn path(name: &str) -> String {
    fixture(name).to_str().unwrap().to_owned()
}

fn stderr(output: &Output) -> String {
    assert!(!output.status.success());
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn the_model_config_gives_the_format() {
    let output = toolcall(&[
        "parse",
        "--format-from-model-config",
        &path("qwen_xml.tokenizer_config.json"),
        "--tools",
        &path("tools.json"),
        "--reasoning",
        "started",
        &path("qwen_xml.txt"),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let message: Value = serde_json::from_slice(&output.stdout).unwrap();
    let calls = message["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["function"]["name"], "get_weather");
    assert_eq!(
        calls[1]["function"]["arguments"],
        r#"{"city": "Tokyo", "days": 1}"#
    );
    assert_eq!(message["diagnostics"], serde_json::json!([]));
}

#[test]
fn vllms_names_may_be_given_with_it_and_the_models_directory_for_the_file() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("model-config-dir");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        fixture("json_calls.tokenizer_config.json"),
        dir.join("tokenizer_config.json"),
    )
    .unwrap();
    for name in ["hf", "beam"] {
        let output = toolcall(&[
            "stream",
            "--format",
            name,
            "--format-from-model-config",
            dir.to_str().unwrap(),
            "--summary",
            &path("json_calls.txt"),
        ]);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(summary["tool_calls"], 1, "{summary}");
    }
}

#[test]
fn the_errors_say_what_is_missing() {
    let alone = stderr(&toolcall(&[
        "parse",
        "--format",
        "hf",
        &path("json_calls.txt"),
    ]));
    assert!(alone.contains("--format-from-model-config"), "{alone}");
    let other = stderr(&toolcall(&[
        "parse",
        "--format",
        "hermes",
        "--format-from-model-config",
        &path("json_calls.tokenizer_config.json"),
        &path("json_calls.txt"),
    ]));
    assert!(other.contains("leave out --format"), "{other}");
    let none = stderr(&toolcall(&[
        "parse",
        "--format-from-model-config",
        &path("no_template.tokenizer_config.json"),
        &path("json_calls.txt"),
    ]));
    assert!(none.contains("no `response_template`"), "{none}");
    let harmony = stderr(&toolcall(&[
        "parse",
        "--format-from-model-config",
        &path("harmony.tokenizer_config.json"),
        &path("json_calls.txt"),
    ]));
    assert!(
        harmony.contains("cannot be described: tool_calls.open_pattern"),
        "{harmony}"
    );
}
