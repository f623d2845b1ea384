//! The limit flags (`--max-calls`, `--max-parameters`, `--max-name-len`,
//! `--lookahead`) in `parse` and `stream`, and their defaults.

use serde_json::{json, Value};
use toolcall_stream::Limits;

use crate::{
    arguments, check_message, diagnostic_kinds, merge, parse_file, run, stream_events, transcript,
    Merged,
};

fn parse_stdin(extra: &[&str], input: &str) -> Value {
    let mut args = vec!["parse", "--sequential-ids"];
    args.extend_from_slice(extra);
    let message = run(&args, Some(input.as_bytes())).assert_success().json();
    check_message(&message);
    message
}

fn stream_stdin(extra: &[&str], input: &str) -> Merged {
    let mut args = vec!["stream", "--sequential-ids", "--chunk-size", "3"];
    args.extend_from_slice(extra);
    merge(&stream_events(&run(&args, Some(input.as_bytes()))))
}

fn call_names(message: &Value) -> Vec<&str> {
    message["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|call| call["function"]["name"].as_str().unwrap())
        .collect()
}

fn merged_kinds(merged: &Merged) -> Vec<&str> {
    merged.diagnostics.iter().map(|d| d.1.as_str()).collect()
}

const CALL_F: &str =
    "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>";
const CALL_G: &str = "<tool_call>\n<function=g>\n</function>\n</tool_call>";

#[test]
fn max_calls_turns_later_calls_into_content() {
    let input = format!("{CALL_F}{CALL_G}");
    for flags in [&[][..], &["--max-calls", "2"][..]] {
        let message = parse_stdin(flags, &input);
        assert_eq!(call_names(&message), ["f", "g"], "{flags:?}");
        assert!(diagnostic_kinds(&message).is_empty(), "{message}");
    }

    let message = parse_stdin(&["--max-calls", "1"], &input);
    assert_eq!(call_names(&message), ["f"]);
    assert_eq!(message["content"], CALL_G);
    assert_eq!(diagnostic_kinds(&message), ["limit_exceeded"]);

    let merged = stream_stdin(&["--max-calls", "1"], &input);
    assert_eq!(merged.calls.len(), 1);
    assert_eq!(merged.content, CALL_G);
    assert_eq!(merged_kinds(&merged), ["limit_exceeded"]);
}

#[test]
fn max_parameters_ignores_further_parameters() {
    let input = "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n\
                 <parameter=b>\n2\n</parameter>\n</function>\n</tool_call>";
    for flags in [&[][..], &["--max-parameters", "2"][..]] {
        let message = parse_stdin(flags, input);
        assert_eq!(
            arguments(&message["tool_calls"][0]),
            json!({"a": "1", "b": "2"})
        );
        assert!(diagnostic_kinds(&message).is_empty(), "{message}");
    }

    let message = parse_stdin(&["--max-parameters", "1"], input);
    assert_eq!(arguments(&message["tool_calls"][0]), json!({"a": "1"}));
    assert_eq!(diagnostic_kinds(&message), ["limit_exceeded", "stray_text"]);

    // Arguments are missing, so the call is not complete.
    let merged = stream_stdin(&["--max-parameters", "1"], input);
    assert_eq!(merged.calls.len(), 1);
    assert_eq!(merged.calls[0].3, r#"{"a": "1"}"#);
    assert!(!merged.calls[0].4, "complete");
    assert_eq!(merged_kinds(&merged), ["limit_exceeded", "stray_text"]);
}

#[test]
fn max_name_len_makes_longer_names_text() {
    let input = "<tool_call>\n<function=get_weather>\n</function>\n</tool_call>";
    // "get_weather" is 11 bytes.
    for flags in [&[][..], &["--max-name-len", "11"][..]] {
        let message = parse_stdin(flags, input);
        assert_eq!(call_names(&message), ["get_weather"], "{flags:?}");
    }
    let message = parse_stdin(&["--max-name-len", "10"], input);
    assert!(call_names(&message).is_empty(), "{message}");
    assert_eq!(message["content"], input);

    let merged = stream_stdin(&["--max-name-len", "10"], input);
    assert!(merged.calls.is_empty());
    assert_eq!(merged.content, input);
}

#[test]
fn lookahead_bounds_the_wait_for_a_function_after_tool_call() {
    // 100 bytes of text between `<tool_call>` and `<function=`.
    let input = format!(
        "<tool_call>\n{}\n{}",
        "x".repeat(98),
        &CALL_F["<tool_call>\n".len()..]
    );
    let hold = "--hold-text-after-wrapper";
    for flags in [&[hold][..], &[hold, "--lookahead", "120"][..]] {
        // Within the window: the wrapper holds, the text is stray.
        let message = parse_stdin(flags, &input);
        assert_eq!(call_names(&message), ["f"], "{flags:?}");
        assert_eq!(diagnostic_kinds(&message), ["stray_text"], "{flags:?}");
    }
    // Past it, or by default (nothing held): `<tool_call>` was text, and
    // the call starts at `<function=`.
    for flags in [&[hold, "--lookahead", "50"][..], &[][..]] {
        let message = parse_stdin(flags, &input);
        assert_eq!(call_names(&message), ["f"]);
        assert!(message["content"]
            .as_str()
            .unwrap()
            .starts_with("<tool_call>\n"));
        assert_eq!(diagnostic_kinds(&message), ["missing_tool_call_open"]);

        let merged = stream_stdin(flags, &input);
        assert!(merged.content.starts_with("<tool_call>\n"));
        assert_eq!(merged_kinds(&merged), ["missing_tool_call_open"]);
    }
}

#[test]
fn limit_flags_default_to_limits_default() {
    let defaults = Limits::default();
    let flags = [
        ("--max-name-len", defaults.max_name_len),
        ("--lookahead", defaults.lookahead),
        ("--max-calls", defaults.max_calls),
        ("--max-parameters", defaults.max_parameters),
    ];
    for command in ["parse", "stream"] {
        let help = run(&[command, "-h"], None);
        help.assert_success();
        for (flag, value) in flags {
            let line = help
                .stdout
                .lines()
                .find(|line| line.trim_start().starts_with(flag))
                .unwrap_or_else(|| panic!("{command} -h lacks {flag}: {}", help.stdout));
            assert!(line.contains(&format!("[default: {value}]")), "{line}");
        }
    }
    // Given explicitly, the defaults change nothing.
    let values: Vec<String> = flags.iter().map(|(_, value)| value.to_string()).collect();
    let mut explicit = Vec::new();
    for ((flag, _), value) in flags.iter().zip(&values) {
        explicit.extend([*flag, value.as_str()]);
    }
    assert_eq!(
        parse_file(&explicit, &transcript()),
        parse_file(&[], &transcript())
    );
}
