//! Picking the format: `--format` names and aliases, `--model` names,
//! and the lists `--help` and a wrong name print.

use toolcall_stream::Format;

use crate::{path_str, repo_root, run, UNCLOSED_PARAMETER};

#[test]
fn the_qwen3_xml_name_is_accepted() {
    let a = run(
        &["parse", "--sequential-ids", "--format", "qwen3_xml"],
        Some(UNCLOSED_PARAMETER.as_bytes()),
    );
    let b = run(
        &["parse", "--sequential-ids", "-f", "qwen3_coder"],
        Some(UNCLOSED_PARAMETER.as_bytes()),
    );
    a.assert_success();
    b.assert_success();
    assert_eq!(a.stdout, b.stdout);
}

#[test]
fn format_names_ignore_case_and_dash_versus_underscore() {
    for command in ["parse", "stream"] {
        let expected = run(
            &[command, "--sequential-ids"],
            Some(UNCLOSED_PARAMETER.as_bytes()),
        );
        expected.assert_success();
        for name in ["QWEN3-CODER", "Qwen3_Xml", "qwen3-xml", "Qwen3_Coder"] {
            let out = run(
                &[command, "--sequential-ids", "--format", name],
                Some(UNCLOSED_PARAMETER.as_bytes()),
            );
            out.assert_success();
            assert_eq!(out.stdout, expected.stdout, "{command} --format {name}");
        }
    }
}

#[test]
fn model_names_pick_the_format() {
    for command in ["parse", "stream"] {
        for (model, format, fixture) in [
            ("zai-org/GLM-4.7", "glm47", "two_calls"),
            ("zai-org/GLM-4.5-Air", "glm45", "two_calls"),
            ("moonshotai/Kimi-K2-Instruct-0905", "kimi_k2", "two_calls"),
            ("openai/gpt-oss-120b", "openai", "two_calls"),
            ("NousResearch/Hermes-3-Llama-3.1-8B", "hermes", "two_calls"),
            ("qwen3-coder:30b", "qwen3_coder", "two_calls"),
        ] {
            let path = repo_root()
                .join("tests/fixtures")
                .join(format)
                .join(format!("{fixture}.txt"));
            let path = path_str(&path);
            let by_format = run(
                &[command, "--sequential-ids", "--format", format, path],
                None,
            );
            by_format.assert_success();
            let by_model = run(&[command, "--sequential-ids", "--model", model, path], None);
            by_model.assert_success();
            assert_eq!(
                by_model.stdout, by_format.stdout,
                "{command} --model {model}"
            );
            let calls = match command {
                "parse" => by_model.json()["tool_calls"].as_array().unwrap().len(),
                _ => by_model
                    .stdout
                    .matches("\"type\":\"tool_call_end\"")
                    .count(),
            };
            assert_eq!(calls, 2, "{command} --model {model}");
        }
    }
    // `--format` wins, and `--model` still names an `--openai` response.
    let glm = repo_root().join("tests/fixtures/glm47/two_calls.txt");
    let out = run(
        &[
            "parse",
            "--openai",
            "--format",
            "glm47",
            "--model",
            "my-deployment",
            path_str(&glm),
        ],
        None,
    );
    out.assert_success();
    let completion = out.json();
    assert_eq!(completion["model"], "my-deployment");
    assert_eq!(
        completion["choices"][0]["message"]["tool_calls"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let out = run(
        &[
            "parse",
            "--openai",
            "--model",
            "zai-org/GLM-4.7",
            path_str(&glm),
        ],
        None,
    );
    assert_eq!(out.assert_success().json()["model"], "zai-org/GLM-4.7");
}

#[test]
fn an_unknown_model_is_a_usage_error_that_lists_the_names() {
    for command in ["parse", "stream"] {
        let out = run(&[command, "--model", "my-org/my-model"], Some(b"hello"));
        out.assert_usage_error();
        for wanted in [
            "my-org/my-model",
            "--format",
            "qwen3-coder (qwen3_coder)",
            "gpt-oss (openai)",
        ] {
            assert!(out.stderr.contains(wanted), "{wanted}: {}", out.stderr);
        }
    }
}

#[test]
fn help_lists_every_format_with_its_aliases() {
    assert!(!Format::ALL.is_empty());
    for command in ["parse", "stream"] {
        let out = run(&[command, "--help"], None);
        out.assert_success();
        for format in Format::ALL {
            // One line per format, its aliases on it.
            let prefix = format!("- {}", format.name());
            let line = out
                .stdout
                .lines()
                .find(|line| line.trim_start().starts_with(&prefix))
                .unwrap_or_else(|| panic!("{command} --help lacks {prefix}: {}", out.stdout));
            for alias in format.aliases() {
                assert!(
                    line.contains(alias),
                    "{command} --help: {line:?} lacks {alias}"
                );
            }
        }
    }
    // A wrong name is told what the right ones are.
    let out = run(&["parse", "--format", "qwen2"], None);
    out.assert_usage_error();
    for format in Format::ALL {
        assert!(out.stderr.contains(format.name()), "{}", out.stderr);
        for alias in format.aliases() {
            assert!(out.stderr.contains(alias), "{}", out.stderr);
        }
    }
}
