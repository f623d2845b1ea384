//! `calls_in_code_blocks(false)`: markers inside a fenced code block of the
//! text outside calls are content, for every format, at every split.

mod common;

use toolcall_stream::{coalesce, DiagnosticKind, Format, Message, Parser, Role};

fn parser(format: Format, calls: bool) -> Parser {
    Parser::builder()
        .format(format)
        .calls_in_code_blocks(calls)
        .ids(toolcall_stream::Ids::sequential("call_"))
        .build()
}

/// For each format, a fixture whose calls read cleanly (no diagnostic),
/// also after a line of text (calls that open anywhere).
fn clean_calls() -> Vec<(Format, String)> {
    static CALLS: std::sync::OnceLock<Vec<(Format, String)>> = std::sync::OnceLock::new();
    CALLS.get_or_init(find_clean_calls).clone()
}

fn find_clean_calls() -> Vec<(Format, String)> {
    let mut found = Vec::new();
    for format in Format::ALL {
        let pick = common::fixtures().into_iter().find(|f| {
            if f.format != *format || f.tools.is_some() || f.strict || f.hold_text_after_wrapper {
                return false;
            }
            let Ok(text) = std::str::from_utf8(&f.input) else {
                return false;
            };
            // Calls that open anywhere (not only the output, as a bare
            // list or object may), and read cleanly.
            let message = parser(*format, true).parse(format!("Text.\n{text}"));
            !message.tool_calls.is_empty() && message.diagnostics.is_empty()
        });
        if let Some(fixture) = pick {
            // The model's end of turn ends the output wherever it is, a
            // code block too: the examples here go on after it.
            let mut text = String::from_utf8(fixture.input).unwrap();
            for (_, marker) in format.markers().filter(|(r, _)| *r == Role::EndOfTurn) {
                text = text.replace(marker, "");
            }
            found.push((*format, text));
        }
    }
    found
}

fn check_every_split(format: Format, calls: bool, text: &str) -> Message {
    let mut p = parser(format, calls);
    let whole = coalesce(common::one_shot(&mut p, text.as_bytes()));
    for size in [1, 2, 3, 7] {
        let split = coalesce(common::chunked(&mut p, text.as_bytes(), size));
        assert_eq!(split, whole, "{format}, chunks of {size}: {text:?}");
    }
    common::message_of(&whole)
}

#[test]
fn a_call_inside_a_code_block_is_content_and_one_after_it_is_a_call() {
    let cases = clean_calls();
    assert!(
        cases.len() >= 20,
        "{} formats with a clean fixture",
        cases.len()
    );
    for (format, call) in cases {
        if format == Format::BareJson {
            // Its calls may be fenced: a fence is its own syntax.
            continue;
        }
        let calls = parser(format, true).parse(&call).tool_calls.len();
        for fence in ["```", "~~~", "````python", "  ```"] {
            let close = fence.trim_start().trim_end_matches("python");
            let block = format!("For example:\n{fence}\n{call}\n{close}\n");
            // By default, as every server reads it: the calls count.
            assert_eq!(
                parser(format, true).parse(&block).tool_calls.len(),
                calls,
                "{format} {fence}"
            );
            let message = check_every_split(format, false, &block);
            assert!(
                message.tool_calls.is_empty(),
                "{format} {fence}: {message:?}"
            );
            assert_eq!(message.content.as_deref(), Some(block.as_str()), "{format}");
            // After the block, the same call is a call.
            let after = format!("{block}Now for real:\n{call}");
            let message = check_every_split(format, false, &after);
            assert_eq!(
                message.tool_calls.len(),
                calls,
                "{format} {fence}: {after:?}"
            );
        }
    }
}

#[test]
fn backticks_that_do_not_open_a_block_leave_calls_alone() {
    for (format, call) in clean_calls() {
        if format == Format::BareJson {
            continue;
        }
        let calls = parser(format, true).parse(&call).tool_calls.len();
        for before in ["Use ``` to fence.\n", "    ```\n", "``\n", "```\nx\n```\n"] {
            let text = format!("{before}{call}");
            let message = check_every_split(format, false, &text);
            assert_eq!(message.tool_calls.len(), calls, "{format}: {text:?}");
        }
    }
}

#[test]
fn auto_and_the_foreign_watch_skip_code_blocks_too() {
    let hermes = "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";
    let block = format!("Like this:\n```\n{hermes}\n```\n");
    let message = check_every_split(Format::Auto, false, &block);
    assert!(message.tool_calls.is_empty(), "{message:?}");
    assert_eq!(message.content.as_deref(), Some(block.as_str()));
    let message = check_every_split(Format::Auto, false, &format!("{block}{hermes}"));
    assert_eq!(message.tool_calls.len(), 1);

    // A Hermes call under `qwen3_coder`: reported outside a block only.
    let kinds = |text: &str| -> Vec<DiagnosticKind> {
        parser(Format::Qwen3Coder, false)
            .parse(text)
            .diagnostics
            .iter()
            .map(|d| d.kind)
            .collect()
    };
    assert!(kinds(&block).is_empty());
    assert_eq!(kinds(hermes), [DiagnosticKind::ForeignFormat]);
}

#[test]
fn code_blocks_inside_values_are_values() {
    let text = "<tool_call>\n<function=write_file>\n<parameter=content>\n```\n<tool_call>\n```\n</parameter>\n</function>\n</tool_call>\nAfter.";
    let message = check_every_split(Format::Qwen3Coder, false, text);
    assert_eq!(message.tool_calls.len(), 1);
    assert!(message.tool_calls[0]
        .arguments
        .contains("```\\n<tool_call>\\n```"));
    assert_eq!(message.content.as_deref(), Some("\nAfter."));
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    /// Text made of fences, lines, backticks and a format's own call.
    fn soup(call: String) -> impl Strategy<Value = String> {
        let call = Just(call);
        let piece = prop_oneof![
            Just("```\n".to_owned()),
            Just("~~~\n".to_owned()),
            Just("  ````python\n".to_owned()),
            Just("``".to_owned()),
            Just("`".to_owned()),
            Just("\n".to_owned()),
            Just("    ```\n".to_owned()),
            Just("text ".to_owned()),
            Just("é ".to_owned()),
            call.clone(),
            call,
        ];
        prop::collection::vec(piece, 0..12).prop_map(|pieces| pieces.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn code_blocks_keep_split_invariance_and_the_contract(
            (format, text) in (0usize..64).prop_flat_map(|pick| {
                let cases = clean_calls();
                let (format, call) = cases[pick % cases.len()].clone();
                (Just(format), soup(call))
            }),
            seed in any::<u64>(),
        ) {
            for format in [format, Format::Auto] {
                let mut p = parser(format, false);
                let whole = common::one_shot(&mut p, text.as_bytes());
                common::check_contract(&whole, "one shot");
                let cuts = common::Rng(seed).cuts(text.len());
                let split = common::feed_cut(&mut p, text.as_bytes(), &cuts);
                common::check_contract(&split, "split");
                prop_assert_eq!(coalesce(split), coalesce(whole));
            }
        }
    }
}
