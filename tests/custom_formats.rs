//! Formats of a user's own run on the same engine as the built-in ones:
//! every built-in format written as a file and read back parses every
//! fixture as the built-in does, at every chunk size; a respelled format
//! keeps the split invariant; format files' errors name line and rule.
#![cfg(feature = "toml")]

mod common;

use common::{check_contract, chunked, feed_cut, fixtures, one_shot};
use toolcall_stream::{parse, DescriptionError, Format, FormatBuilder, NameEnd, Role};

#[test]
fn a_built_in_format_read_back_from_its_file_parses_every_fixture_alike() {
    let mut checked = 0;
    for fixture in fixtures() {
        let custom = Format::from_toml(&fixture.format.to_toml()).unwrap();
        let want = one_shot(&mut fixture.parser(), &fixture.input);
        let mut parser = fixture.builder().format(custom).build();
        for size in [usize::MAX, 7, 1] {
            let got = if size == usize::MAX {
                one_shot(&mut parser, &fixture.input)
            } else {
                chunked(&mut parser, &fixture.input, size)
            };
            let context = format!("{}/{} at {size}-byte chunks", fixture.format, fixture.name);
            check_contract(&got, &context);
            // Diagnostics name the parser's format; and a copy watches its
            // content for the built-in format it copies (`foreign_format`),
            // which the built-in itself does not.
            let got =
                without_foreign(common::render(got).replace(custom.name(), fixture.format.name()));
            assert_eq!(
                got,
                without_foreign(common::render(want.clone())),
                "{context}"
            );
        }
        checked += 1;
    }
    assert!(checked > 500, "only {checked} fixtures");
}

