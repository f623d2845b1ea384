//! `--format-file` and `toolcall format-file`: a format of one's own from
//! the command line, and the built-in descriptions to start one from.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

fn toolcall(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolcall"))
        .args(args)
        .output()
        .unwrap()
}

fn scratch(name: &str, contents: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("format-file-{name}"));
    std::fs::write(&path, contents).unwrap();
    path
}

fn json(output: &Output) -> Value {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn the_bundled_custom_format_parses_its_example() {
    let root = repo_root();
    let file = root.join("examples/formats/acme_coder.toml");
    let input = root.join("examples/formats/acme_coder.txt");
    let message = json(&toolcall(&[
        "parse",
        "--format-file",
        file.to_str().unwrap(),
        "--reasoning",
        "on",
        input.to_str().unwrap(),
    ]));
    let calls = message["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["function"]["name"], "get_weather");
    assert_eq!(
        calls[1]["function"]["arguments"],
        r#"{"city": "São Paulo"}"#
    );
    assert_eq!(
        message["reasoning"],
        "The user wants the weather in two cities."
    );
    assert_eq!(message["diagnostics"], serde_json::json!([]));
}

/// `toolcall format-file F` writes a file that `--format-file` reads as F.
#[test]
fn a_written_format_file_parses_as_its_format() {
    for format in ["glm47", "hermes", "kimi_k2", "openai"] {
        let input = repo_root().join(format!("tests/fixtures/{format}/two_calls.txt"));
        let written = toolcall(&["format-file", format]);
        assert!(written.status.success());
        let file = scratch(
            &format!("{format}.toml"),
            std::str::from_utf8(&written.stdout).unwrap(),
        );
        let input = input.to_str().unwrap();
        let built_in = json(&toolcall(&[
            "parse",
            "--sequential-ids",
            "-f",
            format,
            input,
        ]));
        let copy = json(&toolcall(&[
            "parse",
            "--sequential-ids",
            "--format-file",
            file.to_str().unwrap(),
            input,
        ]));
        assert_eq!(copy["tool_calls"].as_array().unwrap().len(), 2, "{format}");
        assert_eq!(copy, built_in, "{format}");
    }
}

#[test]
fn a_broken_format_file_is_one_line_naming_file_line_and_rule() {
    let file = scratch(
        "broken.toml",
        "name = \"b\"\nbase = \"glm45\"\n[names]\nfunction_end = \"<\"\n",
    );
    let output = toolcall(&[
        "parse",
        "--format-file",
        file.to_str().unwrap(),
        "/dev/null",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(
        stderr,
        format!(
            "toolcall: format file {}: line 4: names end at '<', which starts a marker \
             (rule: names end at a byte no marker starts with)\n",
            file.display()
        )
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn format_file_and_format_are_one_or_the_other() {
    let file = repo_root().join("examples/formats/acme_coder.toml");
    let output = toolcall(&[
        "parse",
        "--format",
        "glm45",
        "--format-file",
        file.to_str().unwrap(),
        "/dev/null",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot be used with"));
    let output = toolcall(&["format-file", "auto"]);
    assert_eq!(output.status.code(), Some(2));
}
