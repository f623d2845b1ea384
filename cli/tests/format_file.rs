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

/// `toolcall format-file --check FILE SAMPLE`, run from the repository
/// root as docs/custom-formats.md runs it.
fn check(file: &str, sample: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolcall"))
        .current_dir(repo_root())
        .args(["format-file", "--check", file, sample])
        .output()
        .unwrap()
}

/// The `text` block that follows `after` in docs/custom-formats.md.
fn shown_after(after: &str) -> String {
    let doc = std::fs::read_to_string(repo_root().join("docs/custom-formats.md")).unwrap();
    let rest = &doc[doc.find(after).expect(after) + after.len()..];
    let block = &rest[rest.find("```text\n").unwrap() + 8..];
    block[..block.find("```").unwrap()].to_owned()
}

#[test]
fn check_prints_the_calls_of_a_good_sample_as_the_reference_shows() {
    let output = check(
        "examples/formats/made_up.toml",
        "examples/formats/made_up.txt",
    );
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(
        stdout,
        shown_after(
            "toolcall format-file --check examples/formats/made_up.toml examples/formats/made_up.txt"
        )
    );
}

#[test]
fn check_says_where_a_bad_sample_was_not_read_as_the_reference_shows() {
    let sample = scratch(
        "check-sample.txt",
        "<<CALL get_weather {\"city\": \"Paris\"}<<END>>",
    );
    let output = check("examples/formats/made_up.toml", sample.to_str().unwrap());
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    let shown = shown_after("(`<<CALL get_weather {\"city\": \"Paris\"}<<END>>`):");
    assert_eq!(
        stdout,
        shown.replacen("sample.txt", sample.to_str().unwrap(), 1)
    );
    assert!(stdout.contains("byte 0: `<<CALL ` (call_open) began no call"));
}

#[test]
fn check_refuses_a_file_that_breaks_a_rule_naming_its_line() {
    let file = scratch(
        "check-shared.toml",
        "name = \"made_up\"\n[markers]\ncall_open = \"<<CALL \"\narguments_open = \"<<END>>\"\n\
         call_close = \"<<END>>\"\n[json]\narguments_after_name = true\n",
    );
    let output = check(file.to_str().unwrap(), "examples/formats/made_up.txt");
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("line 5: \"<<END>>\" spells both call_close and arguments_open")
            && stderr.contains("(rule: one spelling has one role)"),
        "{stderr}"
    );
}
