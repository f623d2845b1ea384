//! Formats of a user's own: the builder, the rules only they can break,
//! and format files saying everything the built-in descriptions say.

#[cfg(feature = "toml")]
use super::owned::Owned;
use super::*;

#[test]
fn equal_descriptions_are_one_format_and_different_ones_two() {
    let build = |call_open: &str| {
        FormatBuilder::based_on("equal_test", Format::Qwen3Coder)
            .marker(Role::CallOpen, call_open)
            .build()
            .unwrap()
    };
    assert_eq!(build("<a>"), build("<a>"));
    assert_ne!(build("<a>"), build("<b>"));
    assert_eq!(build("<a>").name(), "equal_test");
    assert!(matches!(build("<a>"), Format::Custom(_)));
}

#[test]
fn a_name_is_its_own() {
    for name in ["", " ", "qwen3_coder", "Qwen3-Coder", "qwen3.5", "auto"] {
        let error = FormatBuilder::based_on(name, Format::Qwen3Coder)
            .build()
            .unwrap_err();
        assert_eq!(error, DescriptionError::Name(name.to_owned()), "{name:?}");
    }
    let error = FormatBuilder::based_on("mine", Format::Qwen3Coder)
        .alias("glm4")
        .build()
        .unwrap_err();
    assert_eq!(error, DescriptionError::Name("glm4".to_owned()));
}

#[test]
fn rules_only_a_users_description_can_break() {
    let qwen = || FormatBuilder::based_on("rules_test", Format::Qwen3Coder);
    assert_eq!(
        qwen().function_name_end(NameEnd::Byte(0xE2)).build(),
        Err(DescriptionError::NameEndNotAscii(0xE2))
    );
    assert_eq!(
        qwen().json_value_attribute("string", "false").build(),
        Err(DescriptionError::AttributeWithoutQuotedNames)
    );
    assert_eq!(
        FormatBuilder::based_on("rules_test", Format::Hermes)
            .json_body(["name"], Vec::<String>::new(), false)
            .build(),
        Err(DescriptionError::EmptyKeys("arguments"))
    );
    assert_eq!(
        qwen().wrapped_arguments(["arguments", ""]).build(),
        Err(DescriptionError::EmptyKeys("wrapped arguments"))
    );
    assert_eq!(
        FormatBuilder::based_on("rules_test", Format::Hermes)
            .json_nested_body_keys(["function", ""])
            .build(),
        Err(DescriptionError::EmptyKeys("nested body"))
    );
    // An id before the name, from Rust: JSON arguments after a name are
    // needed, and `IdOpen` to end the id.
    assert!(matches!(
        FormatBuilder::based_on("rules_test", Format::Hermes)
            .json_id_before_name(true)
            .build(),
        Err(DescriptionError::IdBeforeName(_))
    ));
    assert_eq!(
        FormatBuilder::based_on("rules_test", Format::Mistral)
            .markers(Role::IdOpen, Vec::<String>::new())
            .json_id_before_name(true)
            .build(),
        Err(DescriptionError::MissingRole(Role::IdOpen))
    );
    assert_eq!(
        qwen()
            .markers(Role::CallClose, Vec::<String>::new())
            .build(),
        Err(DescriptionError::MissingRole(Role::CallClose))
    );
}

/// A description with its markers and grammar lists in one order, for
/// comparing descriptions that list them differently.
#[cfg(feature = "toml")]
fn normal(mut owned: Owned) -> Owned {
    owned.name = String::new();
    owned.aliases.clear();
    owned.markers.sort_by_key(|(role, _)| *role);
    owned.follows.sort_by_key(|(closer, _)| *closer);
    if let Some(keys) = owned.json.as_mut().and_then(|json| json.body.as_mut()) {
        if keys.name_is_key {
            keys.name.clear();
            keys.arguments.clear();
        }
    }
    owned
}

#[cfg(feature = "toml")]
#[test]
fn every_built_in_description_reads_back_whole_from_its_format_file() {
    for &format in Format::ALL {
        // Format files cannot yet say a marked-up format's headers
        // (`Description::headers`).
        if format.description().headers.is_some() {
            continue;
        }
        let file = format.to_toml();
        let read =
            super::toml_file::builder_of(&file).unwrap_or_else(|e| panic!("{format}: {e}\n{file}"));
        assert_eq!(
            normal(read.owned().clone()),
            normal(Owned::of(format.description(), String::new())),
            "{format}:\n{file}"
        );
        let custom = Format::from_toml(&file).unwrap();
        assert_eq!(custom.name(), format!("custom_{}", format.name()));
    }
}

