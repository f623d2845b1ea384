//! Typed values: parameters declared with a type in a schema, and value
//! texts in each type's forms, their near misses, and text that fits no
//! type, checked for every markup format and every typing option.

use super::*;

/// Value texts for typed parameters: each type's forms, its near misses,
/// and text that fits no type.
pub(crate) const TYPED_VALUES: &[&str] = &[
    "3",
    " 7 ",
    "-0",
    "007",
    "1_000",
    "2.5",
    "1.0",
    "1e3",
    "1e400",
    "nan",
    "inf",
    "True",
    "false",
    "0",
    "yes",
    "null",
    "None",
    "[1, 2]",
    "[1,",
    "{\"k\": [1, {\"j\": null}]}",
    "{'k': True}",
    "",
    "abc",
    "12345678901234567890123456789012345678901",
    "é",
    "</parameter>",
];

/// Tools for the typed generators: one parameter per kind of type set.
pub(crate) const TYPED_TOOLS: &str = r#"[{"type": "function", "function": {"name": "f", "parameters": {
    "type": "object",
    "properties": {
        "i": {"type": "integer"}, "n": {"type": ["number", "null"]}, "b": {"type": "boolean"},
        "o": {"type": "object"}, "a": {"type": "array"}, "u": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        "s": {"type": "string"}
    },
    "required": ["i"]}}}]"#;

pub(crate) const TYPED_KEYS: &[&str] = &["i", "n", "b", "o", "a", "u", "s", "zz"];

/// Calls of tool `f` with typed parameters, in the format's layout.
pub(crate) fn typed_calls(format: Format) -> impl Strategy<Value = Vec<u8>> {
    let param = (
        prop::sample::select(TYPED_KEYS),
        prop::sample::select(TYPED_VALUES),
    );
    (prop::collection::vec(param, 0..6), any::<bool>()).prop_map(move |(params, two)| {
        let mut call = String::new();
        if format == Format::Qwen3Coder {
            call.push_str("<tool_call>\n<function=f>\n");
            for (key, value) in &params {
                call.push_str(&format!("<parameter={key}>\n{value}\n</parameter>\n"));
            }
            call.push_str("</function>\n</tool_call>");
        } else {
            call.push_str("<tool_call>f\n");
            for (key, value) in &params {
                call.push_str(&format!(
                    "<arg_key>{key}</arg_key>\n<arg_value>{value}</arg_value>\n"
                ));
            }
            call.push_str("</tool_call>");
        }
        let text = if two {
            format!("Sure.\n{call}\n{call}")
        } else {
            call
        };
        text.into_bytes()
    })
}

pub(crate) fn typed_parser(format: Format, strict: bool, python_literals: bool) -> ParserBuilder {
    Parser::builder()
        .format(format)
        .tools(std::sync::Arc::new(
            toolcall_stream::Tools::from_json(TYPED_TOOLS).unwrap(),
        ))
        .strict(strict)
        .python_literals(python_literals)
        .ids(Ids::sequential("call_"))
}

pub(crate) fn typed_format() -> impl Strategy<Value = Format> {
    prop_oneof![
        Just(Format::Qwen3Coder),
        Just(Format::Glm45),
        Just(Format::Glm47)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        rng_seed: rng_seed(),
        ..ProptestConfig::default()
    })]

    /// Typed values: split invariance, the contract (arguments deltas are
    /// the final arguments and valid JSON), `parse` agreeing, in and out of
    /// strict mode and with Python literals on or off.
    #[test]
    fn typed_values_keep_split_invariance_and_the_contract(
        format in typed_format(),
        (input, cuts) in typed_format().prop_flat_map(|f| input_and_cuts(typed_calls(f))),
        strict in any::<bool>(),
        python_literals in any::<bool>(),
    ) {
        check_split_with(typed_parser(format, strict, python_literals), &input, &cuts)?;
    }

    #[test]
    fn typed_partial_views_are_json_and_agree_with_the_final_arguments(
        format in typed_format(),
        (input, cuts) in typed_format().prop_flat_map(|f| input_and_cuts(typed_calls(f))),
    ) {
        check_partial_views(typed_parser(format, false, false).build(), &input, &cuts)?;
    }

    /// A value whose text fits none of its types never drops the call: every
    /// generated parameter with a value is in the arguments.
    #[test]
    fn a_value_that_fails_its_type_never_drops_the_call(
        input in typed_calls(Format::Qwen3Coder),
    ) {
        let lenient = typed_parser(Format::Qwen3Coder, false, false).build().parse(&input);
        let untyped = Parser::builder().ids(Ids::sequential("call_")).build().parse(&input);
        prop_assert_eq!(lenient.tool_calls.len(), untyped.tool_calls.len());
        for (typed, plain) in lenient.tool_calls.iter().zip(&untyped.tool_calls) {
            let typed: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(&typed.arguments).unwrap();
            let plain: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(&plain.arguments).unwrap();
            prop_assert_eq!(
                typed.keys().collect::<Vec<_>>(),
                plain.keys().collect::<Vec<_>>()
            );
        }
    }
}
