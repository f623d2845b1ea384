//! Fatal errors (unreadable input, bad tools files) and usage errors.

use crate::{path_str, repo_root, run, scratch, transcript};

#[test]
fn unreadable_input_is_a_fatal_error() {
    let missing = repo_root().join("tests/fixtures/no-such-file.txt");
    for args in [
        &["parse", path_str(&missing)][..],
        &["stream", path_str(&missing)][..],
        &["stream", "--summary", path_str(&missing)][..],
    ] {
        let out = run(args, None);
        out.assert_fatal();
        assert!(out.stderr.contains("no-such-file.txt"), "{}", out.stderr);
    }
    // A directory is not readable as input either.
    run(&["parse", path_str(repo_root())], None).assert_fatal();
}

#[test]
fn bad_tools_files_are_fatal_errors() {
    let missing = repo_root().join("tests/fixtures/no-such-tools.json");
    let not_json = scratch("tools-not-json.json", "{ not json");
    let not_array = scratch("tools-not-array.json", r#"{"type": "function"}"#);
    let no_name = scratch(
        "tools-no-name.json",
        r#"[{"type": "function", "function": {}}]"#,
    );
    for tools in [&missing, &not_json, &not_array, &no_name] {
        for command in ["parse", "stream"] {
            let out = run(
                &[command, "--tools", path_str(tools), path_str(&transcript())],
                None,
            );
            out.assert_fatal();
            let name = tools.file_name().unwrap().to_str().unwrap();
            assert!(out.stderr.contains(name), "{}", out.stderr);
        }
    }
}

#[test]
fn bad_arguments_are_usage_errors() {
    let input = path_str(&transcript()).to_owned();
    for args in [
        &["parse", "--format", "nope", &input][..],
        &["stream", "--format", "nope", &input][..],
        &["parse", "--value-termination", "sometimes", &input][..],
        &["stream", "--chunk-size", "0", &input][..],
        &["stream", "--chunk-size", "-3", &input][..],
        &["stream", "--chunk-size", "many", &input][..],
        &["parse", "--no-such-flag", &input][..],
        &["parse", "--chunk-size", "4", &input][..],
        &["parse", "--lean", &input][..],
        &["parse", "--format", "qwen3 coder", &input][..],
        &["parse", "--max-calls", "-1", &input][..],
        &["stream", "--max-parameters", "many", &input][..],
        &["parse", "--lookahead", "1.5", &input][..],
        &["stream", "--max-name-len", "", &input][..],
        &["frobnicate"][..],
        &[][..],
    ] {
        let out = run(args, None);
        out.assert_usage_error();
    }
    let out = run(&["parse", "--format", "nope", &input], None);
    assert!(out.stderr.contains("nope"), "{}", out.stderr);
}