fn without_foreign(rendered: String) -> String {
    rendered
        .lines()
        .filter(|line| !line.contains(r#""kind":"foreign_format""#))
        .map(|line| format!("{line}\n"))
        .collect()
}

/// Qwen3-Coder's grammar with markers sharing prefixes with each other
/// and with text: every cut gives the one-shot events.
#[test]
fn a_respelled_format_gives_the_same_events_at_every_cut() {
    let format = FormatBuilder::based_on("respelled", Format::Qwen3Coder)
        .marker(Role::CallOpen, "[[call]]")
        .marker(Role::CallClose, "[[/call]]")
        .marker(Role::FuncOpen, "[[fn ")
        .marker(Role::FuncClose, "[[/fn]]")
        .marker(Role::ParamOpen, "[[p ")
        .marker(Role::ParamClose, "[[/p]]")
        .function_name_end(NameEnd::Byte(b'|'))
        .parameter_name_end(NameEnd::Byte(b'|'))
        .build()
        .unwrap();
    let inputs = [
        "Sure [[x]] [[call]]\n[[fn write|\n[[p path|\na.rs\n[[/p]]\n[[p body|\nfn f() { [[/p]] }\n[[/p]]\n[[/fn]]\n[[/call]] done [[",
        "[[call]][[fn f|[[p a|1[[/p]][[/fn]][[/call]][[call]][[fn g|[[/fn]][[/call]]",
        "[[call]][[fn f|[[p a|cut off",
    ];
    for input in inputs {
        let mut parser = common::parser(format, Default::default());
        let whole = one_shot(&mut parser, input.as_bytes());
        check_contract(&whole, input);
        for cut in 1..input.len() {
            let got = feed_cut(&mut parser, input.as_bytes(), &[cut]);
            assert_eq!(
                common::render(got),
                common::render(whole.clone()),
                "{input:?} cut at {cut}"
            );
        }
    }
    let message = parse(format, inputs[0]);
    assert_eq!(message.tool_calls.len(), 1);
    assert_eq!(
        message.tool_calls[0].arguments,
        r#"{"path": "a.rs", "body": "fn f() { [[/p]] }"}"#
    );
    // As Qwen3-Coder, the line end after the call is the call's layout.
    assert_eq!(message.content.as_deref(), Some("Sure [[x]]  done [["));
}

#[test]
fn a_format_from_scratch_names_what_it_needs() {
    let error = FormatBuilder::new("scratch")
        .marker(Role::CallOpen, "<c>")
        .build()
        .unwrap_err();
    assert_eq!(error, DescriptionError::MissingRole(Role::CallClose));
    assert_eq!(
        error.to_string(),
        "this layout needs a marker for call_close"
    );
    let format = FormatBuilder::new("scratch")
        .marker(Role::CallOpen, "<c>")
        .marker(Role::CallClose, "</c>")
        .marker(Role::ParamOpen, "<k>")
        .marker(Role::KeyClose, "</k>")
        .marker(Role::ParamClose, "</v>")
        .function_name_end(NameEnd::Marker { line: true })
        .build()
        .unwrap();
    let message = parse(format, "<c>f\n<k>a</k>1</v></c>");
    assert_eq!(message.tool_calls[0].name, "f");
    assert_eq!(message.tool_calls[0].arguments, r#"{"a": "1"}"#);
}

/// Each broken file: the line the error names, and the rule.
#[test]
fn format_file_errors_name_the_line_and_the_rule() {
    let cases: &[(&str, usize, &str)] = &[
        (
            "name = \"a\"\nbase = \"qwen3_coder\"\n[markers]\ncall_open = \"\"\n",
            4,
            "markers are not empty",
        ),
        (
            "name = \"a\"\nbase = \"qwen3_coder\"\n\n[markers]\ncall_close = \"<tool_call>x\"\n",
            5,
            "no marker is the start of another",
        ),
        (
            "name = \"a\"\nbase = \"qwen3_coder\"\n[markers]\nfunction_open = \"<f<tool_call>x\"\n",
            4,
            "no marker holds another after its first byte, but as its end",
        ),
        (
            "name = \"a\"\nbase = \"glm45\"\n[markers]\ncall_close = []\n",
            3,
            "the layout's roles are spelled",
        ),
        (
            "name = \"a\"\nbase = \"qwen3_coder\"\n[names]\nfunction_end = \"<\"\n",
            4,
            "names end at a byte no marker starts with",
        ),
        (
            "name = \"a\"\nbase = \"qwen3_coder\"\n[values]\njson_attribute = [\"string\", \"false\"]\n",
            4,
            "attributes follow quoted names",
        ),
        (
            "name = \"a\"\nbase = \"qwen3_coder\"\n[grammar]\ncall_confirmed_by = [\"arguments_open\"]\n",
            4,
            "the grammar's roles are spelled",
        ),
        (
            "\n\nname = \"hermes\"\nbase = \"qwen3_coder\"\n",
            3,
            "a format has a name of its own",
        ),
        (
            "name = \"a\"\nbase = \"hermes\"\n[json.body]\nname = [\"name\"]\n",
            3,
            "JSON keys are not empty",
        ),
        // An id before the name where no JSON arguments follow a name.
        (
            "name = \"a\"\nbase = \"hermes\"\n[json]\nid_before_name = true\n",
            4,
            "an id before the name needs JSON arguments after a name that ends at a marker",
        ),
        // ... and with no `id_open` to end the id: the setting is to blame.
        (
            "name = \"a\"\nbase = \"mistral\"\n[markers]\nid_open = []\n[json]\nid_before_name = true\n",
            6,
            "the layout's roles are spelled",
        ),
        (
            "name = \"a\"\nbase = \"qwen3_coder\"\n[markers]\nfunction_opener = \"<f=\"\n",
            4,
            "a format file is TOML with the documented keys",
        ),
        (
            "name = \"a\"\nbase = \"qwen3_coder\"\n[names]\nfunction_end = \"=>\"\n",
            4,
            "a format file is TOML with the documented keys",
        ),
        (
            "name = \"a\"\nbase = \"qwen9\"\n",
            2,
            "a format file is TOML with the documented keys",
        ),
        (
            "name = \"a\"\n[markers\n",
            2,
            "a format file is TOML with the documented keys",
        ),
        (
            "name = \"a\"\nbase = \"qwen3_coder\"\ncolour = \"red\"\n",
            3,
            "a format file is TOML with the documented keys",
        ),
    ];
    for &(file, line, rule) in cases {
        let error = Format::from_toml(file).unwrap_err();
        assert_eq!(error.rule(), rule, "{file}\n{error}");
        assert_eq!(error.line(), Some(line), "{file}\n{error}");
        assert!(
            error.to_string().starts_with(&format!("line {line}")),
            "{error}"
        );
    }
}

#[test]
fn an_unknown_role_lists_the_roles() {
    let error = Format::from_toml("name = \"a\"\n[markers]\nopen = \"<o>\"\n").unwrap_err();
    let message = error.to_string();
    assert!(message.contains("unknown role \"open\""), "{message}");
    assert!(
        message.contains("call_open, call_close, function_open"),
        "{message}"
    );
    assert_eq!(error.column(), Some(1));
}

fn reference() -> String {
    std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/custom-formats.md"
    ))
    .unwrap()
}

/// Every format file the reference shows is one, and the bundled example
/// is the one it shows.
#[test]
fn the_references_format_files_read() {
    let doc = reference();
    let blocks: Vec<&str> = doc
        .split("```toml\n")
        .skip(1)
        .map(|rest| rest.split("```").next().unwrap())
        .collect();
    assert!(!blocks.is_empty());
    for block in &blocks {
        Format::from_toml(block).unwrap_or_else(|e| panic!("{e}\n{block}"));
    }
    let example = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/formats/acme_coder.toml"
    ))
    .unwrap();
    let shown = blocks[0];
    assert!(
        example.ends_with(shown.split_once("\nname").map(|(_, rest)| rest).unwrap()),
        "docs/custom-formats.md shows examples/formats/acme_coder.toml"
    );
}

