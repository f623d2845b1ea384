//! `toolcall parse`: the one OpenAI-style message it prints, its ids,
//! its input from a file or stdin, and what it makes of badly formed output.

use serde_json::json;

use crate::{
    arguments, check_message, diagnostic_kinds, fixture, parse_file, path_str, run, stream_events,
    transcript, UNCLOSED_PARAMETER,
};

#[test]
fn parse_prints_one_openai_message() {
    let out = run(
        &["parse", "--sequential-ids", path_str(&transcript())],
        None,
    );
    out.assert_success();
    assert!(out.stderr.is_empty(), "stderr: {}", out.stderr);
    assert!(out.stdout.ends_with('\n'));
    let message = out.json();
    check_message(&message);

    assert_eq!(
        message["content"],
        "I'll add the parser test first, then run the suite.\n\n"
    );
    let calls = message["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["id"], "call_0");
    assert_eq!(calls[1]["id"], "call_1");
    assert_eq!(calls[0]["function"]["name"], "write_file");
    assert_eq!(calls[1]["function"]["name"], "run_shell");

    let write = arguments(&calls[0]);
    assert_eq!(write["path"], "tests/test_parser.py");
    let content = write["content"].as_str().unwrap();
    assert!(content.starts_with("def test_closing_tag_inside_value():\n"));
    // The `</parameter>` inside the file is kept (lookahead termination).
    assert!(content.contains(r#"text = "<parameter=x>a </parameter> b</parameter>""#));
    assert!(content.ends_with(r#"assert parse(text)["x"] == "a </parameter> b""#));

    assert_eq!(
        arguments(&calls[1]),
        json!({
            "command": "pytest -q tests/test_parser.py && echo \"ok\" > /tmp/status",
            "timeout": "120",
        })
    );
    // Arguments text is written as vLLM writes it.
    assert_eq!(
        calls[1]["function"]["arguments"],
        r#"{"command": "pytest -q tests/test_parser.py && echo \"ok\" > /tmp/status", "timeout": "120"}"#
    );

    let diagnostics = message["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["kind"], "closer_in_value");
    assert_eq!(diagnostics[0]["index"], 0);
}

#[test]
fn parse_makes_random_vllm_style_ids_by_default() {
    let message = run(&["parse", path_str(&transcript())], None)
        .assert_success()
        .json();
    let calls = message["tool_calls"].as_array().unwrap();
    for call in calls {
        let id = call["id"].as_str().unwrap();
        let hex = id
            .strip_prefix("chatcmpl-tool-")
            .unwrap_or_else(|| panic!("{id}"));
        assert!(
            hex.len() == 16 && hex.bytes().all(|b| b.is_ascii_hexdigit()),
            "{id}"
        );
    }
    assert_ne!(calls[0]["id"], calls[1]["id"]);
}

#[test]
fn parse_reads_stdin_without_input_or_with_dash() {
    let input = std::fs::read(transcript()).unwrap();
    let from_file = run(
        &["parse", "--sequential-ids", path_str(&transcript())],
        None,
    );
    from_file.assert_success();
    for args in [
        &["parse", "--sequential-ids"][..],
        &["parse", "--sequential-ids", "-"][..],
    ] {
        let from_stdin = run(args, Some(&input));
        from_stdin.assert_success();
        assert_eq!(from_stdin.stdout, from_file.stdout, "{args:?}");
    }
}

#[test]
fn parse_of_empty_input_is_an_empty_message() {
    let message = run(&["parse"], Some(b"")).assert_success().json();
    assert_eq!(
        message,
        json!({"content": null, "tool_calls": [], "diagnostics": []})
    );
}

#[test]
fn badly_formed_output_exits_zero_with_a_diagnostic() {
    let out = run(
        &["parse", "--sequential-ids"],
        Some(UNCLOSED_PARAMETER.as_bytes()),
    );
    out.assert_success();
    let message = out.json();
    check_message(&message);
    assert_eq!(diagnostic_kinds(&message), ["unclosed_parameter"]);
    assert_eq!(
        arguments(&message["tool_calls"][0]),
        json!({"city": "Paris"})
    );

    // A call cut off by the end of the stream: kept, reported, incomplete.
    let truncated = b"<tool_call>\n<function=f>\n<parameter=a>\n1\n</param";
    let message = run(&["parse"], Some(truncated)).assert_success().json();
    assert!(
        diagnostic_kinds(&message).contains(&"truncated"),
        "{message}"
    );
    let events = stream_events(&run(&["stream"], Some(truncated)));
    let end = events
        .iter()
        .find(|e| e["type"] == "tool_call_end")
        .unwrap();
    assert_eq!(end["complete"], false);
    assert_eq!(end["arguments"], r#"{"a": "1"}"#);

    // Invalid UTF-8 is replaced and reported, not an error.
    let message = run(&["parse"], Some(b"a\xffb")).assert_success().json();
    assert_eq!(message["content"], "a\u{FFFD}b");
    assert_eq!(diagnostic_kinds(&message), ["invalid_utf8"]);
}

#[test]
fn value_termination_vllm_cuts_values_at_the_first_closer() {
    let path = fixture("closer_inside_value.txt");
    let lookahead = parse_file(&[], &path);
    let default_explicit = parse_file(&["--value-termination", "lookahead"], &path);
    let vllm = parse_file(&["--value-termination", "vllm"], &path);
    assert_eq!(lookahead, default_explicit);

    let kept = arguments(&lookahead["tool_calls"][0]);
    let cut = arguments(&vllm["tool_calls"][0]);
    assert_ne!(kept, cut);
    assert_eq!(kept["path"], "parser.py");
    assert_eq!(
        kept["content"],
        "A block ends with </parameter> here.\nAnd </function> or </tool_call> too."
    );
    assert_eq!(
        cut,
        json!({"path": "parser.py", "content": "A block ends with "})
    );
    assert!(diagnostic_kinds(&lookahead).contains(&"closer_in_value"));
    assert!(diagnostic_kinds(&vllm).contains(&"stray_text"));
}

#[test]
fn no_foreign_watch_leaves_out_only_the_foreign_format_report() {
    // A Hermes call under Qwen3-Coder is content either way.
    let text = "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>";
    let parse = |extra: &[&str]| {
        let mut args = vec!["parse", "--format", "qwen3_coder", "--sequential-ids"];
        args.extend_from_slice(extra);
        let out = run(&args, Some(text.as_bytes()));
        out.assert_success();
        out.json()
    };
    let watched = parse(&[]);
    assert_eq!(diagnostic_kinds(&watched), ["foreign_format"]);
    let unwatched = parse(&["--no-foreign-watch"]);
    assert!(diagnostic_kinds(&unwatched).is_empty());
    assert_eq!(watched["content"], text);
    assert_eq!(unwatched["content"], text);
}