#[test]
fn a_users_call_syntax_is_checked_and_read() {
    let gemma = |delimiter: &str| {
        FormatBuilder::based_on("syntax_test", Format::Gemma4)
            .json_call_syntax(CallSyntax::Gemma {
                string_delimiter: delimiter.to_owned(),
            })
            .build()
    };
    for bad in ["", "<é>", "<<x>"] {
        assert_eq!(
            gemma(bad),
            Err(DescriptionError::StringDelimiter(bad.to_owned())),
            "{bad:?}"
        );
    }
    let format = gemma("<q>").unwrap();
    let message =
        crate::Parser::new(format).parse("<|tool_call>call:f{a:<q>x}<q>,n:2}<tool_call|>");
    assert_eq!(message.tool_calls[0].arguments, r#"{"a": "x}", "n": 2}"#);
}

#[cfg(feature = "toml")]
#[test]
fn a_format_file_names_its_syntax() {
    let file = |json: &str| {
        format!("name = \"file_syntax\"\n[markers]\ncall_open = \"<c>\"\ncall_close = \"</c>\"\n[json]\n{json}")
    };
    let python = Format::from_toml(&file("syntax = \"python\"")).unwrap();
    let message = crate::Parser::new(python).parse("<c>[f(a='x')]</c>");
    assert_eq!(message.tool_calls[0].arguments, r#"{"a": "x"}"#);
    for (json, wanted) in [
        (
            "syntax = \"gemma\"",
            "syntax \"gemma\" needs string_delimiter",
        ),
        (
            "syntax = \"python\"\nstring_delimiter = \"<q>\"",
            "string_delimiter is only for syntax \"gemma\"",
        ),
        (
            "string_delimiter = \"<q>\"",
            "string_delimiter is only for syntax \"gemma\"",
        ),
        (
            "syntax = \"yaml\"",
            "unknown syntax \"yaml\"; syntaxes: json, python, python_literal, gemma",
        ),
    ] {
        let error = Format::from_toml(&file(json)).unwrap_err().to_string();
        assert!(error.contains(wanted), "{json}: {error}");
    }
}

#[cfg(feature = "toml")]
#[test]
fn a_format_file_names_its_end_of_turn_tokens() {
    let file = |tokens: &str| {
        format!("name = \"file_turns\"\nbase = \"hermes\"\n[markers]\nend_of_turn = {tokens}\n")
    };
    let format = Format::from_toml(&file(r#"["<|im_end|>", "<eot>"]"#)).unwrap();
    let ends: Vec<&str> = format
        .markers()
        .filter(|(role, _)| *role == Role::EndOfTurn)
        .map(|(_, text)| text)
        .collect();
    assert_eq!(ends, ["<|im_end|>", "<eot>"]);
    let written = format.to_toml();
    assert!(
        written.contains(r#"end_of_turn = ["<|im_end|>", "<eot>"]"#),
        "{written}"
    );
    let message = crate::Parser::new(format).parse("Done.<eot>");
    assert_eq!(message.content.as_deref(), Some("Done."));
    // Checked as every marker is, and blamed on its line.
    let error = Format::from_toml(&file(r#""<tool_call""#)).unwrap_err();
    assert_eq!(error.line(), Some(4), "{error}");
    assert_eq!(error.rule(), "no marker is the start of another");
}

#[test]
fn a_users_element_syntax_is_checked_and_read() {
    let elements = |call: &str| {
        FormatBuilder::new("acme_elements")
            .marker(Role::CallOpen, "<calls>")
            .marker(Role::CallClose, "</calls>")
            .json_call_syntax(CallSyntax::Elements {
                tag_prefix: String::new(),
                call_element: call.to_owned(),
                name_attribute: "name".to_owned(),
                item_element: "item".to_owned(),
                value_elements: Vec::new(),
                id_attribute: String::new(),
                holds: Vec::new(),
            })
            .build()
    };
    assert_eq!(
        elements("").err(),
        Some(DescriptionError::EmptyKeys("elements"))
    );
    let format = elements("call").unwrap();
    let message = crate::Parser::new(format).parse(
        b"<calls><call name=\"f\"><q>a &lt; b</q><o><n>1</n><l><item>x</item></l></o></call></calls>",
    );
    assert_eq!(
        message.tool_calls[0].arguments,
        r#"{"q": "a < b", "o": {"n": "1", "l": ["x"]}}"#
    );
}

#[cfg(feature = "toml")]
#[test]
fn a_format_file_names_the_element_spellings() {
    let file = r#"
name = "acme_elements"
[markers]
call_open = "<calls>"
call_close = "</calls>"
[json]
syntax = "elements"
elements = { tag_prefix = "@", call_element = "call" }
"#;
    let format = Format::from_toml(file).unwrap();
    let message =
        crate::Parser::new(format).parse(b"<calls>@<call name=f>@ <q>x <y>@</q>@</call></calls>");
    assert_eq!(message.tool_calls[0].arguments, r#"{"q": "x <y>"}"#);
    let missing = file.replace(
        "elements = { tag_prefix = \"@\", call_element = \"call\" }\n",
        "",
    );
    assert!(Format::from_toml(&missing).is_err());
}

/// Values named by an attribute, what they hold said by another, and the
/// call's id in the call element (Cohere's cofl), in a user's own tags.
#[test]
fn value_elements_ids_and_holds_are_a_users_settings() {
    let holds = |k: &str, v: &str, h| (k.to_owned(), v.to_owned(), h);
    let format = FormatBuilder::new("acme_values")
        .marker(Role::CallOpen, "<calls>")
        .marker(Role::CallClose, "</calls>")
        .json_call_syntax(CallSyntax::Elements {
            tag_prefix: String::new(),
            call_element: "call".to_owned(),
            name_attribute: "key".to_owned(),
            item_element: String::new(),
            value_elements: vec!["v".to_owned()],
            id_attribute: "ref".to_owned(),
            holds: vec![
                holds("is", "text", ElementValue::String),
                holds("is", "json", ElementValue::Json),
                holds("is", "map", ElementValue::Object),
                holds("is", "seq", ElementValue::Array),
            ],
        })
        .build()
        .unwrap();
    let message = crate::Parser::new(format).parse(
        b"<calls><call key=\"f\" ref=\"r1\"><v key=\"a\" is=\"json\">[1, 2]</v>\
          <v key=\"m\" is=\"map\"><v key=\"s\" is=\"seq\"><v is=\"text\">x</v><v is=\"json\">2</v>\
          </v></v><v key=\"t\" is=\"text\"> 3 &amp; <b> </v></call></calls>",
    );
    let call = &message.tool_calls[0];
    assert_eq!((call.id.as_str(), call.name.as_str()), ("r1", "f"));
    assert_eq!(
        call.arguments,
        r#"{"a": [1, 2], "m": {"s": ["x", 2]}, "t": " 3 & <b> "}"#
    );
}

#[cfg(feature = "toml")]
#[test]
fn a_format_file_names_value_elements_and_what_they_hold() {
    let file = r#"
name = "acme_values"
[markers]
call_open = "<calls>"
call_close = "</calls>"
[json]
syntax = "elements"
elements = { call_element = "call", item_element = "", value_elements = ["v"], id_attribute = "id", holds = [{ attribute = "type", value = "json", holds = "json" }] }
"#;
    let format = Format::from_toml(file).unwrap();
    let message = crate::Parser::new(format).parse(
        b"<calls><call id=\"9\" name=\"f\"><v name=\"n\" type=\"json\">4</v></call></calls>",
    );
    assert_eq!(message.tool_calls[0].id, "9");
    assert_eq!(message.tool_calls[0].arguments, r#"{"n": 4}"#);
    let unknown = file.replace("holds = \"json\"", "holds = \"number\"");
    assert!(Format::from_toml(&unknown).is_err());
    // The description written back reads the same.
    let again = Format::from_toml(&format.to_toml()).unwrap();
    let message = crate::Parser::new(again).parse(
        b"<calls><call id=\"9\" name=\"f\"><v name=\"n\" type=\"json\">4</v></call></calls>",
    );
    assert_eq!(message.tool_calls[0].arguments, r#"{"n": 4}"#);
}

/// Sarashina's literal bodies and Solar Open's id before the name, in a
/// user's own markers: the settings, not the built-in descriptions, read them.
#[test]
fn literal_bodies_and_ids_before_names_are_a_users_settings() {
    let literal = FormatBuilder::based_on("literal_test", Format::Hermes)
        .json_call_syntax(CallSyntax::PythonLiteral)
        .build()
        .unwrap();
    let message = crate::Parser::new(literal)
        .parse("<tool_call>{'name': 'f', 'arguments': {'a': True, 'b': (1, None)}}</tool_call>");
    assert_eq!(message.tool_calls[0].name, "f");
    assert_eq!(
        message.tool_calls[0].arguments,
        r#"{"a": true, "b": [1, null]}"#
    );
    let id_first = FormatBuilder::based_on("id_first_test", Format::Mistral)
        .json_id_before_name(true)
        .build()
        .unwrap();
    let message =
        crate::Parser::new(id_first).parse("[TOOL_CALLS]abc123[CALL_ID]f[ARGS]{\"a\": 1}");
    assert_eq!(message.tool_calls[0].name, "f");
    assert_eq!(message.tool_calls[0].id, "abc123");
    assert_eq!(message.tool_calls[0].arguments, r#"{"a": 1}"#);
}

#[test]
fn unwrapped_functions_raw_sections_and_misspellings_are_a_users_too() {
    let built = |b: FormatBuilder| {
        b.marker(Role::FuncOpen, "<fn name=")
            .marker(Role::FuncClose, "</fn>")
            .marker(Role::ParamOpen, "<p name=")
            .marker(Role::ParamClose, "</p>")
            .marker(Role::RawOpen, "<![CDATA[")
            .marker(Role::RawClose, "]]>")
            .marker(Role::ParamsOpen, "<args>")
            .marker(Role::ParamsClose, "</args>")
            .function_name_end(NameEnd::Byte(b'>'))
            .parameter_name_end(NameEnd::Byte(b'>'))
            .quoted_names(true)
            .bare_confirmed_by([Role::ParamOpen, Role::ParamsOpen, Role::FuncClose])
    };
    // Without a wrapper, functions must stand alone.
    let wrapperless = FormatBuilder::new("unwrapped_test");
    assert_eq!(
        built(wrapperless.clone()).build(),
        Err(DescriptionError::MissingRole(Role::CallOpen))
    );
    let format = built(wrapperless.clone())
        .unwrapped_functions(true)
        .misspelling(Role::FuncOpen, "<fnname=")
        .build()
        .unwrap();
    let message = crate::Parser::new(format)
        .parse(r#"Hi <fnname="f"><args><p name="a"><![CDATA[x</p>y]]></p></args></fn>"#);
    assert_eq!(message.content.as_deref(), Some("Hi "));
    assert_eq!(message.tool_calls.len(), 1);
    assert_eq!(message.tool_calls[0].arguments, r#"{"a": "x</p>y"}"#);
    let kinds: Vec<&str> = message
        .diagnostics
        .iter()
        .map(|d| d.kind.as_str())
        .collect();
    assert_eq!(kinds, ["malformed_marker"]);
    // Only openers have misspellings, and they are markers for the rules.
    assert_eq!(
        built(wrapperless.clone())
            .unwrapped_functions(true)
            .misspelling(Role::ParamClose, "</pp>")
            .build(),
        Err(DescriptionError::MisspelledRole(Role::ParamClose))
    );
    assert_eq!(
        built(wrapperless)
            .unwrapped_functions(true)
            .misspelling(Role::FuncOpen, "<fn")
            .build(),
        Err(DescriptionError::Prefix("<fn".into(), "<fn name=".into()))
    );
}

#[cfg(feature = "toml")]
#[test]
fn a_format_file_says_unwrapped_functions_and_misspellings() {
    let file = "name = \"file_unwrapped\"\nbase = \"minicpm5\"\n[misspellings]\n\
                function_open = [\"<functionname=\", \"<func name=\"]\n[grammar]\n\
                unwrapped_functions = true\n";
    let format = Format::from_toml(file).unwrap();
    let message =
        crate::Parser::new(format).parse(r#"<func name="f"><param name="a">1</param></function>"#);
    assert_eq!(message.tool_calls.len(), 1);
    assert_eq!(message.diagnostics[0].kind.as_str(), "malformed_marker");
    let written = format.to_toml();
    assert!(written.contains("unwrapped_functions = true"), "{written}");
    assert!(
        written.contains(r#"function_open = ["<functionname=", "<func name="]"#),
        "{written}"
    );
    let error = Format::from_toml(&file.replace("function_open", "parameter_close")).unwrap_err();
    assert_eq!(error.rule(), "only openers have misspellings");
}

#[test]
fn marked_up_messages_and_their_recipients_are_a_users_settings() {
    // MiniMax-M2's calls inside `to=RECIPIENT<|message|>` messages.
    let built = |reasoning: &[&str], content: &[&str]| {
        FormatBuilder::based_on("my_muse", Format::MiniMaxM2)
            .marker(Role::HeadOpen, "<|start|>")
            .marker(Role::ArgsOpen, "<|message|>")
            .marker(Role::BodyClose, "<|eom|>")
            .headers("to=", "", Vec::<String>::new())
            .header_recipients(reasoning.to_vec(), content.to_vec())
            .build()
    };
    let format = built(&["self"], &["user"]).unwrap();
    let message = crate::Parser::new(format).parse(
        " to=self<|message|>Think.<|eom|><|start|>assistant to=f<|message|><minimax:tool_call>\n\
         <invoke name=\"f\">\n<parameter name=\"a\">1</parameter>\n</invoke>\n</minimax:tool_call>\
         <|eom|><|start|>assistant to=user<|message|>Done.",
    );
    assert_eq!(message.reasoning.as_deref(), Some("Think."));
    assert_eq!(message.content.as_deref(), Some("Done."));
    assert_eq!(message.tool_calls.len(), 1);
    assert_eq!(message.tool_calls[0].arguments, r#"{"a": "1"}"#);
    // A recipient says one thing.
    assert_eq!(
        built(&["self"], &["self"]),
        Err(DescriptionError::HeaderRecipient("self".into()))
    );
    assert_eq!(
        built(&[""], &[]),
        Err(DescriptionError::HeaderRecipient("".into()))
    );
    // A header ends at the body's opener, which is spelled.
    assert_eq!(
        FormatBuilder::based_on("no_opener", Format::MiniMaxM2)
            .marker(Role::HeadOpen, "<|start|>")
            .headers("to=", "", Vec::<String>::new())
            .build(),
        Err(DescriptionError::MissingRole(Role::ArgsOpen))
    );
}

#[cfg(feature = "toml")]
#[test]
fn a_format_file_says_marked_up_messages_and_their_recipients() {
    let file = Format::Muse.to_toml();
    assert!(file.contains("\n[headers]\n"), "{file}");
    assert!(file.contains("reasoning_recipients = [\"self\"]"), "{file}");
    assert!(
        file.contains("content_recipients = [\"user\", \"commentary\"]"),
        "{file}"
    );
    let format = Format::from_toml(&file).unwrap();
    let message = crate::Parser::new(format)
        .parse(" to=self<|message|>Hm.<|eom|><|start|>assistant to=user<|message|>Hi.");
    assert_eq!(message.reasoning.as_deref(), Some("Hm."));
    assert_eq!(message.content.as_deref(), Some("Hi."));
    let twice = file.replace(
        "content_recipients = [\"user\", \"commentary\"]",
        "content_recipients = [\"user\", \"self\"]",
    );
    let error = Format::from_toml(&twice).unwrap_err();
    assert_eq!(
        error.rule(),
        "a header recipient is not empty and is listed once"
    );
    assert_eq!(
        error.line(),
        file.lines().position(|l| l == "[headers]").map(|i| i + 1)
    );
}

#[test]
fn headers_that_end_at_their_line_are_a_users_setting() {
    // `@@NAME` lines; `say` is content, any other recipient a function.
    let built = |line_end: bool| {
        FormatBuilder::new("line_headers")
            .marker(Role::HeadOpen, "@@")
            .json_headers("", "", Vec::<String>::new())
            .header_recipients(Vec::<String>::new(), vec!["say".to_owned()])
            .header_line_end(line_end)
            .build()
    };
    let format = built(true).unwrap();
    let message = crate::Parser::new(format)
        .parse("say\nLooking.@@get_weather\n{\"city\": \"Paris\"}@@say\nDone.");
    assert_eq!(message.content.as_deref(), Some("Looking.Done."));
    assert_eq!(message.tool_calls.len(), 1);
    assert_eq!(message.tool_calls[0].name, "get_weather");
    assert_eq!(message.tool_calls[0].arguments, r#"{"city": "Paris"}"#);
    // Words where a recipient belongs: text, reported.
    let message = crate::Parser::new(format).parse("say\nHi.@@get the weather\n{}");
    assert_eq!(message.tool_calls.len(), 0);
    assert_eq!(message.diagnostics[0].kind.as_str(), "malformed_header");
    // Without the line end, a header ends at `arguments_open`, which is
    // then spelled.
    assert_eq!(
        built(false),
        Err(DescriptionError::MissingRole(Role::ArgsOpen))
    );
}

#[cfg(feature = "toml")]
#[test]
fn a_format_file_says_headers_end_at_their_line() {
    let file = Format::FunctionaryV32.to_toml();
    assert!(file.contains("ends_at_line_end = true"), "{file}");
    let format = Format::from_toml(&file).unwrap();
    let message = crate::Parser::new(format).parse("all\nHi.>>>f\n{\"a\": 1}");
    assert_eq!(message.content.as_deref(), Some("Hi."));
    assert_eq!(message.tool_calls[0].arguments, r#"{"a": 1}"#);
}