/// The reference's roles table names every role, by its key and Rust name.
#[test]
fn the_references_roles_table_names_every_role() {
    let doc = reference();
    for role in Role::ALL {
        let row = format!("| `{}` | `Role::{:?}` |", role.key(), role);
        assert!(
            doc.contains(&row),
            "docs/custom-formats.md lacks the row {row}"
        );
    }
}

/// A checkpoint's marker suffix is a setting: every Hy fixture respelled
/// with another suffix (or none, as Hy3-preview writes) parses alike under
/// the format with that suffix, set from Rust or from a format file.
#[test]
fn a_marker_suffix_respells_every_marker() {
    let mut checked = 0;
    for fixture in fixtures() {
        let own = match fixture.format {
            Format::HyV3 => ":opensource",
            Format::HyV4 => ":6124c78e",
            _ => continue,
        };
        // (Fixtures of other checkpoints' spellings, which stay text.)
        if fixture.name.ends_with("_text") {
            continue;
        }
        let want = common::render(one_shot(&mut fixture.parser(), &fixture.input));
        for suffix in ["", ":0a1b2c3d"] {
            let input = String::from_utf8(fixture.input.clone())
                .unwrap()
                .replace(own, suffix);
            let from_rust = fixture.format.with_marker_suffix(suffix).unwrap();
            let file = format!(
                "name = \"hy_mine\"\nbase = \"{}\"\nmarker_suffix = \"{suffix}\"\n",
                fixture.format.name()
            );
            let from_file = Format::from_toml(&file).unwrap();
            assert_eq!(from_rust.name(), fixture.format.name());
            for format in [from_rust, from_file] {
                let mut parser = fixture.builder().format(format).build();
                let got = common::render(one_shot(&mut parser, input.as_bytes()))
                    .replace(suffix, "")
                    .replace(format.name(), fixture.format.name());
                let context = format!("{}/{} with {suffix:?}", fixture.format, fixture.name);
                let want = want.replace(own, "");
                // Spans shift with the suffix's length: compare the rest.
                let strip = |s: &str| -> String {
                    s.lines()
                        .map(|l| l.split(",\"span\"").next().unwrap_or(l).to_owned() + "\n")
                        .collect()
                };
                assert_eq!(strip(&got), strip(&want), "{context}");
            }
            let chunked_got = chunked(
                &mut fixture.builder().format(from_rust).build(),
                input.as_bytes(),
                3,
            );
            check_contract(&chunked_got, &fixture.name);
        }
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} Hy fixtures");
    // The format's own suffix is the format itself; a suffix that breaks a
    // marker rule is refused as any description is.
    assert_eq!(
        Format::HyV4.with_marker_suffix(":6124c78e"),
        Ok(Format::HyV4)
    );
    let written = Format::HyV3.to_toml();
    assert!(
        written.contains("marker_suffix = \":opensource\""),
        "{written}"
    );
    assert!(
        written.contains("call_open = \"<tool_calls>\""),
        "{written}"
    );
}

/// The reference's worked example: a made-up model's file, from nothing,
/// reads the sample the reference shows; the file is the one it shows.
#[test]
fn the_references_made_up_model_reads_its_calls() {
    let root = env!("CARGO_MANIFEST_DIR");
    let file = std::fs::read_to_string(format!("{root}/examples/formats/made_up.toml")).unwrap();
    let sample = std::fs::read_to_string(format!("{root}/examples/formats/made_up.txt")).unwrap();
    assert!(
        reference().contains(&format!("```toml\n{file}```")),
        "docs/custom-formats.md shows examples/formats/made_up.toml"
    );
    let message = parse(Format::from_toml(&file).unwrap(), &sample);
    assert_eq!(message.tool_calls.len(), 1, "{message:?}");
    assert_eq!(message.tool_calls[0].name, "get_weather");
    assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris"}"#);
    assert!(message.diagnostics.is_empty(), "{message:?}");
}

const MADE_UP: &str = "name = \"made_up\"\n\n[markers]\ncall_open = \"<<CALL \"\n\
                       arguments_open = \">>\"\ncall_close = \"<<END>>\"\n\n\
                       [json]\narguments_after_name = true\n";

