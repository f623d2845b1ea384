//! `toolcall constraint`: the grammar of a format's calls, on stdout; a
//! request it cannot serve is exit code 2 with the reason on stderr.

use crate::{path_str, run, scratch};

const TOOLS: &str = r#"[{"type": "function", "function": {"name": "get_weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"},
    "days": {"type": "integer"}}, "required": ["city"]}}}]"#;

#[test]
fn prints_the_lark_grammar_of_a_formats_calls() {
    let tools = scratch("constraint-tools.json", TOOLS);
    let out = run(
        &[
            "constraint",
            "--format",
            "qwen3_coder",
            "--tools",
            path_str(&tools),
        ],
        None,
    );
    out.assert_success();
    assert!(out.stdout.starts_with("%llguidance {}"), "{}", out.stdout);
    assert!(out.stdout.contains(r#""<function=get_weather>""#));
    assert!(out.stdout.contains(r#""<parameter=days>""#));
    // A required parameter is not optional; the other is.
    assert!(out
        .stdout
        .contains(r#"params_0: p_0_0 "\n"? (p_0_1 "\n"?)?"#));

    let lazy = run(
        &[
            "constraint",
            "-f",
            "glm47",
            "--tools",
            path_str(&tools),
            "--mode",
            "lazy",
            "--reasoning",
        ],
        None,
    );
    lazy.assert_success();
    assert!(
        lazy.stdout.contains(r#"before[lazy]: LEAD? "<tool_call>""#),
        "{}",
        lazy.stdout
    );
    assert!(lazy.stdout.contains(r#"think: "<think>"?"#));
}

#[test]
fn prints_the_structural_tag_as_json() {
    let tools = scratch("constraint-tools-3.json", TOOLS);
    let out = run(
        &[
            "constraint",
            "-f",
            "qwen3_coder",
            "--tools",
            path_str(&tools),
            "--dialect",
            "structural-tag",
            "--mode",
            "lazy",
        ],
        None,
    );
    out.assert_success();
    let tag: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
    assert_eq!(tag["type"], "structural_tag");
    assert_eq!(tag["format"]["type"], "triggered_tags");
    assert_eq!(tag["format"]["triggers"][0], "<tool_call>");
    assert!(
        out.stdout.contains(r#""begin":"<parameter=city>""#),
        "{}",
        out.stdout
    );
}

#[test]
fn requests_it_cannot_serve_are_exit_code_2() {
    let tools = scratch("constraint-tools-2.json", TOOLS);
    let tools = path_str(&tools);
    // A format of one's own in a shape with no grammar: JSON calls in a
    // wrapper, or bare at any line's start.
    let unwritten = scratch(
        "constraint-unwritten.toml",
        "name = \"lines_and_tags\"\n[markers]\ncall_open = \"<tool_call>\"\n\
         call_close = \"</tool_call>\"\n[json]\nopen_at_line_start = true\n\
         [json.body]\nname = [\"name\"]\narguments = [\"arguments\"]\n",
    );
    let unwritten = path_str(&unwritten);
    for (args, says) in [
        (
            vec![
                "constraint",
                "-f",
                "hermes",
                "--tools",
                tools,
                "--mode",
                "named:nope",
            ],
            "`nope` is not among the request's tools",
        ),
        (
            vec!["constraint", "--format-file", unwritten, "--tools", tools],
            "no grammar for the `lines_and_tags` format yet",
        ),
        (
            vec![
                "constraint",
                "-f",
                "hermes",
                "--tools",
                tools,
                "--mode",
                "some",
            ],
            "expected \"lazy\", \"required\" or \"named:NAME\"",
        ),
    ] {
        let out = run(&args, None);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", out.stderr);
        assert!(out.stderr.contains(says), "{args:?}: {}", out.stderr);
        assert!(out.stdout.is_empty());
    }
}