/// `call_confirmed_by = []` is what leaving it out is: the marker that
/// ends the name confirms the call, in JSON and in marked-up layouts.
#[test]
fn an_empty_call_confirmed_by_makes_the_names_end_enough() {
    let sample = "Sure.<<CALL get_weather>>{\"city\": \"Paris\"}<<END>>";
    for file in [
        MADE_UP.to_owned(),
        format!("{MADE_UP}\n[grammar]\ncall_confirmed_by = []\n"),
    ] {
        let message = parse(Format::from_toml(&file).unwrap(), sample);
        assert_eq!(message.content.as_deref(), Some("Sure."), "{file}");
        assert_eq!(message.tool_calls[0].name, "get_weather", "{file}");
        assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris"}"#);
    }
    // Marked up, names ending at a marker: the parameter opener ends the
    // name and confirms the call; a function closer, a call with none.
    let marked = "name = \"marked\"\n[markers]\ncall_open = \"[c]\"\ncall_close = \"[/c]\"\n\
                  parameter_open = \"<k>\"\nkey_close = \"</k>\"\nparameter_close = \"</v>\"\n\
                  [grammar]\ncall_confirmed_by = []\n";
    let message = parse(
        Format::from_toml(marked).unwrap(),
        "[c]f<k>a</k>1</v>[/c] [c]g[/c]",
    );
    let calls: Vec<(&str, &str)> = message
        .tool_calls
        .iter()
        .map(|c| (c.name.as_str(), c.arguments.as_str()))
        .collect();
    assert_eq!(calls, [("f", r#"{"a": "1"}"#), ("g", "{}")]);
}

/// What cannot work is refused, on the line that holds the spelling or
/// key, with the rule named.
#[test]
fn format_files_that_could_read_nothing_are_refused_on_their_line() {
    let shared = MADE_UP.replace("arguments_open = \">>\"", "arguments_open = \"<<END>>\"");
    let error = Format::from_toml(&shared).unwrap_err();
    assert_eq!(error.rule(), "one spelling has one role");
    assert_eq!(error.line(), Some(6), "{error}");
    assert_eq!(
        error.to_string(),
        "line 6: \"<<END>>\" spells both call_close and arguments_open; give each role a \
         spelling of its own (rule: one spelling has one role)"
    );
    // A misspelling that is another role's marker.
    let error = Format::from_toml(
        "name = \"a\"\nbase = \"qwen3_coder\"\n[misspellings]\nfunction_open = \"</function>\"\n",
    )
    .unwrap_err();
    assert_eq!(
        (error.rule(), error.line()),
        ("one spelling has one role", Some(4)),
        "{error}"
    );
    // The marker written last is the one blamed: `<` on line 5 makes
    // `<<CALL ` (line 4) unreadable.
    let prefix = MADE_UP.replace("arguments_open = \">>\"", "arguments_open = \"<\"");
    let error = Format::from_toml(&prefix).unwrap_err();
    assert_eq!(
        (error.rule(), error.line()),
        ("no marker is the start of another", Some(5)),
        "{error}"
    );
    // Bare functions that no marker could confirm.
    let error = Format::from_toml(
        "name = \"a\"\nbase = \"qwen3_coder\"\n[grammar]\nbare_confirmed_by = []\n",
    )
    .unwrap_err();
    assert_eq!(
        (error.rule(), error.line()),
        ("every way to open a call can be confirmed", Some(4)),
        "{error}"
    );
    let error = Format::from_toml(
        "name = \"a\"\nbase = \"glm45\"\n[markers]\nfunction_open = \"<f>\"\n\
         [recoveries]\nbare_function = true\n",
    )
    .unwrap_err();
    assert_eq!(
        (error.rule(), error.line()),
        ("every way to open a call can be confirmed", Some(6)),
        "{error}"
    );
    // A role the grammar names but nothing spells: the key that names it.
    let error = Format::from_toml(
        "name = \"a\"\nbase = \"qwen3_coder\"\n[grammar]\nparameter_open_at_line_start = true\n\
         bare_confirmed_by = [\"item_close\"]\n",
    )
    .unwrap_err();
    assert_eq!(
        (error.rule(), error.line()),
        ("the grammar's roles are spelled", Some(5)),
        "{error}"
    );
    // JSON after a name with no `arguments_open`: the setting's line.
    let error = Format::from_toml(
        "name = \"a\"\n[markers]\ncall_open = \"<c>\"\ncall_close = \"</c>\"\n[json]\n\
         arguments_after_name = true\n",
    )
    .unwrap_err();
    assert_eq!(
        (error.rule(), error.line()),
        ("the layout's roles are spelled", Some(6)),
        "{error}"
    );
}
